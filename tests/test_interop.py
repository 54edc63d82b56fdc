"""Zero-copy interchange with NumPy, the buffer protocol and DLPack.

Every path is checked for sharing in both directions (a write on either side is
seen on the other), for non-contiguous and negative-stride layouts, 0-d and empty
arrays, read-only propagation, and ownership: the producer's memory lives exactly
as long as the last consumer, is released exactly once, and loops do not leak.
DLPack capsules are inspected and forged with ctypes so the deleter calls and
flags can be observed directly."""
import ctypes
import gc
import re
import sys
import weakref

import numpy as np
import pytest

import oracle
import torchlike as tl
from oracle import NP_DTYPES, rss_bytes

NUMPY_DTYPES = [d for d in NP_DTYPES if d != "bfloat16"]
FORMATS = {"bool": "?", "uint8": "B", "int8": "b", "int16": "h", "int32": "i", "int64": "q",
           "float16": "e", "float32": "f", "float64": "d", "complex64": "Zf",
           "complex128": "Zd", "uint16": "H", "uint32": "I", "uint64": "Q"}


def sample(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    npdt = NP_DTYPES[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(npdt)
    if np.issubdtype(npdt, np.integer):
        return rng.integers(0, 100, size=shape).astype(npdt)
    x = rng.uniform(-5, 5, size=shape)
    if np.issubdtype(npdt, np.complexfloating):
        x = x + 1j * rng.uniform(-5, 5, size=shape)
    return np.asarray(x).astype(npdt)  # 0-d arithmetic gives a NumPy scalar


def other_value(dtype):
    """A value different from anything sample() makes."""
    return {"bool": None, "complex64": 7 - 3j, "complex128": 7 - 3j}.get(dtype, 123)


def layouts(a):
    """The same values in layouts that break naive code."""
    out = {"contiguous": a}
    if a.ndim >= 2:
        out["transposed"] = a.T
        out["strided"] = a[::2, 1::2]
        out["negative"] = a[::-1, ::-2]
    return out


def np_layouts(dtype):
    base = sample(dtype, (4, 6))
    cases = dict(layouts(base))
    cases["zero_d"] = np.array(base[1, 2])
    cases["empty"] = base[:0, :]
    return cases


def mutate_np(a, dtype):
    """Write into ndarray a; returns the value written (None: nothing to write)."""
    if a.size == 0:
        return None
    v = other_value(dtype)
    idx = (0,) * a.ndim
    if dtype == "bool":
        v = not bool(a[idx])
    a[idx] = v
    return a[idx].item()


def tensor_sample(dtype, shape=(4, 6)):
    if dtype == "bfloat16":
        return tl.tensor(sample("float32", shape)).bfloat16()
    return tl.tensor(sample(dtype, shape))


def tensor_layouts(dtype):
    t = tensor_sample(dtype)
    return {"contiguous": t, "transposed": t.transpose(0, 1), "strided": t[::2, 1::2],
            "negative": t[::-1, ::-2], "zero_d": t[1, 2], "empty": t[:0]}


def assert_same_values(t, a):
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(t.numpy(), a)


# ---- .numpy() ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "negative",
                                    "zero_d", "empty"])
def test_numpy_shares_memory_both_ways(dtype, layout):
    t = tensor_layouts(dtype)[layout]
    a = t.numpy()
    assert a.dtype == NP_DTYPES[dtype]
    assert a.shape == tuple(t.shape)
    assert a.strides == tuple(s * t.element_size() for s in t.stride())
    assert a.flags.writeable
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
    if t.numel():
        t.fill_(0)
        assert not a.any()


def test_numpy_keeps_tensor_alive():
    t = tl.tensor([1.0, 2.0, 3.0])
    w = weakref.ref(t)
    a = t.numpy()
    assert a.base is t
    del t
    gc.collect()
    assert w() is not None
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    del a
    gc.collect()
    assert w() is None


def test_numpy_of_readonly_tensor_is_readonly():
    t = tl.tensor([1.0, 2.0])
    t._set_readonly(True)
    a = t.numpy()
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 5


def test_numpy_force_keyword():
    t = tl.tensor([1.0, 2.0])
    a = t.numpy(force=True)
    a[0] = 3
    assert t[0].item() == 3
    with pytest.raises(TypeError, match="force"):
        t.numpy(foo=True)
    with pytest.raises(TypeError, match="force"):
        t.numpy(True)


def test_numpy_bfloat16_raises_naming_dtype():
    with pytest.raises(TypeError, match="bfloat16"):
        tl.tensor([1.0]).bfloat16().numpy()


# ---- from_numpy -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "negative",
                                    "zero_d", "empty"])
