"""Module functions of ``ma``: masking by a condition (``masked_where`` and
its spellings), joining, shaping, sorting, ``where``, ``dot`` and the
comparisons of whole arrays, each on data and mask alike."""
import numpy

from ... import _C
from ..._array_function import np_dtype, tl_dtype
from ... import numpy as _tnp
from ._core import (MaskedArray, Tensor, array, asarray, filled, getdata,
                    getmask, getmaskarray, make_mask, mask_or, masked, minimum_fill_value,
                    nomask, _fill_tensor)
from ._ops import OPS, finish


def _ma(a):
    return a if isinstance(a, MaskedArray) else asarray(a)


# ---------------------------------------------------------------------------
# masking by a condition

def masked_where(condition, a, copy=True):
    """``a`` with the elements where ``condition`` is true masked (joined
    with ``a``'s own mask)."""
    cond = make_mask(condition, shrink=False)
    a = array(a, copy=copy)
    if cond.ndim and tuple(cond.shape) != a.shape:
        raise IndexError("Inconsistent shape between the condition and the input "
                         f"(got {tuple(cond.shape)} and {a.shape})")
    if cond.device != a.device:
        cond = cond.to(a.device)
    cond = cond.expand(a.shape) if tuple(cond.shape) != a.shape else cond
    m = cond if a._m is nomask else _C.logical_or(cond, a._m)
    a._m = m.clone() if m is cond else m
    return a


def _by(test):
    def fn(x, value, copy=True):
        return masked_where(test(getdata(x), getdata(value) if isinstance(
            value, MaskedArray) else value), x, copy)
    return fn


masked_greater = _by(_C.gt)
masked_greater_equal = _by(_C.ge)
masked_less = _by(_C.lt)
masked_less_equal = _by(_C.le)
masked_not_equal = _by(_C.ne)


def masked_equal(x, value, copy=True):
    """``x`` masked where it equals ``value``, which becomes its fill value."""
    out = masked_where(_C.eq(getdata(x), value), x, copy)
    out.fill_value = value
    return out


def masked_inside(x, v1, v2, copy=True):
    """``x`` masked where v1 <= x <= v2 (the bounds in either order)."""
    v1, v2 = (v2, v1) if v2 < v1 else (v1, v2)
    xf = filled(x)
    return masked_where(_C.logical_and(_C.ge(xf, v1), _C.le(xf, v2)), x, copy)


def masked_outside(x, v1, v2, copy=True):
    """``x`` masked where x < v1 or x > v2 (the bounds in either order)."""
    v1, v2 = (v2, v1) if v2 < v1 else (v1, v2)
    xf = filled(x)
    return masked_where(_C.logical_or(_C.lt(xf, v1), _C.gt(xf, v2)), x, copy)


def masked_invalid(a, copy=True):
    """``a`` masked where it is NaN or infinite."""
    d = getdata(a)
    return masked_where(_C.logical_not(_C.isfinite(d)), a, copy)


def masked_values(x, value, rtol=1e-05, atol=1e-08, copy=True, shrink=True):
    """``x`` masked where it is close to ``value`` (equal, for integers),
    with ``value`` as the fill value."""
    d = getdata(x)
    if d.is_floating_point():
        cond = _tnp.isclose(d, value, rtol=rtol, atol=atol)
    else:
        cond = _C.eq(d, value)
    out = MaskedArray(x, mask=cond, copy=copy, fill_value=value)
    if shrink:
        out.shrink_mask()
    return out


# ---------------------------------------------------------------------------
# joining and shaping

def _join_parts(arrays):
    """The data and masks of the arrays to join, on the first array's device
    (host data is copied there) and in NumPy's common dtype (float32 with
    int64 is float64, where the namespace's joins promote as PyTorch's)."""
    data = [getdata(a) for a in arrays]
    masks = [getmaskarray(a) for a in arrays]
    device = next((getdata(a).device for a in arrays if isinstance(a, (MaskedArray, Tensor))),
                  data[0].device if data else None)
    data = [d if d.device == device else d.to(device) for d in data]
    masks = [m if m.device == device else m.to(device) for m in masks]
    if data and _C.bfloat16 not in {d.dtype for d in data}:
        common = tl_dtype(numpy.result_type(*[np_dtype(d.dtype) for d in data]))
        data = [d if d.dtype == common else d.to(common) for d in data]
    return data, masks


