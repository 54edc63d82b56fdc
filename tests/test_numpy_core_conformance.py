"""torchlike.numpy against NumPy where running NumPy's own numpy/_core test suite
on the namespace found differences (docs/numpy.md, "NumPy's own test suite:
numpy/_core").  NumPy is the oracle: values, dtypes, flags and exception types."""
import itertools

import numpy
import pytest

import torchlike
import torchlike.numpy as np


def same(result, expected):
    """Equal values, shape and dtype (NumPy's array vs our tensor)."""
    assert isinstance(result, torchlike.Tensor), type(result)
    expected = numpy.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert tuple(result.shape) == expected.shape
    numpy.testing.assert_array_equal(result.numpy(), expected)


def raises_like(call_numpy, call_ours):
    """Both raise the same exception type, or both return equal results."""
    try:
        expected = call_numpy()
    except Exception as error:  # noqa: BLE001 - the oracle's own exception type
        with pytest.raises(type(error)):
            call_ours()
        return None
    same(call_ours(), expected)
    return expected


# ---- finfo / iinfo ---------------------------------------------------------------

FINFO_ATTRS = ["bits", "eps", "epsneg", "iexp", "machep", "max", "maxexp", "min", "minexp",
               "negep", "nexp", "nmant", "precision", "resolution", "tiny",
               "smallest_normal", "smallest_subnormal"]


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_has_numpys_attributes_and_repr(name):
    ours, theirs = np.finfo(name), numpy.finfo(numpy.dtype(name))
    for attr in FINFO_ATTRS:
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.dtype == theirs.dtype
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_every_public_attribute_is_numpys_value(name):
    # every public field NumPy's finfo has, with NumPy's value; the floats are
    # Python floats (the Array API's type, docs/numpy.md), the counts ints
    ours, theirs = np.finfo(name), numpy.finfo(numpy.dtype(name))
    fields = [a for a in dir(theirs) if not a.startswith("_")
              and not callable(getattr(theirs, a))]
    assert set(FINFO_ATTRS) | {"dtype"} <= set(fields)
    for attr in fields:
        want, got = getattr(theirs, attr), getattr(ours, attr)
        if attr == "dtype":
            assert got == want and isinstance(got, torchlike.dtype)
        elif isinstance(want, numpy.floating):
            assert type(got) is float and got == float(want), attr
        else:
            assert type(got) is type(want) and got == want, attr


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"])
def test_iinfo_every_public_attribute_is_numpys(name):
    # iinfo's `key` was missing
    ours, theirs = np.iinfo(name), numpy.iinfo(numpy.dtype(name))
    for attr in [a for a in dir(theirs) if not a.startswith("_")]:
        want, got = getattr(theirs, attr), getattr(ours, attr)
        if attr == "dtype":
            assert got == want
        else:
            assert type(got) is type(want) and got == want, attr
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))


def test_bfloat16_is_a_dtype_name_here():
    # the namespace has bfloat16, which NumPy cannot name: np.finfo("bfloat16")
    # and dtype="bfloat16" were refused ("Cannot interpret ''bfloat16''")
    assert np.finfo("bfloat16") is np.finfo(np.bfloat16)
    assert np.zeros(2, dtype="bfloat16").dtype == np.bfloat16
    with pytest.raises(TypeError, match="^Cannot interpret 'float99' as a data type$"):
        np.zeros(2, dtype="float99")


def test_finfo_bfloat16_is_consistent():
    f = np.finfo(np.bfloat16)
    assert (f.nmant, f.nexp, f.bits) == (7, 8, 16)
    assert f.eps == 2.0 ** f.machep and f.epsneg == 2.0 ** f.negep
    assert f.smallest_normal == 2.0 ** f.minexp
    assert f.smallest_subnormal == 2.0 ** (f.minexp - f.nmant)
    # the value just below 1 and the largest finite value round-trip through bfloat16
    assert torchlike.tensor(1 - f.epsneg, dtype=np.bfloat16).item() == 1 - f.epsneg
    assert torchlike.tensor(f.max, dtype=np.bfloat16).item() == f.max


@pytest.mark.parametrize("value", [numpy.float32(1.5), numpy.float16(1), 1.5, 2j,
                                   numpy.complex64(1)])
