"""torchlike.distributed: collectives in worlds of 2 and 3 real processes
checked against NumPy computations of what each should give, PyTorch's
names and error messages (tests/golden/distributed.json, from
scripts/golden_distributed.py), timeouts, and the stores in one process."""
import datetime
import functools
import json
import os
import threading
import time

import numpy as np
import pytest

import torchlike
import torchlike.distributed as dist
from dist_helpers import put, results, spawn_world
from distributed_cases import api_cases, collective_cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "distributed.json")) as _f:
    GOLDEN = json.load(_f)

R = dist.ReduceOp
UFUNC = {R.SUM: np.add, R.PRODUCT: np.multiply, R.MIN: np.minimum, R.MAX: np.maximum,
         R.BAND: np.bitwise_and, R.BOR: np.bitwise_or, R.BXOR: np.bitwise_xor}
DTYPES = {"float32": torchlike.float32, "float64": torchlike.float64,
          "float16": torchlike.float16, "int64": torchlike.int64, "int32": torchlike.int32,
          "uint8": torchlike.uint8, "bool": torchlike.bool, "complex64": torchlike.complex64}


# ---- oracles -------------------------------------------------------------------------
def data(rank, shape, name, seed=0):
    """Rank ``rank``'s input: the same on every process that asks."""
    rng = np.random.default_rng(1000 * seed + rank)
    if name == "bool":
        return rng.random(shape) < 0.5
    if name in ("int64", "int32", "uint8"):
        lo = 0 if name == "uint8" else -3
        return rng.integers(lo, 4, size=shape).astype(name)
    if name == "complex64":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    return rng.standard_normal(shape).astype(name)


def np_reduce(arrays, op):
    """``op`` over the ranks' arrays in rank order, in their dtype."""
    if op == R.AVG:
        total = functools.reduce(np.add, arrays)
        return (total / len(arrays)).astype(arrays[0].dtype)
    if arrays[0].dtype == np.bool_ and op == R.SUM:
        return functools.reduce(np.logical_or, arrays)
    if arrays[0].dtype == np.bool_ and op == R.PRODUCT:
        return functools.reduce(np.logical_and, arrays)
    return functools.reduce(UFUNC[op], arrays)


def ops_for(name):
    ops = [R.SUM, R.MIN, R.MAX, R.PRODUCT]
    if name in ("int64", "int32", "uint8", "bool"):
        ops += [R.BAND, R.BOR, R.BXOR]
    else:
        ops += [R.AVG]
    if name == "complex64":
        ops = [R.SUM, R.AVG]
    return ops


def close(got, want, name):
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if name in ("float32", "complex64"):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    elif name == "float16":
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                                   rtol=2e-3, atol=2e-3)
    elif name == "float64":
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    else:
        np.testing.assert_array_equal(got, want)


def tensor(a):
    return torchlike.from_numpy(np.array(a, order="C"))


def noncontig(a):
    """A transposed (non-contiguous) tensor holding ``a`` (2-D)."""
    return tensor(np.ascontiguousarray(a.T)).t()


# ---- the 2- and 3-process worlds -------------------------------------------------------
def _check_all_reduce(rank, ws):
    shapes = [(5,), (), (0, 3), (3, 4)]
    for name in DTYPES:
        for op in ops_for(name):
            for k, shape in enumerate(shapes):
                ins = [data(r, shape, name, k) for r in range(ws)]
                t = noncontig(ins[rank]) if shape == (3, 4) else tensor(ins[rank])
                dist.all_reduce(t, op=op)
                if shape == (3, 4):
                    assert not t.is_contiguous()
                close(t.numpy(), np_reduce(ins, op), name)
    # bfloat16 travels as its bits and is reduced in float32
    ins = [data(r, (6,), "float32", 9) for r in range(ws)]
    t = tensor(ins[rank]).to(torchlike.bfloat16)
    dist.all_reduce(t)
    want = sum(tensor(a).to(torchlike.bfloat16).float().numpy() for a in ins)
    np.testing.assert_allclose(t.float().numpy(), want, rtol=1e-2, atol=1e-2)
    # the ring (large buffers, uneven chunks; whole chunks, then many uneven
    # segments per chunk): close to the oracle, equal on every rank
    from torchlike.distributed import process_group
    cases = [(name, n, seg) for seg in (process_group.SEGMENT_BYTES, 40_004)
             for name, n in (("float32", 300_007), ("int64", 70_001), ("float64", 40_000))]
    for name, n, seg in cases:
        process_group.SEGMENT_BYTES = seg
        for op in (R.SUM, R.MAX) + ((R.AVG,) if name != "int64" else ()):
            ins = [data(r, (n,), name, 5) for r in range(ws)]
            t = tensor(ins[rank])
            dist.all_reduce(t, op=op)
            close(t.numpy(), np_reduce(ins, op), name)
            every = [None] * ws
            dist.all_gather_object(every, t.numpy().tobytes())
            assert all(e == every[0] for e in every), "ranks differ after the ring"
    process_group.SEGMENT_BYTES = cases[0][2]
    # a tensor that requires grad is reduced in its data
    t = torchlike.ones(3, requires_grad=True)
    dist.all_reduce(t)
    np.testing.assert_array_equal(t.detach().numpy(), np.full(3, ws, np.float32))