def test_from_numpy_shares_memory_both_ways(dtype, layout):
    a = np_layouts(dtype)[layout]
    t = tl.from_numpy(a)
    assert t.dtype.name == dtype
    assert tuple(t.stride()) == tuple(s // a.itemsize for s in a.strides)
    assert_same_values(t, a)
    assert t.numpy().__array_interface__["data"][0] == a.__array_interface__["data"][0]
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
    if a.size:
        t.zero_()
        assert not a.any()


def test_from_numpy_storage_covers_negative_strides():
    base = np.arange(10.0)
    t = tl.from_numpy(base[::-3])
    np.testing.assert_array_equal(t.numpy(), [9.0, 6.0, 3.0, 0.0])
    base[0] = -1
    assert t[3].item() == -1


@pytest.mark.parametrize("dtype", [">i4", ">f8", np.longdouble, np.clongdouble, "U3",
                                   "datetime64[s]", object])
def test_from_numpy_unsupported_dtype_names_it(dtype):
    a = np.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=re.escape(repr(np.dtype(dtype)))):
        tl.from_numpy(a)


def test_from_numpy_byteswapped_says_byte_order():
    with pytest.raises(TypeError, match="byte order"):
        tl.from_numpy(np.zeros(3, dtype=">f4"))


def test_from_numpy_too_many_dims():
    with pytest.raises(ValueError, match="32"):
        tl.from_numpy(np.zeros((1,) * 40))


def test_numpy_from_dlpack_keywords():
    t = tl.tensor([1.0, 2.0])
    for kwargs in ({"device": "cpu"}, {"copy": False}):
        a = np.from_dlpack(t, **kwargs)
        a[0] += 1
    assert t.tolist() == [3.0, 2.0]


def test_tensor_of_byteswapped_array_converts():
    a = np.arange(4, dtype=">i4")
    t = tl.tensor(a)
    assert t.dtype == tl.int32
    assert t.tolist() == [0, 1, 2, 3]


def test_from_numpy_stride_not_multiple_of_itemsize():
    base = np.zeros(40, dtype=np.complex64)
    a = np.lib.stride_tricks.as_strided(base, shape=(3,), strides=(12,))
    assert a.flags.aligned
    with pytest.raises(ValueError, match="stride 12"):
        tl.from_numpy(a)


def test_from_numpy_size_one_dims_may_have_any_stride():
    base = np.zeros(8, dtype=np.float32)
    a = np.lib.stride_tricks.as_strided(base, shape=(1, 4), strides=(3, 4))
    t = tl.from_numpy(a)
    assert tuple(t.shape) == (1, 4)
    a[0, 2] = 5
    assert t[0, 2].item() == 5


def test_from_numpy_unaligned_raises_and_tensor_copies():
    a = np.zeros(17, dtype=np.uint8)[1:].view(np.float64)
    assert not a.flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        tl.from_numpy(a)
    assert tl.tensor(a).tolist() == [0.0, 0.0]


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError, match="list"):
        tl.from_numpy([1, 2])


def test_from_numpy_readonly_stays_readonly():
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    t = tl.from_numpy(a)
    for write in (lambda: t.add_(1), lambda: t.fill_(0), lambda: t.zero_(),
                  lambda: t.__setitem__(0, 1.0), lambda: t.copy_(tl.ones(2, 3)),
                  lambda: tl.add(t, 1, out=t)):
        with pytest.raises(ValueError, match="read-only"):
            write()
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))
    assert not t.numpy().flags.writeable
    assert memoryview(t).readonly
    # Reading (and ops producing new tensors) still works.
    np.testing.assert_array_equal((t + 1).numpy(), a + 1)


def test_from_numpy_keeps_array_alive_and_releases_it():
    a = np.arange(5.0)
    base = sys.getrefcount(a)
    w = weakref.ref(a)
    t = tl.from_numpy(a)
    assert sys.getrefcount(a) == base + 1
    del a
    gc.collect()
    assert w() is not None
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    v = t[1:]
    del t
    gc.collect()
    assert w() is not None  # the view still holds the storage
    del v
    gc.collect()
    assert w() is None


def test_as_tensor_of_array_is_zero_copy():
    a = np.arange(4.0)
    t = tl.as_tensor(a)
    same = tl.as_tensor(a, dtype=tl.float64)
    cast = tl.as_tensor(a, dtype=tl.float32)
    a[0] = 9
    assert t[0].item() == 9 and same[0].item() == 9
    assert cast[0].item() == 0
    swapped = np.arange(3, dtype=">f8")
    assert tl.as_tensor(swapped).tolist() == [0.0, 1.0, 2.0]


