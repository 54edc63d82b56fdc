"""torchlike.numpy: the NumPy names beyond functions on arrays -- the abstract
scalar types and issubdtype, np.dtype, the index tricks (r_, c_, mgrid, ogrid,
ndenumerate ...), errstate, vectorize, broadcast, emath, testing, polynomial --
each checked against NumPy itself: the same values, dtypes and shapes (0-d and
empty included), NumPy's exception types.  Results NumPy returns as arrays are
tensors on the default device (the device suites run this file with a device
as the default)."""
import re

import numpy
import pytest

import torchlike as tl
import torchlike.numpy as np

DEFAULT = tl.empty(0).device
# torchlike's dtypes NumPy also has, by name (bfloat16 is checked on its own)
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]


def host(t):
    """A tensor's values as an ndarray (read through a copy to the CPU)."""
    assert isinstance(t, tl.Tensor), type(t)
    return t.detach().cpu().numpy()


def same(got, want):
    """``got`` is a tensor on the default device equal to ndarray ``want``:
    values (NaN where NaN), dtype and shape."""
    want = numpy.asarray(want)
    assert isinstance(got, tl.Tensor), type(got)
    assert got.device == DEFAULT
    got = host(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                  want.dtype, want.shape)
    numpy.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------
# the scalar type hierarchy, np.dtype, issubdtype

ABSTRACT = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
            "floating", "complexfloating", "flexible", "character"]


def test_abstract_types_are_numpys_classes():
    for name in ABSTRACT:
        assert getattr(np, name) is getattr(numpy, name)


@pytest.mark.parametrize("name", NAMES)
def test_issubdtype_answers_as_numpy_for_every_spelling_and_abstract_type(name):
    spellings = [getattr(np, name) if name != "bool" else np.bool_, np.asarray(
        numpy.zeros(2, name)).dtype, numpy.dtype(name), numpy.dtype(name).type, name]
    for other in ABSTRACT:
        want = numpy.issubdtype(numpy.dtype(name), getattr(numpy, other))
        for s in spellings:
            assert np.issubdtype(s, getattr(np, other)) is want, (s, other)
        # issubclass on the dtype's scalar type, as NumPy code also writes it
        assert issubclass(np.asarray(numpy.zeros(1, name)).dtype.type,
                          getattr(np, other)) == want
    for concrete in NAMES:  # concrete against concrete: equal or not
        want = numpy.issubdtype(numpy.dtype(name), numpy.dtype(concrete).type)
        for s in spellings:
            assert np.issubdtype(s, getattr(np, concrete)) == want
            assert np.issubdtype(s, numpy.dtype(concrete).type) == want


def test_issubdtype_of_python_types_and_codes():
    for a, b in [(float, np.floating), ("f4", "f"), (np.float64, float), (int, np.integer),
                 (np.int32, int), (complex, np.complexfloating), (bool, np.number),
                 (np.float32, np.float64), (np.uint8, np.signedinteger)]:
        want = numpy.issubdtype(numpy.dtype(a) if isinstance(a, tl.dtype) else a,
                                numpy.dtype(b).type if isinstance(b, tl.dtype) else b)
        assert np.issubdtype(a, b) == want, (a, b)
    with pytest.raises(TypeError):
        np.issubdtype(np.float32, "not a dtype")
    with pytest.raises(TypeError):
        numpy.issubdtype(numpy.float32, "not a dtype")


def test_bfloat16_is_a_floating_type_of_its_own():
    for other in ABSTRACT:
        assert np.issubdtype(np.bfloat16, getattr(np, other)) == (
            other in ("generic", "number", "inexact", "floating"))
    assert np.issubdtype(np.bfloat16, np.bfloat16) and np.issubdtype("bfloat16", np.bfloat16)
    assert not np.issubdtype(np.bfloat16, np.float32)
    assert not np.issubdtype(np.float32, np.bfloat16)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_type_compares_to_the_namespace_scalar_types(name):
    t = np.asarray(numpy.zeros(2, name))
    ours = np.bool_ if name == "bool" else getattr(np, name)
    assert t.dtype.type == ours and t.dtype.type is numpy.dtype(name).type
    assert t.dtype.type in (ours,)
    assert isinstance(t.dtype, np.dtype) and isinstance(numpy.dtype(name), np.dtype)


def test_np_dtype_gives_the_torchlike_dtype():
    for spelling in ["float32", "f4", numpy.float32, numpy.dtype("float32"), np.float32,
                     "<f4"]:
        d = np.dtype(spelling)
        assert d is tl.float32 and d == numpy.dtype("float32") and d == "float32"
    assert np.dtype(None) is tl.float64 and numpy.dtype(None) == numpy.float64
    assert np.dtype(float) is tl.float64 and np.dtype(int) is tl.int64
    assert np.dtype(complex) is tl.complex128 and np.dtype(bool) is tl.bool
    assert np.dtype("bfloat16") is tl.bfloat16
    z = np.zeros(3, dtype=np.dtype("int16"))
    assert z.dtype == tl.int16 and z.device == DEFAULT
    assert np.dtype("f8").itemsize == numpy.dtype("f8").itemsize
    assert np.dtype("c8").kind == numpy.dtype("c8").kind
    assert np.dtype("i2").char == numpy.dtype("i2").char
    for bad in ["not a dtype", 3.5]:
        with pytest.raises(TypeError):
            numpy.dtype(bad)
        with pytest.raises(TypeError):
            np.dtype(bad)
    with pytest.raises(TypeError, match="no dtype float128"):
        np.dtype("longdouble")  # NumPy has it; torchlike does not
    assert np.dtype("uint16") is tl.uint16 and np.dtype(numpy.uint64) is tl.uint64
    with pytest.raises(TypeError):
        np.dtype(np.zeros(3))
    assert np.dtype[np.float64] is not None  # annotations


def test_tables():
    assert np.long is tl.int64 and numpy.dtype(numpy.long) == numpy.int64
    assert np.little_endian is numpy.little_endian
    for kind, codes in np.typecodes.items():
        assert set(codes) <= set(numpy.typecodes[kind])
        for c in codes:
            assert np.dtype(c) == numpy.dtype(c)
    assert np.typecodes["AllFloat"] == "efdFD" and "B" in np.typecodes["AllInteger"]
    for name, d in np.sctypeDict.items():
        assert isinstance(d, tl.dtype)
        if name != "bfloat16":
            assert d == numpy.dtype(numpy.sctypeDict[name])
    assert np.sctypeDict["float32"] is np.float32 and np.sctypeDict["bfloat16"] is np.bfloat16
    assert set(np.ScalarType) <= set(numpy.ScalarType)
    assert int in np.ScalarType and numpy.float32 in np.ScalarType
    assert numpy.uint16 in np.ScalarType and numpy.longdouble not in np.ScalarType


def test_the_numpy_names_not_provided_are_the_documented_ones():
    missing = {n for n in dir(numpy) if not n.startswith("_") and not hasattr(np, n)}
    with open(__file__.replace("tests/test_numpy_namespace_more.py", "docs/numpy.md")) as f:
        table = f.read().split("Not provided, and why:")[1].split("\n\n")[1]
    documented = {w.removeprefix("np.") for row in table.splitlines()[2:]
                  for code in re.findall(r"`([^`]+)`", row.split("|")[1]) for w in code.split()}
    assert missing <= documented, missing - documented
    assert np.True_ is numpy.True_ and np.exceptions is numpy.exceptions


def test_non_dispatching_numpy_functions_take_their_arguments_as_they_are():
    assert np.isscalar(3.0) and not np.isscalar([3.0])
    assert np.isscalar(numpy.float32(1)) == numpy.isscalar(numpy.float32(1))
    assert np.mintypecode("fd") == numpy.mintypecode("fd")
    path = np.einsum_path("ij,jk", np.ones((2, 2)), np.ones((2, 2)))
    assert path[0] == numpy.einsum_path("ij,jk", numpy.ones((2, 2)), numpy.ones((2, 2)))[0]


