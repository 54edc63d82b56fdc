"""torchlike.accelerator.memory: the caching allocator's statistics and
control for the current accelerator (torchlike.cuda's).  Without a GPU the
statistics are zeros and empty_cache does nothing, as in PyTorch."""
from .. import _C
from .. import cuda as _cuda

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]


def empty_host_cache():
    """Give the cached, unused pinned host memory back (nothing without a GPU)."""
    _C._pinned_empty_cache()


# torchlike.cuda's own: the statistics are zeros and {} without a GPU, and
# get_memory_info is the driver's (free, total) bytes
empty_cache, get_memory_info = _cuda.empty_cache, _cuda.mem_get_info
memory_stats = _cuda.memory_stats
memory_allocated, max_memory_allocated = _cuda.memory_allocated, _cuda.max_memory_allocated
memory_reserved, max_memory_reserved = _cuda.memory_reserved, _cuda.max_memory_reserved


def reset_peak_memory_stats(device_index=None):
    """Start the peak figures again (nothing to reset without a GPU)."""
    if _cuda.is_available():
        _cuda.reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None):
    """Zero the allocated/freed counts (nothing to reset without a GPU)."""
    if _cuda.is_available():
        _cuda.reset_accumulated_memory_stats(device_index)
