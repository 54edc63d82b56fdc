"""What scripts/fuzz_numpy_namespace.py's library cases (manipulation,
sorting and sets, statistics, indexing helpers, ndarray methods) found where
torchlike.numpy differed from NumPy, each minimised to a few calls and
checked against NumPy itself on the same inputs."""
import numpy
import pytest

import torchlike.numpy as np
from numpy_checks import both, raises_as_numpy, same


A4 = numpy.array([-42, 100, 62, 47], numpy.int64)
M23 = numpy.arange(6, dtype=numpy.int32).reshape(2, 3)


# ---- manipulation -----------------------------------------------------------------------------

@pytest.mark.parametrize("a, obj, values, axis", [
    (A4, [-2], [-3, 2], 0),            # one index in a list: all values there, as a block
    (A4, [1], [3, 5], -1),
    (A4, slice(1, 2), [7, 8], None),   # a one-element slice too
    (A4, [-5, 1], 9, None),            # NumPy's shifted positions: -5 counts from the end
    (A4, [4, 4], [1, 2], None),
    (M23, [0, 2, 2], [[1], [2]], 1),
    (M23, [], 9, None),                # an empty list: nothing inserted
    (M23, 1, [[5, 6, 7]], 0),
    (M23, 1, [5, 6], 1),               # an int: values' first dim laid along axis
    (M23, [1], [5, 6, 7], 0),
    (A4, slice(0, None, 2), 1.5, None),
])
def test_insert_as_numpy(a, obj, values, axis):
    want, got = both(lambda ns, x: ns.insert(x, obj, values, axis=axis), a)
    same(got, want)


@pytest.mark.parametrize("obj, values, a", [
    ([], [0, -3], A4),                         # values that cannot fill no position
    ([1], [3, -3], A4.astype(numpy.uint16)),   # -3 into uint16: NumPy's OverflowError
    (slice(0, None, 2), 2 ** 64 - 1, A4.astype(numpy.int16)),
    (slice(0, None, 2), float("inf"), A4.astype(numpy.uint32)),
    ([7], 1, A4),
    ([1.0, 2.0], 9, A4),
    ([[0, 1]], 9, A4),
])
def test_insert_refusals_as_numpy(obj, values, a):
    raises_as_numpy(lambda ns, x: ns.insert(x, obj, values), a)


@pytest.mark.parametrize("obj, axis", [([], -2), ([], None), ([True, False, True, False], None),
                                       ([-4, 3, 3], None), (slice(None, None, -1), 1)])
def test_delete_as_numpy(obj, axis):
    a = M23 if axis is not None else A4
    want, got = both(lambda ns, x: ns.delete(x, obj, axis=axis), a)
    same(got, want)


def test_flip_of_0d_is_a_copy():
    a = numpy.array(1.762)
    want, got = both(lambda ns, x: ns.flip(x), a)
    same(got, want)
    t = np.asarray(a)
    flipped = np.flip(t)
    flipped[...] = 5.0
    assert float(t) == 1.762  # NumPy's m[()] of a 0-d array is a scalar, not a view


@pytest.mark.parametrize("repeats, axis", [(3, 0), (3, -1), ([2], 0), (2, None)])
def test_repeat_of_0d_along_axis_0(repeats, axis):
    want, got = both(lambda ns, x: ns.repeat(x, repeats, axis=axis), numpy.array(-11, numpy.int32))
    same(got, want)
    raises_as_numpy(lambda ns, x: ns.repeat(x, 3, axis=1), numpy.array(-11, numpy.int32))


@pytest.mark.parametrize("dtype, value", [("int16", 2 ** 63 - 1), ("int8", 70000.0),
                                          ("int16", 65504.0), ("int8", float("nan")),
                                          ("int32", -float("inf")), ("int8", -2 ** 63 - 1)])
def test_pad_constant_past_a_signed_dtype_refused(dtype, value):
    raises_as_numpy(lambda ns, x: ns.pad(x, (1, 2), constant_values=value),
                    numpy.array([[75, 36]], dtype))


@pytest.mark.parametrize("dtype, value", [("int16", -7), ("int8", -1.48), ("float64", -2 ** 63 - 1),
                                          ("uint8", 3), ("float16", 2 ** 70)])
def test_pad_constant_in_range_or_into_floats(dtype, value):
    want, got = both(lambda ns, x: ns.pad(x, ((0, 1), (2, 0)), constant_values=value),
                     numpy.array([[75, 36]], dtype))
    same(got, want)


@pytest.mark.parametrize("shape, index, axis", [((0, 3, 1), [1], -1), ((0, 3), [5], 1),
                                                ((0, 0), [0], 1), ((0, 2, 3), [0, 5], 1)])
