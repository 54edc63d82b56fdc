"""torchlike: a PyTorch-class tensor library whose Tensor speaks NumPy.

``import torchlike as torch`` gives PyTorch's API; every function and method
below comes from the op registry of the C core (``torchlike._C``)."""
from . import _blas_policy
with _blas_policy.coretype_for_load():  # before _C loads OpenBLAS
    from . import _C
from ._C import *  # noqa: F401,F403  (ops, dtypes, creation functions)
from ._C import Tensor, Size, dtype
from ._C import _standard_gamma  # noqa: F401  (PyTorch's torch._standard_gamma)
from ._device import device, set_default_device, get_default_device
from . import _tensor  # noqa: F401  (attaches the Python-side Tensor methods)
from ._legacy_types import CPU_TYPES as _CPU_TYPES  # (FloatTensor ...; Tensor.type, type_as)
globals().update(_CPU_TYPES)
from . import _ndarray  # noqa: F401  (the ndarray methods and attributes NumPy code calls)
from ._aliases import *  # noqa: F401,F403  (absolute, multiply, arcsin, clip, greater ...)
from ._closeness import *  # noqa: F401,F403  (isclose, allclose, equal and their methods)
from . import cuda  # noqa: F401
from . import random  # noqa: F401  (torch.random: fork_rng and the seeding functions)
from ._layout import *  # noqa: F401,F403  (strided, contiguous_format, channels_last ...)
from .utils.dlpack import to_dlpack  # noqa: F401  (torch.to_dlpack)
from . import nn  # noqa: F401
from . import backends  # noqa: F401
from .nn._torch_api import *  # noqa: F401,F403  (torch.relu, torch.softmax, x.softmax() ...)
from . import linalg  # noqa: F401
from . import fft  # noqa: F401  (torch.fft: differentiable transforms)
from . import special  # noqa: F401  (torch.special: sinc and the aliases of existing ops)
from . import autograd  # noqa: F401
from . import optim  # noqa: F401
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled,  # noqa: F401
                                 inference_mode, is_inference_mode_enabled, is_grad_enabled)
from ._linalg_api import *  # noqa: F401,F403  (einsum, det, inverse, svd ... and their methods)
from ._composites import *  # noqa: F401,F403  (addcmul, diff, cov, the windows ... and methods)
from ._dtype_info import finfo, iinfo  # noqa: F401
from ._inplace_functions import *  # noqa: F401,F403  (torch.abs_, torch.clamp_ ..., fill)
from ._view_copies import *  # noqa: F401,F403  (transpose_copy, split_copy ...)
from ._tensor_utils import *  # noqa: F401,F403  (is_conj, typename, range ... and methods)
from ._flags import *  # noqa: F401,F403  (determinism, matmul precision, anomaly ... switches)
from ._spectral import *  # noqa: F401,F403  (stft, istft and their methods)
from ._histogram import *  # noqa: F401,F403  (histogram, histogramdd)
from ._lu_extra import *  # noqa: F401,F403  (lu, lu_solve, lu_unpack, triangular_solve)
from ._torch_extra import *  # noqa: F401,F403  (combinations, gradient, index_reduce, linalg.vander ...)
from ._float8 import _scaled_mm  # noqa: F401  (float8 matrices with scales)
from ._tensor_str import set_printoptions, get_printoptions  # noqa: F401
from . import serialization  # noqa: F401  (also makes tensors pickle)
from .serialization import save, load, UntypedStorage, TypedStorage  # noqa: F401
from ._from_file import from_file  # noqa: F401  (torch.from_file: a tensor over a mapped file)
from .utils import data as _utils_data  # noqa: F401  (torchlike.utils.data, as torch.utils.data)
from . import distributions  # noqa: F401
# torch._standard_gamma_grad, also what _standard_gamma's node calls
# (formulas_random.c); recorded, so that differentiating it again raises
# PyTorch's NotImplementedError (formulas_missing.c) rather than giving zeros
from .distributions._gamma_ops import _standard_gamma_grad
_standard_gamma_grad = _C._standard_gamma_grad = _C._recorded("_standard_gamma_grad",
                                                              _standard_gamma_grad)
from . import func  # noqa: F401  (torch.func: functional_call and the function transforms)
from .func import vmap  # noqa: F401  (torch.vmap)
from ._control_flow import cond, while_loop  # noqa: F401
from ._streams import Stream, Event  # noqa: F401  (device-generic streams and events)
from . import accelerator  # noqa: F401
from . import distributed  # noqa: F401  (torch.distributed: CPU collectives over TCP)
from ._device import get_device_module  # noqa: F401
from ._compile import compile  # noqa: F401  (a no-op: eager execution)
from . import amp, cpu  # noqa: F401  (mixed precision; torch.cpu.amp)
from . import profiler  # noqa: F401  (torch.profiler; also torchlike.autograd.profiler)
from .cuda import amp as _cuda_amp  # noqa: F401  (torch.cuda.amp)
from .amp import autocast, is_autocast_enabled, get_autocast_dtype  # noqa: F401
from .amp.autocast_mode import (is_autocast_cpu_enabled, get_autocast_cpu_dtype,  # noqa: F401
                                get_autocast_gpu_dtype, is_autocast_cache_enabled,
                                clear_autocast_cache, set_autocast_enabled, set_autocast_dtype,
                                set_autocast_cache_enabled, set_autocast_cpu_enabled,
                                set_autocast_cpu_dtype, set_autocast_gpu_dtype,
                                autocast_increment_nesting, autocast_decrement_nesting)
