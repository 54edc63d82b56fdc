"""torchlike.multiprocessing: tensors cross processes as shared memory.

Every check writes on one side and reads on the other, so a copy (what plain
pickling would give) fails.  NumPy is the oracle for the values."""
import gc
import multiprocessing as std_mp
import os
import signal
import socket
import time

import numpy as np
import pytest

import torchlike as tl
import torchlike.multiprocessing as mp

DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16,
          tl.float32, tl.float64, tl.complex64, tl.complex128]


def _layouts(dtype):
    """(name, base tensor, view of it) for every layout the tests cover."""
    base = lambda n: tl.zeros(n, dtype=dtype)  # noqa: E731
    out = []
    b = base(24)
    out.append(("contiguous", b, b))
    b = base(24)
    out.append(("slice", b, b[5:17]))
    b = base(24)
    out.append(("transposed", b, b.view(4, 6).t()))
    b = base(24)
    out.append(("strided", b, b.view(4, 6)[::2, 1::2]))
    b = base(1)
    out.append(("0-d", b, b.view(())))
    b = base(0)
    out.append(("empty", b, b))
    return out


def _shm_names():
    return {n for n in os.listdir("/dev/shm") if n.startswith("torchlike_")}


def _fds():
    return set(os.listdir("/proc/self/fd"))


def _fill(t):
    t.fill_(1)


def _expected(base, view):
    """The base storage after _fill(view): ones where the view reaches."""
    marker = tl.zeros(base.shape, dtype=tl.int64)
    mview = marker.as_strided(view.shape, view.stride(), view.storage_offset())
    mview.fill_(1)
    return marker.numpy().astype(bool)


def _check_written(base, view):
    got = base.to(tl.float64).numpy() if not base.dtype.is_complex else base.numpy().real
    np.testing.assert_array_equal(got != 0, _expected(base, view))


# ---- in place -------------------------------------------------------------------------

def test_share_memory_moves_in_place_and_keeps_views():
    t = tl.arange(12.0).reshape(3, 4)
    v = t[1:, ::2]
    t.add_(0)
    version = t._version
    sid = tl._C._storage_id(t)
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and v.is_shared()
    assert tl._C._storage_id(t) == sid and t._version == version
    np.testing.assert_array_equal(v.numpy(), np.arange(12.0).reshape(3, 4)[1:, ::2])
    t[2, 2] = 100.0
    assert v[1, 1].item() == 100.0
    t.share_memory_()  # a second call is a no-op
    assert tl._C._storage_id(t) == sid


def test_share_memory_keeps_memory_held_by_a_numpy_view():
    t = tl.arange(6.0)
    a = t.numpy()  # holds a reference to the old bytes: they must stay valid
    t.share_memory_()
    np.testing.assert_array_equal(a, np.arange(6.0))


# ---- queues, pipes, pools, spawn -----------------------------------------------------

def _queue_child(q_in, q_out):
    tensors = q_in.get()
    for t in tensors:
        _fill(t)
    q_out.put(len(tensors))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queue_every_dtype_and_layout_is_shared(method):
    ctx = mp.get_context(method)
    cases = [(d, name, b, v) for d in DTYPES for name, b, v in _layouts(d)]
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_queue_child, args=(q_in, q_out))
    p.start()
    q_in.put([v for _, _, _, v in cases])
    assert q_out.get(timeout=60) == len(cases)
    p.join()
    assert p.exitcode == 0
    for dtype, name, base, view in cases:
        _check_written(base, view)


def _pipe_child(conn):
    t = conn.recv()
    conn.send(t[1:])  # a view of what it got, back
    assert conn.recv() == "written"
    conn.send(t.tolist())


def test_pipe_both_ways_forkserver():
    ctx = mp.get_context("forkserver")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_pipe_child, args=(child,))
    p.start()
    t = tl.zeros(5, dtype=tl.int32)
    parent.send(t)
    back = parent.recv()
    # It comes back as a view of the very storage we sent.
    assert tl._C._storage_id(back) == tl._C._storage_id(t)
    t[3] = 7
    assert back[2].item() == 7
    parent.send("written")
    assert parent.recv() == [0, 0, 0, 7, 0]
    p.join()


def _pool_write(args):
    t, i = args
    t[i] = i + 1
    return float(t.sum().item())


def test_pool_map_writes_reach_the_parent():
    t = tl.zeros(4, dtype=tl.float64).share_memory_()
    with mp.get_context("fork").Pool(2) as pool:
        pool.map(_pool_write, [(t, i) for i in range(4)])
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3, 4])


def _spawn_fn(i, tensors):
    for t in tensors[i::2]:
        _fill(t)


