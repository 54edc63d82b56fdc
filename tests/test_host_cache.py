"""The CPU's cache of large blocks (src/ndcore/tensor/host_cache.c), its rule
tested over the fake device's raw allocator: which requests reuse a block,
how many raw allocations and frees each step makes, and the two bounds (the
peak of bytes in use, the byte cap and slot count).  A reference model of the
rule written here replays random sequences; then the CPU backend's own
instance on real tensors."""
import gc
import random

import numpy as np
import pytest

import torchlike
from torchlike import _C

_C._fake_enable()

MiB = 1 << 20
SLOTS = 32


def stats():
    return _C._host_cache_stats()


_live = {}  # address -> size of blocks a test has not freed


@pytest.fixture(autouse=True)
def fresh_cache():
    gc.collect()
    _C._fake_reset_pool(None)   # the fake pool's cached segments count as used raw memory
    _C._fake_set_total(0)
    _C._host_cache_reset(1 << 30)
    yield
    for p, size in list(_live.items()):
        free(p, size)
    _C._fake_set_total(0)
    _C._host_cache_reset(1 << 30)


def alloc(n):
    p, size = _C._host_cache_alloc(n)
    _live[p] = size
    return p, size


def free(p, size):
    del _live[p]
    _C._host_cache_free(p, size)


def test_a_freed_block_serves_the_next_request_of_its_size():
    p, size = alloc(8 * MiB)
    assert size == 8 * MiB
    free(p, size)
    assert stats()["cached"] == 8 * MiB and stats()["ncached"] == 1
    q, size = alloc(8 * MiB)
    s = stats()
    assert q == p and (s["raw_allocs"], s["raw_frees"], s["hits"]) == (1, 0, 1)
    assert (s["live"], s["cached"], s["nlive"], s["ncached"]) == (8 * MiB, 0, 1, 0)