# PyTorch's modules for tests, TorchScript, compilers, custom ops (docs/api_modules.md)
from . import testing, futures, jit, compiler, _dynamo, _inductor  # noqa: F401,E402
from .futures import Future  # noqa: F401,E402
from . import library  # noqa: F401,E402
from ._ops import ops  # noqa: F401,E402
from . import hub  # noqa: F401,E402
from . import onnx  # noqa: F401,E402  (torch.onnx: importable; export raises)
from .amp import GradScaler  # noqa: F401,E402
# Numerical extras: torch.signal, the low-rank solvers, Sobol, functional forms.
from . import signal  # noqa: F401  (torch.signal.windows)
from . import quasirandom  # noqa: F401  (SobolEngine)
from ._tensor_storage import *  # noqa: F401,F403  (t.set_, t.storage, FloatStorage ...)
from . import _ndarray_io  # noqa: F401  (byteswap, tofile, resize, setflags ... on Tensor)
from ._lowrank import vander, svd_lowrank, pca_lowrank  # noqa: F401
from ._lobpcg import lobpcg  # noqa: F401
from ._functional_extra import *  # noqa: F401,F403  (binomial, segment_reduce, lstm_cell ...)
from ._aten_forms import *  # noqa: F401,F403  (native_dropout, hash_tensor, ormqr ...)
from ._aten_rnn import *  # noqa: F401,F403  (lstm, gru, rnn_tanh, rnn_relu)
from ._aten_batch_norm import *  # noqa: F401,F403  (batch_norm_stats, batch_norm_elemt ...)
from ._fake_quantize import *  # noqa: F401,F403  (fake_quantize_per_tensor_affine ...)
from ._quantized import *  # noqa: F401,F403  (quantize_per_tensor, qschemes ...: docs/quantization.md)
from ._removed import *  # noqa: F401,F403  (solve, eig ...: raise, naming the replacement)
from ._sym import *  # noqa: F401,F403  (sym_int, sym_max ...: their eager answers; build flags)
# Sparse layouts (docs/sparse.md): the factories here, products and sums in torchlike.sparse.
from ._sparse import (sparse_coo_tensor, sparse_compressed_tensor, sparse_csr_tensor,  # noqa: F401
                      sparse_csc_tensor, sparse_bsr_tensor, sparse_bsc_tensor)
from . import sparse  # noqa: F401

_C._set_device_class(device)

# Methods PyTorch also spells as functions of the input.
clone = Tensor.clone


def detach(input):
    """``input.detach()``: a tensor sharing input's data, outside the graph."""
    if not isinstance(input, Tensor):
        raise TypeError(f"detach(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.detach()


# Short dtype names, as PyTorch spells them.
half = float16
float = float32
double = float64
cfloat = complex64
cdouble = complex128
short = int16
int = int32
long = int64

# PyTorch's constants: Python's own floats, and None for indexing.
from math import e, pi, inf, nan  # noqa: E402,F401
from . import functional, xpu, mps  # noqa: F401,E402  (torch.functional; no XPU, no MPS)
newaxis = None

from .version import __version__  # noqa: E402  (one place: torchlike.version)
from . import version  # noqa: F401,E402  (torch.version: cuda, hip, debug)

# torch._foreach_*: the per-tensor ops over lists of tensors
from . import _multi_tensor  # noqa: E402
_multi_tensor._install(globals())

from . import masked  # noqa: F401,E402  (torch.masked: masked reductions, MaskedTensor)
from . import nested  # noqa: F401,E402  (torch.nested; adds Tensor.to_padded_tensor)
from ._layout import jagged  # noqa: F401,E402

# Last: every public callable above reaches __torch_function__ (overrides._install).
from . import overrides  # noqa: E402
overrides._install()

# torch.fx: symbolic tracing (pure Python over the namespaces above)
from . import fx  # noqa: E402,F401
from . import export  # noqa: E402,F401  (torch.export: docs/export.md)

# x.T builds its view directly while Tensor.permute is still the one
# installed above (one a user assigns later is called as before).
_C._arm_fast_views()


def __getattr__(name):
    """torch.ao and torch.quantization load on first use (they cost import time)."""
    if name in ("ao", "quantization"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'torchlike' has no attribute {name!r}")
