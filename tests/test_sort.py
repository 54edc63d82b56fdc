"""Sorting and selection against NumPy: sort, argsort, msort, topk, kthvalue,
median, nanmedian, quantile, nanquantile, mode.

Semantics are PyTorch's: NaN sorts as the largest value, sorts are stable
(ties keep input order, descending too), median is the LOWER median, and
(values, indices) results are named tuples of torchlike.return_types."""
import numpy as np
import pytest

import torchlike as tl
from oracle import NP_DTYPES, SHAPES, assert_close, noncontiguous, random_array, to_tensor

REAL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
               "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def np_of(t):
    """A tensor's values as an ndarray (bfloat16 widened to float32)."""
    return t.float().cpu().numpy() if t.dtype == tl.bfloat16 else t.cpu().numpy()


def stable_argsort(a, axis=-1, descending=False):
    """NumPy's stable argsort; descending keeps ties (and NaNs) in input order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.flip(a, axis=axis)
    return n - 1 - np.flip(np.argsort(rev, axis=axis, kind="stable"), axis=axis)


def with_nans(a, rng, frac=0.2):
    a = a.copy()
    a[rng.random(a.shape) < frac] = np.nan
    return a


def dup_values(shape, dtype, rng):
    """Few distinct values, so ties are everywhere."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.integers(-3, 4 if dtype != "uint8" else 4, size=shape).clip(
        0 if dtype == "uint8" else -3).astype(NP_DTYPES[dtype])


# ---- sort / argsort / msort -------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_stable_numpy(dtype, descending):
    rng = np.random.default_rng(1)
    for shape in SHAPES:
        a = dup_values(shape, dtype, rng) if rng.random() < 0.5 else random_array(shape, dtype, rng)
        t = to_tensor(a, dtype)
        for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
            values, indices = tl.sort(t, dim=dim, descending=descending)
            if a.ndim == 0:
                assert_close(values, a, dtype=dtype)
                assert_close(indices, np.array(0))
                continue
            want = stable_argsort(a, axis=dim, descending=descending)
            assert_close(indices, want)
            assert_close(values, np.take_along_axis(a, want, axis=dim), dtype=dtype)
            assert_close(tl.argsort(t, dim, descending), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_nan_last_ascending_first_descending(dtype):
    rng = np.random.default_rng(2)
    a = random_array((4, 33), dtype, rng)
    a = with_nans(a, rng, 0.3).astype(NP_DTYPES[dtype])
    a[0, :3] = [-0.0, 0.0, -0.0]
    t = to_tensor(a, dtype)
    for desc in (False, True):
        v, i = t.sort(descending=desc)
        want = stable_argsort(a, descending=desc)
        assert_close(i, want)
        got = np_of(v)
        ref = np.take_along_axis(a, want, axis=-1)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        # -0.0 and 0.0 compare equal: input order kept, signs preserved
        np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))


def test_sort_stable_with_many_ties_and_descending():
    a = np.array([2, 1, 2, 1, 2, 0, 0, 2], dtype=np.int64)
    v, i = tl.sort(tl.tensor(a), stable=True)
    assert i.tolist() == [5, 6, 1, 3, 0, 2, 4, 7]
    v, i = tl.sort(tl.tensor(a), descending=True, stable=True)
    assert i.tolist() == [0, 2, 4, 7, 1, 3, 5, 6]
    assert v.tolist() == [2, 2, 2, 2, 1, 1, 0, 0]


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64", "int16", "uint8"])
@pytest.mark.parametrize("n", [70_000, 300_000])
def test_sort_long_lanes(dtype, n):
    """Long lanes take the MSD and the thread-pool paths."""
    rng = np.random.default_rng(n)
    if dtype.startswith("float"):
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        a[rng.random(n) < 0.01] = np.nan
        a[rng.random(n) < 0.01] = 0.0
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    t = tl.tensor(a)
    for threads in (1, 2):
        old = tl.get_num_threads()
        tl.set_num_threads(threads)
        try:
            for desc in (False, True):
                v, i = tl.sort(t, descending=desc)
                want = stable_argsort(a, descending=desc)
                np.testing.assert_array_equal(i.cpu().numpy(), want)
                np.testing.assert_array_equal(v.cpu().numpy(), a[want])
        finally:
            tl.set_num_threads(old)