def test_finfo_takes_instances(value):
    assert np.finfo(value).dtype == numpy.finfo(value).dtype
    assert np.finfo(value) is np.finfo(numpy.finfo(value).dtype)  # one per dtype


@pytest.mark.parametrize("value", [numpy.int16(3), 7, numpy.int8(1)])
def test_iinfo_takes_instances(value):
    ours, theirs = np.iinfo(value), numpy.iinfo(value)
    assert (ours.min, ours.max, ours.bits) == (theirs.min, theirs.max, theirs.bits)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("spec", ["i4", "S3", "V3", "O", "U2", "f,f", numpy.int8])
def test_finfo_refuses_what_numpy_refuses(spec):
    with pytest.raises(ValueError):
        numpy.finfo(spec)
    with pytest.raises(ValueError):
        np.finfo(spec)


@pytest.mark.parametrize("spec", ["f4", "S3", "O", 1.5])
def test_iinfo_refuses_what_numpy_refuses(spec):
    with pytest.raises(ValueError):
        numpy.iinfo(spec)
    with pytest.raises(ValueError):
        np.iinfo(spec)


def test_finfo_iinfo_subscriptable():
    assert np.finfo[np.float32].__origin__ is np.finfo
    assert np.iinfo[int].__origin__ is np.iinfo


# ---- scalar types called with NumPy's arguments ------------------------------------

@pytest.mark.parametrize("name,args", [("complex64", (1, float("nan"))),
                                       ("complex128", (1.5, -2)), ("float32", ()),
                                       ("int16", ("12",)), ("float64", (2,))])
def test_dtype_call_takes_the_scalar_types_arguments(name, args):
    ours, theirs = getattr(np, name)(*args), getattr(numpy, name)(*args)
    assert type(ours) is type(theirs)
    numpy.testing.assert_array_equal(ours, theirs)


# ---- joining: concatenate, stack, hstack, vstack, block ------------------------------

JOINS = ["concatenate", "stack", "hstack", "vstack"]
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("join,casting,dtype",
                         list(itertools.product(JOINS, CASTINGS, ["f4", "f8", "i8", "c8"])))
def test_join_dtype_and_casting(join, casting, dtype):
    a, b = [1, 2], [2.5, 3.5]
    raises_like(lambda: getattr(numpy, join)((numpy.array(a), numpy.array(b)),
                                             dtype=dtype, casting=casting),
                lambda: getattr(np, join)((np.asarray(a), np.asarray(b)),
                                          dtype=dtype, casting=casting))


@pytest.mark.parametrize("join,casting,dtype",
                         list(itertools.product(["concatenate", "stack"], CASTINGS,
                                                ["f4", "f8", "i8"])))
def test_join_out_and_casting(join, casting, dtype):
    shape = (4,) if join == "concatenate" else (2, 2)
    theirs, ours = numpy.empty(shape, dtype), np.empty(shape, dtype)
    result = raises_like(
        lambda: getattr(numpy, join)((numpy.array([1.5, 2]), numpy.array([3.5, 4])),
                                     out=theirs, casting=casting),
        lambda: getattr(np, join)((np.asarray([1.5, 2]), np.asarray([3.5, 4])), out=ours,
                                  casting=casting))
    if result is not None:
        same(ours, theirs)


@pytest.mark.parametrize("join", JOINS + ["dstack", "column_stack"])
def test_join_argument_errors(join):
    ours, theirs = getattr(np, join), getattr(numpy, join)
    for args, kwargs in [(([],), {}), (((x for x in [[1.0]]),), {})]:
        with pytest.raises(Exception) as expected:
            theirs(*args, **kwargs)
        args = (args[0],) if isinstance(args[0], list) else ((x for x in [[1.0]]),)
        with pytest.raises(expected.type):
            ours(*args, **kwargs)


@pytest.mark.parametrize("join", ["concatenate", "stack"])
def test_join_out_with_dtype_or_bad_casting(join):
    pieces = [np.ones(2), np.ones(2)]
    with pytest.raises(TypeError):
        getattr(np, join)(pieces, out=np.empty(4 if join == "concatenate" else (2, 2)),
                          dtype="f8")
    with pytest.raises(ValueError, match="casting must be one of"):
        getattr(np, join)(pieces, casting="same_value")


