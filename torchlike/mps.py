"""torchlike.mps, as ``torch.mps`` on a machine without Metal: torchlike has
no MPS backend (``torchlike.backends.mps.is_available()`` is False).  Asking
for the device count or seeding answers as PyTorch does there; the rest
raises PyTorch's RuntimeError."""

__all__ = ["is_available", "device_count", "manual_seed", "seed", "get_rng_state",
           "set_rng_state", "synchronize", "empty_cache", "set_per_process_memory_fraction",
           "current_allocated_memory", "driver_allocated_memory", "recommended_max_memory",
           "Event", "Stream"]


def _without_mps(what):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")
    refuse.__name__ = what
    return refuse


def is_available():
    """False: no MPS device."""
    return False


def device_count():
    """0: no MPS device."""
    return 0


def manual_seed(seed):
    """Nothing to seed."""


seed = get_rng_state = set_rng_state = _without_mps("getDefaultGenerator")
synchronize = _without_mps("deviceSynchronize")
empty_cache = _without_mps("emptyCache")
set_per_process_memory_fraction = _without_mps("setMemoryFraction")
current_allocated_memory = _without_mps("getCurrentAllocatedMemory")
driver_allocated_memory = _without_mps("getDriverAllocatedMemory")
recommended_max_memory = _without_mps("getRecommendedMaxMemory")
Event = _without_mps("acquireEvent")


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Stream")
