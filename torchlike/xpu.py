"""torchlike.xpu, as ``torch.xpu`` in a build without XPU support: torchlike
has no XPU backend.  Device-picking code (``torch.xpu.is_available()``) takes
its next choice; what PyTorch answers without a device (no devices, no
memory in use, seeding that does nothing) is answered the same; what needs a
device raises PyTorch's AssertionError."""

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "empty_cache", "memory_allocated", "memory_reserved",
           "max_memory_allocated", "max_memory_reserved", "is_bf16_supported",
           "is_tf32_supported", "device", "init", "synchronize", "current_device", "set_device",
           "get_device_name", "get_device_properties", "get_device_capability",
           "get_rng_state", "set_rng_state", "initial_seed", "Stream", "Event"]


def _no_xpu(*args, **kwargs):
    raise AssertionError("torchlike not compiled with XPU enabled")


init = synchronize = current_device = set_device = get_device_name = _no_xpu
get_device_properties = get_device_capability = get_rng_state = _no_xpu
initial_seed = _no_xpu


def is_available():
    """False: no XPU device."""
    return False


def device_count():
    """0: no XPU device."""
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def manual_seed(seed):
    """Nothing to seed (as PyTorch, which seeds an XPU lazily, when one comes)."""


manual_seed_all = manual_seed


def set_rng_state(new_state, device="xpu"):
    """Nothing to set (PyTorch queues it for an XPU that never comes)."""


def seed():
    """Nothing to seed."""


seed_all = seed


def empty_cache():
    """No cache to empty."""


def memory_allocated(device=None):
    return 0


memory_reserved = max_memory_allocated = max_memory_reserved = memory_allocated


class device:
    """``with torch.xpu.device(i):`` selects nothing: there is no XPU device."""

    def __init__(self, device):
        self.idx = device if isinstance(device, int) else -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Dummy:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"Tried to instantiate dummy base class {type(self).__name__}")


class Stream(_Dummy):
    pass


class Event(_Dummy):
    pass