def test_arrays_numpy_builds_from_no_array_are_tensors_on_the_default_device():
    import io
    for call in [lambda xp: xp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
                 lambda xp: xp.fromfunction(lambda i: i, (0,), dtype=int),
                 lambda xp: xp.indices((2, 3)), lambda xp: xp.indices((0,)),
                 lambda xp: xp.fromiter(iter([1, 2]), dtype=float),
                 lambda xp: xp.loadtxt(io.StringIO("1 2\n3 4")),
                 lambda xp: xp.diag_indices(3), lambda xp: xp.mask_indices(3, numpy.triu)]:
        want, got = call(numpy), call(np)
        if isinstance(want, tuple):
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                same(g, w)
        else:
            same(got, want)
    strings = np.loadtxt(io.StringIO("a b"), dtype=str)  # no such dtype: NumPy's array
    assert isinstance(strings, numpy.ndarray) and strings.tolist() == ["a", "b"]


@pytest.mark.host_only  # np.savetxt and apply_along_axis run NumPy on host views
def test_first_arguments_that_are_no_array_data_go_as_they_are():
    import io
    f = io.StringIO()
    np.savetxt(f, np.asarray([1.5, 2.0]))
    assert f.getvalue() == "1.500000000000000000e+00\n2.000000000000000000e+00\n"
    got = np.apply_along_axis(lambda r: r[0] + r[-1], 1, np.asarray(A))
    same(got, numpy.apply_along_axis(lambda r: r[0] + r[-1], 1, A))


# ---------------------------------------------------------------------------
# index tricks

X = numpy.arange(3, dtype=numpy.float32)
X8 = numpy.arange(3, dtype=numpy.int8)
CONCAT = ["r_[1, 2, 3]", "r_[0:5]", "r_[0:1:5j]", "r_[5:0:-2]", "r_[-1:1:6j, [0] * 3, 5, 6]",
          "r_['0,2', [1, 2, 3], [4, 5, 6]]", "r_['0,2,0', [1, 2, 3], [4, 5, 6]]",
          "r_['1,2,0', [1, 2, 3], [4, 5, 6]]", "r_['-1,3,1', [1, 2], [3, 4]]",
          "r_['1', [[1, 2]], [[3, 4]]]", "c_[[1, 2, 3], [4, 5, 6]]",
          "c_[[[1, 2, 3]], 0, 0, [[4, 5, 6]]]", "c_[0:3, 0:3]", "c_[X, X8]",
          "r_['r', [1, 2, 3], [4, 5, 6]]", "r_['c', [1, 2, 3], [4, 5, 6]]",
          "r_[1.5, 2]", "r_[True, False]", "r_[numpy.float32(1), 2.5]", "r_[X, 1.5]",
          "r_[X, 2]", "r_[-1, X]", "r_[X8, 3]", "r_[X8, 2.5]", "r_[X8, X]", "r_[[]]",
          "r_[0:0]", "r_[X[:0], X8]", "r_[1j, X]", "r_[3]"]


@pytest.mark.parametrize("expr", CONCAT)
@pytest.mark.filterwarnings("ignore:the matrix subclass")  # NumPy's 'r'/'c' results
def test_r_c_as_numpy(expr):
    want = eval("numpy." + expr)
    got = eval("np." + expr, {"np": np, "numpy": numpy, "X": np.asarray(X),
                              "X8": np.asarray(X8)})
    same(got, want)


def test_r_on_device_tensors_keeps_their_device_and_records():
    x = np.asarray([1.0, 2.0], dtype=np.float64)
    x.requires_grad_(True)
    y = np.r_[x, 0.0, x * 2]
    assert y.device == x.device and y.requires_grad
    y.sum().backward()
    numpy.testing.assert_array_equal(host(x.grad), [3.0, 3.0])


def test_r_on_a_device_tensor_copies_lists_and_refuses_ndarrays():
    x = np.asarray([1.0, 2.0])
    same(np.r_[x, [3.0], 4], numpy.array([1.0, 2.0, 3.0, 4.0]))
    if x.device.type != "cpu":  # NumPy spellings do not copy host arrays implicitly
        with pytest.raises(TypeError, match="host memory"):
            np.r_[x, numpy.array([3.0])]
    else:
        same(np.r_[x, numpy.array([3.0])], numpy.array([1.0, 2.0, 3.0]))


def test_r_c_errors_as_numpy():
    for expr, error in [("r_[1, 'r']", ValueError), ("r_['foo', 1]", ValueError),
                        ("r_['0,x', 1]", ValueError), ("r_[X8, 300]", OverflowError),
                        ("r_[[[1]], [1]]", ValueError)]:
        with pytest.raises(error):
            eval("numpy." + expr)
        with pytest.raises(error):
            eval("np." + expr, {"np": np, "numpy": numpy, "X8": np.asarray(X8)})
    with pytest.raises(NotImplementedError, match="matrix"):
        np.r_["1 2; 3 4"]
    assert len(np.r_) == len(numpy.r_) == 0


GRIDS = ["mgrid[0:5]", "mgrid[0:5, 0:3]", "mgrid[-1:1:5j]", "mgrid[-1:1:5j, 0:3:0.5]",
         "mgrid[0:4:3j, 0:2]", "mgrid[0:0]", "mgrid[0:3, 0:0]", "mgrid[1:2:1j]",
         "mgrid[0.5:3]", "mgrid[0:10:3]", "mgrid[3:0:-1]", "mgrid[0:1:0.25, 0:1:3j]",
         "ogrid[0:5]", "ogrid[0:5, 0:3]", "ogrid[-1:1:5j, 0:3:0.5]", "ogrid[0:0, 0:2]",
         "ogrid[0:3j]"]


@pytest.mark.parametrize("expr", GRIDS)
def test_mgrid_ogrid_as_numpy(expr):
    want = eval("numpy." + expr)
    got = eval("np." + expr)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        same(got, want)


def test_mgrid_takes_0d_tensor_bounds():
    same(np.mgrid[0:np.asarray(4)], numpy.mgrid[0:4])


def test_s_index_exp_ndindex_are_numpys():
    assert np.s_[1:3, ::2] == numpy.s_[1:3, ::2]
    assert np.index_exp[2] == numpy.index_exp[2] == (2,)
    assert list(np.ndindex(2, 3)) == list(numpy.ndindex(2, 3))
    assert list(np.ndindex(())) == list(numpy.ndindex(())) == [()]
    t = np.arange(12).reshape(3, 4)
    numpy.testing.assert_array_equal(host(t[np.s_[1:, ::2]]), numpy.arange(12).reshape(
        3, 4)[1:, ::2])


@pytest.mark.parametrize("a", [numpy.arange(6).reshape(2, 3), numpy.float32(2.5) * numpy.ones(
    (2, 2), numpy.float32), numpy.array(3.5), numpy.zeros((0, 2)), numpy.array([True, False]),
    numpy.array([1 + 2j], numpy.complex64)])
def test_ndenumerate_as_numpy(a):
    got = list(np.ndenumerate(np.asarray(a)))
    want = list(numpy.ndenumerate(a))
    assert got == want
    assert [type(v) for _, v in got] == [type(v) for _, v in want]


# ---------------------------------------------------------------------------
# floating-point errors: NumPy's errstate; torchlike ops never warn

def test_errstate_seterr_geterr_are_numpys_and_agree():
    assert np.errstate is numpy.errstate and np.seterr is numpy.seterr
    assert np.geterr() == numpy.geterr()
    with np.errstate(divide="ignore", invalid="raise"):
        assert np.geterr()["divide"] == "ignore" and numpy.geterr()["invalid"] == "raise"
    assert np.geterr() == numpy.geterr()
    old = np.seterr(over="raise")
    try:
        assert numpy.geterr()["over"] == "raise"
    finally:
        np.seterr(**old)
    assert np.geterr() == old

    @np.errstate(all="ignore")
    def quiet():
        return np.geterr()
    assert set(quiet().values()) == {"ignore"}


