"""Whole-lane sorts through the key sorts of sort_simd.c, against NumPy's
stable sort, bit for bit.

Values only (np.sort through torchlike.numpy, ``_C._sort_values``, msort):
the keys are sorted bare and decoded, and a lane holding a NaN or a -0.0 has
those runs refilled from the input, so the result is NumPy's
``kind="stable"`` result exactly: -0.0/0.0 and every NaN payload in input
order (NumPy's default kind may reorder zeros and writes its own NaN).
With indices (sort, argsort): 32-bit dtypes, and int64 lanes within 2^32 of
their smallest value, are sorted as packed (key, position) words.

Every case runs twice: the vector sorts (AVX-512 or AVX2, the first the CPU
has) and the radix engine that serves CPUs without them
(TORCHLIKE_SORT_SIMD=0).  Lengths sit around the vector sizes (4, 8 and 16
keys), the largest networks (64, 128 and 256 keys) and past them (the
partitioned quicksort)."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from torchlike import _C
from oracle import NP_DTYPES, noncontiguous, to_tensor
from sort_lanes import lanes, stable_order

DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64"]
LENGTHS = [1, 2, 7, 8, 9, 16, 17, 100, 128, 129, 256, 257, 1000, 3001]


@pytest.fixture(params=["simd", "portable"])
def mode(request, monkeypatch):
    if request.param == "portable":
        monkeypatch.setenv("TORCHLIKE_SORT_SIMD", "0")
    return request.param




def bits(x):
    """An array's bits, for exact comparison (bfloat16 results as float32)."""
    x = np.asarray(x)
    return x.view(f"u{x.itemsize}") if x.dtype.kind in "fb" else x


def check_values(got, a, axis, descending):
    want = np.take_along_axis(a, stable_order(a, axis, descending), axis)
    got = got.float().cpu().numpy() if got.dtype == tl.bfloat16 else got.cpu().numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_only_every_dtype_and_length(dtype, mode):
    rng = np.random.default_rng(len(dtype))
    for n in LENGTHS:
        a = lanes(dtype, n, rng)
        t = to_tensor(a, dtype)
        for descending in (False, True):
            check_values(_C._sort_values(t, -1, descending), a, -1, descending)
        if dtype != "bfloat16":
            got = tnp.sort(t)
            np.testing.assert_array_equal(bits(got.cpu().numpy()), bits(np.sort(a, kind="stable")))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_with_indices_every_dtype_and_length(dtype, mode):
    rng = np.random.default_rng(7 + len(dtype))
    for n in LENGTHS:
        a = lanes(dtype, n, rng, rows=4)
        t = to_tensor(a, dtype)
        for descending in (False, True):
            want = stable_order(a, -1, descending)
            v, i = tl.sort(t, dim=-1, descending=descending, stable=True)
            np.testing.assert_array_equal(i.cpu().numpy(), want)
            check_values(v, a, -1, descending)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "float16"])
def test_layouts_and_dims(dtype, mode):
    """dim 0 and -1 of 2-d and 3-d inputs, transposed and strided lanes, and
    descending, for the values-only op and sort."""
    rng = np.random.default_rng(3)
    a = lanes(dtype, 300, rng, rows=6).reshape(6, 30, 10)
    t = to_tensor(a, dtype)
    for axis in (0, 1, -1):
        for x, ax in ((t, a), (t.transpose(0, 2), a.swapaxes(0, 2)), (noncontiguous(t), a)):
            for descending in (False, True):
                check_values(_C._sort_values(x, axis, descending), ax, axis, descending)
                v, i = tl.sort(x, dim=axis, descending=descending, stable=True)
                np.testing.assert_array_equal(i.cpu().numpy(), stable_order(ax, axis, descending))
    # along dim 0, lanes go in groups of 16 neighbours (transposed into rows):
    # a width of 37 gives groups of 16, 16 and 5
    b = lanes(dtype, 37 * 50, rng, rows=3)[2].reshape(50, 37)
    for descending in (False, True):
        check_values(_C._sort_values(to_tensor(b, dtype), 0, descending), b, 0, descending)
    np.testing.assert_array_equal(bits(tnp.sort(t, axis=None).cpu().numpy()),
                                  bits(np.sort(a, axis=None, kind="stable")))
    check_values(tl.msort(t), a, 0, False)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "float32", "float64"])
