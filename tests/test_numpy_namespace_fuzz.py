"""What scripts/fuzz_numpy_namespace.py found where torchlike.numpy differed
from NumPy, each minimised to one call and checked against NumPy itself,
and a short fixed-seed run of the fuzzer."""
import numpy
import pytest

import torchlike.numpy as np
from numpy_checks import both, raises_as_numpy, same
from oracle import script


# ---- creation -------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    [[1, 2, 3], [4, 5, 6]],
    numpy.arange(6.0).reshape(2, 3),
    numpy.arange(6.0).reshape(3, 2).T,
    numpy.arange(5)[::-1],
])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_asarray_order(source, order):
    a = numpy.asarray(source)
    want = numpy.asarray(a, order=order)
    t = np.asarray(source) if isinstance(source, list) else np.asarray(a)
    got = np.asarray(t, order=order)
    same(got, want)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    assert (got is t) == numpy.shares_memory(want, a)  # a copy only where NumPy makes one
    if isinstance(source, list):
        assert np.array(source, order=order).flags.f_contiguous == \
            numpy.array(source, order=order).flags.f_contiguous


def test_asarray_order_copy_false_refuses():
    with pytest.raises(ValueError):
        numpy.asarray(numpy.ones((2, 3)), order="F", copy=False)
    with pytest.raises(ValueError):
        np.asarray(np.ones((2, 3)), order="F", copy=False)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("order", ["K", "A", "X"])
def test_creation_refuses_k_and_a(name, order):
    raises_as_numpy(lambda ns: getattr(ns, name)((2, 3), order=order))
    # the shape is checked before the order, as NumPy checks
    raises_as_numpy(lambda ns: getattr(ns, name)((2.0,), order=order))


def test_full_array_fill():
    fill = numpy.array([1, 2, 3], numpy.uint16)
    raises_as_numpy(lambda ns, f: ns.full(-1, f), fill)
    raises_as_numpy(lambda ns, f: ns.full((2, -1), f), fill)
    want, got = both(lambda ns, f: ns.full((2, 3), f, order="F"), fill)
    same(got, want)
    assert got.flags.f_contiguous and not got.flags.c_contiguous


@pytest.mark.parametrize("fill, dtype", [
    (2.5 + 1.5j, "float16"), (-1.5, "uint8"), (3.7, "int8"), (1e300, "float16"),
    (65536, "float16"), (-(2 ** 63) - 1, "float64"), (1.5j, "bool"), (0.0j, "bool"),
    (2 ** 64, "complex128"), (float("inf"), "float32"),
])
def test_full_fill_cast_as_numpy(fill, dtype):
    want, got = both(lambda ns: ns.full(3, fill, dtype=dtype))
    same(got, want)
    want, got = both(lambda ns, a: ns.full_like(a, fill, dtype=dtype), numpy.zeros((2, 2)))
    same(got, want)


def test_full_like_int_past_dtype():
    raises_as_numpy(lambda ns, a: ns.full_like(a, -128), numpy.zeros(3, numpy.uint64))
    raises_as_numpy(lambda ns, a: ns.full_like(a, 300), numpy.zeros(3, numpy.int8))


def test_array_of_tensors_and_big_ints():
    with pytest.raises(OverflowError):
        numpy.array([numpy.int32(73), 1, 300], dtype=numpy.int8)
    with pytest.raises(OverflowError):
        np.array([np.asarray(numpy.array(73, numpy.int32)), 1, 300], dtype=np.int8)
    same(np.array([np.asarray(numpy.array(73, numpy.int32)), 1, 127], dtype=np.int8),
         numpy.array([73, 1, 127], dtype=numpy.int8))


@pytest.mark.parametrize("args, dtype", [
    ((-0.8, 4), "uint64"), ((2147483647, 2147483646.25, -0.25), "int32"), ((0.5, 3.7), "int8"),
    ((-2.5, 3, 1.5), "int16"), ((5.1, 0, -0.25), "uint16"), ((-2, -3.4), "uint64"),
    ((2,), bool), ((1.5, 3), bool), ((0,), bool),
])
def test_arange_integer_and_bool_dtype(args, dtype):
    # NumPy's rule: the first two values converted to the dtype, their
    # difference repeated; bool at most two values
    want, got = both(lambda ns: ns.arange(*args, dtype=dtype))
    same(got, want)


@pytest.mark.parametrize("args, dtype", [((0, 3), bool), ((-3.3, 6), "uint8"),
                                         ((-4, 2.4), "uint32")])
def test_arange_refusals(args, dtype):
    raises_as_numpy(lambda ns: ns.arange(*args, dtype=dtype))


@pytest.mark.parametrize("args, dtype", [
    ((2 ** 63, 2 ** 63 + 3), None), ((0, 2 ** 63 + 3, 2 ** 62), None),
    ((2 ** 63 + 3, 2 ** 63, -1), None), ((2 ** 64 - 3, 2 ** 64 - 1), None),
    ((2 ** 63, 2 ** 63 + 3), "uint64"), ((2 ** 64 - 1, 2 ** 64 - 5, -1), "uint64"),
    ((2 ** 63 - 2, 2 ** 63 + 2), "uint64"), ((2 ** 64, 2 ** 64 + 2), "float32"),
    ((0, 2 ** 70, 2 ** 68), "float64"), ((2 ** 63, 2 ** 63 + 3, 1.0), None),
])
def test_arange_bounds_past_int64(args, dtype):
    # NumPy reads a bound in uint64's upper half as uint64, which with the
    # int64 step promotes to float64; dtype=uint64 keeps the exact values
    want, got = both(lambda ns: ns.arange(*args, dtype=dtype))
    same(got, want)


