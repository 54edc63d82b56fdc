"""The caching pool (src/ndcore/tensor/alloc_pool.c), tested on the fake device.

Every test starts from a fresh pool and checks exact addresses and figures:
a pass-through allocator (one raw allocation per request) fails each of them."""
import gc
import os
import subprocess
import sys

import pytest

import torchlike
from torchlike import _C

_C._fake_enable()

KiB, MiB = 1 << 10, 1 << 20


def stats():
    return _C._memory_stats("fake")


def stat(key):
    return stats()[key]


_live = set()  # blocks a test has not freed; the fixture frees them


@pytest.fixture(autouse=True)
def fresh_pool():
    gc.collect()
    _C._fake_set_total(0)
    _C._fake_reset_pool(None)
    yield
    release_all()
    _C._fake_set_total(0)
    _C._fake_reset_pool(None)


def release_all():
    """Free the blocks a test left and finish every fake stream."""
    gc.collect()
    for p in list(_live):
        free(p)
    for s in range(64):
        _C._fake_stream_finish(s)


def malloc(n, stream=0):
    p = _C._pool_malloc(n, stream)
    _live.add(p)
    return p


def free(p):
    _live.discard(p)
    _C._pool_free(p)


def test_sizes_are_rounded_to_512_and_segments_follow_pytorch():
    assert _C._alloc_sizes(1) == (512, 2 * MiB)
    assert _C._alloc_sizes(512) == (512, 2 * MiB)
    assert _C._alloc_sizes(513) == (1024, 2 * MiB)
    assert _C._alloc_sizes(MiB) == (MiB, 2 * MiB)
    assert _C._alloc_sizes(MiB + 1) == (MiB + 512, 20 * MiB)
    assert _C._alloc_sizes(10 * MiB - 1) == (10 * MiB, 10 * MiB)
    assert _C._alloc_sizes(11 * MiB + 1) == (11 * MiB + 512, 12 * MiB)


def test_small_requests_are_carved_from_one_2mib_segment():
    a = malloc(1000)
    b = malloc(3000)
    c = malloc(1)
    assert b == a + 1024 and c == b + 3072
    assert _C._pool_block(a) == {"size": 1024, "requested": 1000, "stream": 0,
                                 "segment_offset": 0}
    # where CUDA IPC finds the segment to export: the blocks' offsets in it
    assert _C._pool_block(b)["segment_offset"] == 1024
    assert _C._pool_block(c)["segment_offset"] == 1024 + 3072
    s = stats()
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["segment.small_pool.current"] == 1 and s["segment.large_pool.current"] == 0
    assert s["allocated_bytes.all.current"] == 1024 + 3072 + 512
    assert s["requested_bytes.all.current"] == 1000 + 3000 + 1
    assert s["allocation.small_pool.current"] == 3
    assert s["num_device_alloc"] == 1
    # the rest of the segment is one free split block
    assert s["inactive_split.all.current"] == 1
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 4608


def test_freed_block_is_reused_best_fit():
    a = malloc(4096)
    b = malloc(100)
    free(a)
    assert malloc(4000) == a  # the 4 KiB hole fits best, not the segment's tail
    c = malloc(600)
    assert c == b + 512
    assert stat("num_device_alloc") == 1


def test_neighbours_merge_and_a_whole_segment_is_released():
    blocks = [malloc(1000) for _ in range(4)]
    for p in (blocks[1], blocks[3], blocks[0], blocks[2]):  # out of order: merges both ways
        free(p)
    s = stats()
    assert s["allocated_bytes.all.current"] == 0
    assert s["inactive_split.all.current"] == 0  # merged back into one whole segment
    assert s["reserved_bytes.all.current"] == 2 * MiB
    # the merged block serves a request as large as the segment allows
    big = malloc(MiB)
    assert big == blocks[0]
    free(big)
    _C._pool_control("empty_cache", "fake")
    s = stats()
    assert s["reserved_bytes.all.current"] == 0 and s["num_device_free"] == 1


def test_large_requests_split_and_keep_the_remainder():
    a = malloc(3 * MiB)
    b = malloc(5 * MiB)
    assert b == a + 3 * MiB
    assert _C._pool_block(b)["segment_offset"] == 3 * MiB
    s = stats()
    assert s["reserved_bytes.large_pool.current"] == 20 * MiB
    assert s["segment.large_pool.current"] == 1
    assert s["allocated_bytes.large_pool.current"] == 8 * MiB


def test_large_remainder_of_a_mib_or_less_is_not_split():
    a = malloc(10 * MiB)  # a 10 MiB segment of its own
    free(a)
    b = malloc(9 * MiB + 512 * KiB)
    assert b == a
    assert _C._pool_block(b)["size"] == 10 * MiB  # 512 KiB left: kept with the block
    assert stat("allocated_bytes.all.current") == 10 * MiB
    assert stat("requested_bytes.all.current") == 9 * MiB + 512 * KiB


