"""Expandable segments in the caching pool (TORCHLIKE_CUDA_ALLOC_CONF
expandable_segments:True), tested on the fake device, whose raw allocator
reserves address ranges and maps 2 MiB-granular pages of host memory.

Every test starts from a fresh pool and checks exact addresses and figures;
most would fail with the option ignored (ordinary segments), and the
fragmentation test runs both ways."""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike
from torchlike import _C
from test_alloc_pool import assert_pytorch_stat_keys, free, malloc, release_all, stats

_C._fake_enable()

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
SMALL_PAGE, LARGE_PAGE = 2 * MiB, 20 * MiB
EXPANDABLE = "expandable_segments:True"

def reset(config=EXPANDABLE, vm=True, fail_reserves=0, fail_maps=0, total=0):
    _C._fake_set_total(total)
    _C._fake_vm_control(vm, fail_reserves, fail_maps)
    _C._fake_reset_pool(config)


@pytest.fixture(autouse=True)
def fresh_pool():
    gc.collect()
    reset()
    yield
    release_all()
    reset(None)
    assert _C._fake_vm_counters()["ranges"] == 0  # the old pool released its ranges


def vm():
    return _C._fake_vm_counters()




def empty_cache():
    _C._pool_control("empty_cache", "fake")


def test_small_requests_grow_one_range_page_by_page():
    a = malloc(1000)
    b = malloc(3000)
    assert b == a + 1024
    assert vm()["ranges"] == 1
    # one range per (stream, pool kind): the device's memory and an eighth
    assert vm()["range_bytes"] == 16 * GiB + 2 * GiB
    x = malloc(MiB)
    y = malloc(MiB)  # past the first page: the range grows in place
    assert x == a + 4096 and y == x + MiB
    s = stats()
    assert s["reserved_bytes.all.current"] == 2 * SMALL_PAGE
    assert s["reserved_bytes.small_pool.current"] == 2 * SMALL_PAGE
    assert s["segment.small_pool.current"] == 1  # ordinary segments would be 2
    assert s["num_device_alloc"] == 2
    assert vm()["maps"] == 2 and vm()["mapped_bytes"] == 2 * SMALL_PAGE
    assert s["allocated_bytes.all.current"] == 1024 + 3072 + 2 * MiB
    # free pieces of an expandable segment are not "non-releasable"
    assert s["inactive_split.all.current"] == 0


def test_large_requests_map_20mib_pages_at_the_end():
    a = malloc(3 * MiB)
    assert stats()["reserved_bytes.large_pool.current"] == LARGE_PAGE
    b = malloc(25 * MiB)  # 17 MiB free at the end: one more page makes room
    assert b == a + 3 * MiB
    assert _C._pool_block(b)["size"] == 25 * MiB
    s = stats()
    assert s["reserved_bytes.large_pool.current"] == 2 * LARGE_PAGE
    assert s["segment.large_pool.current"] == 1 and s["segment.small_pool.current"] == 0
    assert s["allocated_bytes.large_pool.current"] == 28 * MiB
    assert s["num_device_alloc"] == 2
    c = malloc(50 * MiB)  # 12 MiB free at the end, 38 MiB more: two pages
    assert c == b + 25 * MiB
    assert stats()["reserved_bytes.all.current"] == 4 * LARGE_PAGE
    assert vm()["maps"] == 4


@pytest.mark.parametrize("config,vm_callbacks,grows", [
    (EXPANDABLE, True, True),
    ("expandable_segments:False", True, False),
    (EXPANDABLE, False, False),  # a raw allocator without the callbacks: as before
])
def test_fragmentation_free_holes_are_unmapped_and_reused(config, vm_callbacks, grows):
    """PyTorch's case for expandable segments: alternate 20 MiB blocks freed
    out of one big allocation, then a 40 MiB request that no hole fits and the
    device cannot serve with new memory."""
    reset(config, vm_callbacks, total=170 * MiB)
    big = malloc(160 * MiB)
    free(big)
    blocks = [malloc(20 * MiB) for _ in range(8)]
    assert blocks == [big + i * 20 * MiB for i in range(8)]
    for p in blocks[1::2]:
        free(p)
    if not grows:
        with pytest.raises(torchlike.OutOfMemoryError, match="Tried to allocate 40.00 MiB"):
            malloc(40 * MiB)
        assert stats()["reserved_bytes.all.current"] == 160 * MiB
        return
    p = malloc(40 * MiB)
    # the four free pages were unmapped (the range kept) and the request
    # mapped two pages at the end, where the last hole was
    assert p == big + 140 * MiB
    s = stats()
    assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
    assert s["reserved_bytes.all.current"] == 120 * MiB
    assert s["allocated_bytes.all.current"] == 120 * MiB
    assert s["num_device_free"] == 4
    assert vm()["unmaps"] == 4 and vm()["mapped_bytes"] == 120 * MiB and vm()["ranges"] == 1
    assert _C._mem_get_info("fake") == (50 * MiB, 170 * MiB)
    # an unmapped hole in the middle is mapped again for a request it fits
    q = malloc(20 * MiB)
    assert q == blocks[1]
    assert stats()["reserved_bytes.all.current"] == 140 * MiB


