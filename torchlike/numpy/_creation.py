"""Creation functions: NumPy's ``*_like`` family and copy (also registered for
``Tensor.__array_function__``), and the namespace's asarray, zeros, ones,
full, arange, linspace, eye ... with NumPy's default dtypes (float64, int64)
and Array API ``device=``/``copy=`` arguments."""
import builtins
import functools
import operator

import numpy as np

from .. import _C
from .._layout import contiguous_format
from .._array_function import (
    MASKED_TYPES, Unsupported, implements, tl_dtype, as_tensor, _host_tensor, flat, has_tensor,
    np_dtype, norm_axis, promote, scalar_count)

Tensor = _C.Tensor


def _same_layout(proto, shape, order):
    """The ``*_like`` call needs no layout work: the prototype is a C-ordered
    tensor and the result takes its shape (the common call, kept short)."""
    return shape is None and order in ("K", "C", "A") and type(proto) is Tensor and \
        proto.is_contiguous()


def _like(proto, dtype, shape, device, order="K"):
    """Shape, dtype, device and memory order of a ``*_like`` result: the
    prototype's unless given.  NumPy's orders: "C", "F", "A" (F when the
    prototype is Fortran-ordered and not C-ordered) and "K" (the prototype's
    layout, here C or F; C when a new shape is given of another rank)."""
    proto = as_tensor(proto)
    dtype = tl_dtype(dtype) or proto.dtype
    shape = scalar_count(shape)  # a size computed by the program
    new = None if shape is None else ((int(shape),) if isinstance(shape, (int, np.integer))
                                      else tuple(shape))
    fortran_proto = proto.ndim > 1 and not proto.is_contiguous() and \
        proto.permute(*reversed(range(proto.ndim))).is_contiguous()
    if order not in ("C", "F", "A", "K", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order in ("A", "K"):
        keeps = order == "A" or new is None or len(new) == proto.ndim
        order = "F" if fortran_proto and keeps else "C"
    shape = tuple(proto.shape) if new is None else new
    return shape, dtype, device or proto.device, order or "C"


@implements(np.empty_like)
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if dtype is None and device is None and shape is None and order == "K" and \
            type(prototype) is Tensor and prototype.is_contiguous():
        return _C.empty_like(prototype)  # the common call: no frames, no keywords
    if _same_layout(prototype, shape, order):
        return _C.empty_like(prototype, dtype=tl_dtype(dtype), device=device)
    shape, dtype, device, order = _like(prototype, dtype, shape, device, order)
    return _ordered_like(lambda s: _C.empty(s, dtype=dtype, device=device), shape, dtype,
                         order)


@implements(np.zeros_like)
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if dtype is None and device is None and shape is None and order == "K" and \
            type(a) is Tensor and a.is_contiguous():
        return _C.zeros_like(a)  # the common call, as empty_like's
    if _same_layout(a, shape, order):
        return _C.zeros_like(a, dtype=tl_dtype(dtype), device=device)
    shape, dtype, device, order = _like(a, dtype, shape, device, order)
    return _ordered_like(lambda s: _C.zeros(s, dtype=dtype, device=device), shape, dtype,
                         order)


@implements(np.ones_like)
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if dtype is None and device is None and shape is None and order == "K" and \
            type(a) is Tensor and a.is_contiguous():
        return _C.ones_like(a)  # the common call, as empty_like's
    if _same_layout(a, shape, order):
        return _C.ones_like(a, dtype=tl_dtype(dtype), device=device)
    shape, dtype, device, order = _like(a, dtype, shape, device, order)
    return _ordered_like(lambda s: _C.ones(s, dtype=dtype, device=device), shape, dtype,
                         order)


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype, device, order = _like(a, dtype, shape, device, order)
    if not isinstance(fill_value, (Tensor, bool, int, float, complex, np.generic)):
        fill_value = asarray(fill_value)  # array-like: broadcast over the shape, as NumPy
    if isinstance(fill_value, Tensor):  # a recorded copy, in the order asked
        try:
            filled = fill_value.to(dtype).expand(*shape)
        except RuntimeError:  # NumPy's class and words
            raise ValueError(f"could not broadcast input array from shape "
                             f"{tuple(fill_value.shape)} into shape {tuple(shape)}") from None
        return _copy_in_order(filled, order)
    fill_value = _scalar_fill(fill_value, dtype)
    return _ordered_like(lambda s: _C.full(s, fill_value, dtype=dtype, device=device), shape,
                         dtype, order)


@implements(np.copy)
def copy(a, order="K", subok=False):
    a = as_tensor(a)
    if order == "K":  # a's order of dims, whatever it is (clone's preserve_format)
        return a.clone()
    _, _, _, order = _like(a, None, None, None, order)
    if order == "F" and a.ndim > 1:
        # a Fortran-ordered copy (order="F", or "A" of an F-ordered array):
        # a C copy of the reversed axes, read back reversed; recorded ops
        rev = tuple(reversed(range(a.ndim)))
        return a.permute(*rev).contiguous().permute(*rev)
    return a.clone(memory_format=contiguous_format)


# ---------------------------------------------------------------------------
# the namespace's own creation functions: NumPy's default dtypes (float64,
# int64), Array API signatures (``device=``, ``copy=``)

def _default_dtype(value):
    """NumPy's dtype for a Python scalar fill value."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, np.generic):  # a NumPy scalar keeps its dtype (np.float32(2))
        return tl_dtype(value.dtype)
    if isinstance(value, (bool, np.bool_)):
        return _C.bool
    if isinstance(value, (int, np.integer)):  # past int64, NumPy's uint64 (np.full(2, 2**63))
        return _C.uint64 if 2 ** 63 <= value < 2 ** 64 else _C.int64
    if isinstance(value, (complex, np.complexfloating)):
        return _C.complex128
    return _C.float64


# A tuple goes to the core as it is (it refuses what is not an integer with a
# TypeError, as NumPy does), unless it holds a bool: the core takes a bool
# after the first size as PyTorch does (zeros((2, True)) is (2, 1) there),
# NumPy refuses any.  A bool equals 0 or 1, so only a shape holding one of
# those is looked at further.  Other shapes are made one here.
def _plain_shape(shape):
    return type(shape) is int or (type(shape) is tuple and not (
        (0 in shape or 1 in shape) and bool in map(type, shape)))


def _shape(shape):
    if type(shape) is int:
        return (shape,)
    if isinstance(shape, (bool, np.bool_)) or shape is None or isinstance(shape, float):
        raise _shape_type_error(shape)
    if type(shape) is tuple and all(type(s) is int for s in shape):
        return shape
    if isinstance(shape, (int, np.integer)) or \
            (isinstance(shape, (Tensor, np.ndarray)) and shape.ndim == 0):
        return (operator.index(shape),)  # an int, or a 0-d integer array
    if isinstance(shape, (list, tuple)) and any(isinstance(s, (bool, np.bool_)) for s in shape):
        raise TypeError("an integer is required")  # NumPy's words for [2, True]
    return tuple(operator.index(s) for s in shape)


# The core's factories refuse an impossible size with PyTorch's RuntimeError
# and words (torch.zeros(-1)); the namespace calls the same factories and
# answers here, after the fact, as NumPy does: the common call pays nothing.
_TOO_BIG = ("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
            "possible size.")


def _shape_type_error(shape):
    """NumPy's TypeError for a shape that is not an integer or a sequence of them."""
    if shape is None:
        return TypeError("Use () not None as shape arguments")
    return TypeError(f"expected a sequence of integers or a single integer, got '{shape}'")


# what a factory raises for a shape it cannot make (_size_refusal words it)
_SIZE_ERRORS = (RuntimeError, OverflowError, TypeError)


def _size_refusal(shape, dtype, error):
    """NumPy's exception for ``shape`` (of ``dtype``, None for float64) where a
    factory refused it with ``error`` (a RuntimeError, the OverflowError of a
    size past int64 or the TypeError of an entry that is no integer): an entry
    that is no integer is NumPy's TypeError in its words, a negative
    dimension, a size past intp or a byte count past it its ValueError, a
    size below that the core cannot hold its MemoryError; ``error`` itself
    when the shape was not what it refused."""
    try:
        dims = _shape(shape)
    except TypeError as e:
        return e if isinstance(error, TypeError) else error
    if isinstance(error, TypeError):  # the shape was not what it refused (a dtype, a bool)
        if isinstance(shape, (tuple, list)) and any(isinstance(d, (bool, np.bool_)) for d in shape):
            return TypeError("an integer is required")  # NumPy's words for (True, 2)
        return error
    if any(d < 0 for d in dims):
        return ValueError("negative dimensions are not allowed")
    if any(d > 2 ** 63 - 1 for d in dims):
        return ValueError("Maximum allowed dimension exceeded")
    dtype = tl_dtype(dtype) or _C.float64
    nbytes = dtype.itemsize
    for d in dims:  # NumPy multiplies the sizes that are not 0: (0, 2**62) overflows
        nbytes *= d or 1
    if nbytes > 2 ** 63 - 1:
        return ValueError(_TOO_BIG)
    if not isinstance(error, OverflowError) and "too large" in str(error):  # (not a fill's)
        nbytes = nbytes if all(dims) else 0
        return MemoryError(f"Unable to allocate {nbytes} bytes for an array with shape {dims} "
                           f"and data type {np_dtype(dtype)}")
    return error


def _refuse_empty_numpy_cannot(shape, dtype):
    """NumPy's ValueError for an empty shape whose other sizes overflow its
    byte count ((0, 2**62) in float64): NumPy multiplies the sizes that are
    not 0, where the core makes any empty tensor whose strides fit int64, as
    PyTorch does.  Only a shape given as a tuple or list holding 0 asks."""
    if type(shape) in (tuple, list) and 0 in shape:
        try:
            dims = _shape(shape)
        except TypeError:
            return  # the factory refuses it in its words
        nbytes = (tl_dtype(dtype) or _C.float64).itemsize
        for d in dims:
            nbytes *= d or 1
        if nbytes > 2 ** 63 - 1 and all(d >= 0 for d in dims):
            raise ValueError(_TOO_BIG)


def _place(x, device):
    return x if device is None or x.device == device else x.to(device)


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """An array from a tensor, an ndarray, a buffer or nested Python sequences.

    Tensors and ndarrays are taken without a copy when ``copy`` is not True and
    neither dtype nor device changes; ``copy=False`` refuses to copy.  ``order``
    "C"/"F" lays the result out so (a copy when it is not), "A" keeps a
    Fortran-ordered input Fortran-ordered, "K" (and None) keeps the layout.
    NumPy's signature: ``asarray(x, float, "F")`` and ``asarray(a=x)`` work."""
    obj = a
    if order is not None and order not in ("K", "k"):
        return _in_order(asarray(obj, dtype, device=device, copy=copy), order, copy)
    if type(obj) is Tensor and dtype is None and device is None and not copy:
        return obj  # the most common call of all: np.asarray(x) of a tensor
    if type(obj) is list and dtype is None and device is None and copy is not False and \
            not has_tensor(obj):  # the common call, short: a new array of host numbers
        a = np.asarray(obj)
        if a.dtype.kind in "biufc":
            # on the host unless another default device is set (a device's
            # type says it: the host's has no index)
            default = _C._get_default_device()
            a = _C.from_numpy(a)
            return a if default.type == "cpu" else a.to(default)
    dtype = tl_dtype(dtype)
    if isinstance(obj, Tensor):
        result = obj
    elif MASKED_TYPES and isinstance(obj, MASKED_TYPES[0]):
        # NumPy's: the data without the mask, where it lives (its DLPack
        # export, taken below, cannot import a device's memory)
        result = obj.data
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        result = _C.from_dlpack(obj)
    else:
        if copy is False and not isinstance(obj, np.ndarray) and \
                not hasattr(obj, "__array_interface__") and not _is_buffer(obj):
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        if isinstance(obj, (list, tuple)) and has_tensor(obj):
            if dtype is not None and not dtype.is_complex:
                _check_items(obj, dtype)  # as NumPy's conversion does
            if dtype is not None and dtype != _C.bfloat16:
                obj = _items_in(obj, dtype)
            result = as_tensor(obj)
        else:
            a = np.asarray(obj, dtype=None if dtype is None else np_dtype(dtype))
            if a.dtype.kind == "O":
                raise TypeError(f"asarray() cannot build an array from {type(obj).__name__}: "
                                f"NumPy makes an object array of it (ragged nesting or Python "
                                f"objects), and torchlike has no object dtype")
            result = _host_tensor(a)  # the explicit transfer: never refused
            if copy and (isinstance(obj, (list, tuple, int, float, complex)) or
                         result.data_ptr() != _data_ptr(a)):
                copy = None  # already a fresh copy (of a list, say): no second one
            # Host data becomes an array on the default device, as cupy.asarray
            # copies it to the GPU (a tensor stays where it is).
            device = _C._get_default_device() if device is None else device
    changed = (dtype is not None and result.dtype != dtype) or \
        (device is not None and result.device != device)
    if changed and copy is False:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if dtype is not None and result.dtype != dtype:
        result = result.to(dtype)
    result = _place(result, device)
    if copy and not changed:
        result = result.clone()
    return result


def ascontiguousarray(a, dtype=None, *, like=None):
    """A C-ordered array of at least one dimension (NumPy's C function
    would read a device tensor's memory on the host)."""
    result = asarray(a, dtype, order="C")
    return result.reshape(1) if result.ndim == 0 else result


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``asarray`` that passes a masked array through, as NumPy's passes an
    ndarray subclass (a tensor is returned as it is: recorded, on its
    device; NumPy's own function made an ndarray of it)."""
    if MASKED_TYPES and isinstance(a, MASKED_TYPES[0]) and device is None and not copy:
        from . import ma
        return ma.asanyarray(a, dtype=dtype, order=order)
    return asarray(a, dtype, order, device=device, copy=copy)


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray`` that refuses infinities and NaN with NumPy's ValueError
    (one reduction and one read of its answer, on any device)."""
    a = asarray(a, dtype, order)
    if (a.is_floating_point() or a.is_complex()) and not bool(_C.isfinite(a.detach()).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


# NumPy's requirement names -> its flags' keys
_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                 "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W",
                 "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """NumPy's ``require``: an array of ``dtype`` with the flags asked for
    (a copy only when the input lacks one), a tensor on the input's device
    and on the tape; a masked array passes through unless ``'E'`` asks for
    a base array, as NumPy's subclasses do."""
    if not requirements:
        return asanyarray(a, dtype=dtype)
    wanted = set()   # a string is its letters, as NumPy reads it ("CW")
    for r in requirements:
        key = _REQUIREMENTS.get(r.upper()) if isinstance(r, str) else None
        if key is None:
            raise KeyError(r)
        wanted.add(key)
    base = "E" in wanted
    wanted.discard("E")
    if wanted >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "F" if "F" in wanted else "C" if "C" in wanted else "A"
    wanted -= {"C", "F"}
    arr = asarray(a, dtype, order) if base else asanyarray(a, dtype, order)
    for key in sorted(wanted):
        if not arr.flags[key]:
            return arr.copy(order=order)
    return arr


def asfortranarray(a, dtype=None, *, like=None):
    """A Fortran-ordered array of at least one dimension, on the input's
    device."""
    result = asarray(a, dtype, order="F")
    return result.reshape(1) if result.ndim == 0 else result


def _check_items(obj, dtype):
    """The Python numbers in the nested lists and tuples obj convert to dtype
    (real, not complex) as NumPy converts them: no complex number (but into
    bool), and into
    an integer dtype as int() makes them (a NaN raises ValueError, an
    infinity OverflowError), fitting it (NEP 50)."""
    exact = not (dtype.is_floating_point or dtype == _C.bool)
    for item in obj:
        if isinstance(item, (list, tuple)):
            _check_items(item, dtype)
        elif isinstance(item, complex) and dtype != _C.bool:  # bool(z): z != 0
            raise TypeError(f"{'int' if exact else 'float'}() argument must be a string or a "
                            f"real number, not 'complex'")
        elif exact:
            _check_int_fits(int(item) if type(item) is float else item, dtype)


def _items_in(obj, dtype):
    """The nested lists and tuples obj with each item in ``dtype``, as
    NumPy converts each one there before it joins them: joined first in
    their common dtype, 2**53 + 1 beside a float tensor went through
    float64 on its way to int64, and a Python int past int64 (alone an
    object to NumPy) had no dtype at all."""
    if isinstance(obj, (list, tuple)):
        return [_items_in(item, dtype) for item in obj]
    if isinstance(obj, Tensor):
        return obj if obj.dtype == dtype else obj.to(dtype)
    return np.asarray(obj, dtype=np_dtype(dtype))


def _fortran(t):
    return t.ndim > 1 and t.permute(*reversed(range(t.ndim))).is_contiguous()


def _in_order(result, order, copy):
    """result laid out in NumPy's ``order`` of asarray/array: "C" and "F" copy
    a result of another layout (``copy=False`` refuses to), "A", "K" and None
    keep it (a copy made for another reason keeps the input's layout already)."""
    order = order.upper() if isinstance(order, str) else order
    if order not in ("C", "F", "A", "K", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order in ("A", "K", None) or \
            (result.is_contiguous() if order == "C" or result.ndim < 2 else _fortran(result)):
        return result
    if copy is False:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return _copy_in_order(result, order)


def _copy_in_order(src, order):
    """A copy of src laid out in ``order``, "C" or "F"."""
    if order == "C" or src.ndim < 2:
        return src.clone(memory_format=contiguous_format)
    layout = _ordered(lambda s: _C.empty(s, dtype=src.dtype, device=src.device),
                      tuple(src.shape), order)
    return layout.copy_(src)


def _is_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _data_ptr(a):
    return a.__array_interface__["data"][0] if a.size else -1


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, device=None,
          like=None):
    """NumPy's ``np.array``: a copy unless ``copy=False``/``None`` allows a view."""
    result = asarray(object, dtype, device=device, copy=copy)
    if ndmin == 0 and order == "K":  # the common call: nothing to add or lay out
        return result
    if result.ndim < ndmin:
        result = result.reshape((1,) * (ndmin - result.ndim) + tuple(result.shape))
    return _in_order(result, order, copy)


def _ordered(make, shape, order):
    """``make(shape)`` laid out in ``order``: "C" (row-major) or "F" (column-major:
    the reversed shape made C-contiguous, then its axes reversed, as NumPy's
    Fortran-ordered arrays are strided)."""
    shape = _shape(shape)
    if order in ("C", "K", "A", None):
        return make(shape)
    if order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    # detach(): the Fortran-ordered result owns its memory (no view: base None)
    return make(shape[::-1]).permute(*reversed(range(len(shape)))).detach()


def _ordered_like(make, shape, dtype, order):
    """_ordered for the *_like functions, with NumPy's refusals of the shape."""
    try:
        return _ordered(make, shape, order)
    except _SIZE_ERRORS as e:
        raise _size_refusal(shape, dtype, e) from None


def _created(make, shape, dtype, order, device):
    """``make(shape, dtype=, device=)`` with NumPy's default dtype (float64),
    in ``order``; the common call (C order) without the layout work."""
    dtype = tl_dtype(dtype) or _C.float64
    if order == "C":
        return make(shape if _plain_shape(shape) else _shape(shape), dtype=dtype,
                    device=device)
    shape = _shape(shape)  # NumPy checks the shape before the order
    return _ordered(lambda s: make(s, dtype=dtype, device=device), shape, _c_or_f(order))


def _c_or_f(order):
    """The order of zeros/ones/empty/full: "C" or "F" in either case, None for
    "C"; NumPy refuses "A" and "K" there, which only the *_like take."""
    if order is None:
        return "C"
    if isinstance(order, str) and order.upper() in ("C", "F"):
        return order.upper()
    if isinstance(order, str) and order.upper() in ("A", "K"):
        raise ValueError("only 'C' or 'F' order is permitted")
    raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


# The common call -- an int or tuple shape, C order, on the default device --
# goes straight to the core: _created's frames had tripled the cost of
# np.zeros((4, 4)) and quadrupled np.zeros(4)'s.
_F64 = _C.float64


def _filled(make, name):
    """The namespace's ``name`` (empty, zeros, ones): ``make(shape, dtype=)``
    with NumPy's default dtype and its refusals of the shape; the common
    call (C order, the default device) straight to the factory."""
    def create(shape, dtype=None, order="C", *, device=None, like=None):
        _refuse_empty_numpy_cannot(shape, dtype)
        try:
            if device is None and order == "C" and (type(shape) is int or (
                    type(shape) is tuple and not ((0 in shape or 1 in shape) and
                                                  bool in map(type, shape)))):  # _plain_shape
                return make(shape, dtype=_F64 if dtype is None else tl_dtype(dtype))
            return _created(make, shape, dtype, order, device)
        except _SIZE_ERRORS as e:
            raise _size_refusal(shape, dtype, e) from None
    create.__name__ = create.__qualname__ = name
    return create


empty = _filled(_C.empty, "empty")
zeros = _filled(_C.zeros, "zeros")
ones = _filled(_C.ones, "ones")


class _NdarrayType(type):
    """The metaclass of the namespace's ndarray: every tensor is an instance
    (and every Tensor subclass a subclass), and calling ndarray itself is
    NumPy's constructor.  torchlike.Tensor keeps PyTorch's (Tensor((2, 3)) is
    data there, an array of shape (2, 3) here)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, Tensor)

    def __call__(cls, *args, **kwargs):
        if cls is not ndarray:  # a user's subclass: Tensor's constructor, as before
            return super().__call__(*args, **kwargs)
        return _ndarray_new(*args, **kwargs)


def _ndarray_new(shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    """NumPy's ndarray(shape, dtype=float, buffer=None, offset=0, strides=None,
    order=None): an uninitialised array; over a buffer (or with strides)
    NumPy lays it out and the tensor shares its memory."""
    if shape is None:
        raise TypeError("Use () not None as shape arguments")
    if buffer is not None or strides is not None:
        return asarray(np.ndarray(shape, np_dtype(tl_dtype(dtype) or _C.float64), buffer, offset,
                                  strides, order))
    if order is None or (isinstance(order, str) and order.upper() in ("A", "K")):
        order = "C"
    return empty(shape, dtype=dtype, order=order)


class ndarray(Tensor, metaclass=_NdarrayType):
    """NumPy's ndarray in this namespace: ``isinstance(t, ndarray)`` holds for
    every tensor, and ``ndarray(shape, dtype=float, buffer=None, offset=0,
    strides=None, order=None)`` is NumPy's constructor (an uninitialised
    array, as ``empty``)."""
    __module__ = "torchlike.numpy"


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    _refuse_empty_numpy_cannot(shape, dtype if dtype is not None else _default_dtype(fill_value))
    try:
        if dtype is None and device is None and order == "C" and _plain_shape(shape):
            # the common call, as zeros': a Python float (float64) or an int64 int
            if type(fill_value) is float:
                return _C.full(shape, fill_value, dtype=_F64)
            if type(fill_value) is int and -2 ** 63 <= fill_value < 2 ** 63:
                return _C.full(shape, fill_value, dtype=_I64)
        return _full(shape, fill_value, dtype, order, device)
    except _SIZE_ERRORS as e:
        raise _size_refusal(shape, dtype if dtype is not None else _default_dtype(fill_value),
                            e) from None


def _full(shape, fill_value, dtype, order, device):
    if not isinstance(fill_value, (Tensor, bool, int, float, complex, np.generic)):
        fill_value = asarray(fill_value)  # array-like: broadcast over the shape, as NumPy
    dtype = tl_dtype(dtype) or _default_dtype(fill_value)
    if isinstance(fill_value, Tensor):
        shape = _shape(shape)
        if any(s < 0 for s in shape):
            raise ValueError("negative dimensions are not allowed")
        try:
            filled = _C.broadcast_to(fill_value.to(dtype), shape)
        except RuntimeError:  # NumPy's class and words
            raise ValueError(f"could not broadcast input array from shape "
                             f"{tuple(fill_value.shape)} into shape {tuple(shape)}") from None
        return _place(_copy_in_order(filled, _c_or_f(order)), device)
    try:
        fill_value = _scalar_fill(fill_value, dtype)
    except OverflowError:
        if any(s < 0 for s in _shape(shape)):  # NumPy checks the shape and order first
            raise ValueError("negative dimensions are not allowed") from None
        _c_or_f(order)
        raise
    return _created(lambda s, dtype, device: _C.full(s, fill_value, dtype=dtype, device=device),
                    shape, dtype, order, device)


def _scalar_fill(value, dtype):
    """A Python number to fill a dtype with, as NumPy's full/full_like fill it:
    an int must fit an integer dtype (NEP 50); a float or complex is cast to
    a dtype of a lower kind as NumPy's copyto(casting="unsafe") casts it, with
    the warnings it gives (the imaginary part dropped, a float truncated into
    an integer dtype, NaN and values out of range as NumPy's cast makes them,
    where the core would refuse them)."""
    if type(value) is int and not (dtype.is_floating_point or dtype.is_complex or
                                   dtype is _C.bool):
        _check_int_fits(value, dtype)
        return value
    if type(value) is int and dtype is _C.bool and not -2 ** 63 <= value < 2 ** 63:
        # NumPy converts an int into a bool array through a C long
        raise OverflowError("Python int too large to convert to C long")
    if isinstance(value, int) and not isinstance(value, bool) and \
            (dtype.is_floating_point or dtype.is_complex):
        value = float(value)  # beyond int64 too, as NumPy converts it
    if type(value) is float and dtype is _C.float64:
        return value  # NumPy's cast to float64 gives it back (no errstate, no array)
    if not isinstance(value, (float, complex)) or dtype is _C.complex128:
        return value
    if dtype is _C.bool:
        return bool(value)
    # NumPy's cast, with its warnings: inf past a float's range and NaN into
    # an integer dtype (RuntimeWarning), an imaginary part dropped (ComplexWarning)
    cast = np.float32 if dtype == _C.bfloat16 else np_dtype(dtype)
    return np.array(value).astype(cast).item()


def _bound_number(v):
    if isinstance(v, (Tensor, np.ndarray)):
        if v.ndim != 0:
            raise TypeError(f"arange: bounds must be scalars, got an array of shape {tuple(v.shape)}")
        return v.item()
    return v


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, like=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None and type(start) is int and type(stop) is int and type(step) is int and \
            step and _SHORT_LOW < start < _SHORT and _SHORT_LOW < stop < _SHORT:
        # Python ints well inside int64 (the common call, kept short): int64 values
        n = -((start - stop) // step)
        if n <= 0 or start == 0 and step == 1:
            return _C.arange(n if n > 0 else 0, dtype=_I64, device=device)
        if device is None:
            return _C.arange(start, start + n * step, step, dtype=_I64)
        return _C.arange(start, start + n * step, step, dtype=_I64, device=device)
    # A 0-d tensor or array bound (k from iterating an int tensor, n = a.size)
    # counts as its Python number, so integer bounds keep an integer result.
    start, stop, step = (_bound_number(v) for v in (start, stop, step))
    if step == 0:
        raise ZeroDivisionError("division by zero")
    try:  # NumPy's length check comes first, before any dtype is chosen
        count = np.ceil((stop - start) / step)
    except OverflowError:  # a Python int quotient past float64
        count = np.inf
    if count != count:
        raise ValueError(f"arange: cannot compute length (arange({start}, {stop}, {step}))")
    if not -2 ** 63 <= count < 2 ** 63:  # inf, past intp: NumPy's error, even below zero
        raise ValueError(f"Maximum allowed size exceeded (arange({start}, {stop}, {step}))")
    n = max(int(count), 0)
    dtype = tl_dtype(dtype) if dtype is not None else _range_dtype(start, stop, step)
    if dtype.is_floating_point:
        return _float_range(start, step, n, dtype, device)
    if dtype.is_complex:
        start, step = (_huge_as_float(v) for v in (start, step))
        return _C.arange(n, dtype=_C.float64, device=device).mul(step).add(start).to(dtype)
    if dtype == _C.bool:  # NumPy's: the first two values, no more
        if n > 2:
            raise TypeError("arange() is only supported for booleans when the result has at "
                            "most length 2.")
        return _C.tensor([builtins.bool(start), builtins.bool(start + step)][:n], dtype=dtype,
                         device=device)
    # NumPy converts the first two values to the dtype (a float truncated, an
    # int that must fit) and repeats their difference: arange(-0.8, 4,
    # dtype=uint64) is five zeros, arange(0.5, 3.7, dtype=int8) 0 1 2 3
    if n == 0:  # nothing converted: no value to refuse
        return _C.empty((0,), dtype=dtype, device=device)
    first = int(start)
    _check_int_fits(first, dtype)
    delta = 1
    if n > 1:
        second = int(start + step)
        _check_int_fits(second, dtype)
        delta = second - first
    if first == 0 and delta == 1:
        return _C.arange(n, dtype=dtype, device=device)
    if dtype == _C.uint64:  # values past int64's range: the steps wrap as uint64, then first
        return _C.arange(n, dtype=_C.int64, device=device).mul_(delta).to(dtype).add_(first)
    return _C.arange(n, dtype=_C.int64, device=device).mul_(delta).add_(first).to(dtype)


def _range_dtype(start, stop, step):
    """arange's dtype without dtype=, NumPy's: int64 for integer bounds that
    fit it, float64 when one needs uint64 (NumPy's promotion of uint64 with
    int64, the step's default 1 being one) or a bound is a float.  Past
    uint64 NumPy makes an object array, a dtype torchlike lacks."""
    if not all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return _C.float64
    bounds = [int(v) for v in (start, stop, step)]
    if all(-2 ** 63 <= v < 2 ** 63 for v in bounds):
        return _C.int64
    if all(-2 ** 63 <= v < 2 ** 64 for v in bounds):
        return _C.float64
    raise TypeError(f"arange({start}, {stop}, {step}): NumPy makes an object array of bounds "
                    f"past uint64's range; torchlike has no object dtype (give dtype=float64, "
                    f"or bounds within uint64)")


# arange's common call: bounds within +-2**62 (a bound negated per call
# would be a new big int each time)
_SHORT = 1 << 62
_SHORT_LOW = -_SHORT
_I64 = _C.int64


def _check_int_fits(value, dtype):
    """NEP 50: a Python integer outside an integer dtype raises (np.full(2, -1,
    uint8), np.arange(-1, 3, dtype=uint16)) instead of wrapping."""
    if type(value) is int:
        low, high, name = _int_bounds(dtype)
        if not low <= value <= high:
            raise OverflowError(f"Python integer {value} out of bounds for {name}")


@functools.lru_cache(maxsize=None)
def _int_bounds(dtype):
    info = np.iinfo(np_dtype(dtype))  # slow to build: a few microseconds
    return int(info.min), int(info.max), str(info.dtype)


def _huge_as_float(v):
    """A Python int past uint64 (which a tensor cannot hold) as a float."""
    return float(v) if type(v) is int and not -2 ** 63 <= v < 2 ** 64 else v


def _float_range(start, step, n, dtype, device):
    """NumPy's float arange, bit for bit: the first two values are start and
    start + step in the result's dtype, the others start + i * delta with
    delta their difference, computed in that dtype (float32 for the 16-bit
    floats, as NumPy's half fill does)."""
    work = _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype
    if n == 0:  # nothing converted (NumPy's float16 arange(2**31, 10) is empty)
        return _C.empty((0,), dtype=dtype, device=device)
    # through float64, so a value past dtype's range is inf (NumPy's cast), not refused
    first, second = (_C.full((), _huge_as_float(v), dtype=_C.float64, device=device).to(dtype)
                     .to(work) for v in (start, start + step))
    result = _C.arange(n, dtype=work, device=device) * (second - first) + first
    result[0] = first  # (0 * a NaN difference, between two infinities, is NaN)
    if n > 1:
        result[1] = second
    return result.to(dtype)


def _to_dtype(result, dtype):
    """``result`` as ``dtype``; integers are floored first, as NumPy's linspace does
    (a cast alone would round toward zero)."""
    if dtype is None or result.dtype == dtype:
        return result
    if not (dtype.is_floating_point or dtype.is_complex or dtype == _C.bool) and \
            result.is_floating_point():
        result = _C.floor(result)
    return result.to(dtype)


def _linspace_scalars(start, stop, /, num=50, endpoint=True, retstep=False, dtype=None,
                      axis=0, *, device=None):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if isinstance(start, Tensor) or isinstance(stop, Tensor) or axis != 0:
        raise Unsupported("linspace with array end points")
    dtype = tl_dtype(dtype)
    complex_ends = isinstance(start, complex) or isinstance(stop, complex)
    work = _C.complex128 if complex_ends or (dtype is not None and dtype.is_complex) \
        else _C.float64
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 and start != stop else \
        0.0 if div > 0 else float("nan")
    index = _C.arange(num, dtype=_C.float64, device=device).to(work)
    # equal end points (infinities too) give start everywhere, not inf - inf
    result = index.mul_(step).add_(start) if div > 0 and start != stop else \
        _C.full((num,), start, dtype=work, device=device)
    if endpoint and num > 1:
        result[-1] = stop
    result = _to_dtype(result, dtype)
    if not retstep:
        return result
    if div <= 0:
        return result, step  # NumPy's Python nan
    # NumPy's step is its scalar of the working dtype (np.float64 is a float)
    return result, (np.complex128 if work == _C.complex128 else np.float64)(step)


def eye(N, M=None, k=0, dtype=None, order="C", *, device=None, like=None):
    M = N if M is None else M
    # The result is allocated first, so an impossible size raises before any work.
    try:
        out = _C.zeros((N, M), dtype=tl_dtype(dtype) or _C.float64, device=device)
    except _SIZE_ERRORS as e:
        raise _size_refusal((N, M), dtype, e) from None
    k = int(k)
    if -N < k < M:  # beyond the corners every diagonal is empty
        out.diagonal(k).fill_(1)
    return out


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None, *, like=None):
    M = N if M is None else M
    N, M = max(int(N), 0), max(int(M), 0)  # NumPy: a negative size is an empty side
    # ones, then its lower part: an impossible size raises before any work, and
    # nothing larger than the result is made on the way
    try:
        ones = _C.ones((N, M), dtype=tl_dtype(dtype) or _C.float64)
    except RuntimeError as e:
        raise _size_refusal((N, M), dtype, e) from None
    return _C.tril(ones, int(k))


def from_dlpack(x, /, *, device=None, copy=None):
    result = _C.from_dlpack(x)
    if copy:
        result = result.clone()
    return _place(result, device)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    # dtype=None is float64 to NumPy, not "no dtype"; a NumPy dtype or a
    # string is read as NumPy reads it, its byte order included (the values
    # then land in a native-endian tensor)
    np_type = np_dtype(tl_dtype(dtype) or _C.float64)  # refuses dtypes torchlike lacks
    if isinstance(dtype, (str, np.dtype)):
        np_type = np.dtype(dtype)
    # host bytes as an array on the default device, as asarray makes them (zero-copy on the CPU)
    return asarray(np.frombuffer(buffer, dtype=np_type, count=count, offset=offset))


# ---- spaced values between tensor end points ------------------------------------------
# NumPy's Python code for these casts its end points with float(); with tensors
# as end points they are built here from recorded ops, so the result is
# differentiable in start and stop, and broadcasts them as NumPy does.

@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    num = operator.index(num)  # NumPy's TypeError for num=2.5
    if not (isinstance(start, Tensor) or isinstance(stop, Tensor)) and axis == 0 and \
            isinstance(start, (int, float, complex)) and isinstance(stop, (int, float, complex)):
        return _linspace_scalars(start, stop, num, endpoint, retstep, dtype, device=device)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    # a Python number beside an array end point is weak (NEP 50): float32
    # end points with a Python float stay float32
    weak = (builtins.bool, int, float, complex)
    if isinstance(start, weak) and isinstance(stop, weak) or not isinstance(start, weak):
        start = as_tensor(start)
    stop = stop if isinstance(stop, weak) and isinstance(start, Tensor) else as_tensor(stop)
    work = _C.result_type(start, stop)
    start, stop = (x if isinstance(x, Tensor) else _C.full((), x, dtype=work, device=y.device)
                   for x, y in ((start, stop), (stop, start)))
    if not (work.is_floating_point or work.is_complex):
        work = _C.float64
    start, stop = _C.broadcast_tensors(start.to(work), stop.to(work))
    # NumPy's arithmetic, for NumPy's values: start + i * step, and where a step
    # is zero (equal end points) start + (i / div) * delta
    div = (num - 1) if endpoint else num
    index = _C.arange(num, dtype=_C.float64, device=start.device)
    if work.is_floating_point:
        index = index.to(work)
    elif work == _C.complex64:  # float64 indices would promote to complex128
        index = index.to(_C.float32)
    index = index.reshape(num, *([1] * start.ndim))
    delta = stop - start
    step = delta / div if div > 0 else stop * float("nan")
    if div > 0:
        zero = bool((step == 0).any()) if step.numel() else False
        result = (index / div) * delta + start if zero else index * step + start
    else:
        result = index * delta + start
    if endpoint and num > 1:
        result = _C.cat([result[:-1], stop.unsqueeze(0)], 0)  # the end point exactly
    axis = norm_axis(axis, start.ndim + 1)
    result = _to_dtype(_C.movedim(result, 0, axis) if axis else result, tl_dtype(dtype))
    return (result, step) if retstep else result


# numbers as end points: like linspace's, the sequence is made on the default
# device (a creation function's), not on the CPU as host data given to a call
_NUMBERS = (int, float, np.integer, np.floating)


def _numbers(*values):
    return all(isinstance(v, _NUMBERS) for v in values)


@implements(np.logspace)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    if isinstance(base, (int, float)):  # a Python number: weak, as in NumPy
        first = asarray(start) if _numbers(start, stop) else as_tensor(start)
        result = base ** linspace(first, stop, num, endpoint, axis=axis)
        return result.to(tl_dtype(dtype)) if dtype is not None else result
    start, stop, base = as_tensor(start), as_tensor(stop), as_tensor(base)
    # NumPy's: the three broadcast, base gets the new axis, then base ** y
    ndim = max(start.ndim, stop.ndim, base.ndim)
    start, stop, base = (t.reshape(*([1] * (ndim - t.ndim)), *t.shape)
                         for t in (start, stop, base))
    exponents = linspace(start, stop, num, endpoint, axis=axis)
    base = base.unsqueeze(norm_axis(axis, ndim + 1))
    result = _C.pow(*promote(base, exponents))
    return result.to(tl_dtype(dtype)) if dtype is not None else result


@implements(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    place = asarray if _numbers(start, stop) else as_tensor
    start, stop = place(start), place(stop)
    if start.is_complex() or stop.is_complex():
        raise Unsupported("geomspace with complex end points")
    if bool((start == 0).any()) or bool((stop == 0).any()):
        raise ValueError("Geometric sequence cannot include zero")
    # Same sign end points: a log-spaced sequence of magnitudes, with the sign
    # put back (NumPy goes through complex numbers only for opposite signs).
    if bool(((start < 0) != (stop < 0)).any()):
        raise Unsupported("geomspace between end points of opposite signs")
    # NumPy's result dtype: its end points promoted with float64 (which its
    # code brings in), so float32 end points give float64 too
    work = _C.promote_types(_C.result_type(start, stop), _C.float64)
    start, stop = _C.broadcast_tensors(start.to(work), stop.to(work))
    result = _C.sign(start) * logspace(_C.log10(start.abs()), _C.log10(stop.abs()), num,
                                       endpoint).to(work)
    # the end points exactly, as NumPy sets them
    if num > 0:
        pieces = [start.unsqueeze(0), result[1:]]
        if endpoint and num > 1:
            pieces = [start.unsqueeze(0), result[1:-1], stop.unsqueeze(0)]
        result = _C.cat(pieces, 0)
    axis = norm_axis(axis, start.ndim + 1)
    result = _C.movedim(result, 0, axis) if axis else result
    return result.to(tl_dtype(dtype)) if dtype is not None else result  # NumPy: astype


@implements(np.vander)
def vander(x, N=None, increasing=False):
    x = as_tensor(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else int(N)
    powers = _C.arange(n, device=x.device)
    if not increasing:
        powers = powers.flip(0)
    # NumPy's result dtype is promote_types(x.dtype, int): float64 for float32
    # and float16 data (so polyfit of float32 data is float64), complex128 for
    # complex64, int64 for bool and small integers (bfloat16, which NumPy
    # lacks, stays as it is)
    if x.dtype != _C.bfloat16:
        x = x.to(tl_dtype(np.promote_types(np_dtype(x.dtype), np.int64)))
    return x.reshape(-1, 1) ** powers.reshape(1, -1)
