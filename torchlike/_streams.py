"""torchlike.Stream and torchlike.Event: PyTorch's device-generic stream and
event types.  ``Stream("cuda")`` and ``Event("cuda")`` (or no device, with a
GPU build) make torchlike.cuda's, which derive from these, so device-generic
code can test ``isinstance(s, torchlike.Stream)`` (they are registered as
virtual subclasses, so making one here runs their own constructor only).  The CPU runs every op in
order, in the caller's thread: its one stream (id 0) is always idle, and it
has no events, as in PyTorch."""
import abc

from . import _C
from ._device import device as _device_cls
from .cuda import streams as _cuda_streams

__all__ = ["Stream", "Event"]


def _device_type(device):
    if device is None:
        return "cuda" if _C._cuda_compiled() else "cpu"
    return _device_cls(device).type if not isinstance(device, int) else "cuda"


class Stream(metaclass=abc.ABCMeta):
    """A queue of work on a device (``Stream(device=None, priority=0)``)."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if cls is Stream and _device_type(device) == "cuda":
            return _cuda_streams.Stream(device, priority, **kwargs)
        return super().__new__(cls)

    def __init__(self, device=None, priority=0):
        kind = _device_type(device)
        if kind != "cpu":
            raise RuntimeError(f"{kind} backend doesn't support streams.")
        self.device_index, self.stream_id, self.priority = -1, 0, priority

    @property
    def device_type(self):
        return self.device.type

    @property
    def device(self):
        return _device_cls("cpu")

    def query(self):
        return True

    def synchronize(self):
        """Nothing to wait for: CPU ops finish before they return."""

    def wait_stream(self, stream):
        """Nothing to order: CPU ops finish before they return."""

    def wait_event(self, event):
        raise RuntimeError("cpu backend doesn't support events.")

    def record_event(self, event=None):
        raise RuntimeError("cpu backend doesn't support events.")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and type(other) is type(self) and \
            (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self):
        return hash((str(self.device), self.stream_id))

    def __repr__(self):
        return (f"torchlike.Stream device_type={self.device_type}, "
                f"device_index={self.device_index}, stream_id={self.stream_id}")


class Event(metaclass=abc.ABCMeta):
    """A marker in a stream's work (``Event(device=None, *, enable_timing=False,
    blocking=False, interprocess=False)``); only devices with streams have them."""

    def __new__(cls, device=None, **kwargs):
        if cls is Event and _device_type(device) == "cuda":
            return _cuda_streams.Event(**kwargs)
        raise RuntimeError(f"{_device_type(device)} backend doesn't support events.")


Stream.register(_cuda_streams.Stream)
Event.register(_cuda_streams.Event)