def test_empty_cache_unmaps_whole_free_pages_anywhere_and_keeps_the_range():
    blocks = [malloc(20 * MiB) for _ in range(5)]
    assert stats()["reserved_bytes.all.current"] == 100 * MiB
    for p in (blocks[1], blocks[2], blocks[4]):  # a 40 MiB hole in the middle, a free end
        free(p)
    empty_cache()
    s = stats()
    assert s["reserved_bytes.all.current"] == 40 * MiB
    assert s["allocated_bytes.all.current"] == 40 * MiB
    assert s["segment.all.current"] == 1 and s["num_device_free"] == 3
    assert vm()["unmaps"] == 3 and vm()["ranges"] == 1
    p = malloc(40 * MiB)  # the lowest unmapped place that fits: the hole
    assert p == blocks[1]
    assert stats()["reserved_bytes.all.current"] == 80 * MiB
    free(p)
    free(blocks[0])
    free(blocks[3])
    empty_cache()
    s = stats()
    assert s["reserved_bytes.all.current"] == 0 and s["segment.all.current"] == 0
    assert s["segment.all.freed"] == 1 and s["segment.all.allocated"] == 1
    assert vm()["mapped_bytes"] == 0 and vm()["ranges"] == 1
    assert malloc(20 * MiB) == blocks[0]  # the same addresses, mapped again


def test_a_page_shared_with_a_used_block_stays_mapped():
    a, b = malloc(MiB), malloc(MiB)  # page 0
    c, d = malloc(MiB), malloc(MiB)  # page 1
    e = malloc(512 * KiB)  # page 2
    assert [b, c, d, e] == [a + MiB, a + 2 * MiB, a + 3 * MiB, a + 4 * MiB]
    free(b)
    free(c)  # [1, 3) MiB free: half of page 0 and half of page 1
    free(e)
    empty_cache()
    assert stats()["reserved_bytes.all.current"] == 2 * SMALL_PAGE  # page 2 went
    free(a)  # page 0 is wholly free now, page 1 still half used
    empty_cache()
    s = stats()
    assert s["reserved_bytes.all.current"] == SMALL_PAGE
    assert s["allocated_bytes.all.current"] == MiB
    assert vm()["unmaps"] == 2
    assert malloc(MiB) == c  # the free half of page 1, not a new page
    assert vm()["maps"] == 3


def test_streams_and_pool_kinds_have_ranges_of_their_own():
    a = malloc(1000, stream=1)
    free(a)
    b = malloc(1000, stream=2)
    c = malloc(3 * MiB, stream=1)
    assert vm()["ranges"] == 3
    assert abs(b - a) >= 18 * GiB and abs(c - a) >= 18 * GiB  # distinct ranges
    s = stats()
    assert s["segment.small_pool.current"] == 2 and s["segment.large_pool.current"] == 1
    assert s["reserved_bytes.all.current"] == 2 * SMALL_PAGE + LARGE_PAGE
    assert malloc(1000, stream=1) == a  # stream 1's cached block, not stream 2's


def test_block_used_on_another_stream_is_unmapped_only_after_its_event():
    a = malloc(3 * MiB, stream=1)
    _C._pool_record_stream(a, 2)
    free(a)
    b = malloc(3 * MiB, stream=1)
    assert b == a + 3 * MiB  # stream 2 may still read a
    free(b)
    assert stats()["active.all.current"] == 1
    empty_cache()  # waits for stream 2's event, then unmaps the page
    s = stats()
    assert s["reserved_bytes.all.current"] == 0 and s["active.all.current"] == 0
    assert s["num_sync_all_streams"] == 1
    assert malloc(3 * MiB, stream=1) == a


