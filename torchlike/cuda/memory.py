"""torchlike.cuda memory management: the caching allocator's statistics and
controls, shaped like ``torch.cuda.memory``.

Each device's caching pool lives in C (src/ndcore/tensor/alloc_pool.c, over
cudaMalloc in src/gpu/backend_cuda.c).  On a machine without a GPU these
functions answer as PyTorch's do there: the statistics are empty or zero,
``empty_cache`` does nothing, and the functions that need a device raise."""
import collections
import os
import warnings

from .. import _C

__all__ = ["OutOfMemoryError", "memory_stats", "memory_stats_as_nested_dict", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_accumulated_memory_stats", "memory_summary", "empty_cache",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction", "mem_get_info",
           "get_allocator_backend", "memory_cached", "max_memory_cached",
           "reset_max_memory_cached"]

OutOfMemoryError = _C.OutOfMemoryError

_NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
              "and installed a driver")


def _available():
    return _C._cuda_device_count() > 0


def _device(device):
    """The cuda device a memory function is about: None and "cuda" name the
    thread's current device (torchlike.cuda.set_device), as in PyTorch."""
    if isinstance(device, int) and not isinstance(device, bool):
        return f"cuda:{device}"
    name = "cuda" if device is None else str(device)
    return f"cuda:{_C._cuda_current_device()}" if name == "cuda" else name


def memory_stats(device=None):
    """The caching allocator's statistics for ``device``, with PyTorch's key names
    (``"allocated_bytes.all.current"``, ``"num_ooms"`` ...), sorted by key.  Empty
    without a GPU."""
    if not _available():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._memory_stats(_device(device)).items()))


def memory_stats_as_nested_dict(device=None):
    """memory_stats with the dotted keys split into nested dicts."""
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        d = nested
        for part in path:
            d = d.setdefault(part, {})
        d[last] = value
    return nested


def memory_allocated(device=None):
    """Bytes of device memory held by tensors (rounded block sizes)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """The peak of memory_allocated since start or reset_peak_memory_stats."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (used or cached)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """The peak of memory_reserved since start or reset_peak_memory_stats."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Start the ``peak`` figures again from the current ones."""
    if not _available():
        raise RuntimeError("invalid argument to reset_peak_memory_stats")
    _C._pool_control("reset_peak", _device(device))


def reset_max_memory_allocated(device=None):
    """Same as reset_peak_memory_stats (it resets every peak, as in PyTorch)."""
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    """Zero the ``allocated``/``freed`` totals and the event counters."""
    if not _available():
        raise RuntimeError("invalid argument to reset_accumulated_memory_stats")
    _C._pool_control("reset_accumulated", _device(device))


def memory_summary(device=None, abbreviated=False):
    """A readable table of the allocator's statistics for ``device``."""
    if not _available():
        # PyTorch reads the (empty) statistics and fails the same way
        raise KeyError("allocated_bytes.all.current")
    return _C._memory_summary(_device(device))


def empty_cache():
    """Give cached, unused device memory back to the driver (every device)."""
    for i in range(_C._cuda_device_count()):
        _C._pool_control("empty_cache", f"cuda:{i}")


def mem_get_info(device=None):
    """(free, total) bytes of a device as its driver counts them: other
    processes' memory and this pool's cached blocks are not free."""
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    return _C._mem_get_info(_device(device))


_fractions = {}  # device name -> the fraction set_per_process_memory_fraction set


def get_per_process_memory_fraction(device=None):
    """The fraction of a device's memory the pool may reserve (1.0 unless set)."""
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    return _fractions.get(_device(device), 1.0)


def get_allocator_backend():
    """The allocator in use: "native", torchlike's caching pool (the only one)."""
    return "native"


def _renamed(old, new):
    def alias(device=None):
        warnings.warn(f"torchlike.cuda.{old} has been renamed to torchlike.cuda.{new.__name__}",
                      FutureWarning, stacklevel=2)
        return new(device)
    alias.__name__ = old
    alias.__doc__ = f"Deprecated name of {new.__name__}."
    return alias


def set_per_process_memory_fraction(fraction, device=None):
    """Cap what the caching allocator may reserve on ``device`` at ``fraction``
    of its total memory; past it, allocations raise OutOfMemoryError."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    if not _available():
        raise RuntimeError(_NO_DRIVER)
    _C._set_memory_fraction(fraction, _device(device))
    _fractions[_device(device)] = fraction


def _check_config():
    text = os.environ.get("TORCHLIKE_CUDA_ALLOC_CONF")
    if text:
        try:
            _C._alloc_config(text)
        except ValueError as e:
            warnings.warn(f"{e}; the caching allocator uses its defaults", RuntimeWarning,
                          stacklevel=3)


_check_config()


memory_cached = _renamed("memory_cached", memory_reserved)
max_memory_cached = _renamed("max_memory_cached", max_memory_reserved)
reset_max_memory_cached = _renamed("reset_max_memory_cached", reset_peak_memory_stats)
