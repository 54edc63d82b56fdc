"""Reductions of masked arrays: the masked elements take no part (they are
filled with the operation's identity, or the dtype's extreme for min and
max), and a result element is masked where every element it reduces was.
Result dtypes are NumPy ma's (the mean of a masked float32 array is float64,
as NumPy's, which divides by an int64 count; unmasked it stays float32)."""
import numpy

from ... import _C
from ..._array_function import norm_axis, np_dtype, tl_dtype, weights_along
from ... import numpy as _tnp
from ._core import (MaskedArray, Tensor, asarray, getdata, getmaskarray, mask_or, masked,
                    _broadcast_mask,
                    maximum_fill_value, minimum_fill_value, nomask, _fill_tensor)
from ._ops import OPS, _colocate, finish


def _ma(a):
    return a if isinstance(a, MaskedArray) else asarray(a)


def _masked_count(m, axis, keepdims):
    """How many elements are masked along ``axis`` (int64): the bool mask
    summed as bytes, twice as fast as summing bools."""
    return _tnp.sum(m.view(_C.uint8), axis=axis, keepdims=keepdims, dtype=_C.int64)


def _reduced_size(shape, axis):
    if axis is None:
        axis = tuple(range(len(shape)))
    n = 1
    for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)):
        n *= shape[norm_axis(ax, len(shape))]
    return n


def _mask_all(m, axis, keepdims):
    """Where every element reduced is masked (NumPy's mask of a reduction)."""
    if m is nomask:
        return nomask
    return _C.eq(_masked_count(m, axis, keepdims), _reduced_size(tuple(m.shape), axis))


def _filled_reduce(fn, fill, a, axis, keepdims, **kwargs):
    a = _ma(a)
    data = a._data if a._m is nomask else a.filled(fill)
    return finish(fn(data, axis=axis, keepdims=keepdims, **kwargs),
                  _mask_all(a._m, axis, keepdims), a)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum of the unmasked elements."""
    return _filled_reduce(_tnp.sum, 0, a, axis, keepdims, dtype=dtype)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product of the unmasked elements."""
    return _filled_reduce(_tnp.prod, 1, a, axis, keepdims, dtype=dtype)


product = prod


def all(a, axis=None, out=None, keepdims=False):
    """Whether every unmasked element is true (masked where all are masked)."""
    return _filled_reduce(_tnp.all, True, a, axis, keepdims)


def any(a, axis=None, out=None, keepdims=False):
    """Whether some unmasked element is true (masked where all are masked)."""
    return _filled_reduce(_tnp.any, False, a, axis, keepdims)


def _extreme(fn, filler, a, axis, keepdims, fill_value):
    a = _ma(a)
    if a._m is nomask:
        return finish(fn(a._data, axis=axis, keepdims=keepdims), nomask, a)
    fill = filler(a) if fill_value is None else fill_value
    r = fn(a.filled(fill), axis=axis, keepdims=keepdims)
    rm = _mask_all(a._m, axis, keepdims)
    if r.ndim:  # NumPy writes the fill value under the mask
        r = _C.where(rm, _fill_tensor(a.fill_value, r), r)
    return finish(r, rm, a)


def min(a, axis=None, out=None, fill_value=None, keepdims=False):
    """Smallest unmasked element."""
    return _extreme(_tnp.min, minimum_fill_value, a, axis, keepdims, fill_value)


def max(a, axis=None, out=None, fill_value=None, keepdims=False):
    """Largest unmasked element."""
    return _extreme(_tnp.max, maximum_fill_value, a, axis, keepdims, fill_value)


amin, amax = min, max


def ptp(a, axis=None, out=None, fill_value=None, keepdims=False):
    return OPS["subtract"](max(a, axis, None, fill_value, keepdims),
                           min(a, axis, None, fill_value, keepdims))


def _arg(fn, filler, a, axis, fill_value, keepdims):
    a = _ma(a)
    fill = filler(a) if fill_value is None else fill_value
    data = a._data if a._m is nomask else a.filled(fill)
    return fn(data, axis=axis, keepdims=keepdims)


def argmin(a, axis=None, fill_value=None, out=None, *, keepdims=False):
    """Index of the smallest unmasked element (an index tensor, no mask)."""
    return _arg(_tnp.argmin, minimum_fill_value, a, axis, fill_value, keepdims)


def argmax(a, axis=None, fill_value=None, out=None, *, keepdims=False):
    """Index of the largest unmasked element (an index tensor, no mask)."""
    return _arg(_tnp.argmax, maximum_fill_value, a, axis, fill_value, keepdims)