def test_out_of_memory_after_unmapping_names_the_figures_and_changes_nothing():
    reset(total=50 * MiB)
    malloc(30 * MiB)  # two pages
    with pytest.raises(torchlike.OutOfMemoryError) as e:
        malloc(30 * MiB)  # 10 MiB free at the end, a third page does not fit
    msg = str(e.value)
    assert "fake:0 out of memory. Tried to allocate 30.00 MiB" in msg
    assert "total capacity of 50.00 MiB of which 10.00 MiB is free" in msg
    assert "30.00 MiB is allocated by torchlike" in msg
    assert "10.00 MiB is reserved by torchlike but unallocated" in msg
    s = stats()
    assert s["num_ooms"] == 1 and s["num_alloc_retries"] == 1
    assert s["reserved_bytes.all.current"] == 40 * MiB and vm()["mapped_bytes"] == 40 * MiB


def test_a_growth_that_fails_part_way_gives_its_pages_back():
    reset(total=30 * MiB)  # a 40 MiB range (9/8 of 30 MiB, in whole pages)
    with pytest.raises(torchlike.OutOfMemoryError, match="Tried to allocate 35.00 MiB"):
        malloc(35 * MiB)  # the first page maps, the second does not
    s = stats()
    assert s["reserved_bytes.all.current"] == 0 and s["segment.all.current"] == 0
    assert s["num_device_alloc"] == 0
    assert vm()["mapped_bytes"] == 0 and vm()["maps"] == vm()["unmaps"] == 2  # tried twice
    assert _C._mem_get_info("fake") == (30 * MiB, 30 * MiB)
    p = malloc(10 * MiB)
    assert _C._pool_block(p)["size"] == 10 * MiB


def test_a_failed_map_is_retried_after_releasing_the_cache():
    reset(fail_maps=1)
    p = malloc(3 * MiB)
    s = stats()
    assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
    assert s["reserved_bytes.all.current"] == LARGE_PAGE and vm()["maps"] == 1
    assert _C._pool_block(p)["size"] == 3 * MiB


def test_memory_fraction_caps_mapped_pages():
    reset(total=100 * MiB)
    _C._set_memory_fraction(0.5, "fake")
    malloc(35 * MiB)  # 40 MiB mapped
    with pytest.raises(torchlike.OutOfMemoryError, match="limited to 50.00 MiB"):
        malloc(10 * MiB)  # 5 MiB free at the end; a third page would pass the cap
    assert stats()["reserved_bytes.all.current"] == 40 * MiB


def test_no_address_range_falls_back_to_ordinary_segments():
    reset(fail_reserves=1)
    a = malloc(1000)
    b = malloc(3 * MiB)
    s = stats()
    assert s["reserved_bytes.all.current"] == 2 * MiB + 20 * MiB
    assert s["segment.all.current"] == 2 and vm()["ranges"] == 0
    assert _C._pool_segment_offset(a) == 0 and _C._pool_segment_offset(b) == 0


def test_cuda_ipc_refuses_expandable_blocks_clearly():
    a = malloc(1000)
    b = malloc(1000)
    assert _C._pool_block(b) == {"size": 1024, "requested": 1000, "stream": 0,
                                 "segment_offset": None}
    with pytest.raises(RuntimeError, match="expandable segment cannot be shared across "
                                           "processes"):
        _C._pool_segment_offset(a)


def test_summary_and_stats_keys_with_expandable_segments():
    malloc(3000)
    malloc(3 * MiB)
    s = stats()
    assert_pytorch_stat_keys(s)
    assert s["reserved_bytes.all.current"] == 22 * MiB
    text = _C._memory_summary("fake")
    row = next(line for line in text.splitlines() if line.startswith("| Reserved memory"))
    assert "22.00 MiB" in row
    row = next(line for line in text.splitlines() if line.startswith("| Reserved segments"))
    assert row.split("|")[2].strip() == "2"