def test_blocks_are_pooled_per_stream():
    a = malloc(1000, stream=1)
    free(a)
    b = malloc(1000, stream=2)
    assert b != a
    assert stat("segment.all.current") == 2  # stream 2 cannot take stream 1's segment
    assert malloc(1000, stream=1) == a


def test_block_used_on_another_stream_waits_for_its_event():
    a = malloc(1000, stream=1)
    _C._pool_record_stream(a, 2)
    free(a)
    s = stats()
    assert s["allocation.all.current"] == 0 and s["active.all.current"] == 1
    b = malloc(1000, stream=1)
    assert b != a  # stream 2 may still be reading a
    free(b)
    _C._fake_stream_finish(2)  # the work queued on stream 2 is done
    c = malloc(1000, stream=1)
    assert c == a
    assert stat("active.all.current") == 1


def test_empty_cache_waits_for_pending_blocks():
    a = malloc(1000, stream=1)
    _C._pool_record_stream(a, 3)
    free(a)
    _C._pool_control("empty_cache", "fake")
    s = stats()
    assert s["reserved_bytes.all.current"] == 0
    assert s["active.all.current"] == 0
    assert s["num_sync_all_streams"] == 1


def test_out_of_memory_frees_the_cache_and_retries():
    _C._fake_set_total(21 * MiB)
    small = [malloc(MiB) for _ in range(4)]  # two small segments
    for p in small:
        free(p)
    assert stat("reserved_bytes.all.current") == 4 * MiB
    big = malloc(3 * MiB)  # needs 20 MiB: only fits once the cache is given back
    s = stats()
    assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
    assert s["reserved_bytes.all.current"] == 20 * MiB
    assert s["num_device_free"] == 2
    assert _C._pool_block(big)["size"] == 3 * MiB


def test_out_of_memory_error_names_the_figures():
    _C._fake_set_total(21 * MiB)
    malloc(3 * MiB)
    with pytest.raises(torchlike.OutOfMemoryError) as e:
        malloc(18 * MiB)
    msg = str(e.value)
    assert "fake:0 out of memory. Tried to allocate 18.00 MiB" in msg
    assert "total capacity of 21.00 MiB of which 1.00 MiB is free" in msg
    assert "3.00 MiB is allocated by torchlike" in msg
    assert "17.00 MiB is reserved by torchlike but unallocated" in msg
    assert isinstance(e.value, RuntimeError)
    s = stats()
    assert s["num_ooms"] == 1 and s["num_alloc_retries"] == 1


def test_tensor_allocation_out_of_memory_raises():
    _C._fake_set_total(4 * MiB)
    with pytest.raises(torchlike.OutOfMemoryError, match="Tried to allocate 40.00 MiB"):
        torchlike.empty(10 * MiB, device="fake")


def test_memory_fraction_caps_reservations():
    _C._fake_set_total(100 * MiB)
    _C._set_memory_fraction(0.25, "fake")
    malloc(20 * MiB)
    with pytest.raises(torchlike.OutOfMemoryError, match="limited to 25.00 MiB"):
        malloc(6 * MiB)
    with pytest.raises(ValueError, match="fraction must be in"):
        _C._set_memory_fraction(1.5, "fake")


def test_peaks_and_accumulated_statistics():
    a = malloc(2 * MiB)
    b = malloc(2 * MiB)
    free(a)
    free(b)
    s = stats()
    assert s["allocated_bytes.all.peak"] == 4 * MiB
    assert s["allocated_bytes.all.allocated"] == 4 * MiB
    assert s["allocated_bytes.all.freed"] == 4 * MiB
    assert s["allocation.large_pool.allocated"] == 2
    assert s["reserved_bytes.all.peak"] == 20 * MiB
    _C._pool_control("reset_peak", "fake")
    assert stat("allocated_bytes.all.peak") == 0
    assert stat("reserved_bytes.all.peak") == 20 * MiB  # still reserved
    _C._pool_control("reset_accumulated", "fake")
    assert stat("allocated_bytes.all.allocated") == 0
    assert stat("num_device_alloc") == 0


def assert_pytorch_stat_keys(s):
    """PyTorch's memory_stats() keys: every statistic per pool and aggregate."""
    for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                 "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for agg in ("current", "peak", "allocated", "freed"):
                assert f"{name}.{pool}.{agg}" in s


def test_memory_stats_use_pytorchs_keys():
    s = stats()
    assert_pytorch_stat_keys(s)
    for key in ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
                "num_device_free", "oversize_allocations.current", "oversize_segments.peak"):
        assert key in s
    assert s["max_split_size"] == -1


def test_summary_is_a_readable_table():
    malloc(3000)
    text = _C._memory_summary("fake")
    assert "Allocated memory" in text and "Reserved memory" in text
    row = next(line for line in text.splitlines() if line.startswith("| Allocated memory"))
    assert "3.00 KiB" in row
    assert "2.00 MiB" in next(line for line in text.splitlines()
                              if line.startswith("| Reserved memory"))


