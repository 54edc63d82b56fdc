"""The masked array: data and mask, both tensors (so a masked array lives on
its data's device), fill values with NumPy's defaults, construction,
conversion to and from ``numpy.ma`` and indexing.

``mask`` is ``nomask`` (NumPy's own ``numpy.ma.nomask``, ``np.False_``: no
element masked, no mask array kept) or a bool tensor of the data's shape.
A result that is 0-d is a 0-d tensor, or ``masked`` where it is masked,
where NumPy gives a NumPy scalar or ``numpy.ma.masked``."""
import types

import numpy

from ... import _C
from ..._array_function import as_tensor, has_tensor, np_dtype, tl_dtype

Tensor = _C.Tensor
nomask = numpy.ma.nomask
MaskError = numpy.ma.MaskError
MAError = numpy.ma.MAError  # MaskError's base, NumPy's own class
MaskType = bool_ = _C.bool


# ---------------------------------------------------------------------------
# data, masks and fill values of any operand

def _host(t):
    """A NumPy array of a tensor's values (a view for CPU tensors)."""
    if t.dtype == _C.bfloat16:
        t = t.to(_C.float32)
    if t.device.type != "cpu":
        t = t.cpu()
    a = numpy.asarray(t.detach() if t.requires_grad else t)
    # int64 by its canonical NumPy type (C long): an exported buffer says long long
    return a.view(numpy.dtype(a.dtype.name)) if a.ndim else a.astype(a.dtype.name)


def getdata(a, subok=True):
    """The data of ``a`` as a tensor (``a`` itself when it is one)."""
    if isinstance(a, MaskedArray):
        return a._data
    if isinstance(a, numpy.ma.MaskedArray):
        return as_tensor(a.data)
    return a if isinstance(a, Tensor) else as_tensor(a)


get_data = getdata


def getmask(a):
    """The mask of ``a``: ``nomask`` or a bool tensor."""
    if isinstance(a, MaskedArray):
        return a._m
    if isinstance(a, numpy.ma.MaskedArray) and a._mask is not nomask:
        return as_tensor(numpy.asarray(a._mask, dtype=bool))
    return nomask


get_mask = getmask


def getmaskarray(arr):
    """The mask of ``arr`` as a full bool tensor (all False for nomask)."""
    m = getmask(arr)
    if m is nomask:
        d = getdata(arr)
        return _C.zeros(tuple(d.shape), dtype=MaskType, device=d.device)
    return m


def is_mask(m):
    return isinstance(m, Tensor) and m.dtype == MaskType


def make_mask_none(newshape, dtype=None):
    """An all-False mask of ``newshape``."""
    shape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return _C.zeros(shape, dtype=MaskType)


def make_mask(m, copy=False, shrink=True, dtype=MaskType):
    """``m`` as a bool tensor; ``nomask`` when ``shrink`` and nothing is True."""
    if m is nomask:
        return nomask
    t = getdata(m)
    if isinstance(m, MaskedArray) and m._m is not nomask:
        t = _C.where(m._m, _C.ones((), dtype=t.dtype, device=t.device), t)
    t = t.to(MaskType) if t.dtype != MaskType else (t.clone() if copy else t)
    if shrink and not bool(t.any()):
        return nomask
    return t


def _broadcast_mask(m, shape):
    if m is nomask or tuple(m.shape) == tuple(shape):
        return m
    return m.expand(tuple(shape)).clone()


def mask_or(m1, m2, copy=False, shrink=True):
    """The union of two masks (``nomask`` for none), broadcast together."""
    m1 = m1 if m1 is nomask or isinstance(m1, Tensor) else make_mask(m1, shrink=False)
    m2 = m2 if m2 is nomask or isinstance(m2, Tensor) else make_mask(m2, shrink=False)
    if m1 is nomask:
        return make_mask(m2, copy=copy, shrink=shrink)
    if m2 is nomask:
        return make_mask(m1, copy=copy, shrink=shrink)
    return make_mask(_C.logical_or(m1, m2), shrink=shrink)


def _np_dtype(dtype):
    return np_dtype(dtype)


def _probe(dtype, fill_value=None):
    """NumPy's masked array of ``dtype`` (empty): its fill-value rules."""
    return numpy.ma.MaskedArray(numpy.empty(0, _np_dtype(dtype)), fill_value=fill_value)


