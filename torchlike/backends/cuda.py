"""CUDA flags, as ``torch.backends.cuda``: ``matmul.allow_tf32`` (default
False, as PyTorch) lets float32 matrix products on CUDA round their inputs
to TF32 on tensor cores; the cuBLAS kernels read it at every call.

The scaled-dot-product-attention switches (``enable_flash_sdp`` ...) are
PyTorch's: they choose which backends F.scaled_dot_product_attention may
use, on every device (nn/attention/_backends.py), and ``sdp_kernel`` is
PyTorch's deprecated context manager for them."""
import contextlib
import warnings

from .. import _C, _flags
from ..nn.attention._backends import SDPBackend, backend_enabled, set_backend_enabled


class _MatmulFlags:
    """``torchlike.backends.cuda.matmul``: the cuBLAS switches."""

    @property
    def allow_tf32(self):
        return _C._cublas_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _flags.allow_tf32_set(value)  # also torchlike.get_float32_matmul_precision's

    # PyTorch's switches for half-precision reductions; ours always
    # accumulate float16/bfloat16 products in float32.
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    """Whether this build has CUDA in it (not whether a GPU is present:
    that is torchlike.cuda.is_available())."""
    return _C._cuda_compiled()


def enable_flash_sdp(enabled):
    set_backend_enabled(SDPBackend.FLASH_ATTENTION, enabled)


def flash_sdp_enabled():
    return backend_enabled(SDPBackend.FLASH_ATTENTION)


def enable_mem_efficient_sdp(enabled):
    set_backend_enabled(SDPBackend.EFFICIENT_ATTENTION, enabled)


def mem_efficient_sdp_enabled():
    return backend_enabled(SDPBackend.EFFICIENT_ATTENTION)


def enable_math_sdp(enabled):
    set_backend_enabled(SDPBackend.MATH, enabled)


def math_sdp_enabled():
    return backend_enabled(SDPBackend.MATH)


def enable_cudnn_sdp(enabled):
    set_backend_enabled(SDPBackend.CUDNN_ATTENTION, enabled)


def cudnn_sdp_enabled():
    return backend_enabled(SDPBackend.CUDNN_ATTENTION)


# PyTorch's switch for float16/bfloat16 reductions in the math backend; ours
# accumulates them in float32 either way, so it is only kept and read back
_math_sdp_reduced = [False]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _math_sdp_reduced[0] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _math_sdp_reduced[0]


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """The backends switched on inside the block (PyTorch's deprecated form
    of nn.attention.sdpa_kernel)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
                  "new context manager, with updated signature.", FutureWarning, stacklevel=3)
    from ..nn.attention import sdpa_kernel
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.MATH, enable_math),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    with sdpa_kernel(chosen):
        yield {}