# ---- __array__ / np.asarray --------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "negative", "zero_d", "empty"])
def test_asarray_is_zero_copy_both_ways(dtype, layout):
    t = tensor_layouts(dtype)[layout]
    a = np.asarray(t)
    assert a.dtype == NP_DTYPES[dtype] and a.shape == tuple(t.shape)
    np.testing.assert_array_equal(a, t.numpy())
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
    b = t.__array__()
    v = mutate_np(b, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v


def test_array_copy_semantics():
    t = tl.tensor([1.0, 2.0])
    shared = t.__array__(copy=False)
    shared[0] = 7
    assert t[0].item() == 7
    copied = t.__array__(copy=True)
    copied[0] = -1
    assert t[0].item() == 7
    same_dtype = t.__array__(dtype=np.float32, copy=False)
    assert np.shares_memory(same_dtype, shared)
    with pytest.raises(ValueError, match="copy"):
        t.__array__(dtype=np.float64, copy=False)
    cast = t.__array__(dtype=np.float64)
    assert cast.dtype == np.float64 and not np.shares_memory(cast, shared)
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float64, copy=False)
    assert np.shares_memory(np.array(t, copy=False), shared)
    assert not np.shares_memory(np.array(t), shared)


def test_array_with_a_narrower_dtype_casts_as_ndarrays_does():
    # ndarray.__array__(dtype) casts as astype does (unsafely): float64 to
    # float32 or int8, complex to float (NumPy's ComplexWarning), bfloat16 too
    for values, dtype in [([1.5, -2.75, 1e300], np.float32), ([1.5, -2.75, 300.0], np.int8),
                          ([7, -1, 300], np.uint8)]:
        a = np.array(values)
        with np.errstate(all="ignore"):  # 1e300 overflows float32 (NumPy warns)
            got = tl.tensor(a).__array__(dtype)
            want = a.__array__(dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = tl.tensor([1 + 2j]).__array__(np.float64)
    assert got.tolist() == [1.0]
    assert tl.tensor([1.5, -2.0]).bfloat16().__array__(np.int16).tolist() == [1, -2]
    with pytest.raises(ValueError, match="copy"):  # copy=False still refuses a cast
        tl.tensor([1.0]).__array__(np.float16, copy=False)


def test_array_of_bfloat16_copies_to_float32():
    t = tl.tensor([1.5, -2.0]).bfloat16()
    a = np.asarray(t)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [1.5, -2.0])
    with pytest.raises(ValueError, match="bfloat16"):
        np.asarray(t, copy=False)
    with pytest.raises(ValueError, match="bfloat16"):
        t.__array__(copy=False)
    assert t.__array__(copy=True).dtype == np.float32


def test_asarray_of_readonly_tensor_is_readonly():
    t = tl.tensor([1.0, 2.0])
    t._set_readonly(True)
    assert not np.asarray(t).flags.writeable
    assert not t.__array__().flags.writeable
    assert t.__array__(copy=True).flags.writeable


# ---- buffer protocol ---------------------------------------------------------------

class Py_buffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
                ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
                ("internal", ctypes.c_void_p)]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(Py_buffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(Py_buffer)]
_release_buffer.restype = None

PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_ND = 0, 0x1, 0x4, 0x8
PyBUF_STRIDES = 0x10 | PyBUF_ND
PyBUF_C_CONTIGUOUS = 0x20 | PyBUF_STRIDES
PyBUF_F_CONTIGUOUS = 0x40 | PyBUF_STRIDES
PyBUF_ANY_CONTIGUOUS = 0x80 | PyBUF_STRIDES
PyBUF_INDIRECT = 0x100 | PyBUF_STRIDES


def get_buffer(obj, flags):
    """What a raw PyObject_GetBuffer request sees (ctypes raises its error)."""
    view = Py_buffer()
    assert _get_buffer(obj, ctypes.byref(view), flags) == 0
    info = {"len": view.len, "itemsize": view.itemsize, "readonly": view.readonly,
            "ndim": view.ndim, "format": view.format,
            "shape": None if not view.shape else tuple(view.shape[i] for i in range(view.ndim)),
            "strides": (None if not view.strides
                        else tuple(view.strides[i] for i in range(view.ndim))),
            "buf": view.buf}
    _release_buffer(ctypes.byref(view))
    return info


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "negative",
                                    "zero_d", "empty"])
def test_memoryview_layout_and_sharing(dtype, layout):
    t = tensor_layouts(dtype)[layout]
    m = memoryview(t)
    assert m.format == FORMATS[dtype]
    assert m.itemsize == t.element_size()
    assert m.ndim == t.ndim and m.shape == tuple(t.shape)
    assert m.strides == tuple(s * t.element_size() for s in t.stride())
    assert not m.readonly
    assert m.nbytes == t.numel() * t.element_size()
    a = np.asarray(m)
    assert a.dtype == NP_DTYPES[dtype]
    np.testing.assert_array_equal(a, t.numpy())
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
        t.zero_()
        assert not a.any()
    m.release()