def test_take_with_nothing_to_take_from_checks_no_index(shape, index, axis):
    want, got = both(lambda ns, x: ns.take(x, index, axis=axis), numpy.zeros(shape))
    same(got, want)


@pytest.mark.parametrize("shape, index, axis", [((2, 0), [5], 1), ((3, 0), [5], 0),
                                                ((0, 3), [5], None)])
def test_take_out_of_range_still_refused(shape, index, axis):
    raises_as_numpy(lambda ns, x: ns.take(x, index, axis=axis), numpy.zeros(shape))


# ---- sorting and sets ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_kind_and_stable_together_refused(name):
    raises_as_numpy(lambda ns, x: getattr(ns, name)(x, kind="quicksort", stable=True), M23)


@pytest.mark.parametrize("axis", [5, 1, -2])
def test_argsort_of_0d_checks_the_axis(axis):
    raises_as_numpy(lambda ns, x: ns.argsort(x, axis=axis, kind="stable"),
                    numpy.array(32767, numpy.int16))
    want, got = both(lambda ns, x: ns.argsort(x, axis=-1), numpy.array(3, numpy.int16))
    same(got, want)


@pytest.mark.parametrize("name", ["partition", "argpartition"])
@pytest.mark.parametrize("shape, kth, axis", [((1, 1, 0), -2, -1), ((3, 0), [0, 0], -1),
                                              ((2, 0), 5, None), ((0, 3), 7, 0)])
def test_partition_of_an_empty_array_checks_no_kth(name, shape, kth, axis):
    want, got = both(lambda ns, x: getattr(ns, name)(x, kth, axis=axis),
                     numpy.zeros(shape, numpy.uint8))
    same(got, want)
    raises_as_numpy(lambda ns, x: getattr(ns, name)(x, 3, axis=0), numpy.zeros((3, 1)))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64", "float16", "bool"])
@pytest.mark.parametrize("number", [5, -3, 127, 300, 0, 2.5, True])
def test_union1d_with_a_python_number_is_weak(dtype, number):
    # NumPy's concatenate takes the number in the array's dtype (NEP 50),
    # cast as NumPy casts it (300 into int8 wraps)
    a = numpy.array([[1, 4], [4, 2]], dtype)
    want, got = both(lambda ns, x: ns.union1d(x, number), a)
    same(got, want)
    want, got = both(lambda ns, x: ns.union1d(number, x), a)
    same(got, want)


# ---- statistics ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, q", [("nanpercentile", [0, 30.0, 100]), ("nanquantile", 0.5),
                                     ("nanquantile", [0, 0.3, 1])])
@pytest.mark.parametrize("shape, axis, keepdims", [((0,), None, False), ((0, 3), 0, True),
                                                    ((2, 0), -1, False), ((0, 2), None, True)])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16", "float32", "bool"])
def test_nan_quantile_of_an_empty_array_is_nanmean(name, q, shape, axis, keepdims, dtype):
    # NumPy answers np.nanmean(a, axis, keepdims) for an empty array, q aside
    want, got = both(lambda ns, x: getattr(ns, name)(x, q, axis=axis, keepdims=keepdims,
                                                     method="normal_unbiased"),
                     numpy.zeros(shape, dtype))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.percentile(x[:0], 25.0, method="median_unbiased"),  # empty: IndexError
    lambda ns, x: ns.nanpercentile(x, 100, axis=-2, method="weibull"),    # the axis first
    lambda ns, x: ns.quantile(x, 0.5),                                    # bools: TypeError
])
def test_quantile_refusals_in_numpys_order(fn):
    raises_as_numpy(fn, numpy.array([True, False]))


@pytest.mark.parametrize("shape, axis", [((0, 3), 1), ((2, 0), 0), ((0, 2, 3), (1, 2)),
                                         ((3, 0, 2), 2)])
def test_average_of_an_empty_result_divides_by_zero(shape, axis):
    # NumPy's scale a.size / avg.size is a Python division: nothing to average into
    raises_as_numpy(lambda ns, x: ns.average(x, axis=axis), numpy.zeros(shape, numpy.uint64))
    want, got = both(lambda ns, x: ns.average(x), numpy.zeros(shape, numpy.uint64))
    same(got, want)  # over everything: one NaN


@pytest.mark.parametrize("a_dtype, w_dtype", [("float64", "float32"), ("float16", "bool"),
                                              ("int32", "float32"), ("float32", "int64"),
                                              ("uint8", "bool"), ("float16", "float16")])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True)])
