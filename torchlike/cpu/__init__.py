"""torchlike.cpu: the CPU device module, the device-generic spellings of
torch.cuda's for the host (``torchlike.cpu.amp`` holds the legacy autocast
spelling).

The host runs work as it is issued, so its ``Stream`` and ``Event`` have
nothing to wait for: they exist so that device-generic code (``with
device_module.stream(s):``, ``event.record()``) runs unchanged, as PyTorch's
do.  ``current_stream()`` is the default stream unless a ``stream(s)``
context selects another (one current stream for the process, as in
PyTorch).  ``get_capabilities()`` is what the processor supports
(``_capabilities.py``)."""
from contextlib import AbstractContextManager
from functools import lru_cache
from types import MappingProxyType

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
           "get_capabilities"]


@lru_cache(None)
def get_capabilities():
    """A read-only mapping of what this CPU supports: instruction-set names
    (``"avx2"``, ``"avx512_f"``, ``"amx_tile"`` ... as PyTorch names them) to
    bools, ``"architecture"``, core counts and cache sizes in bytes."""
    from ._capabilities import capabilities
    return MappingProxyType(capabilities())


def _is_avx2_supported():
    return get_capabilities().get("avx2", False)


def _is_avx512_supported():
    return get_capabilities().get("avx512_f", False)


def _is_avx512_bf16_supported():
    return get_capabilities().get("avx512_bf16", False)


def _is_vnni_supported():
    return get_capabilities().get("avx512_vnni", False)


def _is_amx_tile_supported():
    return get_capabilities().get("amx_tile", False)


def _is_amx_fp16_supported():
    return get_capabilities().get("amx_fp16", False)


def is_available():
    """The CPU is always there."""
    return True


def is_initialized():
    """The CPU needs no initialisation: always True."""
    return True


def device_count():
    """One CPU device (not the number of cores)."""
    return 1


def synchronize(device=None):
    """CPU work is synchronous: nothing to wait for (``device`` is ignored)."""


def set_device(device):
    """There is one CPU device: nothing to select."""


def current_device():
    return "cpu"


class Stream:
    """The host's stream: work on it is done when issued, so waiting on it
    or on another stream does nothing.  ``priority`` is accepted and ignored."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    """An event on the host: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None):
    """The stream selected by the innermost ``stream(s)`` context, else the
    default one (``device`` is ignored)."""
    return _current_stream


class StreamContext(AbstractContextManager):
    """Select ``stream`` as the current one inside the block (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return
        self.prev_stream = _current_stream
        _current_stream = self.stream

    def __exit__(self, *exc):
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


def stream(stream):
    """``StreamContext(stream)``."""
    return StreamContext(stream)