def test_memoryview_item_writes_reach_tensor():
    t = tl.zeros(4, dtype=tl.int32)
    m = memoryview(t)
    m[2] = 42
    assert t.tolist() == [0, 0, 42, 0]
    t[1] = 7
    assert m.tolist() == [0, 7, 42, 0]


def test_memoryview_readonly_tensor():
    t = tl.tensor([1, 2, 3])
    t._set_readonly(True)
    m = memoryview(t)
    assert m.readonly
    with pytest.raises(TypeError):
        m[0] = 5
    with pytest.raises(BufferError, match="read-only"):
        get_buffer(t, PyBUF_WRITABLE)
    get_buffer(t, PyBUF_SIMPLE)


def test_buffer_flags_simple_and_nd():
    t = tl.tensor(np.arange(6, dtype=np.int16).reshape(2, 3))
    info = get_buffer(t, PyBUF_SIMPLE)
    assert info["shape"] is None and info["strides"] is None and info["format"] is None
    assert info["len"] == 12 and info["ndim"] == 1
    info = get_buffer(t, PyBUF_ND | PyBUF_FORMAT)
    assert info["shape"] == (2, 3) and info["strides"] is None and info["format"] == b"h"
    info = get_buffer(t, PyBUF_STRIDES)
    assert info["strides"] == (6, 2)
    info = get_buffer(t, PyBUF_INDIRECT | PyBUF_FORMAT | PyBUF_WRITABLE)
    assert info["strides"] == (6, 2) and not info["readonly"]


@pytest.mark.parametrize("flags,c_ok,f_ok,strided_ok", [
    (PyBUF_SIMPLE, True, False, False),
    (PyBUF_ND, True, False, False),
    (PyBUF_STRIDES, True, True, True),
    (PyBUF_C_CONTIGUOUS, True, False, False),
    (PyBUF_F_CONTIGUOUS, False, True, False),
    (PyBUF_ANY_CONTIGUOUS, True, True, False),
])
def test_buffer_contiguity_requests(flags, c_ok, f_ok, strided_ok):
    t = tl.tensor(np.arange(12.0).reshape(3, 4))
    for tensor, ok in ((t, c_ok), (t.transpose(0, 1), f_ok), (t[:, ::2], strided_ok)):
        if ok:
            get_buffer(tensor, flags)
        else:
            with pytest.raises(BufferError, match="contiguous"):
                get_buffer(tensor, flags)


def test_buffer_degenerate_shapes_are_contiguous():
    t = tl.tensor(np.arange(4.0).reshape(4, 1))
    # size-1 and empty dimensions don't constrain the layout
    get_buffer(t.transpose(0, 1), PyBUF_C_CONTIGUOUS)
    get_buffer(t[:0].transpose(0, 1), PyBUF_C_CONTIGUOUS)
    get_buffer(t[1, 0], PyBUF_SIMPLE)


def test_buffer_negative_strides_point_at_first_element():
    t = tl.tensor(np.arange(5, dtype=np.int64))
    r = t[::-1]
    info = get_buffer(r, PyBUF_STRIDES)
    assert info["strides"] == (-8,)
    assert info["buf"] == r.data_ptr()
    assert bytes(memoryview(r)) == np.arange(5, dtype=np.int64)[::-1].tobytes()


def test_buffer_bfloat16_raises_naming_dtype():
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(tl.tensor([1.0]).bfloat16())


def test_memoryview_outlives_tensor():
    t = tl.tensor([1.0, 2.0, 3.0])
    w = weakref.ref(t)
    m = memoryview(t)
    del t
    gc.collect()
    assert w() is not None  # the export holds the object
    assert m.tolist() == [1.0, 2.0, 3.0]
    m.release()
    gc.collect()
    assert w() is None


def test_memoryview_release_restores_refcount():
    t = tl.tensor([1.0, 2.0])
    base = sys.getrefcount(t)
    m = memoryview(t)
    assert sys.getrefcount(t) == base + 1
    m.release()
    assert sys.getrefcount(t) == base


def test_frombuffer_and_bytes():
    t = tl.tensor(np.arange(4, dtype=np.float32))
    a = np.frombuffer(t, dtype=np.float32)
    np.testing.assert_array_equal(a, np.arange(4, dtype=np.float32))
    assert bytes(t[::2]) == np.arange(4, dtype=np.float32)[::2].tobytes()
    with pytest.raises(BufferError):
        np.frombuffer(t[::2], dtype=np.float32)


# ---- DLPack: ctypes views of the structs ----------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_new.restype = ctypes.py_object
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer.restype = ctypes.c_void_p
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.argtypes = [ctypes.py_object]
_capsule_name.restype = ctypes.c_char_p

def capsule_name(cap):
    return _capsule_name(cap).decode()


