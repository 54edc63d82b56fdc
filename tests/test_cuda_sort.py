"""The sort family on a device against NumPy and the CPU: sort, argsort,
msort, topk, kthvalue, median, nanmedian, quantile, nanquantile, mode,
cummax, cummin, unique, unique_consecutive, searchsorted, bucketize,
bincount, histc.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves, "cuda" runs where a GPU is (skipped with
"requires a CUDA device" elsewhere), "emulated" runs the op layer's device
paths on the fake device given the CPU's sort kernels (_C._fake_emulate_device,
in a process of its own).  Semantics are PyTorch's: sorts are stable (ties,
NaNs and zeros keep input order, descending too), NaN is the largest value,
median is the lower median."""

import numpy as np
import pytest

import torchlike as tl
from oracle import (NP_DTYPES, assert_close, cuda_test_devices, random_array, run_emulated,
                    to_tensor)
from test_search import ref_cum  # PyTorch's cummax rule, written out
from test_sort import stable_argsort  # NumPy's stable order, descending too

DEVICES, EMULATED = cuda_test_devices()

REAL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
               "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def np_of(t):
    t = back(t)
    return t.float().numpy() if t.dtype == tl.bfloat16 else t.numpy()


def sample(shape, dtype, rng):
    """Few distinct values (ties everywhere), and for floats NaN, +-inf, -0.0."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    a = rng.integers(0 if dtype == "uint8" else -3, 4, size=shape).astype(NP_DTYPES[dtype])
    if dtype in FLOATS and a.size:
        flat = a.reshape(-1)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5], NP_DTYPES[dtype])
        pick = rng.random(flat.size) < 0.3
        flat[pick] = rng.choice(specials, size=int(pick.sum()))
        a = flat.reshape(shape)
    return a


def device_tensor(a, dtype, device):
    return on(device, to_tensor(a, dtype))


def same_bits_or_nan(got, want):
    """Values equal, NaNs where NaNs, and -0.0 kept where the input had it."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


SHAPES = [(), (0,), (1,), (9,), (4, 7), (3, 0, 2), (2, 3, 5)]


# ---- sort, argsort, msort ---------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_sort_argsort_msort(device, dtype):
    rng = np.random.default_rng(1)
    for shape in SHAPES:
        a = sample(shape, dtype, rng)
        t = device_tensor(a, dtype, device)
        for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
            for desc in (False, True):
                values, indices = tl.sort(t, dim=dim, descending=desc, stable=True)
                assert values.device == t.device and indices.dtype == tl.int64
                if a.ndim == 0:
                    same_bits_or_nan(np_of(values), a)
                    assert back(indices).item() == 0
                    continue
                order = stable_argsort(a, axis=dim, descending=desc)
                assert_close(back(indices), order)
                same_bits_or_nan(np_of(values), np.take_along_axis(a, order, dim))
                assert_close(back(tl.argsort(t, dim=dim, descending=desc)), order)
        if a.ndim:
            same_bits_or_nan(np_of(tl.msort(t)), np.take_along_axis(a, stable_argsort(a, 0), 0))


@pytest.mark.parametrize("device", DEVICES)
def test_sort_non_contiguous_and_lane_shapes(device):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 8, 10)).astype(np.float32)
    x[rng.random(x.shape) < 0.1] = np.nan
    t = on(device, tl.tensor(x))
    for view, ref in [(t.transpose(0, 2), np.swapaxes(x, 0, 2)), (t[:, ::2, 1:], x[:, ::2, 1:]),
                      (t.flip(1), x[:, ::-1]), (t[1].expand(3, 8, 10), np.broadcast_to(x[1], (3, 8, 10)))]:
        for dim in (0, 1, 2):
            for desc in (False, True):
                v, i = tl.sort(view, dim=dim, descending=desc)
                order = stable_argsort(ref, dim, desc)
                assert_close(back(i), order)
                same_bits_or_nan(np_of(v), np.take_along_axis(ref, order, dim))
    # many small lanes, a few long ones (the device-wide sort), one very long lane
    for shape, dtype in [((5000, 7), "int16"), ((3, 70000), "float32"), ((200001,), "float64"),
                         ((2, 66000), "int64"), ((300, 300), "bfloat16"), ((1, 90000), "uint8")]:
        a = sample(shape, dtype, rng) if dtype != "float64" else rng.standard_normal(shape)
        t = device_tensor(a, dtype, device)
        for desc in (False, True):
            v, i = tl.sort(t, descending=desc)
            order = stable_argsort(a, -1, desc)
            assert_close(back(i), order)
            same_bits_or_nan(np_of(v), np.take_along_axis(a, order, -1))


