"""torchlike.accelerator: PyTorch's device-generic spelling of the current
accelerator's functions.  torchlike has one accelerator, CUDA: in a build
with CUDA it is ``device("cuda")`` (whether or not this machine has a GPU,
as PyTorch answers), and every function here is torchlike.cuda's; in a
build without it there is none, ``current_accelerator()`` is None and the
functions that need a device raise."""
import contextlib

from .. import _C
from .. import cuda as _cuda
from .._device import device as _device_cls
from .memory import (  # noqa: F401
    empty_cache, empty_host_cache, get_memory_info, max_memory_allocated, max_memory_reserved,
    memory_allocated, memory_reserved, memory_stats, reset_accumulated_memory_stats,
    reset_peak_memory_stats)

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "is_available", "set_device_idx",
           "set_device_index", "set_stream", "synchronize", "empty_cache", "empty_host_cache",
           "get_device_capability", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats"]


def current_accelerator(check_available=False):
    """The accelerator's device type (``device("cuda")``) or None; with
    ``check_available``, None also when this machine cannot use it."""
    if not _C._cuda_compiled() or (check_available and not _cuda.is_available()):
        return None
    return _device_cls("cuda")


def _need():
    if not _C._cuda_compiled():
        raise RuntimeError("torchlike.accelerator: no accelerator: torchlike was built "
                           "without CUDA")


def _index(device):
    """A device argument as the accelerator's device index (None: the current one)."""
    if isinstance(device, (str, _device_cls)):
        d = _device_cls(device)
        if d.type != "cuda":
            raise ValueError(f"{d.type} doesn't match the current accelerator cuda.")
    return device


def is_available():
    """True when there is an accelerator and this machine can use it."""
    return _C._cuda_compiled() and _cuda.is_available()


def device_count():
    """The number of accelerator devices this process can use (0 without one)."""
    return _cuda.device_count() if _C._cuda_compiled() else 0


def current_device_index():
    """The index of the calling thread's current accelerator device."""
    _need()
    return _cuda.current_device()


def set_device_index(device):
    """Make ``device`` the calling thread's current accelerator device."""
    _need()
    _cuda.set_device(_index(device))


current_device_idx = current_device_index
set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device):
    """``with device_index(i):`` makes device i current for the block (None: no change)."""
    if device is None:
        yield
        return
    _need()
    with _cuda.device(device):
        yield


def synchronize(device=None):
    """Wait on the host for all work queued on a device (the current one)."""
    _need()
    _cuda.synchronize(_index(device))


def current_stream(device=None):
    """The calling thread's current stream on a device (the current one)."""
    _need()
    return _cuda.current_stream(_index(device))


def set_stream(stream):
    """Make ``stream`` current on its device, and that device current."""
    _need()
    _cuda.set_device(stream.device_index)
    _cuda.set_stream(stream)


def get_device_capability(device=None, /):
    """What the accelerator device (the current one by default) supports:
    ``{"supported_dtypes": set of dtypes}``, the dtypes tensors can be made
    in and converted between there (every torchlike dtype: the CUDA copy
    kernels convert between all of them)."""
    _need()
    from ..cuda._lazy import _get_device_index, _lazy_init
    index = _index(device)
    _lazy_init()
    index = _get_device_index(index, optional=True)
    if not 0 <= index < _cuda.device_count():
        raise RuntimeError(f"device index {index} is out of range: "
                           f"{_cuda.device_count()} CUDA device(s) available")
    from .._dtype_names import SCALAR_NAMES
    return {"supported_dtypes": {dtype for _, dtype in SCALAR_NAMES}}
