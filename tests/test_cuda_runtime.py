"""torchlike.cuda's runtime: devices, streams, events, record_stream, and the
CUDA interop protocols (DLPack's stream argument, __cuda_array_interface__).

Three kinds of test:
- without a GPU, the errors a user meets (as PyTorch raises them there);
- the Python layer's logic (stream contexts restore what they replaced,
  events refuse to time unrecorded work, wait_stream records then waits ...)
  against a recording stand-in for the _C runtime functions, a pretend
  machine with two GPUs;
- record_stream on the fake device, whose caching pool has streams;
- the "cuda" cases, which run on a GPU and skip with "requires a CUDA device"
  elsewhere."""
import gc
import threading
import time

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C

GPU = tl.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="requires a CUDA device")
no_gpu = pytest.mark.skipif(GPU, reason="checks the no-GPU behaviour")


# ---- without a GPU ---------------------------------------------------------------------------

@no_gpu
@pytest.mark.parametrize("call", [
    lambda: tl.cuda.Stream(), lambda: tl.cuda.current_stream(), lambda: tl.cuda.default_stream(),
    lambda: tl.cuda.synchronize(), lambda: tl.cuda.current_device(),
    lambda: tl.cuda.get_device_properties(0), lambda: tl.cuda.get_device_name(),
    lambda: tl.cuda.get_device_capability(), lambda: tl.cuda.set_device(0),
    lambda: tl.cuda.init(), lambda: tl.cuda.stream(tl.cuda.Stream()).__enter__()],
    ids=["Stream", "current_stream", "default_stream", "synchronize", "current_device",
         "get_device_properties", "get_device_name", "get_device_capability", "set_device",
         "init", "stream"])
def test_runtime_calls_without_a_gpu_raise_clearly(call):
    err = AssertionError if not _C._cuda_compiled() else RuntimeError
    with pytest.raises(err, match="no CUDA device is available|not compiled with CUDA"):
        call()


@no_gpu
def test_what_needs_no_gpu_works_without_one():
    tl.cuda.set_device(-1)  # negative: no change, as in PyTorch
    with tl.cuda.device(None):
        pass
    with tl.cuda.device(-1):
        pass
    with tl.cuda.stream(None):  # None: no change
        pass
    tl.cuda.set_stream(None)
    e = tl.cuda.Event(enable_timing=True)
    assert e.query() and e.device is None and "uninitialized" in repr(e)
    e.synchronize()  # nothing recorded: nothing to wait for
    assert not tl.cuda.is_initialized()


@no_gpu
def test_the_c_runtime_refuses_without_a_gpu():
    with pytest.raises(RuntimeError, match="No CUDA GPUs are available|not compiled with CUDA"):
        _C._cuda_stream_create(0, 0)
    with pytest.raises(RuntimeError, match="No CUDA GPUs are available|not compiled with CUDA"):
        _C._cuda_set_device(0)
    with pytest.raises(RuntimeError, match="No CUDA GPUs are available|not compiled with CUDA"):
        _C._cuda_device_properties(0)
    assert _C._cuda_current_stream(0) == 0  # the default stream: bookkeeping works everywhere


def test_device_index_arguments():
    from torchlike.cuda._lazy import _get_device_index
    assert _get_device_index(3) == 3
    assert _get_device_index("cuda:2") == 2
    assert _get_device_index(tl.device("cuda", 1)) == 1
    assert _get_device_index(None, optional=True) == _C._cuda_current_device()
    assert _get_device_index("cuda", optional=True) == _C._cuda_current_device()
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        _get_device_index("cpu")
    with pytest.raises(ValueError, match="specified index"):
        _get_device_index(None)


# ---- the Python layer against a pretend two-GPU runtime -------------------------------------

