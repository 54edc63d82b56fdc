"""Derivatives of the elementwise ops (ops.def UNARY, BINARY, WHERE, CLAMP) and
of copies and casts (src/grad/formulas_elementwise.c).

Real gradients are checked against central differences (gradcheck, float64);
complex ones against NumPy-evaluated finite differences in the real and
imaginary directions (PyTorch's convention: z.grad = dL/dre + i dL/dim for a
real loss L).  PyTorch's choices at kinks are asserted directly."""
import math

import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import assert_close, noncontiguous

# Every formula this file gradchecks (names as in _C._grad_formulas()).
GRADCHECKED = {
    "neg", "positive", "abs", "sign", "sgn", "reciprocal", "square", "sqrt", "rsqrt", "exp",
    "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
    "erfinv", "lgamma", "digamma", "floor", "ceil", "round", "trunc", "frac", "conj_physical",
    "angle", "nan_to_num",
    "add", "sub", "mul", "div", "trunc_divide", "floor_divide", "remainder", "fmod", "pow",
    "float_power", "atan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy",
    "_polygamma", "minimum", "maximum", "fmin", "fmax", "nextafter",
    "where", "clamp",
    "clone", "contiguous", "to", "cpu", "float", "double", "half", "bfloat16", "cfloat",
    "cdouble", "copy_", "fill_", "zero_", "real", "imag",
}

# Outputs of these never carry history.
NON_DIFFERENTIABLE = {
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift",
}

RNG = np.random.default_rng(1234)


def leaf(a):
    return tl.tensor(np.asarray(a, dtype=np.float64), dtype=tl.float64, requires_grad=True)


def values(shape, low, high, away_from_zero=False):
    a = RNG.uniform(low, high, size=shape)
    if away_from_zero:
        a = np.where(np.abs(a) < 0.2, np.copysign(0.2, a) + a, a)
    return a


def noncontig_leaf(a):
    t = noncontiguous(tl.tensor(np.asarray(a, dtype=np.float64)))
    assert not t.is_contiguous()
    return t.requires_grad_()


# ---- unary -------------------------------------------------------------------------