def _check_async(rank, ws):
    works, ts = [], []
    for k in range(4):
        t = tensor(data(rank, (100_000,), "float32", 20 + k))
        ts.append(t)
        works.append(dist.all_reduce(t, async_op=True))
    for k, w in enumerate(works):
        assert w.wait() is True
        assert w.is_completed() and w.is_success()
        close(ts[k].numpy(), np_reduce([data(r, (100_000,), "float32", 20 + k)
                                        for r in range(ws)], R.SUM), "float32")
        fut = w.get_future()
        assert fut.wait()[0] is ts[k]
    t = torchlike.ones(2)
    fut = dist.all_reduce(t, async_op=True).get_future()
    assert fut.then(lambda f: f.value()[0].sum().item()).wait() == 2 * ws


def _check_rooted(rank, ws):
    root = ws - 1
    for name in ("float64", "int64", "bool"):
        for k, shape in enumerate([(4,), (), (2, 3)]):
            ins = [data(r, shape, name, 30 + k) for r in range(ws)]
            t = noncontig(ins[rank]) if len(shape) == 2 else tensor(ins[rank])
            dist.broadcast(t, src=root)
            close(t.numpy(), ins[root], name)
            t = tensor(ins[rank])
            op = R.MAX if name != "bool" else R.SUM
            dist.reduce(t, dst=root, op=op)
            close(t.numpy(), np_reduce(ins, op) if rank == root else ins[rank], name)
    # gather / scatter
    ins = [data(r, (3, 2), "float32", 40) for r in range(ws)]
    outs = [torchlike.zeros(3, 2) for _ in range(ws)] if rank == 0 else None
    dist.gather(tensor(ins[rank]), outs, dst=0)
    if rank == 0:
        for r in range(ws):
            close(outs[r].numpy(), ins[r], "float32")
    pieces = [data(r, (2,), "int64", 41) for r in range(ws)]
    out = torchlike.zeros(2, dtype=torchlike.int64)
    dist.scatter(out, [tensor(p) for p in pieces] if rank == root else None, src=root)
    close(out.numpy(), pieces[rank], "int64")