class FakeRuntime:
    """The _C runtime functions for two devices, recording every call."""

    def __init__(self):
        self.calls = []
        self.device = 0
        self.current = {0: 0, 1: 0}
        self.next_handle = 0x1000
        self.recorded = {}  # event -> stream
        self.done = set()   # events whose work is done

    def _new(self):
        self.next_handle += 0x10
        return self.next_handle

    def install(self, monkeypatch):
        def log(name, fn):
            def wrapper(*args):
                self.calls.append((name,) + args)
                return fn(*args)
            monkeypatch.setattr(_C, name, wrapper)
        log("_cuda_compiled", lambda: True)
        log("_cuda_device_count", lambda: 2)
        log("_cuda_current_device", lambda: self.device)
        log("_cuda_set_device", lambda d: setattr(self, "device", d))
        log("_cuda_current_stream", lambda d: self.current[d])
        log("_cuda_set_stream", lambda d, s: self.current.__setitem__(d, s))
        log("_cuda_stream_priority_range", lambda: (0, -5))
        log("_cuda_stream_create", lambda d, p: self._new())
        log("_cuda_stream_destroy", lambda d, s: None)
        log("_cuda_stream_query", lambda d, s: True)
        log("_cuda_stream_synchronize", lambda d, s: None)
        log("_cuda_stream_wait_event", lambda d, s, e: None)
        log("_cuda_event_create", lambda d, t, b, i: self._new())
        log("_cuda_event_destroy", lambda e: None)
        log("_cuda_event_record", lambda d, e, s: self.recorded.__setitem__(e, s))
        log("_cuda_event_query", lambda e: e in self.done)
        log("_cuda_event_synchronize", lambda e: self.done.add(e))
        log("_cuda_event_elapsed", lambda a, b: 1.25)
        log("_cuda_synchronize", lambda d: None)
        log("_cuda_device_properties", lambda d: {
            "name": f"Pretend GPU {d}", "total_memory": 80 << 30, "major": 9, "minor": 0,
            "multi_processor_count": 132, "is_integrated": 0, "is_multi_gpu_board": 0,
            "warp_size": 32, "max_threads_per_multi_processor": 2048,
            "L2_cache_size": 50 << 20, "uuid": "GPU-00000000-0000-0000-0000-000000000000"})
        return self

    def names(self):
        return [c[0] for c in self.calls]


@pytest.fixture
def rt(monkeypatch):
    return FakeRuntime().install(monkeypatch)


def test_streams_are_made_on_the_current_device_with_clamped_priority(rt):
    with tl.cuda.device(1):
        s = tl.cuda.Stream(priority=-1)
    assert s.device == tl.device("cuda:1") and s.device_index == 1
    assert ("_cuda_stream_create", 1, -5) in rt.calls  # negative: the highest priority
    low = tl.cuda.Stream(device="cuda:0")
    assert ("_cuda_stream_create", 0, 0) in rt.calls and low.priority == 0
    assert s != low and s == tl.cuda.Stream(1, _handle=s.cuda_stream)
    assert len({s, tl.cuda.Stream(1, _handle=s.cuda_stream)}) == 1


def test_stream_context_sets_and_restores_device_and_stream(rt):
    s1 = tl.cuda.Stream(device=1)
    outer = tl.cuda.current_stream()
    assert outer.cuda_stream == 0 and outer == tl.cuda.default_stream()
    with tl.cuda.stream(s1) as entered:
        assert entered is s1
        assert tl.cuda.current_device() == 1
        assert tl.cuda.current_stream() == s1
        assert rt.current == {0: 0, 1: s1.cuda_stream}
        s2 = tl.cuda.Stream(device=1)
        with tl.cuda.StreamContext(s2):
            assert tl.cuda.current_stream() == s2
        assert tl.cuda.current_stream() == s1  # the inner block restored the outer stream
    assert tl.cuda.current_device() == 0 and rt.current == {0: 0, 1: 0}


def test_set_stream_and_the_device_context(rt):
    s = tl.cuda.Stream(device=1)
    tl.cuda.set_stream(s)
    assert rt.current[1] == s.cuda_stream and rt.current[0] == 0
    assert tl.cuda.current_stream(1) == s
    with tl.cuda.device("cuda:1"):
        assert tl.cuda.current_device() == 1
        with tl.cuda.device(0):
            assert tl.cuda.current_device() == 0
        assert tl.cuda.current_device() == 1
    assert tl.cuda.current_device() == 0
    tl.cuda.set_device(1)
    assert tl.cuda.current_device() == 1