def test_sort_long_lanes_2d_along_each_dim():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 150_000)).astype(np.float32)
    v, i = tl.sort(tl.tensor(a), dim=1)
    np.testing.assert_array_equal(i.cpu().numpy(), np.argsort(a, axis=1, kind="stable"))
    b = np.ascontiguousarray(a.T)
    v, i = tl.sort(tl.tensor(b), dim=0, descending=True)
    np.testing.assert_array_equal(i.cpu().numpy(), stable_argsort(b, axis=0, descending=True))
    np.testing.assert_array_equal(v.cpu().numpy(), np.take_along_axis(b, i.cpu().numpy(), 0))


def test_sort_noncontiguous_inputs():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 6, 7)).astype(np.float32)
    t = noncontiguous(tl.tensor(a))
    for dim in range(3):
        v, i = tl.sort(t, dim)
        want = np.argsort(a, axis=dim, kind="stable")
        assert_close(i, want)
        assert_close(v, np.take_along_axis(a, want, axis=dim))
    tt = tl.tensor(a).transpose(0, 2)
    v, i = tt.sort(dim=1, descending=True)
    at = a.transpose(2, 1, 0)
    want = stable_argsort(at, axis=1, descending=True)
    assert_close(i, want)
    assert_close(v, np.take_along_axis(at, want, axis=1))


def test_sort_empty_and_scalar():
    for shape in [(0,), (2, 0, 3), (3, 0)]:
        t = tl.zeros(*shape)
        for dim in range(len(shape)):
            v, i = tl.sort(t, dim)
            assert tuple(v.shape) == shape and tuple(i.shape) == shape
            assert i.dtype == tl.int64
    v, i = tl.sort(tl.tensor(3.5))
    assert v.ndim == 0 and v.item() == 3.5 and i.item() == 0
    v, i = tl.sort(tl.tensor(3.5), dim=-1, descending=True)
    assert v.item() == 3.5


def test_sort_returns_named_tuple():
    r = tl.sort(tl.tensor([3, 1, 2]))
    assert isinstance(r, tuple) and isinstance(r, tl.return_types.sort)
    assert r.values.tolist() == [1, 2, 3] and r.indices.tolist() == [1, 2, 0]
    values, indices = r
    assert values.tolist() == [1, 2, 3]
    assert repr(r).startswith("torchlike.return_types.sort(\nvalues=")  # PyTorch's layout


def test_msort_sorts_dim0():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 4))
    assert_close(tl.msort(tl.tensor(a)), np.sort(a, axis=0))
    assert_close(tl.tensor(a).msort(), np.sort(a, axis=0))


def test_sort_errors():
    t = tl.tensor([[1.0, 2.0]])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.sort(t, dim=2)
    with pytest.raises(IndexError):
        tl.argsort(t, dim=-3)
    with pytest.raises(NotImplementedError, match="complex"):
        tl.sort(tl.tensor([1 + 2j, 3j]))
    with pytest.raises(TypeError, match="Tensor"):
        tl.sort([3, 1, 2])
    with pytest.raises(TypeError, match="unexpected keyword"):
        tl.sort(t, axes=0)
    assert tl.sort(t, axis=0).values.tolist() == tl.sort(t, dim=0).values.tolist()


# ---- topk / kthvalue --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_topk_values_and_indices(dtype):
    rng = np.random.default_rng(6)
    a = random_array((4, 9), dtype, rng)
    t = to_tensor(a, dtype)
    for largest in (True, False):
        for k in (0, 1, 4, 9):
            for dim in (0, 1, -1):
                if k > a.shape[dim]:
                    continue
                v, i = tl.topk(t, k, dim=dim, largest=largest)
                want = stable_argsort(a, axis=dim, descending=largest)
                want = np.take(want, np.arange(k), axis=dim)
                assert_close(v, np.take_along_axis(a, want, axis=dim), dtype=dtype)
                # any index of an equal value is fine; check it points at the value
                np.testing.assert_array_equal(np.take_along_axis(a, i.cpu().numpy(), axis=dim)
                                              .astype(np.float64),
                                              np_of(v).astype(np.float64))


