"""CUDA reductions and scans (src/gpu/reduce): argmax/argmin, max/min with
indices, logsumexp, norm, cumsum/cumprod, and the long reductions split over
many blocks, against NumPy and the CPU.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves, "cuda" runs where a GPU is present (make
gpu-check) and skips with "requires a CUDA device" elsewhere, and "emulated"
(the fake device given the CPU's kernels and passes, in a process of its own)
runs the op layer's device paths: no host read of a device accumulator, the
finishes as device ops, the index and scan passes through their hooks."""
import numpy as np
import pytest

import torchlike as tl
from torchlike import _C
from oracle import (INT_DTYPES, assert_close, cuda_test_devices, random_array, run_emulated,
                    to_tensor)

DEVICES, EMULATED = cuda_test_devices()

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
        "float64"]
FAMILY = ["sum", "nansum", "prod", "mean", "nanmean", "var", "std", "amax", "amin", "argmax",
          "argmin", "all", "any", "count_nonzero", "logsumexp", "norm", "max", "min", "cumsum",
          "cumprod"]


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def values_of(t):
    """The values a tensor holds, as NumPy sees them (bfloat16 as float32)."""
    t = back(t)
    return t.float().numpy() if t.dtype == tl.bfloat16 else t.numpy()


def sample(shape, dtype, rng, low=-3, high=4):
    """A tensor of dtype and its exact values as an ndarray (half types rounded)."""
    t = to_tensor(random_array(shape, dtype, rng, low=low, high=high), dtype)
    return t, values_of(t)


def layouts(device, t):
    """(label, tensor) pairs holding t's values: contiguous, transposed
    (non-contiguous), and, for a 1-row tensor, a broadcast-expanded one."""
    d = on(device, t)
    out = [("contiguous", d)]
    if t.ndim >= 2:
        out.append(("transposed", on(device, t.transpose(0, -1).contiguous()).transpose(0, -1)))
    if t.ndim >= 1 and t.numel():
        row = on(device, t[:1])  # stride 0 along dim 0 once expanded
        out.append(("expanded", row.expand(*t.shape)))
    return out


def same_error(fn, device, t):
    """fn raises on the device exactly what it raises on the CPU."""
    with pytest.raises(Exception) as cpu:
        fn(t)
    with pytest.raises(type(cpu.value)) as dev:
        fn(on(device, t))
    assert str(dev.value) == str(cpu.value)
    return str(cpu.value)


def test_the_family_has_cuda_rows_for_every_dtype():
    t = _C._dispatch_table()
    if not t["add"][1]["cuda"]:
        pytest.skip("built without CUDA")
    for name in FAMILY:
        assert sorted(t[name][1]["cuda"]) == sorted(t[name][1]["cpu"]), name


# ---- argmax / argmin / max and min with indices -------------------------------------------

DIMS = [((), None), ((7,), None), ((7,), 0), ((3, 4, 5), None), ((3, 4, 5), 0), ((3, 4, 5), 1),
        ((3, 4, 5), -1), ((6, 300), 1), ((300, 6), 0)]


def np_arg(x, is_max, dim):
    """NumPy's argmax/argmin: the first NaN, else the first extreme."""
    f = np.argmax if is_max else np.argmin
    return np.asarray(f(x, axis=dim)).astype(np.int64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL)
def test_argmax_argmin_on_device(device, dtype):
    rng = np.random.default_rng(11)
    for shape, dim in DIMS:
        t, _ = sample(shape, dtype, rng)  # few distinct values: many ties
        for label, d in layouts(device, t):
            x = values_of(d)
            for is_max in (True, False):
                fn = tl.argmax if is_max else tl.argmin
                for keepdim in (False, True):
                    got = fn(d, dim=dim, keepdim=keepdim)
                    exp = np_arg(x, is_max, dim)
                    if keepdim and dim is not None:
                        exp = np.expand_dims(exp, dim)
                    elif keepdim and x.ndim:
                        exp = exp.reshape((1,) * x.ndim)
                    assert got.device == d.device
                    assert_close(back(got), exp), (label, shape, dim, keepdim)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", REAL)