def test_average_weights_in_numpys_result_dtype(a_dtype, w_dtype, axis, keepdims):
    a = numpy.array([[4.0, -0.5, 1.5], [2.0, 1.0, 3.0]]).astype(a_dtype)
    w = numpy.array([[1.5, 4.0, 2.5], [1.0, 2.0, 1.0]]).astype(w_dtype)
    if axis is not None:
        w = w[0] if axis == 1 else w[:, 0]
    want, got = both(lambda ns, x, y: ns.average(x, axis=axis, weights=y, returned=True,
                                                 keepdims=keepdims), a, w)
    assert got[0].dtype == np.dtype(want[0].dtype) and got[1].dtype == np.dtype(want[1].dtype)
    assert tuple(got[1].shape) == want[1].shape
    numpy.testing.assert_allclose(numpy.asarray(got[0]), want[0], rtol=2e-3)
    numpy.testing.assert_allclose(numpy.asarray(got[1]), want[1], rtol=2e-3)


def test_average_weights_summing_to_zero_along_the_axis():
    # NumPy sums the weights as given (not broadcast to a's shape) to check them
    raises_as_numpy(lambda ns, x, w: ns.average(x, axis=1, weights=w),
                    numpy.zeros((0, 3), numpy.float32), numpy.array([-2.5, 3.5, -1.0]))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
@pytest.mark.parametrize("weights", [None, "float32", "float64", "int32"])
@pytest.mark.parametrize("minlength", [0, 5])
def test_bincount_of_nothing_is_intp(dtype, weights, minlength):
    x = numpy.zeros(0, dtype)
    w = None if weights is None else numpy.zeros(0, weights)
    want, got = both(lambda ns, a: ns.bincount(a, weights=None if w is None else
                                               ns.asarray(w), minlength=minlength), x)
    same(got, want)


# ---- indexing helpers -----------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.diagonal(x, axis1=1, axis2=1),
    lambda ns, x: ns.diagonal(x, axis1=0, axis2=-2),
    lambda ns, x: ns.diagonal(x[0]),  # 1-d
])
def test_diagonal_refusals_are_value_errors(fn):
    raises_as_numpy(fn, M23)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.take(x, [0, 0], axis=0),
    lambda ns, x: ns.take(x, [0], axis=-1),
    lambda ns, x: ns.compress([True], x, axis=0),
    lambda ns, x: ns.compress([False], x, axis=-1),
    lambda ns, x: ns.cumsum(x, axis=0),
    lambda ns, x: ns.cumprod(x, axis=-1, dtype="int64"),
    lambda ns, x: ns.squeeze(x, axis=0),
])
def test_0d_array_along_axis_0_as_numpy(fn):
    want, got = both(fn, numpy.array(-3, numpy.int8))
    same(got, want)


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.take(x, [0], axis=1),
    lambda ns, x: ns.compress([True], x, axis=1),
    lambda ns, x: ns.cumsum(x, axis=1),
    lambda ns, x: ns.squeeze(x, axis=(0,)),
])
def test_0d_array_other_axes_refused(fn):
    raises_as_numpy(fn, numpy.array(-3, numpy.int8))


def test_compress_with_nothing_to_take_from():
    # NumPy's take checks no position when the axes before it are empty
    want, got = both(lambda ns, x: ns.compress([True] * 4, x, axis=-1), numpy.zeros((0, 3)))
    same(got, want)
    raises_as_numpy(lambda ns, x: ns.compress([True] * 4, x, axis=-1), numpy.zeros((2, 3)))


@pytest.mark.parametrize("fn", [
    lambda ns, x: ns.take_along_axis(x, ns.asarray(numpy.array([[3]])), axis=1),
    lambda ns, x: ns.take_along_axis(x, ns.asarray(numpy.array([6])), axis=None),
    lambda ns, x: ns.take_along_axis(x, ns.asarray(numpy.array([[0]])), axis=None),
])
def test_take_along_axis_refusals_as_numpy(fn):
    raises_as_numpy(fn, M23)


@pytest.mark.parametrize("dtype, value", [("uint64", -1), ("uint8", 300), ("int16", 2 ** 63),
                                          ("int32", float("inf")), ("int8", float("nan"))])
@pytest.mark.parametrize("name", ["put", "put_along_axis"])
def test_written_values_converted_as_numpy(dtype, value, name):
    # NumPy converts the values into the array's dtype before it looks at the
    # indices: a Python number past the dtype is its error, even with an index out of range
    for index in ([1], [9]):
        def write(ns, x):
            if name == "put":
                ns.put(x, index, value)
            else:
                ns.put_along_axis(x, ns.asarray(numpy.array(index)), value, axis=None)
            return x
        raises_as_numpy(write, numpy.array([1, 2, 3], dtype))