def test_spawn_args_are_shared():
    cases = [_layouts(d)[2] for d in DTYPES]  # transposed views of every dtype
    mp.spawn(_spawn_fn, args=([v for _, _, v in cases],), nprocs=2)
    for _, base, view in cases:
        _check_written(base, view)


def _raise_in_child(i):
    if i == 1:
        raise ValueError("bad worker input 1234")


def _killed_child(i):
    if i == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(30)


def test_spawn_raises_child_exception_with_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(_raise_in_child, nprocs=2, start_method="fork")
    assert "ValueError: bad worker input 1234" in str(info.value)
    assert "_raise_in_child" in str(info.value)
    assert info.value.error_index == 1


def test_spawn_reports_a_killed_child():
    start = time.monotonic()
    with pytest.raises(mp.ProcessExitedException, match="SIGKILL") as info:
        mp.spawn(_killed_child, nprocs=2, start_method="fork")
    assert info.value.exit_code == -signal.SIGKILL and info.value.error_index == 0
    assert time.monotonic() - start < 20  # the sibling was terminated, not awaited


def test_spawn_join_false_gives_the_context():
    ctx = mp.spawn(_spawn_fn, args=([tl.zeros(1), tl.zeros(1)],), nprocs=2, join=False,
                   start_method="fork")
    while not ctx.join():
        pass
    assert len(ctx.pids()) == 2


# ---- strategies ----------------------------------------------------------------------

def test_sharing_strategies():
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(ValueError, match="unknown sharing strategy"):
        mp.set_sharing_strategy("carrier_pigeon")


@pytest.fixture
def file_system_strategy():
    mp.set_sharing_strategy("file_system")
    yield
    mp.set_sharing_strategy("file_descriptor")


def test_file_system_strategy_shares_and_unlinks(file_system_strategy):
    before = _shm_names()
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_queue_child, args=(q_in, q_out))
    p.start()
    t = tl.zeros(6, dtype=tl.float32)
    q_in.put([t[::2]])
    assert q_out.get(timeout=30) == 1
    p.join()
    np.testing.assert_array_equal(t.numpy(), [1, 0, 1, 0, 1, 0])
    kind, name, _ = tl._C._shared_handle(t)
    assert kind == "file_system" and name.lstrip("/") in _shm_names()
    assert tl._C._name_refcount(name) == 1  # only our mapping is left
    del t
    gc.collect()
    assert _shm_names() == before


def _make_named_and_die(q):
    mp.set_sharing_strategy("file_system")
    t = tl.ones(100).share_memory_()
    q.put(tl._C._shared_handle(t)[1])
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)


def test_file_system_segments_of_a_killed_process_are_removed():
    ctx = mp.get_context("spawn")  # its own cleanup process, as a user's job would have
    q = ctx.Queue()
    p = ctx.Process(target=_make_named_and_die, args=(q,))
    p.start()
    name = q.get(timeout=30)
    p.join()
    assert p.exitcode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while name.lstrip("/") in _shm_names() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert name.lstrip("/") not in _shm_names()


# ---- fd passing and leaks ------------------------------------------------------------

def test_send_and_receive_fds_over_a_unix_socket():
    a, b = socket.socketpair()
    r, w = os.pipe()
    try:
        tl._C._send_fds(a.fileno(), [w], b"hello")
        data, fds = tl._C._recv_fds(b.fileno(), 4, 16)
        assert data == b"hello" and len(fds) == 1 and fds[0] != w
        os.write(fds[0], b"x")  # the received fd is the same pipe's write end
        assert os.read(r, 1) == b"x"
        os.close(fds[0])
    finally:
        for fd in (r, w):
            os.close(fd)
        a.close()
        b.close()


def _echo(q_in, q_out):
    while True:
        t = q_in.get()
        if t is None:
            break
        q_out.put(t.sum().item())


def test_no_fd_or_shm_leak_after_many_transfers():
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_echo, args=(q_in, q_out))
    p.start()
    q_in.put(tl.ones(3))  # warm up: the fd sharer's socket and thread start once
    q_out.get(timeout=30)
    gc.collect()
    fds, names = _fds(), _shm_names()
    for i in range(20):
        q_in.put(tl.full((100,), float(i)))
        assert q_out.get(timeout=30) == 100.0 * i
    q_in.put(None)
    p.join()
    gc.collect()
    assert len(_fds()) <= len(fds)
    assert _shm_names() == names


# ---- CUDA tensors and the holders count ------------------------------------------------

def _count_up(counter, n):
    for _ in range(n):
        tl._C._counter_add(counter, 1)