def test_torchlike_ops_never_warn_on_float_errors(recwarn):
    x = np.asarray([1.0, 0.0, -1.0])
    with np.errstate(all="warn"):
        got = [x / 0, np.log(x), np.sqrt(x), np.divide(x, 0.0), np.exp(x * 1e308)]
    with np.errstate(all="raise"):  # nothing to raise either: the values are NumPy's
        raised = [x / 0, np.log(x)]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with numpy.errstate(all="ignore"):
        a = numpy.asarray([1.0, 0.0, -1.0])
        want = [a / 0, numpy.log(a), numpy.sqrt(a), numpy.divide(a, 0.0), numpy.exp(a * 1e308)]
    for g, w in zip(got + raised, want + want[:2]):
        same(g, w)


def test_errstate_governs_numpys_own_scalars():
    with np.errstate(divide="raise"):  # np.float64(1.0) is NumPy's scalar
        with pytest.raises(FloatingPointError):
            np.float64(1.0) / np.float64(0.0)


# ---------------------------------------------------------------------------
# vectorize, broadcast

def test_vectorize_as_numpy():
    def f(a, b=1):
        return a * b + 1 if a > 0 else a - b
    a = numpy.array([[-1.5, 2.0], [0.0, 3.5]])
    same(np.vectorize(f)(np.asarray(a), 2), numpy.vectorize(f)(a, 2))
    same(np.vectorize(f)(3), numpy.vectorize(f)(3))  # 0-d
    same(np.vectorize(f)([1, -2]), numpy.vectorize(f)([1, -2]))  # int64
    for otypes in ([np.float32], [numpy.float32], "f"):
        same(np.vectorize(f, otypes=otypes)(np.asarray(a)), numpy.vectorize(
            f, otypes=[numpy.float32])(a))
    same(np.vectorize(f, otypes=[float])(np.zeros(0)), numpy.vectorize(f, otypes=[float])(
        numpy.zeros(0)))
    with pytest.raises(ValueError, match="size 0"):
        np.vectorize(f)(np.zeros(0))
    # excluded: the argument reaches the function as it is
    def g(x, table):
        assert isinstance(table, tl.Tensor)
        return float(table[int(x)])
    table = np.asarray([10.0, 20.0, 30.0])
    same(np.vectorize(g, excluded={1})(np.asarray([2, 0]), table), numpy.array([30.0, 10.0]))
    same(np.vectorize(g, excluded={"table"})([1], table=table), numpy.array([20.0]))
    # signature: core dimensions
    want = numpy.vectorize(numpy.convolve, signature="(n),(m)->(k)")(
        numpy.eye(3), [1.0, 2.0])
    got = np.vectorize(numpy.convolve, signature="(n),(m)->(k)")(np.eye(3), [1.0, 2.0])
    same(got, want)
    # two outputs, and the decorator form
    pair = np.vectorize(lambda x: (x, x * 2))(np.asarray([1, 2]))
    for g_, w in zip(pair, numpy.vectorize(lambda x: (x, x * 2))(numpy.array([1, 2]))):
        same(g_, w)

    @np.vectorize(otypes=[np.float64])
    def h(x):
        return x / 2
    same(h(np.asarray([1, 3])), numpy.array([0.5, 1.5]))


def test_vectorize_refuses_a_tensor_that_requires_grad():
    x = np.asarray([1.0, 2.0])
    x.requires_grad_(True)
    with pytest.raises(TypeError, match="requires grad"):
        np.vectorize(lambda v: v + 1)(x)
    with tl.no_grad():
        same(np.vectorize(lambda v: v + 1)(x), numpy.array([2.0, 3.0]))


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [(4,)], [], [(2, 0), (1,)], [(), ()],
                                    [(3, 1, 2), (1, 4, 1), (2,)]])
def test_broadcast_as_numpy(shapes):
    arrays = [numpy.arange(numpy.prod(s), dtype=numpy.float32 if i else numpy.int64
                           ).reshape(s) for i, s in enumerate(shapes)]
    want = numpy.broadcast(*arrays)
    got = np.broadcast(*[np.asarray(a) for a in arrays])
    for attr in ("shape", "nd", "ndim", "size", "numiter", "index"):
        assert getattr(got, attr) == getattr(want, attr), attr
    if shapes:
        items, want_items = list(got), list(want)
        assert items == want_items
        assert [[type(v) for v in i] for i in items] == [[type(v) for v in i]
                                                           for i in want_items]
        got.reset()
        assert got.index == 0
        if items:
            next(got)
            assert got.index == 1
        assert len(got.iters) == len(shapes)


def test_broadcast_mismatch_is_numpys_value_error():
    for shapes in [[(2,), (3,)], [(1,), (2, 3), (4, 3)]]:
        args = [numpy.zeros(s) for s in shapes]
        with pytest.raises(ValueError) as want:
            numpy.broadcast(*args)
        with pytest.raises(ValueError) as got:
            np.broadcast(*[np.asarray(a) for a in args])
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="at most 64"):
        np.broadcast(*[np.zeros(1)] * 65)
    assert np.broadcast(*[np.zeros(1)] * 64).numiter == 64


# ---------------------------------------------------------------------------
# emath, polynomial, testing

EMATH = [("sqrt", (numpy.array([-4.0, 0.0, 4.0]),)), ("log", (numpy.array([-1.0, 2.0]),)),
         ("log2", (numpy.array([-8.0, 8.0]),)), ("log10", (numpy.array([-100.0, 1.0]),)),
         ("logn", (2, numpy.array([-4.0, 4.0]))), ("power", (numpy.array([-4.0, 4.0]), 0.5)),
         ("arccos", (numpy.array([-2.0, 0.5]),)), ("arcsin", (numpy.array([2.0, 0.5]),)),
         ("arctanh", (numpy.array([0.5, -0.25]),)), ("sqrt", (numpy.array([4.0, 9.0]),)),
         ("sqrt", (numpy.array([-4.0, 4.0], numpy.float32),)), ("sqrt", (numpy.zeros(0),)),
         ("log", (numpy.array(-1.0),))]


@pytest.mark.parametrize("name,args", EMATH, ids=[e[0] for e in EMATH])
def test_emath_as_numpy(name, args):
    want = getattr(numpy.emath, name)(*args)
    got = getattr(np.emath, name)(*[np.asarray(a) if isinstance(a, numpy.ndarray) else a
                                    for a in args])
    want = numpy.asarray(want)
    assert got.device == DEFAULT and host(got).dtype == want.dtype
    numpy.testing.assert_allclose(host(got), want, rtol=1e-6)


def test_emath_of_python_scalars_is_a_0d_tensor():
    got = np.emath.sqrt(-1)
    assert isinstance(got, tl.Tensor) and got.ndim == 0 and complex(got.cpu()) == 1j


def test_polynomial_evaluation_takes_tensors():
    x = numpy.array([-1.0, 0.5, 2.0])
    c = [1.0, -2.0, 3.0]
    for ours, theirs in [(np.polynomial.polynomial.polyval, numpy.polynomial.polynomial.polyval),
                         (np.polynomial.chebyshev.chebval, numpy.polynomial.chebyshev.chebval),
                         (np.polynomial.legendre.legval, numpy.polynomial.legendre.legval),
                         (np.polynomial.hermite.hermval, numpy.polynomial.hermite.hermval),
                         (np.polynomial.laguerre.lagval, numpy.polynomial.laguerre.lagval)]:
        got = ours(np.asarray(x), c)
        assert got.device == DEFAULT
        numpy.testing.assert_allclose(host(got), theirs(x, c))
    got = np.poly1d(c)(np.asarray(x))
    assert isinstance(got, tl.Tensor) and got.device == DEFAULT
    numpy.testing.assert_allclose(host(got), numpy.poly1d(c)(x))
    numpy.testing.assert_allclose(host(np.polyval(c, np.asarray(x))), numpy.polyval(c, x))
    assert np.poly1d is numpy.poly1d
    # the series classes are NumPy's, called on tensors as on ndarrays
    assert issubclass(np.polynomial.Polynomial, numpy.polynomial.Polynomial)
    got = np.polynomial.Polynomial(c[::-1])(np.asarray(x))
    assert isinstance(got, tl.Tensor) and got.device == DEFAULT
    numpy.testing.assert_allclose(host(got), numpy.polynomial.Polynomial(c[::-1])(x))
    # fits of tensor samples run on their device: NumPy's fit, wrapped
    assert np.polynomial.chebyshev.chebfit.__wrapped__ is numpy.polynomial.chebyshev.chebfit
    # and the Vandermonde matrices of tensor points (tests/test_numpy_programs8.py)
    assert np.polynomial.chebyshev.chebvander.__wrapped__ is numpy.polynomial.chebyshev.chebvander