def default_fill_value(obj):
    """NumPy's default fill value for the dtype of ``obj`` (a dtype, a
    tensor, a masked array or a Python scalar)."""
    return numpy.ma.default_fill_value(_dtype_of(obj))


def minimum_fill_value(obj):
    """The largest value of the dtype: what masked elements become in a min."""
    return numpy.ma.minimum_fill_value(numpy.empty(0, _dtype_of(obj)))


def maximum_fill_value(obj):
    """The smallest value of the dtype: what masked elements become in a max."""
    return numpy.ma.maximum_fill_value(numpy.empty(0, _dtype_of(obj)))


def _dtype_of(obj):
    if isinstance(obj, (MaskedArray, Tensor)):
        return _np_dtype(obj.dtype)
    if isinstance(obj, _C.dtype):
        return _np_dtype(obj)
    return numpy.asarray(obj).dtype if not isinstance(obj, numpy.dtype) else obj


def _fill_tensor(value, like):
    """``value`` cast as NumPy casts a fill value into ``like``'s dtype (an
    int8 array filled with 999999 holds 63), on ``like``'s device."""
    with numpy.errstate(over="ignore", invalid="ignore"):  # 1e20 in float16 is inf
        host = numpy.asarray(value).astype(_np_dtype(like.dtype))
    t = as_tensor(host) if host.dtype.name != "float32" or like.dtype == _C.float32 \
        else as_tensor(host).to(like.dtype)
    return t.to(device=like.device, dtype=like.dtype)


def filled(a, fill_value=None):
    """The data of ``a`` with masked elements replaced by ``fill_value``
    (``a``'s own fill value by default), as a tensor."""
    if isinstance(a, MaskedArray):
        return a.filled(fill_value)
    if isinstance(a, numpy.ma.MaskedArray):
        return as_tensor(a.filled(fill_value))
    return getdata(a)


def common_fill_value(a, b):
    t1, t2 = get_fill_value(a), get_fill_value(b)
    return t1 if t1 == t2 else None


def get_fill_value(a):
    return a.fill_value if isinstance(a, MaskedArray) else default_fill_value(getdata(a))


def set_fill_value(a, fill_value):
    if isinstance(a, MaskedArray):
        a.fill_value = fill_value


# ---------------------------------------------------------------------------
# the class

def _holds_masked(x):
    if isinstance(x, (MaskedArray, numpy.ma.MaskedArray)):
        return True
    return isinstance(x, (list, tuple)) and any(_holds_masked(e) for e in x)


def _host_input(data, dtype, ndmin):
    """Data that is not a tensor: NumPy's constructor decides (lists holding
    masked elements, nested masked arrays, dtype rules), then tensors."""
    def host(x):
        if isinstance(x, MaskedArray):
            return x.to_numpy()
        if isinstance(x, (list, tuple)):
            return type(x)(host(e) for e in x)
        return x
    kwargs = {} if dtype is None else {"dtype": _np_dtype(dtype)}
    arr = numpy.ma.array(host(data), ndmin=ndmin, **kwargs)
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"torchlike has no dtype for NumPy {arr.dtype}")
    from .._creation import asarray as place  # host data lands on the default device
    d = place(numpy.asarray(arr.data))
    if dtype is not None and d.dtype != dtype:
        d = d.to(dtype)
    m = nomask if arr._mask is nomask else place(numpy.array(arr._mask, dtype=bool))
    if m is not nomask and m.device != d.device:
        m = m.to(d.device)
    fv = data._fill_value if isinstance(data, numpy.ma.MaskedArray) else None
    return d, m, fv


