"""Python operators on tensors (plain, reflected, in-place), out= and the
in-place `_` methods of every elementwise op, and mixed tensor / ndarray /
Python scalar operands, against NumPy."""
import operator

import numpy as np
import pytest

import torchlike as tl
from oracle import assert_close, random_array, to_tensor
from promotion_rules import promote, promote_weak

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# operator -> (NumPy function, dtypes it is checked on)
NUMERIC = ["int32", "int64", "float32", "float64"]
BINARY_OPERATORS = {
    operator.add: (np.add, NUMERIC + ["complex128"]),
    operator.sub: (np.subtract, NUMERIC + ["complex128"]),
    operator.mul: (np.multiply, NUMERIC + ["complex128"]),
    operator.truediv: (np.true_divide, ["float32", "float64", "complex128"]),
    operator.floordiv: (np.floor_divide, NUMERIC),
    operator.mod: (np.remainder, NUMERIC),
    operator.pow: (np.power, ["float32", "float64"]),
    operator.and_: (np.bitwise_and, ["bool", "int32", "int64"]),
    operator.or_: (np.bitwise_or, ["bool", "int32", "int64"]),
    operator.xor: (np.bitwise_xor, ["bool", "int32", "int64"]),
    operator.lshift: (np.left_shift, ["int32", "int64"]),
    operator.rshift: (np.right_shift, ["int32", "int64"]),
    operator.lt: (np.less, NUMERIC),
    operator.le: (np.less_equal, NUMERIC),
    operator.gt: (np.greater, NUMERIC),
    operator.ge: (np.greater_equal, NUMERIC),
    operator.eq: (np.equal, NUMERIC + ["complex128"]),
    operator.ne: (np.not_equal, NUMERIC + ["complex128"]),
}
INPLACE = {
    operator.add: operator.iadd, operator.sub: operator.isub, operator.mul: operator.imul,
    operator.truediv: operator.itruediv, operator.floordiv: operator.ifloordiv,
    operator.mod: operator.imod, operator.pow: operator.ipow, operator.and_: operator.iand,
    operator.or_: operator.ior, operator.xor: operator.ixor, operator.lshift: operator.ilshift,
    operator.rshift: operator.irshift,
}


def operands(dtype, rng, shape=(3, 4), second=False):
    if second and dtype in ("int32", "int64"):
        return random_array(shape, dtype, rng, low=1, high=6)  # exponents, shifts, divisors
    return random_array(shape, dtype, rng)


@pytest.mark.host_only  # ndarrays live on the host
@pytest.mark.parametrize("op", list(BINARY_OPERATORS), ids=lambda o: o.__name__)
def test_binary_operator(op):
    ref, dtypes = BINARY_OPERATORS[op]
    rng = np.random.default_rng(0)
    for dtype in dtypes:
        a, b = operands(dtype, rng), operands(dtype, rng, (4,), second=True)
        if op in (operator.floordiv, operator.mod) and a.dtype.kind in "iu":
            a = np.where(a == 0, 1, a).astype(a.dtype)  # a divides s below: 0 raises, as PyTorch
        ta, tb = to_tensor(a), to_tensor(b)
        with np.errstate(all="ignore"):
            expected = ref(a, b)
        assert_close(op(ta, tb), expected)
        # tensor with ndarray, on either side: the result is a tensor
        assert_close(op(ta, b), expected)
        assert_close(op(a, tb), expected)
        # tensor with a Python scalar, on either side (reflected operators)
        s = b.flat[0].item()
        with np.errstate(all="ignore"):
            assert_close(op(ta, s), ref(a, np.asarray(s, dtype=a.dtype)))
            if op not in (operator.lshift, operator.rshift):
                assert_close(op(s, ta), ref(np.asarray(s, dtype=a.dtype), a))


@pytest.mark.parametrize("op", list(INPLACE), ids=lambda o: o.__name__)
def test_inplace_operator(op):
    ref, dtypes = BINARY_OPERATORS[op]
    rng = np.random.default_rng(1)
    for dtype in dtypes:
        a, b = operands(dtype, rng), operands(dtype, rng, (4,), second=True)
        ta = to_tensor(a)
        alias = ta
        view = ta[1:]
        version = ta._version
        ta = INPLACE[op](ta, to_tensor(b))
        with np.errstate(all="ignore"):
            expected = ref(a, b).astype(a.dtype)
        assert ta is alias  # written in place, same object
        assert_close(ta, expected)
        assert_close(view, expected[1:])  # views see the write
        assert ta._version > version