def test_topk_nan_is_largest_and_long_lane():
    a = np.array([1.0, np.nan, 3.0, 2.0], dtype=np.float32)
    v, i = tl.topk(tl.tensor(a), 2)
    assert np.isnan(v[0].item()) and v[1].item() == 3.0 and i.tolist() == [1, 2]
    v, i = tl.topk(tl.tensor(a), 2, largest=False)
    assert v.tolist() == [1.0, 2.0] and i.tolist() == [0, 3]
    rng = np.random.default_rng(7)
    b = rng.standard_normal(500_000).astype(np.float32)
    v, i = tl.topk(tl.tensor(b), 10)
    np.testing.assert_array_equal(v.cpu().numpy(), np.sort(b)[::-1][:10])
    np.testing.assert_array_equal(b[i.cpu().numpy()], v.cpu().numpy())
    v, i = tl.tensor(b).topk(5, largest=False)
    np.testing.assert_array_equal(v.cpu().numpy(), np.sort(b)[:5])


def test_topk_errors_name_k_and_size():
    t = tl.tensor([[1.0, 2.0, 3.0]])
    with pytest.raises(RuntimeError, match=r"k.*5.*size 3"):
        tl.topk(t, 5)
    with pytest.raises(RuntimeError, match=r"-1"):
        tl.topk(t, -1)
    with pytest.raises(IndexError):
        tl.topk(t, 1, dim=2)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_kthvalue_matches_partition(dtype):
    rng = np.random.default_rng(8)
    a = random_array((5, 7), dtype, rng)
    t = to_tensor(a, dtype)
    for dim in (0, 1):
        n = a.shape[dim]
        for k in (1, (n + 1) // 2, n):
            for keepdim in (False, True):
                v, i = tl.kthvalue(t, k, dim, keepdim)
                ref = np.take(np.partition(a, k - 1, axis=dim), [k - 1], axis=dim)
                if not keepdim:
                    ref = ref.squeeze(dim)
                assert_close(v, ref, dtype=dtype)
                got = np.take_along_axis(a, i.cpu().numpy() if keepdim else np.expand_dims(i.cpu().numpy(), dim),
                                         axis=dim)
                np.testing.assert_array_equal(got.astype(np.float64).reshape(ref.shape),
                                              ref.astype(np.float64))


def test_kthvalue_nan_and_errors():
    a = np.array([3.0, np.nan, 1.0, 2.0])
    v, i = tl.kthvalue(tl.tensor(a), 4)
    assert np.isnan(v.item()) and i.item() == 1
    v, i = tl.tensor(a).kthvalue(1)
    assert v.item() == 1.0 and i.item() == 2
    with pytest.raises(RuntimeError, match=r"k is 5.*size 4"):
        tl.kthvalue(tl.tensor(a), 5)
    with pytest.raises(RuntimeError, match=r"k is 0"):
        tl.kthvalue(tl.tensor(a), 0)
    v, i = tl.kthvalue(tl.tensor(2.0), 1)
    assert v.item() == 2.0 and i.item() == 0 and v.ndim == 0


# ---- median / nanmedian -------------------------------------------------------------------

def lower_median(a, axis):
    s = np.sort(a, axis=axis)
    n = a.shape[axis]
    return np.take(s, (n - 1) // 2, axis=axis)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_median_is_the_lower_median(dtype):
    rng = np.random.default_rng(9)
    for shape in [(6,), (7,), (4, 6), (3, 5, 2)]:
        a = random_array(shape, dtype, rng)
        t = to_tensor(a, dtype)
        assert_close(tl.median(t), lower_median(a.ravel(), 0), dtype=dtype)
        for dim in range(len(shape)):
            v, i = tl.median(t, dim)
            assert_close(v, lower_median(a, dim), dtype=dtype)
            got = np.take_along_axis(a, np.expand_dims(i.cpu().numpy(), dim), axis=dim).squeeze(dim)
            np.testing.assert_array_equal(got.astype(np.float64), np_of(v).astype(np.float64))
            v2, _ = t.median(dim=dim, keepdim=True)
            assert tuple(v2.shape) == tuple(np.expand_dims(lower_median(a, dim), dim).shape)


def test_median_even_count_is_not_the_mean():
    assert tl.median(tl.tensor([1.0, 2.0, 3.0, 4.0])).item() == 2.0
    assert tl.tensor([4, 1, 3, 2]).median().item() == 2


def test_median_nan_propagates_nanmedian_skips():
    a = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, np.nan, np.nan, np.nan],
                  [5.0, 4.0, 6.0, 7.0]])
    t = tl.tensor(a)
    v, i = tl.median(t, 1)
    assert np.isnan(v[0].item()) and i[0].item() == 1
    assert np.isnan(v[1].item()) and i[1].item() == 0
    assert v[2].item() == 5.0 and i[2].item() == 0
    v, i = tl.nanmedian(t, 1)
    assert v[0].item() == 2.0 and i[0].item() == 3
    assert np.isnan(v[1].item())
    assert v[2].item() == 5.0
    assert np.isnan(tl.median(t).item())
    valid = a[~np.isnan(a)]
    assert tl.nanmedian(t).item() == lower_median(valid, 0)
    assert tl.nanmedian(tl.tensor([np.nan, np.nan])).item() != tl.nanmedian(
        tl.tensor([np.nan, np.nan])).item()  # NaN