def test_concatenate_promotes_noncontiguous_and_empty():
    a = numpy.arange(12, dtype=numpy.int32).reshape(3, 4)[:, ::2]
    b = numpy.zeros((0, 2), numpy.float64)
    same(np.concatenate([np.asarray(a), np.asarray(b)]), numpy.concatenate([a, b]))
    same(np.hstack([np.asarray(a), np.asarray(a)]), numpy.hstack([a, a]))


def test_block_copies_and_reports_numpys_errors():
    a = np.eye(3)
    b = np.block(a)
    b[0, 0] = 5
    assert a[0, 0] == 1
    with pytest.raises(ValueError):
        np.block([np.zeros(2), np.eye(2)])
    with pytest.raises(ValueError):
        np.block([[np.ones((2, 3)), np.ones((2, 2))], [np.ones((2, 2)), np.ones((2, 2))]])
    for nested in ([1, [2]], [1, []], [[1], 2]):
        with pytest.raises(ValueError, match="depths are mismatched"):
            np.block(nested)
    with pytest.raises(ValueError, match=r"arrays\[0\] cannot be empty"):
        np.block([[]])
    same(np.block([[np.ones((1, 2)), 2 * np.ones((1, 1))]]),
         numpy.block([[numpy.ones((1, 2)), 2 * numpy.ones((1, 1))]]))


# ---- creation --------------------------------------------------------------------------

@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "full"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (), (0, 2)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_creation_order(make, shape, order):
    args = (shape, 7) if make == "full" else (shape,)
    ours = getattr(np, make)(*args, order=order)
    theirs = getattr(numpy, make)(*args, order=order)
    assert tuple(ours.shape) == theirs.shape and ours.dtype == theirs.dtype
    assert ours.flags.c_contiguous == theirs.flags.c_contiguous
    assert ours.flags.f_contiguous == theirs.flags.f_contiguous
    if make != "empty":
        same(ours, theirs)


def test_linspace_argument_checks_and_integer_dtype():
    with pytest.raises(TypeError):
        np.linspace(0, 1, num=2.5)
    same(np.linspace(0, 1, numpy.int64(3)), numpy.linspace(0, 1, numpy.int64(3)))
    for start in (-1, numpy.array([-1.0, -3.5])):
        same(np.linspace(np.asarray(start) if isinstance(start, numpy.ndarray) else start,
                         3, 8, dtype=int), numpy.linspace(start, 3, 8, dtype=int))


@pytest.mark.parametrize("start,stop", [([0.0, 1.0], [2.0, 1.0]), ([0.1, -3], 7.3),
                                        (numpy.float32(0.1), numpy.float32([1, 2])), ([[1e-3], [5]], [3, 9])])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("axis", [0, -1])
def test_linspace_array_end_points_are_numpys_values(start, stop, endpoint, axis):
    ours = np.linspace(np.asarray(start), np.asarray(stop), 7, endpoint=endpoint, axis=axis)
    theirs = numpy.linspace(numpy.asarray(start), numpy.asarray(stop), 7, endpoint=endpoint,
                            axis=axis)
    same(ours, theirs)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_logspace_array_base(axis):
    start, stop, base = [0.0, 1.0], [6.0, 7.0], [2.0, 3.0]
    ours = np.logspace(np.asarray(start), np.asarray(stop), 6, base=np.asarray(base),
                       axis=axis)
    theirs = numpy.logspace(start, stop, 6, base=numpy.array(base), axis=axis)
    numpy.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-14)
    assert ours.dtype == theirs.dtype
    ours = np.logspace(np.asarray(start), np.asarray([[6.0, 7.0]] * 2), 4, base=np.asarray(2.0))
    theirs = numpy.logspace(start, [[6.0, 7.0]] * 2, 4, base=numpy.array(2.0))
    numpy.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_logspace_dtype_of_scalar_and_array_end_points(dtype):
    s, e = numpy.dtype(dtype).type(1), numpy.dtype(dtype).type(2)
    assert np.logspace(s, e, 3).dtype == numpy.logspace(s, e, 3).dtype
    assert np.logspace(s, e, 3, base=s).dtype == numpy.logspace(s, e, 3, base=s).dtype


