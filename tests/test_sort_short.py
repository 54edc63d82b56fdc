"""Short lanes (about 25..4097 elements) against NumPy's stable sort.

The engine switches strategy by run length (insertion sort, MSD-first for
tiny runs and for selections, LSD radix above): lengths sit on each side of
those thresholds.  Data mixes ties, NaNs and signed zeros, so stability,
NaN placement and the -0.0/0.0 input order are all checked."""
import numpy as np
import pytest

import torchlike as tl
from oracle import NP_DTYPES, noncontiguous, to_tensor

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]
LENGTHS = [24, 25, 31, 64, 255, 256, 511, 512, 513, 1000, 4096, 4097]


def stable_argsort(a, descending):
    """NumPy's stable argsort along the last axis; descending keeps ties in input order."""
    if not descending:
        return np.argsort(a, axis=-1, kind="stable")
    n = a.shape[-1]
    return n - 1 - np.flip(np.argsort(np.flip(a, -1), axis=-1, kind="stable"), -1)


def lanes(dtype, n, rows, rng):
    """rows lanes of n: row 0 few distinct values (ties everywhere), the others
    wide-ranging values; floats get NaNs and signed zeros."""
    npdt = NP_DTYPES[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, (rows, n)).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(npdt)
        a = rng.integers(info.min, info.max, (rows, n), dtype=npdt, endpoint=True)
        a[0] = rng.integers(0, 4, n).astype(npdt)
        return a
    a = rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-3, 4, (rows, n))
    a[0] = rng.integers(-2, 3, n)
    a[rng.random((rows, n)) < 0.1] = np.nan
    a[rng.random((rows, n)) < 0.1] = 0.0
    a[rng.random((rows, n)) < 0.1] = -0.0
    if dtype == "bfloat16":  # values bfloat16 holds exactly
        a = (a.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    return a.astype(npdt)


def check_sorted(t, a, descending):
    v, i = tl.sort(t, dim=-1, descending=descending, stable=True)
    want = stable_argsort(a, descending)
    np.testing.assert_array_equal(i.cpu().numpy(), want)
    got = v.float().cpu().numpy() if v.dtype == tl.bfloat16 else v.cpu().numpy()
    ref = np.take_along_axis(a, want, axis=-1)
    np.testing.assert_array_equal(got, ref)
    if a.dtype.kind == "f":  # -0.0 and 0.0 compare equal: check the signs
        np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))
    np.testing.assert_array_equal(tl.argsort(t, -1, descending=descending, stable=True).cpu().numpy(),
                                  want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_short_lanes_sort_and_argsort(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    for n in LENGTHS:
        rows = 3 if n < 1000 else 2
        a = lanes(dtype, n, rows, rng)
        t = to_tensor(a, dtype)
        for descending in (False, True):
            check_sorted(t, a, descending)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [25, 256, 1000, 4097])
def test_short_lanes_noncontiguous_and_other_dim(dtype, n):
    rng = np.random.default_rng(n)
    a = lanes(dtype, n, 3, rng)
    check_sorted(noncontiguous(to_tensor(a, dtype)), a, True)
    # along dim 0: the lanes are strided columns
    v, i = tl.sort(to_tensor(a.T.copy(), dtype), dim=0, stable=True)
    want = stable_argsort(a, False)
    np.testing.assert_array_equal(i.cpu().numpy(), want.T)
    np.testing.assert_array_equal(v.cpu().numpy(), np.take_along_axis(a, want, -1).T)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "uint64",
                                   "float16", "float32", "float64"])
@pytest.mark.parametrize("n", [24, 31, 255, 513, 1000, 4096, 4097])
def test_short_lanes_selection(dtype, n):
    """kthvalue, median, topk take the radix select: values match NumPy's
    sort, indices point at an element of that value (the stable order's one
    for topk, the first NaN for a NaN median)."""
    rng = np.random.default_rng(n + len(dtype))
    a = lanes(dtype, n, 3, rng)
    t = to_tensor(a, dtype)
    s = np.sort(a, axis=-1, kind="stable")
    for k in sorted({1, 2, n // 3, (n + 1) // 2, n - 1, n}):
        v, i = tl.kthvalue(t, k, -1)
        np.testing.assert_array_equal(v.cpu().numpy(), s[:, k - 1])
        picked = np.take_along_axis(a, i.cpu().numpy()[:, None], -1)[:, 0]
        np.testing.assert_array_equal(picked, s[:, k - 1])
    for largest in (True, False):
        v, i = tl.topk(t, 5, -1, largest=largest)
        want = stable_argsort(a, largest)[:, :5]
        np.testing.assert_array_equal(v.cpu().numpy(), np.take_along_axis(a, want, -1))
        np.testing.assert_array_equal(np.take_along_axis(a, i.cpu().numpy(), -1),
                                      np.take_along_axis(a, want, -1))
    v, i = tl.median(t, -1)
    nan = np.isnan(a).any(axis=-1) if a.dtype.kind == "f" else np.zeros(len(a), bool)
    np.testing.assert_array_equal(np.isnan(v.cpu().numpy()) if a.dtype.kind == "f" else nan, nan)
    np.testing.assert_array_equal(v.cpu().numpy()[~nan], s[~nan, (n - 1) // 2])
    got_i = i.cpu().numpy()
    first_nan = np.argmax(np.isnan(a), axis=-1) if a.dtype.kind == "f" else None
    for r in range(len(a)):
        if nan[r]:
            assert got_i[r] == first_nan[r]
        else:
            assert a[r, got_i[r]] == s[r, (n - 1) // 2]
