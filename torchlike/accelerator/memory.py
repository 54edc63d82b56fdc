"""torchlike.accelerator.memory: the caching allocator's statistics and
control for the current accelerator (torchlike.cuda's).  Without a GPU the
statistics are zeros and empty_cache does nothing, as in PyTorch."""
from .. import _C
from .. import cuda as _cuda

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]


def empty_cache():
    """Give the cached, unused device memory back to the driver."""
    _cuda.empty_cache()


def empty_host_cache():
    """Give the cached, unused pinned host memory back (nothing without a GPU)."""
    _C._pinned_empty_cache()


def get_memory_info(device_index=None):
    """(free, total) bytes of a device, as its driver counts them."""
    return _cuda.mem_get_info(device_index)


def memory_stats(device_index=None):
    return _cuda.memory_stats(device_index)


def memory_allocated(device_index=None):
    return _cuda.memory_allocated(device_index)


def max_memory_allocated(device_index=None):
    return _cuda.max_memory_allocated(device_index)


def memory_reserved(device_index=None):
    return _cuda.memory_reserved(device_index)


def max_memory_reserved(device_index=None):
    return _cuda.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index=None):
    """Start the peak figures again (nothing to reset without a GPU)."""
    if _cuda.is_available():
        _cuda.reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None):
    """Zero the allocated/freed counts (nothing to reset without a GPU)."""
    if _cuda.is_available():
        _cuda.reset_accumulated_memory_stats(device_index)