def test_wait_stream_records_on_the_other_and_waits_here(rt):
    a, b = tl.cuda.Stream(), tl.cuda.Stream()
    rt.calls.clear()
    a.wait_stream(b)
    names = rt.names()
    # the temporary event goes once the wait is queued (CUDA frees it after)
    assert names == ["_cuda_event_create", "_cuda_event_record", "_cuda_stream_wait_event",
                     "_cuda_event_destroy"]
    event = rt.calls[1][2]
    assert rt.calls[1] == ("_cuda_event_record", 0, event, b.cuda_stream)
    assert rt.calls[2] == ("_cuda_stream_wait_event", 0, a.cuda_stream, event)
    assert rt.calls[3] == ("_cuda_event_destroy", event)


def test_events_record_wait_query_and_time(rt):
    s = tl.cuda.Stream()
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="must be recorded"):
        start.elapsed_time(end)
    start.record()  # on the current stream
    assert rt.recorded[start.cuda_event] == 0 and start.device == tl.device("cuda:0")
    assert s.record_event(end) is end and rt.recorded[end.cuda_event] == s.cuda_stream
    assert ("_cuda_event_create", 0, True, False, False) in rt.calls
    assert start.elapsed_time(end) == 1.25
    assert not end.query()
    end.synchronize()
    assert end.query()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        tl.cuda.Event().elapsed_time(end)
    e = tl.cuda.Event()
    e.wait(s)  # never recorded: nothing to wait for
    assert "_cuda_stream_wait_event" not in rt.names()
    e.record(s)
    s.wait_event(e)
    assert rt.calls[-1] == ("_cuda_stream_wait_event", 0, s.cuda_stream, e.cuda_event)
    with pytest.raises(RuntimeError, match="does not match"):
        e.record(tl.cuda.Stream(device=1))


def test_calls_on_a_stream_name_its_device(rt):
    """Handle 0 is every device's default stream, and CUDA reads it as the
    runtime's current device's: each call on a stream passes the stream's
    device, so the C side makes it current (with two GPUs, synchronizing
    cuda:1's default stream while ops last ran on cuda:0 waited on cuda:0)."""
    d1 = tl.cuda.default_stream(1)
    assert d1.cuda_stream == 0 and d1.device_index == 1
    rt.calls.clear()
    d1.synchronize()
    assert d1.query()
    e = d1.record_event()
    tl.cuda.default_stream(0).wait_event(e)
    other = tl.cuda.Stream(device=1)
    other.wait_stream(d1)
    calls = [c for c in rt.calls if c[0] in ("_cuda_stream_synchronize", "_cuda_stream_query",
                                             "_cuda_event_record", "_cuda_stream_wait_event")]
    assert calls[:4] == [("_cuda_stream_synchronize", 1, 0), ("_cuda_stream_query", 1, 0),
                         ("_cuda_event_record", 1, e.cuda_event, 0),
                         ("_cuda_stream_wait_event", 0, 0, e.cuda_event)]
    assert calls[4][:2] == ("_cuda_event_record", 1) and calls[4][3] == 0
    assert calls[5] == ("_cuda_stream_wait_event", 1, other.cuda_stream, calls[4][2])
    assert e.device == tl.device("cuda:1")


def test_device_properties_and_names(rt):
    p = tl.cuda.get_device_properties(1)
    assert (p.name, p.major, p.minor, p.multi_processor_count) == ("Pretend GPU 1", 9, 0, 132)
    assert p.total_memory == 80 << 30 and "Pretend GPU 1" in repr(p)
    assert tl.cuda.get_device_name("cuda:0") == "Pretend GPU 0"
    assert tl.cuda.get_device_capability() == (9, 0)
    with pytest.raises(AssertionError, match="Invalid device id"):
        tl.cuda.get_device_properties(5)
    tl.cuda.synchronize(1)
    assert ("_cuda_synchronize", 1) in rt.calls


def test_owned_streams_are_destroyed_and_borrowed_ones_are_not(rt):
    s = tl.cuda.Stream()
    handle = s.cuda_stream
    del s
    gc.collect()
    assert ("_cuda_stream_destroy", 0, handle) in rt.calls
    rt.calls.clear()
    ext = tl.cuda.ExternalStream(0xabc0)
    assert ext.cuda_stream == 0xabc0
    del ext
    cur = tl.cuda.current_stream()
    del cur
    gc.collect()
    assert "_cuda_stream_destroy" not in rt.names()


