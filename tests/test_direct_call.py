"""The namespace's short paths: ``_C._DirectCall`` (a function of
torchlike.numpy whose common call skips its Python wrapper) and the short
paths of the creation, joining and clipping functions.  Each short path must
give what the full path gives: NumPy's values, dtypes, shapes and layouts,
and NumPy's errors when it hands a call on."""
import inspect
import pickle
import sys

import warnings

import numpy
import pytest

import torchlike as tl
import torchlike.numpy as np
from torchlike import _C


class Recorder:
    def __init__(self, name):
        self.name, self.calls = name, []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.name


def wrapper(*args, **kwargs):
    """The wrapper's doc."""
    return "function"


T = tl.ones(3)


@pytest.mark.parametrize("args, kwargs, expected", [
    ((T, T), {}, "direct"),
    ((T, 2.0), {}, "direct"),
    ((1, T), {}, "direct"),
    ((True, T), {}, "direct"),
    # a NumPy scalar is an array to NumPy's ufuncs (NEP 50) but a weak number
    # to the core op (PyTorch's rule): the wrapper makes it a 0-d tensor
    ((T, numpy.float64(2)), {}, "function"),
    ((T, 1j), {}, "direct"),
    ((2.0, 3.0), {}, "function"),  # no tensor: the wrapper makes arrays of them
    ((T, [1.0]), {}, "function"),
    ((T, numpy.ones(3)), {}, "function"),
    ((T, numpy.int64(2)), {}, "function"),  # not a Python number
    ((T,), {}, "function"),  # too few
    ((T, T, T), {}, "function"),  # out= by position
    ((T, T), {"out": T}, "function"),
])
def test_operand_rule(args, kwargs, expected):
    direct = Recorder("direct")
    call = _C._DirectCall(direct, wrapper, 2)
    assert call(*args, **kwargs) == expected
    if expected == "direct":
        assert direct.calls == [(args, {})]


class Avoided:
    pass


def test_host_rule_takes_any_host_call_and_avoids_listed_types():
    direct, avoid = Recorder("direct"), []
    call = _C._DirectCall(direct, wrapper, retry=(KeyError,), avoid=avoid)
    assert call([T, [T, 3]], axis=1) == "direct"
    assert direct.calls == [(([T, [T, 3]],), {"axis": 1})]
    assert call(Avoided()) == "direct"  # not registered yet
    avoid.append(Avoided)  # as torchlike.numpy.ma registers its class on import
    assert call(Avoided()) == "function"
    assert call([1, (2, Avoided())]) == "function"  # searched inside lists and tuples
    assert call(1, key=[Avoided()]) == "function"  # and keyword values


def test_host_rule_retries_through_the_wrapper():
    def refuses(*args, **kwargs):
        raise KeyError("cannot honour it")

    def fails(*args, **kwargs):
        raise ValueError("a real error")

    assert _C._DirectCall(refuses, wrapper, retry=(KeyError,))(T) == "function"
    with pytest.raises(ValueError, match="a real error"):
        _C._DirectCall(fails, wrapper, retry=(KeyError,))(T)
    with pytest.raises(KeyError):  # nothing to retry on
        _C._DirectCall(refuses, wrapper)(T)


def test_bad_construction():
    with pytest.raises(TypeError, match="_DirectCall"):
        _C._DirectCall(1, wrapper)
    with pytest.raises(TypeError, match="_DirectCall"):
        _C._DirectCall(wrapper, wrapper, -1)
    with pytest.raises(TypeError, match="_DirectCall"):
        _C._DirectCall(wrapper, wrapper, avoid=(Avoided,))


def test_stands_for_its_function():
    call = _C._DirectCall(Recorder("direct"), wrapper, 2)
    assert call.__name__ == "wrapper" and call.__doc__ == "The wrapper's doc."
    assert call.__module__ == __name__ and call.__wrapped__ is wrapper
    assert repr(call) == repr(wrapper)
    call.extra = 5  # attributes can be set (np.add.reduce is one)
    assert call.extra == 5


@pytest.mark.parametrize("name", ["add", "exp", "concatenate", "mean", "dot", "clip", "squeeze",
                                  "maximum"])