def managed(cap):
    """The DLManaged(Versioned)Tensor a capsule carries (capsule not consumed)."""
    name = _capsule_name(cap)
    struct = DLManagedTensorVersioned if name == b"dltensor_versioned" else DLManagedTensor
    return ctypes.cast(_capsule_pointer(cap, name), ctypes.POINTER(struct)).contents


class ForgedProducer:
    """A DLPack producer written with ctypes, whose deleter calls are counted."""

    def __init__(self, array, *, versioned=True, flags=0, dtype=None, device=(1, 0),
                 major=1, byte_offset=0, shape=None, strides=None):
        self.array = array
        self.deleted = 0
        ndim = array.ndim if shape is None else len(shape)
        shape = array.shape if shape is None else shape
        strides = ([s // array.itemsize for s in array.strides] if strides is None else strides)
        self.shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
        self.strides = (ctypes.c_int64 * max(ndim, 1))(*strides)
        code, bits = dtype if dtype else (kDLFloat, 8 * array.itemsize)
        dl = DLTensor(array.ctypes.data, DLDevice(*device), ndim, DLDataType(code, bits, 1),
                      self.shape, self.strides, byte_offset)
        self.deleter = DELETER(self._delete)
        if versioned:
            self.struct = DLManagedTensorVersioned(DLPackVersion(major, 0), None, self.deleter,
                                                   flags, dl)
            name = b"dltensor_versioned"
        else:
            self.struct = DLManagedTensor(dl, None, self.deleter)
            name = b"dltensor"
        # No capsule destructor: nothing here frees the struct, so a capsule
        # left unconsumed just leaves the deleter count at 0.  (The name is a
        # bytes literal: interned, so it outlives the capsule.)
        self.capsule = _capsule_new(ctypes.addressof(self.struct), name, None)

    def _delete(self, ptr):
        assert ptr == ctypes.addressof(self.struct)
        self.deleted += 1


# ---- DLPack export ---------------------------------------------------------------------

def test_dlpack_device():
    assert tl.tensor([1.0]).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("max_version,name", [
    (None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"),
    ((1, 5), "dltensor_versioned"), ((2, 0), "dltensor_versioned"),
])
def test_dlpack_capsule_kind_follows_max_version(max_version, name):
    cap = tl.tensor([1.0]).__dlpack__(max_version=max_version)
    assert capsule_name(cap) == name
    if name == "dltensor_versioned":
        assert managed(cap).version.major == 1


@pytest.mark.parametrize("dtype,code,bits", [
    ("bool", kDLBool, 8), ("uint8", kDLUInt, 8), ("int8", kDLInt, 8), ("int16", kDLInt, 16),
    ("int32", kDLInt, 32), ("int64", kDLInt, 64), ("float16", kDLFloat, 16),
    ("bfloat16", kDLBfloat, 16), ("float32", kDLFloat, 32), ("float64", kDLFloat, 64),
    ("complex64", kDLComplex, 64), ("complex128", kDLComplex, 128),
])
def test_dlpack_export_struct(dtype, code, bits):
    t = tensor_sample(dtype)[::-1, 1::2]
    m = managed(t.__dlpack__(max_version=(1, 0)))
    dl = m.dl_tensor
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (code, bits, 1)
    assert (dl.device.device_type, dl.device.device_id) == (1, 0)
    assert dl.ndim == 2
    assert [dl.shape[i] for i in range(2)] == list(t.shape)
    assert [dl.strides[i] for i in range(2)] == list(t.stride())
    assert dl.data + dl.byte_offset == t.data_ptr()
    assert m.flags == 0


def test_dlpack_export_flags():
    t = tl.tensor([1.0, 2.0])
    assert managed(t.__dlpack__(max_version=(1, 0), copy=True)).flags == FLAG_IS_COPIED
    t._set_readonly(True)
    assert managed(t.__dlpack__(max_version=(1, 0))).flags == FLAG_READ_ONLY
    # a copy is the consumer's own, so it is writable
    assert managed(t.__dlpack__(max_version=(1, 0), copy=True)).flags == FLAG_IS_COPIED


def test_dlpack_export_arguments():
    t = tl.tensor([1.0, 2.0])
    assert capsule_name(t.__dlpack__(dl_device=(1, 0), max_version=(1, 0))) == \
        "dltensor_versioned"
    with pytest.raises(BufferError, match="cuda"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0), copy=False)
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=1)
    with pytest.raises(TypeError, match="max_version"):
        t.__dlpack__(max_version=1)
    assert capsule_name(t.__dlpack__(stream=None, copy=False)) == "dltensor"
    t._set_readonly(True)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    assert capsule_name(t.__dlpack__(copy=True)) == "dltensor"


def test_dlpack_export_copy_does_not_share():
    t = tl.tensor([1.0, 2.0])
    c = tl.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    c[0] = 9
    assert t[0].item() == 1.0


def test_unconsumed_capsule_releases_storage():
    a = np.arange(5.0)
    base = sys.getrefcount(a)
    t = tl.from_numpy(a)
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    del t
    gc.collect()
    assert sys.getrefcount(a) == base + 1  # the capsules hold the storage
    del caps
    gc.collect()
    assert sys.getrefcount(a) == base


# ---- DLPack with NumPy as the consumer --------------------------------------------------

@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "negative",
                                    "zero_d", "empty"])
