"""NumPy reductions over tensors: sum, prod, mean, std, var, min, max, argmin,
argmax, all, any, cumsum, cumprod, the nan* family, median, quantile,
percentile, ptp and average.

NumPy's arguments (``axis=``, ``keepdims=``, ``dtype=``, ``out=``, ``ddof=``)
are translated to torchlike's; integer sums accumulate in int64 as in NumPy."""
import builtins

import numpy as np

from .. import _C
from .._array_function import (
    implements, Unsupported, tl_dtype, as_tensor, norm_axis, norm_axes, all_axes, finish,
    refuse, cast, NoValue, TABLE)

Tensor = _C.Tensor


def _reduce_args(a, axis, keepdims):
    """(tensor, axes to reduce, keepdim).  ``axis=()`` reduces over no axis:
    each element alone, done as a reduction over a new length-1 last axis
    (torchlike's ops read an empty dim list as "all dims")."""
    a = as_tensor(a)
    axes = norm_axes(axis, a.ndim)
    if axes == ():
        return a.reshape(*a.shape, 1), (a.ndim,), False
    return a, (all_axes(a) if axes is None else axes), builtins.bool(keepdims is True)


def _reduction(name):
    op = getattr(_C, name)

    def impl(a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
             where=NoValue):
        if initial is not NoValue or (where is not NoValue and where is not True):
            raise Unsupported(f"{name}: the arguments 'initial' and 'where' are not supported "
                              f"on tensors")
        a, axes, keep = _reduce_args(a, axis, keepdims)
        dtype = tl_dtype(dtype)
        if name in ("sum", "prod", "nansum") and a.dtype in (_C.bool, _C.int8, _C.int16,
                                                              _C.int32, _C.uint8):
            dtype = dtype or _C.int64  # NumPy accumulates small integers in int64
        kw = {"dtype": dtype} if dtype is not None else {}
        return finish(op(a, axes, keepdim=keep, **kw), out)
    impl.__name__ = name
    return impl


implements(np.sum)(_reduction("sum"))
implements(np.prod)(_reduction("prod"))
implements(np.nansum)(_reduction("nansum"))


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=NoValue, *, where=NoValue):
    refuse(where=where)
    a, axes, keep = _reduce_args(a, axis, keepdims)
    dtype = tl_dtype(dtype)
    if dtype is None and not (a.is_floating_point() or a.is_complex()):
        dtype = _C.float64
    return finish(_C.mean(cast(a, dtype), axes, keepdim=keep), out)


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=NoValue, *, where=NoValue):
    refuse(where=where)
    a, axes, keep = _reduce_args(a, axis, keepdims)
    dtype = tl_dtype(dtype)
    if dtype is None and not (a.is_floating_point() or a.is_complex()):
        dtype = _C.float64
    return finish(_C.nanmean(cast(a, dtype), axes, keepdim=keep), out)


def _moment(name):
    op = getattr(_C, name)

    def impl(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, *,
             where=NoValue, mean=NoValue, correction=NoValue):
        refuse(where=where, mean=mean)
        if correction is not NoValue:
            if ddof:
                raise ValueError("ddof and correction can't be provided simultaneously.")
            ddof = correction
        a, axes, keep = _reduce_args(a, axis, keepdims)
        dtype = tl_dtype(dtype)
        if dtype is None and not (a.is_floating_point() or a.is_complex()):
            dtype = _C.float64
        return finish(op(cast(a, dtype), axes, correction=ddof, keepdim=keep), out)
    impl.__name__ = name
    return impl


implements(np.std)(_moment("std"))
implements(np.var)(_moment("var"))


def _extreme(name):
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, keepdims=NoValue, initial=NoValue, where=NoValue):
        refuse(where=where)
        if initial is not NoValue:
            raise Unsupported(f"{name}: the argument 'initial' is not supported on tensors")
        a, axes, keep = _reduce_args(a, axis, keepdims)
        if a.numel() == 0 and any(a.shape[ax] == 0 for ax in axes):
            raise ValueError(f"zero-size array to reduction operation {name[1:]}imum which "
                             f"has no identity")
        if a.is_complex():
            return finish(_complex_extreme(op, a, axes, keep), out)
        return finish(op(a, axes, keepdim=keep), out)
    impl.__name__ = name
    return impl


