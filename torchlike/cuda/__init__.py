"""torchlike.cuda: GPU queries, devices, streams and events, seeding and
memory.  On a machine without a GPU, or a build without CUDA,
``is_available()`` is False and ``device_count()`` is 0; the functions that
need a GPU raise as PyTorch's do there (``_lazy.py``)."""
import contextlib

from .. import _C
from ._lazy import _get_device_index, _lazy_init
from .streams import Event, ExternalStream, Stream  # noqa: F401
from .._legacy_types import CUDA_TYPES as _CUDA_TYPES  # (torchlike.cuda.FloatTensor ...)
globals().update(_CUDA_TYPES)


def device_count():
    """Number of CUDA devices this process can use."""
    return _C._cuda_device_count()


def is_available():
    """True when at least one CUDA device can be used."""
    return device_count() > 0


def is_initialized():
    """True when a GPU can be used (torchlike initialises CUDA at import)."""
    return is_available()


def init():
    """Raise now, not on first use, when no GPU can be used."""
    _lazy_init()


# ---- devices ------------------------------------------------------------------------------

def current_device():
    """The index of the calling thread's current CUDA device."""
    _lazy_init()
    return _C._cuda_current_device()


def set_device(device):
    """Make ``device`` the calling thread's current CUDA device ("cuda"
    names it from then on); a negative index does nothing, as in PyTorch."""
    index = _get_device_index(device, optional=True)
    if index >= 0:
        _lazy_init()
        _C._cuda_set_device(index)


class device:
    """Context manager: ``with torchlike.cuda.device(1):`` makes cuda:1 the
    current device for the block (None or a negative index: no change)."""

    def __init__(self, device):
        self.idx = -1 if device is None else _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                _C._cuda_set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._cuda_set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager: the device of tensor ``obj`` is current for the block
    (no change for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.device.type == "cuda" else -1)


class _CudaDeviceProperties:
    """What get_device_properties reports (names as PyTorch's)."""

    def __init__(self, props):
        self.__dict__.update(props)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count}, uuid={self.uuid[4:]}, "
                f"L2_cache_size={self.L2_cache_size // (1024 * 1024)}MB)")


def get_device_properties(device=None):
    """Name, memory, compute capability and multiprocessor count of a device."""
    _lazy_init()
    index = _get_device_index(device, optional=True)
    if not 0 <= index < device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(_C._cuda_device_properties(index))


def get_device_name(device=None):
    """The name of a device ("NVIDIA H100 80GB HBM3" ...)."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """(major, minor) compute capability of a device."""
    p = get_device_properties(device)
    return p.major, p.minor


def get_arch_list():
    """The architectures the build compiled device code for ("sm_90" for
    machine code, "compute_90" for PTX that the driver compiles for newer
    GPUs); [] in a build without CUDA."""
    arches = []
    for entry in _C._cuda_arch_text().split():
        number, _, kind = entry.partition("-")
        if kind in ("", "real"):
            arches.append(f"sm_{number}")
        if kind in ("", "virtual"):
            arches.append(f"compute_{number}")
    return arches


def get_gencode_flags():
    """get_arch_list as nvcc's -gencode flags."""
    flags = []
    for arch in get_arch_list():
        kind, number = arch.split("_")
        flags.append(f"-gencode compute=compute_{number},code={kind}_{number}")
    return " ".join(flags)


def is_bf16_supported(including_emulation=True):
    """Whether the current device computes in bfloat16: natively from
    compute capability 8.0; torchlike's kernels compute bfloat16 in float32,
    so any GPU does with including_emulation.  False without a GPU."""
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def is_tf32_supported():
    """Whether the current device has TF32 tensor cores (compute capability 8.0+)."""
    return is_available() and get_device_capability()[0] >= 8


def synchronize(device=None):
    """Wait on the host for all work queued on a device (the current one)."""
    _lazy_init()
    _C._cuda_synchronize(_get_device_index(device, optional=True))


# ---- streams -------------------------------------------------------------------------------

def current_stream(device=None):
    """The calling thread's current stream on a device (the current one)."""
    _lazy_init()
    index = _get_device_index(device, optional=True)
    return Stream(index, _handle=_C._cuda_current_stream(index))


def default_stream(device=None):
    """The default (legacy, handle 0) stream of a device."""
    _lazy_init()
    return Stream(_get_device_index(device, optional=True), _handle=0)


def set_stream(stream):
    """Make ``stream`` the current stream of its device for this thread."""
    if stream is None:
        return
    _lazy_init()
    _C._cuda_set_stream(stream.device_index, stream.cuda_stream)


class StreamContext:
    """Context manager: ``stream`` is current on its device for the block, and
    its device the current device; both restored after.  None: no change."""

    def __init__(self, stream):
        self.stream = stream
        self._saved = None

    def __enter__(self):
        s = self.stream
        if s is None:
            return None
        _lazy_init()
        prev_device = _C._cuda_current_device()
        prev_stream = _C._cuda_current_stream(s.device_index)
        self._saved = (prev_device, prev_stream)
        _C._cuda_set_device(s.device_index)
        _C._cuda_set_stream(s.device_index, s.cuda_stream)
        return s

    def __exit__(self, *exc):
        if self.stream is None or self._saved is None:
            return False
        prev_device, prev_stream = self._saved
        _C._cuda_set_stream(self.stream.device_index, prev_stream)
        _C._cuda_set_device(prev_device)
        self._saved = None
        return False


def stream(stream):
    """``with torchlike.cuda.stream(s):`` - queue the block's work on ``s``."""
    return StreamContext(stream)


from .random import (  # noqa: E402,F401  (torch.cuda's seeding functions)
    manual_seed, manual_seed_all, seed, seed_all, initial_seed, get_rng_state,
    get_rng_state_all, set_rng_state, set_rng_state_all)


# ---- synchronization debugging, IPC -----------------------------------------------------

def set_sync_debug_mode(debug_mode):
    """Warn (1, "warn") or raise (2, "error") when the host waits for a
    device to read its memory: ``item()``, ``bool()``, ``cpu()``, ``tolist()``,
    a copy to the CPU, a strided write into a device view.  0 or "default":
    nothing.  Checked where the core reads device memory on the host
    (src/ndcore/tensor/backend.c), so the fake device checks it too.  Other
    synchronizing calls (synchronize, the linear-algebra error checks) are not
    covered, as PyTorch covers only some."""
    _lazy_init()
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               "`error`")
        debug_mode = modes[debug_mode]
    _C._sync_debug_mode(int(debug_mode))


def get_sync_debug_mode():
    """The synchronization debug mode in force: 0, 1 (warn) or 2 (error)."""
    _lazy_init()
    return _C._sync_debug_mode()


def ipc_collect():
    """PyTorch frees here the memory of tensors shared with other processes
    once they no longer use it.  torchlike keeps no such list (a shared block
    is released by the process that owns it when its tensor dies), so there is
    nothing to collect: this only checks that a GPU can be used."""
    _lazy_init()


def __getattr__(name):
    # made on first use (random.py): importing must not start the CUDA driver
    if name == "default_generators":
        return _C._cuda_default_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

from .memory import *  # noqa: E402,F401,F403  (torch.cuda's memory functions)
from .memory import OutOfMemoryError  # noqa: E402,F401
from . import nvtx  # noqa: E402,F401
from ._queries import *  # noqa: E402,F401,F403  (peer access, error codes, NVML queries)
