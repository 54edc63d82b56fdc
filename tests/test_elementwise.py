"""Every elementwise op (ops.def UNARY, BINARY, WHERE, and clamp) against NumPy
(SciPy for the special functions): every dtype the op takes, the shapes and
broadcast pairs of oracle.py, non-contiguous and negative-stride inputs,
special values, random shapes and dtypes (hypothesis), and the errors for
dtypes an op refuses and shapes that do not broadcast."""
import math

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given, strategies as st

import torchlike as tl
import torchlike.numpy as tnp
from oracle import (ALL_DTYPES, BROADCAST_PAIRS, NP_DTYPES, SHAPES, TOL, assert_close,
                    noncontiguous, random_array, to_tensor)
from promotion_rules import COMPLEXES, FLOATS, INTS, kind, promote, promote_float

# NumPy warns on the overflows and invalid values these tests provoke on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

REALS = ["bool"] + INTS + FLOATS
INEXACT = FLOATS + COMPLEXES
NUMERIC = INTS + FLOATS + COMPLEXES


def np_dtype(name):
    return NP_DTYPES[name]


def compute_np(dtype):
    """NumPy dtype the oracle computes in for a result of torchlike dtype."""
    if dtype in ("float16", "bfloat16"):
        return np.float32
    return np_dtype(dtype)


def reference(fn, arrays, result):
    """fn on the inputs converted to the result's compute dtype, cast to the result."""
    with np.errstate(all="ignore"):
        try:
            out = fn(*[np.asarray(a).astype(compute_np(result)) for a in arrays])
        except TypeError:  # NumPy has no bool loop: bool as a one-bit integer
            assert result == "bool"
            out = fn(*[np.asarray(a).astype(np.int8) for a in arrays])
        return np.asarray(out).astype(np_dtype(result))


def tl_dtype(name):
    return getattr(tl, name)


# ---- result dtype rules (PyTorch's, as documented) -------------------------------

def result_dtype(rule, p):
    if rule == "float":
        return promote_float(p)
    if rule == "abs":
        return {"complex64": "float32", "complex128": "float64"}.get(p, p)
    if rule == "abs_float":
        return result_dtype("abs", promote_float(p))
    if rule == "double":
        return "complex128" if p in COMPLEXES else "float64"
    if rule in ("bool", "logical"):
        return "bool"
    return p


def sgn(x):
    return np.sign(x)


def sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    return sp.expit(x)


def rsqrt(x):
    return 1 / np.sqrt(x)


def frac(x):
    return x - np.trunc(x)


def lgamma(x):
    # C (and PyTorch) give lgamma(-inf) = +inf; SciPy gives -inf
    return np.where(np.isneginf(x), np.inf, sp.gammaln(x)).astype(x.dtype)