def test_testing_assertions_accept_tensors_on_any_device():
    t = np.asarray([1.0, 2.0, numpy.nan])
    np.testing.assert_allclose(t, [1.0, 2.0, numpy.nan])
    np.testing.assert_array_equal(t, t)
    np.testing.assert_equal({"a": t, "b": [t, 3]}, {"a": t, "b": [t, 3]})
    np.testing.assert_array_less(t[:2], 3)
    np.testing.assert_almost_equal(np.asarray(1.0), 1.0 + 1e-9)
    np.testing.assert_allclose(np.asarray([1.0], dtype=np.bfloat16), [1.0])
    for check, args in [(np.testing.assert_allclose, (t, [1.0, 2.5, numpy.nan])),
                        (np.testing.assert_array_equal, (t[:2], [1.0, 3.0])),
                        (np.testing.assert_equal, (t[:2], t[1:]))]:
        with pytest.raises(AssertionError, match="Mismatch|not equal"):
            check(*args)
    assert np.testing.assert_raises is numpy.testing.assert_raises
    with np.testing.assert_raises(ZeroDivisionError):
        1 / 0


# ---------------------------------------------------------------------------
# ndarray attributes on tensors

# ndarray attributes a tensor does not have, each for a reason given in docs/numpy.md
NOT_PROVIDED = {"__array_finalize__", "__array_interface__", "__array_struct__",
                "__array_wrap__", "__copy__", "__imatmul__", "__setstate__", "ctypes"}


def test_the_ndarray_attributes_a_tensor_lacks_are_the_documented_ones():
    assert set(dir(numpy.zeros(3))) - set(dir(np.zeros(3))) == NOT_PROVIDED
    with open(__file__.replace("tests/test_numpy_namespace_more.py", "docs/numpy.md")) as f:
        doc = f.read()
    for name in NOT_PROVIDED:
        assert f"`{name}`" in doc, name


A = numpy.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("cond,axis", [([True, False, True], 0), ([0, 1, 1, 0], 1),
                                       ([1, 0, 1], None), ([True], 0), ([], 1),
                                       ([False, True, False, False], -1)])
def test_compress_as_numpy(cond, axis):
    same(np.asarray(A).compress(cond, axis=axis), A.compress(cond, axis=axis))
    same(numpy.compress(cond, np.asarray(A), axis=axis), numpy.compress(cond, A, axis=axis))
    same(np.compress(np.asarray(numpy.array(cond, bool)), np.asarray(A), axis=axis),
         numpy.compress(cond, A, axis=axis))


def test_compress_errors_as_numpy():
    for cond, axis, error in [([0, 0, 0, 1], 0, IndexError), ([[1]], 0, ValueError),
                              ([1], 2, numpy.exceptions.AxisError)]:
        with pytest.raises(error) as want:
            numpy.compress(cond, A, axis=axis)
        with pytest.raises(error) as got:
            np.asarray(A).compress(cond, axis=axis)
        if error is not ValueError:
            assert str(got.value) == str(want.value)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_as_numpy(mode):
    choices = [[0, 1, 2, 3], [10, 11, 12, 13], [20.5, 21.5, 22.5, 23.5]]
    for idx in [[2, 0, 1, 0], [[0], [2]], 1, numpy.zeros((0, 4), numpy.int64)]:
        want = numpy.choose(idx, choices, mode=mode)
        same(numpy.choose(np.asarray(numpy.asarray(idx)), choices, mode=mode), want)
        same(np.choose(np.asarray(numpy.asarray(idx)), [np.asarray(numpy.asarray(c))
                                                        for c in choices], mode=mode), want)
    for idx in [[3, -1, 5, 0]]:
        if mode == "raise":
            with pytest.raises(ValueError, match="invalid entry"):
                numpy.choose(idx, choices, mode=mode)
            with pytest.raises(ValueError, match="invalid entry"):
                np.asarray(idx).choose(choices, mode=mode)
        else:
            same(np.asarray(idx).choose(choices, mode=mode),
                 numpy.choose(idx, choices, mode=mode))
    with pytest.raises(TypeError):
        np.asarray([0.5]).choose(choices)


def test_take_and_searchsorted_read_index_arrays_as_numpy():
    # take casts an index array by 'same_kind': a float or complex array is
    # NumPy's TypeError (Python floats, alone or in a list, are truncated)
    x = numpy.arange(10, 16)
    for idx in (numpy.array([1.0]), numpy.array([1], dtype=numpy.float32), numpy.array([1j])):
        for mode in ("raise", "wrap"):
            with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
                numpy.take(x, idx, mode=mode)
            with pytest.raises(TypeError, match=f"dtype\\('{idx.dtype}'\\) to dtype\\('int64'\\)"):
                np.take(np.asarray(x), np.asarray(idx), mode=mode)
    for idx in (2.0, [1.5, 3], numpy.array([True, False]), numpy.array([1], dtype=numpy.uint8)):
        same(np.take(np.asarray(x), np.asarray(idx) if isinstance(idx, numpy.ndarray) else idx),
             numpy.take(x, idx))
    same(np.asarray(x).take(np.asarray([1, 2], dtype=np.int16), axis=0), x.take([1, 2], axis=0))
    # searchsorted's sorter may be of any integer dtype; a float one is refused
    hay = numpy.array([5, 1, 4, 1, 3])
    for dtype in (numpy.int8, numpy.int32, numpy.uint8, numpy.int64):
        order = numpy.argsort(hay, kind="stable").astype(dtype)
        for side in ("left", "right"):
            same(np.searchsorted(np.asarray(hay), [1, 3, 6], side=side, sorter=np.asarray(order)),
                 numpy.searchsorted(hay, [1, 3, 6], side=side, sorter=order))
            same(np.asarray(hay).searchsorted(4, side, sorter=np.asarray(order)),
                 hay.searchsorted(4, side, sorter=order))
    for sorter in ([0.0, 1.0, 2.0, 3.0, 4.0], numpy.arange(5.0)):
        with pytest.raises(TypeError, match="sorter must only contain integers"):
            numpy.searchsorted(hay, 2, sorter=sorter)
        with pytest.raises(TypeError, match="sorter must only contain integers"):
            np.searchsorted(np.asarray(hay), 2, sorter=np.asarray(sorter))


def test_choose_records_the_chosen_values():
    a, b = np.asarray([1.0, 2.0, 3.0]), np.asarray([10.0, 20.0, 30.0])
    a.requires_grad_(True)
    np.asarray([0, 1, 0]).choose([a, b]).sum().backward()
    numpy.testing.assert_array_equal(host(a.grad), [1.0, 0.0, 1.0])


def test_partition_methods_as_numpy():
    x = numpy.array([5.0, 1.0, 4.0, 2.0, 3.0, 0.5])
    for kth in [0, 3, -1, (1, 4)]:
        want = x.copy()
        want.partition(kth)
        t = np.asarray(x.copy())
        assert t.partition(kth) is None
        got = host(t)
        for k in numpy.atleast_1d(kth):  # NumPy leaves each side's order open
            assert got[k] == want[k]
            assert (got[:k] <= got[k]).all() and (got[k:] >= got[k]).all()
        order = host(np.asarray(x).argpartition(kth))
        assert x[order][numpy.atleast_1d(kth)].tolist() == want[numpy.atleast_1d(kth)].tolist()
    with pytest.raises(ValueError):
        np.asarray(x).argpartition(6)


