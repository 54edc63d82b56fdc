"""torch.cuda's memory-debugging surface: the caching pool's snapshot and
history (src/ndcore/tensor/alloc_pool.c, walked in C), raw blocks, the host
pool's statistics, the sync debug mode and NVTX.

The pool is tested on the fake device: every test starts from a fresh pool
and checks the exact segments and blocks a scripted sequence leaves.  The
CPU-only answers (no GPU: empty snapshot, NVTX no-ops ...) are PyTorch's,
recorded in tests/golden/cuda_memory_debug.json by
scripts/golden_cuda_memory_debug.py."""
import inspect
import pickle
import warnings

import pytest

import torchlike
import torchlike.cuda.memory as M
from torchlike import _C
from oracle import golden_calls
from test_alloc_pool import free, malloc, release_all

_C._fake_enable()

KiB, MiB = 1 << 10, 1 << 20
SEGMENT_KEYS = {"device", "address", "total_size", "allocated_size", "active_size",
                "requested_size", "stream", "segment_type", "segment_pool_id", "is_expandable",
                "frames", "blocks"}
BLOCK_KEYS = {"size", "requested_size", "address", "state", "frames"}
TRACE_KEYS = {"action", "addr", "size", "stream", "time_us", "frames"}

@pytest.fixture(autouse=True)
def fresh_pool(request):
    if request.node.name.startswith("test_cpu_only"):  # these touch no pool
        yield
        return
    _C._fake_set_total(0)
    _C._fake_reset_pool(None)
    yield
    release_all()
    _C._sync_debug_mode(0)
    M._recording.discard("fake")
    _C._fake_vm_control(False, 0, 0)
    _C._fake_set_total(0)
    _C._fake_reset_pool(None)


def snapshot():
    return M._snapshot("fake")


def layout(seg):
    """A segment's blocks as (offset, size, requested, state)."""
    return [(b["address"] - seg["address"], b["size"], b["requested_size"], b["state"])
            for b in seg["blocks"]]


def actions(trace):
    return [(e["action"], e["addr"], e["size"]) for e in trace]


# ---- the segment and block walk --------------------------------------------------------------

def test_split_small_blocks_and_merge_on_free():
    a, b, c = malloc(1000), malloc(3000), malloc(700)
    [seg] = snapshot()["segments"]
    assert set(seg) == SEGMENT_KEYS and all(set(k) == BLOCK_KEYS for k in seg["blocks"])
    assert seg["address"] == a and seg["segment_type"] == "small" and seg["device"] == 0
    assert (seg["total_size"], seg["allocated_size"], seg["active_size"],
            seg["requested_size"]) == (2 * MiB, 5 * KiB, 5 * KiB, 4700)
    assert layout(seg) == [(0, 1024, 1000, "active_allocated"),
                           (1024, 3072, 3000, "active_allocated"),
                           (4096, 1024, 700, "active_allocated"),
                           (5120, 2 * MiB - 5120, 0, "inactive")]
    assert b == a + 1024 and c == a + 4096
    free(b)  # between two live blocks: stays a block of its own
    [seg] = snapshot()["segments"]
    assert layout(seg)[1] == (1024, 3072, 0, "inactive")
    assert seg["allocated_size"] == 2048 and seg["requested_size"] == 1700
    free(a)  # merges with b
    [seg] = snapshot()["segments"]
    assert layout(seg) == [(0, 4096, 0, "inactive"), (4096, 1024, 700, "active_allocated"),
                           (5120, 2 * MiB - 5120, 0, "inactive")]
    free(c)  # the whole segment is one free block again
    [seg] = snapshot()["segments"]
    assert layout(seg) == [(0, 2 * MiB, 0, "inactive")]
    assert seg["allocated_size"] == seg["active_size"] == seg["requested_size"] == 0


def test_small_and_large_pools_sorted_by_address():
    big = malloc(12 * MiB)       # a segment of its own, rounded to 2 MiB, not split
    mid = malloc(3 * MiB)        # a 20 MiB large segment, the rest kept
    small = malloc(100, stream=3)
    segs = snapshot()["segments"]
    assert [s["address"] for s in segs] == sorted(s["address"] for s in segs)
    by_addr = {s["address"]: s for s in segs}
    assert layout(by_addr[big]) == [(0, 12 * MiB, 12 * MiB, "active_allocated")]
    assert layout(by_addr[mid]) == [(0, 3 * MiB, 3 * MiB, "active_allocated"),
                                    (3 * MiB, 17 * MiB, 0, "inactive")]
    assert layout(by_addr[small]) == [(0, 512, 100, "active_allocated"),
                                      (512, 2 * MiB - 512, 0, "inactive")]
    assert [by_addr[p]["segment_type"] for p in (big, mid, small)] == ["large", "large", "small"]
    assert [by_addr[p]["stream"] for p in (big, mid, small)] == [0, 0, 3]
    assert sum(s["total_size"] for s in segs) == _C._memory_stats("fake")[
        "reserved_bytes.all.current"]
    free(big)
    _C._pool_control("empty_cache", "fake")
    assert big not in {s["address"] for s in snapshot()["segments"]}