def count(a, axis=None, keepdims=False):
    """The number of unmasked elements: without a mask an int for
    ``axis=None``, else (as NumPy's intp sum of the mask's complement) an
    int64 tensor, 0-d for ``axis=None``; 0 for the masked constant."""
    a = _ma(a)
    if a is masked:
        return 0
    m = a._m
    if m is nomask:
        if axis is None:
            n = a.size
            return _C.full((1,) * a.ndim, n, dtype=_C.int64) if keepdims else n
        ones = _C.ones(a.shape, dtype=_C.int64, device=a.device)
        return _tnp.sum(ones, axis=axis, keepdims=keepdims)
    return _reduced_size(tuple(m.shape), axis) - _masked_count(m, axis, keepdims)


def _float_result(dtype):
    """The dtype NumPy's masked mean divides in: the sum's and int64's."""
    if dtype in (_C.bfloat16, _C.float16, _C.float32):
        return _C.float64
    return _C.complex128 if dtype == _C.complex64 else dtype


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean of the unmasked elements (masked where there are none)."""
    a = _ma(a)
    if a._m is nomask:
        return finish(_tnp.mean(a._data, axis=axis, dtype=dtype, keepdims=keepdims),
                      nomask, a)
    dtype = tl_dtype(dtype)
    half = False
    if dtype is None:
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            dtype = _C.float64
        elif a.dtype == _C.float16:
            dtype, half = _C.float32, True
    dsum = sum(a, axis, dtype, keepdims=keepdims)
    cnt = count(a, axis, keepdims)
    if isinstance(cnt, int) and cnt == 0:
        return masked
    if dsum is masked:
        return masked
    dsum = getdata(dsum) if not isinstance(dsum, MaskedArray) else dsum
    d = getdata(dsum)
    dsum_f = dsum.astype(_float_result(d.dtype)) if isinstance(dsum, MaskedArray) \
        else d.to(_float_result(d.dtype))
    result = OPS["divide"](dsum_f, cnt)
    if half and result is not masked:
        result = result.astype(_C.float16) if isinstance(result, MaskedArray) \
            else result.to(_C.float16)
    return result


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None):
    """Variance of the unmasked elements (masked where fewer than ddof + 1)."""
    a = _ma(a)
    if a._m is nomask:
        return finish(_tnp.var(a._data, axis=axis, dtype=dtype, ddof=ddof,
                                       keepdims=keepdims), nomask, a)
    if mean is None and dtype is None:
        return _masked_var(a, axis, ddof, keepdims)
    cnt = count(a, axis, keepdims)
    cnt = cnt - ddof
    mu = globals()["mean"](a, axis, dtype, keepdims=True) if mean is None else mean
    if mu is masked:
        return masked
    danom = OPS["subtract"](a, mu)
    if danom.dtype.is_complex:
        danom = OPS["absolute"](danom)
    danom = OPS["multiply"](danom, danom)
    s = sum(danom, axis, keepdims=keepdims)
    if s is masked:
        return masked
    if isinstance(cnt, int) and cnt <= 0:
        return masked
    dvar = OPS["divide"](s, cnt)
    if isinstance(dvar, MaskedArray):  # NumPy's mask: none left, or too few (shrunk)
        bad = _C.le(cnt, 0) if isinstance(cnt, Tensor) else nomask
        dvar._m = _broadcast_mask(mask_or(_mask_all(a._m, axis, keepdims), bad), dvar.shape)
    return dvar


def _masked_var(a, axis, ddof, keepdims):
    """var of a masked array in a few passes over tensors (NumPy's masked
    arithmetic, fused): the deviations from the mean of the unmasked
    elements, zero where masked, squared and summed, over count - ddof.
    NumPy's dtypes: float16 stays float16, the rest is float64."""
    m = a._m
    if a.dtype.is_complex:
        work = _C.complex128
    else:
        work = _C.float32 if a.dtype == _C.float16 else _C.float64
    x = a._data.to(work).masked_fill(m, 0)
    n = count(a, axis, keepdims=True)
    n = n if isinstance(n, Tensor) else _C.full((1,) * a.ndim, n, dtype=_C.int64)
    # counts of 0 (all masked) divide as 1: those results are masked, and
    # their data is then the sum, as NumPy's division leaves the dividend
    mu = _tnp.sum(x, axis=axis, keepdims=True) / _C.clamp(n, 1, None)
    dev = (x - mu).masked_fill(m, 0)
    sq = _C.square(_C.abs(dev)) if work == _C.complex128 else dev * dev
    total = _tnp.sum(sq, axis=axis, keepdims=keepdims)
    cnt = n.reshape(tuple(total.shape)) - ddof
    bad = _C.le(cnt, 0)  # every element masked, or no more than ddof left
    result = total / _C.where(bad, _C.ones((), dtype=cnt.dtype), cnt)
    if a.dtype == _C.float16:
        result = result.to(_C.float16)
    if result.ndim == 0:
        return masked if bool(bad) else result
    return finish(result, _broadcast_mask(mask_or(bad, nomask), result.shape), a)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None):
    """Standard deviation of the unmasked elements."""
    v = var(a, axis, dtype, None, ddof, keepdims, mean=mean)
    return masked if v is masked else OPS["sqrt"](v)