def test_median_empty_and_errors():
    assert np.isnan(tl.median(tl.zeros(0)).item())
    with pytest.raises(IndexError, match="non-zero size"):
        tl.median(tl.zeros(2, 0), 1)
    with pytest.raises(IndexError):
        tl.median(tl.zeros(2, 3), 2)
    v, i = tl.median(tl.zeros(0, 3), 1)
    assert tuple(v.shape) == (0,)


# ---- quantile / nanquantile ---------------------------------------------------------------

METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", METHODS)
def test_quantile_matches_numpy(dtype, method):
    rng = np.random.default_rng(10)
    a = rng.standard_normal((4, 7)).astype(dtype)
    t = tl.tensor(a)
    qs = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], dtype=dtype)
    for q in (0.5, 0.3):
        assert_close(tl.quantile(t, q, interpolation=method),
                     np.quantile(a, q, method=method).astype(dtype))
    assert_close(tl.quantile(t, tl.tensor(qs), interpolation=method),
                 np.quantile(a, qs, method=method).astype(dtype))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            assert_close(tl.quantile(t, tl.tensor(qs), dim=dim, keepdim=keepdim, interpolation=method),
                         np.quantile(a, qs, axis=dim, keepdims=keepdim, method=method).astype(dtype))
            assert_close(t.quantile(0.75, dim, keepdim, interpolation=method),
                         np.quantile(a, 0.75, axis=dim, keepdims=keepdim, method=method).astype(dtype))
    assert_close(tl.quantile(t, 0.5, keepdim=True), np.quantile(a, 0.5, keepdims=True).astype(dtype))


@pytest.mark.parametrize("method", METHODS)
def test_nanquantile_matches_numpy(method):
    rng = np.random.default_rng(11)
    a = with_nans(rng.standard_normal((5, 8)), rng, 0.3)
    a[2] = np.nan
    t = tl.tensor(a)
    qs = np.array([0.2, 0.5, 0.8])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanquantile(a, qs, axis=1, method=method)
    assert_close(tl.nanquantile(t, tl.tensor(qs), dim=1, interpolation=method), want)
    # quantile propagates NaN per lane
    got = tl.quantile(t, 0.5, dim=1).cpu().numpy()
    has_nan = np.isnan(a).any(axis=1)
    assert np.isnan(got[has_nan]).all()
    np.testing.assert_allclose(got[~has_nan], np.quantile(a[~has_nan], 0.5, axis=1))


