"""torchlike.cuda.Stream and Event (torch.cuda.streams).

A Stream wraps a cudaStream_t (``cuda_stream``, an int; 0 is the legacy
default stream), an Event a cudaEvent_t made on its first ``record``.
Calls on a stream pass its device too: handle 0 is every device's default
stream, and CUDA reads it as the current device's.  The
current stream of each device is per thread (src/gpu/runtime/runtime.c);
every kernel and copy on a device is queued on it, so ``with
torchlike.cuda.stream(s):`` moves an op's work onto ``s``.  Without a GPU,
making or using one raises as PyTorch does (``_lazy.py``)."""
from .. import _C
from .._device import device as _device_cls
from ._lazy import _get_device_index, _lazy_init

__all__ = ["Stream", "ExternalStream", "Event"]


class Stream:
    """A queue of work on one CUDA device.

    ``Stream(device=None, priority=0)`` makes a new stream on ``device`` (the
    current one by default).  Lower priorities run first, as in CUDA; any
    negative number asks for the device's highest priority."""

    def __init__(self, device=None, priority=0, *, _handle=None):
        _lazy_init()
        index = _get_device_index(device, optional=True)
        self._owned = _handle is None  # only streams made here are destroyed here
        if _handle is None:
            least, greatest = _C._cuda_stream_priority_range()
            priority = greatest if priority < 0 else least
            _handle = _C._cuda_stream_create(index, priority)
        self.cuda_stream = _handle
        self.device_index = index
        self.priority = priority

    @property
    def device(self):
        return _device_cls("cuda", self.device_index)

    def query(self):
        """True when all work queued on the stream is done."""
        return _C._cuda_stream_query(self.device_index, self.cuda_stream)

    def synchronize(self):
        """Wait on the host for all work queued on the stream."""
        _C._cuda_stream_synchronize(self.device_index, self.cuda_stream)

    def wait_event(self, event):
        """Make later work on this stream wait for ``event`` (no host wait)."""
        event.wait(self)

    def wait_stream(self, stream):
        """Make later work on this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one when None) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        return (self.cuda_stream, self.device_index) == (other.cuda_stream, other.device_index)

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return f"<torchlike.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"

    def __del__(self):
        if getattr(self, "_owned", False) and self.cuda_stream:
            try:
                _C._cuda_stream_destroy(self.device_index, self.cuda_stream)
            except Exception:  # interpreter shutdown: the driver may be gone
                pass


class ExternalStream(Stream):
    """A stream made elsewhere (CuPy, Numba ...), given as its cudaStream_t
    handle; torchlike never destroys it."""

    def __init__(self, stream_ptr, device=None):
        super().__init__(device, _handle=int(stream_ptr))


class Event:
    """A marker in a stream: record it, then wait on it (from the host or
    from another stream) or time the work between two of them.

    ``enable_timing`` lets ``elapsed_time`` measure it (off by default: timing
    costs); ``blocking`` makes ``synchronize`` sleep instead of spinning."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self.cuda_event = 0  # made on the first record, on that stream's device
        self._device_index = None

    @property
    def device(self):
        return None if self._device_index is None else _device_cls("cuda", self._device_index)

    def record(self, stream=None):
        """Record the event on ``stream`` (the current stream by default)."""
        if stream is None:
            from . import current_stream
            stream = current_stream()
        if self.cuda_event == 0:
            self.cuda_event = _C._cuda_event_create(stream.device_index, self.enable_timing,
                                                    self.blocking, self.interprocess)
            self._device_index = stream.device_index
        elif stream.device_index != self._device_index:
            raise RuntimeError(f"Event device cuda:{self._device_index} does not match recording "
                               f"stream's device cuda:{stream.device_index}.")
        _C._cuda_event_record(stream.device_index, self.cuda_event, stream.cuda_stream)

    def wait(self, stream=None):
        """Make later work on ``stream`` (the current one by default) wait for
        this event; nothing to wait for when it was never recorded."""
        if stream is None:
            from . import current_stream
            stream = current_stream()
        if self.cuda_event:
            _C._cuda_stream_wait_event(stream.device_index, stream.cuda_stream, self.cuda_event)

    def query(self):
        """True when the work before the record is done (or it was never recorded)."""
        return True if self.cuda_event == 0 else _C._cuda_event_query(self.cuda_event)

    def synchronize(self):
        """Wait on the host for the work before the record."""
        if self.cuda_event:
            _C._cuda_event_synchronize(self.cuda_event)

    def elapsed_time(self, end_event):
        """Milliseconds between this event's record and ``end_event``'s."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.cuda_event == 0 or end_event.cuda_event == 0:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return _C._cuda_event_elapsed(self.cuda_event, end_event.cuda_event)

    def __repr__(self):
        state = f"{self.cuda_event:#x}" if self.cuda_event else "uninitialized"
        return f"<torchlike.cuda.Event {state}>"

    def __del__(self):
        if getattr(self, "cuda_event", 0):
            try:
                _C._cuda_event_destroy(self.cuda_event)
            except Exception:
                pass