def _check_gathers(rank, ws):
    for name in ("float32", "int32", "bool"):
        ins = [data(r, (2, 3), name, 50) for r in range(ws)]
        outs = [torchlike.zeros(2, 3, dtype=DTYPES[name]) for _ in range(ws)]
        dist.all_gather(outs, tensor(ins[rank]))
        for r in range(ws):
            close(outs[r].numpy(), ins[r], name)
        cat = torchlike.zeros(2 * ws, 3, dtype=DTYPES[name])
        dist.all_gather_into_tensor(cat, tensor(ins[rank]))
        close(cat.numpy(), np.concatenate(ins), name)
        stacked = torchlike.zeros(ws, 2, 3, dtype=DTYPES[name])
        dist.all_gather_into_tensor(stacked, noncontig(ins[rank].T).t())
        close(stacked.numpy(), np.stack(ins), name)
    # reduce_scatter: rank j gets op over every rank's block j
    for op in (R.SUM, R.AVG, R.MIN):
        blocks = [[data(r, (4,), "float64", 60 + j) for j in range(ws)] for r in range(ws)]
        out = torchlike.zeros(4, dtype=torchlike.float64)
        dist.reduce_scatter(out, [tensor(b) for b in blocks[rank]], op=op)
        close(out.numpy(), np_reduce([blocks[r][rank] for r in range(ws)], op), "float64")
        out = torchlike.zeros(4, dtype=torchlike.float64)
        dist.reduce_scatter_tensor(out, tensor(np.concatenate(blocks[rank])), op=op)
        close(out.numpy(), np_reduce([blocks[r][rank] for r in range(ws)], op), "float64")
    # all_to_all with pieces whose size depends on (sender, receiver)
    def piece(src, dst):
        return data(src * 10 + dst, (src + dst + 1,), "int64", 70)
    outs = [torchlike.zeros(r + rank + 1, dtype=torchlike.int64) for r in range(ws)]
    dist.all_to_all(outs, [tensor(piece(rank, d)) for d in range(ws)])
    for r in range(ws):
        close(outs[r].numpy(), piece(r, rank), "int64")
    # all_to_all_single, equal and given splits (rows of a 2-D tensor)
    inp = data(rank, (2 * ws, 3), "float32", 71)
    out = torchlike.zeros(2 * ws, 3)
    dist.all_to_all_single(out, tensor(inp))
    want = np.concatenate([data(r, (2 * ws, 3), "float32", 71)[2 * rank:2 * rank + 2]
                           for r in range(ws)])
    close(out.numpy(), want, "float32")
    # rank r sends (r + d + 1) rows to d
    def splits(r):
        return [r + d + 1 for d in range(ws)]
    rows = [data(r, (sum(splits(r)), 2), "float64", 72) for r in range(ws)]
    recv_splits = [splits(r)[rank] for r in range(ws)]
    out = torchlike.zeros(sum(recv_splits), 2, dtype=torchlike.float64)
    dist.all_to_all_single(out, tensor(rows[rank]), recv_splits, splits(rank))
    want = np.concatenate([rows[r][sum(splits(r)[:rank]):sum(splits(r)[:rank + 1])]
                           for r in range(ws)])
    close(out.numpy(), want, "float64")


def _check_p2p(rank, ws):
    nxt, prv = (rank + 1) % ws, (rank - 1) % ws
    # a ring of large simultaneous isend/irecv (each direction 4 MB): no deadlock
    big = data(rank, (1_000_000,), "float32", 80)
    got = torchlike.zeros(1_000_000)
    rw = dist.irecv(got, src=prv)
    sw = dist.isend(tensor(big), dst=nxt)
    sw.wait()
    rw.wait()
    close(got.numpy(), data(prv, (1_000_000,), "float32", 80), "float32")
    # tags keep messages apart whatever the order they are received in
    if rank == 0:
        dist.send(tensor(np.array([1.0, 1.0])), dst=1, tag=7)
        dist.send(tensor(np.array([2.0, 2.0])), dst=1, tag=3)
    elif rank == 1:
        a = torchlike.zeros(2, dtype=torchlike.float64)
        assert dist.recv(a, src=0, tag=3) == 0
        b = torchlike.zeros(2, dtype=torchlike.float64)
        dist.recv(b, src=0, tag=7)
        assert a.tolist() == [2.0, 2.0] and b.tolist() == [1.0, 1.0]
    # a receive from any source names its sender
    if rank == 0:
        senders = set()
        for _ in range(ws - 1):
            t = torchlike.zeros(1, dtype=torchlike.int64)
            senders.add(dist.recv(t, tag=11))
            assert t.item() == 100
        assert senders == set(range(1, ws))
    else:
        dist.send(torchlike.tensor([100]), dst=0, tag=11)
    # batch_isend_irecv exchanging with both neighbours
    outs = [torchlike.zeros(3, dtype=torchlike.float64) for _ in range(2)]
    ops = [dist.P2POp(dist.isend, tensor(data(rank, (3,), "float64", 81)), nxt),
           dist.P2POp(dist.irecv, outs[0], prv),
           dist.P2POp(dist.isend, tensor(data(rank, (3,), "float64", 82)), prv),
           dist.P2POp(dist.irecv, outs[1], nxt)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    close(outs[0].numpy(), data(prv, (3,), "float64", 81), "float64")
    close(outs[1].numpy(), data(nxt, (3,), "float64", 82), "float64")
    # a receive into a tensor of another size than the sent one
    if rank == 0:
        dist.send(torchlike.zeros(3), dst=1, tag=12)
    elif rank == 1:
        with pytest.raises(dist.DistBackendError, match="differ in shape or dtype"):
            dist.recv(torchlike.zeros(4), src=0, tag=12)


def _check_objects(rank, ws):
    objs = [{"rank": rank, "list": [rank] * 3}, "x" * 10_000] if rank == 1 else [None, None]
    dist.broadcast_object_list(objs, src=1)
    assert objs == [{"rank": 1, "list": [1, 1, 1]}, "x" * 10_000]
    every = [None] * ws
    dist.all_gather_object(every, ("hello", rank, torchlike.tensor([float(rank)])))
    assert [e[1] for e in every] == list(range(ws))
    assert [e[2].item() for e in every] == [float(r) for r in range(ws)]
    got = [None] * ws if rank == 0 else None
    dist.gather_object(rank * 2, got, dst=0)
    if rank == 0:
        assert got == [2 * r for r in range(ws)]
    out = [None]
    dist.scatter_object_list(out, [f"to{r}" for r in range(ws)] if rank == 0 else None, src=0)
    assert out == [f"to{rank}"]
    dist.barrier()
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=20))