@pytest.mark.parametrize("args, dtype", [
    ((2 ** 64 - 1, 8), None), ((3, 2 ** 64 - 1, -1), "uint64"), ((0, float("inf")), None),
    ((0, 2 ** 1100), None), ((0, float("nan")), None), ((2 ** 63, 2 ** 63 + 3), "int64"),
    ((2 ** 64, 2 ** 64 + 2), "uint64"),
])
def test_arange_length_and_bound_refusals(args, dtype):
    raises_as_numpy(lambda ns: ns.arange(*args, dtype=dtype))


@pytest.mark.parametrize("args", [(2 ** 64, 2 ** 64 + 3), (-2 ** 63 - 1, -2 ** 63 + 1),
                                  (0, 2 ** 70, 2 ** 68)])
def test_arange_past_uint64_names_the_missing_object_dtype(args):
    assert numpy.arange(*args).dtype == object  # NumPy: Python ints in an object array
    with pytest.raises(TypeError, match="object dtype"):
        np.arange(*args)


# ---- joins --------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda ns, a, b: ns.concatenate([a, b], casting="no"),
    lambda ns, a, b: ns.concatenate((a, b), axis=-1, casting="equiv"),
    lambda ns, a, b: ns.stack([a, b], casting="no"),
    lambda ns, a, b: ns.vstack([a, b], casting="equiv"),
    lambda ns, a, b: ns.hstack([a, b], casting="no"),
])
def test_join_casting_without_dtype(fn):
    # under "no"/"equiv" two dtypes are refused even with no dtype= given
    raises_as_numpy(fn, numpy.array([1.5, 2.0], numpy.float32), numpy.array([82, 1], numpy.int32))
    want, got = both(fn, numpy.array([1, 2], numpy.int32), numpy.array([3, 4], numpy.int32))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a, b: ns.hstack([a, b], dtype="int16", casting="no"),
    lambda ns, a, b: ns.vstack([a, b], dtype=bool),
    lambda ns, a, b: ns.concatenate([a, b], dtype="int8", casting="same_kind"),
    lambda ns, a, b: ns.stack([a, b], axis=5, dtype="uint8"),
])
def test_join_shapes_checked_before_casting(fn):
    # NumPy reports the shape (or axis) error, not the refused cast
    raises_as_numpy(fn, numpy.ones((2, 1), numpy.float16), numpy.ones(3, numpy.float16))


# ---- clip -------------------------------------------------------------------------------

@pytest.mark.parametrize("x, lo, hi", [
    (numpy.array([83, 82, 22], numpy.uint16), numpy.array([34, 70000, 4], numpy.uint32), None),
    (numpy.array([1.5, -2.0], numpy.float16), numpy.array(0.3), None),
    (numpy.array([-67, 0, 5], numpy.int8), numpy.array(6, numpy.uint32), None),
    (numpy.array([True, False]), -1, 3),
    (numpy.array([1 + 1j, -2 + 0j]), numpy.nan, numpy.array([2 - 1j, 3 + 0j])),
    (numpy.array([1 + 1j, -2 + 0j]), -1.5, numpy.nan),
])
def test_clip_result_dtype_and_nan_bounds(x, lo, hi):
    def call(ns, x):
        b = [ns.asarray(v) if isinstance(v, numpy.ndarray) else v for v in (lo, hi)]
        return ns.clip(x, *b)
    want, got = both(call, x)
    same(got, want)


def test_clip_out_casting():
    raises_as_numpy(lambda ns, x, o: ns.clip(x, -0.01, 2.76, out=o),
                    numpy.array([-97, 3]), numpy.zeros(2, bool))
    want, got = both(lambda ns, x, o: ns.clip(x, 0, 2, out=o),
                     numpy.array([-1.5, 3.0]), numpy.zeros(2, numpy.float32))
    same(got, want)


# ---- reductions -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "all", "any", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, -1])
def test_zero_d_axis(name, axis):
    a = numpy.array(3.5)
    want, got = both(lambda ns, a: getattr(ns, name)(a, axis=axis), a)
    same(got, want)
    want, got = both(lambda ns, a: getattr(ns, name)(a, axis=axis, keepdims=True), a)
    same(got, want)
    raises_as_numpy(lambda ns, a: getattr(ns, name)(a, axis=1), a)
    if not name.startswith("arg"):
        raises_as_numpy(lambda ns, a: getattr(ns, name)(a, axis=(0,)), a)
    raises_as_numpy(lambda ns, a: ns.mean(a, axis=axis), a)  # mean is no ufunc reduction


@pytest.mark.parametrize("a, kw", [
    (numpy.array([[3, 2, 3]], numpy.int16), {"dtype": numpy.int8}),
    (numpy.array([[3, 2, 4]], numpy.int16), {"dtype": "int8", "keepdims": True,
                                             "where": numpy.array([True, False, True])}),
    (numpy.array([0.5, 1.5, 2.0]), {"dtype": "uint16"}),
    (numpy.array([[1, 2], [3, 5]]), {"dtype": bool, "axis": 0}),
])
def test_mean_exact_dtype(a, kw):
    def call(ns, a):
        return ns.mean(a, **{k: ns.asarray(v) if isinstance(v, numpy.ndarray) else v
                             for k, v in kw.items()})
    want, got = both(call, a)
    same(got, want)


