"""The CUDA kernels of src/gpu/special: digamma, polygamma, i0e and i1e in
float32/float64 (the CPU's series, compiled for the device from
tl_special_scalar.h), nan_to_num and nextafter in float16/bfloat16 (on the
16-bit patterns, as the CPU's loops).

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves against the same references; "cuda" runs only
where a GPU is present and skips elsewhere with "requires a CUDA device";
"emulated" (the fake device given the CPU's kernels, in a process of its own)
takes the op layer's device paths around the kernels (inputs cast on the
device, CPU scalars by value, scratch outputs).

References: SciPy (digamma, polygamma, i0e, i1e) and NumPy (float16
nextafter and nan_to_num); mpmath's large-order polygamma values recorded in
tests/golden/polygamma_large_order.json; for bfloat16, which NumPy lacks,
the next value in the sorted list of all bfloat16 values (an oracle checked
against NumPy's float16 nextafter first) and the CPU's result.  Every input
goes through the layouts the launcher treats differently: 0-d, empty, flat
contiguous (the vector path), transposed, strided, expanded (stride 0) and
broadcast operands."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
from torchlike import _C
from oracle import assert_close, cuda_test_devices, run_emulated, to_tensor

DEVICES, EMULATED = cuda_test_devices()
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# float32 rounds the double result once; float64 differs from SciPy by a few
# ulps, and absolutely next to digamma's root at 1.4616...
TOL = {"float32": (1e-6, 1e-7), "float64": (1e-12, 1e-14)}
NP = {"float32": np.float32, "float64": np.float64}


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def layouts(device, x, dtype):
    """(tensor on device, the same values as an ndarray) for a 2-d ndarray x
    of at least 2 x 3: every layout the launcher plans differently."""
    t = on(device, to_tensor(x, dtype))
    yield t, x                                    # contiguous: one flat dim
    yield t.t(), x.T                              # transposed: n-d
    yield t[:, ::2], x[:, ::2]                    # strided rows
    yield t[:, 1:2].expand(x.shape[0], 6), np.broadcast_to(x[:, 1:2], (x.shape[0], 6))
    yield t[1, 2], x[1, 2]                        # 0-d
    yield t[:0], x[:0]                            # empty
    yield t[:, :0].t(), x[:, :0].T                # empty, transposed


def run_unary(device, name, fn, reference, x, dtype):
    """fn on every layout of x against reference (in float64, rounded to dtype)
    and against the CPU's result for the same input."""
    rtol, atol = TOL[dtype]
    for t, xs in layouts(device, x, dtype):
        got = fn(t)
        assert got.device == t.device and got.dtype == t.dtype
        want = np.asarray(reference(np.asarray(xs, np.float64))).astype(NP[dtype])
        assert_close(back(got), want, dtype=dtype, rtol=rtol, atol=atol)
        assert_close(back(got), fn(back(t)).numpy(), dtype=dtype, rtol=rtol, atol=atol)


def digamma_values(rng):
    x = np.concatenate([rng.uniform(-9.9, 40, 186), 10.0 ** rng.uniform(-8, 12, 60),
                        [0.0, -0.0, -1.0, -7.0, -2.5, -1e5 - 0.5, 1e-10, 1.4616321449683622,
                         9.99, 10.0, np.inf, -np.inf, np.nan, 1e300]])
    return x.reshape(13, 20)


# ---- digamma, i0e, i1e -----------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_on_device(device, dtype):
    x = digamma_values(np.random.default_rng(1)).astype(NP[dtype])
    run_unary(device, "digamma", tl.digamma, sp.digamma, x, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["i0e", "i1e"])
def test_scaled_bessel_on_device(device, dtype, name):
    rng = np.random.default_rng(2)
    # both sides of the series/expansion switch at |x| = 20, and far past
    # where exp(-|x|) * i0(x) would overflow (|x| > 713)
    x = np.concatenate([rng.uniform(-60, 60, 200), rng.uniform(-1e4, 1e4, 40),
                        [0.0, -0.0, 20.0, -20.0, 20.000001, 19.999999, 700.0, -800.0, 1e6,
                         -1e30, np.inf, -np.inf, np.nan, 1e-300, -3e-8, 5.0]])
    run_unary(device, name, getattr(tl, name), getattr(sp, name), x.astype(NP[dtype]).reshape(16, 16),
              dtype)