def test_sort_and_partition_read_kind_and_kth_as_numpy():
    # a kind is read by its first letter in either case (every sort here is
    # stable, which each kind allows); others are NumPy's errors, not ignored
    x = numpy.array([3, 1, 2, 1])
    for kind in ("quicksort", "Heap", "s", "mergesort", "STABLE"):
        same(np.sort(np.asarray(x), kind=kind), numpy.sort(x, kind=kind))
        same(np.asarray(x).argsort(kind=kind), numpy.argsort(x, kind="stable"))
    for kind, exc, words in [("timsort", ValueError, "sort kind must be one of"),
                             ("", ValueError, "sort kind must be one of"),
                             (3, TypeError, "sort kind must be str, not int")]:
        with pytest.raises(exc, match=words):
            numpy.sort(x, kind=kind)
        with pytest.raises(exc, match=words):
            np.sort(np.asarray(x), kind=kind)
        with pytest.raises(exc, match=words):
            np.asarray(x).sort(kind=kind)
        with pytest.raises(exc, match=words):
            np.argsort(np.asarray(x), kind=kind)
    # partition's only kind is introselect; kth an integer scalar or 1-d
    # sequence of them (an empty list is a float array to NumPy), checked
    # before an empty array returns
    for a, kth, kind, exc, words in [
            (x, 1, "quick", ValueError, "select kind must be 'introselect'"),
            (x, 1, None, TypeError, "select kind must be str"),
            (x, [], "introselect", TypeError, "Partition index must be integer"),
            (x, [1.0], "introselect", TypeError, "Partition index must be integer"),
            (x, 2.0, "introselect", TypeError, "Partition index must be integer"),
            (x, [True], "introselect", ValueError, "Booleans unacceptable"),
            (numpy.zeros(0), [], "introselect", TypeError, "Partition index must be integer")]:
        for fn in (numpy.partition, numpy.argpartition):
            with pytest.raises(exc, match=words):
                fn(a, kth, kind=kind)
        for fn in (np.partition, np.argpartition):
            with pytest.raises(exc, match=words):
                fn(np.asarray(a), kth, kind=kind)
    # kth as an integer array, a tuple, a NumPy integer or a 0-d tensor
    for kth in (numpy.array([1, 3]), (2,), numpy.int8(1), np.asarray(2),
                [np.asarray(1), 3], (np.asarray([3, 0]).max(),)):
        plain = kth.tolist() if isinstance(kth, tl.Tensor) else \
            [int(k) for k in kth] if isinstance(kth, (list, tuple)) else kth
        k = numpy.atleast_1d(numpy.asarray(plain))
        same(np.partition(np.asarray(x), kth)[k], numpy.partition(x, k)[k])
    assert np.partition(np.zeros(0), 5).shape == (0,)  # bounds are not checked when empty


def test_conjugate_divmod_contains_class_getitem():
    c = numpy.array([1 + 2j, -3j])
    same(np.asarray(c).conjugate(), c.conjugate())
    same(np.asarray(A).conjugate(), A.conjugate())
    for x, y in [(A, 5), (-A, 4.0), (7, numpy.array([2, -3]))]:
        tx = np.asarray(x) if isinstance(x, numpy.ndarray) else x
        ty = np.asarray(y) if isinstance(y, numpy.ndarray) else y
        for g, w in zip(divmod(tx, ty), divmod(x, y)):
            same(g, w)
    t = np.asarray(A)
    assert (5.0 in t) and (5 in t) and (np.asarray(7.0) in t) and (100 not in t)
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in t
    assert np.ndarray[int] is not None and tl.Tensor[int].__origin__ is tl.Tensor


def test_numpy_fallback_wrapper_is_built_once():
    # a NumPy function reached through the module __getattr__ is wrapped once
    # and kept, so a loop calling it does not rebuild the wrapper each time
    first = np.polyval
    assert np.polyval is first
    assert first.__wrapped__ is numpy.polyval
    numpy.testing.assert_allclose(first([1.0, 2.0], np.asarray([3.0])).cpu().numpy(), [5.0])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64", "bool"])
def test_reciprocal_of_integers_is_numpys(dtype):
    """NumPy's reciprocal keeps integers integer (bool gives int8) and warns
    of a zero, through both spellings; PyTorch's (tl.reciprocal) gives
    floats."""
    import warnings
    a = numpy.array([1, 2, 3, 1, 5], dtype=dtype) if dtype != "bool" else \
        numpy.array([True, True])
    want = numpy.reciprocal(a)
    for got in (np.reciprocal(np.asarray(a)), numpy.reciprocal(np.asarray(a))):
        assert got.dtype == tl.from_numpy(want).dtype
        numpy.testing.assert_array_equal(got.cpu().numpy(), want)
    zero = numpy.zeros(2, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in reciprocal"):
            numpy.reciprocal(zero)
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in reciprocal"):
            np.reciprocal(np.asarray(zero))
    assert tl.reciprocal(tl.tensor([2])).dtype == tl.float32


@pytest.mark.parametrize("lo,hi", [(numpy.nan, 1.5), (1.5, numpy.nan), (3.0, 1.0), (None, 2.0),
                                   ("array", 4.0), (-numpy.inf, "array")])
def test_clip_is_numpys_with_nan_and_crossed_bounds(lo, hi):
    """A NaN bound makes every element NaN and crossed bounds give the upper
    one, as NumPy's minimum(maximum(x, lo), hi); array bounds broadcast."""
    x = numpy.array([[1.0, 2.0, numpy.nan, -numpy.inf, 5.0]] * 2)
    bound = numpy.array([0.0, 1.0, 2.0, 3.0, 4.0])
    lo, hi = (bound if b == "array" else b for b in (lo, hi))
    want = numpy.clip(x, lo, hi)
    got = np.clip(np.asarray(x).T.T, *(np.asarray(b) if isinstance(b, numpy.ndarray) else b
                                       for b in (lo, hi)))
    assert got.dtype == tl.float64
    numpy.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("k", [0, 1, -1, 3, -5])
def test_diag_of_a_matrix_is_its_diagonal_view(k):
    """np.diag of a 2-d array is NumPy's view of the diagonal: later writes
    to the matrix show in it (a copy had hidden them); a 1-d array still
    builds a new matrix."""
    want = numpy.arange(12.0).reshape(3, 4)
    a = np.asarray(want.copy())
    d, wd = np.diag(a, k), numpy.diag(want, k)
    assert np.shares_memory(a, d) == numpy.shares_memory(want, wd)  # False when empty
    a[0, 0], a[1, 2] = -1.0, -2.0
    want[0, 0], want[1, 2] = -1.0, -2.0
    same(d, wd)
    v = np.arange(3.0)
    m = np.diag(v, k)
    same(m, numpy.diag(numpy.arange(3.0), k))
    assert not np.shares_memory(v, m)


def test_clip_takes_numpys_ufunc_keywords():
    """The namespace's np.clip dropped where=, dtype= and casting= silently
    (clipped everywhere, in x's dtype) and any misspelt keyword; they are
    NumPy's: out='s values kept where the mask is False, the clip in dtype=,
    an unknown keyword a TypeError."""
    x = numpy.arange(6.0)
    mask = numpy.array([True, False, True, False, True, False])
    out = np.zeros(6)
    assert np.clip(np.asarray(x), 1, 4, out=out, where=np.asarray(mask)) is out
    numpy.testing.assert_array_equal(out.cpu().numpy(),
                                     numpy.clip(x, 1, 4, out=numpy.zeros(6), where=mask))
    got = np.clip(np.arange(6), 1, 4, dtype=np.float32)
    same(got, numpy.clip(numpy.arange(6), 1, 4, dtype=numpy.float32))
    with pytest.raises(TypeError, match="Cannot cast"):
        np.clip(np.asarray(x), 1, 4, dtype=np.int64)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        np.clip(np.asarray(x), 1, 4, bogus=1)


def test_clip_method_takes_numpys_ufunc_keywords():
    """x.clip(lo, hi, dtype=/where=/casting=) is ndarray.clip (PyTorch's
    clamp refused those keywords); PyTorch's spelling stays clamp."""
    a = numpy.arange(6).reshape(2, 3)
    t = np.asarray(a)
    same(t.clip(2, 4, dtype=np.float64), a.clip(2, 4, dtype=numpy.float64))
    same(t.clip(max=2, dtype=np.float32), a.clip(max=2, dtype=numpy.float32))
    same(t.clip(1.5, 3, casting="unsafe", dtype=np.int64),
         a.clip(1.5, 3, casting="unsafe", dtype=numpy.int64))
    out = np.zeros((2, 3), dtype=np.int64)
    assert t.clip(1, 3, where=t > 2, out=out) is out
    same(out, a.clip(1, 3, where=a > 2, out=numpy.zeros((2, 3), dtype=numpy.int64)))
    with pytest.raises(TypeError, match="Cannot cast"):
        t.clip(1, 3, dtype=np.int8, casting="safe")
    same(tl.tensor([1.0, 5.0]).clip(2, 3), numpy.array([2.0, 3.0], dtype=numpy.float32))
    same(tl.tensor([1.0, 5.0]).clip(min=2), numpy.array([2.0, 5.0], dtype=numpy.float32))


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "power", "left_shift",
                                  "right_shift", "mod", "bitwise_right_shift"])