def _check_mismatch(rank, ws):
    # sizes or dtypes that differ between ranks raise on every rank
    with pytest.raises(dist.DistBackendError, match="differ between ranks"):
        dist.all_reduce(torchlike.zeros(3 + rank))
    with pytest.raises(dist.DistBackendError, match="differ between ranks"):
        dist.all_reduce(torchlike.zeros(4, dtype=torchlike.float32 if rank else
                                        torchlike.int32))
    t = torchlike.ones(2)  # and the group goes on working
    dist.all_reduce(t)
    assert t.tolist() == [ws, ws]


def _world_main(rank, ws, init, outdir):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=60))
    assert dist.is_initialized() and dist.get_rank() == rank and dist.get_world_size() == ws
    assert dist.get_backend() == "gloo"
    _check_all_reduce(rank, ws)
    _check_async(rank, ws)
    _check_rooted(rank, ws)
    _check_gathers(rank, ws)
    _check_p2p(rank, ws)
    _check_objects(rank, ws)
    _check_mismatch(rank, ws)
    out = {"cases": collective_cases(torchlike, dist, rank, ws) if ws == 2 else None}
    if ws == 3:
        _check_subgroups(rank, ws)
    dist.barrier()
    put(outdir, rank, out)
    dist.destroy_process_group()
    assert not dist.is_initialized()