def test_tensor_data_survives_across_pages():
    """Tensors live in the mapped pages: data written through the backend
    across a page boundary reads back the same."""
    x = np.random.default_rng(0).standard_normal(6 * MiB // 4).astype(np.float32)  # 6 MiB
    head = torchlike.empty(17 * MiB, dtype=torchlike.uint8, device="fake")
    t = torchlike.from_numpy(x).to("fake")  # from 17 MiB to 23 MiB: across the first page's end
    assert _C._storage_block(t) == _C._storage_block(head) + 17 * MiB
    assert stats()["reserved_bytes.all.current"] == 2 * LARGE_PAGE
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    del head, t
    gc.collect()
    empty_cache()
    assert stats()["reserved_bytes.all.current"] == 0


def test_environment_variable_turns_it_on():
    code = ("import torchlike; C = torchlike._C; C._fake_enable(); "
            "[C._pool_malloc(1 << 20) for _ in range(3)]; "
            "s = C._memory_stats('fake'); "
            "print(s['segment.all.current'], s['reserved_bytes.all.current'], "
            "C._fake_vm_counters()['ranges'])")
    env = dict(os.environ, TORCHLIKE_CUDA_ALLOC_CONF=EXPANDABLE)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["1", str(4 * MiB), "1"]  # ordinary: 2 segments, no range


def test_random_sequence_keeps_the_books_exact():
    """Random requests, frees, record_stream and empty_cache on two streams,
    with the invariants checked after every step: live blocks never overlap,
    allocated bytes are their sum, reserved bytes are what is mapped."""
    reset(total=400 * MiB)
    rng = np.random.default_rng(7)
    live = {}  # address -> (size, stream)
    for step in range(300):
        op = rng.random()
        if op < 0.55 or not live:
            n = int(rng.choice([rng.integers(1, 2 * MiB), rng.integers(MiB, 45 * MiB)]))
            stream = int(rng.integers(0, 2))
            try:
                p = malloc(n, stream)
            except torchlike.OutOfMemoryError:
                continue
            live[p] = (_C._pool_block(p)["size"], stream)
        elif op < 0.9:
            p = list(live)[int(rng.integers(len(live)))]
            if rng.random() < 0.2:
                _C._pool_record_stream(p, 5)
            free(p)
            del live[p]
        else:
            if rng.random() < 0.5:
                _C._fake_stream_finish(5)
            empty_cache()
        spans = sorted((p, p + size) for p, (size, _) in live.items())
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), step
        s = stats()
        assert s["allocated_bytes.all.current"] == sum(size for size, _ in live.values())
        assert s["reserved_bytes.all.current"] == vm()["mapped_bytes"] <= 400 * MiB
    for p in list(live):
        free(p)
    _C._fake_stream_finish(5)
    empty_cache()
    s = stats()
    assert s["reserved_bytes.all.current"] == 0 and vm()["mapped_bytes"] == 0
    assert s["segment.all.current"] == 0 and s["active.all.current"] == 0
    assert vm()["ranges"] >= 2  # both streams grew ranges, kept after empty_cache


_CUDA_CHECK = """
import numpy as np, torchlike as tl
MiB = 1 << 20
a = tl.empty(3 * MiB, dtype=tl.uint8, device="cuda")
x = np.random.default_rng(1).standard_normal(6 * MiB // 4).astype(np.float32)
b = tl.from_numpy(x).to("cuda")  # 17 MiB free at the end of the first 20 MiB page: grows
s = tl.cuda.memory_stats()
assert b.data_ptr() == a.data_ptr() + 3 * MiB, (a.data_ptr(), b.data_ptr())
assert s["segment.all.current"] == 1, s["segment.all.current"]
assert s["reserved_bytes.all.current"] == 20 * MiB, s["reserved_bytes.all.current"]
c = tl.empty(20 * MiB, dtype=tl.uint8, device="cuda")  # across into a second page
assert tl.cuda.memory_stats()["reserved_bytes.all.current"] == 40 * MiB
np.testing.assert_array_equal(b.cpu().numpy(), x)
c.fill_(7)
assert int(c.sum()) == 7 * 20 * MiB
try:
    tl._C._cuda_ipc_export(b)
    raise AssertionError("IPC exported a block of an expandable segment")
except RuntimeError as e:
    assert "expandable segment" in str(e), e
pa = a.data_ptr()
del a, b, c
tl.cuda.empty_cache()
s = tl.cuda.memory_stats()
assert s["reserved_bytes.all.current"] == 0 and s["segment.all.current"] == 0
assert tl.empty(MiB * 2, dtype=tl.uint8, device="cuda").data_ptr() == pa  # the range is kept
print("ok")
"""


@pytest.mark.skipif(not torchlike.cuda.is_available(), reason="requires a CUDA device")
def test_cuda_expandable_segments_grow_in_place():
    """The same design over the driver's virtual memory functions, in a
    process of its own so that the variable configures CUDA's pools."""
    env = dict(os.environ, TORCHLIKE_CUDA_ALLOC_CONF=EXPANDABLE)
    p = subprocess.run([sys.executable, "-c", _CUDA_CHECK], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-3000:]