@pytest.mark.parametrize("start,stop", [(8, 2), (1, 1e6), (-2, -1e3), (0.3, 5.7),
                                        (numpy.float32(1), numpy.float32(8)),
                                        ([1.0, -2.0], [10.0, -30.0])])
@pytest.mark.parametrize("endpoint", [True, False])
def test_geomspace_end_points_and_dtype(start, stop, endpoint):
    ours = np.geomspace(np.asarray(start) if isinstance(start, list) else start,
                        np.asarray(stop) if isinstance(stop, list) else stop, 5,
                        endpoint=endpoint)
    theirs = numpy.geomspace(start, stop, 5, endpoint=endpoint)
    assert ours.dtype == theirs.dtype
    numpy.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-14)
    numpy.testing.assert_array_equal(ours.numpy()[0], theirs[0])  # exactly the end points
    if endpoint:
        numpy.testing.assert_array_equal(ours.numpy()[-1], theirs[-1])
    same(np.geomspace(start if not isinstance(start, list) else np.asarray(start),
                      stop if not isinstance(stop, list) else np.asarray(stop), 4,
                      dtype=int), numpy.geomspace(start, stop, 4, dtype=int))


@pytest.mark.parametrize("start,stop", [(1j, 1000j), (-1 + 0j, 1 + 0j), (-1, 100)])
def test_geomspace_complex_and_opposite_signs(start, stop):
    with numpy.errstate(invalid="ignore"):  # NumPy's own code warns for log10(-1), both sides
        theirs = numpy.geomspace(start, stop, 4)
        ours = np.geomspace(start, stop, 4)
    assert ours.dtype == theirs.dtype
    numpy.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12, atol=1e-12)


def test_table_functions_take_numpys_own_code_for_what_they_refuse():
    a = numpy.arange(6.0).reshape(2, 3)
    same(np.reshape(np.asarray(a), (3, 2), order="F"), numpy.reshape(a, (3, 2), order="F"))
    same(np.ravel(np.asarray(a), order="F"), numpy.ravel(a, order="F"))


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_take_modes(mode):
    a = numpy.arange(12.0).reshape(3, 4)
    same(np.take(np.asarray(a), [7, -9, 2], mode=mode), numpy.take(a, [7, -9, 2], mode=mode))
    same(np.take(np.asarray(a), [[5, -1]], axis=1, mode=mode),
         numpy.take(a, [[5, -1]], axis=1, mode=mode))


# ---- einsum ------------------------------------------------------------------------

def test_einsum_sublists_as_arrays():
    a = numpy.arange(9.0).reshape(3, 3)
    for sub in (numpy.array([0, 0]), np.asarray([0, 0]), list(np.asarray([0, 0]))):
        same(np.einsum(np.asarray(a), sub), numpy.einsum(a, [0, 0]))
    same(np.einsum(np.asarray(a), [0, 1], np.asarray(a), [1, numpy.int64(2)], [0, 2]),
         numpy.einsum(a, [0, 1], a, [1, 2], [0, 2]))


@pytest.mark.parametrize("eq,shapes", [
    ("ijp,ipq,ikq->ijk", [(3, 1, 1), (3, 1, 3), (1, 3, 3)]),
    ("ij,ij->i", [(2, 1), (2, 3)]),
    ("...i,i", [(2, 1), (3,)]),
    ("ii,i->i", [(1, 1), (4,)]),
])
def test_einsum_broadcasts_length_one_subscripts(eq, shapes):
    rng = numpy.random.default_rng(0)
    arrays = [rng.random(s) for s in shapes]
    ours = np.einsum(eq, *[np.asarray(a) for a in arrays])
    numpy.testing.assert_allclose(ours.numpy(), numpy.einsum(eq, *arrays), rtol=1e-13)


@pytest.mark.parametrize("args", [(), ("",), ("i", 0), ("ij", [0, 0]), ("i->ij", [0, 0]),
                                  ("ii", numpy.ones((2, 3))), ("", 0, 0)])
def test_einsum_errors_are_numpys(args):
    with pytest.raises(ValueError):
        numpy.einsum(*args)
    with pytest.raises(ValueError):
        np.einsum(*args)


def test_einsum_out_must_be_an_array():
    with pytest.raises(TypeError):
        np.einsum("i->", np.ones(3), out="test")