def test_integer_arithmetic_of_bools_is_int8(name):
    """Two bool operands compute as int8, NumPy's smallest integer loop, both
    through the namespace and through numpy's ufuncs on tensors (PyTorch
    refuses floor_divide of bools and keeps pow's bool)."""
    import warnings
    a, b = numpy.array([True, False, True, False]), numpy.array([True, True, False, False])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a zero divisor, in both
        want = getattr(numpy, name)(a, b)
        got = (getattr(np, name)(np.asarray(a), np.asarray(b)),
               getattr(numpy, name)(np.asarray(a), np.asarray(b)))
    for g in got:
        assert g.dtype == tl.int8
        numpy.testing.assert_array_equal(host(g), want)


@pytest.mark.parametrize("spelling", ["round", "around"])
def test_round_of_bools_is_float16(spelling):
    """NumPy rounds bools in its float16 loop; both routes (the namespace,
    numpy's function on a tensor) give that dtype and values."""
    a = numpy.array([True, False, True])
    want = getattr(numpy, spelling)(a)
    for got in (getattr(np, spelling)(np.asarray(a)), getattr(numpy, spelling)(np.asarray(a))):
        assert got.dtype == tl.float16
        numpy.testing.assert_array_equal(host(got), want)


@pytest.mark.parametrize("fn", ["cov", "corrcoef"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 4), (4,)), ((4, 2), (4, 3)),
                                    ((1, 3), (1, 3)), ((3, 1), (3, 1))])
@pytest.mark.parametrize("rowvar", [True, False])
def test_cov_and_corrcoef_with_y_as_numpy(fn, shapes, rowvar):
    """With y given, NumPy stacks m's and y's variables (rows, or columns
    when rowvar=False, a single row kept as it is); rows that do not match
    are NumPy's ValueError, not the tensor concatenation's RuntimeError."""
    rng = numpy.random.default_rng(3)
    a, b = (rng.standard_normal(s) for s in shapes)
    try:
        want = getattr(numpy, fn)(a, y=b, rowvar=rowvar)
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e)[:40])):
            getattr(np, fn)(np.asarray(a), y=np.asarray(b), rowvar=rowvar)
        return
    got = getattr(np, fn)(np.asarray(a), y=np.asarray(b), rowvar=rowvar)
    numpy.testing.assert_allclose(host(got), want, rtol=1e-12, atol=1e-12)
    assert host(got).shape == want.shape


# ---- NumPy functions that ran on the host for device tensors ---------------------------
# Each computes on its inputs' device now (in a device suite's run the arrays
# below live there); NumPy is the oracle for values, dtypes and shapes.

def _on_device_as_numpy(want, got, where):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for w, g in zip(want, got):
            _on_device_as_numpy(w, g, where)
        return
    assert isinstance(got, tl.Tensor), where
    assert str(got.device) == str(tl.get_default_device()), f"{where}: on {got.device}"
    w, g = numpy.asarray(want), got.cpu().numpy()
    assert (g.dtype, g.shape) == (w.dtype, w.shape), \
        f"{where}: {g.dtype} {g.shape} vs {w.dtype} {w.shape}"
    numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("a, v", [([1, 2, 3, 4, 5], [1, 0, -1]),
                                  ([True, False, True], [True, True]),
                                  ([1, 2, 3], [True, False]), ([1 + 1j, 2], [1j, 1]),
                                  ([1, 2], [3, 4, 5, 6]), ([3, 1, 4], [0.5, 0.25])])
def test_convolve_and_correlate_of_integers_bools_and_complex_numbers(a, v):
    for name in ("convolve", "correlate"):
        for mode in ("full", "same", "valid"):
            _on_device_as_numpy(getattr(numpy, name)(numpy.asarray(a), numpy.asarray(v), mode),
                                getattr(np, name)(np.asarray(a), np.asarray(v), mode), (name, mode))
    # a list beside a tensor joins it
    _on_device_as_numpy(numpy.convolve(v, numpy.asarray(a)), np.convolve(v, np.asarray(a)), "list")


def test_lexsort_digitize_and_flat_indices():
    rng = numpy.random.default_rng(0)
    keys = rng.integers(0, 3, (3, 8))
    for axis in (0, -1):
        _on_device_as_numpy(numpy.lexsort(keys, axis=axis),
                            np.lexsort(np.asarray(keys), axis=axis), "lexsort")
    _on_device_as_numpy(numpy.lexsort((keys[0], keys[1])),
                        np.lexsort((np.asarray(keys[0]), np.asarray(keys[1]))), "lexsort tuple")
    x = rng.integers(0, 255, (4, 5)).astype(numpy.uint8)
    for bins in ([64, 128, 192], [192, 128, 64], [2, 2, 2]):
        for right in (False, True):
            _on_device_as_numpy(numpy.digitize(x, bins, right=right),
                                np.digitize(np.asarray(x), bins, right=right), (bins, right))
    with pytest.raises(ValueError, match="monotonically"):
        np.digitize(np.asarray([1]), [1, 3, 2])
    idx = (numpy.asarray([0, 2, 1]), numpy.asarray([3, 0, 1]))
    for mode, order in (("raise", "C"), ("wrap", "C"), ("clip", "F")):
        _on_device_as_numpy(numpy.ravel_multi_index(idx, (3, 4), mode=mode, order=order),
                            np.ravel_multi_index(tuple(np.asarray(i) for i in idx), (3, 4),
                                                 mode=mode, order=order), mode)
    flat = numpy.arange(24).reshape(2, 12)
    for order in ("C", "F"):
        _on_device_as_numpy(numpy.unravel_index(flat, (2, 3, 4), order=order),
                            np.unravel_index(np.asarray(flat), (2, 3, 4), order=order), order)
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((np.asarray([3]), np.asarray([0])), (3, 4))
    with pytest.raises(ValueError, match="index 12 is out of bounds for array with size 12"):
        np.unravel_index(np.asarray([12]), (3, 4))


def test_ravel_multi_index_broadcasts_coordinates_and_lexsort_names_shapes():
    # index_conversions: coordinates of two shapes (a number beside an array,
    # a row beside a column) were stacked into one tensor first, a
    # RuntimeError; NumPy broadcasts them.  lexsort's keys of two shapes
    # raised that RuntimeError too, not NumPy's ValueError
    rows, cols = numpy.asarray([[0, 1]]), numpy.asarray([[2], [3]])
    for idx in [(rows, cols), [rows[0], cols], (numpy.asarray(1), rows[0] + 2),
                (1, numpy.asarray([2, 3])), [[1, 0], [2, 3]], (1, 2)]:
        for mode in ("raise", "wrap"):
            want = numpy.ravel_multi_index(idx, (2, 4), mode=mode)
            ours = type(idx)(np.asarray(i) if isinstance(i, numpy.ndarray) else i for i in idx)
            _on_device_as_numpy(want, np.ravel_multi_index(ours, (2, 4), mode=mode), idx)
    with pytest.raises(ValueError, match="all keys need to be the same shape"):
        np.lexsort((np.asarray([1, 0, 1]), np.asarray([[2, 2, 1]])))
    _on_device_as_numpy(numpy.lexsort([[1, 0, 1], [2, 2, 1]]),
                        np.lexsort([[1, 0, 1], np.asarray([2, 2, 1])]), "lexsort of a list")