def _check_subgroups(rank, ws):
    g = dist.new_group([2, 0])
    solo = dist.new_group([1])
    if rank == 1:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        assert dist.all_reduce(torchlike.ones(1), group=g) is None
        t = torchlike.ones(2)
        dist.all_reduce(t, group=solo)
        assert t.tolist() == [1.0, 1.0]
    else:
        assert dist.get_world_size(g) == 2 and dist.get_rank(g) == rank // 2
        assert dist.get_process_group_ranks(g) == [0, 2]
        ins = [data(r, (300_000,), "float32", 90) for r in (0, 2)]
        t = tensor(ins[rank // 2])
        dist.all_reduce(t, group=g)
        close(t.numpy(), np_reduce(ins, R.SUM), "float32")
        t = torchlike.tensor([float(rank)])
        dist.broadcast(t, src=2, group=g)  # src is a global rank
        assert t.item() == 2.0
        t = torchlike.tensor([float(rank)])
        dist.broadcast(t, group_src=0, group=g)
        assert t.item() == 0.0
        with pytest.raises(ValueError, match="not part of group"):
            dist.broadcast(t, src=1, group=g)
    t = torchlike.ones(1)  # the world still works after subgroup traffic
    dist.all_reduce(t)
    assert t.item() == ws


def test_collectives_two_ranks_match_numpy_and_pytorch(tmp_path):
    outdir = spawn_world(_world_main, 2, tmp_path)
    got = results(outdir, 2)
    for r in range(2):
        want = GOLDEN["collectives"][str(r)]
        for name, value in got[r]["cases"].items():
            assert value == want[name], (r, name, value, want[name])


def test_collectives_three_ranks(tmp_path):
    spawn_world(_world_main, 3, tmp_path)


# ---- timeouts and a peer that leaves -----------------------------------------------------
def _timeout_main(rank, ws, init, outdir):
    # a generous timeout for the rendezvous (processes may start seconds apart
    # on a loaded machine); the checks use a group with a short one
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=ws,
                            timeout=datetime.timedelta(seconds=60))
    g = dist.new_group(timeout=datetime.timedelta(seconds=1.5))
    sync = dist.FileStore(os.path.join(outdir, "sync"), ws)  # beside the group's own timeouts
    sync.set_timeout(datetime.timedelta(seconds=60))
    if rank == 0:
        t0 = time.monotonic()
        with pytest.raises(dist.DistBackendError, match="Timed out waiting 1500ms"):
            dist.recv(torchlike.zeros(2), src=1, group=g)
        assert 1.4 < time.monotonic() - t0 < 10
        t0 = time.monotonic()
        with pytest.raises(dist.DistBackendError, match="Timed out"):
            dist.all_reduce(torchlike.zeros(2), group=g)  # the others never join
        assert time.monotonic() - t0 < 10
        with pytest.raises(dist.DistBackendError,
                           match=r"\[Rank 0\]: Rank 1 failed to pass monitoredBarrier in 300 ms"):
            dist.monitored_barrier(g, timeout=datetime.timedelta(seconds=0.3))
        with pytest.raises(dist.DistBackendError,
                           match=r"\[Rank 0\]: Ranks 1, 2 failed to pass monitoredBarrier"):
            dist.monitored_barrier(g, timeout=datetime.timedelta(seconds=0.2),
                                   wait_all_ranks=True)
        sync.set("checked", "1")
        sync.wait(["left"])
        t0 = time.monotonic()
        with pytest.raises(dist.DistBackendError, match="Connection closed by peer rank 1"):
            dist.recv(torchlike.zeros(2), src=1, tag=4, group=g)
        put(outdir, rank, {"closed_after": time.monotonic() - t0})
    else:
        sync.wait(["checked"])
        dist.destroy_process_group()
        if rank == 1:
            sync.set("left", "1")
        put(outdir, rank, {})
    if dist.is_initialized():
        dist.destroy_process_group()


def test_timeouts_raise_and_a_leaving_peer_is_reported(tmp_path):
    outdir = spawn_world(_timeout_main, 3, tmp_path)
    assert results(outdir, 3)[0]["closed_after"] < 1.4  # not the timeout: the closed peer


# ---- rendezvous by env://, tcp://, a given store; re-initialisation ------------------------
def _init_main(rank, ws, init, outdir, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(ws))
    seen = []
    for how in ("env", "tcp", "store", "file"):
        if how == "env":
            dist.init_process_group()
        elif how == "tcp":
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port + 1}",
                                    rank=rank, world_size=ws)
        elif how == "store":
            store = dist.TCPStore("127.0.0.1", port + 2, ws, rank == 0,
                                  timeout=datetime.timedelta(seconds=30))
            dist.init_process_group("gloo", store=store, rank=rank, world_size=ws)
        else:
            dist.init_process_group("gloo", init_method=init + "?world_size=2", rank=rank)
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group()
        t = torchlike.tensor([rank + 1.0])
        dist.all_reduce(t)
        seen.append(t.item())
        dist.destroy_process_group()
    put(outdir, rank, seen)


def _free_port_block(n=3):
    import socket
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n < 65535:
            ok = True
            for k in range(1, n):
                with socket.socket() as s:
                    try:
                        s.bind(("127.0.0.1", base + k))
                    except OSError:
                        ok = False
            if ok:
                return base
    raise RuntimeError("no free ports")


def test_init_methods_and_reinit(tmp_path):
    outdir = spawn_world(_init_main, 2, tmp_path, _free_port_block())
    assert results(outdir, 2) == [[3.0] * 4] * 2
    assert not os.path.exists(os.path.join(outdir, "rendezvous"))  # the last user removed it