# ---- ndarray methods ---------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"offset": 1}, {"axis1": 0, "axis2": 2},
                                    {"offset": -1, "axis1": 1, "axis2": 0},
                                    {"dtype": "float32"}])
def test_trace_method_takes_numpys_arguments(kwargs):
    a = numpy.arange(24, dtype=numpy.int32).reshape(2, 3, 4)
    if not kwargs:
        a = a[0]
    same(np.asarray(a).trace(**kwargs), a.trace(**kwargs))
    if "offset" in kwargs:
        same(np.asarray(a).trace(kwargs["offset"]), a.trace(kwargs["offset"]))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_imag_of_real_arrays_is_zero(dtype):
    a = numpy.arange(6).reshape(2, 3).astype(dtype)[:, ::2]
    same(np.asarray(a).imag, a.imag)
    same(np.asarray(a).real, a.real)
    same(np.asarray(numpy.array(3, dtype)).imag, numpy.array(3, dtype).imag)


# ---- indexing --------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("count", [31, 32, 33, 70])
def test_newaxis_past_the_dimension_limit_raises(shape, count):
    """Each None adds a dim; past torchlike's 32 (NumPy's 64) an IndexError, for
    reading and writing (an unchecked view here used to corrupt the heap)."""
    a = np.ones(shape)
    index = (0,) * len(shape) + (None,) * count
    if count <= 32:
        assert a[index].ndim == count
        a[index] = 2
        assert a.sum() == (2 if shape == () else 4)
    else:
        with pytest.raises(IndexError):
            a[index]
        with pytest.raises(IndexError):
            a[index] = 2
        # the refusal leaves nothing behind for the next op
        same(np.floor_divide(np.asarray([[7, 8]]), np.asarray([2, 3])), [[3, 2]])


# ---- NumPy's ufunc surface on the namespace's functions ---------------------------

A23 = numpy.arange(1, 7, dtype=numpy.float64).reshape(2, 3)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and",
                                  "subtract"])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_ufunc_reduce_and_accumulate(name, axis):
    a = A23 if name != "logical_and" else A23 > 2
    ours, theirs = getattr(np, name), getattr(numpy, name)
    raises_like(lambda: theirs.reduce(a, axis=axis), lambda: ours.reduce(np.asarray(a), axis=axis))
    if axis is not None:
        same(ours.accumulate(np.asarray(a)[:, ::-1], axis=axis),
             theirs.accumulate(a[:, ::-1], axis=axis))


@pytest.mark.parametrize("name", ["add", "multiply", "power", "greater", "hypot"])
def test_ufunc_outer_and_attributes(name):
    ours, theirs = getattr(np, name), getattr(numpy, name)
    x, y = numpy.arange(3.0), numpy.array([[1.0], [2.0]])
    same(ours.outer(np.asarray(x), np.asarray(y)), theirs.outer(x, y))
    same(ours.outer([1.0, 2.0], [3, 4, 5]), theirs.outer([1.0, 2.0], [3, 4, 5]))
    for attr in ("identity", "nin", "nout", "nargs"):
        assert getattr(ours, attr) == getattr(theirs, attr)


def test_ufunc_reduce_of_lists_and_at():
    same(np.add.reduce([1, 2, 3]), numpy.add.reduce([1, 2, 3]))
    ours, theirs = np.zeros(4), numpy.zeros(4)
    np.add.at(ours, [0, 0, 3], 1.5)
    numpy.add.at(theirs, [0, 0, 3], 1.5)
    same(ours, theirs)


@pytest.mark.parametrize("call", [
    lambda m, a: m.add(a, 1, where=a > 2, out=m.zeros(a.shape)),
    lambda m, a: m.equal(a, a, dtype=bool),
    lambda m, a: m.ldexp(a, m.ones(a.shape, dtype="int32"), out=m.empty(a.shape)),
    lambda m, a: m.frexp(a, out=(m.empty(a.shape), m.empty(a.shape, dtype="int32")))[1],
    lambda m, a: m.multiply(a, 2, dtype="float32"),
])
def test_ufunc_keywords_on_namespace_functions(call):
    same(call(np, np.asarray(A23)), call(numpy, A23))


# ---- flatten / ravel with NumPy's order by position ----------------------------------