def concatenate(arrays, axis=0):
    """Join along ``axis``; the mask is ``nomask`` when no input has one."""
    data, masks = _join_parts(arrays)
    d = _tnp.concatenate(data, axis=axis)
    if all(getmask(a) is nomask for a in arrays):
        return finish(d, nomask, None)
    m = _tnp.concatenate(masks, axis=axis)
    return finish(d, make_mask(m), None)  # the default fill value, as NumPy's


def _joined(name):
    def join(arrays, *args, **kwargs):
        fn = getattr(_tnp, name)
        data, masks = _join_parts(arrays)
        d = fn(data, *args, **kwargs)
        m = fn(masks, *args, **kwargs)
        return finish(d, m, None)  # the default fill value, as NumPy's
    join.__name__ = join.__qualname__ = name
    join.__doc__ = f"``{name}`` of data and masks (the mask kept in full)."
    return join


stack = _joined("stack")
vstack = row_stack = _joined("vstack")
hstack = _joined("hstack")
dstack = _joined("dstack")
column_stack = _joined("column_stack")


def _shaped(name):
    def shape_op(a, *args, **kwargs):
        fn = getattr(_tnp, name)
        return _ma(a)._apply(lambda t: fn(t, *args, **kwargs))
    shape_op.__name__ = shape_op.__qualname__ = name
    shape_op.__doc__ = f"``{name}`` of data and mask."
    return shape_op


reshape = _shaped("reshape")
transpose = _shaped("transpose")
swapaxes = _shaped("swapaxes")
moveaxis = _shaped("moveaxis")
squeeze = _shaped("squeeze")
expand_dims = _shaped("expand_dims")
ravel = _shaped("ravel")
flip = _shaped("flip")
roll = _shaped("roll")
atleast_1d = _shaped("atleast_1d")
atleast_2d = _shaped("atleast_2d")
atleast_3d = _shaped("atleast_3d")
diagonal = _shaped("diagonal")
repeat = _shaped("repeat")


def shape(a):
    return _ma(a).shape


def size(a, axis=None):
    a = _ma(a)
    return a.size if axis is None else a.shape[axis]


def ndim(a):
    return _ma(a).ndim


# ---------------------------------------------------------------------------
# where, dot, sorting

def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition``, of ``y`` elsewhere; masked where
    the chosen element is masked or the condition is."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Either both or neither of x and y should be given.")
    cf = filled(condition, False) if isinstance(condition, MaskedArray) else getdata(condition)
    cf = cf.to(_C.bool)
    if x is masked and y is not masked:
        yd = getdata(y)
        xd, xm = _C.zeros((), dtype=yd.dtype, device=yd.device), _C.ones((), dtype=_C.bool)
        ym = getmaskarray(y)
    elif y is masked and x is not masked:
        xd = getdata(x)
        yd, ym = _C.zeros((), dtype=xd.dtype, device=xd.device), _C.ones((), dtype=_C.bool)
        xm = getmaskarray(x)
    else:
        xd, yd = getdata(x), getdata(y)
        xm, ym = getmaskarray(x), getmaskarray(y)
    d = _tnp.where(cf, xd, yd)
    m = _tnp.where(cf, xm.to(d.device), ym.to(d.device))
    cm = getmask(condition)
    if cm is not nomask:
        m = _C.logical_or(m, cm)
    return finish(d, make_mask(m.expand(tuple(d.shape)).clone() if m.shape != d.shape
                               else m), None)


def nonzero(a):
    """Indices of the unmasked non-zero elements."""
    a = _ma(a)
    return _tnp.nonzero(a.filled(0) if a._m is not nomask else a._data)