def test_numpy_from_dlpack_shares_both_ways(dtype, layout):
    t = tensor_layouts(dtype)[layout]
    a = np.from_dlpack(t)
    assert a.dtype == NP_DTYPES[dtype] and a.shape == tuple(t.shape)
    np.testing.assert_array_equal(a, t.numpy())
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
        t.zero_()
        assert not a.any()


def test_numpy_from_dlpack_readonly_and_copy():
    t = tl.tensor([1.0, 2.0])
    t._set_readonly(True)
    a = np.from_dlpack(t)
    assert not a.flags.writeable
    b = np.from_dlpack(t, copy=True)
    assert b.flags.writeable and not np.shares_memory(a, b)


def test_numpy_from_dlpack_outlives_tensor():
    t = tl.tensor([1.0, 2.0, 3.0])
    w = weakref.ref(t)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert w() is None  # the capsule holds the storage, not the object
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


# ---- DLPack with torchlike as the consumer ----------------------------------------------

@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "negative",
                                    "zero_d", "empty"])
def test_from_dlpack_numpy_shares_both_ways(dtype, layout):
    a = np_layouts(dtype)[layout]
    t = tl.from_dlpack(a)
    assert t.dtype.name == dtype
    assert_same_values(t, a)
    v = mutate_np(a, dtype)
    if v is not None:
        assert t[(0,) * t.ndim].item() == v
        t.zero_()
        assert not a.any()


def test_from_dlpack_numpy_releases_exactly_once():
    a = np.arange(6.0).reshape(2, 3)
    base = sys.getrefcount(a)
    w = weakref.ref(a)
    t = tl.from_dlpack(a)
    assert sys.getrefcount(a) > base
    v = t[1]
    del t, a
    gc.collect()
    assert w() is not None
    assert v.tolist() == [3.0, 4.0, 5.0]
    del v
    gc.collect()
    assert w() is None


def test_from_dlpack_numpy_refcount_returns_to_baseline():
    a = np.arange(6.0)
    base = sys.getrefcount(a)
    for _ in range(3):
        t = tl.from_dlpack(a)
        del t
    gc.collect()
    assert sys.getrefcount(a) == base


def test_from_dlpack_readonly_numpy_stays_readonly():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = tl.from_dlpack(a)
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1)
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 5
    assert not t.numpy().flags.writeable
    c = tl.from_dlpack(a, copy=True)
    c.add_(1)
    np.testing.assert_array_equal(a, np.arange(4.0))


def test_from_dlpack_copy_false_and_true():
    a = np.arange(3.0)
    shared = tl.from_dlpack(a, copy=False)
    copied = tl.from_dlpack(a, copy=True)
    a[0] = 5
    assert shared[0].item() == 5 and copied[0].item() == 0


def test_from_dlpack_device_argument():
    a = np.arange(3.0)
    assert tl.from_dlpack(a, device="cpu").tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(BufferError, match="cuda"):
        tl.from_dlpack(a, device="cuda")
    # the default device does not move the result: from_dlpack views in place
    assert tl.from_dlpack(ext_tensor=a, device=None).device == tl.device("cpu")
    with pytest.raises(TypeError, match=r"from_dlpack\(\) takes at most 1 positional argument"):
        tl.from_dlpack(a, "cpu")


def test_from_dlpack_legacy_producer_fallback():
    class LegacyProducer:  # knows only the pre-1.0 signature
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = np.arange(4, dtype=np.int32)
    t = tl.from_dlpack(LegacyProducer(a))
    a[1] = 40
    assert t.tolist() == [0, 40, 2, 3]
    assert tl.from_dlpack(LegacyProducer(a), copy=True).data_ptr() != t.data_ptr()


def test_from_dlpack_producer_on_other_device():
    class CudaProducer:
        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be asked for a capsule")

        def __dlpack_device__(self):
            return (2, 1)

    with pytest.raises(BufferError, match="cuda"):
        tl.from_dlpack(CudaProducer())


def test_from_dlpack_rejects_non_producers():
    with pytest.raises(TypeError, match="list"):
        tl.from_dlpack([1, 2])

    class Bad:
        def __dlpack__(self, **kwargs):
            return 5

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match="int"):
        tl.from_dlpack(Bad())


# ---- capsules: consumed once, deleter exactly once --------------------------------------