@pytest.mark.parametrize("name, a, initial", [
    ("max", numpy.array(1.0), 2.45),
    ("sum", numpy.array([1.0, 2.0], numpy.float32), 2 ** 70),
    ("min", numpy.array([1.0, 3.0]), -(2 ** 63) - 1),
    ("sum", numpy.array([4, 4], numpy.uint32), 2.5),
    ("max", numpy.array([4, 1], numpy.uint32), 2.5),
    ("max", numpy.array([1.0], numpy.float16), 70000.0),
])
def test_initial_as_numpy(name, a, initial):
    want, got = both(lambda ns, a: getattr(ns, name)(a, initial=initial), a)
    same(got, want)


@pytest.mark.parametrize("name, initial", [("sum", -2), ("min", -1.45), ("max", 2 ** 63)])
def test_initial_past_dtype(name, initial):
    raises_as_numpy(lambda ns, a: getattr(ns, name)(a, initial=initial),
                    numpy.array([4, 4, 3], numpy.uint32))


@pytest.mark.parametrize("out_dtype", ["uint64", "float32", "int32"])
def test_argmax_out_dtype(out_dtype):
    fn = lambda ns, a, o: ns.argmax(a, axis=1, out=o)  # noqa: E731
    a, out = numpy.array([[1.0, 3.0], [2.0, -1.0]]), numpy.zeros(2, out_dtype)
    if numpy.can_cast(out.dtype, numpy.int64, "safe"):
        want, got = both(fn, a, out)
        same(got, want)
    else:
        raises_as_numpy(fn, a, out)


def test_mean_zero_d_axis_with_where():
    # NumPy counts where='s elements with a ufunc reduction, which takes axis 0
    want, got = both(lambda ns, a: ns.mean(a, axis=0, where=ns.asarray(True)), numpy.array(4.0))
    same(got, want)
    raises_as_numpy(lambda ns, a: ns.mean(a, axis=0), numpy.array(4.0))


def test_clip_of_bools_without_bounds():
    raises_as_numpy(lambda ns, a: ns.clip(a, None, None), numpy.array([True, False]))


def test_full_checks_the_shape_before_the_fill():
    raises_as_numpy(lambda ns: ns.full((2, -1), -5, dtype="uint32", order="F"))
    raises_as_numpy(lambda ns: ns.full(3, -5, dtype="uint32"))


def test_empty_complex_extreme_along_a_full_axis():
    for axis, keep in ((0, False), ((0, 2), True)):
        want, got = both(lambda ns, a: ns.max(a, axis=axis, keepdims=keep),
                         numpy.zeros((2, 0, 3), complex))
        same(got, want)


# ---- ufuncs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["square", "conjugate"])
def test_bool_square_conjugate_int8(name):
    want, got = both(lambda ns, b: getattr(ns, name)(b), numpy.array([True, False]))
    same(got, want)


def test_sign_of_bool_refused_and_conj_copies():
    raises_as_numpy(lambda ns, b: ns.sign(b), numpy.array([True, False]))
    x = np.asarray([1.0, 2.0])
    y = np.conj(x)
    y[0] = 5.0
    assert float(x[0]) == 1.0  # NumPy's conj gives a new array of real data too


@pytest.mark.parametrize("fn", [
    lambda ns, x, o: ns.sin(x, out=o),
    lambda ns, x, o: ns.multiply(x, 1.5, out=o),
    lambda ns, x, o: ns.trunc(x, out=o, where=ns.asarray([True, False])),
])
def test_ufunc_out_casting(fn):
    x, out = numpy.array([1.5, -2.0]), numpy.zeros(2, numpy.int32)
    raises_as_numpy(fn, x, out)
    t_out = np.zeros(2, dtype=np.int32)
    with pytest.raises(TypeError):
        fn(np, np.asarray(x), t_out)
    assert not t_out.any()  # refused before anything was written


def test_ufunc_out_stricter_casting_judged_by_kind():
    # uint8's sin is float32 here (the default float) and float16 in NumPy:
    # casting="safe" into a float16 out is NumPy's valid call, not refused
    want, got = both(lambda ns, x, o: ns.sin(x, casting="safe", out=o),
                     numpy.array([59, 17], numpy.uint8), numpy.zeros(2, numpy.float16))
    same(got, want)


@pytest.mark.parametrize("fn, a", [
    (lambda ns, x: ns.sign(x, dtype="float32"), numpy.array([True, False])),
    (lambda ns, x: ns.sign(x, dtype="complex128"), numpy.array([-34, 0, 5], numpy.int8)),
    (lambda ns, x: ns.fmax(3.18, x, dtype="int16", casting="unsafe"),
     numpy.array([40, 1], numpy.uint64)),
])
def test_dtype_selects_the_loop(fn, a):
    want, got = both(fn, a)
    same(got, want)


def test_rint_dtype():
    for a in (numpy.array([82, -93], numpy.int32), numpy.array([0.423 + 2.495j])):
        want, got = both(lambda ns, x: ns.rint(x, dtype="complex64"), a)
        same(got, want)