# name: (NumPy reference, dtypes the op takes, result rule)
def _bessel_at_inf(fn, x, at_inf):
    """SciPy's i0/i1 give NaN at +-inf; the limits (PyTorch's values) are +-inf."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(x), at_inf, fn(x)).astype(np.result_type(x, np.float32))


UNARY = {
    "neg": (np.negative, NUMERIC, "same"),
    "positive": (np.positive, NUMERIC, "same"),
    "abs": (np.abs, ALL_DTYPES, "abs"),
    "sign": (np.sign, REALS, "same"),
    "sgn": (sgn, ALL_DTYPES, "same"),
    "reciprocal": (np.reciprocal, ALL_DTYPES, "float"),
    "square": (np.square, ALL_DTYPES, "same"),
    "sqrt": (np.sqrt, ALL_DTYPES, "float"),
    "rsqrt": (rsqrt, ALL_DTYPES, "float"),
    "exp": (np.exp, ALL_DTYPES, "float"),
    "exp2": (np.exp2, ALL_DTYPES, "float"),
    "expm1": (np.expm1, ALL_DTYPES, "float"),
    "log": (np.log, ALL_DTYPES, "float"),
    "log2": (np.log2, ALL_DTYPES, "float"),
    "log10": (np.log10, ALL_DTYPES, "float"),
    "log1p": (np.log1p, ALL_DTYPES, "float"),
    "sin": (np.sin, ALL_DTYPES, "float"),
    "cos": (np.cos, ALL_DTYPES, "float"),
    "tan": (np.tan, ALL_DTYPES, "float"),
    "asin": (np.arcsin, ALL_DTYPES, "float"),
    "acos": (np.arccos, ALL_DTYPES, "float"),
    "atan": (np.arctan, ALL_DTYPES, "float"),
    "sinh": (np.sinh, ALL_DTYPES, "float"),
    "cosh": (np.cosh, ALL_DTYPES, "float"),
    "tanh": (np.tanh, ALL_DTYPES, "float"),
    "asinh": (np.arcsinh, ALL_DTYPES, "float"),
    "acosh": (np.arccosh, ALL_DTYPES, "float"),
    "atanh": (np.arctanh, ALL_DTYPES, "float"),
    "sigmoid": (sigmoid, ALL_DTYPES, "float"),
    "erf": (sp.erf, REALS, "float"),
    "erfc": (sp.erfc, REALS, "float"),
    "erfinv": (sp.erfinv, REALS, "float"),
    "lgamma": (lgamma, REALS, "float"),
    "digamma": (sp.digamma, REALS, "float"),
    "i0": (lambda x: _bessel_at_inf(sp.i0, x, np.inf), REALS, "float"),
    "i0e": (sp.i0e, REALS, "float"),
    "i1": (lambda x: _bessel_at_inf(sp.i1, x, np.sign(x) * np.inf), REALS, "float"),
    "i1e": (sp.i1e, REALS, "float"),
    "floor": (np.floor, REALS, "same"),
    "ceil": (np.ceil, REALS, "same"),
    "round": (np.round, REALS, "same"),
    "trunc": (np.trunc, REALS, "same"),
    "frac": (frac, FLOATS, "same"),
    "sinc": (np.sinc, ALL_DTYPES, "float"),
    "cbrt": (np.cbrt, REALS, "float"),
    "conj_physical": (np.conjugate, ALL_DTYPES, "same"),
    "angle": (np.angle, ALL_DTYPES, "abs_float"),
    "isnan": (np.isnan, ALL_DTYPES, "bool"),
    "isinf": (np.isinf, ALL_DTYPES, "bool"),
    "isfinite": (np.isfinite, ALL_DTYPES, "bool"),
    "isposinf": (np.isposinf, REALS, "bool"),
    "isneginf": (np.isneginf, REALS, "bool"),
    "signbit": (np.signbit, REALS, "bool"),
    "nan_to_num": (np.nan_to_num, ALL_DTYPES, "same"),
    "logical_not": (np.logical_not, ALL_DTYPES, "logical"),
    "bitwise_not": (np.invert, ["bool"] + INTS, "same"),
}
# Complex results whose float32 evaluation differs a little more from NumPy's
COMPLEX_LOOSE = {"tan", "tanh", "asin", "acos", "atanh", "asinh", "acosh", "sigmoid", "expm1",
                 "sinh", "cosh", "exp", "exp2"}


def unary_expected(name, x, dtype):
    ref, _, rule = UNARY[name]
    res = result_dtype(rule, dtype)
    if rule in ("bool", "logical", "abs", "abs_float"):
        comp = promote_float(dtype) if rule == "abs_float" else dtype
        with np.errstate(all="ignore"):
            return np.asarray(ref(x.astype(compute_np(comp)))).astype(np_dtype(res)), res
    return reference(ref, [x], res), res


def unary_values(name, shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if name in ("erfinv", "atanh") and dtype in FLOATS:
        return random_array(shape, dtype, rng, low=-1.2, high=1.2)
    return random_array(shape, dtype, rng)


def tolerance(name, res):
    if res in ("complex64",) and name in COMPLEX_LOOSE:
        return 1e-4, 1e-5
    if res == "float32" and name in ("lgamma", "digamma", "tan"):
        return 1e-4, 1e-5
    return None, None


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unary(name, dtype):
    _, dtypes, _ = UNARY[name]
    fn = getattr(tl, name)
    if dtype not in dtypes:
        with pytest.raises(TypeError, match=name):
            fn(to_tensor(random_array((3,), dtype), dtype))
        return
    for shape in SHAPES:
        x = unary_values(name, shape, dtype)
        expected, res = unary_expected(name, x, dtype)
        rtol, atol = tolerance(name, res)
        t = to_tensor(x, dtype)
        assert_close(fn(t), expected, dtype=res, rtol=rtol, atol=atol)
        assert_close(getattr(t, name)(), expected, dtype=res, rtol=rtol, atol=atol)
        if t.numel() and t.ndim:
            assert_close(fn(noncontiguous(t)), expected, dtype=res, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_layouts(name):
    dtype = "float64" if "float64" in UNARY[name][1] else "int64"
    x = unary_values(name, (4, 6), dtype, seed=1)
    expected, res = unary_expected(name, x, dtype)
    fn = getattr(tl, name)
    views = {
        "transposed": (tl.from_numpy(np.ascontiguousarray(x.T)).T, expected),
        "negative stride": (tl.from_numpy(x[:, ::-1].copy()[:, ::-1]), expected),
        "strided": (tl.from_numpy(np.repeat(x, 2, axis=1))[:, ::2], expected),
        "broadcast": (tl.from_numpy(x[:1]).expand(4, 6), unary_expected(name, np.repeat(x[:1], 4, 0),
                                                                         dtype)[0]),
    }
    for label, (t, e) in views.items():
        assert_close(fn(t), e, dtype=res), label


SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e-30, 1e30, -1e30, 1.0, -1.0, 0.5, -0.5,
           2.0, -3.0, 100.0, -100.0, 1e-45, 3e38, -3e38]


@pytest.mark.parametrize("name", sorted(n for n in UNARY if "float32" in UNARY[n][1]))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_values(name, dtype):
    # tiled and shifted so every value meets every SIMD lane and the scalar tail
    x = np.tile(np.array(SPECIAL, dtype=np_dtype(dtype)), 9)[3:]
    expected, res = unary_expected(name, x, dtype)
    actual = getattr(tl, name)(tl.tensor(x))
    got = actual.cpu().numpy()
    # same NaNs, same infinities, finite values close
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=name)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.isposinf(got), np.isposinf(expected), err_msg=name)
        np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected), err_msg=name)
        fin = np.isfinite(expected)
        rtol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got[fin], expected[fin], rtol=rtol, atol=1e-37, err_msg=name)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=name)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_signed_zero_and_sign(dtype):
    t = tl.tensor([-0.0, 0.0, -1.5, 2.5], dtype=tl_dtype(dtype))
    assert tl.signbit(t).tolist() == [True, False, True, False]
    assert tl.neg(t).float().cpu().numpy().tolist() == [0.0, -0.0, 1.5, -2.5]
    assert np.signbit(tl.neg(t).float().cpu().numpy()).tolist() == [False, True, False, True]
    assert np.signbit(tl.abs(t).float().cpu().numpy()).tolist() == [False] * 4


def test_sigmoid_extremes():
    for dtype in (tl.float32, tl.float64):
        t = tl.tensor([-1000.0, -100.0, -50.0, 0.0, 50.0, 100.0, 1000.0], dtype=dtype)
        exact = sp.expit(t.cpu().numpy().astype(np.float64))
        np.testing.assert_allclose(tl.sigmoid(t).cpu().numpy(), exact, rtol=1e-6, atol=1e-44)
        assert not np.isnan(tl.sigmoid(t).cpu().numpy()).any()


def test_exp_float32_accuracy():
    x = np.linspace(-104, 89, 200001, dtype=np.float32)
    got = tl.exp(tl.from_numpy(x)).cpu().numpy().astype(np.float64)
    exact = np.exp(x.astype(np.float64))
    normal = (exact > 1.2e-38) & (exact < 3.4e38)
    np.testing.assert_allclose(got[normal], exact[normal], rtol=1e-6)
    assert np.all(np.isinf(got[exact > 3.5e38]))
    tiny = exact < 1.2e-38
    np.testing.assert_allclose(got[tiny], exact[tiny], rtol=0, atol=2e-45)


def test_erfinv_roundtrip_and_edges():
    y = np.concatenate([np.linspace(-1, 1, 2001), [1 - 1e-15, -1 + 1e-15, 1e-300, 5e-324]])
    got = tl.erfinv(tl.tensor(y)).cpu().numpy()
    np.testing.assert_allclose(got, sp.erfinv(y), rtol=1e-13, atol=1e-300)
    assert np.isnan(tl.erfinv(tl.tensor([1.5, -1.01, np.nan])).cpu().numpy()).all()
    assert np.signbit(tl.erfinv(tl.tensor([-0.0])).cpu().numpy()[0])


def test_digamma_edges():
    x = np.array([0.0, -0.0, -1.0, -2.0, -2.5, 1e-10, 1.4616321449683622, 1e10, np.inf, -np.inf,
                  -1e5 - 0.5])
    np.testing.assert_allclose(tl.digamma(tl.tensor(x)).cpu().numpy(), sp.digamma(x), rtol=1e-11,
                               atol=1e-15)  # absolute near the root at 1.46...


def test_lgamma_threads_and_signs():
    x = np.linspace(-20.5, 40, 300001)
    np.testing.assert_allclose(tl.lgamma(tl.tensor(x)).cpu().numpy(), sp.gammaln(x), rtol=1e-12,
                               atol=1e-15)  # absolute near the roots at 1 and 2


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 3])
def test_round_decimals(dtype, decimals):
    x = random_array((50,), dtype, np.random.default_rng(2), low=-500, high=500)
    if dtype in ("float16", "float32", "float64"):  # ties (bfloat16 could not hold them)
        x = (x + np.array([0.5, 2.5, -2.5, 0.125] * 12 + [0.5, 1.5]).astype(x.dtype))
    t = to_tensor(x, dtype)
    if dtype == "bool":
        assert_close(tl.round(t, decimals=decimals), x)
        return
    expected = np.round(x.astype(compute_np(dtype)), decimals).astype(np_dtype(dtype))
    assert_close(tl.round(t, decimals=decimals), expected, dtype=dtype)
    assert_close(t.round(decimals=decimals), expected, dtype=dtype)


def test_round_half_to_even():
    t = tl.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5])
    assert tl.round(t).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0]
    assert tl.round(tl.tensor([15, 25, -15, 127], dtype=tl.int8), decimals=-1).tolist() == \
        [20, 20, -20, -126]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64",
                                   "complex64", "complex128"])
def test_nan_to_num(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype=np.float32 if dtype == "bfloat16"
                 else np_dtype(dtype))
    if dtype in COMPLEXES:
        x = x + 1j * x[::-1]
    t = to_tensor(x, dtype)
    if dtype == "bfloat16":
        big = 3.3895313892515355e38  # bfloat16's largest finite value
        got = tl.nan_to_num(t).float().cpu().numpy()
        assert got.tolist()[:3] == [0.0, big, -big]
    else:
        assert_close(tl.nan_to_num(t), np.nan_to_num(x), dtype=dtype, rtol=0, atol=0)
        assert_close(tl.nan_to_num(t, nan=2.0, posinf=9.0, neginf=-9.0),
                     np.nan_to_num(x, nan=2.0, posinf=9.0, neginf=-9.0), dtype=dtype)
        assert_close(t.nan_to_num(1.0, 5.0), np.nan_to_num(x, nan=1.0, posinf=5.0), dtype=dtype)


# ---- binary ops -----------------------------------------------------------------------

def trunc_divide(a, b):
    if a.dtype.kind in "iub":
        with np.errstate(all="ignore"):
            q = np.where(b == 0, 0, np.trunc(a.astype(np.float64) / np.where(b == 0, 1, b)))
        # exact integer division for int64 too: numpy's floor_divide corrected toward zero
        fd = np.floor_divide(a, np.where(b == 0, 1, b))
        rem = a - fd * np.where(b == 0, 1, b)
        q = np.where((rem != 0) & ((a < 0) != (b < 0)), fd + 1, fd)
        return np.where(b == 0, 0, q).astype(a.dtype)
    return np.trunc(a / b)


def xlogy(x, y):
    with np.errstate(all="ignore"):
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * np.log(y))).astype(x.dtype)


def pow_ref(a, b):
    if a.dtype == np.bool_:
        return np.power(a.astype(np.int8), b.astype(np.int8)).astype(np.bool_)
    return np.power(a, b)


def shift_ref(fn):
    def ref(a, b):
        if a.dtype == np.bool_:
            return fn(a.astype(np.int8), b.astype(np.int8)).astype(np.bool_)
        return fn(a, b)
    return ref


# name: (reference, dtypes the op takes, result rule)
BINARY = {
    "add": (np.add, ALL_DTYPES, "same"),
    "sub": (np.subtract, NUMERIC, "same"),
    "mul": (np.multiply, ALL_DTYPES, "same"),
    "div": (np.true_divide, ALL_DTYPES, "float"),
    "trunc_divide": (trunc_divide, INTS + FLOATS, "same"),
    "floor_divide": (np.floor_divide, INTS + FLOATS, "same"),
    "remainder": (np.remainder, INTS + FLOATS, "same"),
    "fmod": (np.fmod, INTS + FLOATS, "same"),
    "pow": (pow_ref, ALL_DTYPES, "same"),
    "float_power": (np.float_power, ALL_DTYPES, "double"),
    "atan2": (np.arctan2, REALS, "float"),
    "hypot": (np.hypot, REALS, "float"),
    "logaddexp": (np.logaddexp, REALS, "float"),
    "logaddexp2": (np.logaddexp2, REALS, "float"),
    "copysign": (np.copysign, REALS, "float"),
    "nextafter": (np.nextafter, FLOATS, "same"),  # bfloat16: test_nextafter_steps_one_ulp
    "xlogy": (xlogy, REALS, "float"),
    "ldexp": (lambda a, b: a * np.exp2(b), REALS, "float"),
    "gcd": (np.gcd, INTS, "same"),
    "lcm": (np.lcm, INTS, "same"),
    "minimum": (np.minimum, REALS, "same"),
    "maximum": (np.maximum, REALS, "same"),
    "fmin": (np.fmin, REALS, "same"),
    "fmax": (np.fmax, REALS, "same"),
    "eq": (np.equal, ALL_DTYPES, "bool"),
    "ne": (np.not_equal, ALL_DTYPES, "bool"),
    "lt": (np.less, REALS, "bool"),
    "le": (np.less_equal, REALS, "bool"),
    "gt": (np.greater, REALS, "bool"),
    "ge": (np.greater_equal, REALS, "bool"),
    "logical_and": (np.logical_and, ALL_DTYPES, "logical"),
    "logical_or": (np.logical_or, ALL_DTYPES, "logical"),
    "logical_xor": (np.logical_xor, ALL_DTYPES, "logical"),
    "bitwise_and": (np.bitwise_and, ["bool"] + INTS, "same"),
    "bitwise_or": (np.bitwise_or, ["bool"] + INTS, "same"),
    "bitwise_xor": (np.bitwise_xor, ["bool"] + INTS, "same"),
    "bitwise_left_shift": (shift_ref(np.left_shift), ["bool"] + INTS, "same"),
    "bitwise_right_shift": (shift_ref(np.right_shift), ["bool"] + INTS, "same"),
}


INTEGER_DIVISIONS = ("floor_divide", "trunc_divide", "remainder", "fmod")


def binary_values(name, shape, dtype, rng, second=False):
    if name == "pow" and second and dtype in INTS:
        return random_array(shape, dtype, rng, low=0, high=6)
    if name in INTEGER_DIVISIONS and second and dtype in INTS:
        # a zero divisor raises (PyTorch); test_integer_division_by_zero
        b = random_array(shape, dtype, rng)
        return np.where(b == 0, np.ones_like(b), b)
    if name.startswith("bitwise_") and "shift" in name and second and dtype != "bool":
        return random_array(shape, dtype, rng, low=-3, high=12)
    if name.startswith("bitwise_") and dtype in INTS and not second:
        return random_array(shape, dtype, rng, low=-100, high=100)
    return random_array(shape, dtype, rng)


def half_round(x, dtype):
    """float32 values rounded to float16 or bfloat16 (to nearest, ties to
    even), kept as float32."""
    x = np.asarray(x, np.float32)
    if dtype == "float16":
        return x.astype(np.float16).astype(np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return np.where(np.isnan(x), x, bits.astype(np.uint32).view(np.float32))


def binary_expected(name, a, b, p, host=True):
    """The oracle's result and its dtype; host: the CPU's loops (and the
    emulated device's, which are theirs), where a half trunc division by a
    tensor of several values rounds the quotient to the half dtype before it
    truncates, as PyTorch's CPU kernel does."""
    ref, _, rule = BINARY[name]
    res = result_dtype(rule, p)
    comp = p if rule in ("bool", "logical") else res
    with np.errstate(all="ignore"):
        if name == "trunc_divide" and host and comp in ("float16", "bfloat16") and b.size > 1:
            out = np.trunc(half_round(a.astype(np.float32) / b.astype(np.float32), comp))
        else:
            out = ref(a.astype(compute_np(comp)), b.astype(compute_np(comp)))
    return np.asarray(out).astype(np_dtype(res)), res


def binary_call(name, x, y):
    if name == "trunc_divide":
        return tl.div(x, y, rounding_mode="trunc")
    return getattr(tl, name)(x, y)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_binary(name, dtype):
    _, dtypes, _ = BINARY[name]
    rng = np.random.default_rng(3)
    if dtype not in dtypes:
        a = to_tensor(random_array((3,), dtype), dtype)
        with pytest.raises(TypeError, match=name.replace("trunc_divide", "div|trunc")):
            binary_call(name, a, a)
        return
    if name == "nextafter" and dtype == "bfloat16":
        return  # NumPy has no bfloat16 to compare with
    for sa, sb in BROADCAST_PAIRS + [((2, 3, 4), (2, 3, 4))]:
        a = binary_values(name, sa, dtype, rng)
        b = binary_values(name, sb, dtype, rng, second=True)
        expected, res = binary_expected(name, a, b, dtype)
        ta, tb = to_tensor(a, dtype), to_tensor(b, dtype)
        assert_close(binary_call(name, ta, tb), expected, dtype=res)
        if ta.ndim and ta.numel():
            assert_close(binary_call(name, noncontiguous(ta), tb), expected, dtype=res)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_mixed_dtypes_and_layouts(name):
    """Promotion between different dtypes, reversed and transposed layouts."""
    _, dtypes, _ = BINARY[name]
    rng = np.random.default_rng(4)
    pairs = [("int32", "float64"), ("uint8", "int8"), ("float32", "float64"),
             ("int16", "float16"), ("bool", "int64"), ("float32", "complex128")]
    for da, db in pairs:
        p = promote(da, db)
        if p not in dtypes or da not in ALL_DTYPES:
            continue
        a = binary_values(name, (5, 4), da, rng)
        b = binary_values(name, (5, 4), db, rng, second=True)
        expected, res = binary_expected(name, a, b, p)
        ta = tl.from_numpy(np.ascontiguousarray(a[::-1]))[::-1]
        tb = tl.from_numpy(np.ascontiguousarray(b.T)).T
        if da == "float16" or db == "float16":
            ta, tb = to_tensor(a, da), to_tensor(b, db)
        assert_close(binary_call(name, ta, tb), expected, dtype=res)


FLOAT_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-300, 1e300])


