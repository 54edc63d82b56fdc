"""torchlike.cpu: the CPU device module (``torchlike.cpu.amp`` holds the
legacy autocast spelling)."""
from . import amp  # noqa: F401

__all__ = ["amp", "is_available", "device_count", "synchronize", "current_device"]


def is_available():
    """The CPU is always there."""
    return True


def device_count():
    return 1


def synchronize(device=None):
    """CPU work is synchronous: nothing to wait for."""


def current_device():
    return "cpu"