def test_ufunc_out_same_kind_allowed():
    want, got = both(lambda ns, x, o: ns.add(x, 1, out=o), numpy.array([1.5, -2.0]),
                     numpy.zeros(2, numpy.float16))
    same(got, want)
    want, got = both(lambda ns, x, o: ns.sin(x, out=o, casting="unsafe"),
                     numpy.array([1.5, -2.0]), numpy.zeros(2, numpy.int32))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a, b: ns.maximum(a, b, dtype="complex64"),
    lambda ns, a, b: ns.minimum(a, b, dtype=numpy.complex128),
    lambda ns, a, b: ns.greater_equal(ns.astype(a, "complex64"), b, out=ns.zeros(3, dtype=bool),
                                      where=ns.asarray([False, True, True])),
    lambda ns, a, b: ns.fmax(ns.astype(a, "complex128"), b, out=ns.ones(3, dtype=complex),
                             where=ns.asarray([True, False, True])),
])
def test_complex_order_with_keywords(fn):
    want, got = both(fn, numpy.array([51, 2, 27], numpy.uint8),
                     numpy.array([0, 20, 27], numpy.uint8))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.isnan(x, dtype=bool),
    lambda ns, x: ns.equal(x, 1.5, dtype=bool),
    lambda ns, x: ns.less(x, 2.0, dtype=bool),
    lambda ns, x: ns.add(x, 1, dtype="float32"),
    lambda ns, x: ns.multiply(x, 2, dtype=numpy.complex128),
])
def test_ufunc_dtype_loops(fn):
    # dtype= names the output: a predicate's bool loop computes on the
    # inputs as they are (isnan(x, dtype=bool) cast x to bool first: all False)
    want, got = both(fn, numpy.array([1.5, numpy.nan, -2.0]))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.isnan(x, dtype=numpy.int8),  # no loop gives int8
    lambda ns, x: ns.less(x, 2.0, dtype="float64"),  # nor float64, for a comparison
    lambda ns, x: ns.add(x, 1, dtype=numpy.uint8),  # float64 -> uint8 is not same_kind
    lambda ns, x: ns.sqrt(x, dtype="float32", casting="no"),
])
def test_ufunc_dtype_refusals(fn):
    raises_as_numpy(fn, numpy.array([1.5, numpy.nan, -2.0]))


@pytest.mark.parametrize("name, dtype", [("rint", "int64"), ("fabs", "int16"), ("rint", "bool")])
def test_default_casting_keyword_changes_nothing(name, dtype):
    # casting="same_kind" given explicitly took NumPy's own ufunc on the
    # tensors, which kept integers integer where the namespace gives floats
    want, got = both(lambda ns, x: getattr(ns, name)(x, casting="same_kind"),
                     numpy.array([-81, 2], dtype))
    same(got, want)


def test_ufunc_dtype_python_int_checked_first():
    # NumPy converts a Python int to dtype= before it looks for a loop
    raises_as_numpy(lambda ns, x: ns.maximum(x, -4, dtype="uint32"),
                    numpy.array([1.5 + 1j, 2 + 0j], numpy.complex64))
    raises_as_numpy(lambda ns, x: ns.remainder(2 ** 63, x, dtype="uint32"),
                    numpy.array([-10, 19]))


def test_heaviside_keywords_and_two_dtypes():
    x, h = numpy.array([-1.7, 0.0, 2.0], numpy.float32), numpy.array([82, 82, 82], numpy.uint16)
    want, got = both(lambda ns, x, h, o: ns.heaviside(x, h, out=o), x, h,
                     numpy.zeros(3, numpy.float64))
    same(got, want)
    want, got = both(lambda ns, x, h, o: ns.heaviside(x, h, out=o, where=ns.asarray(
        [True, False, True])), x, h, numpy.full(3, 7.0))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a: ns.arctan2(a, -5),
    lambda ns, a: ns.hypot(a, -128),
    lambda ns, a: ns.logical_and(-2, a),
    lambda ns, a: ns.logical_xor(a, 2 ** 53 + 1),
    lambda ns, a: ns.true_divide(2 ** 63, a),
])
def test_python_ints_in_float_and_bool_ops(fn):
    # the result dtype is PyTorch's (docs/numpy.md, "Promotion (by design)"):
    # compare the values only
    want, got = both(fn, numpy.array([62, 52, 78], numpy.uint8))
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=2e-3)  # NumPy: float16


def test_python_int_past_dtype_still_overflows():
    raises_as_numpy(lambda ns, a: ns.add(a, 300), numpy.array([1], numpy.int8))
    raises_as_numpy(lambda ns, a: ns.multiply(a, -1), numpy.array([1], numpy.uint32))


_PAST_INT64 = [2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63 - 1, 2 ** 70, -2 ** 70, 2 ** 1100]
_COMPARED = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("name", _COMPARED)
@pytest.mark.parametrize("big", _PAST_INT64)
def test_comparison_with_python_int_past_int64_is_exact(dtype, name, big):
    # NEP 50: an integer array compared with any Python int gives the
    # mathematical answer, either operand first, through numpy's ufunc too
    a = numpy.array([0, 3, numpy.iinfo(dtype).max, numpy.iinfo(dtype).min], dtype)
    for fn in (lambda ns, x: getattr(ns, name)(x, big), lambda ns, x: getattr(ns, name)(big, x),
               lambda ns, x: getattr(numpy, name)(x, big)):
        want, got = both(fn, a)
        same(got, want)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "less", "equal", "maximum"])