def test_many_ties_and_sorted_inputs(dtype, mode):
    """Few distinct keys (the partition that sets a pivot's copies aside),
    sorted and reversed lanes, long enough to partition several times."""
    rng = np.random.default_rng(11)
    npdt = NP_DTYPES[dtype]
    n = 5000
    cases = [rng.integers(0, 3, n), np.full(n, 2), np.arange(n) % 120, np.arange(n)[::-1] % 120,
             np.repeat(np.arange(10), n // 10)]
    for c in cases:
        a = np.asarray(c).astype(npdt)
        t = to_tensor(a, dtype)
        for descending in (False, True):
            check_values(_C._sort_values(t, 0, descending), a, 0, descending)
            v, i = tl.sort(t, descending=descending, stable=True)
            np.testing.assert_array_equal(i.cpu().numpy(), stable_order(a, 0, descending))


def test_zero_d_empty_and_long_lane(mode):
    rng = np.random.default_rng(5)
    zero_d = to_tensor(np.array(-0.0), "float64")
    for dim in (0, -1):
        got = _C._sort_values(zero_d, dim)
        assert got.shape == () and np.signbit(got.cpu().numpy())
    for shape in ((0, 5), (5, 0), (0,)):
        e = to_tensor(np.zeros(shape, np.float32))
        for dim in (0, -1):
            assert _C._sort_values(e, dim).shape == shape
    with pytest.raises(IndexError):
        _C._sort_values(to_tensor(np.zeros((2, 3), np.float32)), 2)
    # one long lane on one thread takes the key sort too (and, for 64-bit
    # keys with indices, the packed vector sort rather than the long-lane plan)
    threads = tl.get_num_threads()
    tl.set_num_threads(1)
    try:
        for dtype in ("float32", "float64"):
            a = lanes(dtype, 200_000, rng, rows=3)[2]
            check_values(_C._sort_values(to_tensor(a), 0), a, 0, False)
            v, i = tl.sort(to_tensor(a), stable=True)
            np.testing.assert_array_equal(i.cpu().numpy(), stable_order(a, 0, False))
            check_values(v, a, 0, False)
    finally:
        tl.set_num_threads(threads)


def test_values_only_gradient_flows_to_the_sorted_positions():
    """np.sort on a tensor that requires grad: each output's gradient lands
    on the element it came from (the order is found again by sort)."""
    a = np.array([[3.0, -1.0, 2.0, -1.0], [0.5, 0.25, 4.0, -2.0]])
    x = tl.tensor(a, requires_grad=True)
    w = np.arange(8.0).reshape(2, 4)
    for descending in (False, True):
        x.grad = None
        y = _C._sort_values(x, 1, descending)
        (y * tl.tensor(w)).sum().backward()
        order = stable_order(a, 1, descending)
        want = np.zeros_like(a)
        np.put_along_axis(want, order, w, 1)
        np.testing.assert_array_equal(x.grad.cpu().numpy(), want)


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint64"])
def test_wide_keys_that_agree_in_their_top_bits(dtype, mode):
    """64-bit lanes of a wide range sorted with indices as packed words keep
    only the top bits of each key above the position; keys that differ only
    below them (neighbouring floats, close integers) are put in order
    afterwards, and a long run of such keys (over 64) takes the radix sort:
    both against NumPy's stable order, ties included."""
    rng = np.random.default_rng(13)
    n = 1000
    for run in (3, 40, 200):
        if dtype == "float64":
            base = rng.standard_normal(n // run) * 1e3
            a = (base.repeat(run).view(np.int64) + rng.integers(-5, 6, n - n % run)).view(np.float64)
            a = np.concatenate([a, [1e300, -1e300], rng.standard_normal(n % run)])
        else:
            npdt = NP_DTYPES[dtype]
            lo = 0 if dtype == "uint64" else -2 ** 62
            base = rng.integers(lo, 2 ** 62, n // run).astype(npdt)
            a = base.repeat(run) + rng.integers(0, 6, n - n % run).astype(npdt)
            info = np.iinfo(npdt)
            a = np.concatenate([a, np.array([info.min, info.max], npdt),
                                rng.integers(0, 9, n % run).astype(npdt)])
        a = a[rng.permutation(a.size)]
        t = to_tensor(a, dtype)
        for descending in (False, True):
            v, i = tl.sort(t, descending=descending, stable=True)
            np.testing.assert_array_equal(i.cpu().numpy(), stable_order(a, 0, descending))
            check_values(v, a, 0, descending)


def patterned_lanes(dtype, n, rng):
    """Lanes of n keys in the shapes that steer a quicksort: random, few
    distinct keys, all equal, sorted, reversed, organ pipe, sawtooth, and
    the smallest keys placed where the pivot samples are read (evenly
    spaced), as rows of one array."""
    npdt = NP_DTYPES[dtype]
    base = lanes(dtype, n, rng, rows=3)[2]
    if dtype == "bool":
        ramp = np.arange(n) % 2 == 1
    elif dtype in ("float16", "bfloat16"):  # integers each holds exactly
        ramp = (np.arange(n) % (2000 if dtype == "float16" else 256) - 128).astype(np.float32)
    else:
        ramp = np.arange(n) % (120 if np.dtype(npdt).itemsize == 1 else n)
        if dtype.startswith("int"):
            ramp = ramp - ramp.max() // 2
    ramp = ramp.astype(np.float32 if dtype == "bfloat16" else npdt)
    rows = [base, np.sort(base), np.sort(base)[::-1], np.full(n, base[0]),
            ramp, ramp[::-1], np.concatenate([ramp[: n // 2], ramp[: n - n // 2][::-1]]),
            np.resize(ramp[:17], n), rng.integers(0, 2, n).astype(ramp.dtype)]
    # the smallest keys at the sample positions, the rest descending
    ordered, killer = np.sort(base), np.empty_like(base)
    m = 64 if n > 4096 else 16
    step = max(n // m, 1)
    pos = np.unique(np.minimum(np.arange(m) * step + step // 2, n - 1))
    killer[pos] = ordered[: pos.size]
    killer[np.setdiff1d(np.arange(n), pos)] = ordered[pos.size:][::-1]
    rows.append(killer)
    return np.stack([np.asarray(r).astype(ramp.dtype) for r in rows])


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_length_around_the_vector_and_network_sizes(dtype, mode):
    """Every length 1..300 (AVX2's vectors hold 8 or 4 keys, its networks up
    to 128 or 64, AVX-512's twice that), 4095..4097 (where the pivot sample
    grows) and a few longer, in every pattern of patterned_lanes, values
    only and with indices, against NumPy's stable sort."""
    rng = np.random.default_rng(17 + len(dtype))
    for n in list(range(1, 301)) + [4095, 4096, 4097, 20011]:
        a = patterned_lanes(dtype, n, rng)
        t = to_tensor(a, dtype)
        check_values(_C._sort_values(t, -1, False), a, -1, False)
        if n in (1, 8, 63, 64, 65, 128, 129, 257, 4096, 4097, 20011) or n % 37 == 0:
            check_values(_C._sort_values(t, -1, True), a, -1, True)
            v, i = tl.sort(t, dim=-1, stable=True)
            np.testing.assert_array_equal(i.cpu().numpy(), stable_order(a, -1, False))
            check_values(v, a, -1, False)
