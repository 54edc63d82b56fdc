"""Scatters split across threads (index.c's scatter_split): results equal,
bit for bit, a sequential NumPy reference (ufunc.at applies the index in C
order, as the serial walk does) and the one-thread run, over shapes big
enough to take the split: an expanded index (blocks split by columns), a
full 2-d index (split along a dim), non-contiguous self/src/index, many
duplicates, 0-size, every reduction with include_self True and False,
float and int dtypes, NaNs for amax/amin."""
import numpy as np
import pytest

import torchlike as tl

RNG = np.random.default_rng(11)
UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
         "amin": np.minimum}
DTYPES = ["float32", "float64", "int32", "int64", "float16", "int8"]


@pytest.fixture(autouse=True)
def two_threads():
    saved = tl.get_num_threads()
    tl.set_num_threads(2)
    yield
    tl.set_num_threads(saved)


def identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if np.dtype(dtype).kind == "f" else None
    if reduce == "amax":
        return -big if big else np.iinfo(dtype).min
    return big if big else np.iinfo(dtype).max


def ref_scatter_reduce(self, index, src, reduce, include_self):
    """self.scatter_reduce(0, index, src, reduce) in NumPy, index (n, d) <= src's shape."""
    out = self.copy()
    cols = np.broadcast_to(np.arange(index.shape[1]), index.shape)
    s = src[:index.shape[0], :index.shape[1]]
    if not include_self:
        out[index, cols] = identity(reduce, out.dtype)
    UFUNC[reduce].at(out, (index, cols), s)
    if reduce == "mean":
        count = np.full(out.shape, int(include_self), np.int64)
        np.add.at(count, (index, cols), 1)
        c = np.maximum(count, 1)
        if out.dtype.kind == "f":
            out = (out / c.astype(out.dtype)).astype(out.dtype)
        else:
            out = np.floor_divide(out, c).astype(out.dtype)
    return out


def values(shape, dtype):
    if np.dtype(dtype).kind == "f":
        # magnitudes spread over decades, so the order of a sum shows in its bits
        v = RNG.standard_normal(shape) * 10.0 ** RNG.integers(-3, 4, shape)
        return v.astype(dtype)
    return RNG.integers(-3, 4, shape).astype(dtype)


def run_both(fn):
    """fn() on two threads and on one: the results must agree bit for bit."""
    two = fn()
    tl.set_num_threads(1)
    try:
        one = fn()
    finally:
        tl.set_num_threads(2)
    np.testing.assert_array_equal(two.numpy(), one.numpy())
    return two.numpy()


def expanded(n, d, m):
    seg = RNG.integers(0, m, n)
    return seg, np.broadcast_to(seg[:, None], (n, d))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_expanded_index_all_reductions(dtype, reduce, include_self):
    n, d, m = 3000, 48, 37          # 144000 elements, many duplicates per row
    seg, idx = expanded(n, d, m)
    src = values((n, d), dtype)
    if reduce == "prod":            # keep products finite and exact-ish in range
        src = (np.sign(src) + (src == 0)).astype(dtype)
    self_ = values((m, d), dtype)
    index = tl.from_numpy(seg).view(-1, 1).expand(-1, d)
    got = run_both(lambda: tl.from_numpy(self_.copy()).scatter_reduce(
        0, index, tl.from_numpy(src), reduce, include_self=include_self))
    want = ref_scatter_reduce(self_, idx, src, reduce, include_self)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_expanded_index_nan_propagates(reduce):
    n, d, m = 2000, 64, 10
    seg, idx = expanded(n, d, m)
    src = values((n, d), "float32")
    src[RNG.integers(0, n, 50), RNG.integers(0, d, 50)] = np.nan
    self_ = values((m, d), "float32")
    index = tl.from_numpy(seg).view(-1, 1).expand(-1, d)
    got = run_both(lambda: tl.from_numpy(self_.copy()).scatter_reduce(
        0, index, tl.from_numpy(src), reduce))
    np.testing.assert_array_equal(got, ref_scatter_reduce(self_, idx, src, reduce, True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "amax", "mean"])
def test_full_index_split_along_a_dim(dtype, reduce):
    n, d, m = 4000, 24, 50          # blocks of one element: the split is along d
    idx = RNG.integers(0, m, (n, d))
    src = values((n, d), dtype)
    self_ = values((m, d), dtype)
    got = run_both(lambda: tl.from_numpy(self_.copy()).scatter_reduce(
        0, tl.from_numpy(idx), tl.from_numpy(src), reduce, include_self=False))
    np.testing.assert_array_equal(got, ref_scatter_reduce(self_, idx, src, reduce, False))


def test_scatter_add_noncontiguous_self_src_and_index_written_in_place():
    n, d, m = 3000, 40, 20
    seg, idx = expanded(n, d, m)
    big = values((m, 2 * d), "float32")
    src_t = values((d, n), "float32").T           # src transposed: strides (1, n)
    want_big = big.copy()
    want_big[:, ::2] = ref_scatter_reduce(big[:, ::2], idx, src_t, "sum", True)

    def run():
        t = tl.from_numpy(big.copy())
        t[:, ::2].scatter_add_(0, tl.from_numpy(seg).view(-1, 1).expand(-1, d),
                               tl.from_numpy(np.ascontiguousarray(src_t.T)).t())
        return t
    np.testing.assert_array_equal(run_both(run), want_big)
    # an index that is a strided (non-contiguous, not expanded) view
    idx2 = RNG.integers(0, m, (n, 2 * d))
    want = ref_scatter_reduce(big[:, :d], idx2[:, ::2], src_t, "sum", True)
    got = run_both(lambda: tl.from_numpy(np.ascontiguousarray(big[:, :d])).scatter_add(
        0, tl.from_numpy(idx2)[:, ::2], tl.from_numpy(np.ascontiguousarray(src_t))))
    np.testing.assert_array_equal(got, want)