def test_config_parses_pytorch_style():
    c = _C._alloc_config("max_split_size_mb:64,garbage_collection_threshold:0.6,"
                         "expandable_segments:True")
    assert c == {"max_split_size": 64 * MiB, "garbage_collection_threshold": 0.6,
                 "expandable_segments": True}
    assert _C._alloc_config(None) == {"max_split_size": -1, "garbage_collection_threshold": 0.0,
                                      "expandable_segments": False}
    with pytest.raises(ValueError, match="unknown option 'roundup'"):
        _C._alloc_config("roundup:4")
    with pytest.raises(ValueError, match="max_split_size_mb must be a number above 20"):
        _C._alloc_config("max_split_size_mb:10")
    with pytest.raises(ValueError, match="garbage_collection_threshold must be in"):
        _C._alloc_config("garbage_collection_threshold:1.5")
    with pytest.raises(ValueError, match="expected key:value"):
        _C._alloc_config("expandable_segments")


def test_max_split_size_keeps_oversize_blocks_whole():
    _C._fake_reset_pool("max_split_size_mb:30")
    a = malloc(40 * MiB)
    free(a)
    b = malloc(5 * MiB)  # under the limit: may not take (and split) the 40 MiB block
    assert b != a
    s = stats()
    assert s["reserved_bytes.all.current"] == 60 * MiB
    assert s["oversize_segments.current"] == 1 and s["max_split_size"] == 30 * MiB
    c = malloc(39 * MiB)  # oversize, wastes under 20 MiB: takes it whole
    assert c == a and _C._pool_block(c)["size"] == 40 * MiB
    assert stat("oversize_allocations.current") == 1


def test_garbage_collection_threshold_releases_cache_before_growing():
    _C._fake_reset_pool("garbage_collection_threshold:0.5")
    _C._fake_set_total(40 * MiB)
    _C._set_memory_fraction(1.0, "fake")
    small = [malloc(MiB) for _ in range(4)]
    for p in small:
        free(p)
    malloc(3 * MiB)  # 4 + 20 MiB would pass half of 40 MiB: the cache goes first
    s = stats()
    assert s["reserved_bytes.all.current"] == 20 * MiB
    assert s["num_device_free"] == 2 and s["num_alloc_retries"] == 0


def test_environment_variable_configures_the_pool():
    code = ("import torchlike; torchlike._C._fake_enable(); "
            "print(torchlike._C._memory_stats('fake')['max_split_size'])")
    env = dict(os.environ, TORCHLIKE_CUDA_ALLOC_CONF="max_split_size_mb:64")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(64 * MiB)


def test_tensors_on_the_fake_device_use_the_pool():
    t = torchlike.empty(1000, dtype=torchlike.uint8, device="fake")
    u = torchlike.empty(10, dtype=torchlike.float64, device="fake")
    assert _C._storage_block(u) == _C._storage_block(t) + 1024
    assert stat("allocated_bytes.all.current") == 1024 + 512
    del t, u
    gc.collect()
    s = stats()
    assert s["allocated_bytes.all.current"] == 0 and s["reserved_bytes.all.current"] == 2 * MiB
    e = torchlike.empty(0, device="fake")  # an empty storage holds no block
    assert _C._storage_block(e) is None and stat("allocation.all.current") == 0


def test_reset_refuses_while_blocks_are_in_use():
    malloc(100)
    with pytest.raises(RuntimeError, match="still has 1 blocks in use"):
        _C._fake_reset_pool(None)


def test_a_bad_environment_variable_warns_and_keeps_the_defaults():
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import torchlike; torchlike._C._fake_enable()\n"
            "print(torchlike._C._memory_stats('fake')['max_split_size'])")
    env = dict(os.environ, TORCHLIKE_CUDA_ALLOC_CONF="max_split_size_mb:64,bogus:1")
    p = subprocess.run([sys.executable, "-W", "always", "-c", code], env=env, capture_output=True,
                       text=True, check=True)
    assert "unknown option 'bogus'" in p.stderr and "RuntimeWarning" in p.stderr
    assert p.stdout.strip() == "-1"


def test_mem_get_info_reports_the_drivers_figures():
    """Free memory is the driver's: the pool's cached segments count as used
    until empty_cache gives them back."""
    _C._fake_set_total(100 * MiB)
    assert _C._mem_get_info("fake") == (100 * MiB, 100 * MiB)
    p = malloc(3 * MiB)
    reserved = stat("reserved_bytes.all.current")
    assert reserved >= 3 * MiB
    assert _C._mem_get_info("fake") == (100 * MiB - reserved, 100 * MiB)
    free(p)  # cached, still reserved
    assert _C._mem_get_info("fake") == (100 * MiB - reserved, 100 * MiB)
    _C._pool_control("empty_cache", "fake")
    assert _C._mem_get_info("fake") == (100 * MiB, 100 * MiB)