@pytest.mark.parametrize("order", ["C", "F", "A", "K", "f", "c"])
def test_flatten_and_ravel_order_by_position(order):
    a = numpy.arange(24).reshape(2, 3, 4)[:, ::2]
    t = np.asarray(a)
    same(t.flatten(order), a.flatten(order))
    same(t.ravel(order), a.ravel(order))
    same(t.ravel(order=order), a.ravel(order))
    if order == "K":  # NumPy: "order 'K' is not permitted for reshaping"
        with pytest.raises(ValueError):
            a.reshape(2, 8, order=order)
        with pytest.raises(ValueError):
            t.reshape(2, 8, order=order)
    else:
        same(t.reshape(2, 8, order=order), a.reshape(2, 8, order=order))
    f = numpy.arange(6).reshape(3, 2).T  # Fortran-contiguous: 'A' and 'K' read it in F order
    for how in ("A", "K"):
        same(np.asarray(f).ravel(how), f.ravel(how))
        same(np.asarray(f).flatten(how), f.flatten(how))
    same(t.copy(order), a.copy(order))
    assert tuple(t.flatten(0, 1).shape) == (4, 4)  # PyTorch's dims stay PyTorch's


# ---- dtype attributes, flags, memory order of *_like and array ----------------------

@pytest.mark.parametrize("name", ["bool", "uint8", "int16", "int64", "float16", "float32",
                                  "complex128"])