# ---- polygamma -------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_on_device(device, dtype, n):
    rng = np.random.default_rng(3 + n)
    x = np.concatenate([rng.uniform(0.05, 40, 120), rng.uniform(-6.9, 0, 60),
                        [0.0, -3.0, 1e-3, 0.5, -0.5, -2.25, 25.5, 100.0, 1e4, np.inf, np.nan,
                         1.4616321449683622]])
    x = x.astype(NP[dtype]).reshape(16, 12)
    rtol, atol = TOL[dtype]
    if dtype == "float64" and n:
        rtol = 1e-11  # the direct sums of many powers
    for t, xs in layouts(device, x, dtype):
        want = sp.polygamma(n, np.asarray(xs, np.float64)).astype(NP[dtype])
        got = tl.polygamma(n, t)
        assert got.device == t.device and got.dtype == t.dtype
        assert_close(back(got), want, dtype=dtype, rtol=rtol, atol=atol)
        assert_close(back(got), tl.polygamma(n, back(t)).numpy(), dtype=dtype, rtol=rtol,
                     atol=atol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polygamma_orders_as_tensors_broadcast_and_as_cpu_scalars(device, dtype):
    """_polygamma(x, n) with n a tensor of orders (broadcast against x, and a
    strided view), or a 0-d CPU tensor handed to the device's kernel by value."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0.1, 12, size=(5,)).astype(NP[dtype])
    orders = np.array([[0.0], [1.0], [2.0], [4.0]], dtype=NP[dtype])
    rtol, atol = TOL[dtype]
    want = sp.polygamma(orders.astype(int), x.astype(np.float64)).astype(NP[dtype])
    tx, tn = on(device, to_tensor(x, dtype)), on(device, to_tensor(orders, dtype))
    got = _C._polygamma(tx, tn)
    assert tuple(got.shape) == (4, 5)
    assert_close(back(got), want, dtype=dtype, rtol=rtol, atol=atol)
    wide = on(device, to_tensor(np.repeat(orders, 3, axis=0), dtype))[::3]
    assert_close(back(_C._polygamma(tx, wide)), want, dtype=dtype, rtol=rtol, atol=atol)
    host_n = to_tensor(np.array(3.0), dtype)  # stays on the CPU
    assert_close(back(_C._polygamma(tx, host_n)), sp.polygamma(3, x.astype(np.float64))
                 .astype(NP[dtype]), dtype=dtype, rtol=rtol, atol=atol)
    # orders that are not whole numbers >= 0 give NaN (the Python wrapper refuses them first)
    bad = on(device, to_tensor(np.array([-1.0, 1.5, np.nan]), dtype))
    assert np.isnan(back(_C._polygamma(on(device, to_tensor(np.array(2.0), dtype)), bad))
                    .numpy()).all()


POLYGAMMA_GOLDEN = json.loads((ROOT / "tests/golden/polygamma_large_order.json").read_text())


@pytest.mark.parametrize("device", DEVICES)
def test_polygamma_large_orders_on_device_match_mpmath(device):
    """Orders above 100 take the scaled sum assembled in logs."""
    for row in POLYGAMMA_GOLDEN:
        x = on(device, tl.tensor(row["x"], dtype=tl.float64))
        got = back(tl.polygamma(row["n"], x)).tolist()
        for xi, g, want in zip(row["x"], got, (float(v) for v in row["value"])):
            if math.isfinite(want) and want != 0:
                assert abs(g - want) <= 1e-11 * abs(want), (row["n"], xi, g, want)
            else:
                assert g == want, (row["n"], xi, g, want)


# ---- nextafter in float16 and bfloat16 ---------------------------------------------------

def half_values(dtype):
    """Every 16-bit pattern of dtype, as float32 values (exact)."""
    bits = np.arange(65536, dtype=np.uint32)
    if dtype == "float16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float32)
    return (bits << 16).view(np.float32)


def next_by_order(dtype, a, b):
    """nextafter(a, b) for values a, b of dtype (as float32): the neighbour of
    a in the sorted list of dtype's values, towards b (b itself when equal)."""
    v = half_values(dtype)
    v = np.unique(v[~np.isnan(v)])  # -0.0 and 0.0 are one entry
    i = np.clip(np.searchsorted(v, a), 0, len(v) - 1)
    up, down = v[np.clip(i + 1, 0, len(v) - 1)], v[np.clip(i - 1, 0, len(v) - 1)]
    out = np.where(b > a, up, np.where(b < a, down, b))
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out).astype(np.float32)


