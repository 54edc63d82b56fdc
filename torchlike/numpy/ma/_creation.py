"""Making masked arrays: the namespace's creation functions with no element
masked (``zeros``, ``ones``, ``empty``, ``arange``, ``identity``,
``indices``, ``fromfunction``, ``frombuffer``, ``empty_like``; NumPy's extra
``fill_value=`` and ``hardmask=`` keywords), ``copy``, ``diag``,
``diagflat``, ``masked_object`` and the ``mr_`` index trick.

Each result's data is the namespace function's tensor (on the device it is
made on), its mask ``nomask`` (``empty_like`` of a masked array keeps the
prototype's mask, as NumPy's does)."""
import numpy

from ... import _C
from ... import numpy as _tnp
from .._index_tricks import _directive
from .._scalar_types import ScalarType
from ._core import (MaskedArray, Tensor, getdata, getmask, getmaskarray, make_mask, mask_or,
                    nomask)


def _unmasked(data, fill_value=None, hardmask=False):
    out = MaskedArray._new(data, nomask)
    out._hardmask = bool(hardmask)
    if fill_value is not None:
        out.fill_value = fill_value
    return out


def _made(name):
    fn = getattr(_tnp, name)

    def make(*args, fill_value=None, hardmask=False, **kwargs):
        return _unmasked(fn(*args, **kwargs), fill_value, hardmask)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = (f"``{name}`` of the namespace as a masked array with no element "
                    "masked (``fill_value=``, ``hardmask=`` as NumPy's).")
    return make


zeros = _made("zeros")
ones = _made("ones")
empty = _made("empty")
arange = _made("arange")
identity = _made("identity")


def indices(dimensions, dtype=int, sparse=False, *, fill_value=None, hardmask=False):
    """The index grids of ``dimensions`` as one masked array (NumPy's
    ``sparse=True`` gives a tuple, which its ``numpy.ma.indices`` cannot
    wrap: an AttributeError there, a TypeError here)."""
    if sparse:
        raise TypeError("ma.indices(sparse=True) gives a tuple of grids, not one masked "
                        "array (numpy.ma.indices fails on it too); use "
                        "torchlike.numpy.indices")
    return _unmasked(_tnp.indices(dimensions, dtype=dtype), fill_value, hardmask)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function`` called with the index grids of ``shape``, as a masked array."""
    return MaskedArray(_tnp.fromfunction(function, shape, dtype=dtype, **kwargs))


def frombuffer(buffer, dtype=None, count=-1, offset=0, *, like=None):
    """A masked array of a buffer's bytes (float64 by default, as NumPy's)."""
    return _unmasked(_tnp.frombuffer(buffer, dtype=float if dtype is None else dtype,
                                     count=count, offset=offset))


def empty_like(prototype, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An uninitialised array like ``prototype``; a masked prototype's mask
    is kept (copied), as NumPy's ``empty_like`` keeps it."""
    d = _tnp.empty_like(getdata(prototype), dtype=dtype, shape=shape, device=device)
    m = getmask(prototype)
    if m is nomask or not isinstance(prototype, MaskedArray) or \
            tuple(m.shape) != tuple(d.shape):
        return MaskedArray._new(d, nomask)
    return MaskedArray._new(d, m.to(d.device).clone(), prototype)


def copy(a, *args, **params):
    """A copy of ``a`` (data and mask)."""
    return (a if isinstance(a, MaskedArray) else MaskedArray(a)).copy(*args, **params)


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-d ``v``, or the 2-d array with a 1-d ``v``
    on it; the mask goes the same way (nomask stays nomask)."""
    d = _tnp.diag(getdata(v), k)
    m = getmask(v)
    # NumPy's keeps the fill value where the result is a view (a 2-d v)
    return MaskedArray._new(d, nomask if m is nomask else _tnp.diag(m, k),
                            v if isinstance(v, MaskedArray) and v.ndim == 2 else None)


def diagflat(v, k=0):
    """The 2-d array with ``v`` flattened on its ``k``-th diagonal; the mask
    is kept in full (NumPy's rule for its functions of data and mask)."""
    d = getdata(v).reshape(-1)
    return MaskedArray._new(_tnp.diag(d, k), _tnp.diag(getmaskarray(v).reshape(-1), k))


def masked_object(x, value, copy=True, shrink=True):
    """``x`` masked where its data equals ``value`` exactly, with ``value``
    as the fill value.  NumPy's is meant for object arrays, which torchlike
    has not; on numbers both are this."""
    cond = _C.eq(getdata(x), value)
    mask = mask_or(getmask(x), make_mask(cond, shrink=shrink))
    return MaskedArray(x, mask=mask, copy=copy, fill_value=value)


# ---------------------------------------------------------------------------
# mr_: NumPy's r_ over masked arrays

class MAxisConcatenator:
    """``mr_``: ``r_`` (arrays, scalars, ``start:stop:step`` slices, the
    ``'axis[,ndmin[,trans1d]]'`` directive) whose items may be masked; the data
    and the masks are joined alike, ``nomask`` when no element is masked."""

    def __init__(self, axis=0):
        self.axis = axis

    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError("mr_ of a string builds a numpy.matrix; torchlike "
                                      "has no matrix type")
        key = key if isinstance(key, tuple) else (key,)
        if key and isinstance(key[0], str):
            matrix = _directive(key[0], self.axis, 1, -1)[0]
            if matrix:
                raise NotImplementedError("mr_['r'/'c', ...] builds a numpy.matrix; "
                                          "torchlike has no matrix type")
        data = _tnp.r_[tuple(getdata(k) if isinstance(k, MaskedArray) else k for k in key)]
        if all(getmask(k) is nomask for k in key):
            return MaskedArray._new(data, nomask)
        masks = tuple(self._mask_item(k, data.device) for k in key)
        # NumPy's joins with ma.concatenate, which shrinks an all-False mask
        return MaskedArray._new(data, make_mask(_tnp.r_[masks].to(data.device), shrink=True))

    @staticmethod
    def _mask_item(item, device):
        """The mask of one item, in the shape ``r_`` gives the item."""
        if isinstance(item, str):
            return item
        if isinstance(item, MaskedArray):
            return getmaskarray(item)
        if isinstance(item, slice):
            step = 1 if item.step is None else item.step
            if isinstance(step, (complex, numpy.complexfloating)):
                n = int(abs(step))
            else:
                n = numpy.arange(0 if item.start is None else item.start, item.stop,
                                 step).size
            return _C.zeros((n,), dtype=_C.bool, device=device)
        if type(item) in ScalarType:
            return False
        t = item if isinstance(item, Tensor) else _tnp.asarray(item)
        return _C.zeros(tuple(t.shape), dtype=_C.bool, device=device)


class mr_class(MAxisConcatenator):
    """The class of ``mr_`` (NumPy's name)."""

    def __init__(self):
        super().__init__(0)


mr_ = mr_class()
