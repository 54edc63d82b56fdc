"""Running extremes, uniqueness, searching and counting against NumPy:
cummax/cummin, unique/unique_consecutive, searchsorted/bucketize, bincount,
histc.  Semantics are PyTorch's (see the notes on each test)."""
import numpy as np
import pytest

import torchlike as tl
from oracle import NP_DTYPES, assert_close, noncontiguous, random_array, to_tensor

REAL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
               "float16", "bfloat16", "float32", "float64"]


def np_of(t):
    return t.float().cpu().numpy() if t.dtype == tl.bfloat16 else t.cpu().numpy()


# ---- cummax / cummin -----------------------------------------------------------------

def ref_cum(a, axis, is_min):
    """PyTorch's rule: NaN takes over; ties move the index to the later element."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty_like(a)
    idx = np.zeros(a.shape, np.int64)
    for lane in np.ndindex(*a.shape[:-1]):
        row = a[lane]
        best, at = None, 0
        for i, x in enumerate(row):
            xnan = isinstance(x, np.floating) and np.isnan(x)
            bnan = best is not None and isinstance(best, np.floating) and np.isnan(best)
            if i == 0 or xnan or (not bnan and (x <= best if is_min else x >= best)):
                best, at = x, i
            vals[lane + (i,)] = row[at]
            idx[lane + (i,)] = at
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_cummax_cummin(dtype):
    rng = np.random.default_rng(0)
    a = random_array((3, 8), dtype, rng, low=-3, high=3)
    if dtype in ("float32", "float64"):
        a[1, 3] = np.nan
        a[2, 5] = np.nan
    t = to_tensor(a, dtype)
    for dim in (0, 1, -1):
        for is_min, fn in ((False, tl.cummax), (True, tl.cummin)):
            v, i = fn(t, dim)
            rv, ri = ref_cum(a, dim, is_min)
            assert_close(v, rv, dtype=dtype)
            assert_close(i, ri)
    # the values part is NumPy's accumulate where no NaN is involved
    b = random_array((4, 6), dtype, rng)
    if dtype not in ("float16", "bfloat16"):
        assert_close(tl.cummax(to_tensor(b, dtype), 1).values, np.maximum.accumulate(b, axis=1), dtype=dtype)
        assert_close(tl.cummin(to_tensor(b, dtype), 0).values, np.minimum.accumulate(b, axis=0), dtype=dtype)


def test_cummax_nan_and_ties_and_shapes():
    v, i = tl.cummax(tl.tensor([1.0, 3.0, 3.0, np.nan, 5.0, np.nan]), 0)
    assert i.tolist() == [0, 1, 2, 3, 3, 5]
    assert np.isnan(v.cpu().numpy()[3:]).all()
    v, i = tl.cummin(tl.tensor([2, 1, 1, 4]), 0)
    assert v.tolist() == [2, 1, 1, 1] and i.tolist() == [0, 1, 2, 2]
    v, i = tl.tensor(5.0).cummax(0)
    assert v.item() == 5.0 and i.item() == 0
    v, i = tl.cummax(tl.zeros(2, 0), 1)
    assert tuple(v.shape) == (2, 0) and i.dtype == tl.int64
    a = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    v, i = tl.cummax(noncontiguous(tl.tensor(a)), 1)
    assert_close(v, np.maximum.accumulate(a, axis=1))
    assert isinstance(tl.cummax(tl.tensor([1]), 0), tl.return_types.cummax)
    with pytest.raises(IndexError):
        tl.cummax(tl.tensor([1, 2]), 1)
    with pytest.raises(TypeError, match="dim"):
        tl.cummin(tl.tensor([1, 2]))


# ---- unique / unique_consecutive ---------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_unique_matches_numpy(dtype):
    rng = np.random.default_rng(2)
    for shape in [(), (0,), (7,), (4, 5), (2, 3, 4)]:
        a = random_array(shape, dtype, rng, low=-3, high=3)
        t = to_tensor(a, dtype)
        u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True)
        assert_close(tl.unique(t), u, dtype=dtype)
        out, tinv, tcnt = tl.unique(t, return_inverse=True, return_counts=True)
        assert_close(out, u, dtype=dtype)
        assert_close(tinv, inv.reshape(a.shape))
        assert_close(tcnt, cnt)
        out, tcnt = t.unique(sorted=True, return_counts=True)
        assert_close(tcnt, cnt)


def test_unique_nans_are_distinct():
    a = np.array([2.0, np.nan, 1.0, np.nan, 2.0])
    out, inv, cnt = tl.unique(tl.tensor(a), return_inverse=True, return_counts=True)
    u, ui, uc = np.unique(a, return_inverse=True, return_counts=True, equal_nan=False)
    assert_close(out, u)
    assert_close(inv, ui)
    assert_close(cnt, uc)


def test_unique_noncontiguous():
    a = np.random.default_rng(3).integers(0, 4, (5, 6)).astype(np.int32)
    t = noncontiguous(tl.tensor(a))
    out, inv = tl.unique(t, return_inverse=True)
    u, ui = np.unique(a, return_inverse=True)
    assert_close(out, u)
    assert_close(inv, ui.reshape(a.shape))


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "uint8"])
def test_unique_dim_matches_numpy_axis(dtype):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 2, (6, 3, 2)).astype(NP_DTYPES[dtype])
    t = tl.tensor(a)
    for axis in (0, 1, 2, -1):
        u, inv, cnt = np.unique(a, axis=axis, return_inverse=True, return_counts=True)
        out, tinv, tcnt = tl.unique(t, dim=axis, return_inverse=True, return_counts=True)
        assert_close(out, u)
        assert_close(tinv, inv.reshape(-1))
        assert_close(tcnt, cnt)
    assert_close(tl.unique(noncontiguous(t), dim=0), np.unique(a, axis=0))


def ref_unique_consecutive(a):
    a = a.ravel()
    if a.size == 0:
        return a, np.zeros(0, np.int64), np.zeros(0, np.int64)
    new = np.ones(a.size, bool)
    new[1:] = a[1:] != a[:-1]
    groups = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, a.size))
    return a[starts], groups, counts


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_unique_consecutive(dtype):
    rng = np.random.default_rng(5)
    for shape in [(0,), (9,), (3, 4)]:
        a = random_array(shape, dtype, rng, low=0, high=2)
        t = to_tensor(a, dtype)
        u, inv, cnt = ref_unique_consecutive(a)
        assert_close(tl.unique_consecutive(t), u, dtype=dtype)
        out, tinv, tcnt = tl.unique_consecutive(t, return_inverse=True, return_counts=True)
        assert_close(tinv, inv.reshape(a.shape))
        assert_close(tcnt, cnt)


def test_unique_consecutive_dim():
    a = np.array([[1, 1, 2, 2, 1], [3, 3, 4, 4, 3]])
    out, inv, cnt = tl.unique_consecutive(tl.tensor(a), dim=1, return_inverse=True,
                                          return_counts=True)
    assert out.tolist() == [[1, 2, 1], [3, 4, 3]]
    assert inv.tolist() == [0, 0, 1, 1, 2] and cnt.tolist() == [2, 2, 1]


def test_unique_errors():
    with pytest.raises(NotImplementedError):
        tl.unique(tl.tensor([1j, 2j]))
    with pytest.raises(IndexError):
        tl.unique(tl.tensor([[1, 2]]), dim=2)


# ---- searchsorted / bucketize --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float16", "float32",
                                   "float64"])
def test_searchsorted_matches_numpy(dtype):
    rng = np.random.default_rng(6)
    seq = np.sort(random_array((12,), dtype, rng))
    vals = random_array((3, 5), dtype, rng)
    vals[0, :3] = seq[[0, 5, 11]]  # exact hits: side matters
    ts, tv = to_tensor(seq, dtype), to_tensor(vals, dtype)
    for side in ("left", "right"):
        want = np.searchsorted(seq, vals, side=side)
        assert_close(tl.searchsorted(ts, tv, side=side), want)
        assert_close(tl.searchsorted(ts, tv, right=side == "right"), want)
        got = tl.searchsorted(ts, tv, side=side, out_int32=True)
        assert_close(got, want.astype(np.int32))


def test_searchsorted_nd_sorter_scalar_nan():
    rng = np.random.default_rng(7)
    seq = np.sort(rng.standard_normal((2, 3, 10)), axis=-1)
    vals = rng.standard_normal((2, 3, 4))
    got = tl.searchsorted(tl.tensor(seq), tl.tensor(vals), right=True)
    want = np.stack([np.stack([np.searchsorted(seq[i, j], vals[i, j], side="right")
                               for j in range(3)]) for i in range(2)])
    assert_close(got, want)
    # sorter: an unsorted sequence and its argsort
    raw = rng.standard_normal(10)
    order = np.argsort(raw)
    v = rng.standard_normal(6)
    got = tl.searchsorted(tl.tensor(raw), tl.tensor(v), sorter=tl.tensor(order))
    assert_close(got, np.searchsorted(raw, v, sorter=order))
    # a Python scalar gives a 0-d result
    r = tl.searchsorted(tl.tensor([1.0, 2.0, 3.0]), 2.0)
    assert r.ndim == 0 and r.item() == 1
    assert tl.searchsorted(tl.tensor([1, 2, 3]), 2, right=True).item() == 2
    # NaN is the largest value, as in NumPy
    s = np.array([1.0, 2.0, np.nan])
    q = np.array([np.nan, 5.0, 0.0])
    assert_close(tl.searchsorted(tl.tensor(s), tl.tensor(q)), np.searchsorted(s, q))
    # non-contiguous values
    vv = rng.standard_normal((3, 4)).astype(np.float32)
    ss = np.sort(rng.standard_normal(9)).astype(np.float32)
    assert_close(tl.searchsorted(tl.tensor(ss), noncontiguous(tl.tensor(vv))),
                 np.searchsorted(ss, vv))
    # mixed dtypes compare in the promoted dtype
    assert_close(tl.searchsorted(tl.tensor([1, 2, 3]), tl.tensor([1.5, 2.5])),
                 np.array([1, 2]))


def test_searchsorted_errors():
    s = tl.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="side"):
        tl.searchsorted(s, s, side="middle")
    with pytest.raises(RuntimeError, match="opposites"):
        tl.searchsorted(s, s, side="left", right=True)
    with pytest.raises(RuntimeError, match="first N-1"):
        tl.searchsorted(tl.zeros(2, 3), tl.zeros(3, 3))
    with pytest.raises(RuntimeError, match="scalar"):
        tl.searchsorted(tl.zeros(2, 3), 1.0)
    with pytest.raises(RuntimeError, match="out of range"):
        tl.searchsorted(s, s, sorter=tl.tensor([0, 1, 5]))
    with pytest.raises(RuntimeError, match="same size"):
        tl.searchsorted(s, s, sorter=tl.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="1 or more"):
        tl.searchsorted(tl.tensor(1.0), s)


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_matches_digitize(right):
    rng = np.random.default_rng(8)
    bounds = np.sort(rng.integers(-10, 10, 6)).astype(np.float32)
    x = rng.integers(-12, 12, (4, 5)).astype(np.float32)
    got = tl.bucketize(tl.tensor(x), tl.tensor(bounds), right=right)
    # bucketize(right=False) puts x in (b[i-1], b[i]]: NumPy's digitize(right=True)
    assert_close(got, np.digitize(x, bounds, right=not right).astype(np.int64))
    assert tl.bucketize(3, tl.tensor([1, 3, 5])).item() == 1
    assert tl.bucketize(tl.tensor(x), tl.tensor(bounds), out_int32=True).dtype == tl.int32
    with pytest.raises(RuntimeError, match="1 dimension"):
        tl.bucketize(tl.tensor(x), tl.zeros(2, 2))


# ---- bincount / histc ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_matches_numpy(dtype):
    rng = np.random.default_rng(9)
    x = rng.integers(0, 7, 30).astype(dtype)
    t = tl.tensor(x)
    assert_close(tl.bincount(t), np.bincount(x))
    assert_close(t.bincount(minlength=10), np.bincount(x, minlength=10))
    w32 = rng.standard_normal(30).astype(np.float32)
    assert_close(tl.bincount(t, tl.tensor(w32)), np.bincount(x, w32).astype(np.float32))
    w64 = rng.standard_normal(30)
    assert_close(tl.bincount(t, weights=tl.tensor(w64)), np.bincount(x, w64))
    wi = rng.integers(0, 5, 30)
    assert_close(tl.bincount(t, tl.tensor(wi)), np.bincount(x, wi).astype(np.float64))
    assert_close(tl.bincount(noncontiguous(t)), np.bincount(x))


def test_bincount_empty_and_errors():
    assert_close(tl.bincount(tl.tensor(np.zeros(0, np.int64))), np.zeros(0, np.int64))
    assert_close(tl.bincount(tl.tensor(np.zeros(0, np.int64)), minlength=3), np.zeros(3, np.int64))
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.bincount(tl.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="1-d"):
        tl.bincount(tl.tensor([[1, 2]]))
    with pytest.raises(RuntimeError, match="integral"):
        tl.bincount(tl.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="minlength"):
        tl.bincount(tl.tensor([1, 2]), minlength=-1)
    with pytest.raises(RuntimeError, match="same length"):
        tl.bincount(tl.tensor([1, 2]), tl.tensor([1.0]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_matches_histogram(dtype):
    rng = np.random.default_rng(10)
    x = rng.standard_normal(200).astype(dtype)
    t = tl.tensor(x)
    h, _ = np.histogram(x, bins=10, range=(-1.5, 1.5))
    assert_close(tl.histc(t, bins=10, min=-1.5, max=1.5), h.astype(dtype))
    h, _ = np.histogram(x, bins=7)  # min == max == 0: the data's range, max in the last bin
    assert_close(t.histc(7), h.astype(dtype))
    assert_close(tl.histc(noncontiguous(t.reshape(20, 10)), 5, -1, 1),
                 np.histogram(x, 5, (-1, 1))[0].astype(dtype))


def test_histc_edges_and_errors():
    assert tl.histc(tl.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    assert tl.histc(tl.tensor([2.0, 2.0]), bins=2).tolist() == [0, 2]  # range [1, 3]
    assert tl.histc(tl.tensor([1.0, np.nan, 5.0]), bins=2, min=0, max=2).tolist() == [0, 1]
    assert tl.histc(tl.zeros(0), bins=3).tolist() == [0, 0, 0]
    with pytest.raises(RuntimeError, match="bins"):
        tl.histc(tl.tensor([1.0]), bins=0)
    with pytest.raises(RuntimeError, match="max must be larger"):
        tl.histc(tl.tensor([1.0]), bins=2, min=3, max=1)
    with pytest.raises(RuntimeError, match="not finite"):
        tl.histc(tl.tensor([1.0, np.inf]), bins=2)
    with pytest.raises(NotImplementedError):
        tl.histc(tl.tensor([1, 2]))