def test_ravel_multi_index_refuses_dims_it_cannot_index_and_checks_after_broadcasting():
    # fuzzing: dims whose product passes int64 made flat indices that wrap
    # silently ((2**62, 4)); a zero dim with mode='clip' gave -2 and with
    # 'wrap' a RuntimeError 'ZeroDivisionError'; a clipmode per dim of the
    # wrong length used the first dims only; coordinates were checked before
    # broadcasting, so an empty broadcast raised and a shape mismatch was
    # 'invalid entry'.  unravel_index's shape past int64 was an OverflowError.
    one = numpy.asarray([1])
    none = numpy.asarray([], dtype=numpy.int64)
    too_large = "invalid dims: array size defined by dims is larger than the maximum"
    for idx, dims, kw, error, message in [
            ((one, one), (2 ** 62, 4), {}, ValueError, too_large),
            ((one, one), (2 ** 31, 2 ** 32), {}, ValueError, too_large),
            ((one, one), (0, 3), {"mode": "clip"}, ValueError, "shape has zero entries"),
            ((one, one), (3, 0), {"mode": "wrap"}, ValueError, "shape has zero entries"),
            ((one, one), (4, 3), {"mode": ("wrap",)}, ValueError, r"wrong length \(1 instead of 2"),
            ((numpy.asarray([1, 2]), numpy.asarray([1, 2, 3])), (4, 3), {}, ValueError,
             "shapes"),
            ((one, one), (4.0, 3), {}, TypeError, "integer")]:
        with pytest.raises(error, match=message):
            numpy.ravel_multi_index(idx, dims, **kw)
        with pytest.raises(error, match=message):
            np.ravel_multi_index(tuple(np.asarray(i) for i in idx), dims, **kw)
    for idx, dims, mode in [((numpy.asarray([5]), none), (4, 3), "raise"),
                            ((one, none), (0, 3), "raise"), ((one, none), (0, 3), "wrap"),
                            ((one, numpy.asarray([1, 2])), (4, 3), "raise"),
                            ((one, one), (2 ** 31, 2 ** 31), "raise")]:
        _on_device_as_numpy(numpy.ravel_multi_index(idx, dims, mode=mode),
                            np.ravel_multi_index(tuple(np.asarray(i) for i in idx), dims,
                                                 mode=mode), (idx, dims, mode))
    with pytest.raises(ValueError, match="dimensions are too large"):
        np.unravel_index(np.asarray([0]), (2 ** 40, 2 ** 40))
    # an array of indices into a 0-d shape (even an empty one) gave (); NumPy
    # takes only one index there
    for flat in (numpy.asarray([0]), numpy.asarray([], numpy.int64)):
        with pytest.raises(ValueError, match="multiple indices are not supported for 0d"):
            numpy.unravel_index(flat, ())
        with pytest.raises(ValueError, match="multiple indices are not supported for 0d"):
            np.unravel_index(np.asarray(flat), ())
    assert np.unravel_index(np.asarray(0), ()) == numpy.unravel_index(0, ()) == ()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_formatting_of_an_element_uses_its_dtype(dtype):
    # number_text: np.format_float_positional(x[0]) of float32 data printed
    # the float64 digits of the element's value ('0.30000001192092896'):
    # NumPy's element is a float32 scalar, whose shortest digits are '0.3'
    x = numpy.asarray([0.3, 1e-7, 12345.678], dtype=dtype)
    t = np.asarray(x)
    for i in range(3):
        for kw in ({}, {"precision": 3}, {"unique": False, "precision": 12}, {"trim": "-"}):
            assert np.format_float_positional(t[i], **kw) == \
                numpy.format_float_positional(x[i], **kw)
            assert np.format_float_scientific(t[i], **kw) == \
                numpy.format_float_scientific(x[i], **kw)
    assert np.format_float_positional(t.max()) == numpy.format_float_positional(x.max())
    assert np.format_float_positional(1.5) == "1.5"


def test_bits_packed_unpacked_and_counted():
    rng = numpy.random.default_rng(1)
    b = rng.integers(0, 256, (3, 4, 2)).astype(numpy.uint8)
    bools = rng.integers(0, 2, (3, 13)).astype(bool)
    for order in ("big", "little"):
        for axis in (None, 0, -1):
            _on_device_as_numpy(numpy.unpackbits(b, axis=axis, bitorder=order),
                                np.unpackbits(np.asarray(b), axis=axis, bitorder=order), axis)
            _on_device_as_numpy(numpy.packbits(bools, axis=axis, bitorder=order),
                                np.packbits(np.asarray(bools), axis=axis, bitorder=order), axis)
    for count in (0, 5, 30, -3):
        _on_device_as_numpy(numpy.unpackbits(b[0, 0], count=count),
                            np.unpackbits(np.asarray(b[0, 0]), count=count), count)
    for dtype in (numpy.uint8, numpy.int16, numpy.int64, numpy.uint64, numpy.bool_):
        x = rng.integers(-100 if dtype in (numpy.int16, numpy.int64) else 0, 120, 9).astype(dtype)
        _on_device_as_numpy(numpy.bitwise_count(x), np.bitwise_count(np.asarray(x)), dtype)


def test_ufunc_reductions_and_scans_without_a_torchlike_reduction():
    rng = numpy.random.default_rng(2)
    m = rng.integers(1, 60, (3, 5, 4))
    f = rng.normal(size=(3, 4))
    f[0, 1] = f[2, 0] = numpy.nan
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "logical_xor"):
        for axis in (None, 0, 2):
            _on_device_as_numpy(getattr(numpy, name).reduce(m, axis=axis),
                                getattr(np, name).reduce(np.asarray(m), axis=axis), (name, axis))
        _on_device_as_numpy(getattr(numpy, name).accumulate(m, axis=1),
                            getattr(np, name).accumulate(np.asarray(m), axis=1), name)
    for name in ("subtract", "divide", "fmax", "fmin"):
        _on_device_as_numpy(getattr(numpy, name).reduce(f, axis=1),
                            getattr(np, name).reduce(np.asarray(f), axis=1), name)
        _on_device_as_numpy(getattr(numpy, name).accumulate(f, axis=1),
                            getattr(np, name).accumulate(np.asarray(f), axis=1), name)
    _on_device_as_numpy(numpy.lcm.reduce(numpy.asarray([4, 6, 10])),
                        np.lcm.reduce(np.asarray([4, 6, 10])), "lcm")
    _on_device_as_numpy(numpy.bitwise_or.reduce(m[:, :0], axis=1, initial=3),
                        np.bitwise_or.reduce(np.asarray(m[:, :0]), axis=1, initial=3), "initial")
    with pytest.raises(ValueError, match="not reorderable"):
        np.subtract.reduce(np.asarray(f), axis=None)
    with pytest.raises(ValueError, match="no identity"):
        np.fmax.reduce(np.zeros((2, 0)), axis=1)
    t = numpy.asarray([True, False, False, True])
    for name in ("logical_or", "logical_and"):
        _on_device_as_numpy(getattr(numpy, name).accumulate(t),
                            getattr(np, name).accumulate(np.asarray(t)), name)
    _on_device_as_numpy(numpy.equal.reduce(t), np.equal.reduce(np.asarray(t)), "equal")
    _on_device_as_numpy(numpy.add.reduceat(numpy.arange(4), []),
                        np.add.reduceat(np.arange(4), []), "reduceat")


def test_ufunc_at_casting_and_layouts_stay_on_the_device():
    a = np.zeros(4)
    np.add.at(a, [], [])
    np.add.at(a, [0, 1, 1], [1.0, 2.0, 3.0])
    want = numpy.zeros(4)
    numpy.add.at(want, [0, 1, 1], [1.0, 2.0, 3.0])
    _on_device_as_numpy(want, a, "add.at")
    out = np.zeros(3, dtype=np.int64)
    got = np.add(np.arange(3), 1.5, out=out, casting="unsafe")
    assert got is out
    _on_device_as_numpy(numpy.add(numpy.arange(3), 1.5, out=numpy.zeros(3, numpy.int64),
                                  casting="unsafe"), out, "unsafe")
    f = np.asfortranarray(np.arange(12).reshape(3, 4))
    assert np.isfortran(f) and str(f.device) == str(tl.get_default_device())
    _on_device_as_numpy(numpy.ascontiguousarray(numpy.asarray(2.0)),
                        np.ascontiguousarray(np.asarray(2.0)), "0-d")
    _on_device_as_numpy(numpy.deg2rad(30.0), np.deg2rad(30.0), "numbers alone")