# name: (low, high, keep away from 0)
UNARY = {
    "neg": (-2, 2, False), "positive": (-2, 2, False), "abs": (-2, 2, True),
    "sign": (-2, 2, True), "sgn": (-2, 2, True), "reciprocal": (-2, 2, True),
    "square": (-2, 2, False), "sqrt": (0.3, 3, False), "rsqrt": (0.3, 3, False),
    "exp": (-2, 2, False), "exp2": (-2, 2, False), "expm1": (-2, 2, False),
    "log": (0.3, 3, False), "log2": (0.3, 3, False), "log10": (0.3, 3, False),
    "log1p": (-0.5, 3, False), "sin": (-3, 3, False), "cos": (-3, 3, False),
    "tan": (-1.2, 1.2, False), "asin": (-0.9, 0.9, False), "acos": (-0.9, 0.9, False),
    "atan": (-3, 3, False), "sinh": (-2, 2, False), "cosh": (-2, 2, False),
    "tanh": (-2, 2, False), "asinh": (-3, 3, False), "acosh": (1.2, 3, False),
    "atanh": (-0.9, 0.9, False), "sigmoid": (-3, 3, False), "erf": (-2, 2, False),
    "erfc": (-2, 2, False), "erfinv": (-0.9, 0.9, False), "lgamma": (0.3, 4, False),
    "digamma": (0.3, 4, False), "floor": (-3, 3, False), "ceil": (-3, 3, False),
    "round": (-3, 3, False), "trunc": (-3, 3, False), "frac": (-3, 3, False),
    "conj_physical": (-2, 2, False), "angle": (-2, 2, True), "nan_to_num": (-2, 2, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name):
    low, high, away = UNARY[name]
    fn = getattr(tl, name)
    for shape in [(), (5,), (2, 3)]:
        assert gradcheck(fn, (leaf(values(shape, low, high, away)),))
    assert gradcheck(fn, (noncontig_leaf(values((2, 3), low, high, away)),))
    # the method, on a 2-d input
    x = leaf(values((3, 2), low, high, away))
    assert gradcheck(lambda t: getattr(t, name)(), (x,))


def test_unary_gradient_values():
    x = leaf([-1.5, 0.0, 2.0])
    tl.abs(x).sum().backward()
    assert_close(x.grad, np.array([-1.0, 0.0, 1.0]))  # abs'(0) = 0
    x = leaf([0.0, 4.0])
    tl.sqrt(x).sum().backward()
    assert_close(x.grad, np.array([np.inf, 0.25]))  # sqrt'(0) = inf
    x = leaf([np.nan, np.inf, -np.inf, 1.0])
    tl.nan_to_num(x).sum().backward()
    assert_close(x.grad, np.array([0.0, 0.0, 0.0, 1.0]))
    for name in ["floor", "ceil", "round", "trunc", "sign"]:
        x = leaf([-1.3, 0.5, 2.7])
        getattr(tl, name)(x).sum().backward()
        assert_close(x.grad, np.zeros(3))
    x = leaf([-1.3, 0.5, 2.7])
    tl.frac(x).sum().backward()
    assert_close(x.grad, np.ones(3))


def test_unary_keyword_and_operator_calls():
    x = leaf(values((2, 3), -2, 2, True))
    assert gradcheck(lambda t: tl.exp(input=t), (x,))
    assert gradcheck(lambda t: tl.round(t, decimals=1) + t, (x,))
    assert gradcheck(lambda t: tl.nan_to_num(t, nan=0.0, posinf=1.0, neginf=-1.0), (x,))
    assert gradcheck(lambda t: -t, (x,))
    assert gradcheck(lambda t: +t * 2, (x,))
    assert gradcheck(lambda t: abs(t), (x,))


def test_digamma_derivative_is_trigamma():
    x = leaf([0.5, 1.0, 2.5, 7.0])
    tl.digamma(x).sum().backward()
    assert_close(x.grad, sp.polygamma(1, [0.5, 1.0, 2.5, 7.0]), rtol=1e-12)
    x = leaf([0.5, 3.0])
    tl.lgamma(x).sum().backward()
    assert_close(x.grad, sp.digamma([0.5, 3.0]), rtol=1e-12)


# ---- polygamma (the op digamma's derivative needed) ----------------------------------

def test_polygamma_values_against_scipy():
    xs = np.array([0.01, 0.3, 0.5, 1.0, 1.5, 2.0, 3.7, 9.99, 10.0, 25.0, 1e3, 1e6])
    negative = np.array([-0.5, -1.3, -2.75, -10.2, -100.5])
    for n in range(0, 7):
        got = tl.polygamma(n, tl.tensor(xs, dtype=tl.float64))
        assert_close(got, sp.polygamma(n, xs), rtol=1e-11, atol=0)
        # left of 0 the sum passes near the poles: terms up to n! 2^(n+1) cancel
        got = tl.polygamma(n, tl.tensor(negative, dtype=tl.float64))
        assert_close(got, sp.polygamma(n, negative), rtol=1e-10,
                     atol=1e-14 * math.factorial(n) * 2.0 ** (n + 1))
        got32 = tl.polygamma(n, tl.tensor(xs, dtype=tl.float32))
        assert_close(got32, sp.polygamma(n, xs.astype(np.float32)).astype(np.float32),
                     rtol=2e-5, atol=0)
    assert_close(tl.polygamma(15, tl.tensor([0.7, 4.0], dtype=tl.float64)),
                 sp.polygamma(15, [0.7, 4.0]), rtol=1e-11)


def test_polygamma_edges():
    x = tl.tensor([0.0, -1.0, -3.0, np.inf, -np.inf, np.nan], dtype=tl.float64)
    got = tl.polygamma(1, x).cpu().numpy()
    assert np.isposinf(got[:3]).all()  # poles, as SciPy
    assert got[3] == 0 and np.isnan(got[4]) and np.isnan(got[5])
    assert np.isneginf(tl.polygamma(2, tl.tensor([0.0], dtype=tl.float64)).cpu().numpy()).all()
    assert_close(tl.polygamma(0, x[:1] + 2), sp.digamma([2.0]))


def test_polygamma_api():
    x = tl.tensor([0.5, 2.0], dtype=tl.float64)
    expected = sp.polygamma(2, [0.5, 2.0])
    assert_close(x.polygamma(2), expected)
    out = tl.empty(2, dtype=tl.float64)
    assert tl.polygamma(2, x, out=out) is out
    assert_close(out, expected)
    y = x.clone()
    assert y.polygamma_(2) is y
    assert_close(y, expected)
    assert tl.polygamma(1, tl.tensor([1, 2])).dtype == tl.float32  # ints: the default float
    with pytest.raises(RuntimeError, match="does not support negative n"):
        tl.polygamma(-1, x)
    with pytest.raises(TypeError, match="must be int"):
        tl.polygamma(1.5, x)


def test_polygamma_gradient_chain():
    for n in [0, 1, 2]:
        assert gradcheck(lambda t: tl.polygamma(n, t), (leaf(values((4,), 0.5, 3)),))
    assert gradgradcheck(tl.digamma, (leaf(values((3,), 0.5, 3)),))


# ---- binary ---------------------------------------------------------------------------

# name: ((low, high, away from 0) for x, the same for y)
BINARY = {
    "add": ((-2, 2, False), (-2, 2, False)), "sub": ((-2, 2, False), (-2, 2, False)),
    "mul": ((-2, 2, False), (-2, 2, False)), "div": ((-2, 2, False), (-2, 2, True)),
    "trunc_divide": ((-3, 3, False), (-2, 2, True)),
    "floor_divide": ((-3, 3, False), (-2, 2, True)),
    "remainder": ((-3, 3, False), (-2, 2, True)), "fmod": ((-3, 3, False), (-2, 2, True)),
    "pow": ((0.3, 2, False), (-2, 2, False)), "float_power": ((0.3, 2, False), (-2, 2, False)),
    "atan2": ((-2, 2, True), (-2, 2, True)), "hypot": ((-2, 2, True), (-2, 2, True)),
    "logaddexp": ((-3, 3, False), (-3, 3, False)), "logaddexp2": ((-3, 3, False), (-3, 3, False)),
    "copysign": ((-2, 2, True), (-2, 2, True)), "xlogy": ((-2, 2, False), (0.3, 3, False)),
    "minimum": ((-2, 2, False), (-2, 2, False)), "maximum": ((-2, 2, False), (-2, 2, False)),
    "fmin": ((-2, 2, False), (-2, 2, False)), "fmax": ((-2, 2, False), (-2, 2, False)),
}
PAIRS = [((2, 3), (2, 3)), ((4, 1), (3,)), ((), (3,)), ((2, 3), ())]


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck(name):
    (xl, xh, xa), (yl, yh, ya) = BINARY[name]
    fn = getattr(tl, name)
    for sx, sy in PAIRS:
        x, y = leaf(values(sx, xl, xh, xa)), leaf(values(sy, yl, yh, ya))
        assert gradcheck(fn, (x, y))
    # non-contiguous operands, one side not requiring grad
    x, y = noncontig_leaf(values((2, 3), xl, xh, xa)), noncontig_leaf(values((2, 3), yl, yh, ya))
    assert gradcheck(fn, (x, y))
    assert gradcheck(lambda a: fn(a, y.detach()), (x,))
    assert gradcheck(lambda b: fn(x.detach(), b), (y,))
    # a Python scalar on either side, and the method
    xs, ys = float(values((), xl, xh, xa)), float(values((), yl, yh, ya))
    assert gradcheck(lambda a: fn(a, ys), (x,))
    assert gradcheck(lambda b: fn(xs, b), (y,))
    assert gradcheck(lambda a, b: getattr(a, name)(other=b), (x, y))


def test_binary_keywords_and_alpha():
    x, y = leaf(values((2, 3), -2, 2)), leaf(values((3,), -2, 2))
    assert gradcheck(lambda a, b: tl.add(a, b, alpha=2.5), (x, y))
    assert gradcheck(lambda a, b: tl.sub(input=a, other=b, alpha=-3), (x, y))
    assert gradcheck(lambda a, b: a.sub(b, alpha=0.5), (x, y))
    assert gradcheck(lambda a, b: tl.mul(input=a, other=b), (x, y))
    assert gradcheck(lambda a, b: tl.rsub(a, b, alpha=2), (x, y))
    for mode in ["floor", "trunc"]:
        a = leaf(values((2, 3), -3, 3))
        b = leaf(values((3,), 0.5, 2))
        tl.div(a, b, rounding_mode=mode).sum().backward()
        assert_close(a.grad, np.zeros((2, 3)))
        assert_close(b.grad, np.zeros(3))
    assert gradcheck(lambda a, b: tl.div(a, b, rounding_mode=None), (x, leaf(values((3,), 0.5, 2))))


def test_binary_operators():
    x, y = leaf(values((2, 3), 0.5, 2)), leaf(values((3,), 0.5, 2))
    for fn in [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
               lambda a, b: a ** b, lambda a, b: a % b, lambda a, b: a // b + a,
               lambda a, b: 2 - a + 3 * b, lambda a, b: 1 / a + b / 4, lambda a, b: 2 ** a + b ** 2,
               lambda a, b: 5.5 % b + a % 0.7]:
        assert gradcheck(fn, (x, y))


def test_binary_values_at_kinks():
    # maximum/minimum and fmax/fmin: ties split evenly, as PyTorch's (its
    # answers in tests/golden/numpy_tape.json); in fmax/fmin a NaN loses
    a, b = leaf([1.0, 2.0, 3.0]), leaf([1.0, 5.0, 0.0])
    tl.maximum(a, b).sum().backward()
    assert_close(a.grad, np.array([0.5, 0.0, 1.0]))
    assert_close(b.grad, np.array([0.5, 1.0, 0.0]))
    a, b = leaf([1.0, 2.0, 3.0]), leaf([1.0, 5.0, 0.0])
    tl.minimum(a, b).sum().backward()
    assert_close(a.grad, np.array([0.5, 1.0, 0.0]))
    assert_close(b.grad, np.array([0.5, 0.0, 1.0]))
    a, b = leaf([1.0, 2.0, 3.0, 4.0]), leaf([1.0, 5.0, 0.0, np.nan])
    tl.fmax(a, b).sum().backward()
    assert_close(a.grad, np.array([0.5, 0.0, 1.0, 1.0]))
    assert_close(b.grad, np.array([0.5, 1.0, 0.0, 0.0]))
    a, b = leaf([1.0, 2.0, 3.0, np.nan]), leaf([1.0, 5.0, 0.0, 2.0])
    tl.fmin(a, b).sum().backward()
    assert_close(a.grad, np.array([0.5, 1.0, 0.0, 0.0]))
    assert_close(b.grad, np.array([0.5, 0.0, 1.0, 1.0]))
    a, b = leaf([np.nan, 3.0]), leaf([np.nan, np.nan])   # both NaN: the first
    tl.fmax(a, b).sum().backward()
    assert_close(a.grad, np.array([1.0, 1.0]))
    assert_close(b.grad, np.array([0.0, 0.0]))
    # atan2 at the origin (and where x^2 + y^2 underflows): zero, not NaN
    a, b = leaf([0.0, 1e-200, 1.0]), leaf([0.0, 0.0, 1.0])
    tl.atan2(a, b).sum().backward()
    assert_close(a.grad, np.array([0.0, 0.0, 0.5]))
    assert_close(b.grad, np.array([0.0, 0.0, -0.5]))
    # xlogy: zero gradient for x where x == 0, even at y == 0
    a, b = leaf([0.0, 2.0]), leaf([0.0, 3.0])
    tl.xlogy(a, b).sum().backward()
    assert_close(a.grad, np.array([0.0, np.log(3.0)]))
    # copysign: the sign flip, zero for y and at x == 0
    a, b = leaf([0.0, 2.0, -1.0]), leaf([-1.0, -3.0, 2.0])
    tl.copysign(a, b).sum().backward()
    assert_close(a.grad, np.array([0.0, -1.0, -1.0]))
    assert_close(b.grad, np.zeros(3))


def test_pow_special_points():
    # 0 ** 0: zero gradients for both; 0 ** y (y > 0): zero for the exponent
    x, y = leaf([0.0, 0.0, 0.0, 2.0]), leaf([0.0, 2.0, 0.5, 0.0])
    tl.pow(x, y).sum().backward()
    assert_close(x.grad, np.array([0.0, 0.0, np.inf, 0.0]))
    assert_close(y.grad, np.array([0.0, 0.0, 0.0, np.log(2.0)]))
    # negative base: integer exponents fine for the base, NaN for the exponent
    x, y = leaf([-2.0, -1.5]), leaf([3.0, 2.0])
    tl.pow(x, y).sum().backward()
    assert_close(x.grad, np.array([12.0, -3.0]))
    assert np.isnan(y.grad.cpu().numpy()).all()
    assert gradcheck(lambda a: a ** 3, (leaf(values((4,), -2, 2)),))
    x = leaf([0.0, 1.5])
    (x ** 0).sum().backward()
    assert_close(x.grad, np.zeros(2))
    # scalar base: log computed in double; 0 ** y has zero gradient for y >= 0
    y = leaf([0.5, 2.0])
    (3.0 ** y).sum().backward()
    assert_close(y.grad, np.log(3.0) * 3.0 ** np.array([0.5, 2.0]), rtol=1e-14)
    y = leaf([0.0, 2.0, -1.0])
    tl.pow(0.0, y).sum().backward()
    assert y.grad.cpu().numpy()[0] == 0 and y.grad.cpu().numpy()[1] == 0
    assert np.isnan(y.grad.cpu().numpy()[2]) or np.isinf(y.grad.cpu().numpy()[2])
    x, y = leaf([1.5, 0.5]), leaf([2.0, -1.0])
    tl.float_power(x, y).sum().backward()
    assert_close(x.grad, np.array([3.0, -4.0]))


def test_gradient_dtype_follows_the_input():
    x = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    y = leaf([3.0, 4.0])
    (x * y).sum().backward()  # float64 result: gradients cast back
    assert x.grad.dtype == tl.float32 and y.grad.dtype == tl.float64
    assert_close(x.grad, np.array([3.0, 4.0], dtype=np.float32))
    x = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    tl.float_power(x, 2).sum().backward()
    assert x.grad.dtype == tl.float32
    assert_close(x.grad, np.array([2.0, 4.0], dtype=np.float32))


# ---- where and clamp ----------------------------------------------------------------------

def test_where_gradcheck():
    cond = tl.tensor(RNG.uniform(size=(2, 3)) > 0.5)
    a, b = leaf(values((2, 3), -2, 2)), leaf(values((3,), -2, 2))
    assert gradcheck(lambda p, q: tl.where(cond, p, q), (a, b))
    assert gradcheck(lambda p: tl.where(cond, p, 0.0), (a,))
    assert gradcheck(lambda q: tl.where(cond, 1.5, q), (b,))
    assert gradcheck(lambda p, q: tl.where(condition=cond, input=p, other=q), (a, b))
    assert gradcheck(lambda p, q: tl.where(p > 0, p, q), (a, b))
    a.grad = None
    tl.where(cond, a, b).sum().backward()
    assert_close(a.grad, cond.cpu().numpy().astype(np.float64))
    assert_close(b.grad, (~cond.cpu().numpy()).sum(0).astype(np.float64))


def test_clamp_gradcheck():
    x = leaf(values((2, 3), -2, 2))
    assert gradcheck(lambda t: tl.clamp(t, -0.5, 0.5), (x,))
    assert gradcheck(lambda t: tl.clamp(t, min=-0.5), (x,))
    assert gradcheck(lambda t: t.clamp(max=0.3), (x,))
    assert gradcheck(lambda t: tl.clip(t, -1, 1), (x,))
    lo, hi = leaf(values((3,), -1.5, -0.1)), leaf(values((2, 1), 0.1, 1.5))
    assert gradcheck(tl.clamp, (x, lo, hi))
    assert gradcheck(lambda t, m: tl.clamp(t, min=m), (x, lo))
    assert gradcheck(lambda t, m: tl.clamp(t, max=m), (x, hi))
    assert gradcheck(lambda t, m: tl.clamp(t, None, m), (noncontig_leaf(values((2, 3), -2, 2)), hi))


def test_clamp_boundaries():
    # number bounds: the gradient passes where min < x < max (PyTorch 2.15: a
    # tie sends nothing; tests/test_torch_api_compare.py checks tensor-bound ties)
    x = leaf([-2.0, -1.0, 0.0, 1.0, 2.0])
    tl.clamp(x, -1.0, 1.0).sum().backward()
    assert_close(x.grad, np.array([0.0, 0.0, 1.0, 0.0, 0.0]))
    # tensor bounds: each element's gradient goes to exactly the one that is the result
    x, lo, hi = leaf([-2.0, 0.0, 2.0, 0.5]), leaf([-1.0, -1.0, -1.0, 1.0]), leaf([1.0, 1.0, 1.0, 0.0])
    tl.clamp(x, lo, hi).sum().backward()
    assert_close(x.grad, np.array([0.0, 1.0, 0.0, 0.0]))
    assert_close(lo.grad, np.array([1.0, 0.0, 0.0, 0.0]))
    assert_close(hi.grad, np.array([0.0, 0.0, 1.0, 1.0]))  # min > max: the result is max


# ---- complex inputs ---------------------------------------------------------------------

def complex_values(shape, low=-2, high=2):
    return RNG.uniform(low, high, size=shape) + 1j * RNG.uniform(low, high, size=shape)


def numeric_complex_grads(np_fn, arrays, weight, eps=1e-6):
    """dL/dre + i dL/dim of L = sum(re(f * conj(w))) for each complex array."""
    def loss(*args):
        return np.sum(np.real(np.asarray(np_fn(*args)) * np.conj(weight)))
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            for step in (1, 1j):
                args = [b.copy() for b in arrays]
                args[k][idx] += eps * step
                plus = loss(*args)
                args[k][idx] -= 2 * eps * step
                minus = loss(*args)
                g[idx] += step * (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def check_complex(tl_fn, np_fn, arrays, out_complex=True):
    leaves = [tl.tensor(a, dtype=tl.complex128, requires_grad=True) for a in arrays]
    out = tl_fn(*leaves)
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    weight = complex_values(shape) if out_complex else RNG.uniform(-2, 2, size=shape)
    w = tl.tensor(weight, dtype=tl.complex128 if out_complex else tl.float64)
    (tl.real(out * tl.conj_physical(w)) if out_complex else out * w).sum().backward()
    for t, expected in zip(leaves, numeric_complex_grads(np_fn, arrays, weight)):
        assert t.grad.dtype == tl.complex128
        assert_close(t.grad, expected, rtol=1e-6, atol=1e-7)


COMPLEX_UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "tanh": np.tanh, "sqrt": np.sqrt, "reciprocal": np.reciprocal,
    "conj_physical": np.conj, "square": np.square, "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "sgn": lambda z: z / np.abs(z),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_UNARY))
def test_complex_unary(name):
    check_complex(getattr(tl, name), COMPLEX_UNARY[name], [complex_values((2, 3))])


@pytest.mark.parametrize("name,np_fn", [("abs", np.abs), ("angle", np.angle)])
def test_complex_to_real(name, np_fn):
    check_complex(getattr(tl, name), np_fn, [complex_values((2, 3))], out_complex=False)


@pytest.mark.parametrize("name,np_fn", [("add", np.add), ("sub", np.subtract),
                                        ("mul", np.multiply), ("div", np.divide),
                                        ("pow", np.power)])
def test_complex_binary(name, np_fn):
    check_complex(getattr(tl, name), np_fn, [complex_values((2, 3)), complex_values((3,))])


def test_complex_scalar_operand_and_real_parts():
    check_complex(lambda z: z * (2 - 1j) + 1j / z, lambda z: z * (2 - 1j) + 1j / z,
                  [complex_values((4,))])
    check_complex(lambda z: tl.real(z) * 2 + tl.imag(z) ** 2,
                  lambda z: np.real(z) * 2 + np.imag(z) ** 2, [complex_values((4,))],
                  out_complex=False)
    check_complex(lambda z: z.real * z.imag, lambda z: z.real * z.imag,
                  [complex_values((3,))], out_complex=False)
    # a real input through a complex computation gets the real part
    x = leaf([1.0, 2.0])
    (x * (1 + 2j)).abs().sum().backward()
    assert x.grad.dtype == tl.float64
    assert_close(x.grad, np.full(2, np.sqrt(5.0)))
    z = tl.tensor([0j, 1 + 1j], requires_grad=True)
    (tl.abs(z).sum() + tl.angle(z).sum() + tl.sgn(z).real.sum()).backward()
    assert np.isfinite(z.grad.cpu().numpy()).all() and z.grad.cpu().numpy()[0] == 0


# ---- copies, casts, fills ------------------------------------------------------------------

def test_copies_and_casts():
    x = leaf(values((2, 3), -2, 2))
    nc = noncontig_leaf(values((2, 3), -2, 2))
    assert gradcheck(lambda t: t.clone() * 2, (x,))
    assert gradcheck(lambda t: t.contiguous() * 2, (nc,))
    assert gradcheck(lambda t: t.double() * 2, (x,))
    assert gradcheck(lambda t: t.cpu() * 2, (x,))
    assert gradcheck(lambda t: t.to("cpu") * 2, (x,))
    assert gradcheck(lambda t: t.to(tl.complex128).real * 3, (x,))
    assert gradcheck(lambda t: tl.imag(t.cdouble() * (1 + 2j)), (x,))
    assert gradcheck(lambda t: (t.to(dtype=tl.complex128, device="cpu") * 1j).imag, (x,))
    assert gradcheck(lambda t: (t.cfloat() * (2 - 1j)).real.double(), (x,), eps=1e-3, atol=1e-4)
    assert gradcheck(lambda t: t.float().double() * 2, (x,), eps=1e-3, atol=1e-4)
    # half types: inputs and steps that both formats hold exactly
    exact = leaf(RNG.integers(32, 128, size=(2, 3)) / 64)
    for cast in ["half", "bfloat16", "float"]:
        assert gradcheck(lambda t: getattr(t, cast)().double() * 3, (exact,), eps=2 ** -6)
        exact.grad = None
        y = getattr(exact, cast)()
        (y * 2).sum().backward()
        assert exact.grad.dtype == tl.float64
        assert_close(exact.grad, np.full((2, 3), 2.0))


def test_cast_from_float32_keeps_its_dtype():
    x = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype == tl.float32
    assert_close(x.grad, np.full(2, 3.0, dtype=np.float32))


def test_copy_fill_zero():
    base, src = leaf(values((2, 3), -2, 2)), leaf(values((3,), -2, 2))
    assert gradcheck(lambda b, s: (b * 1).copy_(s) * 2, (base, src))
    assert gradcheck(lambda b, s: (b * 1).copy_(s) + b, (base, src))
    v = leaf(1.5)
    assert gradcheck(lambda b, s: (b * 1).fill_(s) * b, (base, v))
    assert gradcheck(lambda b: (b * 1).zero_() + b * 2, (base,))
    assert gradcheck(lambda b: (b * 1).fill_(2.0) * b, (base,))
    # the old value's history receives zeros; src gets g summed to its shape
    base.grad = src.grad = None
    y = base * 3
    y.copy_(src)
    (y * 2).sum().backward()
    assert_close(base.grad, np.zeros((2, 3)))
    assert_close(src.grad, np.full(3, 4.0))
    # src of another dtype: the gradient comes back in src's dtype
    s32 = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float32, requires_grad=True)
    y = base * 1
    y.copy_(s32)
    y.sum().backward()
    assert s32.grad.dtype == tl.float32
    assert_close(s32.grad, np.full(3, 2.0, dtype=np.float32))


def test_real_imag_views():
    z = tl.tensor(np.array([1 + 2j, 3 - 4j, 5j]))
    r, i = z.real, tl.imag(z)
    assert r.dtype == tl.float64 and i.dtype == tl.float64
    assert_close(r, np.array([1.0, 3, 0]))
    assert_close(i, np.array([2.0, -4, 5]))
    r[0] = 10  # views: writing through them changes z
    z.imag = tl.tensor([0.0, 0.0, 1.0])
    assert_close(z, np.array([10 + 0j, 3 + 0j, 1j]))
    z64 = tl.tensor([1 + 2j], dtype=tl.complex64)
    assert z64.real.dtype == tl.float32 and z64.imag.dtype == tl.float32
    z2 = tl.tensor(np.arange(12).reshape(3, 4) * (1 + 1j))
    assert_close(z2.t().real, np.arange(12).reshape(3, 4).T.astype(np.float64))
    assert_close(z2[1:, ::2].imag, (np.arange(12).reshape(3, 4)[1:, ::2]).astype(np.float64))
    x = tl.tensor([1.0, 2.0])
    assert tl.real(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        tl.imag(x)  # PyTorch's function refuses; the attribute x.imag is NumPy's zeros
    assert x.imag.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError):
        tl.real([1.0])


# ---- gradgradcheck --------------------------------------------------------------------

def test_gradgradcheck_representative():
    x, y = leaf(values((3,), 0.5, 2)), leaf(values((3,), 0.5, 2))
    assert gradgradcheck(tl.mul, (x, y))
    assert gradgradcheck(tl.div, (x, y))
    assert gradgradcheck(tl.pow, (x, y))
    assert gradgradcheck(tl.exp, (x,))
    assert gradgradcheck(tl.log, (x,))
    assert gradgradcheck(tl.tanh, (x,))
    assert gradgradcheck(tl.sigmoid, (x,))
    assert gradgradcheck(tl.atan2, (x, y))
    cond = tl.tensor([True, False, True])
    assert gradgradcheck(lambda a, b: tl.where(cond, a * a, b * a), (x, y))
    assert gradgradcheck(lambda a, b: tl.clamp(a * b, 0.5, 2.0) * a, (x, y))


# ---- non-differentiable ops -------------------------------------------------------------

def test_non_differentiable_outputs_have_no_history():
    x, y = leaf(values((2, 3), -2, 2)), leaf(values((3,), -2, 2))
    outs = {
        "eq": tl.eq(x, y), "ne": x != y, "lt": x < y, "le": tl.le(x, y), "gt": x > 0,
        "ge": x.ge(y), "logical_and": tl.logical_and(x, y), "logical_or": tl.logical_or(x, y),
        "logical_xor": tl.logical_xor(x, y), "logical_not": tl.logical_not(x),
        "isnan": tl.isnan(x), "isinf": x.isinf(), "isfinite": tl.isfinite(x),
        "isposinf": tl.isposinf(x), "isneginf": tl.isneginf(x), "signbit": tl.signbit(x),
        "bitwise_not": tl.bitwise_not(x > 0), "bitwise_and": (x > 0) & (y > 0),
        "bitwise_or": tl.bitwise_or(x > 0, y > 0), "bitwise_xor": (x > 0) ^ (y < 0),
        "bitwise_left_shift": tl.bitwise_left_shift((x > 0).int(), 1),
        "bitwise_right_shift": (x > 0).int() >> 1,
    }
    assert set(outs) == NON_DIFFERENTIABLE
    for name, out in outs.items():
        assert out.grad_fn is None and not out.requires_grad, name
    assert_close(tl.nextafter(x, y).detach(),
                 np.nextafter(x.detach().cpu().numpy(), y.detach().cpu().numpy()))
    names = tl._C._grad_formulas()
    for name in NON_DIFFERENTIABLE:
        assert names[name] is False, name
    for name in GRADCHECKED:
        assert names[name] is True, name


# ---- in-place ---------------------------------------------------------------------------

def test_inplace_on_non_leaf():
    x, y = leaf(values((2, 3), 0.5, 2)), leaf(values((3,), 0.5, 2))

    def chained(a, b):
        t = a * 1
        t.mul_(b)
        t += b
        t.sub_(b, alpha=2)
        t /= b
        t.sin_()
        t.pow_(2)
        t.clamp_(max=0.8)
        t -= 1
        t.exp_()  # saves its result: nothing may write t after it
        return t

    assert gradcheck(chained, (x, y))
    assert gradcheck(lambda a, b: (a * 1).atan2_(b), (x, y))
    assert gradcheck(lambda a, b: (a * 1).maximum(b).sqrt_(), (x, y))
    assert gradcheck(lambda a: (a * 1).polygamma_(1), (x,))
    t = x * 1
    t.mul_(y)
    assert t.grad_fn.name() == "MulBackward0"
    t.sum().backward()
    assert_close(x.grad, np.broadcast_to(y.detach().cpu().numpy(), (2, 3)))
    assert_close(y.grad, x.detach().cpu().numpy().sum(0))  # the old value of t, saved by mul_


def test_inplace_on_leaf_is_refused():
    x, y = leaf(values((3,), 0.5, 2)), leaf(values((3,), 0.5, 2))
    msg = "a leaf Variable that requires grad is being used in an in-place operation."
    for fn in [lambda: x.mul_(y), lambda: x.exp_(), lambda: x.clamp_(min=0),
               lambda: x.__iadd__(y), lambda: x.copy_(y), lambda: x.zero_()]:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    with tl.no_grad():
        x.mul_(2)  # allowed without grad mode
    assert x.grad_fn is None and x.requires_grad


def test_saved_tensor_modified_in_place():
    x, y = leaf(values((3,), 0.5, 2)), leaf(values((3,), 0.5, 2))
    a = x * 1
    b = a * y  # saves a
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    r = x.exp()  # exp saves its result
    r2 = r * 1
    r.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        r2.sum().backward(retain_graph=True)
        r.sum().backward()
    x.grad = None
    c = x * 1
    d = c.sin()
    d.sum().backward()  # unmodified: fine
    assert_close(x.grad, np.cos(x.detach().cpu().numpy()))


def test_nextafter_passes_the_gradient_to_x_and_zeros_to_y():
    """PyTorch's formula: one ulp towards y moves with x (d/dx = 1) and does
    not depend on y (zeros), out of place and in place."""
    x, y = leaf(values((3,), 0.5, 2)), leaf(values((3,), 0.5, 2))
    assert tl.autograd.gradcheck(lambda a: tl.nextafter(a, y.detach()), (x,))
    tl.nextafter(x, y).sum().backward()
    assert x.grad.tolist() == [1.0] * 3 and y.grad.tolist() == [0.0] * 3
    x.grad = y.grad = None
    t = x * 2
    t.nextafter_(y)
    (t * 3).sum().backward()
    assert x.grad.tolist() == [6.0] * 3 and y.grad.tolist() == [0.0] * 3