@pytest.mark.parametrize("name", sorted(n for n in BINARY if "float64" in BINARY[n][1]))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_special_values(name, dtype):
    a, b = np.meshgrid(FLOAT_SPECIAL, FLOAT_SPECIAL)
    with np.errstate(all="ignore"):
        a = np.tile(a.ravel(), 3)[5:].astype(np_dtype(dtype))
        b = np.tile(b.ravel(), 3)[5:].astype(np_dtype(dtype))
    expected, res = binary_expected(name, a, b, dtype)
    got = binary_call(name, tl.tensor(a), tl.tensor(b)).cpu().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected),
                                  err_msg=f"{name} NaN positions")
    if got.dtype.kind == "f":
        fin = ~np.isnan(expected)
        rtol = 1e-6 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got[fin], expected[fin], rtol=rtol, atol=0, err_msg=name)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=name)


def _division_operands(dtype):
    info = np.iinfo(np_dtype(dtype))
    a = np.array([info.min, info.min, info.max, 7, -7 if info.min else 9, 0, 5],
                 dtype=np_dtype(dtype))
    b = np.array([-1, 0, 0, 0, 2, 0, -1], dtype=np_dtype(dtype)) if info.min else \
        np.array([1, 0, 0, 0, 2, 0, 3], dtype=np_dtype(dtype))
    return a, b


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_never_traps(dtype):
    """min // -1 wraps, as in NumPy, without a hardware trap."""
    a, b = _division_operands(dtype)
    a, b = a[b != 0], b[b != 0]
    ta, tb = tl.from_numpy(a), tl.from_numpy(b)
    assert_close(tl.floor_divide(ta, tb), np.floor_divide(a, b))
    assert_close(tl.remainder(ta, tb), np.remainder(a, b))
    assert_close(tl.fmod(ta, tb), np.fmod(a, b))
    assert_close(ta // tb, np.floor_divide(a, b))
    assert_close(ta % tb, np.remainder(a, b))
    assert_close(tl.div(ta, tb, rounding_mode="trunc"), trunc_divide(a, b))


@pytest.mark.parametrize("dtype", INTS)
def test_lcm_past_the_range_wraps_as_numpys(dtype):
    """The NumPy namespace's lcm is NumPy's, |a| / gcd * |b| in the unsigned
    type: a product past the range wraps and keeps the sign the wrap gives
    it (int64's lcm(2**62, 3) is -2**62, and lcm(2**40 + 1, 2**40 - 1) is
    -1; both were made positive).  torchlike.lcm stays PyTorch's, |a / gcd
    * b| (tests/test_ufunc_ops.py's golden cases), equal in magnitude."""
    info = np.iinfo(np_dtype(dtype))
    big = info.max // 2 + 1  # 2**(bits - 2) signed, 2**(bits - 1) unsigned
    half = 1 << (info.bits // 2 - 1)
    a = np.array([big, info.max, info.min, info.min, 0, 12, half * 2 + 1, info.max - 1, big],
                 dtype=np_dtype(dtype))
    b = np.array([3, info.max - 2, 3, 0, 0, 18, half * 2 - 1, 5, big - 1], dtype=np_dtype(dtype))
    pairs = [(a, b), (b, a)]
    if info.min:
        pairs += [(-a, b), (a, -b), (-a, -b)]
    for x, y in pairs:
        want = np.lcm(x, y)
        assert_close(tnp.lcm(tnp.asarray(x), tnp.asarray(y)), want)
        assert_close(np.lcm(tl.from_numpy(x), tl.from_numpy(y)), want)
        torch_lcm = tl.lcm(tl.from_numpy(x), tl.from_numpy(y)).numpy()
        if info.bits < 32:  # C's int holds the product: PyTorch's |.| comes before the wrap
            np.testing.assert_array_equal(torch_lcm, want)
        else:  # |.| of the wrapped product: never negative but INT_MIN, NumPy's magnitude
            unsigned = want.dtype.str.replace("i", "u")
            np.testing.assert_array_equal(torch_lcm.view(unsigned), np.abs(want).view(unsigned))
            assert ((torch_lcm >= 0) | (torch_lcm == info.min)).all()


@pytest.mark.host_only  # PyTorch's check is the CPU's; on a device the divisor is not read
@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero_raises_as_pytorch(dtype):
    a, b = _division_operands(dtype)
    ta, tb = tl.from_numpy(a), tl.from_numpy(b)
    for call in (lambda: tl.floor_divide(ta, tb), lambda: tl.remainder(ta, tb),
                 lambda: tl.fmod(ta, tb), lambda: ta // tb, lambda: ta % tb, lambda: ta // 0,
                 lambda: tl.div(ta, tb, rounding_mode="trunc"),
                 lambda: tl.div(ta, 0, rounding_mode="floor"), lambda: ta.clone().fmod_(tb)):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            call()
    assert_close(ta // tb.to(tl.float64), np.floor_divide(a, b.astype(np.float64)))  # floats: inf


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "mod", "fmod"])
def test_numpy_integer_division_by_zero_gives_zero_and_warns(name, dtype):
    """NumPy's rule through NumPy's API: 0 where the divisor is 0, and its
    divide-by-zero warning, as np.errstate says."""
    a, b = _division_operands(dtype)
    fn = getattr(np, name)
    with np.errstate(all="ignore"):
        want = fn(a, b)
    device = tl.tensor(0).device  # the default device: the device suites' too
    ta, tb = tl.from_numpy(a).to(device), tl.from_numpy(b).to(device)
    for call in (lambda: fn(ta, tb), lambda: getattr(tnp, name)(ta, tb)):
        with np.errstate(divide="ignore"):
            assert_close(call(), want)
    if device.type == "cpu":  # the warning comes with the check, which reads host memory
        with pytest.warns(RuntimeWarning, match="divide by zero encountered in"):
            fn(ta, tb)
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
            fn(ta, tb)
    with np.errstate(divide="ignore"):
        q, r = np.divmod(ta, tl.tensor(0, dtype=ta.dtype, device=device))
    assert_close(q, np.zeros_like(a))
    assert_close(r, np.zeros_like(a))


@pytest.mark.parametrize("dtype", INTS)
def test_shifts_past_width(dtype):
    bits = np.dtype(np_dtype(dtype)).itemsize * 8
    unsigned = np.iinfo(np_dtype(dtype)).min == 0
    a = np.array([1, 3, 100, 5, 7] if unsigned else [1, -3, 100, -128, -1],
                 dtype=np_dtype(dtype))
    for s in (0, 1, bits - 1, bits, bits + 5, 63):
        b = np.full(5, s, dtype=np.int64).astype(np_dtype(dtype))
        assert_close(tl.bitwise_left_shift(tl.from_numpy(a), tl.from_numpy(b)), np.left_shift(a, b))
        assert_close(tl.bitwise_right_shift(tl.from_numpy(a), tl.from_numpy(b)),
                     np.right_shift(a, b))


def test_pow_negative_integer_exponent():
    with pytest.raises(ValueError, match="negative integer powers"):
        tl.tensor([2, 3]) ** tl.tensor([1, -1])
    with pytest.raises(ValueError, match="negative integer powers"):
        tl.pow(tl.tensor([2, 3]), -2)
    with pytest.raises(ValueError, match="negative integer powers"):
        tl.tensor([2, 3], dtype=tl.int8) ** -1
    # a float on either side makes it a float power
    assert_close(tl.tensor([2, 4]) ** -1.0, np.array([0.5, 0.25], np.float32))
    assert_close(tl.tensor([2.0, 4.0]) ** tl.tensor([-1, -2]), np.array([0.5, 0.0625], np.float32))
    out = tl.tensor([5, 5])
    with pytest.raises(ValueError):
        tl.pow(tl.tensor([2, 3]), tl.tensor([-1, 1]), out=out)
    assert out.tolist() == [5, 5]  # checked before anything was written


def test_pow_values():
    base = np.array([-8.0, -2.0, 0.0, 2.0, np.inf, -np.inf, np.nan, 1.0])
    exp = np.array([1 / 3, 0.5, -1.0, 0.0, -1.0, 3.0, 0.0, np.nan])
    assert_close(tl.pow(tl.tensor(base), tl.tensor(exp)), np.power(base, exp))
    z = np.array([1 + 2j, -3 - 1j, 0j, 2j])
    for e in (2, 3, -1, 0.5, 1.5 + 1j):
        assert_close(tl.pow(tl.tensor(z), e), np.power(z, e), rtol=1e-12, atol=1e-12)
    assert_close(tl.tensor([2, 3], dtype=tl.int64) ** 40, np.array([2, 3]) ** 40)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_pow_by_python_two_half_and_minus_one(dtype):
    """x ** 2, x ** 0.5 and x ** -1 run as square, sqrt and reciprocal: the
    values of a correctly rounded pow, with sqrt's -0.0 and -inf (NumPy's and
    PyTorch's), except PyTorch's float16 ** 0.5, which is C's pow (+0.0 at
    -0.0, +inf at -inf)."""
    base = np.array([-0.0, -np.inf, np.inf, np.nan, -2.0, 0.0, 3.0, 1e-3, 7.5], np.float64)
    t = tl.tensor(base, dtype=getattr(tl, dtype))
    x = t.to(tl.float64).cpu().numpy()  # the values as rounded to dtype
    rtol = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1e-7, "float64": 1e-15}[dtype]
    with np.errstate(invalid="ignore", divide="ignore"):
        cases = [(2, x * x), (2.0, x * x), (0.5, np.sqrt(x)), (-1, 1 / x), (-1.0, 1 / x)]
    for e, want in cases:
        if e == 0.5 and dtype == "float16":
            want = np.where(x == -np.inf, np.inf, np.where(x == 0, 0.0, want))
        want = tl.tensor(want).to(t.dtype).to(tl.float64).cpu().numpy()  # rounded once
        got = t ** e
        assert got.dtype == t.dtype
        got = got.to(tl.float64).cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=f"{e} {dtype}")
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=f"{e} {dtype}")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_floor_divide_and_remainder_by_one_integer(dtype):
    """A positive divisor fixed for a whole loop is a multiply-high: exact
    against NumPy for every dividend, the dtype's extremes included, and for
    divisors from 1 to past half the dtype's range."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(8)
    a = rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
    a[:6] = [info.min, info.min + 1, info.max, info.max - 1, 0, 1 if info.min == 0 else -1]
    t = tl.tensor(a)
    for b in sorted({1, 2, 3, 7, 10, 64, min(255, int(info.max)), int(info.max) // 2 + 1,
                     int(info.max)}):
        np.testing.assert_array_equal((t // b).cpu().numpy(), a // np.asarray(b, dtype), str(b))
        np.testing.assert_array_equal((t % b).cpu().numpy(), a % np.asarray(b, dtype), str(b))
        # the same through a strided dividend and a broadcast 0-d divisor
        d = tl.tensor(b, dtype=t.dtype)
        np.testing.assert_array_equal(tl.floor_divide(t[::3], d).cpu().numpy(),
                                      a[::3] // np.asarray(b, dtype))
        np.testing.assert_array_equal(tl.remainder(t[::3], d).cpu().numpy(),
                                      a[::3] % np.asarray(b, dtype))


def test_add_sub_alpha():
    a, b = np.arange(6.0).reshape(2, 3), np.ones(3)
    assert_close(tl.add(tl.tensor(a), tl.tensor(b), alpha=2.5), a + 2.5 * b)
    assert_close(tl.sub(tl.tensor(a), tl.tensor(b), alpha=3), a - 3 * b)
    assert_close(tl.tensor(a).add(1.0, alpha=-2), a - 2)
    ia = np.arange(6).reshape(2, 3)
    assert_close(tl.add(tl.tensor(ia), tl.tensor(ia), alpha=3), ia + 3 * ia)
    assert_close(tl.sub(tl.tensor(ia), 1, alpha=-4), ia + 4)
    with pytest.raises(RuntimeError, match="alpha"):
        tl.add(tl.tensor(ia), tl.tensor(ia), alpha=1.5)
    with pytest.raises(RuntimeError, match="alpha"):
        tl.add(tl.tensor(ia), 1, alpha=True)
    assert tl.add(tl.tensor([True, False]), tl.tensor([False, False]), alpha=True).tolist() == \
        [True, False]
    c = np.array([1 + 1j, 2 - 1j])
    assert_close(tl.add(tl.tensor(c), tl.tensor(c), alpha=2j), c + 2j * c)
    with pytest.raises(TypeError, match="alpha"):
        tl.mul(tl.tensor(a), 2, alpha=2)


def test_div_rounding_modes():
    a = np.array([7.0, -7.0, 7.5, -7.5, 0.0])
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0])
    ta, tb = tl.tensor(a), tl.tensor(b)
    assert_close(tl.div(ta, tb), a / b)
    assert_close(tl.div(ta, tb, rounding_mode="trunc"), np.trunc(a / b))
    assert_close(tl.div(ta, tb, rounding_mode="floor"), np.floor_divide(a, b))
    assert_close(tl.divide(ta, tb, rounding_mode=None), a / b)
    with pytest.raises(RuntimeError, match="rounding_mode"):  # PyTorch's class
        tl.div(ta, tb, rounding_mode="round")
    ia = np.array([7, -7, 9])
    assert_close(tl.div(tl.tensor(ia), tl.tensor([2, 2, -4])), (ia / np.array([2, 2, -4])).astype(np.float32))
    assert tl.div(tl.tensor(ia), 2, rounding_mode="floor").dtype == tl.int64


def test_float_floor_divide_remainder_consistent():
    rng = np.random.default_rng(5)
    a = rng.uniform(-100, 100, 1000)
    b = rng.uniform(-10, 10, 1000)
    q = tl.floor_divide(tl.tensor(a), tl.tensor(b)).cpu().numpy()
    r = tl.remainder(tl.tensor(a), tl.tensor(b)).cpu().numpy()
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_array_equal(r, np.remainder(a, b))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nextafter_steps_one_ulp(dtype):
    t = tl.tensor([1.0, 1.0, 0.0, -0.0, -2.0, 65504.0], dtype=tl_dtype(dtype))
    to = tl.tensor([2.0, 0.0, 1.0, -1.0, 0.0, np.inf], dtype=tl_dtype(dtype))
    got = tl.nextafter(t, to).float().cpu().numpy()
    if dtype == "bfloat16":
        eps, tiny = 2.0 ** -7, 9.183549615799121e-41
        # 65504 is 65536 in bfloat16, whose next value up is 65536 + 512
        expected = [1 + eps, 1 - eps / 2, tiny, -tiny, -2 + 2 * eps / 2, 66048.0]
        np.testing.assert_array_equal(got, np.array(expected, np.float32))
    else:
        npd = np_dtype(dtype)
        expected = np.nextafter(t.cpu().numpy(), to.cpu().numpy()).astype(np.float32)
        np.testing.assert_array_equal(got, expected)
        assert npd is not None
    assert tl.nextafter(tl.tensor([np.nan], dtype=tl_dtype(dtype)),
                        tl.tensor([1.0], dtype=tl_dtype(dtype))).isnan().cpu().numpy().all()


# ---- where and clamp -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_where(dtype):
    rng = np.random.default_rng(6)
    for sc, sa, sb in [((3, 4), (3, 4), (3, 4)), ((4,), (3, 1), ()), ((2, 1, 4), (3, 1), (1,)),
                       ((0,), (1,), ()), ((), (), ())]:
        c = rng.integers(0, 2, sc).astype(bool)
        a = random_array(sa, dtype, rng)
        b = random_array(sb, dtype, rng)
        expected = np.where(c, a, b)
        got = tl.where(tl.tensor(c), to_tensor(a, dtype), to_tensor(b, dtype))
        assert_close(got, expected.astype(np.float32) if dtype == "bfloat16" else expected,
                     dtype=dtype, rtol=0, atol=0)
    t = to_tensor(random_array((5,), dtype), dtype)
    zero = False if dtype == "bool" else 0  # a weak scalar of the tensor's kind keeps its dtype
    assert_close(tl.where(t.bool(), t, zero), np.where(t.bool().cpu().numpy(), t.float().cpu().numpy()
                                                       if dtype == "bfloat16" else t.cpu().numpy(), 0),
                 dtype=dtype)


def test_where_promotion_and_scalars():
    c = tl.tensor([True, False, True])
    assert tl.where(c, tl.tensor([1, 2, 3]), 0.5).dtype == tl.float32
    assert tl.where(c, tl.tensor([1, 2, 3], dtype=tl.int8), 1000 - 999).dtype == tl.int8
    assert tl.where(c, tl.tensor([1.0], dtype=tl.float64), tl.tensor([1], dtype=tl.int32)).dtype \
        == tl.float64
    assert_close(tl.where(c, 1.0, 2.0), np.array([1.0, 2.0, 1.0], np.float32))
    assert_close(c.where(c, tl.tensor([False, True, False])), np.array([True, True, True]))
    assert_close(tl.where(tl.tensor([1, 0, 2]), 1, 2), np.array([1, 2, 1]))
    # One argument: the indices of the nonzero elements (test_index_ops.py covers it).
    assert [i.tolist() for i in tl.where(c)] == [[0, 2]]
    assert [i.tolist() for i in tl.where(condition=c)] == [[0, 2]]
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]|\[2\].*\[3\]"):
        tl.where(c, tl.tensor([1.0, 2.0]), 0.0)


@pytest.mark.parametrize("dtype", REALS)
def test_clamp(dtype):
    rng = np.random.default_rng(7)
    x = random_array((4, 5), dtype, rng)
    lo = random_array((5,), dtype, rng, low=-3, high=3 if dtype.startswith("uint") else 0)
    hi = random_array((4, 1), dtype, rng, low=0, high=3)
    t, tlo, thi = to_tensor(x, dtype), to_tensor(lo, dtype), to_tensor(hi, dtype)
    c = compute_np(dtype)
    expected = np.minimum(np.maximum(x.astype(c), lo.astype(c)), hi.astype(c)).astype(np_dtype(dtype))
    assert_close(tl.clamp(t, tlo, thi), expected, dtype=dtype)
    assert_close(tl.clip(t, min=tlo, max=thi), expected, dtype=dtype)
    assert_close(t.clamp(max=thi), np.minimum(x.astype(c), hi.astype(c)).astype(np_dtype(dtype)),
                 dtype=dtype)
    assert_close(noncontiguous(t).clamp(tlo), np.maximum(x.astype(c), lo.astype(c)).astype(
        np_dtype(dtype)), dtype=dtype)
    if dtype != "bool":
        assert_close(tl.clamp(t, 1, 2), np.clip(x.astype(c), 1, 2).astype(np_dtype(dtype)),
                     dtype=dtype)


def test_clamp_semantics():
    t = tl.tensor([-2.0, 0.5, 3.0, np.nan])
    assert_close(tl.clamp(t, 2.0, 1.0), np.array([1.0, 1.0, 1.0, np.nan], np.float32))  # min > max
    assert_close(tl.clamp(t, min=np.nan), np.full(4, np.nan, np.float32))
    assert_close(tl.clamp(t, -1, 1), np.array([-1, 0.5, 1, np.nan], np.float32))
    i = tl.tensor([1, 5, 9])
    assert tl.clamp(i, 2, 6).dtype == tl.int64
    assert_close(tl.clamp(i, min=2.5), np.array([2.5, 5, 9], np.float32))  # promotes like PyTorch
    assert_close(tl.clamp(i, max=tl.tensor([0, 10, 3])), np.array([0, 5, 3]))
    with pytest.raises(RuntimeError, match="min.*max"):  # PyTorch's class
        tl.clamp(t)
    with pytest.raises(TypeError, match="clamp"):
        tl.clamp(tl.tensor([1j]), 0, 1)
    u = tl.tensor([1.0, 5.0, 9.0])
    assert u.clamp_(2, 6) is u
    assert u.tolist() == [2.0, 5.0, 6.0]
    u.clip_(max=3)
    assert u.tolist() == [2.0, 3.0, 3.0]
    out = tl.empty(3)
    assert tl.clamp(tl.tensor([0.0, 1.0, 2.0]), 0.5, 1.5, out=out) is out
    assert out.tolist() == [0.5, 1.0, 1.5]


# ---- errors --------------------------------------------------------------------------

def test_bad_dtype_errors_name_op_and_dtype():
    f = tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"bitwise_and.*float32"):
        tl.bitwise_and(f, f)
    with pytest.raises(TypeError, match=r"bitwise_not.*float32"):
        ~f
    with pytest.raises(TypeError, match=r"lt.*complex64"):
        tl.tensor([1j]) < tl.tensor([2j])
    with pytest.raises(TypeError, match=r"erf.*complex"):
        tl.erf(tl.tensor([1j]))
    with pytest.raises(TypeError, match=r"sub.*bool"):
        tl.tensor([True]) - tl.tensor([False])
    with pytest.raises(TypeError, match=r"neg.*bool"):
        -tl.tensor([True])
    with pytest.raises(TypeError, match=r"frac.*int64"):
        tl.frac(tl.tensor([1]))


def test_bool_negation_is_refused_for_numpy_and_pytorch_alike():
    """-b, neg, positive and bool - bool: PyTorch raises NotImplementedError,
    NumPy TypeError; DtypeError is both, with our message (PyTorch's classes
    are recorded in tests/golden/random_grad.json)."""
    b = tl.tensor([True, False])
    for call, op in ((lambda: -b, "neg"), (lambda: tl.neg(b), "neg"),
                     (lambda: b.negative(), "neg"), (lambda: +b, "positive"),
                     (lambda: tl.positive(b), "positive"), (lambda: b - b, "sub"),
                     (lambda: b.clone().neg_(), "neg")):
        with pytest.raises(NotImplementedError, match=rf"^{op}\(\) with bool tensors is not "
                                                       "supported") as e:
            call()
        assert type(e.value) is tl.DtypeError and isinstance(e.value, TypeError)


def test_broadcast_errors_name_both_shapes():
    a, b = tl.ones(2, 3), tl.ones(4)
    for fn in (tl.add, tl.mul, tl.atan2, tl.eq, tl.maximum, tl.logical_and):
        with pytest.raises(ValueError, match=r"\[2, 3\].*\[4\]"):
            fn(a, b)
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[4\]"):
        a + b


# ---- random shapes and dtypes ------------------------------------------------------------

@st.composite
def broadcastable(draw):
    nd = draw(st.integers(0, 4))
    shape = draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd))
    other = [draw(st.sampled_from([d, 1])) for d in shape]
    drop = draw(st.integers(0, nd))
    return tuple(shape), tuple(other[drop:])


@given(shapes=broadcastable(), da=st.sampled_from(ALL_DTYPES), db=st.sampled_from(ALL_DTYPES),
       name=st.sampled_from(["add", "mul", "sub", "div", "maximum", "eq", "lt", "logical_xor",
                             "atan2", "remainder", "bitwise_or"]),
       swap=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_binary_random(shapes, da, db, name, swap, seed):
    sa, sb = shapes[::-1] if swap else shapes
    rng = np.random.default_rng(seed)
    a, b = random_array(sa, da, rng), random_array(sb, db, rng)
    _, dtypes, _ = BINARY[name]
    p = promote(da, db)
    ta, tb = to_tensor(a, da), to_tensor(b, db)
    if p not in dtypes:
        with pytest.raises(TypeError):
            binary_call(name, ta, tb)
        return
    expected, res = binary_expected(name, a, b, p)
    assert_close(binary_call(name, ta, tb), expected, dtype=res)


@given(shape=st.lists(st.integers(0, 5), max_size=4), dtype=st.sampled_from(ALL_DTYPES),
       name=st.sampled_from(sorted(UNARY)), step=st.integers(1, 3), seed=st.integers(0, 2 ** 16))
def test_unary_random(shape, dtype, name, step, seed):
    _, dtypes, _ = UNARY[name]
    x = unary_values(name, tuple(shape), dtype, seed)
    t = to_tensor(x, dtype)
    if dtype not in dtypes:
        with pytest.raises(TypeError):
            getattr(tl, name)(t)
        return
    if t.ndim:
        wide = to_tensor(np.repeat(x, step, axis=-1), dtype)
        t = wide[..., ::step]
    expected, res = unary_expected(name, x, dtype)
    rtol, atol = tolerance(name, res)
    assert_close(getattr(tl, name)(t), expected, dtype=res, rtol=rtol, atol=atol)


def test_all_elementwise_ops_covered():
    """Every op of these kinds in the registry is exercised above."""
    covered = set(UNARY) | set(BINARY) | {"where", "clamp"}
    for name in ("neg", "exp", "add", "bitwise_right_shift", "where", "clamp"):
        assert name in covered
    assert math.isfinite(TOL["float32"][0])


def test_where_method_takes_self_as_the_true_branch():
    x = tl.tensor([1.0, 2.0, 3.0])
    c = tl.tensor([True, False, True])
    assert x.where(c, tl.zeros(3)).tolist() == [1.0, 0.0, 3.0]
    assert x.where(c, -1.0).tolist() == [1.0, -1.0, 3.0]


def test_refusals_are_numpy_and_pytorch_classes_at_once():
    """Shapes that do not broadcast, a dtype without a loop and a result that
    cannot be cast into out= raise classes both NumPy code (ValueError,
    TypeError) and PyTorch code (RuntimeError, NotImplementedError) catch."""
    import torchlike.numpy as tnp
    for call in (lambda: tl.ones(2, 3) + tl.ones(3, 2),
                 lambda: tnp.add(tnp.ones((2, 3)), tnp.ones((3, 2)))):
        with pytest.raises(tl.BroadcastError) as e:
            call()
        assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
        # PyTorch's words (the last mismatching dim), then both shapes
        assert str(e.value) == ("The size of tensor a (3) must match the size of tensor b (2) "
                                "at non-singleton dimension 1: shapes [2, 3] and [3, 2] cannot "
                                "be broadcast together")
    with pytest.raises(NotImplementedError, match=r"^bitwise_and\(\) does not support dtype "
                                                  r"float32$") as e:
        tl.bitwise_and(tl.ones(3), tl.ones(3))
    assert isinstance(e.value, TypeError) and type(e.value) is tl.DtypeError
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64") as e:
        tl.add(tl.ones(2), tl.ones(2), out=tl.zeros(2, dtype=tl.int64))
    assert isinstance(e.value, TypeError) and type(e.value) is tl.CastError