def _cumulative(fn, fill, a, axis, dtype):
    a = _ma(a)
    r = fn(a.filled(fill), axis=axis, dtype=dtype)
    m = a._m if a._m is nomask or axis is not None else a._m.reshape(-1)
    return MaskedArray._new(r, m, a)


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums that skip the masked elements; the mask is kept."""
    return _cumulative(_tnp.cumsum, 0, a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """Running products that skip the masked elements; the mask is kept."""
    return _cumulative(_tnp.cumprod, 1, a, axis, dtype)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median of the unmasked elements (the mean of the two middle ones for
    an even count; masked where there are none)."""
    a = _ma(a)
    if a._m is nomask:
        r = _tnp.median(a._data, axis=axis, keepdims=keepdims)
        return r if r.ndim == 0 else MaskedArray._new(r, nomask, None)
    if axis is None:
        flat = a.ravel()
        r = median(flat, 0)
        if keepdims and r is not masked:
            r = r.reshape((1,) * a.ndim) if r.ndim == 0 else r
        return r
    axis = norm_axis(axis, a.ndim)
    filler = numpy.nan if (a.dtype.is_floating_point or a.dtype.is_complex) \
        else minimum_fill_value(a)
    s = _tnp.sort(a.filled(filler), axis=axis)  # masked at the end (NaN last)
    n = count(a, axis, keepdims=True)
    lo = _C.clamp((n - 1) // 2, 0, None)
    hi = _C.clamp(n // 2, 0, None)
    fdt = s.dtype if (s.dtype.is_floating_point or s.dtype.is_complex) else _C.float64
    take = _tnp.take_along_axis
    r = (take(s, lo, axis).to(fdt) + take(s, hi, axis).to(fdt)) / 2
    rm = _C.eq(n, 0)
    if not keepdims:
        r, rm = r.squeeze(axis), rm.squeeze(axis)
    return finish(r, rm, None)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted mean of the unmasked elements (``returned``: with the sum of
    the weights that took part)."""
    a = _ma(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        scl = count(a, axis, keepdims)
        if returned:
            dt = getdata(avg).dtype if avg is not masked else _C.float64
            scl = _C.full((), scl, dtype=dt) if isinstance(scl, int) else scl.to(dt)
            return avg, scl
        return avg
    w = _colocate(weights, getdata(weights), a._data)  # a list of weights joins a's device
    if a.dtype.is_complex or w.dtype.is_complex:
        rdt = _C.complex128
    else:
        rdt = _C.float64 if not (a.dtype == w.dtype == _C.float32) else _C.float32
    if tuple(w.shape) != a.shape:  # shaped as a along the axes (a tuple's too), as NumPy 2
        w = weights_along(w, a.shape, axis).expand(a.shape)
    w = w.to(rdt)
    wm = MaskedArray._new(w, a._m, None) if a._m is not nomask else w
    if a._m is not nomask:
        wm = MaskedArray._new(_C.where(a._m, _C.zeros((), dtype=rdt), w), a._m.clone(), None)
    scl = sum(wm, axis, keepdims=keepdims)
    num = sum(OPS["multiply"](a.astype(rdt), wm), axis, keepdims=keepdims)
    avg = OPS["divide"](num, scl)
    if returned:
        return avg, scl
    return avg


def anom(a, axis=None, dtype=None):
    """Deviations from the mean along ``axis``."""
    a = _ma(a)
    mu = mean(a, axis, dtype)
    if axis is not None and isinstance(mu, (MaskedArray, Tensor)) and mu.ndim:
        mu = MaskedArray(mu).reshape(
            tuple(1 if i == norm_axis(axis, a.ndim) else n for i, n in enumerate(a.shape)))
    return OPS["subtract"](a, mu)


anomalies = anom


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _fn in (sum, prod, all, any, min, max, ptp, argmin, argmax, count, mean, var, std,
            cumsum, cumprod, anom):
    setattr(MaskedArray, _fn.__name__, _method(_fn))
MaskedArray.product = MaskedArray.prod
MaskedArray.anomalies = MaskedArray.anom
del np_dtype
