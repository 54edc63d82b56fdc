"""max/min of contiguous float rows, against NumPy.

kernels_reduce.c answers a row from max/min lanes and NaN flags when the row
has no NaN and a non-zero extreme, and reads it again with the NaN-aware
reference otherwise; these rows sit on both sides of that choice: the
extreme in the lanes or in the tail after them, a NaN first, in the middle
or last, all-negative rows (for max), rows whose extreme is a zero, and rows
long enough to be cut into chunks whose accumulator carries a NaN or a
larger value from an earlier chunk."""
import numpy as np
import pytest

import torchlike as tl
from oracle import num_threads

LENGTHS = [1, 63, 64, 127, 128, 129, 255, 256, 1000, 4099, 100003]


def rows(dtype, n):
    rng = np.random.default_rng(n)
    base = rng.standard_normal((1, n)).astype(dtype)
    out = [base, -np.abs(base) - 1, np.abs(base) + 1]
    for at in {0, n // 2, n - 1}:
        nan = base.copy()
        nan[0, at] = np.nan
        top = base.copy()
        top[0, at] = 50  # the extreme in the lanes, in the tail, or first
        low = base.copy()
        low[0, at] = -50
        out += [nan, top, low]
    zeros = -np.abs(base)
    zeros[0, n // 3] = 0.0  # max is a zero (the reference's answer is read)
    out.append(zeros)
    return np.concatenate(out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", LENGTHS)
def test_row_extremes_match_numpy(dtype, n):
    a = rows(dtype, n)
    t = tl.from_numpy(a)
    for np_fn, name in ((np.max, "amax"), (np.min, "amin")):
        np.testing.assert_array_equal(getattr(t, name)(1), np_fn(a, axis=1), strict=True)
        np.testing.assert_array_equal(np_fn(t, axis=1), np_fn(a, axis=1), strict=True)
        # the whole tensor, through the same row loop in chunks
        np.testing.assert_array_equal(getattr(t, name)(), np_fn(a), strict=True)
    values, index = t.max(1)
    np.testing.assert_array_equal(index, np.argmax(a, axis=1))
    np.testing.assert_array_equal(values, np.max(a, axis=1), strict=True)
    np.testing.assert_array_equal(t.argmin(1), np.argmin(a, axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_nan_in_an_early_chunk_wins_over_later_chunks(dtype):
    # a long row is reduced in chunks by several threads; the chunk holding
    # the NaN must win whichever order they combine in
    a = np.random.default_rng(0).standard_normal(1 << 20).astype(dtype)
    a[3] = np.nan
    a[-5] = 1e6
    with num_threads(4):
        assert np.isnan(tl.from_numpy(a).max().item())
        assert np.isnan(tl.from_numpy(a).amax(0).item())
        assert np.isnan(tl.from_numpy(a).min().item())
    a[3] = 7e5
    with num_threads(4):
        assert tl.from_numpy(a).max().item() == 1e6
        assert tl.from_numpy(a).min().item() == a.min()




@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32,
                                   np.float64, np.int16, np.uint8])
@pytest.mark.parametrize("n", LENGTHS[:-1])
def test_the_first_of_tied_extremes_is_the_index(dtype, n):
    # few distinct values: every row holds its extreme many times, in many
    # lanes and blocks; the index is the first (NumPy's and PyTorch's rule)
    rng = np.random.default_rng(n + 7)
    a = rng.integers(0, 4, (6, n)).astype(dtype)
    a[1, -1] = 9  # the only extreme in the tail
    a[2, 0] = 9  # ... first
    a[3] = 3  # all equal
    if n > 1:
        a[4, 1:] = 9  # the extreme everywhere but at 0
    t = tl.from_numpy(a)
    for np_arg, tl_arg in [(np.argmax, "argmax"), (np.argmin, "argmin")]:
        np.testing.assert_array_equal(getattr(t, tl_arg)(1), np_arg(a, axis=1))
        np.testing.assert_array_equal(getattr(t, tl_arg)(1, keepdim=True),
                                      np_arg(a, axis=1, keepdims=True))
    v, i = t.min(1)
    np.testing.assert_array_equal(i, np.argmin(a, axis=1))
    np.testing.assert_array_equal(v, np.min(a, axis=1), strict=True)
    # a strided view takes the lane-free path: the same answers
    s = tl.from_numpy(a)[:, ::2]
    np.testing.assert_array_equal(s.argmax(1), np.argmax(a[:, ::2], axis=1))