def _complex_extreme(op, a, axes, keep):
    """NumPy orders complex numbers lexicographically: by the real part, then
    the imaginary part among equal real parts; the first element with a NaN
    wins.  The reduced dims are flattened into one, the winner's position is
    found there, and the result is gathered -- so the selected element gets the
    gradient."""
    axes = list(axes) if axes else list(range(a.ndim))
    kept = [d for d in range(a.ndim) if d not in axes]
    flat = a.permute(*kept, *axes).reshape(*[a.shape[d] for d in kept], -1)
    re, im = _C.real(flat), _C.imag(flat)
    best_re = op(re, -1, keepdim=True)
    fill = float("-inf") if op is _C.amax else float("inf")
    best_im = op(_C.where(re == best_re, im, fill), -1, keepdim=True)
    winner = (re == best_re) & (im == best_im)
    nan = _C.isnan(re) | _C.isnan(im)
    index = _C.where(nan.any(-1, keepdim=True), nan.to(_C.uint8).argmax(-1, keepdim=True),
                     winner.to(_C.uint8).argmax(-1, keepdim=True))
    best = _C.gather(flat, -1, index).reshape(*[a.shape[d] for d in kept])
    if keep:
        shape = [1 if d in axes else a.shape[d] for d in range(a.ndim)]
        best = best.reshape(*shape)
    return best


implements(np.max, np.amax)(_extreme("amax"))
implements(np.min, np.amin)(_extreme("amin"))


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=NoValue):
    return finish(_extreme("amax")(a, axis, keepdims=keepdims)
                  - _extreme("amin")(a, axis, keepdims=keepdims), out)


def _arg_extreme(name):
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, *, keepdims=NoValue):
        a = as_tensor(a)
        keep = keepdims is True
        if a.numel() == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if axis is None:
            result = op(a.reshape(-1), 0)
            result = result.reshape((1,) * a.ndim) if keep else result
        else:
            result = op(a, norm_axis(axis, a.ndim), keepdim=keep)
        return finish(result, out)
    impl.__name__ = name
    return impl


implements(np.argmax)(_arg_extreme("argmax"))
implements(np.argmin)(_arg_extreme("argmin"))


def _logical_reduction(name):
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, keepdims=NoValue, *, where=NoValue):
        refuse(where=where)
        a, axes, keep = _reduce_args(a, axis, keepdims)
        result = op(a, axes, keepdim=keep)
        if result.dtype != _C.bool:  # torchlike (as PyTorch) keeps uint8; NumPy says bool
            result = result.to(_C.bool)
        return finish(result, out)
    impl.__name__ = name
    return impl


implements(np.all)(_logical_reduction("all"))
implements(np.any)(_logical_reduction("any"))


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    a, axes, keep = _reduce_args(a, axis, keepdims)
    result = _C.count_nonzero(a, axes)
    return result.reshape(tuple(1 if i in axes else s for i, s in enumerate(a.shape))) \
        if keep else result


def _scan(name):
    op = getattr(_C, name)

    def impl(a, axis=None, dtype=None, out=None):
        a = as_tensor(a)
        if axis is None:
            a, axis = a.reshape(-1), 0
        axis = norm_axis(axis, a.ndim)
        dtype = tl_dtype(dtype)
        if dtype is None and a.dtype in (_C.bool, _C.int8, _C.int16, _C.int32, _C.uint8):
            dtype = _C.int64
        kw = {"dtype": dtype} if dtype is not None else {}
        return finish(op(a, axis, **kw), out)
    impl.__name__ = name
    return impl


implements(np.cumsum)(_scan("cumsum"))
implements(np.cumprod)(_scan("cumprod"))