def test_quantile_errors():
    t = tl.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="range"):
        tl.quantile(t, 1.5)
    with pytest.raises(RuntimeError, match="float or double"):
        tl.quantile(tl.tensor([1, 2, 3]), 0.5)
    with pytest.raises(RuntimeError, match="same dtype"):
        tl.quantile(t, tl.tensor([0.5], dtype=tl.float64))
    with pytest.raises(RuntimeError, match="interpolation"):
        tl.quantile(t, 0.5, interpolation="cubic")
    with pytest.raises(IndexError):
        tl.quantile(t, 0.5, dim=1)
    assert np.isnan(tl.quantile(tl.zeros(0), 0.5).item())


# ---- mode ----------------------------------------------------------------------------------

def np_mode(a, axis):
    a = np.moveaxis(a, axis, -1)
    vals = np.empty(a.shape[:-1], a.dtype)
    for idx in np.ndindex(*a.shape[:-1]):
        u, c = np.unique(a[idx], return_counts=True)
        vals[idx] = u[np.argmax(c)]  # first (smallest) of the most frequent
    return vals


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_mode_matches_reference(dtype):
    rng = np.random.default_rng(12)
    a = dup_values((4, 9), dtype, rng)
    t = tl.tensor(a)
    for dim in (0, 1):
        v, i = tl.mode(t, dim)
        assert_close(v, np_mode(a, dim))
        got = np.take_along_axis(a, np.expand_dims(i.cpu().numpy(), dim), axis=dim).squeeze(dim)
        np.testing.assert_array_equal(got, v.cpu().numpy())
    v, i = t.mode(keepdim=True)
    assert tuple(v.shape) == (4, 1)


def test_mode_index_is_last_occurrence():
    v, i = tl.mode(tl.tensor([1, 2, 2, 3, 3, 1, 1]))
    assert v.item() == 1 and i.item() == 6
    v, i = tl.mode(tl.tensor([5, 4]))  # a tie: the smaller value
    assert v.item() == 4 and i.item() == 1
    assert isinstance(tl.mode(tl.tensor([1])), tl.return_types.mode)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_selection_on_long_lanes(dtype):
    """Long lanes select through the thread-pool path (only the needed buckets sorted)."""
    rng = np.random.default_rng(13)
    n = 300_001
    a = (rng.standard_normal(n) * 1000).astype(dtype)
    t = tl.tensor(a)
    s = np.sort(a)
    assert tl.median(t).item() == s[(n - 1) // 2]
    v, i = tl.kthvalue(t, 12345)
    assert v.item() == s[12344] and a[i.item()] == s[12344]
    v, i = tl.topk(t, 7, largest=False)
    np.testing.assert_array_equal(v.cpu().numpy(), s[:7])
    if dtype.startswith("float"):
        q = np.array([0.1, 0.5, 0.99], dtype)  # PyTorch's q is in the input's dtype
        for method in METHODS:
            np.testing.assert_allclose(tl.quantile(t, tl.tensor(q), interpolation=method).cpu().numpy(),
                                       np.quantile(a, q.astype(np.float64), method=method),
                                       rtol=1e-5)
        b = a.copy()
        b[::7] = np.nan
        assert np.isnan(tl.median(tl.tensor(b)).item())
        assert tl.nanmedian(tl.tensor(b)).item() == np.sort(b[~np.isnan(b)])[
            (np.count_nonzero(~np.isnan(b)) - 1) // 2]


# ---- random shapes, layouts and values (hypothesis) ------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402


@st.composite
def sort_cases(draw):
    dtype = draw(st.sampled_from(REAL_DTYPES))
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim)))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    a = dup_values(shape, dtype, rng) if draw(st.booleans()) else random_array(shape, dtype, rng)
    if dtype in ("float32", "float64", "float16") and a.size and draw(st.booleans()):
        a = with_nans(a, rng).astype(a.dtype)
    dim = draw(st.integers(-ndim, ndim - 1))
    layout = draw(st.sampled_from(["contiguous", "transposed", "strided"]))
    return dtype, a, dim, layout, draw(st.booleans())