@pytest.mark.parametrize("name", ["put", "put_along_axis"])
def test_written_values_in_range_as_numpy(name):
    def write(ns, x):
        if name == "put":
            ns.put(x, [0, -1], [1.7, -2])
        else:
            ns.put_along_axis(x, ns.asarray(numpy.array([[0], [2]])), 1.7, axis=1)
        return x
    want, got = both(write, M23.astype(numpy.int16))
    same(got, want)


@pytest.mark.parametrize("default", [-2 ** 63 - 1, 2 ** 64, 2 ** 70])
def test_select_default_past_int64_into_a_float_result(default):
    conds = [numpy.array([False, True, False])]
    want, got = both(lambda ns, c, x: ns.select([c], [x], default=default),
                     *conds, numpy.array([1.5, 2, 3], numpy.float32))
    same(got, want)
    raises_as_numpy(lambda ns, c, x: ns.select([c], [x], default=default),
                    *conds, numpy.array([1, 2, 3], numpy.int32))


@pytest.mark.parametrize("args, dtype", [((2147483647, 10), "float16"),
                                         ((4294967296, 4294967281, -3), "float16"),
                                         ((2 ** 64, 2 ** 64 - 15, -3), "complex64"),
                                         ((70000, 70003), "float16")])
def test_arange_into_a_narrow_float_overflows_to_inf(args, dtype):
    want, got = both(lambda ns: ns.arange(*args, dtype=dtype))
    same(got, want)


# ---- ndarray methods with NumPy's keywords ---------------------------------------------------

@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("a, kw", [
    (numpy.array([[1 + 2j, 1 + 3j], [0 - 1j, 2 + 0j]]), {"axis": 0}),   # complex order
    (numpy.array([[1 + 2j, 1 + 3j]], numpy.complex64), {"axis": -1, "keepdims": True}),
    (numpy.zeros((3, 0)), {"axis": 0}),
])
def test_argmax_method_with_numpy_keywords(name, a, kw):
    want, got = both(lambda ns, x: getattr(x, name)(**kw), a)
    same(got, want)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_method_of_an_empty_slice_is_a_value_error(name):
    raises_as_numpy(lambda ns, x: getattr(x, name)(axis=1), numpy.zeros((3, 0)))


@pytest.mark.parametrize("a, axis", [(numpy.ones((1, 3)), 1), (numpy.zeros((0, 3)), 0)])
def test_squeeze_method_axis_of_length_other_than_one_refused(a, axis):
    raises_as_numpy(lambda ns, x: x.squeeze(axis=axis), a)
    want, got = both(lambda ns, x: x.squeeze(axis=axis - 1 if axis else 1),
                     numpy.ones((1, 1, 3)))
    same(got, want)


@pytest.mark.parametrize("dtype, value", [("uint32", -1), ("uint32", float("nan")),
                                          ("int16", 2 ** 63), ("int8", -2 ** 63 - 1)])
def test_fill_method_refuses_as_numpy(dtype, value):
    raises_as_numpy(lambda ns, x: x.fill(value), numpy.zeros((2, 2), dtype))


@pytest.mark.parametrize("dtype, value", [("uint32", 1.5), ("int8", True), ("float16", 70000),
                                          ("bool", 2), ("complex64", 1.5 - 2j)])
def test_fill_method_converts_as_numpy(dtype, value):
    def fill(ns, x):
        x.fill(value)
        return x
    want, got = both(fill, numpy.zeros((2, 2), dtype))
    same(got, want)


def test_trace_method_of_3d():
    # PyTorch's trace takes matrices only: NumPy's meaning for the others
    want, got = both(lambda ns, x: x.trace(), numpy.arange(12.0).reshape(3, 2, 2))
    same(got, want)


@pytest.mark.parametrize("a", [numpy.arange(6, dtype=numpy.int16).reshape(3, 2).T,  # Fortran
                               numpy.arange(6.0).reshape(2, 3), numpy.arange(4)[::-1],
                               numpy.arange(12).reshape(3, 4)[:, ::2]])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("method", ["ravel", "flatten", "reshape"])
def test_ravel_flatten_reshape_order_as_numpy(a, order, method):
    call = (lambda ns, x: x.reshape(-1, order=order)) if method == "reshape" else \
        (lambda ns, x: getattr(x, method)(order=order))
    if method == "reshape" and order == "K":
        raises_as_numpy(call, a)
        return
    want, got = both(call, a)
    same(got, want)
    t = np.asarray(a)
    result = call(np, t)
    if method != "reshape":  # contiguous, a copy where NumPy makes one
        assert result.flags.c_contiguous
    assert numpy.shares_memory(numpy.asarray(result), numpy.asarray(t)) == \
        numpy.shares_memory(call(numpy, a), a)