@pytest.mark.parametrize("big", [2 ** 64, -2 ** 63 - 1, 2 ** 70, -2 ** 70])
def test_float_array_takes_python_int_past_int64_as_a_float(dtype, name, big):
    a = numpy.array([0.5, -3.0, 1e4], dtype)
    want, got = both(lambda ns, x: getattr(ns, name)(x, big), a)
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a: ns.add(a.astype("uint64"), 2 ** 64),          # past uint64
    lambda ns, a: ns.add(a, 2 ** 63),                           # past int64
    lambda ns, a: ns.maximum(a, -2 ** 70),
    lambda ns, a: ns.equal(a.astype(bool), 2 ** 64),             # bools meet ints in int64
    lambda ns, a: ns.equal(a.astype(bool), 2 ** 63),
    lambda ns, a: ns.logical_and(a, 2 ** 64 - 1),
    lambda ns, a: ns.add(a.astype("float64"), 2 ** 1100),       # past float64
    lambda ns, a: ns.less(a.astype("float32"), 2 ** 1100),
    lambda ns, a: ns.bitwise_and(a.astype("float64"), 2 ** 64),  # no float loop
    lambda ns, a: numpy.add(a, 2 ** 64),
])
def test_python_int_past_int64_refused_as_numpy(fn):
    raises_as_numpy(fn, numpy.array([1, 2], numpy.int64))


@pytest.mark.parametrize("fn", [
    lambda ns, a: ns.minimum(2 ** 64 - 1, a, dtype="float32"),      # dtype= is the loop
    lambda ns, a: numpy.minimum(2 ** 64 - 1, a, dtype="float32"),
    lambda ns, a: ns.minimum(2 ** 70, a.astype(bool), dtype="float16"),
    lambda ns, a: ns.add(a, -2 ** 63 - 1, dtype="complex128"),
])
def test_python_int_past_int64_into_a_float_dtype_loop(fn):
    want, got = both(fn, numpy.array([32767, -3], numpy.int16))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a: ns.equal(-129, a, dtype="uint32"),           # no such loop, before the int
    lambda ns, a: ns.logical_and(-1, a, dtype="uint8"),
    lambda ns, a: ns.greater_equal(a, -2 ** 63, dtype="int32"),
    lambda ns, a: ns.less(a, 2 ** 70, dtype="float64"),
])
def test_ufunc_dtype_without_a_loop_refused_before_the_int(fn):
    raises_as_numpy(fn, numpy.array([68, -3], numpy.int16))
    with pytest.raises(TypeError):
        fn(np, np.asarray(numpy.array([68, -3], numpy.int16)))


@pytest.mark.parametrize("name", ["fmin", "fmax", "minimum", "maximum", "less"])
def test_complex_operand_with_a_real_dtype_loop(name):
    # dtype= selects a real loop: the complex operand is cast (unsafe), not ordered
    want, got = both(lambda ns, z, b: getattr(ns, name)(z, b, dtype="bool", casting="unsafe"),
                     numpy.array([0.778 - 1e-300j, 0j]), numpy.array([False, True]))
    same(got, want)


def test_python_int_in_uint64_upper_half_with_uint64():
    a = numpy.array([0, 1, 2 ** 63], numpy.uint64)
    for fn in (lambda ns, x: ns.add(x, 2 ** 63), lambda ns, x: ns.equal(x, 2 ** 63),
               lambda ns, x: ns.less(2 ** 64 - 1, x)):
        want, got = both(fn, a)
        same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, a, b: ns.less(-0.58 + 0j, b, casting="no"),     # float16 input to complex64
    lambda ns, a, b: ns.minimum(a.astype("complex64"), False, casting="no"),  # a Python bool
    lambda ns, a, b: ns.add(a.astype("complex128"), True, casting="equiv"),
    lambda ns, a, b: ns.fmax(a, -2.73 + 0j, casting="no"),
    lambda ns, a, b: ns.add(a, b, casting="no"),
    lambda ns, a, b: ns.add(a, b, casting="equiv"),
    lambda ns, a, b: ns.add(a, a, out=ns.zeros(3, "int64"), casting="no"),
    lambda ns, a, b: ns.sin(a, casting="no"),
    lambda ns, a, b: ns.add(b, b, out=ns.zeros(3, "int16"), casting="safe"),
])
def test_strict_casting_refuses_as_numpy(fn):
    # casting='no'/'equiv'/'safe' without dtype=: NumPy's TypeError when an
    # input (or out=) is not the loop's dtype; Python int/float/complex are weak
    a, b = numpy.array([1, 2, 3], numpy.int32), numpy.array([1.5, 2, -1], numpy.float16)
    with pytest.raises(TypeError) as want:
        fn(numpy, a, b)
    with pytest.raises(TypeError) as got:
        fn(np, np.asarray(a), np.asarray(b))
    assert str(got.value) == str(want.value)  # names the ufunc, operand and dtypes


@pytest.mark.parametrize("fn", [
    lambda ns, a, b: ns.add(a, 5, casting="no"),
    lambda ns, a, b: ns.add(b, 1.5, casting="no"),
    lambda ns, a, b: ns.multiply(a, a, casting="equiv"),
    lambda ns, a, b: ns.less(b, b, casting="no"),
    lambda ns, a, b: ns.add(a, b.astype("float64"), casting="safe"),
    lambda ns, a, b: ns.add(a, a, out=ns.zeros(3, "int32"), casting="no"),
    lambda ns, a, b: ns.sin(b.astype("float32"), casting="safe"),
])
def test_strict_casting_allows_as_numpy(fn):
    a, b = numpy.array([1, 2, 3], numpy.int32), numpy.array([1.5, 2, -1], numpy.float16)
    want = fn(numpy, a, b)
    got = fn(np, np.asarray(a), np.asarray(b))
    same(got, want)


# ---- out= of another dtype, half precision with Python numbers, lists of 0-d arrays --------