def test_namespace_functions_keep_their_identity(name):
    fn = getattr(np, name)
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert fn.__name__ == name and fn.__doc__ == fn.__wrapped__.__doc__
    assert list(inspect.signature(fn).parameters)  # from the implementation, unwrapped


def test_ufunc_surface_survives():
    x = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert np.add.nin == 2 and np.add.identity == 0
    assert np.add.reduce(x, axis=0).tolist() == [4.0, 6.0]
    assert np.multiply.outer(np.asarray([1, 2]), np.asarray([3, 4])).tolist() == \
        [[3, 4], [6, 8]]


def test_no_reference_leaks():
    x, y = np.ones(4), np.ones(4)
    for fn, args in [(np.add, (x, y)), (np.add, (x, 2.0)), (np.exp, (x,)),
                     (np.concatenate, ([x, y],)), (np.mean, (x,)),
                     (np.concatenate, ([x, np.ones((2, 2))],))]:  # the error path
        def run():
            try:
                fn(*args)
            except ValueError:
                pass
        run()
        before = sys.getrefcount(x), sys.getrefcount(y)
        for _ in range(200):
            run()
        assert (sys.getrefcount(x), sys.getrefcount(y)) == before


# ---- the short paths give what NumPy gives ---------------------------------------

def same(ours, theirs):
    assert isinstance(ours, tl.Tensor)
    assert ours.dtype.name == theirs.dtype.name, (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == theirs.shape
    numpy.testing.assert_array_equal(ours.numpy(), theirs)


def pairs():
    """(ours, NumPy's) arrays: 0-d, empty, non-contiguous, several dtypes."""
    base = numpy.arange(24.0).reshape(4, 6)
    for a in (base, base.T, base[:, ::2], base.astype(numpy.float32), base.astype(numpy.int8),
              numpy.zeros((0, 6)), numpy.ones((3, 1, 2))):
        yield np.asarray(a.copy() if a.base is None else a), a


@pytest.mark.parametrize("a", [p[1] for p in pairs()], ids=lambda a: f"{a.dtype}{a.shape}")
def test_joins(a):
    t = np.asarray(a)
    for f in ("concatenate", "stack", "vstack", "hstack"):
        for args in ([t, t], (t, t, t)):
            same(getattr(np, f)(args), getattr(numpy, f)([a] * len(args)))
    same(np.concatenate([t, t], axis=-1), numpy.concatenate([a, a], axis=-1))
    same(np.stack([t, t], axis=-1), numpy.stack([a, a], axis=-1))


def test_joins_hand_on_what_they_cannot_take():
    a, b = numpy.ones((2, 3), numpy.float32), numpy.arange(4.0).reshape(2, 2)
    same(np.concatenate([np.asarray(a), np.asarray(b)], axis=1),
         numpy.concatenate([a, b], axis=1))  # two dtypes: promoted
    c = numpy.arange(4, dtype=numpy.int8).reshape(2, 2)
    same(np.vstack([np.asarray(c), np.asarray(c.astype(numpy.int16))]),
         numpy.vstack([c, c.astype(numpy.int16)]))
    same(np.hstack([np.ones(2), np.ones((1,))]), numpy.hstack([numpy.ones(2), numpy.ones(1)]))
    for f in ("concatenate", "vstack"):
        with pytest.raises(ValueError, match="dimension"):
            getattr(np, f)([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(ValueError, match="same number of dimensions"):
        np.concatenate([np.ones((2, 3)), np.ones(3)])
    with pytest.raises(ValueError, match="same shape"):
        np.stack([np.ones(2), np.ones(3)])
    with pytest.raises(ValueError, match="zero-dimensional"):
        np.concatenate([np.asarray(1.0), np.asarray(2.0)])
    with pytest.raises(numpy.exceptions.AxisError):
        np.concatenate([np.ones(2), np.ones(2)], axis=1)


@pytest.mark.parametrize("a", [p[1] for p in pairs()], ids=lambda a: f"{a.dtype}{a.shape}")
def test_copies_and_likes(a):
    t = np.asarray(a)
    same(t.copy(), a.copy())
    assert t.copy().is_contiguous() and t.copy().data_ptr() != t.data_ptr()
    same(t.astype(numpy.float32), a.astype(numpy.float32))
    same(t.astype("int16"), a.astype("int16"))
    assert t.astype(t.dtype).data_ptr() != t.data_ptr()
    assert t.astype(t.dtype, copy=False) is t
    for f in ("zeros_like", "ones_like", "empty_like"):
        r = getattr(np, f)(t)
        assert r.dtype == t.dtype and r.shape == t.shape
        assert r.numel() <= 1 or \
            [s * r.itemsize for s in r.stride()] == list(getattr(numpy, f)(a).strides)
    same(np.zeros_like(t, dtype=numpy.int8), numpy.zeros_like(a, dtype=numpy.int8))


@pytest.mark.parametrize("args", [(5,), (0,), (-2,), (1, 10, 2), (10, 1, -3), (5, 1), (3, 3),
                                  (-4, 7, 5), (2, 9, 100)])
def test_arange_of_ints(args):
    same(np.arange(*args), numpy.arange(*args))


def test_arange_hands_on_the_rest():
    same(np.arange(5, step=1.0), numpy.arange(5, step=1.0))
    for args in ((-2 ** 62 + 1, -2 ** 62 + 4), (-2 ** 62, -2 ** 62 + 3), (2 ** 62 - 3, 2 ** 62)):
        same(np.arange(*args), numpy.arange(*args))  # either side of the short path's bound
    same(np.arange(0, 3, True), numpy.arange(0, 3, True))
    same(np.arange(2 ** 62, 2 ** 62 + 3), numpy.arange(2 ** 62, 2 ** 62 + 3))
    same(np.arange(1, 4, dtype=numpy.int8), numpy.arange(1, 4, dtype=numpy.int8))
    with pytest.raises(ZeroDivisionError):
        np.arange(1, 3, 0)


def test_creation_shapes():
    same(np.zeros((2, 3)), numpy.zeros((2, 3)))
    same(np.ones(4, dtype=numpy.int16), numpy.ones(4, dtype=numpy.int16))
    e = np.empty((2, numpy.int64(3)))  # its values are whatever the memory held
    assert (e.shape, e.dtype, e.stride()) == ((2, 3), tl.float64, (3, 1))
    same(np.full((2, 2), 7), numpy.full((2, 2), 7))
    same(np.full((2, 2), 1.5, order="F"), numpy.full((2, 2), 1.5, order="F"))
    for bad in ((2.0, 3), (2, True), (2, [3])):
        with pytest.raises(TypeError):
            numpy.zeros(bad)
        with pytest.raises(TypeError):
            np.zeros(bad)
    with pytest.raises(ValueError):
        np.ones((-1, 2))
    for f in ("zeros", "ones", "empty"):  # beside the short path: a device, an order, a list
        for kwargs in ({"device": "cpu"}, {"order": "F"}, {"order": "c"}, {"dtype": "int8"}):
            ours, theirs = getattr(np, f)((2, 3), **{k: v for k, v in kwargs.items()}), \
                getattr(numpy, f)((2, 3), **{k: v for k, v in kwargs.items() if k != "device"})
            assert (ours.dtype.name, tuple(ours.shape)) == (theirs.dtype.name, theirs.shape)
            assert [s * ours.itemsize for s in ours.stride()] == list(theirs.strides)
        same(getattr(np, f)([2, 3]) * 0, getattr(numpy, f)([2, 3]) * 0)
    with pytest.raises(ValueError, match="order"):
        np.zeros((2, 2), order="K")


def test_asarray_of_a_tensor():
    t = np.ones((2, 3))
    assert np.asarray(t) is t and np.asarray(t, copy=False) is t
    assert np.asarray(t, copy=True) is not t and np.asarray(t, copy=True).data_ptr() != \
        t.data_ptr()
    assert np.asarray(t, dtype=numpy.float32).dtype == tl.float32
    with pytest.raises(ValueError):
        np.asarray(t, dtype=numpy.float32, copy=False)


@pytest.mark.parametrize("obj", [[1, 2, 3], [[1.5, 2], [3, 4]], [True, False], [1 + 2j], [],
                                 [[1], [2]], [2 ** 63]])
def test_asarray_of_lists(obj):
    same(np.asarray(obj), numpy.asarray(obj))
    same(np.array(obj), numpy.array(obj))
    same(np.array(obj, ndmin=3), numpy.array(obj, ndmin=3))


def test_array_lays_out_what_order_asks():
    a = numpy.arange(6.0).reshape(2, 3)
    for order in ("K", "C", "F", "A", "k"):
        for src in (a, a.T):
            ours, theirs = np.array(np.asarray(src), order=order), numpy.array(src, order=order)
            same(ours, theirs)
            assert [s * 8 for s in ours.stride()] == list(theirs.strides), order
    with pytest.raises(ValueError, match="order"):
        np.array([1.0], order="X")


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)),
                                    ((3,), (3, 2)), ((0, 3), (3, 2))])