def test_inplace_operator_dtype_and_shape_rules():
    i = tl.tensor([1, 2, 3])
    with pytest.raises(TypeError, match="float32.*int64"):
        i += 1.5
    with pytest.raises(TypeError):
        i /= 2
    f = tl.tensor([1.0, 2.0, 3.0])
    f += tl.tensor([1, 1, 1])  # int into float is fine
    assert f.tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match=r"\[3\].*\[2, 3\]"):
        f += tl.ones(2, 3)
    b = tl.tensor([True, False])
    b |= tl.tensor([False, True])
    assert b.tolist() == [True, True]
    f **= 2
    assert f.tolist() == [4.0, 9.0, 16.0]


def test_unary_operators():
    rng = np.random.default_rng(2)
    for dtype in ("int8", "int64", "float32", "float64", "complex64"):
        a = random_array((2, 5), dtype, rng)
        t = to_tensor(a)
        assert_close(-t, -a)
        assert_close(+t, +a)
        assert_close(abs(t), np.abs(a))
        if dtype.startswith("int"):
            assert_close(~t, ~a)
    bools = np.array([True, False])
    assert_close(~to_tensor(bools), ~bools)
    assert_close(abs(to_tensor(bools)), bools)


@pytest.mark.host_only  # lists become host tensors
def test_comparison_with_none_and_other_objects():
    t = tl.tensor([1, 2])
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        t < None  # noqa: B015
    with pytest.raises(TypeError):
        t + "a"
    with pytest.raises(TypeError):
        t + object()
    assert_close(t + [10, 20], np.array([11, 22]))
    assert_close([10, 20] - t, np.array([9, 18]))
    assert_close(t * (2, 3), np.array([2, 6]))


@pytest.mark.host_only  # ndarrays live on the host
def test_mixed_operands_promotion():
    t = tl.tensor([1, 2, 3], dtype=tl.int32)
    a = np.array([0.5, 0.5, 0.5], dtype=np.float64)
    assert (t + a).dtype == tl.float64  # an ndarray is a tensor, not a weak scalar
    assert (a + t).dtype == tl.float64
    assert (t + np.float32(2)).dtype == tl.float32
    assert (t + 2).dtype == tl.int32
    assert (t + 2.0).dtype == tl.float32
    assert (2 ** t).dtype == tl.int32 and (2 ** t).tolist() == [2, 4, 8]
    assert (2.0 ** t).dtype == tl.float32
    assert (True + tl.tensor([True])).dtype == tl.bool
    assert promote("int32", "float64") == "float64"
    assert promote_weak("int32", float) == "float32"


# ---- out= and in-place methods for every elementwise op ------------------------------

UNARY_FLOAT = ["neg", "positive", "abs", "sign", "sgn", "reciprocal", "square", "sqrt", "rsqrt",
               "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
               "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
               "sigmoid", "erf", "erfc", "erfinv", "lgamma", "digamma", "floor", "ceil", "round",
               "trunc", "frac", "conj_physical", "angle", "nan_to_num"]
UNARY_BOOL = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "logical_not"]
BINARY_FLOAT = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow",
                "float_power", "atan2", "hypot", "logaddexp", "logaddexp2", "copysign",
                "nextafter", "xlogy", "minimum", "maximum", "fmin", "fmax"]
BINARY_BOOL = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]


def _x():
    return np.array([[0.25, -0.5, 0.75], [1.5, -2.0, 0.1]])


@pytest.mark.parametrize("name", UNARY_FLOAT + UNARY_BOOL)
def test_unary_out_and_inplace(name):
    x = _x()
    fn = getattr(tl, name)
    expected = fn(tl.tensor(x))
    out = tl.empty(2, 3, dtype=expected.dtype)
    r = fn(tl.tensor(x), out=out)
    assert r is out
    assert_close(out, expected.cpu().numpy())
    # in-place: the result is cast back into the tensor's own dtype
    t = tl.tensor(x)
    if name == "float_power":
        return
    r = getattr(t, name + "_")()
    assert r is t
    assert_close(t, expected.cpu().numpy().astype(np.float64), check_dtype=False)
    # non-contiguous out
    wide = tl.zeros(2, 6, dtype=expected.dtype)
    fn(tl.tensor(x), out=wide[:, ::2])
    assert_close(wide[:, ::2], expected.cpu().numpy())
    assert (wide[:, 1::2].cpu().numpy() == 0).all()