@pytest.mark.parametrize("name, a, out_dtype, kw", [
    ("sum", numpy.array([1.5, 1.6]), "int32", {}),  # float64 loop, cast once: 3
    ("prod", numpy.array([1.5, 1.6]), "int32", {}),
    ("sum", numpy.array([1.5, 1.6], numpy.float32), "float64", {}),  # float64 accumulation
    ("sum", numpy.array([1.5, 1.6]), "int32", {"initial": 0.5}),
    ("min", numpy.array([[-2], [2], [3]], numpy.int16), "uint32", {"axis": 0}),  # first via out
    ("max", numpy.array([-2, 2, 3], numpy.int16), "uint32", {}),
    ("min", numpy.array([[-2, 5], [3, -1]], numpy.int16), "uint32", {"axis": 1}),
    ("max", numpy.array([1, 2], numpy.int16), "uint16", {"initial": 70000}),
    ("max", numpy.array([1, 2], numpy.int16), "uint16", {"initial": -5}),
    ("max", numpy.array([-7, -9], numpy.int16), "uint32",
     {"initial": -5, "where": numpy.array([True, False])}),
    ("min", numpy.array([[[False], [True]]]), "float32", {"axis": -1, "initial": -4.08}),
    ("min", numpy.array([[False, True, False]]), "complex128",
     {"axis": 0, "initial": -2, "where": numpy.array([False, True, False])}),
    ("max", numpy.array([1, 5, 3]), "complex128", {}),
    ("mean", numpy.array([[2, -3], [-4, 2]], numpy.int16), "uint64",
     {"axis": (0, 1), "keepdims": True}),  # the sum wraps in out, then divides
    ("mean", numpy.array([100, 100]), "int8", {}),
    ("mean", numpy.array([1, 2, 4], numpy.float16), "float16", {}),
    ("mean", numpy.array([1.0, 2, 4], numpy.float32), "float64",
     {"where": numpy.array([True, False, True])}),
])
def test_reduction_into_out_of_another_dtype(name, a, out_dtype, kw):
    # NumPy reduces in the loop of out's dtype with the data's, starting from
    # the first element (or initial=) as stored into out
    shape = numpy.sum(a, axis=kw.get("axis"), keepdims=kw.get("keepdims", False)).shape
    want, got = numpy.zeros(shape, out_dtype), np.zeros(shape, dtype=out_dtype)
    t_kw = {k: np.asarray(v) if isinstance(v, numpy.ndarray) else v for k, v in kw.items()}
    assert getattr(numpy, name)(a, out=want, **kw) is want
    assert getattr(np, name)(np.asarray(a), out=got, **t_kw) is got
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.negative(x, out=ns.asarray(numpy.array([1, 2, 3], numpy.int16)),
                              where=ns.asarray(numpy.array([True, False, True]))),
    lambda ns, x: ns.square(x, out=ns.asarray(numpy.full(3, 2 ** 63 - 1)),
                            where=ns.asarray(numpy.array(False))),
    lambda ns, x: ns.fabs(ns.negative(x.astype("int16") + 32744),  # -32768: fabs 32768.0
                          out=ns.asarray(numpy.zeros(3, "float32")),
                          where=ns.asarray(numpy.array([True, True, False]))),
    lambda ns, x: ns.rint(x.astype("int16"), out=ns.asarray(numpy.zeros(3, "float32")),
                          where=ns.asarray(numpy.array([True, False, True]))),
])
def test_where_keeps_out_in_its_dtype(fn):
    # the result is cast to out's dtype before the select (uint64 with int16
    # promoted to float and lost the values)
    want, got = both(fn, numpy.array([24, 9, 43], numpy.uint64))
    same(got, want)


def test_join_into_out_casts_each_input():
    # each array goes straight into out's dtype, as NumPy: no float16 on the way
    arrays = [numpy.array([-74, 73]), numpy.array([2.5, 3.0], numpy.float16),
              numpy.array([2 ** 64 - 1, 40], numpy.uint64)]
    for join in ("stack", "concatenate"):
        want = getattr(numpy, join)(arrays, out=numpy.zeros(6 if join == "concatenate" else
                                                            (3, 2)))
        out = np.zeros(want.shape, dtype=np.float64)
        getattr(np, join)([np.asarray(a) for a in arrays], out=out)
        same(out, want)


@pytest.mark.parametrize("items, dtype", [
    ([numpy.array(1 + 1j, numpy.complex64), 3], None),  # complex128: 3 counts as int64
    ([numpy.array(1, numpy.float32), 3], None),  # float64
    ([numpy.array(1, numpy.int8), numpy.array(1, numpy.uint8)], None),  # int16
    ([numpy.array(79, numpy.int64), 1.7], "uint32"),  # int(1.7)
    ([numpy.array(-128, numpy.int8), 0.05 + 1.5j, 0j], bool),  # bool(z)
])
def test_list_of_zero_d_arrays_as_numpy(items, dtype):
    want = numpy.array([items], dtype=dtype)
    same(np.array([[np.asarray(i) if isinstance(i, numpy.ndarray) else i for i in items]],
                  dtype=dtype), want)


