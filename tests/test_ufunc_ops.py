"""gcd, lcm, heaviside, sinc, cbrt, ldexp and frexp (torchlike functions,
Tensor methods, out=) and the NumPy ufuncs that run them on tensors: gcd,
lcm, heaviside, cbrt, spacing, divmod, modf, frexp.  Values against NumPy and
Python's math over dtypes and layouts; PyTorch's edge semantics from
tests/golden/ufunc_ops.json (scripts/golden_ufunc_ops.py)."""
import math

import numpy as np
import pytest

import torchlike as tl
from oracle import assert_close, golden_calls, noncontiguous

INTS = ["uint8", "int8", "int16", "int32", "int64"]
I64 = np.iinfo(np.int64)


def _ints(dtype, shape, seed):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    a = rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True)
    return a.astype(dtype)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (4,)), ((), ()), ((0, 3), (3,))])
def test_gcd_lcm_match_numpy(name, dtype, shapes):
    a, b = _ints(dtype, shapes[0], 1), _ints(dtype, shapes[1], 2)
    expected = getattr(np, name)(a, b)
    fn = getattr(tl, name)
    ta, tb = tl.tensor(a), tl.tensor(b)
    assert_close(fn(ta, tb), expected)
    assert_close(getattr(ta, name)(tb), expected)
    assert_close(getattr(np, name)(ta, tb), expected)
    assert_close(fn(noncontiguous(ta), noncontiguous(tb)), expected)
    out = tl.empty(expected.shape, dtype=ta.dtype)
    assert fn(ta, tb, out=out) is out
    assert_close(out, expected)
    if shapes[0] == shapes[1]:
        assert getattr(ta, name + "_")(tb) is ta
        assert_close(ta, expected)


def test_gcd_of_extremes_matches_numpy_and_math():
    # NumPy's Euclid runs on the magnitudes as unsigned numbers: gcd(INT64_MIN, 6)
    # is 2 (PyTorch's signed Euclid says -2); |INT64_MIN| itself wraps to INT64_MIN
    a = np.array([I64.min, I64.min, I64.min, I64.min, I64.max, -12, 0, I64.min + 1])
    b = np.array([0, I64.min, 6, 1, I64.max, 18, 0, -1])
    assert_close(tl.gcd(tl.tensor(a), tl.tensor(b)), np.gcd(a, b))
    assert_close(tl.lcm(tl.tensor(a), tl.tensor(b)), np.lcm(a, b))
    for x, y, g in zip(a.tolist(), b.tolist(), tl.gcd(tl.tensor(a), tl.tensor(b)).tolist()):
        if math.gcd(x, y) < 2**63:
            assert g == math.gcd(x, y)
    for dtype in ["int8", "int16", "int32", "uint8"]:
        info = np.iinfo(dtype)
        a = np.array([info.min, info.min, info.max, info.min, 0], dtype=dtype)
        b = np.array([0, info.min, info.max, 2 if info.min else 4, 0], dtype=dtype)
        assert_close(tl.gcd(tl.tensor(a), tl.tensor(b)), np.gcd(a, b))
        assert_close(tl.lcm(tl.tensor(a), tl.tensor(b)), np.lcm(a, b))