def test_dot(shapes):
    a = numpy.arange(numpy.prod(shapes[0]), dtype=numpy.float64).reshape(shapes[0])
    b = numpy.arange(numpy.prod(shapes[1]), dtype=numpy.float64).reshape(shapes[1]) - 2
    same(np.dot(np.asarray(a), np.asarray(b)), numpy.dot(a, b))
    same(np.dot(np.asarray(a.astype(numpy.float32)), np.asarray(b)),
         numpy.dot(a.astype(numpy.float32), b))


def test_dot_errors_are_numpys():
    with pytest.raises(ValueError):
        np.dot(np.ones((2, 3)), np.ones((2, 3)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("bounds", [(0, 1), (0.25, None), (None, -0.5), (1.5, -1),
                                    (float("inf"), None), (float("nan"), 1.0), (2 ** 60, None)])
def test_clip_of_floats(dtype, bounds):
    a = numpy.linspace(-2, 2, 9).astype(dtype)[::2]
    with numpy.errstate(over="ignore"):  # 2**60 is inf in float16
        expected = numpy.clip(a, *bounds)
    same(np.clip(np.asarray(a), *bounds), expected)


def test_squeeze():
    for shape in [(1, 3, 1), (), (1,), (0, 1), (2, 3)]:
        a = numpy.zeros(shape)
        same(np.squeeze(np.asarray(a)), numpy.squeeze(a))
    a = numpy.zeros((1, 3, 1))
    same(np.squeeze(np.asarray(a), axis=0), numpy.squeeze(a, axis=0))  # the full path
    same(np.squeeze(np.asarray(a), 2), numpy.squeeze(a, 2))
    same(np.squeeze([[1.5]]), numpy.squeeze([[1.5]]))  # not a tensor: made one
    with pytest.raises(ValueError, match="size not equal to one"):
        np.squeeze(np.asarray(a), axis=1)


@pytest.mark.parametrize("f", ["maximum", "minimum", "fmax", "fmin"])
def test_extrema_of_real_and_complex_operands(f):
    a = numpy.array([[1.0, numpy.nan], [-2.0, 3.5]])
    z = a + numpy.array([[1j, 0], [-1j, 2j]])
    operands = [(a, a[::-1]), (a, 0.5), (a, 2), (a, True), (a.astype(numpy.float32), 0.5),
                (numpy.array([[1, -5], [7, 0]], numpy.int8), 3), (z, z[::-1]), (z, 1.0),
                (a, 1 + 1j), (a, z)]
    for x1, x2 in operands:
        ours = getattr(np, f)(np.asarray(x1), np.asarray(x2) if isinstance(x2, numpy.ndarray)
                              else x2)
        same(ours, getattr(numpy, f)(x1, x2))
    # a keyword takes the full path: dtype= selects NumPy's complex loop for real operands
    same(getattr(np, f)(np.asarray(a), np.asarray(z.real[::-1]), dtype=numpy.complex128),
         getattr(numpy, f)(a, z.real[::-1], dtype=numpy.complex128))


def test_has_a_dict_as_the_function_had():
    """vars(np.add) and functools.wraps(np.add) see the ufunc surface set on
    the function (np.add.reduce, .ufunc ...), as when it was a Python function."""
    import functools
    assert vars(np.add)["ufunc"] is numpy.add and "reduce" in np.add.__dict__

    @functools.wraps(np.add)
    def mine(*args):
        return np.add(*args)
    assert mine.ufunc is numpy.add and mine.reduce is np.add.reduce


@pytest.mark.parametrize("dtype, value", [
    ("float64", 1.5), ("float64", float("nan")), ("float64", 3), ("int64", 2 ** 63 - 1),
    ("int64", -2 ** 63), ("int64", 2 ** 63), ("int64", 1.5), ("int64", float("nan")),
    ("int64", True), ("float32", 1e300), ("int8", 300), ("bool", 2.5)])
def test_fill_converts_as_numpy(dtype, value):
    """x.fill: its short path (a float into float64, an int of int64's range
    into int64) and the conversion of everything else give NumPy's values and
    errors."""
    a = numpy.zeros(3, dtype)
    t = np.asarray(a.copy())
    try:
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            a.fill(value)
    except (OverflowError, ValueError) as e:
        with pytest.raises(type(e)):
            t.fill(value)
        return
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        assert t.fill(value) is None
    same(t, a)
    # NumPy's warnings too (1e300 into float32 overflows)
    assert [w.category for w in ours] == [w.category for w in theirs]


def test_transpose_and_view_methods():
    for shape in [(), (3,), (2, 3), (2, 3, 4)]:
        a = numpy.arange(float(numpy.prod(shape))).reshape(shape)
        same(np.asarray(a).transpose(), a.transpose())
        same(np.transpose(np.asarray(a)), numpy.transpose(a))
    a = numpy.arange(6.0).reshape(2, 3)
    same(np.asarray(a).view(numpy.int64), a.view(numpy.int64))
    same(np.asarray(a).view("int64"), a.view("int64"))
    same(np.asarray(a).view(), a.view())


@pytest.mark.parametrize("fill", [2.5, float("nan"), 7, -2 ** 63, 2 ** 63 - 1, 2 ** 63, True,
                                  1 + 2j, numpy.float32(0.1)])
@pytest.mark.parametrize("kwargs", [{}, {"dtype": "float32"}, {"order": "F"}, {"dtype": "int16"}])
def test_full_of_numbers(fill, kwargs):
    """np.full's short path (a float or an int64 int, NumPy's defaults) and
    the full path beside it give NumPy's dtype, values and errors."""
    try:
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            expected = numpy.full((2, 3), fill, **kwargs)
    except (OverflowError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            np.full((2, 3), fill, **kwargs)
        return
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        ours = np.full((2, 3), fill, **kwargs)
    same(ours, expected)
    # NumPy's warnings too (a complex fill into a real dtype drops its imaginary part)
    assert [w.category for w in warned] == [w.category for w in theirs]
    assert [s * ours.itemsize for s in ours.stride()] == list(expected.strides)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3, 4), (4, 2)),
                                    ((3,), (3, 2)), ((2, 3), (4, 3)), ((0, 3), (3, 2))])