def test_pending_free_until_the_other_stream_finishes():
    a = malloc(2000, stream=1)
    _C._pool_record_stream(a, 2)
    free(a)
    [seg] = snapshot()["segments"]
    assert layout(seg)[0] == (0, 2048, 2000, "active_pending_free")
    assert seg["allocated_size"] == 0 and seg["active_size"] == 2048
    _C._fake_stream_finish(2)
    malloc(512, stream=5)  # the pool moves finished blocks on at its next call
    seg = next(s for s in snapshot()["segments"] if s["address"] == a)
    assert layout(seg) == [(0, 2 * MiB, 0, "inactive")]


def test_expandable_segment_lists_its_mapped_pages():
    _C._fake_vm_control(True, 0, 0)
    _C._fake_reset_pool("expandable_segments:True")
    _C._fake_set_total(256 * MiB)
    _C._record_memory_history("fake", True, True, False, False, 100, True, None)
    a = malloc(3 * MiB)  # one 20 MiB page of the large pool's range
    [seg] = snapshot()["segments"]
    assert seg["is_expandable"] and seg["address"] == a and seg["total_size"] == 20 * MiB
    assert layout(seg) == [(0, 3 * MiB, 3 * MiB, "active_allocated"),
                           (3 * MiB, 17 * MiB, 0, "inactive")]
    free(a)
    _C._pool_control("empty_cache", "fake")
    assert snapshot()["segments"] == []
    assert [x[0] for x in actions(snapshot()["device_traces"][0])] == [
        "segment_map", "alloc", "free_requested", "free_completed", "segment_unmap"]


# ---- history ----------------------------------------------------------------------------------

def where():
    """This caller's file and line."""
    f = inspect.currentframe().f_back
    return f.f_code.co_filename, f.f_lineno


def test_trace_records_each_action_with_python_frames():
    M._record_memory_history(device="fake")
    a = malloc(1000); here = where()  # noqa: E702  (the line the frames must name)
    free(a)
    _C._pool_control("empty_cache", "fake")
    s = snapshot()
    [trace] = s["device_traces"]
    assert all(set(e) == TRACE_KEYS for e in trace)
    assert actions(trace) == [("segment_alloc", a, 2 * MiB), ("alloc", a, 1024),
                              ("free_requested", a, 1024), ("free_completed", a, 1024),
                              ("segment_free", a, 2 * MiB)]
    times = [e["time_us"] for e in trace]
    assert times == sorted(times)
    frames = trace[1]["frames"]  # innermost first: the helper, then this test
    assert [f["name"] for f in frames[:2]] == ["malloc", inspect.currentframe().f_code.co_name]
    assert (frames[1]["filename"], frames[1]["line"]) == here
    assert trace[0]["frames"] == frames  # the segment was made for that call
    assert trace[2]["frames"][0]["name"] == "free"  # context="all": frees too
    assert trace[4]["frames"] == []  # empty_cache's release: no Python caller recorded


def test_block_frames_follow_the_block():
    M._record_memory_history("state", device="fake")
    a = malloc(1000)
    b = malloc(600)
    free(a)
    [seg] = snapshot()["segments"]
    assert snapshot()["device_traces"] == [[]]  # "state": no trace
    assert seg["blocks"][0]["frames"] == []  # freed: no allocation to name
    assert seg["blocks"][1]["frames"][0]["name"] == "malloc"
    assert seg["frames"][0]["name"] == "malloc"
    M._record_memory_history(None, device="fake")
    c = malloc(3000)
    blocks = {k["address"]: k for k in snapshot()["segments"][0]["blocks"]}
    assert blocks[b]["frames"] != [] and blocks[c]["frames"] == []


@pytest.mark.parametrize("context, freed_frames", [("alloc", False), ("all", True)])
def test_context_chooses_the_stacks(context, freed_frames):
    M._record_memory_history(context=context, device="fake")
    free(malloc(100))
    trace = snapshot()["device_traces"][0]
    assert [e["action"] for e in trace] == ["segment_alloc", "alloc", "free_requested",
                                           "free_completed"]
    assert trace[1]["frames"] != []
    assert (trace[2]["frames"] != []) == freed_frames


