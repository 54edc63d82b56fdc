"""Long lanes (at least 2^17 elements, one or two lanes): sort's thread-pool
path.  It buckets the keys by their top bits, scatters them, and sorts each
bucket in the cache; the bucket sorter depends on how many key bits a bucket
spans (few bits, 12 to 22, more; huge buckets of equal keys), so the data
below are chosen to reach each kind, with 1 and 2 threads, ascending and
descending.  Values are compared bit for bit (NaN payloads and the sign of
zero included) and indices exactly, against NumPy's stable argsort."""
import numpy as np
import pytest

import torchlike as tl
from oracle import noncontiguous

N = 1 << 18  # above the thread-pool threshold (2^17)


def stable_argsort(a, axis=-1, descending=False):
    """NumPy's stable argsort; descending keeps ties (and NaNs) in input order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.flip(a, axis=axis)
    return n - 1 - np.flip(np.argsort(rev, axis=axis, kind="stable"), axis=axis)


def bits_of(a):
    """The raw bytes as unsigned integers: values compared bit for bit."""
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(old)


def check_sort(a, t=None, dim=-1):
    t = tl.tensor(a) if t is None else t
    for desc in (False, True):
        v, i = tl.sort(t, dim=dim, descending=desc)
        want = stable_argsort(a, axis=dim, descending=desc)
        np.testing.assert_array_equal(i.numpy(), want)
        np.testing.assert_array_equal(bits_of(v.numpy()), bits_of(np.take_along_axis(a, want, dim)))


def float32_cases(rng):
    """Name -> array: each reaches another bucket sorter."""
    u = (rng.random(N, dtype=np.float32) * 2 - 1)  # buckets of 12-22 bits: the two-pass sort
    special = u.copy()
    pick = rng.random(N)
    special[pick < 0.02] = np.nan
    special[(pick >= 0.02) & (pick < 0.04)] = -0.0
    special[(pick >= 0.04) & (pick < 0.06)] = 0.0
    special[(pick >= 0.06) & (pick < 0.07)] = np.inf
    special[(pick >= 0.07) & (pick < 0.08)] = -np.inf
    # NaNs with other payloads and signs: all sort last, in input order, unchanged
    nan_bits = np.array([0x7fc00001, 0xffc00000, 0x7f800001, 0xffffffff], np.uint32)
    special.view(np.uint32)[pick >= 0.995] = nan_bits[rng.integers(0, 4, (pick >= 0.995).sum())]
    return {
        "uniform": u,
        "nan_zero_inf": special,
        # exponents over a wide range: sparse buckets spanning more than 22 bits
        "wide_exponents": (rng.standard_normal(N) * 10.0 ** rng.integers(-30, 30, N)).astype(
            np.float32),
        # a few distinct values: huge buckets of equal keys, stability everywhere
        "few_values": rng.integers(-3, 4, N).astype(np.float32) * 0.5,
        # one dense cluster: buckets of few bits
        "narrow": (1000 + rng.integers(0, 300, N)).astype(np.float32),
        "sorted": np.sort(u),
        "reversed": np.sort(u)[::-1].copy(),
        "all_equal": np.full(N, 2.5, np.float32),
    }


@pytest.mark.parametrize("case", ["uniform", "nan_zero_inf", "wide_exponents", "few_values",
                                  "narrow", "sorted", "reversed", "all_equal"])
def test_long_float32(case, threads):
    a = float32_cases(np.random.default_rng(len(case)))[case]
    check_sort(a)


@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8", "int8", "bool", "float16"])
def test_long_small_dtypes(dtype, threads):
    """Every dtype with 32-bit keys shares the packed (key, position) path."""
    rng = np.random.default_rng(5)
    if dtype == "bool":
        a = rng.random(N) < 0.3
    elif dtype == "float16":
        a = (rng.standard_normal(N) * 100).astype(np.float16)
        a[::97] = np.nan
        a[::89] = -0.0
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    check_sort(a)


def test_long_int32_ranges(threads):
    rng = np.random.default_rng(6)
    check_sort(rng.integers(-2 ** 31, 2 ** 31, N, dtype=np.int64).astype(np.int32))
    check_sort(rng.integers(0, 5000, N).astype(np.int32))  # narrow: few bits per bucket
    check_sort(rng.integers(-5, 5, N).astype(np.int32))  # huge runs of ties


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint64", "uint32", "uint16", "float64"])
def test_long_keys_straddling_a_power_of_two(dtype, threads):
    """A narrow range whose keys differ in their top bit (values of both signs,
    uint64 around 2^63): the sort takes keys relative to the smallest, and
    topk/kthvalue (which sort only the wanted positions) too."""
    rng = np.random.default_rng(9)
    if dtype.startswith("uint"):
        mid = np.uint64(1) << np.uint64(np.iinfo(dtype).bits - 1)
        a = (rng.integers(0, 20000, N).astype(np.uint64) + mid - np.uint64(10000)).astype(dtype)
    else:
        a = rng.integers(-10 ** 4, 10 ** 4, N).astype(dtype)
        if dtype == "float64":
            a = a * 0.25
    check_sort(a)
    t = tl.tensor(a)
    order = np.sort(a)
    np.testing.assert_array_equal(t.topk(5).values.numpy(), order[::-1][:5])
    np.testing.assert_array_equal(t.topk(5, largest=False).values.numpy(), order[:5])
    assert t.kthvalue(N // 3).values.item() == order[N // 3 - 1]


@pytest.mark.parametrize("outlier", [2 ** 40, -5, 2 ** 62])
def test_long_int64_outlier_the_sample_misses(outlier, threads):
    """64-bit keys that seem to differ in few bits are sorted packed, relative
    to the bits they share; one key off the sampled positions that differs
    higher up sends the sort back to the full keys."""
    a = np.random.default_rng(10).integers(0, 10 ** 6, N)
    a[1] = outlier
    check_sort(a)
    check_sort(-a)


def test_long_bfloat16(threads):
    rng = np.random.default_rng(7)
    a = (rng.standard_normal(N) * 10).astype(np.float32)
    a[::50] = np.nan
    t = tl.tensor(a).to(tl.bfloat16)
    ref = t.float().numpy()  # the bfloat16 values, exactly, as float32
    for desc in (False, True):
        v, i = tl.sort(t, descending=desc)
        want = stable_argsort(ref, descending=desc)
        np.testing.assert_array_equal(i.numpy(), want)
        np.testing.assert_array_equal(bits_of(v.float().numpy()), bits_of(ref[want]))


def test_long_noncontiguous_input_and_strided_outputs(threads):
    rng = np.random.default_rng(8)
    a = rng.standard_normal(N).astype(np.float32)
    a[::31] = -0.0
    check_sort(a, noncontiguous(tl.tensor(a)))
    # two long lanes along dim 0: the lanes and the outputs are strided
    b = rng.standard_normal((N, 2)).astype(np.float32)
    b[::13, 1] = np.nan
    check_sort(b, dim=0)


def test_long_argsort_and_msort(threads):
    rng = np.random.default_rng(9)
    a = (rng.random(N, dtype=np.float32) * 2 - 1)
    a[::7] = np.nan
    for desc in (False, True):
        np.testing.assert_array_equal(tl.argsort(tl.tensor(a), descending=desc, stable=True).numpy(),
                                      stable_argsort(a, descending=desc))
    np.testing.assert_array_equal(bits_of(tl.msort(tl.tensor(a)).numpy()),
                                  bits_of(np.sort(a, kind="stable")))


def test_long_odd_lengths(threads):
    """At the thread-pool threshold exactly, and a length that fills no
    scatter buffer or output tile evenly."""
    rng = np.random.default_rng(10)
    for n in (1 << 17, N + 3):
        check_sort(rng.standard_normal(n).astype(np.float32))


@pytest.mark.parametrize("case", ["nan_zero_inf", "uniform", "wide_exponents", "few_values",
                                  "narrow", "reversed", "all_equal"])
def test_long_msort_values_only(case, threads):
    """msort wants no indices: long float32 lanes take the values-only sort,
    whose NaN and zero runs are refilled from the input in input order."""
    a = float32_cases(np.random.default_rng(len(case)))[case]
    want = bits_of(np.sort(a, kind="stable"))
    np.testing.assert_array_equal(bits_of(tl.msort(tl.tensor(a)).numpy()), want)
    np.testing.assert_array_equal(bits_of(tl.msort(noncontiguous(tl.tensor(a))).numpy()), want)
    col = tl.msort(tl.tensor(a[:, None]))  # one lane along dim 0 of an (N, 1) tensor
    assert tuple(col.shape) == (N, 1)
    np.testing.assert_array_equal(bits_of(col.numpy()[:, 0]), want)


def test_long_msort_signed_zeros_without_nans(threads):
    """Zeros are refilled from the input only when a -0.0 (or a NaN) is there."""
    rng = np.random.default_rng(12)
    a = rng.integers(-2, 3, N).astype(np.float32)
    a[rng.random(N) < 0.3] = -0.0
    np.testing.assert_array_equal(bits_of(tl.msort(tl.tensor(a)).numpy()),
                                  bits_of(np.sort(a, kind="stable")))
    a[a == 0] = 0.0  # +0.0 only: decoded, not refilled
    np.testing.assert_array_equal(bits_of(tl.msort(tl.tensor(a)).numpy()),
                                  bits_of(np.sort(a, kind="stable")))


def test_long_msort_int32_and_fallbacks(threads):
    rng = np.random.default_rng(11)
    i = rng.integers(-2 ** 31, 2 ** 31, N, dtype=np.int64).astype(np.int32)
    np.testing.assert_array_equal(tl.msort(tl.tensor(i)).numpy(), np.sort(i))
    few = rng.integers(-4, 4, N).astype(np.int32)
    np.testing.assert_array_equal(tl.msort(tl.tensor(few)).numpy(), np.sort(few))
    # not values-only: float64, and two lanes whose outputs are strided
    f = rng.standard_normal(N)
    f[::17] = np.nan
    np.testing.assert_array_equal(tl.msort(tl.tensor(f)).numpy(), np.sort(f))
    two = rng.standard_normal((N, 2)).astype(np.float32)
    np.testing.assert_array_equal(tl.msort(tl.tensor(two)).numpy(), np.sort(two, axis=0))