def dot(a, b, strict=False, out=None):
    """Matrix product with masked elements taken as 0; an element of the
    result is masked where every term of its sum had a masked factor
    (``strict``: where any had)."""
    da, db = filled(a, 0) if isinstance(a, MaskedArray) else getdata(a), \
        filled(b, 0) if isinstance(b, MaskedArray) else getdata(b)
    d = _tnp.dot(da, db)
    ma, mb = getmask(a), getmask(b)
    if ma is nomask and mb is nomask:
        return finish(d, nomask, None)
    ua = _C.logical_not(getmaskarray(a)).to(_C.float64)
    ub = _C.logical_not(getmaskarray(b)).to(_C.float64)
    if strict:
        ma_ = getmaskarray(a).to(_C.float64)
        mb_ = getmaskarray(b).to(_C.float64)
        bad = _C.gt(_tnp.dot(ma_, _C.ones_like(mb_)) + _tnp.dot(_C.ones_like(ma_), mb_), 0)
        return finish(d, bad, None)
    return finish(d, _C.logical_not(_C.gt(_tnp.dot(ua, ub), 0)), None)


def inner(a, b):
    return finish(_tnp.inner(filled(a, 0) if isinstance(a, MaskedArray) else getdata(a),
                                filled(b, 0) if isinstance(b, MaskedArray) else getdata(b)),
                  nomask, None)


def _sort_key(a, axis, endwith, fill_value):
    if fill_value is None:
        if a.dtype.is_floating_point or a.dtype.is_complex:
            fill_value = numpy.nan if endwith else -numpy.inf
        else:
            fill_value = minimum_fill_value(a) if endwith else \
                numpy.ma.maximum_fill_value(numpy.empty(0, numpy.dtype(a.dtype.name)))
    return a.filled(fill_value)


def argsort(a, axis=-1, kind=None, order=None, endwith=True, fill_value=None, *,
            stable=None):
    """Indices that sort the unmasked elements, masked ones last
    (``endwith=False``: first)."""
    a = _ma(a)
    if axis is None:
        a, axis = a.ravel(), 0
    key = a._data if a._m is nomask else _sort_key(a, axis, endwith, fill_value)
    return _tnp.argsort(key, axis=axis)


def sort(a, axis=-1, kind=None, order=None, endwith=True, fill_value=None, *,
         stable=None):
    """A sorted copy: unmasked elements in order, masked ones last."""
    a = _ma(a)
    if axis is None:
        a, axis = a.ravel(), 0
    idx = argsort(a, axis, endwith=endwith, fill_value=fill_value)
    take = _tnp.take_along_axis
    return a._apply(lambda t: take(t, idx, axis))


def _sort_method(self, axis=-1, kind=None, order=None, endwith=True, fill_value=None,
                 *, stable=None):
    """Sort in place (masked elements last)."""
    s = sort(self, axis, endwith=endwith, fill_value=fill_value)
    self._data[...] = s._data
    if self._m is not nomask:
        self._m[...] = s._m


def unique(ar1, return_index=False, return_inverse=False):
    """The sorted unmasked values, and one masked element at the end when
    any element is masked (with the first index of each value and the
    inverse, in the input's shape, as NumPy's)."""
    a = _ma(ar1)
    if a._m is not nomask and not (return_index or return_inverse) and \
            a.dtype != _C.bool and not a.dtype.is_floating_point and \
            not bool(a._m.any()):
        # NumPy hashes integers and complex numbers when nothing is masked,
        # and its result then has no mask
        a = MaskedArray._new(a._data, nomask, a)
    if a._m is nomask:
        r = _tnp.unique(a._data, return_index=return_index,
                        return_inverse=return_inverse)
        if isinstance(r, tuple):
            return (MaskedArray._new(r[0], nomask, a),) + tuple(r[1:])
        return MaskedArray._new(r, nomask, a)
    from ._extras import unique_masked
    return unique_masked(a, return_index, return_inverse)