def test_the_sorted_order_oracle_is_numpys_float16_nextafter():
    a = half_values("float16")
    for target in (np.inf, -np.inf, 0.0, 1.0, -2.5, np.nan):
        b = np.full_like(a, target)
        want = np.nextafter(a.astype(np.float16), b.astype(np.float16)).astype(np.float32)
        np.testing.assert_array_equal(next_by_order("float16", a, b), want)


def as_float(t):
    return back(t).float().numpy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nextafter_half_steps_one_pattern_on_device(device, dtype):
    a = half_values(dtype)  # every pattern: zeros, subnormals, the largest, infinities, NaNs
    ta = on(device, to_tensor(a, dtype))
    for target in (np.inf, -np.inf, 0.0, -0.0, 1.0, -3.0, np.nan):
        want = next_by_order(dtype, a, np.float32(target))
        for tb in (on(device, tl.full((65536,), float(target), dtype=getattr(tl, dtype))),
                   on(device, tl.tensor(float(target), dtype=getattr(tl, dtype))),  # broadcast 0-d
                   tl.tensor(float(target), dtype=getattr(tl, dtype)),  # a CPU scalar: by value
                   float(target)):  # a Python number
            got = tl.nextafter(ta, tb)
            assert got.dtype == getattr(tl, dtype) and got.device == ta.device
            g = as_float(got)
            np.testing.assert_array_equal(g, want, err_msg=f"{dtype} towards {target}")
            np.testing.assert_array_equal(np.signbit(g), np.signbit(as_float(
                tl.nextafter(back(ta), back(tb) if isinstance(tb, tl.Tensor) else tb))))
    # from the smallest subnormals towards zero: the zero of the side it came from
    tiny = on(device, to_tensor(a[[0x0001, 0x8001]], dtype))
    g = as_float(tl.nextafter(tiny, on(device, to_tensor(np.array([-1.0, 1.0], np.float32), dtype))))
    assert g.tolist() == [0.0, 0.0] and np.signbit(g).tolist() == [False, True]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nextafter_half_layouts_and_broadcast_on_device(device, dtype):
    rng = np.random.default_rng(5)
    a = rng.uniform(-4, 4, size=(6, 8)).astype(np.float32)
    a = as_float(to_tensor(a, dtype))  # values of dtype
    b = np.array([np.inf, -np.inf, 0.0, 1.0, -1.0, 2.0, np.nan, -0.5], dtype=np.float32)
    tb = on(device, to_tensor(b, dtype))
    for t, xs in layouts(device, a, dtype):
        xs = np.asarray(xs)
        bb = np.broadcast_to(b[: xs.shape[-1]] if xs.ndim else b[0], xs.shape)
        other = tb[: xs.shape[-1]] if xs.ndim else tb[0]
        got = tl.nextafter(t, other)
        want = next_by_order(dtype, xs, bb)
        np.testing.assert_array_equal(as_float(got), want)
        np.testing.assert_array_equal(as_float(got), as_float(tl.nextafter(back(t), back(other))))
        if dtype == "float16":  # NumPy has float16: the signs of zeros too
            ref = np.nextafter(xs.astype(np.float16), bb.astype(np.float16)).astype(np.float32)
            g = as_float(got)
            np.testing.assert_array_equal(g, ref)
            np.testing.assert_array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(ref[~np.isnan(ref)]))
    # (4, 1) against (8,): both operands broadcast
    col = on(device, to_tensor(a[:4, :1], dtype))
    want = next_by_order(dtype, np.broadcast_to(a[:4, :1], (4, 8)), np.broadcast_to(b, (4, 8)))
    np.testing.assert_array_equal(as_float(tl.nextafter(col, tb)), want)


# ---- nan_to_num in float16 and bfloat16 ---------------------------------------------------