def test_numpys_code_makes_its_arrays_on_the_device():
    img = numpy.random.default_rng(3).integers(0, 255, (6, 6)).astype(numpy.uint8)
    t = np.asarray(img)
    for kwargs in ({"bins": 8, "range": (0, 256)}, {"bins": [0, 50, 100, 255]},
                   {"bins": 5, "density": True}):
        _on_device_as_numpy(numpy.histogram(img, **kwargs), np.histogram(t, **kwargs), kwargs)
    _on_device_as_numpy(numpy.histogram2d(img[:, 0], img[:, 1], bins=3),
                        np.histogram2d(t[:, 0], t[:, 1], bins=3), "histogram2d")
    _on_device_as_numpy(numpy.append(numpy.arange(3), [6, 7]),
                        np.append(np.arange(3), [6, 7]), "append")
    z = numpy.asarray([0.0, 0.5, 2.5, 5.0])
    _on_device_as_numpy(numpy.interp(z, [0.0, 1, 2, 3], [1j, 2, 3 + 1j, 4j], left=5j),
                        np.interp(np.asarray(z), np.asarray([0.0, 1, 2, 3]),
                                  np.asarray([1j, 2, 3 + 1j, 4j]), left=5j), "complex interp")


@pytest.mark.filterwarnings("ignore:the matrix subclass")
def test_host_objects_from_device_tensors():
    """Text, files, matrices and Python-object ufuncs are host objects: a
    device tensor's values are copied there once."""
    import io
    x = np.arange(6).reshape(2, 3)
    assert np.array_str(x) == numpy.array_str(numpy.arange(6).reshape(2, 3))
    assert np.array2string(x, separator=", ") == numpy.array2string(
        numpy.arange(6).reshape(2, 3), separator=", ")
    buf = io.BytesIO()
    np.savez(buf, a=x, b=np.linspace(0, 1, 3))
    buf.seek(0)
    with numpy.load(buf) as data:
        numpy.testing.assert_array_equal(data["a"], numpy.arange(6).reshape(2, 3))
        numpy.testing.assert_array_equal(data["b"], numpy.linspace(0, 1, 3))
    m = np.asmatrix(np.eye(2) * 2)
    assert isinstance(m, numpy.matrix) and (m * m).tolist() == [[4.0, 0.0], [0.0, 4.0]]
    doubled = numpy.frompyfunc(lambda v: v * 2, 1, 1)(np.arange(4))
    assert doubled.dtype == object and doubled.tolist() == [0, 2, 4, 6]
    z = np.zeros(3)
    z.flags.writeable = False
    assert z.flags.writeable is False
    with pytest.raises(ValueError, match="read-only"):
        z[0] = 1
    z.flags.writeable = True
    z[0] = 1
    assert float(z[0]) == 1.0


VIEW_PAIRS = {
    "interleaved columns": lambda x: (x[:, 0], x[:, 1]),
    "row and its tail": lambda x: (x[0], x[0, 1:]),
    "transpose": lambda x: (x, x.T),
    "even and odd rows": lambda x: (x[::2], x[1::2]),
    "reversed columns": lambda x: (x[:, ::-1], x[:, 0]),
    "overlapping blocks": lambda x: (x[1:3, 2:4], x[2:, 3:]),
    "flat slice and row": lambda x: (x.reshape(-1)[5:7], x[1]),
    "halves of a row": lambda x: (x[0, :3], x[0, 3:]),
}


@pytest.mark.parametrize("pair", VIEW_PAIRS.values(), ids=VIEW_PAIRS.keys())
@pytest.mark.parametrize("name", ["shares_memory", "may_share_memory"])
def test_memory_overlap_of_views_as_numpy(pair, name):
    """Views of one tensor overlap exactly as NumPy's views of one array do,
    on the CPU and on a device (where the check reads only the views'
    offsets and strides); a separate tensor's memory is never shared."""
    a_np = numpy.arange(24.0).reshape(4, 6)
    a = np.asarray(a_np)
    assert a.device == DEFAULT
    assert getattr(np, name)(*pair(a)) == getattr(numpy, name)(*pair(a_np))
    assert not getattr(np, name)(a, a.clone())
    assert not getattr(np, name)(a[0], a.clone()[0])


CROSS_2D = [  # NumPy's deprecated forms with 2-vectors: (a, b, keywords)
    ([1.0, 2.0], [3.0, 4.0], {}),
    ([[1, 2], [3, 4], [5, 6]], [[6, 5], [4, 3], [2, 1]], {}),
    ([1, 2], [[1, 0, 0], [0, 1, 0]], {"axisc": 0}),
    ([[1.0, 2.0, 3.0]], [numpy.inf, 2.0], {}),             # no 0 * inf where NumPy has none
    ([1.0, numpy.inf], [[1.0, 2.0, numpy.inf]], {}),
    (numpy.arange(4).reshape(2, 2), numpy.arange(6).reshape(2, 3), {"axisa": 0}),
    (numpy.arange(4.0).reshape(2, 2), numpy.arange(4.0).reshape(2, 2), {"axisc": 5}),
    ([1 + 1j, 2], [3, 4j], {}),
    (numpy.zeros((0, 2)), numpy.zeros((0, 2)), {}),
]


@pytest.mark.parametrize("case", range(len(CROSS_2D)))
def test_cross_of_2_vectors_as_numpy_on_the_device(case):
    """np.cross with a 2-vector operand ran NumPy's own code (refused on a
    device): it computes as NumPy's, with NumPy's DeprecationWarning."""
    a, b, kw = CROSS_2D[case]
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
        want = numpy.cross(numpy.asarray(a), numpy.asarray(b), **kw)
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
        got = np.cross(np.asarray(a), np.asarray(b), **kw)
    _on_device_as_numpy(want, got, f"cross {case}")


def test_cross_errors_are_numpys():
    for a, b in (([1, 2, 3, 4], [1, 2, 3]), ([1.0], [1.0, 2.0, 3.0])):
        with pytest.raises(ValueError, match="incompatible dimensions for cross product"):
            np.cross(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="At least one array has zero dimension"):
        np.cross(np.asarray(1.0), np.arange(3.0))
    for shape in (2, 3):  # NumPy subtracts the products: bool refused, as its `-` is
        with pytest.raises(TypeError, match="boolean subtract"):
            np.cross(np.ones(shape, dtype=bool), np.ones(3, dtype=bool))


@pytest.mark.parametrize("name,args", [
    ("solve", (numpy.zeros((2, 2)), numpy.ones(2))),
    ("inv", (numpy.array([[1.0, 2.0], [2.0, 4.0]]),)),
    ("inv", (numpy.zeros((3, 2, 2)),)),
    ("matrix_power", (numpy.zeros((2, 2)), -2)),
    ("tensorsolve", (numpy.zeros((2, 2)), numpy.ones(2))),
    ("tensorinv", (numpy.zeros((2, 2, 4)),)),
    ("cholesky", (-numpy.eye(3),)),
    ("cholesky", (numpy.array([[1.0, 2.0], [2.0, 1.0]]),)),
])
def test_linalg_failures_speak_numpy_words(name, args):
    # np.linalg's solvers fail on a singular (or not positive-definite) input
    # with NumPy's LinAlgError words, where torchlike.linalg's are PyTorch's
    with pytest.raises(numpy.linalg.LinAlgError) as want:
        getattr(numpy.linalg, name)(*args)
    with pytest.raises(numpy.linalg.LinAlgError) as got:
        getattr(np.linalg, name)(*(np.asarray(a) for a in args))
    assert str(got.value) == str(want.value)
    # torchlike.linalg keeps PyTorch's sentence
    with pytest.raises(tl.linalg.LinAlgError, match="singular"):
        tl.linalg.inv(tl.zeros(2, 2))