def test_a_request_takes_the_smallest_block_at_most_twice_its_size():
    a, sa = alloc(10 * MiB)
    b, sb = alloc(9 * MiB)
    free(a, sa)
    free(b, sb)
    p, size = alloc(8 * MiB + MiB // 2)     # both fit; the 9 MiB one is taken
    assert (p, size) == (b, 9 * MiB)
    _, size = alloc(4 * MiB)                # 10 MiB is more than twice 4: a new block,
    s = stats()                             # and 9 + 4 + 10 > 19: the 10 MiB one goes
    assert size == 4 * MiB and (s["raw_allocs"], s["raw_frees"], s["hits"]) == (3, 1, 1)
    c, sc = alloc(6 * MiB)                  # twice 6 is 12: the freed 4 MiB one is too
    free(c, sc)                             # small; a new 6 MiB block
    p, size = alloc(3 * MiB + 1)            # the 6 MiB block serves it (less than twice)
    assert (p, size) == (c, 6 * MiB) and stats()["hits"] == 2


def test_a_miss_gives_back_the_oldest_blocks_until_it_fits_under_the_peak():
    a, sa = alloc(10 * MiB)
    b, sb = alloc(20 * MiB)
    free(a, sa)
    free(b, sb)                              # peak 30, nothing live, 30 cached
    alloc(4 * MiB)                           # neither fits; 4 + 30 > 30: the oldest (a) goes
    s = stats()
    assert (s["peak"], s["live"], s["cached"], s["raw_frees"]) == (30 * MiB, 4 * MiB,
                                                                  20 * MiB, 1)
    p, _ = alloc(20 * MiB)                   # b is still there
    assert p == b
    alloc(40 * MiB)                          # a new peak: nothing may stay cached
    s = stats()
    assert s["peak"] == 64 * MiB and s["cached"] == 0


def test_the_byte_cap_and_the_slot_count_bound_what_is_kept():
    _C._host_cache_reset(15 * MiB)
    a, sa = alloc(10 * MiB)
    b, sb = alloc(8 * MiB)
    c, sc = alloc(20 * MiB)
    free(a, sa)
    free(b, sb)                              # 18 > 15: the older 10 MiB block goes
    assert stats()["cached"] == 8 * MiB and stats()["raw_frees"] == 1
    free(c, sc)                              # bigger than the cap: straight back
    assert stats()["cached"] == 8 * MiB and stats()["raw_frees"] == 2
    _C._host_cache_reset(1 << 30)
    blocks = [alloc(MiB + k * 4096) for k in range(SLOTS + 3)]
    for p, size in blocks:
        free(p, size)
    s = stats()
    assert s["ncached"] == SLOTS and s["raw_frees"] == 3
    # the newest are kept: the first three blocks are gone
    assert alloc(MiB)[0] == blocks[3][0]


def test_when_the_device_is_full_the_cache_is_emptied_and_the_request_retried():
    a, sa = alloc(10 * MiB)
    b, sb = alloc(10 * MiB)
    free(a, sa)
    free(b, sb)                              # peak 20, 20 cached
    alloc(2 * MiB)                           # a goes (2 + 20 > 20); b stays
    _C._fake_set_total(12 * MiB)             # what is used now: no raw byte left
    alloc(3 * MiB)                           # fits under the peak, but the device is full
    s = stats()
    assert (s["cached"], s["ncached"], s["raw_allocs"], s["raw_frees"]) == (0, 0, 4, 2)
    with pytest.raises(MemoryError, match="no 52428800 bytes"):
        alloc(50 * MiB)
    assert stats()["live"] == 5 * MiB and stats()["nlive"] == 2


class Model:
    """The rule, written again: oldest-first list, best fit within twice,
    a miss trims to the peak, a free trims to the cap and the slots."""

    def __init__(self, cap):
        self.cap, self.cached, self.live, self.peak = cap, [], 0, 0
        self.raw_allocs = self.raw_frees = self.hits = 0

    def _trim(self, limit, slots):
        while self.cached and (sum(self.cached) > limit or len(self.cached) > slots):
            self.cached.pop(0)
            self.raw_frees += 1

    def alloc(self, n):
        fits = [s for s in self.cached if n <= s <= 2 * n]
        if fits:
            best = min(fits)
            self.cached.remove(best)
            self.hits += 1
        else:
            best = n
            self._trim(max(self.peak, self.live + n) - self.live - n, SLOTS)
            self.raw_allocs += 1
        self.live += best
        self.peak = max(self.peak, self.live)
        return best

    def free(self, size):
        self.live -= size
        if size > self.cap:
            self.raw_frees += 1
        else:
            self._trim(self.cap - size, SLOTS - 1)
            self.cached.append(size)


@pytest.mark.parametrize("seed", range(4))
def test_random_sequences_follow_the_rule_and_stay_under_both_bounds(seed):
    cap = 64 * MiB
    _C._host_cache_reset(cap)
    rng = random.Random(seed)
    model, held = Model(cap), []
    sizes = [k * MiB // 2 for k in range(2, 40)]
    for _ in range(400):
        if held and rng.random() < 0.5:
            p, size = held.pop(rng.randrange(len(held)))
            free(p, size)
            model.free(size)
        else:
            n = rng.choice(sizes) + rng.choice([0, 4096, MiB // 8])
            p, size = alloc(n)
            held.append((p, size))
            assert size == model.alloc(n)
        s = stats()
        assert (s["live"], s["peak"], s["cached"], s["ncached"]) == (
            model.live, model.peak, sum(model.cached), len(model.cached))
        assert (s["raw_allocs"], s["raw_frees"], s["hits"]) == (
            model.raw_allocs, model.raw_frees, model.hits)
        assert s["live"] + s["cached"] <= s["peak"] and s["cached"] <= cap
        assert s["raw_allocs"] - s["raw_frees"] == s["nlive"] + s["ncached"]


# ---- the CPU backend's own cache, on tensors ----------------------------------------------

def cpu():
    gc.collect()
    return _C._cpu_memory_stats()


def test_cpu_large_outputs_reuse_cached_blocks_and_empty_cache_gives_them_back():
    a = torchlike.ones(1 << 22)                     # 16 MiB
    before = cpu()["large"]
    for _ in range(5):
        b = a + 1
        del b
    after = cpu()["large"]
    assert after["raw_allocs"] - before["raw_allocs"] <= 1
    assert after["hits"] - before["hits"] >= 4
    assert after["live"] + after["cached"] <= after["peak"]
    np.testing.assert_array_equal((a + 1).numpy(), np.full(1 << 22, 2, np.float32))
    _C._cpu_empty_cache()
    s = cpu()
    assert s["large"]["cached"] == 0 and s["large"]["ncached"] == 0
    assert s["large"]["peak"] == s["large"]["live"]


def test_cpu_allocated_bytes_count_live_storages():
    base = cpu()["allocated"]
    t = torchlike.empty(1000, dtype=torchlike.float64)
    u = torchlike.empty(3 << 20, dtype=torchlike.uint8)
    assert cpu()["allocated"] - base == 8000 + (3 << 20)
    del t, u
    assert cpu()["allocated"] == base