@pytest.mark.parametrize("name", BINARY_FLOAT + BINARY_BOOL)
def test_binary_out_and_inplace(name):
    x, y = _x(), np.array([0.5, -1.5, 2.0])
    fn = getattr(tl, name)
    expected = fn(tl.tensor(x), tl.tensor(y))
    out = tl.empty(2, 3, dtype=expected.dtype)
    assert fn(tl.tensor(x), tl.tensor(y), out=out) is out
    assert_close(out, expected.cpu().numpy())
    t = tl.tensor(x)
    assert getattr(t, name + "_")(tl.tensor(y)) is t
    assert_close(t, expected.cpu().numpy().astype(np.float64), check_dtype=False)
    # out with the wrong shape: an error naming both shapes, nothing written
    bad = tl.zeros(3, 2, dtype=expected.dtype)
    with pytest.raises(RuntimeError, match=r"\[3, 2\].*\[2, 3\]"):
        fn(tl.tensor(x), tl.tensor(y), out=bad)
    assert (bad.cpu().numpy() == 0).all()
    # in-place into a tensor that would have to grow: refused
    small = tl.tensor(y)
    with pytest.raises(RuntimeError, match=r"\[3\].*\[2, 3\]"):
        getattr(small, name + "_")(tl.tensor(x))


def test_integer_ops_out_and_inplace():
    a, b = np.array([7, -7, 12, 5]), np.array([2, 3, 5, 1])
    for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                      ("bitwise_xor", np.bitwise_xor), ("bitwise_left_shift", np.left_shift),
                      ("bitwise_right_shift", np.right_shift)]:
        out = tl.empty(4, dtype=tl.int64)
        getattr(tl, name)(tl.tensor(a), tl.tensor(b), out=out)
        assert_close(out, ref(a, b))
        t = tl.tensor(a)
        getattr(t, name + "_")(tl.tensor(b))
        assert_close(t, ref(a, b))
    t = tl.tensor(a)
    t.bitwise_not_()
    assert_close(t, ~a)
    w = tl.tensor([1.0, 2.0])
    tl.where(tl.tensor([True, False]), w, 0.0, out=w)
    assert w.tolist() == [1.0, 0.0]


def test_out_overlapping_input():
    x = np.arange(8.0)
    t = tl.tensor(x)
    tl.add(t[:-1], t[1:], out=t[1:])  # output overlaps both inputs
    expected = x.copy()
    expected[1:] = x[:-1] + x[1:]
    assert_close(t, expected)


@pytest.mark.host_only  # zero-copy sharing with a read-only ndarray
def test_readonly_out_refused():
    a = np.arange(3.0)
    a.setflags(write=False)
    t = tl.from_numpy(a)
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1)
    with pytest.raises(ValueError, match="read-only"):
        tl.exp(tl.ones(3, dtype=tl.float64), out=t)


def test_aliases_are_functions_and_methods():
    x = tl.tensor([0.5, -0.25])
    pairs = [("absolute", "abs"), ("negative", "neg"), ("arcsin", "asin"), ("arccos", "acos"),
             ("arctan", "atan"), ("arcsinh", "asinh"), ("arctanh", "atanh"), ("fix", "trunc")]
    for alias, target in pairs:
        assert_close(getattr(tl, alias)(x), getattr(tl, target)(x).cpu().numpy())
        assert_close(getattr(x, alias)(), getattr(x, target)().cpu().numpy())
        y = tl.tensor([0.5, -0.25])
        getattr(y, alias + "_")()
        assert_close(y, getattr(tl, target)(x).cpu().numpy())
    y = tl.tensor([2.0, 3.0])
    for alias, target in [("multiply", "mul"), ("divide", "div"), ("true_divide", "div"),
                          ("subtract", "sub"), ("arctan2", "atan2"), ("greater", "gt"),
                          ("less", "lt"), ("greater_equal", "ge"), ("less_equal", "le"),
                          ("not_equal", "ne")]:
        assert_close(getattr(tl, alias)(x, y), getattr(tl, target)(x, y).cpu().numpy())
        assert_close(getattr(x, alias)(y), getattr(tl, target)(x, y).cpu().numpy())
    assert_close(tl.arccosh(tl.tensor([2.0])), np.arccosh(np.array([2.0], np.float32)))
    assert_close(tl.clip(x, -0.3, 0.3), np.clip(x.cpu().numpy(), -0.3, 0.3))
    assert_close(x.clip(max=0.0), np.minimum(x.cpu().numpy(), 0))
    assert_close(tl.subtract(x, y, alpha=2), x.cpu().numpy() - 2 * y.cpu().numpy())
    assert_close(tl.rsub(x, 1.0), 1.0 - x.cpu().numpy())
    assert_close(tl.divide(tl.tensor([7]), 2, rounding_mode="floor"), np.array([3]))