@given(sort_cases())
def test_sort_random_layouts(case):
    dtype, a, dim, layout, descending = case
    t = to_tensor(a, dtype)
    if layout == "transposed" and a.ndim >= 2:
        t = to_tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1)), dtype).transpose(0, -1)
    elif layout == "strided":
        t = noncontiguous(t)
    v, i = t.sort(dim, descending=descending)
    want = stable_argsort(a, axis=dim, descending=descending)
    assert_close(i, want)
    assert_close(v, np.take_along_axis(a, want, axis=dim), dtype=dtype)
    if a.shape[dim] > 0:
        k = a.shape[dim] // 2 + 1
        kv, ki = tl.kthvalue(t, k, dim)
        ref = np.take(np.take_along_axis(a, stable_argsort(a, axis=dim), axis=dim), k - 1, axis=dim)
        assert_close(kv, ref, dtype=dtype)
        tv, ti = tl.topk(t, k, dim, largest=not descending)
        assert_close(tv, np.take(np.take_along_axis(a, stable_argsort(a, dim, not descending), dim),
                                 np.arange(k), axis=dim), dtype=dtype)


def test_return_types_pickle_and_module():
    import pickle
    import torchlike.return_types as rt
    assert rt.topk is tl.return_types.topk
    # (tensors pickle through their own __reduce__; the named tuple by its name)
    back = pickle.loads(pickle.dumps(tl.return_types.topk((1, 2))))
    assert isinstance(back, tl.return_types.topk) and back.values == 1 and back.indices == 2


@pytest.mark.parametrize("dtype", ["float32", "int64", "int16", "float64"])
def test_selection_on_mid_lanes_takes_the_msd_select(dtype):
    """Lanes of a few thousand with a narrow wanted range use the radix select."""
    rng = np.random.default_rng(14)
    a = (rng.standard_normal((3, 5000)) * 100).astype(dtype)
    if dtype.startswith("float"):
        a[0, ::5] = np.nan
        a[1, ::3] = 0.5
    t = tl.tensor(a)
    s = np.sort(a, axis=1)
    for k in (1, 7, 2500, 4999):
        v, i = tl.kthvalue(t, k, 1)
        np.testing.assert_array_equal(v.cpu().numpy(), s[:, k - 1])
        np.testing.assert_array_equal(np.take_along_axis(a, i.cpu().numpy()[:, None], 1)[:, 0], v.cpu().numpy())
    v, i = tl.topk(t, 5, 1)
    np.testing.assert_array_equal(v.cpu().numpy(), s[:, ::-1][:, :5] if dtype.startswith("int")
                                  else np.take_along_axis(a, stable_argsort(a, 1, True), 1)[:, :5])
    v, _ = tl.median(t, 1)
    np.testing.assert_array_equal(np.isnan(v.cpu().numpy()), np.isnan(a).any(axis=1))
    ok = ~np.isnan(a).any(axis=1)
    np.testing.assert_array_equal(v.cpu().numpy()[ok], s[ok, (5000 - 1) // 2])


def test_out_arguments():
    x = tl.tensor([3.0, 1.0, 2.0])
    v, i = tl.empty(3), tl.empty(3, dtype=tl.int64)
    r = tl.sort(x, descending=True, out=(v, i))
    assert isinstance(r, tl.return_types.sort) and r.values is v and r.indices is i
    assert v.tolist() == [3.0, 2.0, 1.0] and i.tolist() == [0, 2, 1]
    o = tl.empty(3)
    assert tl.msort(x, out=o) is o and o.tolist() == [1.0, 2.0, 3.0]
    q = tl.empty(())
    assert tl.quantile(x, 0.5, out=q) is q and q.item() == 2.0
    kv, ki = tl.empty(()), tl.empty((), dtype=tl.int64)
    assert tl.kthvalue(x, 1, out=(kv, ki)).values is kv and kv.item() == 1.0 and ki.item() == 1
    with pytest.raises(RuntimeError, match=r"shape \[2\].*\[3\]"):
        tl.sort(x, out=(tl.empty(2), i))
    with pytest.raises(RuntimeError, match="dtype"):
        tl.sort(x, out=(v, tl.empty(3)))
    with pytest.raises(TypeError, match="tuple of 2"):
        tl.sort(x, out=v)