def test_max_entries_keeps_the_newest_and_clear_history():
    M._record_memory_history(device="fake", max_entries=3, context=None)
    ptrs = [malloc(100) for _ in range(3)]  # segment_alloc, then 3 allocs
    trace = snapshot()["device_traces"][0]
    assert actions(trace) == [("alloc", p, 512) for p in ptrs]
    assert all(e["frames"] == [] for e in trace)
    M._record_memory_history(None, device="fake")  # stopping keeps the trace
    free(ptrs[0])
    assert actions(snapshot()["device_traces"][0]) == [("alloc", p, 512) for p in ptrs]
    M._record_memory_history(device="fake", max_entries=2)  # a smaller ring keeps the newest
    assert actions(snapshot()["device_traces"][0]) == [("alloc", p, 512) for p in ptrs[1:]]
    M._record_memory_history(device="fake", clear_history=True)
    assert snapshot()["device_traces"] == [[]]


def test_oom_entry_names_the_request():
    _C._fake_set_total(8 * MiB)
    M._record_memory_history(device="fake")
    with pytest.raises(torchlike.cuda.OutOfMemoryError):
        malloc(64 * MiB)
    oom = snapshot()["device_traces"][0][-1]
    assert oom["action"] == "oom" and oom["size"] == 64 * MiB
    assert oom["device_free"] == 8 * MiB


def test_frames_of_dead_contexts_are_pruned(monkeypatch):
    monkeypatch.setattr(M, "_PRUNE_EVERY", 8)
    M._record_memory_history("state", device="fake")
    keep = malloc(100)
    for _ in range(40):
        free(malloc(100))
    assert len(M._frames) <= 9  # the live block's stack and at most a round's worth
    [seg] = snapshot()["segments"]
    assert next(b for b in seg["blocks"] if b["address"] == keep)["frames"] != []


def test_dump_snapshot_pickles_the_snapshot(tmp_path, monkeypatch):
    take = M._snapshot  # _dump_snapshot pickles every CUDA device's: here the fake one's
    monkeypatch.setattr(M, "_snapshot", lambda *a, **k: take("fake"))
    M._record_memory_history(device="fake")
    malloc(5000)
    path = tmp_path / "snap.pickle"
    M._dump_snapshot(str(path))
    with open(path, "rb") as f:
        loaded = pickle.load(f)
    assert loaded["segments"] == snapshot()["segments"]
    assert actions(loaded["device_traces"][0]) == actions(snapshot()["device_traces"][0])


@pytest.mark.parametrize("kwargs, match", [
    ({"enabled": "yes"}, "enabled must be"), ({"context": "some"}, "context must be"),
    ({"stacks": "cpp"}, "stacks must be"), ({"max_entries": -1}, "max_entries")])
def test_record_memory_history_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        M._record_memory_history(device="fake", **kwargs)


# ---- raw blocks, host statistics ----------------------------------------------------------------

def test_caching_allocator_alloc_and_delete():
    p = M.caching_allocator_alloc(3000, device="fake", stream=4)
    [seg] = snapshot()["segments"]
    assert seg["stream"] == 4 and layout(seg)[0] == (0, 3072, 3000, "active_allocated")
    M.caching_allocator_delete(p)
    assert layout(snapshot()["segments"][0]) == [(0, 2 * MiB, 0, "inactive")]
    M.caching_allocator_delete(p)  # no longer handed out: nothing, as PyTorch
    assert M.caching_allocator_alloc(0, device="fake") == 0
    with pytest.raises(TypeError, match="size must be an int"):
        M.caching_allocator_alloc(1.5, device="fake")
    with pytest.raises(TypeError, match="stream"):
        M.caching_allocator_alloc(10, device="fake", stream="s")


def test_host_memory_stats_keys_from_a_pool():
    a = malloc(1000)
    malloc(3 * MiB)
    free(a)
    st = _C._host_memory_stats("fake")
    assert (st["allocations.current"], st["allocations.peak"], st["allocations.freed"]) == (1, 2, 1)
    assert st["allocated_bytes.current"] == 3 * MiB
    assert st["active_bytes.peak"] == 3 * MiB + 1024
    assert st["segment.current"] == 2 and st["reserved_bytes.current"] == 22 * MiB
    assert (st["num_host_alloc"], st["num_host_free"]) == (2, 0)


# ---- sync debug mode ----------------------------------------------------------------------------

SYNCS = {"item": lambda t: t[1].item(), "float": lambda t: float(t[2]),
         "cpu": lambda t: t.cpu(), "tolist": lambda t: t.tolist()}