def test_holders_count_is_atomic_across_processes():
    # the count a CUDA sender keeps its storage alive by: one shared int64
    counter = tl.zeros(1, dtype=tl.int64).share_memory_()
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_count_up, args=(counter, 3000)) for _ in range(4)]
    for p in procs:
        p.start()
    _count_up(counter, 3000)
    for p in procs:
        p.join()
    assert counter.item() == 15000
    assert tl._C._counter_add(counter, -15000) == 0
    with pytest.raises(TypeError, match="CPU int64 tensor"):
        tl._C._counter_add(tl.zeros(1), 1)


def test_tensors_that_cannot_cross_say_why():
    tl._C._fake_enable()
    with pytest.raises(RuntimeError, match="tensors on fake:0 cannot be sent to another process"):
        mp.reductions.reduce_tensor(tl.zeros(3).to("fake"))
    with pytest.raises(RuntimeError, match="_cuda_ipc_export: the tensor's storage is not"):
        tl._C._cuda_ipc_export(tl.zeros(3))
    if not tl._C._cuda_ipc_available():
        assert not tl.cuda.is_available()


def _cuda_child(q_in, q_out):
    x = q_in.get()
    q_out.put((str(x.device), x.cpu().tolist()))
    x.copy_(tl.tensor([7.0, 8.0, 9.0]))  # a write into the sender's memory
    q_out.put("written")
    del x


@pytest.mark.skipif(not tl._C._cuda_ipc_available(), reason="no CUDA device")
def test_cuda_tensor_crosses_a_queue_as_the_same_device_memory():
    ctx = mp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_cuda_child, args=(q_in, q_out))
    p.start()
    base = tl.tensor([0.0, 1.0, 2.0, 3.0, 4.0]).cuda()
    q_in.put(base[1:4])
    assert q_out.get(timeout=60) == ("cuda:0", [1.0, 2.0, 3.0])
    assert q_out.get(timeout=60) == "written"
    p.join(60)
    assert p.exitcode == 0
    assert base.cpu().tolist() == [0.0, 7.0, 8.0, 9.0, 4.0]
    # the child let go: the sender's keep-alive reference is dropped
    mp.reductions._sweep_cuda_sent()
    assert mp.reductions._cuda_sent == {}


# ---- Hogwild -------------------------------------------------------------------------

def _hogwild_train(rank, model, X, y, steps, results):
    gen = np.random.default_rng(rank)
    opt = tl.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        rows = tl.tensor(gen.integers(0, X.shape[0], 16))
        opt.zero_grad()
        loss = ((model(X[rows]) - y[rows]) ** 2).mean()
        loss.backward()
        opt.step()  # no lock: Hogwild
    with tl.no_grad():
        final = float(((model(X) - y) ** 2).mean().item())
    results.put((rank, final, model.weight.tolist()))


def test_hogwild_processes_train_one_shared_model():
    gen = np.random.default_rng(0)
    X = tl.tensor(gen.standard_normal((256, 8)), dtype=tl.float32)
    y = X @ tl.tensor(gen.standard_normal((8, 1)), dtype=tl.float32) + 0.5
    model = tl.nn.Linear(8, 1)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    with tl.no_grad():
        loss0 = float(((model(X) - y) ** 2).mean().item())
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    procs = [ctx.Process(target=_hogwild_train, args=(r, model, X, y, 60, results))
             for r in range(3)]
    for p in procs:
        p.start()
    finals = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join()
        assert p.exitcode == 0
    with tl.no_grad():
        final = float(((model(X) - y) ** 2).mean().item())
    # The parent never trained: its model moved only through the children's writes.
    assert final < loss0 / 20
    # The last process to finish saw exactly the parameters the parent sees now.
    assert any(np.allclose(w, model.weight.tolist()) for _, _, w in finals)
    assert all(loss < loss0 / 5 for _, loss, _ in finals)


# ---- fork safety -------------------------------------------------------------------

def _after_fork(q):
    x = tl.arange(1_000_000, dtype=tl.float64)
    tl.manual_seed(5)
    q.put((float((x * 2).sum().item()), tl.rand(4).tolist()))


def test_thread_pool_and_generators_work_after_fork():
    tl.set_num_threads(2)
    x = tl.arange(1_000_000, dtype=tl.float64)
    expected = float((x * 2).sum().item())  # the pool's threads exist in the parent
    tl.manual_seed(5)
    draws = tl.rand(4).tolist()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_after_fork, args=(q,))
    p.start()
    got = q.get(timeout=30)
    p.join(30)
    assert p.exitcode == 0
    assert got == (expected, draws)


def test_parameter_subclass_and_attributes_cross_a_queue():
    p = tl.nn.Parameter(tl.zeros(3))
    p.tag = "weights"
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    q.put(p)
    got = q.get(timeout=30)
    assert type(got) is tl.nn.Parameter and got.requires_grad and got.tag == "weights"
    with tl.no_grad():
        got[1] = 5.0
    assert p[1].item() == 5.0
