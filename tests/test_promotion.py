"""Type promotion: every tensor x tensor pair and every tensor x Python scalar
case, checked against the documented rules written out in promotion_rules.py
(Array API table within a kind, PyTorch across kinds, weak scalars per
NEP 50), plus the op-specific rules (true division, comparisons, bool
arithmetic) and the OverflowError for integer scalars that do not fit."""
import numpy as np
import pytest

import torchlike as tl
from promotion_rules import ALL, COMPLEXES, FLOATS, INTS, kind, promote, promote_weak

# A few rows of the table spelled out literally, so a mistake in the rule
# functions cannot hide a mistake in the C code.
LITERAL = [
    ("uint8", "int8", "int16"), ("uint8", "int16", "int16"), ("uint8", "uint8", "uint8"),
    ("int8", "int64", "int64"), ("bool", "uint8", "uint8"), ("bool", "float16", "float16"),
    ("int32", "float16", "float16"), ("int64", "bfloat16", "bfloat16"),
    ("float16", "bfloat16", "float32"), ("bfloat16", "float64", "float64"),
    ("float16", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("complex64", "complex128", "complex128"), ("int64", "complex64", "complex64"),
]


def t(dtype, values=(1, 0, 1)):
    return tl.tensor(list(values), dtype=getattr(tl, dtype))


@pytest.mark.parametrize("a,b,expected", LITERAL)
def test_literal_rows(a, b, expected):
    assert promote(a, b) == expected
    assert tl.promote_types(getattr(tl, a), getattr(tl, b)).name == expected
    assert (t(a) + t(b)).dtype.name == expected


@pytest.mark.parametrize("a", ALL)
def test_tensor_tensor_table(a):
    for b in ALL:
        want = promote(a, b)
        assert promote(b, a) == want  # the table is symmetric
        assert tl.promote_types(getattr(tl, a), getattr(tl, b)).name == want, (a, b)
        assert (t(a) * t(b)).dtype.name == want, (a, b)
        assert tl.maximum(t(a), t(b)).dtype.name == want if kind(want) < 3 else True
        assert tl.where(t("bool"), t(a), t(b)).dtype.name == want, (a, b)
        assert (t(a) == t(b)).dtype.name == "bool"
        # true division always gives a floating result
        div = want if kind(want) >= 2 else "float32"
        assert (t(a) / t(b)).dtype.name == div, (a, b)
        # 0-d tensors take part like any other tensor (PyTorch's dimension
        # categories are not modelled: a 0-d tensor is not weak)
        assert (t(a) + tl.tensor(1, dtype=getattr(tl, b))).dtype.name == want


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("scalar", [True, 2, 2.5, 1 + 2j])
def test_tensor_scalar(a, scalar):
    want = promote_weak(a, type(scalar))
    if a == "bool" and isinstance(scalar, bool):
        assert (t(a) * scalar).dtype.name == "bool"
    assert (t(a) * scalar).dtype.name == want, (a, scalar)
    assert (scalar * t(a)).dtype.name == want, (a, scalar)
    assert tl.mul(t(a), scalar).dtype.name == want
    assert tl.result_type(t(a), scalar).name == want
    assert (t(a) < scalar).dtype.name == "bool" if kind(want) < 3 else True
    div = want if kind(want) >= 2 else "float32"
    assert (t(a) / scalar).dtype.name == div


# NumPy scalar operands of torch-style calls: PyTorch takes them as the
# Python numbers they hold (CLIP's `torch.ones([]) * np.log(1 / 0.07)` is
# float32); the dtypes are PyTorch 2's answers.
NUMPY_SCALARS = [
    ("float32", np.float64(2), "float32"), ("float16", np.float64(2), "float16"),
    ("float16", np.float32(2), "float16"), ("int32", np.int64(3), "int32"),
    ("int32", np.float32(2.5), "float32"), ("int32", np.float64(2.5), "float32"),
    ("bool", np.int64(2), "int64"), ("int32", np.int16(2), "int32"),
    ("float32", np.complex128(1j), "complex64"), ("float32", np.bool_(True), "float32"),
    ("uint8", np.uint64(3), "uint8"),
]


@pytest.mark.parametrize("a,scalar,want", NUMPY_SCALARS, ids=lambda v: repr(v))
def test_numpy_scalar_operand_is_a_python_number(a, scalar, want):
    assert (t(a) + scalar).dtype.name == want
    assert (t(a) * scalar).dtype.name == want
    assert tl.mul(t(a), scalar).dtype.name == want
    assert t(a).add(scalar, alpha=1).dtype.name == want
    assert (t(a, [1]).reshape(()) * scalar).dtype.name == want   # 0-d too
    assert (t(a) * scalar).tolist() == (t(a) * scalar.item()).tolist()


@pytest.mark.parametrize("a,scalar,want", NUMPY_SCALARS, ids=lambda v: repr(v))
def test_numpy_scalar_on_the_left_of_an_operator_is_a_python_number(a, scalar, want):
    """`np.float64(2) * t` is answered by NumPy's scalar with np.multiply, which
    reaches __array_ufunc__; the operator still follows PyTorch (the dtypes of
    the table above, the values of the Python number on the left)."""
    x, number = t(a), scalar.item()
    assert (scalar + x).dtype.name == want
    assert (scalar * x).dtype.name == want
    assert (scalar * x).tolist() == (number * x).tolist()
    if want != "bool" and a != "bool":
        assert (scalar - x).tolist() == (number - x).tolist()
        assert (scalar - x).dtype.name == want
    for left, right in [(scalar == x, number == x), (scalar != x, number != x)]:
        assert left.dtype == tl.bool and left.tolist() == right.tolist()
    if not np.iscomplexobj(scalar):   # complex numbers have no order
        for left, right in [(scalar < x, number < x), (scalar >= x, number >= x)]:
            assert left.dtype == tl.bool and left.tolist() == right.tolist()
    assert [scalar * v for v in [x]][0].dtype.name == want   # in a comprehension's frame
    assert (lambda: scalar * x)().dtype.name == want


def test_numpy_scalar_on_the_left_keeps_dtype_through_a_layer():
    """PyTorch code such as `np.sqrt(d) * x` feeds a float32 layer: a float64
    result would make the layer refuse its input."""
    layer = tl.nn.Linear(3, 2)
    x = tl.ones(4, 3)
    y = layer(np.sqrt(np.float64(3)) * x)
    assert y.dtype == tl.float32 and y.shape == (4, 2)
    z = np.float64(0.5) / x
    assert z.dtype == tl.float32 and z.tolist() == (0.5 / x).tolist()


def test_numpy_scalar_keeps_numpys_promotion_in_numpys_spellings():
    """NumPy's functions (the namespace's, and np.<ufunc> on a tensor) keep
    NEP 50: a NumPy scalar is an array there."""
    import torchlike.numpy as tnp
    x = t("float32")
    assert tnp.add(x, np.float64(2)).dtype == tl.float64
    assert tnp.multiply(np.float64(2), x).dtype == tl.float64
    assert np.add(x, np.float64(2)).dtype == tl.float64
    assert np.multiply(np.float64(2), x).dtype == tl.float64   # the ufunc called, not `*`
    assert np.less(np.float64(2), x).dtype == tl.bool
    assert np.multiply(x, np.complex128(1j)).dtype == tl.complex128
    assert tnp.add(x, 2.0).dtype == tl.float32    # a Python float stays weak


def test_numpy_scalar_value_is_not_rounded_to_the_default_dtype():
    v = np.float32(0.1)
    assert (t("float64", [1]) * v).tolist() == [float(v)]
    assert (t("int64", [1]) + np.int64(2 ** 40)).tolist() == [2 ** 40 + 1]


def test_scalar_values_are_not_truncated_by_weak_promotion():
    assert (t("int8", [1, 2]) + 3.7).tolist() == pytest.approx([4.7, 5.7])
    assert (t("float16", [1, 2]) * 1e5).cpu().numpy().tolist() == [np.inf, np.inf]
    assert (t("uint8", [250]) + 10).tolist() == [4]  # wraps within the tensor's dtype


@pytest.mark.parametrize("dtype,bad", [("uint8", 256), ("uint8", -1), ("int8", 128),
                                       ("int8", -129), ("int16", 40000), ("int32", 2 ** 31)])
def test_out_of_range_int_scalar_raises_overflow(dtype, bad):
    with pytest.raises(OverflowError, match=f"{bad}.*{dtype}"):
        t(dtype) + bad
    with pytest.raises(OverflowError):
        tl.mul(t(dtype), bad)
    # comparisons answer instead (NumPy 2, PyTorch): the value is simply out of range
    assert (t(dtype, [1]) < bad).tolist() == [bad > 1]
    assert (t(dtype, [1]) == bad).tolist() == [False]
    # a float scalar is no problem
    assert (t(dtype) + float(bad)).dtype == tl.float32


def test_int_true_division_gives_default_float():
    assert (t("int64", [7]) / t("int64", [2])).tolist() == [3.5]
    assert (t("int64") / 2).dtype == tl.float32
    assert tl.div(t("uint8"), t("int8")).dtype == tl.float32
    assert (t("bool") / t("bool")).dtype == tl.float32
    assert tl.sqrt(t("int32")).dtype == tl.float32
    previous = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert (t("int64") / 2).dtype == tl.float64
        assert (t("int64") + 1.5).dtype == tl.float64
        assert tl.exp(t("int16")).dtype == tl.float64
        assert (t("float16") + 1.5).dtype == tl.float16  # same kind: the tensor wins
        assert (t("int64") * 1j).dtype == tl.complex128
    finally:
        tl.set_default_dtype(previous)


def test_bool_arithmetic_rules():
    a, b = tl.tensor([True, False, True]), tl.tensor([True, True, False])
    assert (a + b).dtype == tl.bool and (a + b).tolist() == [True, True, True]
    assert (a * b).dtype == tl.bool and (a * b).tolist() == [True, False, False]
    assert (a + 1).dtype == tl.int64 and (a + 1).tolist() == [2, 1, 2]
    assert (a + True).dtype == tl.bool
    assert (a * 1.5).dtype == tl.float32
    assert (a & b).tolist() == [True, False, False]
    assert (~a).tolist() == [False, True, False]
    assert (a ^ b).dtype == tl.bool
    assert (a == b).tolist() == [True, False, False]
    assert (a > b).tolist() == [False, False, True]
    with pytest.raises(TypeError, match="bool"):
        a - b
    with pytest.raises(TypeError, match="bool"):
        -a
    assert (a - 1).dtype == tl.int64  # an int scalar lifts bool to int64 first
    assert tl.abs(a).dtype == tl.bool
    assert (a + t("int8", [1, 1, 1])).dtype == tl.int8


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "atan2", "minimum"])
def test_binary_rule_result_dtypes(op):
    fn = getattr(tl, op)
    for a in INTS + FLOATS:
        for b in INTS + FLOATS:
            p = promote(a, b)
            want = "float32" if op == "atan2" and kind(p) < 2 else p
            assert fn(t(a, [3, 5, 7]), t(b, [2, 3, 4])).dtype.name == want, (op, a, b)
    for c in COMPLEXES:
        if op != "minimum" or True:
            with pytest.raises(TypeError, match=op):
                fn(t(c), t(c))


