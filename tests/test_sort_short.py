"""Short lanes (about 25..4097 elements) against NumPy's stable sort.

The engine switches strategy by run length (insertion sort, MSD-first for
tiny runs and for selections, LSD radix above): lengths sit on each side of
those thresholds.  Data mixes ties, NaNs and signed zeros, so stability,
NaN placement and the -0.0/0.0 input order are all checked."""
import numpy as np
import pytest

import torchlike as tl
from oracle import noncontiguous, to_tensor
from sort_lanes import lanes, stable_order

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]
LENGTHS = [24, 25, 31, 64, 255, 256, 511, 512, 513, 1000, 4096, 4097]


def check_sorted(t, a, descending):
    v, i = tl.sort(t, dim=-1, descending=descending, stable=True)
    want = stable_order(a, -1, descending)
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
        a = lanes(dtype, n, rng)
        t = to_tensor(a, dtype)
        for descending in (False, True):
            check_sorted(t, a, descending)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [25, 256, 1000, 4097])
def test_short_lanes_noncontiguous_and_other_dim(dtype, n):
    rng = np.random.default_rng(n)
    a = lanes(dtype, n, rng, 3)
    check_sorted(noncontiguous(to_tensor(a, dtype)), a, True)
    # along dim 0: the lanes are strided columns
    v, i = tl.sort(to_tensor(a.T.copy(), dtype), dim=0, stable=True)
    want = stable_order(a, -1, False)
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
    a = lanes(dtype, n, rng, 3)
    t = to_tensor(a, dtype)
    s = np.sort(a, axis=-1, kind="stable")
    for k in sorted({1, 2, n // 3, (n + 1) // 2, n - 1, n}):
        v, i = tl.kthvalue(t, k, -1)
        np.testing.assert_array_equal(v.cpu().numpy(), s[:, k - 1])
        picked = np.take_along_axis(a, i.cpu().numpy()[:, None], -1)[:, 0]
        np.testing.assert_array_equal(picked, s[:, k - 1])
    for largest in (True, False):
        v, i = tl.topk(t, 5, -1, largest=largest)
        want = stable_order(a, -1, largest)[:, :5]
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
