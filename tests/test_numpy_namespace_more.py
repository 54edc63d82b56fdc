"""torchlike.numpy: the NumPy names beyond functions on arrays -- the abstract
scalar types and issubdtype, np.dtype, the index tricks (r_, c_, mgrid, ogrid,
ndenumerate ...), errstate, vectorize, broadcast, emath, testing, polynomial --
each checked against NumPy itself: the same values, dtypes and shapes (0-d and
empty included), NumPy's exception types.  Results NumPy returns as arrays are
tensors on the default device (the device suites run this file with a device
as the default)."""
import numpy
import pytest

import torchlike as tl
import torchlike.numpy as np

DEFAULT = tl.empty(0).device
# torchlike's dtypes NumPy also has, by name (bfloat16 is checked on its own)
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
         "complex64", "complex128"]


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
    with pytest.raises(TypeError, match="no dtype uint16"):
        np.dtype("uint16")  # NumPy has it; torchlike does not
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
    assert numpy.uint16 not in np.ScalarType


def test_non_dispatching_numpy_functions_take_their_arguments_as_they_are():
    assert np.isscalar(3.0) and not np.isscalar([3.0])
    assert np.isscalar(numpy.float32(1)) == numpy.isscalar(numpy.float32(1))


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