# ---- record_stream on the fake device (a caching pool with streams) ----------------------------

class FakeStream:
    def __init__(self, k):
        self.cuda_stream = k


@pytest.fixture
def fake_pool():
    _C._fake_enable()
    gc.collect()
    _C._fake_reset_pool(None)
    yield
    gc.collect()
    for s in range(8):
        _C._fake_stream_finish(s)
    _C._fake_reset_pool(None)


def test_record_stream_holds_the_block_until_that_stream_is_done(fake_pool):
    t = tl.empty(1000, dtype=tl.uint8, device="fake")
    block = _C._storage_block(t)
    t.record_stream(FakeStream(3))
    del t
    gc.collect()
    u = tl.empty(1000, dtype=tl.uint8, device="fake")
    assert _C._storage_block(u) != block  # stream 3 may still be using it
    del u
    gc.collect()
    _C._fake_stream_finish(3)
    w = tl.empty(1000, dtype=tl.uint8, device="fake")
    assert _C._storage_block(w) == block


def test_without_record_stream_the_block_is_reused_at_once(fake_pool):
    t = tl.empty(1000, dtype=tl.uint8, device="fake")
    block = _C._storage_block(t)
    del t
    gc.collect()
    assert _C._storage_block(tl.empty(1000, dtype=tl.uint8, device="fake")) == block


def test_record_stream_refuses_cpu_tensors_and_non_streams():
    with pytest.raises(RuntimeError, match="record_stream"):
        tl.ones(3).record_stream(FakeStream(1))
    with pytest.raises(TypeError, match="Stream"):
        tl.ones(3).record_stream(7)


# ---- interop without a GPU ------------------------------------------------------------------