def test_max_min_with_indices_on_device(device, dtype):
    rng = np.random.default_rng(12)
    for shape, dim in DIMS:
        if dim is None:
            continue
        t, _ = sample(shape, dtype, rng)
        for label, d in layouts(device, t):
            x = values_of(d)
            for is_max in (True, False):
                fn = tl.max if is_max else tl.min
                for keepdim in (False, True):
                    v, i = fn(d, dim, keepdim)
                    ei = np_arg(x, is_max, dim)
                    ev = np.take_along_axis(x, np.expand_dims(ei, dim), dim)
                    if not keepdim:
                        ev = ev.squeeze(dim)
                    else:
                        ei = np.expand_dims(ei, dim)
                    assert v.dtype == t.dtype and i.dtype == tl.int64
                    assert_close(back(i), ei)
                    assert_close(back(v), ev, check_dtype=False, rtol=0, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_index_reductions_with_nans_and_ties_on_device(device):
    x = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 7.0, 7.0, -1.0], [-np.inf, -np.inf, -np.inf,
                  -np.inf], [np.nan, np.nan, 0.0, 9.0]])
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        d = on(device, to_tensor(x, dtype))
        for dim in (None, 0, 1):
            assert_close(back(tl.argmax(d, dim)), np_arg(x, True, dim))
            assert_close(back(tl.argmin(d, dim)), np_arg(x, False, dim))
        v, i = tl.max(d, 1)
        assert_close(back(i), np.array([1, 1, 0, 0]))
        assert np.isnan(values_of(v)[[0, 3]]).all() and values_of(v)[1] == 7
        v, i = tl.min(d, 0)
        assert_close(back(i), np.array([3, 0, 2, 0]))  # a NaN wins min too


@pytest.mark.parametrize("device", DEVICES)
def test_long_index_reductions_split_over_blocks_on_device(device):
    """Ranges long enough to be cut into pieces (on CUDA): the first of equal
    maxima in different pieces, and the first NaN, still win."""
    n = 1 << 20
    x = np.zeros(n, np.float32)
    x[[700_001, 900_000, 123_457]] = [5, 5, -2]
    d = on(device, to_tensor(x))
    assert back(tl.argmax(d)).item() == 700_001
    assert back(tl.argmin(d)).item() == 123_457
    x[[999_999, 400_003]] = np.nan
    d = on(device, to_tensor(x))
    assert back(tl.argmax(d)).item() == 400_003 == back(tl.argmin(d)).item()
    m = np.tile(np.arange(1 << 17, dtype=np.int32) % 1000, (3, 1))  # 3 long rows, many ties
    v, i = tl.max(on(device, to_tensor(m)), 1)
    assert_close(back(i), np.full(3, 999))
    assert_close(back(v), np.full(3, 999, np.int32))


@pytest.mark.parametrize("device", DEVICES)
def test_index_reductions_refuse_as_the_cpu_on_device(device):
    empty = tl.zeros(2, 0)
    assert "non-zero size" in same_error(lambda t: tl.argmax(t, 1), device, empty)
    assert "Expected reduction dim to be specified" in same_error(tl.argmax, device, empty)
    same_error(lambda t: tl.max(t, 1), device, empty)
    same_error(lambda t: tl.argmin(t, 0), device, tl.zeros(3, dtype=tl.complex64))


# ---- logsumexp -----------------------------------------------------------------------------

def np_logsumexp(x, dims, keepdim):
    x = x.astype(np.float64)
    m = np.max(x, axis=dims, keepdims=True) if x.size else np.zeros([1] * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        r = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axis=dims) if dims is not None else r.reshape(())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int32", "float16", "bfloat16", "float32", "float64"])
def test_logsumexp_on_device(device, dtype):
    rng = np.random.default_rng(13)
    for shape, dims in [((), None), ((7,), 0), ((3, 4, 5), (0, 2)), ((3, 4, 5), -1),
                        ((6, 300), 1), ((2, 0, 3), 1), ((2, 0, 3), 2)]:
        t, _ = sample(shape, dtype, rng)
        for label, d in layouts(device, t):
            x = values_of(d)
            for keepdim in (False, True):
                dim_arg = dims if dims is not None else list(range(t.ndim))
                got = tl.logsumexp(d, dim_arg, keepdim)
                exp = np_logsumexp(x, dims if dims is not None else tuple(range(x.ndim)), keepdim)
                want = "float32" if dtype == "int32" else dtype
                assert got.dtype.name == want
                rtol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6}.get(want, 1e-12)
                assert_close(back(got), exp, rtol=rtol, atol=rtol, check_dtype=False)
                # the device's log is within an ulp of the CPU's (not always its rounding)
                assert_close(back(got), values_of(tl.logsumexp(back(d), dim_arg, keepdim)),
                             rtol=rtol, atol=rtol, check_dtype=False)


@pytest.mark.parametrize("device", DEVICES)
def test_logsumexp_infinities_and_nans_on_device(device):
    inf, nan = np.inf, np.nan
    x = np.array([[-inf, -inf, -inf], [1.0, inf, 2.0], [1.0, nan, inf], [1000.0, 1000.0, -inf]])
    for dtype in ("float32", "float64"):
        got = values_of(tl.logsumexp(on(device, to_tensor(x, dtype)), 1))
        exp = np.array([-inf, inf, nan, 1000 + np.log(2)])
        np.testing.assert_allclose(got, exp, rtol=1e-6)