def test_matmul(shapes):
    """np.matmul's short path (two tensors of one dtype) and its errors."""
    a = numpy.arange(numpy.prod(shapes[0]), dtype=numpy.float64).reshape(shapes[0])
    b = numpy.arange(numpy.prod(shapes[1]), dtype=numpy.float64).reshape(shapes[1]) - 2
    try:
        expected = numpy.matmul(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            np.matmul(np.asarray(a), np.asarray(b))
        return
    same(np.matmul(np.asarray(a), np.asarray(b)), expected)
    same(np.matmul(np.asarray(a.astype(numpy.float32)), np.asarray(b)),
         numpy.matmul(a.astype(numpy.float32), b))
    with pytest.raises(ValueError):
        np.matmul(np.asarray(a), np.asarray(1.0))


@pytest.mark.parametrize("f", ["power", "remainder", "floor_divide", "left_shift"])
def test_bool_arithmetic_computes_in_int8(f):
    a, b = numpy.array([True, False, True]), numpy.array([True, True, False])
    i = numpy.array([3, 4, 5], numpy.int16)
    with numpy.errstate(all="ignore"):
        for x1, x2 in [(a, b), (a, True), (True, b), (i, b), (a, 2)]:
            ours = getattr(np, f)(np.asarray(x1) if isinstance(x1, numpy.ndarray) else x1,
                                  np.asarray(x2) if isinstance(x2, numpy.ndarray) else x2)
            same(ours, getattr(numpy, f)(x1, x2))