# ---------------------------------------------------------------------------
# whole-array comparisons

def allequal(a, b, fill_value=True):
    """Whether ``a`` and ``b`` are equal where both are unmasked; masked
    positions count as equal when ``fill_value``, else any makes it False."""
    m = mask_or(getmask(a), getmask(b))
    eq = _C.eq(getdata(a), getdata(b))
    if m is nomask:
        return bool(eq.all())
    if not fill_value:
        return False
    return bool(_C.logical_or(eq, m).all())


def allclose(a, b, masked_equal=True, rtol=1e-5, atol=1e-8):
    """``isclose`` everywhere both are unmasked (infinities equal only to
    themselves); masked positions count as close when ``masked_equal``."""
    x, y = getdata(a), getdata(b)
    if not (y.is_floating_point() or y.is_complex()):
        y = y.to(_C.float64)
    m = mask_or(getmask(a), getmask(b))
    close = _tnp.isclose(x, y, rtol=rtol, atol=atol)
    if m is nomask:
        return bool(close.all())
    if not masked_equal:
        return False if bool(m.any()) else bool(close.all())
    return bool(_C.logical_or(close, m).all())


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` on each 1-d slice along ``axis`` (masked arrays), the
    results stacked where the slice was (a Python loop over the slices)."""
    a = _ma(arr)
    from ..._array_function import norm_axis
    axis = norm_axis(axis, a.ndim)
    moved = moveaxis(a, axis, -1)
    outer = moved.shape[:-1]
    results = []
    for idx in numpy.ndindex(*outer):
        r = func1d(moved[idx] if idx else moved, *args, **kwargs)
        results.append(r if isinstance(r, MaskedArray) else MaskedArray(
            _C.zeros((), dtype=_C.float64) if r is masked else getdata(r),
            mask=True if r is masked else nomask))
    if not results:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    out = stack(results, axis=0)
    rshape = out.shape[1:]
    out = out.reshape(tuple(outer) + rshape)
    if rshape:
        out = moveaxis(out, list(range(len(outer), len(outer) + len(rshape))),
                       list(range(axis, axis + len(rshape))))
    return out


def compressed(x):
    """The unmasked elements of ``x``, 1-d."""
    return _ma(x).compressed()


def fix_invalid(a, mask=nomask, copy=True, fill_value=None):
    """``a`` masked where it is not finite, with the fill value under the mask."""
    a = MaskedArray(a, mask=mask, copy=copy)
    invalid = _C.logical_not(_C.isfinite(a._data))
    if bool(invalid.any()):
        a._m = invalid if a._m is nomask else _C.logical_or(a._m, invalid)
        fv = a.fill_value if fill_value is None else fill_value
        a._data = _C.where(invalid, _fill_tensor(fv, a._data), a._data)
    return a


def ones_like(a, dtype=None):
    return MaskedArray(_C.ones_like(getdata(a)) if dtype is None else
                       _C.ones_like(getdata(a), dtype=tl_dtype(dtype)))


def zeros_like(a, dtype=None):
    return MaskedArray(_C.zeros_like(getdata(a)) if dtype is None else
                       _C.zeros_like(getdata(a), dtype=tl_dtype(dtype)))


def masked_all(shape, dtype=float):
    """An array of ``shape`` with every element masked."""
    from .._creation import empty
    d = empty(shape, dtype=dtype)
    return MaskedArray(d, mask=True)


def masked_all_like(arr):
    d = getdata(arr)
    return MaskedArray(_C.empty_like(d), mask=True)


MaskedArray.sort = _sort_method
MaskedArray.argsort = lambda self, axis=-1, kind=None, order=None, endwith=True, \
    fill_value=None, *, stable=None: argsort(self, axis, endwith=endwith, fill_value=fill_value)
MaskedArray.nonzero = lambda self: nonzero(self)
MaskedArray.dot = lambda self, b, out=None, strict=False: dot(self, b, strict)