# ---- topk, kthvalue ---------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_topk_and_kthvalue(device, dtype):
    rng = np.random.default_rng(3)
    a = sample((5, 11), dtype, rng)
    t = device_tensor(a, dtype, device)
    for dim in (0, 1, -1):
        n = a.shape[dim]
        for k in (0, 1, 3, n):
            for largest in (True, False):
                v, i = tl.topk(t, k, dim=dim, largest=largest)
                order = np.take(stable_argsort(a, dim, largest), np.arange(k), axis=dim)
                assert_close(back(i), order)
                same_bits_or_nan(np_of(v), np.take_along_axis(a, order, dim))
        for k in (1, n // 2 + 1, n):
            for keepdim in (False, True):
                v, i = tl.kthvalue(t, k, dim=dim, keepdim=keepdim)
                pos = np.take(stable_argsort(a, dim), [k - 1], axis=dim)
                want_v = np.take_along_axis(a, pos, dim)
                if not keepdim:
                    pos, want_v = pos.squeeze(dim), want_v.squeeze(dim)
                assert_close(back(i), pos)
                same_bits_or_nan(np_of(v), want_v)
    s = device_tensor(np.array(2.5, np.float32), "float32", device)  # 0-d
    assert back(tl.topk(s, 1).values).item() == 2.5
    assert back(tl.kthvalue(s, 1).indices).item() == 0
    with pytest.raises(RuntimeError, match="out of range"):
        tl.topk(t, 12, dim=1)
    with pytest.raises(RuntimeError, match="out of range"):
        tl.kthvalue(t, 0)


# ---- median, nanmedian, mode ------------------------------------------------------------------

def ref_median(a, axis, ignore_nan):
    """The lower median along axis and the position the stable sort gives it;
    a NaN (median) or an all-NaN lane gives the first NaN's position."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty(a.shape[:-1], a.dtype)
    idx = np.empty(a.shape[:-1], np.int64)
    for lane in np.ndindex(*a.shape[:-1]):
        row = a[lane]
        nan = np.isnan(row) if row.dtype.kind == "f" else np.zeros(row.shape, bool)
        if (nan.any() and not ignore_nan) or nan.all():
            j = int(np.argmax(nan))
        else:
            order = np.argsort(row, kind="stable")
            j = int(order[(len(row) - nan.sum() - 1) // 2])
        vals[lane], idx[lane] = row[j], j
    return vals, idx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_median_nanmedian(device, dtype):
    rng = np.random.default_rng(4)
    a = sample((6, 9), dtype, rng)
    if dtype in FLOATS:
        a[2, :] = np.nan  # an all-NaN lane
    t = device_tensor(a, dtype, device)
    for fn, ignore in ((tl.median, False), (tl.nanmedian, True)):
        for dim in (0, 1):
            v, i = fn(t, dim)
            rv, ri = ref_median(a, dim, ignore)
            assert_close(back(i), ri)
            same_bits_or_nan(np_of(v), rv)
            assert back(fn(t, dim, keepdim=True).values).shape == rv.shape[:dim] + (1,) + rv.shape[dim:]
        rv, _ = ref_median(a.reshape(1, -1), 1, ignore)
        same_bits_or_nan(np_of(fn(t)), rv[0])
    if dtype in FLOATS:
        assert np.isnan(np_of(tl.median(device_tensor(np.zeros(0, np.float32), dtype, device))))
    else:
        with pytest.raises(RuntimeError, match="empty"):
            tl.median(device_tensor(np.zeros(0, NP_DTYPES[dtype]), dtype, device))
    with pytest.raises(IndexError, match="non-zero size"):
        tl.median(device_tensor(np.zeros((2, 0), NP_DTYPES[dtype]), dtype, device), 1)


def ref_mode(a, axis):
    """The most frequent value (the smallest among equally frequent ones; NaNs
    count as one value) and the index of its last occurrence."""
    a = np.moveaxis(a, axis, -1)
    vals = np.empty(a.shape[:-1], a.dtype)
    idx = np.empty(a.shape[:-1], np.int64)
    for lane in np.ndindex(*a.shape[:-1]):
        row = a[lane]
        order = np.argsort(row, kind="stable")
        srt = row[order]
        same = (srt[1:] == srt[:-1]) | (np.isnan(srt[1:]) & np.isnan(srt[:-1])
                                       if row.dtype.kind == "f" else False)
        best, run, end = 0, 1, 0
        for j in range(len(row)):
            if j + 1 < len(row) and same[j]:
                run += 1
                continue
            if run > best:
                best, end = run, j
            run = 1
        vals[lane], idx[lane] = row[order[end]], order[end]
    return vals, idx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_mode(device, dtype):
    rng = np.random.default_rng(5)
    a = sample((4, 15), dtype, rng)
    t = device_tensor(a, dtype, device)
    for dim in (0, 1):
        for keepdim in (False, True):
            v, i = tl.mode(t, dim, keepdim)
            rv, ri = ref_mode(a, dim)
            if keepdim:
                rv, ri = np.expand_dims(rv, dim), np.expand_dims(ri, dim)
            assert_close(back(i), ri)
            same_bits_or_nan(np_of(v), rv)


# ---- quantile, nanquantile ----------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile_nanquantile(device, dtype):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5, 12)).astype(dtype)
    b = a.copy()
    b[rng.random(b.shape) < 0.2] = np.nan
    b[3, :] = np.nan
    qs = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    for x in (a, b):
        t = device_tensor(x, dtype, device)
        cpu = back(t)
        for method in ("linear", "lower", "higher", "midpoint", "nearest"):
            for fn, npfn in ((tl.quantile, np.quantile), (tl.nanquantile, np.nanquantile)):
                for dim, keepdim in ((None, False), (0, False), (1, True), (None, True)):
                    got = fn(t, on(device, tl.tensor(qs, dtype=getattr(tl, dtype))), dim=dim,
                             keepdim=keepdim, interpolation=method)
                    want = fn(cpu, tl.tensor(qs, dtype=getattr(tl, dtype)), dim=dim,
                              keepdim=keepdim, interpolation=method)
                    # both devices run the same arithmetic (ndcore/kernels/tl_quantile.h)
                    assert_close(back(got), want.numpy(), rtol=0, atol=0)
                    # PyTorch's q is a tensor of the input's dtype
                    ref = npfn(x.astype(np.float64), qs.astype(dtype).astype(np.float64), axis=dim,
                               keepdims=keepdim, method=method)
                    assert_close(back(got), ref.astype(dtype), rtol=1e-5, atol=1e-6)
                got = fn(t, 0.3, dim=1, interpolation=method)  # a scalar q: no q dim
                assert_close(back(got), fn(cpu, 0.3, dim=1, interpolation=method).numpy())
    e = device_tensor(np.zeros((3, 0), dtype), dtype, device)
    assert np.isnan(np_of(tl.quantile(e, 0.5, dim=1))).all()
    with pytest.raises(RuntimeError, match="float or double"):
        tl.quantile(device_tensor(np.arange(4), "int64", device), 0.5)
    with pytest.raises(RuntimeError, match="range"):
        tl.quantile(device_tensor(a, dtype, device), 1.5)


# ---- cummax, cummin ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_cummax_cummin(device, dtype):
    rng = np.random.default_rng(7)
    a = sample((4, 9), dtype, rng)
    t = device_tensor(a, dtype, device)
    for view, ref in [(t, a), (t.t(), a.T), (t[:, ::2], a[:, ::2])]:
        for dim in (0, 1):
            for is_min, fn in ((False, tl.cummax), (True, tl.cummin)):
                v, i = fn(view, dim)
                rv, ri = ref_cum(ref, dim, is_min)
                assert_close(back(i), ri)
                same_bits_or_nan(np_of(v), rv)
    s = device_tensor(np.array(3, np.int32), "int32", device)
    assert back(tl.cummax(s, 0).values).item() == 3


# ---- unique, unique_consecutive --------------------------------------------------------------------

def ref_groups(keys_equal, n):
    starts = [0] + [i for i in range(1, n) if not keys_equal(i - 1, i)]
    return starts


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_unique_flat(device, dtype):
    rng = np.random.default_rng(8)
    for shape in [(0,), (), (7,), (3, 8)]:
        a = sample(shape, dtype, rng)
        t = device_tensor(a, dtype, device)
        out, inv, counts = tl.unique(t, return_inverse=True, return_counts=True)
        flat = a.reshape(-1)
        want, winv, wcounts = np.unique(flat, return_inverse=True, return_counts=True,
                                        equal_nan=False)
        np.testing.assert_array_equal(np_of(out), want)  # NaNs each their own group
        assert_close(back(inv), winv.reshape(a.shape))
        assert_close(back(counts), wcounts)
        assert_close(back(tl.unique(t)), want.astype(NP_DTYPES[dtype]), dtype=dtype)
        # consecutive: runs of equal values (NaN equals nothing)
        out, inv, counts = tl.unique_consecutive(t, return_inverse=True, return_counts=True)
        starts = ref_groups(lambda i, j: flat[i] == flat[j], flat.size) if flat.size else []
        np.testing.assert_array_equal(np_of(out), flat[starts])
        assert_close(back(counts), np.diff(starts + [flat.size]))
        assert_close(back(inv), (np.cumsum(np.isin(np.arange(flat.size), starts)) - 1).reshape(a.shape))
    t = on(device, tl.tensor([[3, 1], [2, 1], [3, 1]]))
    assert_close(back(tl.unique(t.t())), np.array([1, 2, 3]))  # non-contiguous


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32"])
def test_unique_dim(device, dtype):
    rng = np.random.default_rng(9)
    a = sample((6, 3), dtype, rng)
    a = np.concatenate([a, a[::2]])  # repeated rows
    if dtype in FLOATS:
        a[a != a] = 1  # NaN rows compare unequal in NumPy's oracle
    t = device_tensor(a, dtype, device)
    for dim in (0, 1):
        out, inv, counts = tl.unique(t, dim=dim, return_inverse=True, return_counts=True)
        want, winv, wcounts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
        np.testing.assert_array_equal(np_of(out), want)
        assert_close(back(inv), winv.reshape(-1))
        assert_close(back(counts), wcounts)
        out, inv, counts = tl.unique_consecutive(t, dim=dim, return_inverse=True, return_counts=True)
        rows = np.moveaxis(a, dim, 0)
        starts = ref_groups(lambda i, j: np.array_equal(rows[i], rows[j]), len(rows))
        np.testing.assert_array_equal(np_of(out), np.take(a, starts, axis=dim))
        assert_close(back(counts), np.diff(starts + [len(rows)]))
    with pytest.raises(RuntimeError, match="number of elements"):
        tl.unique(on(device, tl.zeros(3, 0)), dim=0)


# ---- searchsorted, bucketize -------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_searchsorted_bucketize(device, dtype):
    rng = np.random.default_rng(10)
    seq = np.sort(random_array((12,), dtype, rng))
    vals = random_array((3, 5), dtype, rng)
    vals[0, :3] = seq[[0, 5, 11]]  # exact hits: the side matters
    ts, tv = device_tensor(seq, dtype, device), device_tensor(vals, dtype, device)
    for side in ("left", "right"):
        want = np.searchsorted(seq, vals, side=side)
        assert_close(back(tl.searchsorted(ts, tv, side=side)), want)
        assert_close(back(tl.searchsorted(ts, tv, right=side == "right", out_int32=True)),
                     want.astype(np.int32))
        assert_close(back(tl.searchsorted(ts, tv.t(), side=side)), want.T)  # non-contiguous
        assert_close(back(tl.bucketize(tv, ts, right=side == "right")), want)
    # rows of sequences, and a sorter
    seq2 = np.sort(random_array((2, 3, 10), dtype, rng), axis=-1)
    v2 = random_array((2, 3, 4), dtype, rng)
    got = tl.searchsorted(device_tensor(seq2, dtype, device), device_tensor(v2, dtype, device),
                          right=True)
    want = np.stack([np.stack([np.searchsorted(seq2[i, j], v2[i, j], side="right")
                               for j in range(3)]) for i in range(2)])
    assert_close(back(got), want)
    raw = random_array((10,), dtype, rng)
    order = np.argsort(raw, kind="stable")
    got = tl.searchsorted(device_tensor(raw, dtype, device), device_tensor(vals, dtype, device),
                          sorter=on(device, tl.tensor(order)))
    assert_close(back(got), np.searchsorted(raw, vals, sorter=order))
    with pytest.raises(RuntimeError, match="out of range"):
        tl.searchsorted(ts, tv, sorter=on(device, tl.tensor(np.arange(12) + 1)))


@pytest.mark.parametrize("device", DEVICES)
def test_searchsorted_nan_and_mixed_dtypes(device):
    s = np.array([1.0, 2.0, np.nan])
    q = np.array([np.nan, 5.0, 0.0, 2.0])
    assert_close(back(tl.searchsorted(on(device, tl.tensor(s)), on(device, tl.tensor(q)))),
                 np.searchsorted(s, q))
    assert_close(back(tl.searchsorted(on(device, tl.tensor([1, 2, 3])),
                                      on(device, tl.tensor([1.5, 2.5])))), np.array([1, 2]))
    r = tl.searchsorted(on(device, tl.tensor([1.0, 2.0, 3.0])), 2.0)  # a number: 0-d, there
    assert r.ndim == 0 and r.device == on(device, tl.zeros(1)).device and back(r).item() == 1
    assert back(tl.bucketize(3, on(device, tl.tensor([1, 3, 5])))).item() == 1


# ---- bincount, histc ------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount(device, dtype):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 7, 300).astype(dtype)
    t = on(device, tl.tensor(x))
    assert_close(back(tl.bincount(t)), np.bincount(x))
    assert_close(back(tl.bincount(t, minlength=10)), np.bincount(x, minlength=10))
    assert_close(back(tl.bincount(t[::3])), np.bincount(x[::3]))
    w32 = rng.standard_normal(300).astype(np.float32)
    assert_close(back(tl.bincount(t, on(device, tl.tensor(w32)))),
                 np.bincount(x, w32).astype(np.float32), rtol=1e-5, atol=1e-5)
    w64 = rng.standard_normal(300)
    assert_close(back(tl.bincount(t, on(device, tl.tensor(w64)))), np.bincount(x, w64),
                 rtol=1e-12, atol=1e-12)
    wi = rng.integers(0, 5, 300).astype(np.int16)
    assert_close(back(tl.bincount(t, on(device, tl.tensor(wi)))),
                 np.bincount(x, wi).astype(np.float64))
    # narrow float weights, float8 too (the CUDA kernel read float8 as 0)
    for wd in ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
               "float8_e5m2fnuz", "float8_e8m0fnu"]:
        w = tl.tensor(np.abs(w64) + 0.25).to(getattr(tl, wd))
        got = tl.bincount(t, on(device, w))
        assert got.dtype == tl.float64
        assert_close(back(got), np.bincount(x, w.double().numpy()), rtol=1e-12, atol=1e-12)
    e = on(device, tl.tensor(np.zeros(0, dtype)))
    assert_close(back(tl.bincount(e, minlength=3)), np.zeros(3, np.int64))
    if dtype != "uint8":
        with pytest.raises(RuntimeError, match="non-negative"):
            tl.bincount(on(device, tl.tensor(np.array([1, -1, 2], dtype))))


@pytest.mark.parametrize("device", DEVICES)
def test_bincount_of_uint64(device):
    """uint64 values are read exactly (the CUDA check read them through a
    double), and one past int64's range is refused in the CPU's words."""
    x = np.array([1, 3, 3, 0], np.uint64)
    assert_close(back(tl.bincount(on(device, tl.tensor(x)))), np.bincount(x.astype(np.int64)))
    big = on(device, tl.tensor(np.array([1, 2**63 + 5, 3], np.uint64)))
    with pytest.raises(RuntimeError, match=r"input\[1\] is 9223372036854775813, too large a bin"):
        tl.bincount(big)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_histc(device, dtype):
    rng = np.random.default_rng(12)
    x = random_array((400,), dtype, rng, low=-2, high=2)
    t = device_tensor(x, dtype, device)
    h, _ = np.histogram(x.astype(np.float64), bins=10, range=(-1.5, 1.5))
    assert_close(back(tl.histc(t, bins=10, min=-1.5, max=1.5)).float(), h.astype(np.float32))
    h, _ = np.histogram(x.astype(np.float64), bins=7)  # the data's own range
    assert_close(back(t.histc(7)).float(), h.astype(np.float32))
    assert_close(back(tl.histc(t.reshape(20, 20).t(), 5, -1, 1)).float(),
                 np.histogram(x.astype(np.float64), 5, (-1, 1))[0].astype(np.float32))
    y = device_tensor(np.array([1.0, np.nan, 5.0], NP_DTYPES[dtype]), dtype, device)
    assert back(tl.histc(y, bins=2, min=0, max=2)).tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="not finite"):
        tl.histc(y, bins=2)


# ---- the device paths, emulated -------------------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every test above on the fake device with the CPU's sort kernels as its
    device kernels, in a process of its own (the emulation cannot be undone)."""
    run_emulated(__file__)