@pytest.mark.parametrize("name", sorted(SYNCS))
def test_sync_debug_mode_on_host_reads(name, monkeypatch):
    monkeypatch.setattr(torchlike.cuda, "_lazy_init", lambda: None)
    t = torchlike.arange(6.0).to("fake")
    expected = SYNCS[name](t.cpu())
    torchlike.cuda.set_sync_debug_mode("warn")
    assert torchlike.cuda.get_sync_debug_mode() == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = SYNCS[name](t)
    assert [str(w.message) for w in caught] == ["called a synchronizing CUDA operation"]
    assert caught[0].category is UserWarning
    assert (got.tolist() if hasattr(got, "tolist") else got) == (
        expected.tolist() if hasattr(expected, "tolist") else expected)
    torchlike.cuda.set_sync_debug_mode(2)
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
        SYNCS[name](t)
    torchlike.cuda.set_sync_debug_mode("default")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SYNCS[name](t)
    assert torchlike.cuda.get_sync_debug_mode() == 0


def test_sync_debug_mode_leaves_the_cpu_and_device_copies_alone(monkeypatch):
    monkeypatch.setattr(torchlike.cuda, "_lazy_init", lambda: None)
    torchlike.cuda.set_sync_debug_mode("error")
    c = torchlike.arange(4.0)
    assert c[1].item() == 1.0
    f = c.to("fake")  # host to device: no wait for the device
    g = torchlike.zeros(4).to("fake")
    g.copy_(f)  # on the device
    torchlike.cuda.set_sync_debug_mode(0)
    assert g.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        torchlike.cuda.set_sync_debug_mode("loud")


# ---- PyTorch's CPU-only answers -----------------------------------------------------------------

CALLS, _golden = golden_calls("cuda_memory_debug")


@pytest.mark.parametrize("call, want", CALLS, ids=[c for c, _ in CALLS])
def test_cpu_only_answers_match_pytorch(call, want):
    try:
        got = _golden.describe(eval(call, _golden.inputs(torchlike)))
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        got = ["raises", type(e).__name__]
    if want[0] == "raises" and got[0] == "raises" and not _C._cuda_compiled():
        # a build without CUDA raises PyTorch's CPU-only build's AssertionError
        # where the GPU checks run (cuda._lazy_init); the memory functions
        # answer as for a machine without a GPU
        assert got[1] in (want[1], "AssertionError")
    else:
        assert got == (want[:2] if want[0] == "raises" else want)


# ---- private pools ----------------------------------------------------------------------------

def test_mem_pool_owns_its_segments(monkeypatch):
    monkeypatch.setattr(M, "_available", lambda: True)
    take = M._snapshot
    monkeypatch.setattr(M, "_snapshot", lambda *a, **k: take("fake"))
    pool = torchlike.cuda.MemPool()
    pid = pool.id
    assert pid[0] == 0 and pid[1] > 0 and pool.use_count() == 1
    a = malloc(1000)
    with torchlike.cuda.use_mem_pool(pool, device="fake"):
        assert pool.use_count() == 2
        b = malloc(1000)
        c = malloc(500)
    assert pool.use_count() == 1
    d = malloc(1000)  # back to the device's own blocks
    assert d == a + 1024 and c == b + 1024
    segs = {s["address"]: s for s in snapshot()["segments"]}
    assert segs[b]["segment_pool_id"] == pid and segs[a]["segment_pool_id"] == (0, 0)
    free(b)
    assert malloc(1000) == a + 2048  # the pool's free block serves nobody outside it
    with torchlike.cuda.use_mem_pool(pool, device="fake"):
        assert malloc(700) == b  # ... and serves the pool again
    [own] = pool.snapshot()
    assert own["address"] == b and layout(own)[:2] == [(0, 1024, 700, "active_allocated"),
                                                       (1024, 512, 500, "active_allocated")]
    free(b)
    free(c)
    _C._pool_control("empty_cache", "fake")  # a live pool keeps its cache
    assert [layout(s) for s in pool.snapshot()] == [[(0, 2 * MiB, 0, "inactive")]]
    del pool  # its wholly free segments go at once
    assert b not in {s["address"] for s in snapshot()["segments"]}
    with pytest.raises(NotImplementedError):
        torchlike.cuda.MemPool(use_on_oom=True)


def test_allocation_traceback():
    M._record_memory_history("state", device="fake")
    a = malloc(1000)
    frames = M._allocation_traceback(a, device="fake")
    assert [f["name"] for f in frames[:2]] == ["malloc", "test_allocation_traceback"]
    assert M._allocation_traceback(a + 512, device="fake") is None  # not a block's start
    M._record_memory_history(None, device="fake")
    b = malloc(1000)
    assert M._allocation_traceback(b, device="fake") is None  # recorded with history off
    free(a)
    assert M._allocation_traceback(a, device="fake") is None  # freed