F16_SPECIALS = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 65504.0, -65504.0, 6e-8, -2.0,
                         np.nan, 0.1, 1e4], dtype=np.float16)
BF16_MAX = 3.3895313892515355e38


@pytest.mark.parametrize("device", DEVICES)
def test_nan_to_num_float16_on_device(device):
    rng = np.random.default_rng(6)
    x = np.concatenate([F16_SPECIALS, rng.uniform(-100, 100, 36).astype(np.float16)]).reshape(6, 8)
    x.flat[::5] = np.nan
    x.flat[1::7] = np.inf
    x.flat[2::9] = -np.inf
    for kwargs in ({}, {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}, {"nan": 0.1},
                   {"posinf": 1e6, "neginf": -70000.0},  # beyond float16: rounds to +-inf
                   {"nan": -1.0, "posinf": 65504.0}):
        for t, xs in layouts(device, x, "float16"):
            got = tl.nan_to_num(t, **kwargs)
            assert got.dtype == tl.float16 and got.device == t.device
            want = np.nan_to_num(np.asarray(xs), **kwargs)
            assert_close(back(got), want, dtype="float16", rtol=0, atol=0)
            assert_close(back(got), tl.nan_to_num(back(t), **kwargs).numpy(), dtype="float16",
                         rtol=0, atol=0)
    # in place, and into out=
    t = on(device, to_tensor(x, "float16"))
    out = on(device, tl.empty((6, 8), dtype=tl.float16))
    tl.nan_to_num(t, nan=3.0, out=out)
    assert_close(back(out), np.nan_to_num(x, nan=3.0), dtype="float16", rtol=0, atol=0)
    t.nan_to_num_()
    assert_close(back(t), np.nan_to_num(x), dtype="float16", rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_nan_to_num_bfloat16_on_device(device):
    rng = np.random.default_rng(7)
    x = rng.uniform(-1e3, 1e3, size=(5, 8)).astype(np.float32)
    x.flat[::4] = np.nan
    x.flat[1::6] = np.inf
    x.flat[2::7] = -np.inf
    x = as_float(to_tensor(x, "bfloat16"))  # values of bfloat16
    finite = np.isfinite(x)
    for kwargs in ({}, {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}, {"posinf": 1e39}):
        for t, xs in layouts(device, x, "bfloat16"):
            got = tl.nan_to_num(t, **kwargs)
            assert got.dtype == tl.bfloat16 and got.device == t.device
            g, xs = as_float(got), np.asarray(xs)
            np.testing.assert_array_equal(g, as_float(tl.nan_to_num(back(t), **kwargs)))
            fin = np.isfinite(xs)
            np.testing.assert_array_equal(g[fin], xs[fin])  # finite values untouched
            np.testing.assert_array_equal(g[np.isnan(xs)], kwargs.get("nan", 0.0))
            # the infinities' default is bfloat16's own largest value, not float32's
            pos = {1e39: np.inf}.get(kwargs.get("posinf"), kwargs.get("posinf", BF16_MAX))
            np.testing.assert_array_equal(g[xs == np.inf], np.float32(pos))
            np.testing.assert_array_equal(g[xs == -np.inf], np.float32(kwargs.get("neginf",
                                                                                    -BF16_MAX)))
    assert finite.any() and (~finite).any()


# ---- the table, and the emulated run ---------------------------------------------------

SPECIAL_ROWS = [("digamma", "float32"), ("digamma", "float64"), ("_polygamma", "float32"),
                ("_polygamma", "float64"), ("i0e", "float32"), ("i0e", "float64"),
                ("i1e", "float32"), ("i1e", "float64"), ("nan_to_num", "float16"),
                ("nan_to_num", "bfloat16"), ("nextafter", "float16"), ("nextafter", "bfloat16")]


@pytest.mark.skipif(not _C._dispatch_table()["add"][1]["cuda"], reason="built without CUDA")
def test_the_cuda_rows_of_src_gpu_special_are_device_kernels():
    for name, dtype in SPECIAL_ROWS:
        assert _C._dispatch_lookup(name, "cpu", dtype) == "loop"
        assert _C._dispatch_lookup(name, "cuda", dtype) == "set", (name, dtype)


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the CPU's
    kernels as its device kernels, in a process of its own."""
    run_emulated(__file__)