@pytest.mark.parametrize("items", [
    [numpy.array(92, numpy.uint64), -1.04],  # int(-1.04) = -1: OverflowError for uint32
    [numpy.array(79, numpy.int64), float("nan")],  # ValueError
    [numpy.array(79, numpy.int64), float("inf")],  # OverflowError
])
def test_list_of_zero_d_arrays_refuses_as_numpy(items):
    raises_as_numpy(lambda ns, a: ns.asarray([a, items[1]], dtype="uint32"), items[0])


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.remainder(x, 2.77),  # 2.77 is 2.7695 in float16
    lambda ns, x: ns.fmod(70000.0, x),  # inf in float16: NaN
    lambda ns, x: ns.subtract(x, 1e-4),
    lambda ns, x: ns.power(x, 2.77),
    lambda ns, x: ns.less(x, 3.0727),
])
def test_half_precision_rounds_the_other_operand(fn):
    # the Python number is rounded to float16 first, as NumPy (NEP 50) and
    # PyTorch's iterator do (an integer array too: tests/golden/ufunc_ops.json)
    want, got = both(fn, numpy.array([4.58203125, -4.25, 3.072265625], numpy.float16))
    same(got, want)


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_a_false_bool_keeps_the_dtype(name):
    # NumPy's 0 where the divisor is False, in the integer's dtype (the
    # zeros replaced by a weak 1 made the divisor, and the result, int64)
    want, got = both(lambda ns, a, b: getattr(ns, name)(a, b),
                     numpy.array([-37, 87, -5, 71], numpy.int16),
                     numpy.array([False, True, False, True]))
    same(got, want)


def test_bool_reduction_dtype_reads_nonzero():
    # dtype=bool reads 0.5 as True (a cast), not through an int64 loop
    a = numpy.array([[-1.0, 4.0, 0.5]], numpy.float32)
    for name in ("prod", "sum"):
        want, got = both(lambda ns, x: getattr(ns, name)(x, axis=0, dtype=bool), a)
        same(got, want)


@pytest.mark.parametrize("fn, arrays", [
    (lambda ns, a, b: ns.power(a, b), [numpy.array([], numpy.int8), numpy.array(-19, numpy.int16)]),
    (lambda ns, a: ns.power(a, -4), [numpy.zeros((2, 0), numpy.int32)]),
    (lambda ns, a: ns.fmax(1e300, a), [numpy.array(-0.016 + 3j, numpy.complex64)]),
    (lambda ns, a: ns.full_like(a, 1e300, dtype="complex64"), [numpy.zeros(2)]),
    (lambda ns, a: ns.clip(a, 1e300, 255), [numpy.array([0, 31], numpy.uint8)]),
])
def test_edges_computed_as_numpy(fn, arrays):
    want, got = both(fn, *arrays)
    same(got, want)


@pytest.mark.parametrize("fn, arrays", [
    (lambda ns, a: ns.max(a, axis=3, initial=2 ** 31 - 1), [numpy.zeros((1, 2, 1), numpy.uint8)]),
    (lambda ns, a, b: ns.clip(a, -5, b), [numpy.array([False]), numpy.array([98], numpy.uint8)]),
    (lambda ns, a: ns.full(a.shape, 2 ** 63 - 1, dtype="uint32", order="K"), [numpy.zeros(2)]),
])
def test_refusals_as_numpy(fn, arrays):
    raises_as_numpy(fn, *arrays)


@pytest.mark.parametrize("a, order", [
    (numpy.lib.stride_tricks.as_strided(numpy.array([67], numpy.uint16), (3,), (0,)), "F"),
    (numpy.arange(6, dtype=numpy.uint64).reshape(3, 2).T, "A"),
    (numpy.arange(3, dtype=numpy.int32)[::-1], "F"),
    (numpy.arange(3, dtype=numpy.float32).reshape(3, 1), "F"),
])
def test_astype_copy_false_shares_exactly_when_numpy_does(a, order):
    t = np.asarray(a)
    r, tr = a.astype(a.dtype, order=order, copy=False), t.astype(t.dtype, order=order, copy=False)
    assert (tr is t) == numpy.shares_memory(r, a)
    assert tr.flags.c_contiguous == r.flags.c_contiguous
    assert tr.flags.f_contiguous == r.flags.f_contiguous
    same(tr, r)


@pytest.mark.parametrize("dtype", ["complex64", "float32", "float64", "float16", "int64"])
def test_array_of_a_tensor_and_python_ints_past_int64(dtype):
    """Seed 99, case 67074: np.array([[t, -2, -2**63 - 1]], dtype=complex64)
    with t a tensor raised 'no dtype object' (the int alone is NumPy's
    object); NumPy converts it into a float or complex dtype= (an integer
    one refuses it)."""
    def fn(m, x):
        return m.array([[x, -2, -2 ** 63 - 1, 2 ** 70]], dtype=dtype)
    x = numpy.array(1.327, numpy.float32)
    if dtype == "int64":
        raises_as_numpy(fn, x)
    else:
        same(*reversed(both(fn, x)))


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float32", "complex64", "bool", "int8"])
def test_array_of_a_tensor_and_python_numbers_converts_each_into_dtype(dtype):
    """Seed 55555, case 160354: np.asarray([[t, 2**53 + 1, 32768]],
    dtype=int64) with t a float32 tensor gave 2**53 (the items were joined
    in float64 first); NumPy converts each item into dtype=."""
    def fn(m, x):
        return m.asarray([[x, 2 ** 53 + 1, 32768, True, 7.9]], dtype=dtype)
    x = numpy.array(-4.695, numpy.float32)
    if dtype == "int8":
        raises_as_numpy(fn, x)
    else:
        same(*reversed(both(fn, x)))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("name", ["prod", "sum"])
@pytest.mark.parametrize("out_dtype", ["int16", "uint8", "float32", "complex64"])
@pytest.mark.parametrize("initial", [1.16, -0.7, 2])
def test_initial_of_complex_data_passes_through_out(name, out_dtype, initial):
    """Seed 2026, case 62249: np.prod(complex data, initial=1.16,
    out=int16) -- NumPy reduces in complex but stores initial= through out's
    dtype first (1.16 is 1 there), as it does for real data."""
    x = numpy.array([[-1.5 + 3j, 1.5 - 4j], [-0.5 - 1j, 1.5 - 2j], [3 + 0.5j, 3 - 3j]])

    def fn(m, a):
        out = m.zeros(2, dtype=out_dtype)
        getattr(m, name)(a, axis=0, initial=initial, out=out)
        return out
    same(*reversed(both(fn, x)))