class MaskedArray:
    """A tensor with a mask (NumPy's ``numpy.ma.MaskedArray`` over tensors).

    ``MaskedArray(data, mask=nomask, dtype=None, copy=False, fill_value=None,
    keep_mask=True, hard_mask=False, shrink=True)``: ``data`` is a tensor
    (kept as it is, sharing memory unless ``copy``), a masked array (its mask
    kept, and joined with ``mask`` when ``keep_mask``), NumPy's masked array,
    or host data (lists, which may hold ``masked``; ndarrays)."""
    __array_priority__ = 15
    __slots__ = ("_data", "_m", "_fill_value", "_hardmask", "__weakref__")

    def __init__(self, data=None, mask=nomask, dtype=None, copy=False, subok=True, ndmin=0,
                 fill_value=None, keep_mask=True, hard_mask=None, shrink=True, order=None):
        dtype = tl_dtype(dtype)
        hard = False
        fv = None
        if isinstance(data, MaskedArray):
            d, m0, fv, hard = data._data, data._m, data._fill_value, data._hardmask
        elif isinstance(data, Tensor):
            d, m0 = data, nomask
        elif isinstance(data, (list, tuple)) and has_tensor(data) and not _holds_masked(data):
            # computed values (on any device): the tensor NumPy's array of them
            # would be; numpy.ma's constructor reads host memory only
            d, m0 = as_tensor(data), nomask
        else:
            d, m0, fv = _host_input(data, dtype, ndmin)
            ndmin = 0
        if dtype is not None and d.dtype != dtype:
            d = d.to(dtype)
            fv = None  # the new dtype's default
        elif copy:
            d = d.clone()
        while d.ndim < ndmin:
            d = d.unsqueeze(0)
        if m0 is not nomask and tuple(m0.shape) != tuple(d.shape):
            m0 = m0.reshape(tuple(d.shape))
        if not keep_mask:
            m0 = nomask
        if mask is not nomask:
            m = self._mask_for(mask, d)
            if m0 is not nomask:
                m = _C.logical_or(m, m0)
        else:
            m = m0.clone() if (copy and m0 is not nomask) else m0
        self._data = d
        self._m = m
        self._hardmask = hard if hard_mask is None else bool(hard_mask)
        self._fill_value = None
        if fill_value is not None:
            self.fill_value = fill_value
        elif fv is not None:
            self._fill_value = fv

    @staticmethod
    def _mask_for(mask, d):
        if mask is None or mask is False:
            return _C.zeros(tuple(d.shape), dtype=MaskType, device=d.device)
        if mask is True:
            return _C.ones(tuple(d.shape), dtype=MaskType, device=d.device)
        mt = getdata(mask)
        if mt.device != d.device:
            mt = mt.to(d.device)
        mt = mt.to(MaskType)
        if tuple(mt.shape) == tuple(d.shape):
            return mt.clone() if mt is getdata(mask) else mt
        if mt.numel() == d.numel():
            return mt.reshape(tuple(d.shape)).clone()
        if mt.numel() == 1:
            return mt.reshape(()).expand(tuple(d.shape)).clone()
        raise MaskError(f"Mask and data not compatible: data size is {d.numel()}, "
                        f"mask size is {mt.numel()}.")

    @classmethod
    def _new(cls, data, mask, like=None):
        """A masked array of ``data`` and ``mask`` (no checks), with the fill
        value and hardness of ``like`` where the dtype allows."""
        out = object.__new__(MaskedArray)
        out._data = data
        out._m = mask
        out._hardmask = False
        out._fill_value = None
        if isinstance(like, MaskedArray):
            out._hardmask = like._hardmask
            if like._fill_value is not None and like._data.dtype == data.dtype:
                out._fill_value = like._fill_value
        return out

    # ---- attributes
    @property
    def data(self):
        return self._data

    @property
    def mask(self):
        return self._m

    @mask.setter
    def mask(self, value):
        self._m = self._mask_for(value, self._data) if value is not nomask else nomask

    @property
    def _mask(self):
        """The mask as NumPy's arrays: what ``numpy.ma.asarray(x)`` reads from
        objects that are not ndarrays."""
        return nomask if self._m is nomask else _host(self._m).copy()

    @property
    def recordmask(self):
        return self._m

    @property
    def hardmask(self):
        return self._hardmask

    def harden_mask(self):
        self._hardmask = True
        return self

    def soften_mask(self):
        self._hardmask = False
        return self

    def unshare_mask(self):
        if self._m is not nomask:
            self._m = self._m.clone()
        return self

    def shrink_mask(self):
        if self._m is not nomask and not bool(self._m.any()):
            self._m = nomask
        return self

    @property
    def sharedmask(self):
        return False

    @property
    def fill_value(self):
        if self._fill_value is None:
            self._fill_value = _probe(self.dtype).fill_value
        return self._fill_value

    @fill_value.setter
    def fill_value(self, value):
        self._fill_value = _probe(self.dtype, value).fill_value

    def set_fill_value(self, value=None):
        self.fill_value = value

    get_fill_value = fill_value.fget

    @property
    def shape(self):
        return tuple(self._data.shape)

    @shape.setter
    def shape(self, shape):
        self._data = self._data.reshape(tuple(shape))
        if self._m is not nomask:
            self._m = self._m.reshape(tuple(shape))

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return self._data.numel()

    @property
    def device(self):
        return self._data.device

    @property
    def itemsize(self):
        return self._data.element_size()

    @property
    def nbytes(self):
        return self._data.numel() * self._data.element_size()

    @property
    def baseclass(self):
        return Tensor

    @property
    def T(self):
        return self.transpose()

    @property
    def real(self):
        return self._apply(lambda t: _C.real(t) if t.is_complex() else t)

    @property
    def imag(self):
        d = self._data
        return MaskedArray._new(_C.imag(d) if d.is_complex() else _C.zeros_like(d), self._m,
                                self)

    @property
    def flat(self):
        return self.ravel()

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    # ---- conversions
    def filled(self, fill_value=None):
        """The data with masked elements replaced by ``fill_value`` (a tensor;
        the data itself when nothing is masked)."""
        m = self._m
        if m is nomask:
            return self._data
        if fill_value is None:
            fill_value = self.fill_value
        elif isinstance(fill_value, (MaskedArray, Tensor)):
            return _C.where(m, getdata(fill_value).to(self.dtype), self._data)
        else:
            fill_value = _probe(self.dtype, fill_value).fill_value
        # masked_fill: one pass, a third faster than where's three operands
        return self._data.masked_fill(m, _fill_tensor(fill_value, self._data))

    def compressed(self):
        """The unmasked elements, 1-d."""
        d = self._data.reshape(-1)
        if self._m is nomask:
            return d
        return d[_C.logical_not(self._m.reshape(-1))]

    def to_numpy(self):
        """NumPy's masked array of these values (a host copy for device data)."""
        m = self._m
        return numpy.ma.MaskedArray(_host(self._data), mask=nomask if m is nomask else _host(m),
                                    fill_value=self._fill_value, hard_mask=self._hardmask)

    def __array__(self, dtype=None, copy=None):
        a = _host(self._data)
        return a.astype(dtype) if dtype is not None else a

    def tolist(self, fill_value=None):
        return self.to_numpy().tolist(fill_value)

    def tobytes(self, fill_value=None, order="C"):
        return self.to_numpy().tobytes(fill_value, order)

    def item(self, *args):
        """The data's element as a Python number (the mask is not looked at,
        as NumPy's ``item``)."""
        if not args:
            if self.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return self._data.reshape(-1)[0].item()
        flat = args[0] if len(args) == 1 and isinstance(args[0], int) else None
        d = self._data.reshape(-1)[flat] if flat is not None else self._data[args]
        return d.item()

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self._data.reshape(()).item())

    def __float__(self):
        if self.size > 1:
            raise TypeError("Only length-1 arrays can be converted to Python scalars")
        if self._m is not nomask and bool(self._m.any()):
            return float("nan")
        return float(self._data.reshape(()).item())

    def __int__(self):
        if self.size > 1:
            raise TypeError("Only length-1 arrays can be converted to Python scalars")
        if self._m is not nomask and bool(self._m.any()):
            raise MaskError("Cannot convert masked element to a Python int.")
        return int(self._data.reshape(()).item())

    def __repr__(self):
        return repr(self.to_numpy())

    def __str__(self):
        return str(self.to_numpy())

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """The data cast as the tensor's astype casts it (NumPy's casting
        rules, 'same_value' included), the mask kept."""
        data = self._data.to(tl_dtype(dtype)) if casting == "unsafe" and order == "K" else \
            self._data.astype(dtype, order=order, casting=casting, copy=False)
        out = MaskedArray._new(data, self._m, self)
        if copy and out._data is self._data:
            out._data = out._data.clone()
        return out

    def copy(self, order="C"):
        return MaskedArray._new(self._data.clone(),
                                self._m if self._m is nomask else self._m.clone(), self)

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def to(self, *args, **kwargs):
        d = self._data.to(*args, **kwargs)
        m = self._m if self._m is nomask else self._m.to(d.device)
        return MaskedArray._new(d, m, self)

    def cpu(self):
        return self.to("cpu")

    def view(self, dtype=None, type=None):
        if dtype is None or type is not None:
            return MaskedArray._new(self._data, self._m, self)
        return MaskedArray._new(self._data.view(tl_dtype(dtype)), self._m, self)

    # ---- shape: data and mask alike
    def _apply(self, fn):
        """``fn`` applied to the data and to the mask (shape operations)."""
        m = self._m
        return MaskedArray._new(fn(self._data), m if m is nomask else fn(m), self)

    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return self._apply(lambda t: t.reshape(shape))

    def ravel(self, order="C"):
        return self._apply(lambda t: t.reshape(-1))

    def flatten(self, order="C"):
        return self._apply(lambda t: t.reshape(-1).clone())

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        from .. import _manipulation  # noqa: F401
        from .. import transpose
        return self._apply(lambda t: transpose(t, axes if axes else None))

    def swapaxes(self, axis1, axis2):
        return self._apply(lambda t: t.transpose(axis1, axis2))

    def squeeze(self, axis=None):
        from .. import squeeze
        return self._apply(lambda t: squeeze(t, axis))

    def repeat(self, repeats, axis=None):
        from .. import repeat
        return self._apply(lambda t: repeat(t, repeats, axis))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        from .. import diagonal
        return self._apply(lambda t: diagonal(t, offset, axis1, axis2))


    # ---- indexing
    def __getitem__(self, index):
        index = _plain_index(index)
        d = self._data[index]
        m = self._m
        if m is not nomask:
            m = m[index]
        if d.ndim == 0:
            return masked if (m is not nomask and bool(m)) else d
        return MaskedArray._new(d, m, self)

    def __setitem__(self, index, value):
        masked_index = isinstance(index, MaskedArray)
        index = _plain_index(index)
        if value is masked or value is numpy.ma.masked:
            if self._m is nomask:
                self._m = getmaskarray(self)
            self._m[index] = True
            return
        dval = getdata(value)
        mval = getmask(value)
        if self._hardmask and self._m is not nomask:
            keep = self._m[index]
            self._data[index] = _C.where(keep, self._data[index], dval.to(self.dtype))
            if mval is not nomask:
                self._m[index] = _C.logical_or(keep, mval)
            return
        self._data[index] = dval
        if self._m is nomask:
            if mval is nomask:
                return
            self._m = getmaskarray(self)
        elif masked_index and not isinstance(value, (MaskedArray, numpy.ma.MaskedArray)):
            return  # NumPy: x[x > t] = v writes the data only, the mask stays
        self._m[index] = mval if mval is not nomask else False

    def __setmask__(self, mask, copy=False):
        self.mask = mask

    def __delitem__(self, index):
        raise ValueError("cannot delete array elements")

    def __contains__(self, value):
        """Whether an unmasked element equals ``value``."""
        eq = _C.eq(self._data, getdata(value).to(self._data.device))
        if self._m is not nomask:
            eq = _C.logical_and(eq, _C.logical_not(self._m))
        return bool(eq.any())

    # ---- NumPy's ndarray attributes, of the data
    @property
    def base(self):
        """The tensor holding the data (NumPy's: the array viewed)."""
        return self._data

    @property
    def strides(self):
        return self._data.strides

    @property
    def flags(self):
        return self._data.flags

    def iscontiguous(self):
        return self._data.is_contiguous()

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        m = self._m
        return MaskedArray._new(self._data.transpose(-2, -1),
                                m if m is nomask else m.transpose(-2, -1))

    def get_real(self):
        return self.real

    def get_imag(self):
        return self.imag

    def ids(self):
        """Where the data and the mask live: their addresses (``id(nomask)``
        for no mask), as NumPy's ``ids``."""
        m = self._m
        return (self._data.data_ptr(), id(nomask) if m is nomask else m.data_ptr())

    def to_device(self, device, /, *, stream=None):
        return self.to(device)

    def byteswap(self, inplace=False):
        """The data with its bytes reversed, the mask kept."""
        swapped = self._data.byteswap()
        if inplace:
            self._data[...] = swapped
            return self
        return MaskedArray._new(swapped, self._m if self._m is nomask else self._m.clone(),
                                self)

    def fill(self, value):
        """Set every element of the data to ``value`` (the mask is kept)."""
        self._data[...] = getdata(value).to(device=self._data.device, dtype=self.dtype) \
            if isinstance(value, (Tensor, MaskedArray)) else value

    def resize(self, newshape, refcheck=True, order=False):
        raise ValueError("A masked array does not own its data and therefore cannot be "
                         "resized.\nUse the numpy.ma.resize function instead.")

    def __complex__(self):
        if self.ndim:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return complex(self._data.item())

    def __index__(self):
        if self.ndim or self.dtype.is_floating_point or self.dtype.is_complex or \
                self.dtype == MaskType:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._data.item())

    def __dlpack__(self, *args, **kwargs):
        """The data's DLPack capsule (the mask is not exported, as NumPy's)."""
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def dumps(self):
        import pickle
        return pickle.dumps(self.to_numpy())

    def dump(self, file):
        import pickle
        if isinstance(file, str):
            with open(file, "wb") as f:
                pickle.dump(self.to_numpy(), f)
        else:
            pickle.dump(self.to_numpy(), file)

    def tofile(self, fid, sep="", format="%s"):
        raise NotImplementedError("MaskedArray.tofile() not implemented yet.")

    def getfield(self, dtype, offset=0):
        raise TypeError("getfield reads a field of a structured dtype; torchlike tensors "
                        "have no structured dtypes (use view for a reinterpretation)")

    def setfield(self, val, dtype, offset=0):
        raise TypeError("setfield writes a field of a structured dtype; torchlike tensors "
                        "have no structured dtypes")

    def setflags(self, write=None, align=None, uic=None):
        raise NotImplementedError("a masked array's data is a tensor, whose flags are fixed "
                                  "(tensors are always writeable and aligned)")

    @property
    def ctypes(self):
        raise AttributeError("a masked array's data is a tensor, which may live on a device: "
                             "there is no ctypes view; use x.data.data_ptr()")

    __class_getitem__ = classmethod(types.GenericAlias)

    # ---- NumPy's protocols: NumPy functions and ufuncs on masked arrays
    def __array_function__(self, func, types, args, kwargs):
        from ._protocol import array_function
        return array_function(func, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._protocol import array_ufunc
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_namespace__(self, api_version=None):
        from . import __name__ as name
        import sys
        return sys.modules[name]


def _plain_index(index):
    """An index with masked arrays replaced by their data."""
    if isinstance(index, MaskedArray):
        return index._data  # NumPy indexes with the data, masked or not
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    return index


class MaskedConstant(MaskedArray):
    """``masked``: the one 0-d masked element (NumPy's ``numpy.ma.masked``)."""
    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            self = object.__new__(cls)
            self._data = _C.zeros((), dtype=_C.float64)
            self._m = _C.ones((), dtype=MaskType)
            self._hardmask = False
            self._fill_value = None
            cls._instance = self
        return cls._instance

    def __init__(self):
        pass

    def __repr__(self):
        return "masked"

    def __str__(self):
        return "--"

    def __setitem__(self, index, value):
        raise MaskError("masked is a constant and cannot be written to")

    def to_numpy(self):
        return numpy.ma.masked

    def copy(self, order="C"):
        return self

    def __bool__(self):
        return False

    def __hash__(self):
        return 0


masked = masked_singleton = MaskedConstant()


def array(data, dtype=None, copy=False, order=None, mask=nomask, fill_value=None,
          keep_mask=True, hard_mask=False, shrink=True, subok=True, ndmin=0):
    """A masked array (``MaskedArray(data, mask=mask, ...)``)."""
    return MaskedArray(data, mask=mask, dtype=dtype, copy=copy, fill_value=fill_value,
                       keep_mask=keep_mask, hard_mask=hard_mask, shrink=shrink, ndmin=ndmin)


masked_array = MaskedArray


def asarray(a, dtype=None, order=None):
    """``a`` as a masked array, without copying when it is one already."""
    if isinstance(a, MaskedArray) and (dtype is None or tl_dtype(dtype) == a.dtype):
        return a
    return MaskedArray(a, dtype=dtype, keep_mask=True)


asanyarray = asarray


def isMaskedArray(x):
    return isinstance(x, MaskedArray)


isMA = isarray = isMaskedArray


def is_masked(x):
    """Whether ``x`` has masked elements."""
    m = getmask(x)
    return m is not nomask and bool(m.any())


def count_masked(arr, axis=None):
    from .. import sum as _sum
    return _sum(getmaskarray(arr), axis=axis)