# ---- norm ----------------------------------------------------------------------------------

def np_norm(x, p, dims, keepdim):
    a = np.abs(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
    kw = {"axis": dims, "keepdims": keepdim}
    if p == np.inf:
        return np.max(a, **kw)
    if p == -np.inf:
        return np.min(a, **kw)
    if p == 0:
        return np.sum(a != 0, **kw).astype(np.float64)
    return np.sum(a ** p, **kw) ** (1.0 / p)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64",
                                   "complex128"])
def test_norm_every_ord_on_device(device, dtype):
    rng = np.random.default_rng(14)
    real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    rtol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-5}.get(real, 1e-12)
    for shape, dims in [((), None), ((7,), 0), ((3, 4, 5), (0, 2)), ((3, 4, 5), -1),
                        ((6, 300), 1), ((2, 0, 3), 1)]:
        t, x = sample(shape, dtype, rng)
        if x.size:
            x.flat[::4] = 0  # zeros for the 0-norm
            t = to_tensor(x, dtype)
            x = values_of(t)
        for label, d in layouts(device, t):
            x = values_of(d)
            for p in (2, 1, np.inf, -np.inf, 0, 3, 0.5):
                if np.isinf(p) and x.size == 0:
                    continue
                for keepdim in (False, True):
                    got = tl.norm(d, p=float(p), dim=dims, keepdim=keepdim)
                    assert got.dtype.name == real
                    exp = np_norm(x, p, dims, keepdim)
                    if real == "float16":  # large sums overflow to inf, as they must
                        exp = np.asarray(exp).astype(np.float16)
                    assert_close(back(got), exp, rtol=rtol, atol=rtol, check_dtype=False)
    x = np.array([[3.0, np.nan, -4.0], [1.0, -2.0, 2.0]])
    d = on(device, to_tensor(x))
    for p in (2, 1, np.inf, -np.inf, 3):
        np.testing.assert_allclose(values_of(tl.norm(d, p=float(p), dim=1)),
                                   np_norm(x, p, 1, False))


@pytest.mark.parametrize("device", DEVICES)
def test_norm_refuses_as_the_cpu_on_device(device):
    msg = same_error(lambda t: tl.norm(t, p=float("inf"), dim=1), device, tl.zeros(2, 0))
    assert "does not have an identity" in msg
    same_error(lambda t: tl.norm(t, p=2.0), device, tl.zeros(3, dtype=tl.int32))


# ---- cumsum / cumprod ----------------------------------------------------------------------

SCAN_CASES = [((), 0), ((0,), 0), ((7,), 0), ((7,), -1), ((3, 4, 5), 0), ((3, 4, 5), 1),
              ((3, 4, 5), 2), ((2, 0, 3), 1), ((2, 0, 3), 2), ((5, 300), 1), ((300, 5), 0),
              ((3, 2000), 1)]
SCAN_DTYPES = REAL + ["complex64", "complex128"]


def np_scan(x, prod, dim, work):
    f = np.cumprod if prod else np.cumsum
    if x.ndim == 0:
        return x.astype(work)
    return f(x.astype(work), axis=dim)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", SCAN_DTYPES)
def test_cumsum_cumprod_on_device(device, dtype):
    rng = np.random.default_rng(15)
    result = "int64" if dtype == "bool" or dtype in INT_DTYPES else dtype
    work = {"int64": np.int64, "complex64": np.complex128,
            "complex128": np.complex128}.get(result, np.float64)
    for shape, dim in SCAN_CASES:
        for prod in (False, True):
            lo, hi = (-3, 4) if not prod else (0.95, 1.05)
            if prod and (dtype == "bool" or dtype in INT_DTYPES):
                lo, hi = -2, 3  # int64 products wrap, as the CPU's and NumPy's
            t, x = sample(shape, dtype, rng, low=lo, high=hi)
            if prod and dtype.startswith("complex"):  # |z| near 1: long products stay finite
                z = np.exp(1j * rng.uniform(-1, 1, shape)) * rng.uniform(0.99, 1.01, shape)
                t = to_tensor(np.asarray(z), dtype)
                x = values_of(t)
            fn = tl.cumprod if prod else tl.cumsum
            for label, d in layouts(device, t):
                x = values_of(d)
                got = fn(d, dim)
                assert got.dtype.name == result and tuple(got.shape) == tuple(shape)
                exp = np_scan(x, prod, dim, work)
                if result == "float16":  # overflows to inf, as it must
                    exp = exp.astype(np.float16)
                rtol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6,
                        "complex64": 1e-6}.get(result, 1e-12)
                assert_close(back(got), exp, rtol=rtol, atol=rtol, check_dtype=False)
                assert_close(back(got), values_of(fn(back(d), dim)), rtol=rtol, atol=rtol,
                             check_dtype=False)