# ---- the fuzzer itself ------------------------------------------------------------------------

def _fuzzer():
    return script("fuzz_numpy_namespace")


def test_fuzzer_short_run():
    """A bounded run over the short-path functions, the reductions and the
    ufuncs (without dtype=/casting=, whose refusals are not all NumPy's yet:
    docs/numpy.md): every case agrees with NumPy."""
    fuzz = _fuzzer()
    failures, n = fuzz.fuzz(seed=3, cases=800, only=fuzz.SETTLED, ufunc_keywords=False)
    assert n == 800
    assert failures == [], "\n".join(f"case {i}: {d}\n{m}" for _, i, d, m in failures)


def test_fuzzer_finds_a_planted_difference(monkeypatch):
    """The comparison is live: a zeros that answers float32 is caught."""
    fuzz = _fuzzer()
    real = np.zeros
    monkeypatch.setattr(np, "zeros", lambda *a, **k: real(*a, **k).astype(np.float32)
                        if k.get("dtype") is None else real(*a, **k))
    failures, _ = fuzz.fuzz(seed=1, cases=40, only=["zeros"])
    assert any("dtype float32 != NumPy's float64" in m for *_, m in failures)


@pytest.mark.parametrize("args,kwargs,want", [
    # seed 777: NumPy runs ff->f and casts into the float64 out
    ((1.22, numpy.linspace(-3, 3, 5)), {"signature": (None, None, numpy.float32),
                                        "out": numpy.zeros(5)}, "float32"),
    ((numpy.ones(3, numpy.int8), 2), {"out": numpy.zeros(3)}, "float16"),
    ((numpy.ones(3), 2.0), {"dtype": numpy.float32}, "float32"),
    ((numpy.ones(3), 2.0), {"out": numpy.zeros(3)}, "float64"),
])
def test_fuzzer_tolerance_follows_numpys_loop(args, kwargs, want):
    """The fuzzer's float tolerance is at least that of the loop NumPy
    runs (arctan2 here), not only of the inputs and the result."""
    fuzz = _fuzzer()
    assert fuzz.loop_tolerance_dtype("float64", {"ufunc": "arctan2"}, args, kwargs) == want


def test_fuzzer_tolerance_of_a_complex_power_grows_with_its_exponent():
    """Seed 20261204's case 308759: (-1.18+1.5j) ** uint32(100) in complex64,
    where NumPy's own result is 1.6e-5 off the complex128 one and ours 3e-6:
    the tolerance is scaled by |n|; a real power's is not."""
    fuzz = _fuzzer()
    want = numpy.zeros((), complex)
    exponent = numpy.array([100, -3])
    assert fuzz.power_scale({"ufunc": "power"}, (1 + 1j, exponent), want) == 100
    assert fuzz.power_scale({"ufunc": "power"}, (1.5, exponent), numpy.zeros(())) == 1
    assert fuzz.power_scale({"ufunc": "add"}, (1 + 1j, exponent), want) == 1


def test_fuzzer_compares_a_float_loop_truncated_into_ints_with_its_tolerance():
    """Seed 8888's case 183736: exp(uint64, casting='unsafe', out=uint64)
    runs a float loop (float32 in torchlike's promotion, NumPy rerun so),
    whose 1-ulp difference at exp(27) is 32768 in the integers."""
    fuzz = _fuzzer()
    out = numpy.zeros(3, numpy.uint64)
    x = numpy.array([27, 53, 17], numpy.float32)
    assert fuzz.float_loop_into_ints({"ufunc": "exp"}, (x,), {"out": out,
                                                              "casting": "unsafe"}) == "float32"
    ints = numpy.array([1, 2, 3], numpy.uint64)
    assert fuzz.float_loop_into_ints({"ufunc": "add"}, (ints, ints), {"out": out}) is None
    fuzz.compare_values(numpy.array([532048216064], numpy.uint64),
                        numpy.array([532048248832], numpy.uint64), {"truncated": True}, "float32")


def test_fuzzer_leaves_a_float_result_past_the_int_range_uncompared():
    """Seed 9999's case 206133: exp(17) in float32 into a uint16 out wraps
    (C's undefined cast, NumPy's and ours 1 ulp apart: 37702 and 37704);
    values within the range are compared."""
    fuzz = _fuzzer()
    x = numpy.array([17.0, 2.0], numpy.float32)
    assert not fuzz.float_result_in_range({"ufunc": "exp"}, (x,), {}, numpy.dtype(numpy.uint16))
    assert fuzz.float_result_in_range({"ufunc": "exp"}, (x[1:],), {"out": None},
                                      numpy.dtype(numpy.uint16))


def test_fuzzer_skips_the_ndarray_dot_beside_a_zero_and_an_infinity():
    """Seed 9999's case 215624: a.dot(b) with inf in a and 0 in b is NaN in
    IEEE (ours) and 0 in NumPy's gemv, which skips zero factors: the rule
    the function np.dot had, now for the method too."""
    fuzz = _fuzzer()
    a = numpy.array([[1.0], [numpy.inf]], numpy.float32)
    b = numpy.zeros(1, numpy.float32)
    assert fuzz.skip_reason("methods", {}, None, None, None, None, None, [a, b],
                            "method.dot") is not None