# ---- in one process ----------------------------------------------------------------------
def test_api_matches_pytorch_golden():
    got = json.loads(json.dumps(api_cases(torchlike, dist)))
    assert got == GOLDEN["api"]


def test_single_process_world_and_subgroup():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        t = torchlike.arange(4.)
        dist.all_reduce(t, op=R.AVG)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
        outs = [torchlike.zeros(4)]
        dist.all_gather(outs, t)
        assert outs[0].tolist() == t.tolist()
        g = dist.new_group([0])
        assert dist.get_world_size(g) == 1
        with pytest.raises(ValueError, match="within the world_size"):
            dist.new_group([0, 1])
        assert dist.get_global_rank(g, 0) == 0 and dist.get_group_rank(g, 0) == 0
        assert dist.group.WORLD is dist.GroupMember.WORLD is not None
        w = dist.barrier(async_op=True)
        assert isinstance(w, dist.Work) and w.wait()
    finally:
        dist.destroy_process_group()
    assert dist.GroupMember.WORLD is None


def test_backends_refused_here():
    if torchlike.cuda.is_available():
        pytest.skip("a GPU is present: nccl is accepted")
    with pytest.raises(RuntimeError, match="no GPUs found"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(RuntimeError, match="no 'mpi' backend"):
        dist.init_process_group("mpi", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.init_process_group("bogus", store=dist.HashStore(), rank=0, world_size=1)
    assert not dist.is_initialized()
    assert not dist.is_nccl_available() and dist.is_gloo_available()


def _store_semantics(s, other):
    """The same checks on a store ``s`` and a second handle ``other`` on it."""
    s.set("a", "1")
    assert other.get("a") == b"1"
    assert other.add("n", 5) == 5 and s.add("n", -2) == 3 and other.get("n") == b"3"
    assert s.compare_set("a", "1", "2") == b"2" and other.get("a") == b"2"
    assert s.compare_set("a", "x", "3") == b"2"
    assert s.compare_set("new", "", "v") == b"v"
    assert s.compare_set("absent", "e", "v") == b"e" and not s.check(["absent"])
    assert s.check(["a", "n", "new"])
    s.set("bytes", bytes(range(256)))
    assert other.get("bytes") == bytes(range(256))
    assert s.num_keys() == 4
    assert other.delete_key("new") and not other.delete_key("new")
    assert s.num_keys() == 3
    # a wait released by a set from another handle, from another thread
    threading.Timer(0.2, lambda: other.set("late", "x")).start()
    t0 = time.monotonic()
    s.wait(["late"], datetime.timedelta(seconds=10))
    assert time.monotonic() - t0 < 5
    s.set_timeout(datetime.timedelta(seconds=0.2))
    t0 = time.monotonic()
    with pytest.raises(dist.DistStoreError, match="Wait timeout"):
        s.get("never")
    with pytest.raises(dist.DistStoreError, match="Wait timeout"):
        s.wait(["never"], datetime.timedelta(seconds=0.1))
    assert time.monotonic() - t0 < 5
    assert isinstance(dist.DistStoreError("x"), RuntimeError)
    p = dist.PrefixStore("job", s)
    p.set("k", "v")
    assert other.get("job/k") == b"v" and p.get("k") == b"v" and p.add("c", 2) == 2


def test_tcp_store():
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(seconds=10),
                           wait_for_workers=False)
    client = dist.TCPStore("127.0.0.1", master.port, 2, False,
                           timeout=datetime.timedelta(seconds=10))
    try:
        _store_semantics(master, client)
    finally:
        client.close()
        master.close()
    with pytest.raises(dist.DistNetworkError, match="timed out"):
        dist.TCPStore("127.0.0.1", master.port, timeout=datetime.timedelta(seconds=0.3))


def test_tcp_store_master_waits_for_workers():
    with pytest.raises(dist.DistStoreError, match="1/2 clients joined"):
        dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(seconds=0.3))


def test_file_and_hash_store(tmp_path):
    path = str(tmp_path / "store")
    a, b = dist.FileStore(path, 2), dist.FileStore(path, 2)
    _store_semantics(a, b)
    a.close()
    assert os.path.exists(path)
    b.close()
    assert not os.path.exists(path)
    h = dist.HashStore()
    _store_semantics(h, h)