class CudaArray:
    """An object that offers only __cuda_array_interface__ (as Numba's arrays)."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = dict(
            {"shape": (4,), "typestr": "<f4", "data": (0, False), "version": 3}, **fields)


def test_cpu_tensors_have_no_cuda_array_interface():
    t = tl.ones(3)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        t.__cuda_array_interface__


@pytest.mark.parametrize("fields,err,match", [
    ({"version": 4}, BufferError, "version 4"),
    ({"mask": (1, 0)}, BufferError, "masked"),
    ({"typestr": ">f4"}, TypeError, "typestr"),
    ({"typestr": "<V8"}, TypeError, "typestr"),
    ({"typestr": "<f4", "strides": (6,)}, BufferError, "multiple"),
    ({"strides": (4, 4)}, ValueError, "do not match"),
    ({"data": 5}, TypeError, "pointer, read_only"),
    ({"shape": [4]}, TypeError, "tuple"),
])
def test_bad_cuda_array_interfaces_are_refused(fields, err, match):
    with pytest.raises(err, match=match):
        tl.asarray(CudaArray(**fields))


def test_cuda_array_interface_without_keys_is_refused():
    class Bad:
        __cuda_array_interface__ = {"shape": (1,)}
    with pytest.raises(TypeError, match="shape, typestr, data and version"):
        tl.as_tensor(Bad())


@no_gpu
def test_cuda_memory_cannot_be_imported_without_a_gpu():
    with pytest.raises(BufferError, match="cuda"):
        tl.asarray(CudaArray(shape=(0,)))
    with pytest.raises(RuntimeError, match="No CUDA GPUs|not compiled"):
        tl.asarray(CudaArray(data=(0x10000, False)))
    with pytest.raises(BufferError, match="cuda"):
        tl.from_dlpack(CudaArray(shape=(0,)))


def test_from_dlpack_refuses_a_copy_between_devices():
    with pytest.raises(BufferError, match="copy between devices"):
        tl.from_dlpack(np.ones(3), device="cuda")


def test_dlpack_stream_must_be_none_for_cpu_tensors():
    with pytest.raises(ValueError, match="stream must be None"):
        tl.ones(3).__dlpack__(stream=1)


# ---- on a GPU --------------------------------------------------------------------------------

@needs_gpu
def test_gpu_work_runs_on_the_current_stream():
    s = tl.cuda.Stream()
    x = tl.ones(1 << 20, device="cuda")
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    with tl.cuda.stream(s):
        assert tl.cuda.current_stream() == s
        start.record()
        y = (x * 2).sum()
        end.record()
    assert tl.cuda.current_stream() == tl.cuda.default_stream()
    tl.cuda.current_stream().wait_stream(s)
    end.synchronize()
    assert start.query() and end.query() and s.query() is not None
    assert end.elapsed_time(start) <= 0 <= start.elapsed_time(end)
    assert y.item() == 2 * (1 << 20)
    y.record_stream(s)


@needs_gpu
def test_gpu_device_queries():
    p = tl.cuda.get_device_properties(0)
    assert p.total_memory > 0 and p.major >= 3 and p.multi_processor_count > 0
    assert tl.cuda.get_device_name(0) == p.name
    assert tl.cuda.current_device() == 0
    tl.cuda.synchronize()
    assert tl.ones(2, device="cuda").device == tl.device("cuda:0")


def _runtime_device():
    """The CUDA runtime's current device of this thread, as other libraries
    see it (CuPy, else the runtime library through ctypes)."""
    try:
        import cupy
        return cupy.cuda.runtime.getDevice()
    except ImportError:
        import ctypes
        import ctypes.util
        name = ctypes.util.find_library("cudart")
        if not name:
            pytest.skip("needs CuPy or libcudart to ask the runtime")
        d = ctypes.c_int(-1)
        assert ctypes.CDLL(name).cudaGetDevice(ctypes.byref(d)) == 0
        return d.value


@needs_gpu
def test_gpu_set_device_sets_the_runtimes_device():
    """set_device and the device context make the device the runtime's
    current one (PyTorch's set_device does), not only torchlike's."""
    last = tl.cuda.device_count() - 1
    tl.ones(1, device="cuda:0").add_(1)  # a launch on cuda:0
    tl.cuda.set_device(last)
    try:
        assert _runtime_device() == last
        with tl.cuda.device(0):
            assert _runtime_device() == 0
        assert _runtime_device() == last
    finally:
        tl.cuda.set_device(0)
    assert _runtime_device() == 0


@needs_gpu
def test_gpu_non_blocking_copies_from_pinned_memory():
    src = tl.arange(1 << 16, dtype=tl.float32).pin_memory()
    s = tl.cuda.Stream()
    with tl.cuda.stream(s):
        d = src.to("cuda", non_blocking=True)
    s.synchronize()
    np.testing.assert_array_equal(d.cpu().numpy(), src.numpy())


@needs_gpu
def test_gpu_pinned_block_is_not_reused_before_its_async_copy_reads_it():
    """A pinned source freed while its non-blocking copy is still queued: the
    pinned pool holds its block back until the copy's stream passes an event
    (a reuse would let the host overwrite the bytes before the copy reads them)."""
    n = 1 << 24
    want = np.arange(n, dtype=np.float32)
    src = tl.tensor(want).pin_memory()
    a = tl.ones(4096, 4096, device="cuda")
    s = tl.cuda.Stream()
    with tl.cuda.stream(s):
        for _ in range(8):  # queue work ahead of the copy, so that it runs late
            a = a @ a / 4096
        d = src.to("cuda", non_blocking=True)
    ptr = src.data_ptr()
    del src
    again = tl.empty(n, dtype=tl.float32).pin_memory()
    again.fill_(7)
    assert again.data_ptr() != ptr or s.query()
    s.synchronize()
    np.testing.assert_array_equal(d.cpu().numpy(), want)


needs_two_gpus = pytest.mark.skipif(not GPU or tl.cuda.device_count() < 2,
                                    reason="requires two CUDA devices")


@needs_two_gpus
def test_gpu_pinned_block_waits_for_its_copy_on_another_devices_default_stream():
    """A non-blocking copy from pinned memory to cuda:1 on its default stream
    (handle 0), freed while cuda:0 is current: the block's event is made on
    cuda:1's legacy stream, not the current device's, so the block is not
    handed out again before the copy has read it."""
    n = 1 << 24
    want = np.arange(n, dtype=np.float32)
    src = tl.tensor(want).pin_memory()
    a = tl.ones(4096, 4096, device="cuda:1")
    for _ in range(8):  # cuda:1's default stream: work ahead of the copy
        a = a @ a / 4096
    d = src.to("cuda:1", non_blocking=True)
    tl.ones(1, device="cuda:0").add_(1)
    tl.cuda.set_device(0)
    ptr = src.data_ptr()
    del src
    again = tl.empty(n, dtype=tl.float32).pin_memory()
    again.fill_(7)
    assert again.data_ptr() != ptr or tl.cuda.default_stream(1).query()
    tl.cuda.synchronize(1)
    np.testing.assert_array_equal(d.cpu().numpy(), want)


@needs_gpu
def test_gpu_cuda_array_interface_round_trip():
    t = tl.arange(12, dtype=tl.float32, device="cuda").reshape(3, 4)
    ai = t.__cuda_array_interface__
    assert ai["version"] == 3 and ai["typestr"] == "<f4" and ai["shape"] == (3, 4)
    assert ai["data"] == (t.data_ptr(), False) and ai["strides"] is None
    assert ai["stream"] in (1, tl.cuda.current_stream().cuda_stream)
    tt = t.t()
    assert tt.__cuda_array_interface__["strides"] == (4, 16)

    class Holder:  # only the interface, as Numba's device arrays
        def __init__(self, src):
            self.__cuda_array_interface__ = src.__cuda_array_interface__
    view = tl.asarray(Holder(tt))
    assert view.device.type == "cuda" and view.data_ptr() == tt.data_ptr()
    np.testing.assert_array_equal(view.cpu().numpy(), tt.cpu().numpy())
    view.fill_(7)  # zero-copy: the source sees it
    assert (t == 7).all().item()
    assert tl.asarray(Holder(t), copy=False).data_ptr() == t.data_ptr()
    copied = tl.asarray(Holder(t), copy=True)
    assert copied.data_ptr() != t.data_ptr() and copied.device.type == "cuda"
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(2, device="cuda", requires_grad=True).__cuda_array_interface__


@needs_gpu
@pytest.mark.parametrize("dtype,typestr", [(tl.complex64, "<c8"), (tl.complex128, "<c16")])
def test_gpu_complex_memory_off_its_size_is_refused(dtype, typestr):
    """CUDA's complex kernels move a whole element at once (8 or 16 bytes): an
    import at half that alignment is refused, not left to fault."""
    base = tl.zeros(8, dtype=dtype, device="cuda")
    half = base.element_size() // 2
    ok = CudaArray(shape=(2,), typestr=typestr, data=(base.data_ptr() + base.element_size(), False))
    assert tl.asarray(ok).data_ptr() == base.data_ptr() + base.element_size()
    off = CudaArray(shape=(2,), typestr=typestr, data=(base.data_ptr() + half, False))
    with pytest.raises(BufferError, match="not aligned"):
        tl.asarray(off)


@needs_gpu
@pytest.mark.parametrize("stream", [None, -1, 1, 2, "side"])
def test_gpu_dlpack_round_trip_with_streams(stream):
    t = tl.arange(10, device="cuda", dtype=tl.float64)
    if stream == "side":
        stream = tl.cuda.Stream().cuda_stream
    cap = t.__dlpack__(stream=stream, max_version=(1, 0))
    u = tl.from_dlpack(cap)
    assert u.device == t.device and u.data_ptr() == t.data_ptr()
    assert t.__dlpack_device__() == (2, 0)
    with pytest.raises(ValueError, match="not a valid CUDA stream"):
        t.__dlpack__(stream=0)
    v = tl.from_dlpack(t)
    np.testing.assert_array_equal(v.cpu().numpy(), np.arange(10.0))


@needs_gpu
def test_gpu_cupy_interop():
    cp = pytest.importorskip("cupy")
    a = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    t = tl.as_tensor(a)
    assert t.device.type == "cuda" and t.data_ptr() == a.data.ptr
    t.mul_(2)
    np.testing.assert_array_equal(cp.asnumpy(a), np.arange(6).reshape(2, 3) * 2)
    b = cp.asarray(tl.ones(4, device="cuda"))
    assert float(b.sum()) == 4.0
    c = cp.from_dlpack(tl.arange(3, device="cuda", dtype=tl.float32))
    np.testing.assert_array_equal(cp.asnumpy(c), [0, 1, 2])


# ---- library handles per (thread, device) (tl_gpu_handles.h) ---------------------------------
# The pool holds opaque handles and calls no library, so its "test" kind runs
# without a GPU; cuBLAS, cuSOLVER and cuDNN take their handles from it.

def _wait_for(predicate, what):
    """A thread's handles go back when its OS thread ends, a little after
    Thread.join() returns (CPython releases join before the thread exits)."""
    for _ in range(500):
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(what)


def test_library_handles_are_per_thread_and_reused_after_their_thread_exits():
    dev = 63  # no other test's handles: the counts below are this test's
    mine = _C._gpu_test_handle(dev)
    assert _C._gpu_test_handle(dev) == mine  # a thread keeps its handle
    held, free = _C._gpu_handle_counts("test", dev)
    assert held >= 1

    barrier = threading.Barrier(2)
    got = []

    def worker():
        h = _C._gpu_test_handle(dev)
        barrier.wait()  # both threads hold theirs at once
        got.append((h, _C._gpu_test_handle(dev)))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    firsts = {h for h, _ in got}
    assert len(firsts) == 2 and mine not in firsts  # one each, none shared
    assert all(h == again for h, again in got)
    after = (held, max(free, 2))  # taken from the free list, or made, then given back
    _wait_for(lambda: _C._gpu_handle_counts("test", dev) == after,
              "the exited threads' handles are back on the free list")

    # a new thread takes a freed handle instead of making one
    newest = max(firsts | {mine})
    out = []
    t = threading.Thread(target=lambda: out.append(_C._gpu_test_handle(dev)))
    t.start()
    t.join()
    assert out[0] != mine and out[0] <= newest
    _wait_for(lambda: _C._gpu_handle_counts("test", dev) == after, "it came back again")
    assert _C._gpu_test_handle(dev) == mine  # the main thread's is its own still
    assert _C._gpu_test_handle(62) > newest  # another device's handles are apart


def test_handle_counts_refuse_unknown_kinds_and_devices():
    with pytest.raises(ValueError, match="no handle kind 'cufft'"):
        _C._gpu_handle_counts("cufft", 0)
    with pytest.raises(ValueError, match="out of range"):
        _C._gpu_test_handle(64)
    assert _C._gpu_handle_counts("cublas", 0)[0] >= 0


@needs_gpu
def test_gpu_each_thread_gets_its_own_cublas_handle():
    """Two threads' GEMMs at once, each on its own stream: each thread has a
    cuBLAS handle of its own (bound to its stream), and both products are right."""
    a = tl.randn(512, 512, device="cuda")
    want = (a @ a).cpu().numpy()
    held0 = _C._gpu_handle_counts("cublas", 0)[0]
    results, barrier = [], threading.Barrier(2)

    def worker():
        s = tl.cuda.Stream()
        with tl.cuda.stream(s):
            barrier.wait()
            for _ in range(20):
                r = a @ a
        s.synchronize()
        results.append(r.cpu().numpy())

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-3)
    assert len(results) == 2
    _wait_for(lambda: _C._gpu_handle_counts("cublas", 0)[1] >= 2,
              "the threads' cuBLAS handles are free for the next threads")
    assert _C._gpu_handle_counts("cublas", 0)[0] == held0


@needs_two_gpus
def test_gpu_ops_on_another_device_restore_the_runtimes_device():
    """An op on cuda:1 leaves the CUDA runtime's current device at the
    caller's (PyTorch's device guards), so CuPy code after it sees its own
    device: elementwise ops, operators, GEMMs (cuBLAS), indexing, copies,
    reductions and a backward pass."""
    tl.cuda.set_device(0)
    try:
        x = tl.randn(64, 64, device="cuda:1", requires_grad=True)
        assert _runtime_device() == 0
        steps = [lambda: x.detach().exp(), lambda: x.detach() + 1, lambda: x.detach() @ x.detach(),
                 lambda: x.detach()[1:3], lambda: x.detach().sum(), lambda: x.detach().cpu(),
                 lambda: (x * x).sum().backward(), lambda: tl.zeros(3, device="cuda:1")]
        for i, step in enumerate(steps):
            step()
            assert _runtime_device() == 0, f"step {i}"
        tl.cuda.set_device(1)
        tl.ones(8, device="cuda:0").mul_(2)
        assert _runtime_device() == 1
    finally:
        tl.cuda.set_device(0)