@implements(np.cumulative_sum)
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    x = as_tensor(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be specified for multi-dimensional arrays.")
        axis = 0
    result = _scan("cumsum")(x, axis, dtype)
    if include_initial:
        shape = list(result.shape)
        shape[norm_axis(axis, x.ndim)] = 1
        result = _C.cat([_C.zeros(tuple(shape), dtype=result.dtype, device=result.device),
                         result], norm_axis(axis, x.ndim))
    return finish(result, out)


@implements(np.cumulative_prod)
def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    x = as_tensor(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be specified for multi-dimensional arrays.")
        axis = 0
    result = _scan("cumprod")(x, axis, dtype)
    if include_initial:
        shape = list(result.shape)
        shape[norm_axis(axis, x.ndim)] = 1
        result = _C.cat([_C.ones(tuple(shape), dtype=result.dtype, device=result.device),
                         result], norm_axis(axis, x.ndim))
    return finish(result, out)


def _nan_to(a, value):
    a = as_tensor(a)
    if not (a.is_floating_point() or a.is_complex()):
        return a
    return _C.where(_C.isnan(a), _C.full((), value, dtype=a.dtype, device=a.device), a)


@implements(np.nanprod)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
            where=NoValue):
    return TABLE[np.prod](_nan_to(a, 1), axis, dtype, out, keepdims, initial, where)


@implements(np.nancumsum)
def nancumsum(a, axis=None, dtype=None, out=None):
    return _scan("cumsum")(_nan_to(a, 0), axis, dtype, out)


@implements(np.nancumprod)
def nancumprod(a, axis=None, dtype=None, out=None):
    return _scan("cumprod")(_nan_to(a, 1), axis, dtype, out)


def _nan_extreme(name, fill):
    def impl(a, axis=None, out=None, keepdims=NoValue, initial=NoValue, where=NoValue):
        a = as_tensor(a)
        if not a.is_floating_point():
            return TABLE[getattr(np, name)](a, axis, out, keepdims, initial, where)
        result = TABLE[getattr(np, name)](_nan_to(a, fill), axis, None, keepdims, initial,
                                           where)
        all_nan = TABLE[np.all](_C.isnan(a), axis, keepdims=keepdims)
        return finish(_C.where(all_nan, _C.full((), float("nan"), dtype=a.dtype,
                                                device=a.device), result), out)
    return impl


implements(np.nanmax)(_nan_extreme("max", float("-inf")))
implements(np.nanmin)(_nan_extreme("min", float("inf")))


def _nan_arg(name, fill):
    def impl(a, axis=None, out=None, *, keepdims=NoValue):
        a = as_tensor(a)
        if a.is_floating_point():
            nan = _C.isnan(a)
            if TABLE[np.all](nan, axis).any().item():
                raise ValueError("All-NaN slice encountered")
            a = _nan_to(a, fill)
        return TABLE[getattr(np, name)](a, axis, out, keepdims=keepdims)
    return impl


implements(np.nanargmax)(_nan_arg("argmax", float("-inf")))
implements(np.nanargmin)(_nan_arg("argmin", float("inf")))


def _nan_moment(name):
    def impl(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, *,
             where=NoValue, mean=NoValue, correction=NoValue):
        refuse(where=where, mean=mean)
        if correction is not NoValue:
            ddof = correction
        a, axes, keep = _reduce_args(a, axis, keepdims)
        a = cast(a, dtype)
        if not (a.is_floating_point() or a.is_complex()):
            a = a.to(_C.float64)
        valid = ~_C.isnan(a)
        count = _C.sum(valid, axes, keepdim=True)
        centred = _nan_to(a, 0) - _C.nansum(a, axes, keepdim=True) / count
        sq = _C.where(valid, (centred * centred.conj_physical()).abs() if a.is_complex()
                      else centred * centred, _C.zeros((), dtype=a.dtype, device=a.device))
        result = _C.sum(sq, axes, keepdim=True) / (count - ddof).clamp(min=0)
        if name == "nanstd":
            result = result.sqrt()
        if not keep:
            result = result.reshape(tuple(s for i, s in enumerate(result.shape) if i not in axes))
        return finish(result, out)
    return impl


implements(np.nanvar)(_nan_moment("nanvar"))
implements(np.nanstd)(_nan_moment("nanstd"))


def _quantile_impl(op, a, q, axis, out, overwrite_input, method, keepdims, weights,
                   interpolation, scale):
    if weights is not None or interpolation is not None:
        raise Unsupported("quantile: the arguments 'weights' and 'interpolation' are not "
                          "supported on tensors")
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise Unsupported(f"quantile: argument 'method' {method!r} is not supported on tensors "
                          f"(linear, lower, higher, midpoint, nearest are)")
    a = as_tensor(a)
    if not a.is_floating_point():
        a = a.to(_C.float64)
    q_is_scalar = not isinstance(q, (Tensor, np.ndarray, list, tuple)) or \
        (hasattr(q, "ndim") and q.ndim == 0)
    qt = as_tensor(q).to(a.dtype) / scale
    if ((qt < 0) | (qt > 1)).any().item():
        raise ValueError("Quantiles must be in the range [0, 1]" if scale == 1
                         else "Percentiles must be in the range [0, 100]")
    keep = keepdims is True
    axes = norm_axes(axis, a.ndim)
    if axes is None:
        x, dim = a.reshape(-1), 0
    elif len(axes) == 1:
        x, dim = a, axes[0]
    else:
        rest = [i for i in range(a.ndim) if i not in axes]
        x = a.permute(*rest, *axes).reshape(*[a.shape[i] for i in rest], -1)
        dim = len(rest)
    result = op(x, qt.reshape(()) if q_is_scalar else qt.reshape(-1), dim=dim,
                keepdim=False, interpolation=method)
    if keep:
        kept = [1 if axes is None or i in axes else s for i, s in enumerate(a.shape)]
        result = result.reshape(tuple(qt.shape) + tuple(kept))
    elif not q_is_scalar:
        result = result.reshape(tuple(qt.shape) + tuple(result.shape[1:]))
    return finish(result, out)


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    return _quantile_impl(_C.quantile, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 1)


@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    return _quantile_impl(_C.quantile, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 100)


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=NoValue, *, weights=None, interpolation=None):
    return _quantile_impl(_C.nanquantile, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 1)


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=NoValue, *, weights=None, interpolation=None):
    return _quantile_impl(_C.nanquantile, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 100)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis, out, keepdims=keepdims)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=NoValue):
    return nanquantile(a, 0.5, axis, out, keepdims=keepdims)


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=NoValue):
    a = as_tensor(a)
    if not (a.is_floating_point() or a.is_complex()):
        a = a.to(_C.float64)
    keep = keepdims is True
    axes = norm_axes(axis, a.ndim)
    axes = all_axes(a) if axes is None else axes
    if weights is None:
        avg = _C.mean(a, axes, keepdim=keep)
        scl = _C.full(tuple(avg.shape), a.numel() / max(avg.numel(), 1), dtype=avg.dtype,
                      device=avg.device)
    else:
        w = as_tensor(weights)
        if not (w.is_floating_point() or w.is_complex()):
            w = w.to(_C.float64)
        if tuple(w.shape) != tuple(a.shape):
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if w.ndim != len(axes) or tuple(w.shape) != tuple(a.shape[i] for i in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = w.reshape(tuple(a.shape[i] if i in axes else 1 for i in range(a.ndim)))
        w = _C.broadcast_to(w, tuple(a.shape))
        scl = _C.sum(w, axes, keepdim=keep)
        if (scl == 0).any().item():
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _C.sum(a * w, axes, keepdim=keep) / scl
    return (avg, scl) if returned else avg


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, bias=NoValue, ddof=NoValue, *, dtype=None):
    # NumPy's own code divides its covariance in place, which would overwrite a
    # tensor the tape still needs; the same steps without writes:
    c = np.cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = _C.diagonal(c)
    std = _C.sqrt(_C.real(d) if d.is_complex() else d)
    c = c / std.reshape(-1, 1) / std.reshape(1, -1)
    if c.is_complex():
        return _C.clamp(_C.real(c), -1, 1) + _C.clamp(_C.imag(c), -1, 1) * 1j
    return _C.clamp(c, -1, 1)
