"""cumsum and cumprod of inputs in other layouts than row-major, bit for bit.

A float64, int64 or complex128 input whose scanned dim runs along memory (a
transposed matrix scanned along dim 0) is read in place, 16 lines at a time
staged through a tile (src/ndcore/kernels/scan.c; AVX-512 transposes blocks
in registers for float64, and for int64 and complex128 sums).  Each line must still be summed element
after element, so the values are NumPy's exactly, whatever the number of
lines (partial blocks of 16), the line length (tails of 8 and of the
64-element tile) or the thread count; and a line's first value is its first
element as is (-0.0 stays -0.0, which 0.0 + x would lose)."""
import itertools

import numpy as np
import pytest

import torchlike as tl


def assert_same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def sample(shape, dtype, rng):
    if dtype == "int64":
        return rng.integers(-5, 6, shape).astype(np.int64)
    a = rng.standard_normal(shape) * 3
    if dtype == "complex128":
        return (a + 1j * rng.standard_normal(shape)).astype(np.complex128)
    a.flat[0] = -0.0
    return a


@pytest.fixture(params=[1, 2])
def threads(request):
    before = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
@pytest.mark.parametrize("shape", [(1, 40), (7, 16), (9, 17), (65, 33), (130, 48), (300, 5)])
def test_transposed_scans_equal_numpy(dtype, shape, threads):
    a = sample(shape, dtype, np.random.default_rng(sum(shape)))
    t = tl.from_numpy(a.copy())
    for name in ("cumsum", "cumprod"):
        if dtype == "complex128" and name == "cumprod":
            continue  # NumPy's complex multiply is not C's: values differ in the last bit
        for dim in (0, 1):
            assert_same(getattr(t.T, name)(dim), getattr(np, name)(a.T, axis=dim))
    assert t.T.cumsum(0).is_contiguous()


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_permuted_and_strided_scans_equal_numpy(dtype):
    rng = np.random.default_rng(3)
    a = sample((5, 19, 24), dtype, rng)
    t = tl.from_numpy(a.copy())
    for perm in itertools.permutations(range(3)):
        for dim in range(3):
            assert_same(t.permute(*perm).cumsum(dim), np.cumsum(a.transpose(perm), axis=dim))
    b = sample((70, 90), dtype, rng)
    u = tl.from_numpy(b.copy())
    # every other line, and lines of every other element (stride 2 along the line)
    assert_same(u[::2].T.cumsum(0), np.cumsum(b[::2].T, axis=0))
    assert_same(u[:, ::2].T.cumsum(0), np.cumsum(b[:, ::2].T, axis=0))
    assert_same(u.T[3:50, 1:40].cumprod(0), np.cumprod(b.T[3:50, 1:40], axis=0))