@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_capsule_consumed_once(max_version):
    a = np.arange(4.0)
    cap = a.__dlpack__(max_version=max_version)
    name = capsule_name(cap)
    t = tl.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    with pytest.raises(ValueError, match="consumed"):
        tl.from_dlpack(cap)
    a[0] = 7
    assert t[0].item() == 7


def test_foreign_capsule_with_wrong_name():
    dummy = ctypes.c_int(0)
    cap = _capsule_new(ctypes.addressof(dummy), b"not_dlpack", None)
    with pytest.raises(TypeError, match="not_dlpack"):
        tl.from_dlpack(cap)


@pytest.mark.parametrize("versioned", [True, False])
def test_forged_capsule_deleter_called_exactly_once(versioned):
    a = np.arange(12.0).reshape(3, 4)
    p = ForgedProducer(a, versioned=versioned)
    t = tl.from_dlpack(p.capsule)
    v = t[::-1, 1:]
    assert p.deleted == 0
    a[2, 1] = 99
    assert v[0, 0].item() == 99
    del t
    gc.collect()
    assert p.deleted == 0
    del v
    gc.collect()
    assert p.deleted == 1
    gc.collect()
    assert p.deleted == 1


def test_forged_capsule_readonly_flag():
    a = np.arange(4.0)
    p = ForgedProducer(a, flags=FLAG_READ_ONLY)
    t = tl.from_dlpack(p.capsule)
    with pytest.raises(ValueError, match="read-only"):
        t.mul_(2)
    assert not np.from_dlpack(t).flags.writeable
    del t
    gc.collect()
    assert p.deleted == 1


def test_forged_capsule_byte_offset_and_negative_strides():
    a = np.arange(10.0)
    p = ForgedProducer(a, byte_offset=9 * 8, shape=(4,), strides=(-3,))
    t = tl.from_dlpack(p.capsule)
    assert t.tolist() == [9.0, 6.0, 3.0, 0.0]
    a[0] = -1
    assert t[3].item() == -1
    del t
    gc.collect()
    assert p.deleted == 1


def test_forged_capsule_null_strides_mean_contiguous():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    p = ForgedProducer(a, versioned=False, dtype=(kDLInt, 32))
    p.struct.dl_tensor.strides = None
    t = tl.from_dlpack(p.capsule)
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tuple(t.stride()) == (3, 1)


def test_forged_capsule_bfloat16():
    bits = np.array([0x3FC0, 0xC000], dtype=np.uint16)  # 1.5, -2.0
    p = ForgedProducer(bits, dtype=(kDLBfloat, 16))
    t = tl.from_dlpack(p.capsule)
    assert t.dtype == tl.bfloat16
    assert t.float().tolist() == [1.5, -2.0]


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(dtype=(kDLUInt, 128)), TypeError, "uint"),
    (dict(dtype=(kDLFloat, 8)), TypeError, "float"),
    (dict(dtype=(7, 8)), TypeError, "code 7"),
    (dict(device=(2, 0)), BufferError, "cuda"),
    (dict(device=(8, 0)), BufferError, "metal"),
    (dict(major=2), BufferError, "version 2"),
    (dict(byte_offset=1), BufferError, "aligned"),
    (dict(shape=(-1,), strides=(1,)), BufferError, "negative size"),
    (dict(shape=(2**62, 4), strides=(4, 1)), BufferError, "overflow"),
    (dict(shape=(4,), strides=(2**62,)), BufferError, "overflow"),
])
def test_forged_capsule_rejected_stays_unconsumed(kwargs, exc, match):
    a = np.arange(4.0)
    p = ForgedProducer(a, **kwargs)
    with pytest.raises(exc, match=match):
        tl.from_dlpack(p.capsule)
    assert capsule_name(p.capsule) == "dltensor_versioned"
    assert p.deleted == 0  # still the producer's to delete


def test_forged_capsule_too_many_dims():
    a = np.zeros((1,) * 33)
    p = ForgedProducer(a)
    with pytest.raises(BufferError, match="32"):
        tl.from_dlpack(p.capsule)


def test_forged_empty_capsule_with_null_data():
    a = np.zeros((0, 3))
    p = ForgedProducer(a)
    p.struct.dl_tensor.data = None
    t = tl.from_dlpack(p.capsule)
    assert tuple(t.shape) == (0, 3)
    assert t.numpy().shape == (0, 3)
    del t
    gc.collect()
    assert p.deleted == 1