def test_dtype_has_numpys_attributes(name):
    ours, theirs = getattr(np, name), numpy.dtype(name)
    for attr in ("alignment", "byteorder", "isnative", "isbuiltin", "hasobject", "fields",
                 "names", "subdtype", "shape", "ndim", "str", "descr", "num", "flags",
                 "metadata", "isalignedstruct", "itemsize", "kind", "char"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.base is ours
    assert ours.newbyteorder() == theirs.newbyteorder()
    assert ours.newbyteorder("=") == theirs


def test_flags_compare_equal_by_value():
    a = np.ones((2, 3))
    assert a.flags == np.zeros((2, 3)).flags
    assert a.flags != a.T.flags
    assert (a.flags == numpy.ones((2, 3)).flags) is True


@pytest.mark.parametrize("like", ["empty_like", "zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("layout", ["C", "F", "slice"])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("shape", [None, (4, 5), (3, 4, 5)])
def test_like_functions_order_and_shape(like, layout, order, shape):
    proto = numpy.arange(24.0).reshape(4, 6, order="F" if layout == "F" else "C")
    if layout == "slice":
        proto = proto[:, ::2]
    args = (7,) if like == "full_like" else ()
    ours = getattr(np, like)(np.asarray(proto), *args, order=order, shape=shape)
    theirs = getattr(numpy, like)(proto, *args, order=order, shape=shape)
    assert tuple(ours.shape) == theirs.shape and ours.dtype == theirs.dtype
    if layout != "slice" or order in "CF":
        assert ours.flags.c_contiguous == theirs.flags.c_contiguous
        assert ours.flags.f_contiguous == theirs.flags.f_contiguous
    if like != "empty_like":
        same(ours, theirs)


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_array_order(order):
    data = [[1, 2, 3], [4, 5, 6]]
    ours, theirs = np.array(data, order=order), numpy.array(data, order=order)
    same(ours, theirs)
    assert ours.flags.f_contiguous == theirs.flags.f_contiguous
    with pytest.raises(ValueError):
        np.array(np.asarray(data), order="F", copy=False)


def test_moveaxis_takes_any_sequence_of_axes():
    x = numpy.zeros((1, 2, 3, 4))
    for source, destination in [(range(4), range(4)), (range(2), [3, 2]),
                                (numpy.array([0, 1]), (1, 0))]:
        same(np.moveaxis(np.asarray(x), source, destination),
             numpy.moveaxis(x, source, destination))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("indices,values", [([-1, 2, -7], [10, 20]), (3, 5.5), ([], [1]),
                                            ([[0], [1]], [7]), (numpy.array([1, 4]), [2, 3])])
def test_put_is_numpys(mode, layout, indices, values):
    theirs = numpy.arange(12.0).reshape(3, 4)
    ours = np.asarray(theirs.copy())
    if layout == "strided":
        theirs, ours = theirs[:, ::2], ours[:, ::2]
    try:
        expected = theirs.put(indices, values, mode=mode)
    except IndexError:
        with pytest.raises(IndexError):
            ours.put(indices, values, mode=mode)
        return
    assert ours.put(indices, values, mode=mode) is expected is None
    same(ours, theirs)
    if mode == "raise":
        np.put(ours, indices, values)
        numpy.put(theirs, indices, values)
        same(ours, theirs)


def test_put_keeps_pytorchs_spelling():
    x = torchlike.zeros(3)
    result = x.put(torchlike.tensor([1]), torchlike.tensor([5.0]))
    assert result.tolist() == [0.0, 5.0, 0.0] and x.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(IndexError):
        np.zeros((2, 0)).put(3, 1.0)


@pytest.mark.parametrize("data", [numpy.uint16(2), [numpy.uint32(3)], numpy.arange(3, dtype="u2"),
                                  numpy.uint64(5), numpy.array([1], dtype="u8")])
def test_asarray_of_unsigned_types_keeps_them(data):
    same(np.asarray(data), numpy.asarray(data))


@pytest.mark.parametrize("data", [[2**63], [2**64 - 1], [0, 2**64 - 1]])
def test_asarray_of_python_ints_past_int64_is_uint64_as_numpy(data):
    same(np.asarray(data), numpy.asarray(data))
    same(np.asarray([2**63 - 1, 0]), numpy.asarray([2**63 - 1, 0]))
    with pytest.raises(TypeError, match="object array"):  # NumPy's has no tensor dtype
        np.asarray([2**64])


@pytest.mark.parametrize("sep,fmt", [(",", "\N{MICRO SIGN}%.2f"), ("\N{MICRO SIGN}", "%.2f")])
def test_tofile_refuses_non_ascii_text(tmp_path, sep, fmt):
    x = np.asarray([1.5, 2.0])
    with open(tmp_path / "x.txt", "w") as f, pytest.raises(UnicodeEncodeError):
        x.tofile(f, sep=sep, format=fmt)
    x.tofile(tmp_path / "y.txt", sep=",", format="%.2f")
    assert (tmp_path / "y.txt").read_text() == "1.50,2.00"


@pytest.mark.parametrize("kwargs", [{"kind": "quicksort"}, {"kind": "stable"}, {"axis": 0},
                                    {"axis": -1, "kind": "mergesort"}, {"axis": None}])
def test_sort_method_with_numpys_keywords_sorts_in_place(kwargs):
    theirs = numpy.array([[3, 1, 2], [0, 5, -1]])[:, ::-1].copy()
    ours = np.asarray(theirs.copy())
    if kwargs.get("axis", 0) is None:  # NumPy's method refuses axis=None
        with pytest.raises(Exception):
            theirs.sort(**kwargs)
        return
    assert ours.sort(**kwargs) is theirs.sort(**kwargs) is None
    same(ours, theirs)
    values, indices = torchlike.tensor([3.0, 1.0]).sort()  # PyTorch's spelling stays
    assert values.tolist() == [1.0, 3.0] and indices.tolist() == [1, 0]


@pytest.mark.parametrize("make", ["zeros", "ones", "empty"])
def test_creation_shape_from_0d_arrays(make):
    for shape in (numpy.array(3), np.asarray(3), numpy.int64(2), [np.asarray(2), 3]):
        theirs = getattr(numpy, make)(numpy.asarray(shape).tolist() if isinstance(shape, list)
                                      else int(shape))
        assert tuple(getattr(np, make)(shape).shape) == theirs.shape
    with pytest.raises(TypeError):
        getattr(np, make)(2.5)


class _Huge(tuple):
    """A sequence that claims more arrays than a join takes (NumPy's limit is a
    C int), without the 16 GB a real one would need."""

    def __len__(self):
        return 2**31


@pytest.mark.parametrize("name", ["concatenate", "stack", "hstack", "vstack"])
def test_join_of_too_many_arrays_is_a_value_error_before_any_list_is_made(name):
    with pytest.raises(ValueError, match=rf"{name}\(\) only supports up to 2147483647 arrays "
                                         rf"but got 2147483648\."):
        getattr(np, name)(_Huge((np.asarray([1]),)))