def test_gcd_refuses_floats_and_bool():
    for dtype in [tl.float32, tl.bool]:
        with pytest.raises(TypeError, match=r"gcd\(\) does not support dtype"):
            tl.gcd(tl.ones(2, dtype=dtype), tl.ones(2, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_heaviside_matches_numpy(dtype):
    x = np.array([[-2.0, -0.0, 0.0, 3.0], [np.inf, -np.inf, np.nan, 1e-300]], dtype=dtype)
    v = np.array([0.5, -1.0, np.nan, 2.0], dtype=dtype)
    expected = np.heaviside(x, v)
    tx, tv = tl.tensor(x), tl.tensor(v)
    assert_close(tl.heaviside(tx, tv), expected)
    assert_close(tx.heaviside(tv), expected)
    assert_close(np.heaviside(tx, tv), expected)
    assert_close(np.heaviside(tx, 0.5), np.heaviside(x, 0.5))  # a Python scalar combines
    assert_close(tl.heaviside(noncontiguous(tx), noncontiguous(tv)), expected)
    assert tx.clone().heaviside_(tv).dtype is tx.dtype


def test_heaviside_integers_and_bool_match_numpy():
    for dtype in INTS + ["bool"]:
        x = np.array([0, 1, 3, 0], dtype=dtype) if dtype in ("uint8", "bool") \
            else np.array([-3, 0, 5, 0], dtype=dtype)
        v = np.array([7, 0, 1, 1], dtype=dtype)
        got = tl.heaviside(tl.tensor(x), tl.tensor(v))
        assert got.dtype.name == dtype  # PyTorch keeps the dtype; NumPy computes in float
        assert_close(got, np.heaviside(x, v), check_dtype=False)


def test_heaviside_has_no_derivative():
    x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = tl.heaviside(x, tl.tensor([0.5]))
    assert y.requires_grad  # recorded, as in PyTorch: backward is what refuses
    assert type(y.grad_fn).__name__ == "NotImplemented"  # PyTorch's node and error
    with pytest.raises(RuntimeError, match="^derivative for aten::heaviside is not implemented$"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_sinc_matches_numpy(dtype):
    rng = np.random.default_rng(5)
    x = rng.uniform(-6, 6, size=(4, 5)).astype(dtype)
    if dtype.startswith("complex"):
        x = x + 1j * rng.uniform(-2, 2, size=(4, 5)).astype(dtype)
    x[0, :3] = [0, 1, -2]
    tol = dict(rtol=2e-5, atol=1e-6) if dtype in ("float32", "complex64") else dict(rtol=1e-12, atol=1e-14)
    tx = tl.tensor(x)
    assert_close(tl.sinc(tx), np.sinc(x), **tol)
    assert_close(tl.special.sinc(noncontiguous(tx)), np.sinc(x), **tol)
    assert_close(tx.sinc(), np.sinc(x), **tol)
    assert_close(tl.sinc(tl.tensor([0, 1, 2])), np.sinc(np.array([0.0, 1, 2], dtype=np.float32)),
                 rtol=1e-5, atol=1e-6)


def _exact(actual, expected):
    """Equal values, NaN where NaN, and equal signs of zero."""
    got = actual.cpu().numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=True), (got, expected)
    nan = np.isnan(expected) if expected.dtype.kind == "f" else np.zeros(expected.shape, bool)
    assert np.array_equal(np.signbit(got)[~nan], np.signbit(expected)[~nan]), (got, expected)


EDGES = [0.0, -0.0, 1.0, -1.0, -2.0, 2.5, -2.5, 1e-310, -5e-324, 1.7976931348623157e308,
         np.inf, -np.inf, np.nan, 8.0, -27.0, 0.1]


def _edges(dtype):
    with np.errstate(over="ignore"):  # 1.8e308 is inf in float32
        return np.array(EDGES, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cbrt_matches_numpy(dtype):
    x = _edges(dtype)
    rng = np.random.default_rng(9)
    r = np.concatenate([x, rng.uniform(-1e3, 1e3, 1000).astype(dtype)])
    got = np.cbrt(tl.tensor(r))
    # a device's root is within one ulp of the exact one (the host's is
    # NumPy's own); NumPy's float64 loop is up to 2 ulp off on some CPUs
    # (AMD EPYC), so 3 ulp apart at most
    assert_close(got, np.cbrt(r), rtol=3e-7 if dtype == "float32" else 6.7e-16, atol=0)
    _exact(tl.cbrt(tl.tensor(x))[np.isfinite(x) == False], np.cbrt(x)[np.isfinite(x) == False])  # noqa: E712
    _exact(tl.cbrt(tl.tensor(x[:2])), np.cbrt(x[:2]))
    assert tl.cbrt(tl.tensor([-8, 27])).tolist() == [-2.0, 3.0]


def test_cbrt_float64_is_nearly_always_correctly_rounded():
    r = np.random.default_rng(3).uniform(-100, 100, 20000)
    exact = np.cbrt(r.astype(np.longdouble)).astype(np.float64)
    wrong = np.count_nonzero(tl.cbrt(tl.tensor(r)).cpu().numpy() != exact)
    assert wrong <= np.count_nonzero(np.cbrt(r) != exact)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spacing_modf_frexp_match_numpy_exactly(dtype):
    x = _edges(dtype)
    t = tl.tensor(x)
    with np.errstate(all="ignore"):
        spacing = np.spacing(x)
        finite = np.isfinite(x)
        _exact(np.spacing(t)[finite], spacing[finite])
        assert np.isnan(np.spacing(t)[~finite].cpu().numpy()).all()
        for ufunc in (np.modf, np.frexp):
            for got, want in zip(ufunc(t), ufunc(x)):
                _exact(got, want)
            for got, want in zip(ufunc(noncontiguous(t)), ufunc(x)):
                _exact(got, want)


def test_divmod_matches_numpy():
    for a, b in [(np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -2, 3])),
                 (np.array([7.5, -7.5, -0.0, 1.0, np.inf]), np.array([2.0, 2.0, 3.0, -0.0, 2.0]))]:
        with np.errstate(all="ignore"):
            for got, want in zip(np.divmod(tl.tensor(a), tl.tensor(b)), np.divmod(a, b)):
                _exact(got, want)


def test_float16_floor_divide_rounds_once_as_numpy():
    # torchlike.floor_divide of two float16 tensors rounds each step to
    # float16 (PyTorch's kernel); NumPy's float16 loop divides in float and
    # rounds once, and np.floor_divide/np.divmod on tensors and
    # torchlike.numpy keep that (65504 // 60 and 1e4-ish quotients differ)
    import torchlike.numpy as tnp
    rng = np.random.default_rng(7)
    a = np.concatenate([(rng.normal(size=2000) * 1000), [65504.0, -0.0]]).astype(np.float16)
    b = np.concatenate([(rng.normal(size=2000) * 10), [60.0, 3.0]]).astype(np.float16)
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
        _exact(np.floor_divide(tl.tensor(a), tl.tensor(b)), want)
        _exact(tnp.floor_divide(tnp.asarray(a), tnp.asarray(b)), want)
        _exact(np.divmod(tl.tensor(a), tl.tensor(b))[0], want)
        _exact(tnp.floor_divide(2.77, tnp.asarray(b)), np.floor_divide(2.77, b))
        ints = b.astype(np.int8)
        _exact(np.floor_divide(tl.tensor(a), tl.tensor(ints)), np.floor_divide(a, ints))
        out = tl.zeros(a.shape, dtype=tl.float16)
        assert np.floor_divide(tl.tensor(a), tl.tensor(b), out=out) is out
        _exact(out, want)


def test_two_output_ufuncs_write_out_pairs():
    x = np.array([1.5, -6.0, 0.0])
    for ufunc, dtypes in [(np.frexp, (tl.float64, tl.int32)), (np.modf, (tl.float64, tl.float64))]:
        out = tuple(tl.zeros(3, dtype=d) for d in dtypes)
        got = ufunc(tl.tensor(x), out=out)
        assert got[0] is out[0] and got[1] is out[1]
        for g, w in zip(got, ufunc(x)):
            _exact(g, w)
    out = (tl.zeros(3, dtype=tl.int64), tl.zeros(3, dtype=tl.int64))
    a, b = np.array([7, -7, 9]), np.array([2, 2, -4])
    np.divmod(tl.tensor(a), tl.tensor(b), out=out)
    for g, w in zip(out, np.divmod(a, b)):
        _exact(g, w)


def test_frexp_ldexp_round_trip_and_methods():
    x = tl.tensor([0.3, -5.0, 0.0, 1e-40, 3e38])
    m, e = x.frexp()
    assert e.dtype is tl.int32 and m.dtype is tl.float32
    assert (tl.ldexp(m, e) == x).all()
    y = x.clone()
    assert y.ldexp_(tl.tensor([1, 1, 1, 1, -1])) is y
    assert_close(y, x.cpu().numpy() * np.array([2, 2, 2, 2, 0.5], dtype=np.float32))
    out = tl.empty(5)
    assert tl.ldexp(m, e, out=out) is out and (out == x).all()
    assert_close(tl.ldexp(tl.tensor([[1.0], [2.0]], dtype=tl.float64), tl.tensor([0, -1, 3])),
                 np.ldexp(np.array([[1.0], [2.0]]), np.array([0, -1, 3])))


def test_frexp_refuses_integers():
    with pytest.raises(RuntimeError, match="only supports floating-point"):
        tl.frexp(tl.tensor([1, 2]))


def test_golden_pytorch_edges():
    _check_golden(lambda expr: golden_module().HALF not in expr)


@pytest.mark.host_only  # on CUDA, PyTorch's add/sub read the scalar's full value
def test_golden_half_precision_with_python_scalars():
    _check_golden(lambda expr: golden_module().HALF in expr)


def golden_module():
    return golden_calls("ufunc_ops")[1]


def _check_golden(chosen):
    calls, golden = golden_calls("ufunc_ops")
    env = {"torch": tl, "math": math}
    for expr, want in filter(lambda call: chosen(call[0]), calls):
        got = golden.outcome(expr, env)
        if "error" in want:
            assert "error" in got, (expr, got)
            if want["error"] == "NotImplementedError":  # a dtype without a loop
                assert got["error"] == "DtypeError" and "does not support dtype" in got["message"]
                assert issubclass(tl.DtypeError, NotImplementedError)
            else:
                assert got == want, expr
            continue
        assert got == want, expr