# ---- tensor -> tensor ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", list(NP_DTYPES))
def test_tensor_to_tensor_dlpack_shares_storage(dtype):
    t = tensor_sample(dtype)[::-1, ::2]
    u = tl.from_dlpack(t)
    assert u.dtype == t.dtype and u.shape == t.shape and u.stride() == t.stride()
    assert u.data_ptr() == t.data_ptr()
    before = t._version
    u.zero_()
    assert t._version > before  # one storage, one version counter
    assert not t.abs().float().numpy().any()


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_tensor_to_tensor_capsule(max_version):
    t = tl.tensor([1.0, 2.0, 3.0])
    cap = t.__dlpack__(max_version=max_version)
    u = tl.from_dlpack(cap)
    u[1] = 20
    assert t.tolist() == [1.0, 20.0, 3.0]
    with pytest.raises(ValueError, match="consumed"):
        tl.from_dlpack(cap)


def test_tensor_to_tensor_readonly_propagates():
    t = tl.tensor([1.0, 2.0])
    t._set_readonly(True)
    u = tl.from_dlpack(t)
    with pytest.raises(ValueError, match="read-only"):
        u.add_(1)


def test_tensor_to_tensor_keeps_storage_alive():
    a = np.arange(3.0)
    base = sys.getrefcount(a)
    t = tl.from_numpy(a)
    u = tl.from_dlpack(t)
    del t
    gc.collect()
    assert u.tolist() == [0.0, 1.0, 2.0]
    del u
    gc.collect()
    assert sys.getrefcount(a) == base


# ---- leaks ---------------------------------------------------------------------------

def assert_rss_flat(base, slack=32 << 20):
    oracle.assert_rss_flat(base, slack)


def round_trips(a, n):
    for _ in range(n):
        t = tl.from_numpy(a)
        t.numpy()
        np.asarray(t)
        memoryview(t).release()
        np.from_dlpack(t)
        tl.from_dlpack(a)
        tl.from_dlpack(t)
        tl.from_dlpack(t.__dlpack__())
        t.__dlpack__(max_version=(1, 0))  # dropped unconsumed
        tl.from_dlpack(a.__dlpack__(max_version=(1, 0)))
        t.__array__(copy=True)


def test_no_leaks_over_many_round_trips():
    # 64 KiB per array: a leaked storage or export per trip would add
    # hundreds of MiB; refcounts show a leaked reference to the source.
    a = np.zeros(16384, dtype=np.float32)
    round_trips(a, 200)
    gc.collect()
    base_ref = sys.getrefcount(a)
    base_rss = rss_bytes()
    round_trips(a, 10_000)
    gc.collect()
    assert sys.getrefcount(a) == base_ref
    assert_rss_flat(base_rss)


def test_no_leaks_exporting_fresh_tensors():
    def trips(n):
        for _ in range(n):
            t = tl.zeros(16384)
            np.from_dlpack(t)
            tl.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
            np.asarray(t)
            t.__dlpack__()

    trips(200)
    gc.collect()
    base = rss_bytes()
    trips(10_000)
    gc.collect()
    assert_rss_flat(base)


# ---- torchlike.utils.dlpack ------------------------------------------------------

def test_utils_dlpack_round_trip():
    import torchlike.utils.dlpack as tdl
    t = tl.tensor([1.0, 2.0])
    cap = tdl.to_dlpack(t)
    assert capsule_name(cap) == "dltensor"
    u = tdl.from_dlpack(cap)
    u[0] = 5
    assert t[0].item() == 5
    assert tl.to_dlpack is tdl.to_dlpack and tdl.from_dlpack is tl.from_dlpack


# ---- random views (hypothesis) ------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402


@st.composite
def strided_views(draw):
    """A random ndarray view: up to 4 dims, any step sign, maybe transposed."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(0, 5)) for _ in range(ndim))
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    a = np.asarray(sample(dtype, shape, seed=draw(st.integers(0, 10))))  # 0-d stays an array
    index = tuple(slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2, -1, -2])))
                  for _ in range(ndim))
    v = a[index] if ndim else a  # a[()] would give a NumPy scalar
    if ndim >= 2 and draw(st.booleans()):
        v = v.swapaxes(0, ndim - 1)
    return v, dtype


def first_address(x):
    return x.__array_interface__["data"][0] if isinstance(x, np.ndarray) else x.data_ptr()


@given(strided_views())
def test_random_views_round_trip_every_path(case):
    a, dtype = case
    tensors = [tl.from_numpy(a), tl.from_dlpack(a), tl.as_tensor(a)]
    for t in tensors:
        assert t.dtype.name == dtype and tuple(t.shape) == a.shape
        np.testing.assert_array_equal(t.numpy(), a)
        if a.size:
            assert first_address(t) == first_address(a)
    t = tensors[0]
    for back in (t.numpy(), np.asarray(t), np.asarray(memoryview(t)), np.from_dlpack(t),
                 tl.from_dlpack(t).numpy()):
        assert back.shape == a.shape and back.strides == a.strides
        np.testing.assert_array_equal(back, a)
        if a.size:
            assert first_address(back) == first_address(a)