@pytest.mark.parametrize("device", DEVICES)
def test_scan_shapes_of_every_kernel_and_dtype_argument_on_device(device):
    """Shapes that pick each CUDA scan kernel: one long line (cub::DeviceScan),
    many strided lines (a thread each), a few strided lines (a block each)."""
    rng = np.random.default_rng(16)
    for shape, dim in [((1 << 17,), 0), ((2, 70_000), 1), ((5, 9000), 0), ((20_000, 3), 0),
                       ((40, 7, 30), 1)]:
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        d = on(device, to_tensor(x))
        assert_close(back(tl.cumsum(d, dim)), np.cumsum(x.astype(np.float64), axis=dim),
                     rtol=1e-5, atol=1e-4, check_dtype=False)
        i = (x * 10).astype(np.int64)
        assert_close(back(tl.cumsum(on(device, to_tensor(i)), dim)), np.cumsum(i, axis=dim))
    x = np.arange(1, 11, dtype=np.int32)
    d = on(device, to_tensor(x))
    assert_close(back(tl.cumsum(d, 0, dtype=tl.float64)), np.cumsum(x.astype(np.float64)))
    assert_close(back(tl.cumprod(d, 0, dtype=tl.float32)),
                 np.cumprod(x.astype(np.float64)).astype(np.float32))
    big = np.full(70, 3, np.int64)  # 3**70 wraps in int64 as the CPU's
    assert_close(back(tl.cumprod(on(device, to_tensor(big)), 0)),
                 tl.cumprod(to_tensor(big), 0).numpy())
    same_error(lambda t: tl.cumsum(t, 2), device, tl.zeros(3, 4))  # a dim out of range


# ---- long reductions: many blocks, one answer ----------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_long_full_and_few_output_reductions_on_device(device):
    """A full reduction and a few long rows (cut into pieces on CUDA): the
    CPU's answers, and the same bits on every run."""
    rng = np.random.default_rng(17)
    x = rng.uniform(-1, 1, size=1 << 21).astype(np.float32)
    d = on(device, to_tensor(x))
    s = back(tl.sum(d))
    assert_close(s, np.float32(np.sum(x.astype(np.float64))), rtol=1e-6, atol=1e-6)
    assert back(tl.sum(d)).item() == s.item()  # deterministic
    m = x.reshape(4, -1)
    dm = on(device, to_tensor(m))
    for name, ref in (("sum", np.sum), ("mean", np.mean), ("amax", np.amax), ("amin", np.amin)):
        assert_close(back(getattr(tl, name)(dm, 1)), ref(m.astype(np.float64), axis=1),
                     rtol=1e-6, atol=1e-6, check_dtype=False)
    assert_close(back(tl.var(dm, 1)), np.var(m.astype(np.float64), axis=1, ddof=1), rtol=1e-5,
                 atol=1e-7, check_dtype=False)
    assert_close(back(tl.norm(d)), np.linalg.norm(x.astype(np.float64)), rtol=1e-6,
                 check_dtype=False)
    assert_close(back(tl.logsumexp(dm, 1)), np_logsumexp(m, 1, False), rtol=1e-6,
                 check_dtype=False)
    cols = x.reshape(-1, 64)  # outputs side by side: a thread per piece of a column on CUDA
    dc = on(device, to_tensor(cols))
    assert_close(back(tl.sum(dc, 0)), np.sum(cols.astype(np.float64), axis=0), rtol=1e-6,
                 atol=1e-6, check_dtype=False)
    assert_close(back(tl.argmax(dc, 0)), np.argmax(cols, axis=0))
    assert_close(back(tl.amin(dc.t(), 1)), np.amin(cols, axis=0))
    assert_close(back(tl.std(dc[:, :40], 0)), np.std(cols[:, :40].astype(np.float64), axis=0,
                 ddof=1), rtol=1e-6, atol=1e-7, check_dtype=False)
    i = (x * 1000).astype(np.int64)
    assert back(tl.sum(on(device, to_tensor(i)))).item() == int(i.sum())
    assert_close(back(tl.sum(on(device, to_tensor(i.reshape(-1, 256))), 0)),
                 i.reshape(-1, 256).sum(0))
    c = (x[: 1 << 18] + 1j * x[1 << 18: 2 << 18]).astype(np.complex64)
    assert_close(back(tl.sum(on(device, to_tensor(c)))), np.sum(c.astype(np.complex128)),
                 rtol=1e-6, atol=1e-5, check_dtype=False)


# ---- the device paths, emulated ------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the CPU's
    kernels and passes as its own, in a process of its own."""
    run_emulated(__file__)