def test_index_smaller_than_src_and_self_dims_after_dim():
    # scatter along dim 1 of a 3-d tensor, index smaller than src in every dim
    src = values((30, 50, 70), "float64")
    self_ = values((30, 20, 70), "float64")
    idx = RNG.integers(0, 20, (25, 40, 64))
    got = run_both(lambda: tl.from_numpy(self_.copy()).scatter_add(
        1, tl.from_numpy(idx), tl.from_numpy(src)))
    want = self_.copy()
    i, _, k = np.indices(idx.shape)
    np.add.at(want, (i, idx, k), src[:25, :40, :64])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_scatter_without_reduction_last_write_wins(dtype):
    n, d, m = 3000, 64, 30
    seg, _ = expanded(n, d, m)
    src = values((n, d), dtype)
    self_ = values((m, d), dtype)
    want = self_.copy()
    for i in range(n):                # C order: the last row naming a target wins
        want[seg[i]] = src[i]
    got = run_both(lambda: tl.from_numpy(self_.copy()).scatter(
        0, tl.from_numpy(seg).view(-1, 1).expand(-1, d), tl.from_numpy(src)))
    np.testing.assert_array_equal(got, want)


def test_gather_and_index_reduce_with_expanded_index():
    n, d, m = 3000, 64, 100
    seg, idx = expanded(n, d, m)
    table = values((m, d), "float32")
    got = run_both(lambda: tl.from_numpy(table).gather(
        0, tl.from_numpy(seg).view(-1, 1).expand(-1, d)))
    np.testing.assert_array_equal(got, np.take_along_axis(table, idx, 0))
    src = values((n, d), "float32")
    for reduce in ("amax", "amin", "prod", "mean"):
        for include_self in (True, False):
            got = run_both(lambda: tl.from_numpy(table.copy()).index_reduce(
                0, tl.from_numpy(seg), tl.from_numpy(src), reduce, include_self=include_self))
            want = ref_scatter_reduce(table, idx, src, reduce, include_self)
            np.testing.assert_allclose(got, want, rtol=0 if reduce != "prod" else 1e-6)


def test_zero_size_and_small_cases():
    z = tl.zeros(5, 64)
    empty = tl.zeros(0, 64, dtype=tl.int64)
    np.testing.assert_array_equal(z.scatter_add(0, empty, tl.ones(0, 64)).numpy(), np.zeros((5, 64)))
    np.testing.assert_array_equal(
        tl.zeros(5, 0).scatter_reduce(0, tl.zeros(7, 0, dtype=tl.int64), tl.ones(7, 0), "amax").numpy(),
        np.zeros((5, 0)))
    # below the split's threshold: the serial path, same reference
    seg, idx = expanded(10, 8, 3)
    src = values((10, 8), "float32")
    got = tl.zeros(3, 8).scatter_add(0, tl.from_numpy(seg).view(-1, 1).expand(-1, 8), tl.from_numpy(src))
    np.testing.assert_array_equal(got.numpy(), ref_scatter_reduce(np.zeros((3, 8), np.float32), idx, src, "sum", True))


def test_overlapping_self_stays_serial():
    # a view whose elements share memory (as_strided): no split, so the
    # result is the serial walk's, on two threads as on one
    n, d = 4000, 32
    seg = RNG.integers(0, 8, n)
    src = values((n, d), "float32")

    def run():
        base = tl.zeros(64)
        view = base.as_strided((8, d), (1, 1))
        view.scatter_add_(0, tl.from_numpy(seg).view(-1, 1).expand(-1, d), tl.from_numpy(src))
        return base
    got = run_both(run)
    want = np.zeros(64, np.float32)
    for i in range(n):
        for j in range(d):
            want[seg[i] + j] += src[i, j]
    np.testing.assert_array_equal(got, want)


def test_the_split_runs_on_the_pool_and_an_overlapping_self_does_not():
    # the same in-place scatter into distinct memory and into a view over
    # overlapping memory: the index's offsets cost the same jobs in both, so
    # the difference is the split's own job (the comparisons above pass on
    # one thread too: this is what shows that the split happens)
    n, d = 20000, 32
    index = tl.from_numpy(RNG.integers(0, 8, n)).view(-1, 1).expand(-1, d)
    src = tl.from_numpy(values((n, d), "float32"))

    def jobs(target):
        before = tl._C._parallel_jobs()
        target.scatter_add_(0, index, src)
        return tl._C._parallel_jobs() - before
    distinct = jobs(tl.zeros(8, d))
    overlapping = jobs(tl.zeros(64).as_strided((8, d), (1, 1)))
    assert distinct == overlapping + 1
    tl.set_num_threads(1)
    assert jobs(tl.zeros(8, d)) == 0