def test_unary_rule_result_dtypes():
    for d in ALL:
        x = t(d)
        assert tl.isnan(x).dtype == tl.bool
        assert tl.abs(x).dtype.name == {"complex64": "float32", "complex128": "float64"}.get(d, d)
        assert tl.exp(x).dtype.name == (d if kind(d) >= 2 else "float32")
        assert tl.angle(x).dtype.name == {"complex64": "float32", "complex128": "float64"}.get(
            d, d if kind(d) == 2 else "float32")
        assert tl.logical_not(x).dtype == tl.bool
        assert tl.float_power(x, 2).dtype.name == ("complex128" if kind(d) == 3 else "float64")


def test_out_dtype_must_be_castable():
    out = tl.empty(3, dtype=tl.int64)
    with pytest.raises(TypeError, match="float32.*int64|int64.*float32"):
        tl.add(t("float32"), 1, out=out)
    with pytest.raises(TypeError):
        tl.div(t("int64"), 2, out=out)
    res = tl.add(t("int8"), t("int8"), out=tl.empty(3, dtype=tl.float64))
    assert res.dtype == tl.float64 and res.tolist() == [2.0, 0.0, 2.0]
    assert tl.eq(t("float32"), 1, out=tl.empty(3, dtype=tl.int32)).tolist() == [1, 0, 1]


def test_dtype_functions_take_pytorchs_keywords_and_name_bad_arguments():
    # bound from signatures.txt with PyTorch's parameter names
    assert tl.promote_types(type1=tl.int32, type2=tl.float32) == tl.float32
    assert tl.promote_types(tl.int32, float) == tl.float64  # a Python type stands for a dtype
    assert tl.can_cast(from_=tl.float32, to=tl.int32) is np.can_cast(np.float32, np.int32,
                                                                      "same_kind")
    assert tl.result_type(tensor=tl.zeros(2, dtype=tl.int16), other=2.5) == tl.float32
    assert tl.result_type(1, tl.zeros(2, dtype=tl.int8)) == tl.int8
    with pytest.raises(TypeError, match=r"^promote_types\(\): argument 'type2' must be "
                                        r"torchlike.dtype, not int$"):
        tl.promote_types(tl.int32, 1)
    with pytest.raises(TypeError, match=r"^can_cast\(\): argument 'to' must be torchlike.dtype, "
                                        r"not NoneType$"):
        tl.can_cast(tl.int32, None)
    with pytest.raises(TypeError, match=r"^result_type\(\) missing required argument 'other'$"):
        tl.result_type(tl.zeros(1))
