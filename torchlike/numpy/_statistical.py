"""NumPy reductions over tensors: sum, prod, mean, std, var, min, max, argmin,
argmax, all, any, cumsum, cumprod, the nan* family, median, quantile,
percentile, ptp and average.

NumPy's arguments (``axis=``, ``keepdims=``, ``dtype=``, ``out=``, ``ddof=``)
are translated to torchlike's; integer sums accumulate in int64 as in NumPy."""
import builtins
import math
import warnings

import numpy as np

from .. import _C
from .._array_function import (
    implements, Unsupported, tl_dtype, np_dtype, as_tensor, norm_axis, norm_axes, all_axes, finish,
    refuse, cast, NoValue, TABLE, accumulator_dtype, promote, tensor_if_holding, unaliased,
    weights_along, check_reduce_out, check_accumulate_out)

Tensor = _C.Tensor


def _reduce_args(a, axis, keepdims, ufunc=False):
    """(tensor, axes to reduce, keepdim).  ``axis=()`` reduces over no axis:
    each element alone, done as a reduction over a new length-1 last axis
    (torchlike's ops read an empty dim list as "all dims").  ``ufunc``: the
    reductions of NumPy's ufuncs (sum, prod, max, min, all, any), which take
    an int axis 0 or -1 for a 0-d array."""
    a = as_tensor(a)
    if ufunc and a.ndim == 0:
        axis = _zero_d_axis(axis)
    axes = norm_axes(axis, a.ndim)
    if axes == ():
        return a.reshape(*a.shape, 1), (a.ndim,), False
    return a, (all_axes(a) if axes is None else axes), builtins.bool(keepdims is True)


def _zero_d_axis(axis):
    """NumPy's reductions of a 0-d array by a ufunc, or its argmax/argmin,
    take axis 0 or -1 (an int, not a tuple) as the whole array: None then."""
    if not isinstance(axis, (builtins.bool, tuple, list)) and hasattr(axis, "__index__") and \
            axis.__index__() in (0, -1):
        return None
    return axis


def _initial(initial, dtype, device):
    """``initial=`` as NumPy puts it in the result's dtype (0-d): an integer
    dtype takes ``int(initial)`` (a float truncated, a complex refused), which
    must fit it (NumPy's OverflowError); a float dtype the value as NumPy casts
    it (inf past float16's range; a float64 value kept whole, where a tensor
    made of it first would have been float32)."""
    if dtype.is_floating_point or dtype.is_complex:
        wide = _C.complex128 if dtype.is_complex or isinstance(initial, complex) else _C.float64
        if isinstance(initial, int):  # beyond int64 too: NumPy converts it
            initial = float(initial)
        return _C.full((), initial, dtype=wide, device=device).to(dtype)
    if dtype == _C.bool:
        return _C.full((), builtins.bool(initial), dtype=dtype, device=device)
    value = int(initial)
    info = np.iinfo(np_dtype(dtype))
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python integer {value} out of bounds for {info.dtype}")
    return _C.full((), value, dtype=dtype, device=device)


def _where_mask(a, where):
    """NumPy's ``where=`` of a reduction as a bool tensor of ``a``'s shape, or
    None when every element takes part."""
    if where is NoValue or where is True:
        return None
    mask = where if isinstance(where, Tensor) else as_tensor(where)
    if mask.dtype is not _C.bool:
        mask = mask.to(_C.bool)
    try:
        return mask.broadcast_to(tuple(a.shape))
    except RuntimeError as error:
        if "device" in str(error):
            raise
        raise ValueError(f"operands could not be broadcast together: the array {tuple(a.shape)} "
                         f"and where= {tuple(mask.shape)}") from None


def _masked(a, where, fill):
    """``a`` with the elements ``where=`` leaves out replaced by ``fill`` (the
    reduction's identity), so a plain reduction computes NumPy's masked one
    and the gradient reaches exactly the elements that took part."""
    mask = _where_mask(a, where)
    if mask is None:
        return a
    return _C.where(mask, a, _C.full((), fill, dtype=a.dtype, device=a.device))


def _plain_axis(axis, ndim):
    """axis=None, or one int axis of an array with dims: what the short paths
    of the reductions take (the rest goes through _reduce_args)."""
    return axis is None or type(axis) is int and -ndim <= axis < ndim


# ---- out= of another dtype ------------------------------------------------------
# NumPy's reductions accumulate in out's array: the loop is the ufunc's for
# out's dtype with the data's (np.min(int16, out=uint32) compares in int64),
# and what starts the reduction -- initial=, or else the first element along
# the reduced axes -- is first written into out, in out's dtype.

def _out_dtype(out):
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else None
    if out is None:
        return None
    return out.dtype if isinstance(out, Tensor) else tl_dtype(out.dtype)


def _out_loop(a, out):
    """The dtype NumPy reduces a in when writing into out (None: a's own, or
    no out=).  Real data into a complex out reduce in the real dtype of that
    loop: the same values, and max/min have no complex kernel."""
    target = _out_dtype(out)
    if target is None or target == a.dtype or a.is_complex() or _C.bfloat16 in (target, a.dtype):
        return None
    loop = tl_dtype(np.promote_types(np_dtype(target), np_dtype(a)))
    return loop.to_real() if loop.is_complex else loop


def _via_out(x, out, loop):
    """x (in the loop's dtype) as it reads back after a store into out (a
    complex out keeps a real loop's values)."""
    target = _out_dtype(out)
    return x if target.is_complex else x.to(target).to(loop)


def _first_via_out(a, axes, out, loop):
    """a in the loop's dtype, its first element along the reduced axes
    passed through out's dtype: the value NumPy's reduction without an
    identity starts from."""
    b = a.to(loop) if a.dtype != loop else a.clone()
    first = tuple(0 if d in axes else slice(None) for d in range(b.ndim))
    b[first] = _via_out(b[first], out, loop)
    return b


# the ufunc whose reduction a function is, as NumPy's out= messages name it
_REDUCING_UFUNC = {"sum": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _check_reduce_out(name, a, axis, keepdims, out, where):
    """NumPy's out= shape refusals for reduction ``name`` (check_reduce_out)."""
    a = as_tensor(a)
    _, axes, keep = _reduce_args(a, axis, keepdims, ufunc=True)
    check_reduce_out(_REDUCING_UFUNC[name], a.shape, axes, keep, out,
                     None if where is NoValue else where)


def _reduction(name):
    op = getattr(_C, name)

    identity = 1 if name == "prod" else 0

    def impl(a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
             where=NoValue):
        if type(a) is Tensor and dtype is None and out is None and initial is NoValue and \
                where is NoValue and _plain_axis(axis, a.ndim):
            # the common calls, short: np.sum(x), np.sum(x, axis=0, keepdims=True)
            wide = accumulator_dtype(a.dtype)
            if axis is None and keepdims is not True:
                return op(a) if wide is None else op(a, dtype=wide)
            dims = () if axis is None else (axis % a.ndim,)  # () is every dim
            return op(a, dims, keepdims is True) if wide is None else \
                op(a, dims, keepdims is True, dtype=wide)
        if out is not None and name in _REDUCING_UFUNC:
            _check_reduce_out(name, a, axis, keepdims, out, where)
        a = _masked(as_tensor(a), where, identity)
        a, axes, keep = _reduce_args(a, axis, keepdims, ufunc=True)
        dtype = tl_dtype(dtype)
        loop = _out_loop(a, out) if dtype is None else None
        if loop is not None:
            dtype = loop
        elif name in ("sum", "prod", "nansum") and dtype is None:
            dtype = accumulator_dtype(a.dtype)
        kw = {"dtype": dtype} if dtype is not None else {}
        result = op(a, axes, keepdim=keep, **kw)
        if initial is not NoValue:  # NumPy casts it to the result's dtype (0.5 -> 0 for ints)
            start = _initial(initial, result.dtype, result.device)
            if loop is not None:  # the loop's value, as stored into out
                start = _via_out(start, out, loop)
            elif out is not None and a.is_complex() and not isinstance(initial, complex):
                # complex data reduce in their own loop, but NumPy's initial=
                # still passes through out's dtype (1.16 is 1 for an int16 out)
                start = _initial(initial, _out_dtype(out), result.device).to(result.dtype)
            result = result * start if name == "prod" else result + start
        return finish(result, out)
    impl.__name__ = impl.__qualname__ = name
    return impl


implements(np.sum)(_reduction("sum"))
implements(np.prod)(_reduction("prod"))
_nansum_real = _reduction("nansum")


@implements(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
           where=NoValue):
    a = as_tensor(a)
    if a.is_complex():  # a complex element is NaN when either part is
        return TABLE[np.sum](_nan_to(a, 0), axis, dtype, out, keepdims, initial, where)
    return _nansum_real(a, axis, dtype, out, keepdims, initial, where)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=NoValue, *, where=NoValue):
    if type(a) is Tensor and dtype is None and out is None and keepdims is NoValue and \
            where is NoValue and a.is_floating_point() and \
            (axis is None or type(axis) is int and -a.ndim <= axis < a.ndim):
        # the common call, a float array's mean over all or one axis: the op
        # (the general path below costs four times the op itself)
        return _C.mean(a) if axis is None else _C.mean(a, axis)
    a = as_tensor(a)
    mask = _where_mask(a, where)
    # NumPy's mean counts a where= mask's elements with a ufunc reduction,
    # which takes axis 0/-1 of a 0-d array; without where= it refuses them
    a, axes, keep = _reduce_args(a, axis, keepdims, ufunc=where is not NoValue)
    dtype = tl_dtype(dtype)
    if out is not None:
        return _mean_into(a, axes, keep, dtype, mask, out)
    if dtype is None and not (a.is_floating_point() or a.is_complex()):
        dtype = _C.float64
    a = cast(a, dtype)
    if dtype in _EXACT:  # NumPy's: the sum in dtype, divided, truncated back to dtype
        total, count = _sum_count(a, axes, keep, dtype, mask)
        return finish((total.to(_C.float64) / count.to(_C.float64)).to(dtype), out)
    if mask is not None:
        return finish(_masked_mean(a, mask, axes, keep), out)
    return finish(_C.mean(a, axes, keepdim=keep), out)


def _sum_count(a, axes, keep, dtype, mask):
    """The sum (in dtype) of the elements mask keeps, and their count."""
    if mask is not None:
        mask = mask.reshape(tuple(a.shape))
        a = _C.where(mask, a, _C.zeros((), dtype=a.dtype, device=a.device))
    count = _C.sum(mask, axes, keepdim=keep) if mask is not None else \
        _C.prod(_C.tensor([a.shape[d] for d in axes] or [1], device=a.device))
    return _C.sum(a, axes, keepdim=keep, dtype=dtype), count


def _mean_into(a, axes, keep, dtype, mask, out):
    """NumPy's mean with out=: the sum is written into out (an integer out
    holds it truncated, wrapped), then divided there by the count, in float64
    for an integer out."""
    if dtype is None and not (a.is_floating_point() or a.is_complex()):
        dtype = _C.float64
    elif dtype is None:  # float16 sums in float32; others in the loop of out's dtype
        dtype = _C.float32 if a.dtype is _C.float16 else _out_loop(a, out)
    total, count = _sum_count(a, axes, keep, dtype, mask)
    finish(total, out)
    target = out[0] if isinstance(out, tuple) else out
    target = _C.from_numpy(target) if isinstance(target, np.ndarray) else target
    exact = target.dtype in _EXACT
    count = count.to(target.device)  # an ndarray out of device data: on the host
    # the sum as out holds it, copied: the division keeps its operand for the
    # gradient, and out is written again below
    held = target.to(_C.float64) if exact else target.clone()
    quotient = held / \
        count.to(_C.float64 if exact or target.is_complex() else target.dtype)
    return finish(quotient, out)


def _masked_mean(a, mask, axes, keep):
    """The mean of the elements ``mask`` keeps (NaN where none is kept, as
    NumPy's 0/0)."""
    if a.ndim != mask.ndim:  # _reduce_args added a length-1 axis (axis=())
        mask = mask.reshape(tuple(a.shape))
    total = _C.sum(_C.where(mask, a, _C.zeros((), dtype=a.dtype, device=a.device)), axes,
                   keepdim=keep)
    count = _C.sum(mask, axes, keepdim=keep)
    return total / count.to(total.dtype if not total.is_complex() else _C.real(total).dtype)


def _check_inexact(a, dtype, out):
    """NumPy's nanmean/nanvar/nanstd refuse an integer or bool dtype or out for
    float or complex data."""
    if not (a.is_floating_point() or a.is_complex()):
        return
    if dtype is not None and tl_dtype(dtype) in _EXACT:
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and tl_dtype(out.dtype) in _EXACT:
        raise TypeError("If a is inexact, then out must be inexact")


# a set: membership by hash, where a tuple would call the dtypes' __eq__ (NumPy's
# dtype comparisons, about 1 us a miss) once per entry
_EXACT = frozenset((_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.uint16,
                    _C.uint32, _C.uint64))


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=NoValue, *, where=NoValue):
    a = as_tensor(a)
    if not (a.is_floating_point() or a.is_complex()):
        # no NaN in integers or bools: NumPy's nanmean is then its mean, an
        # integer dtype= included (the op refused it)
        return mean(a, axis, dtype, out, keepdims, where=where)
    mask = _where_mask(a, where)
    a, axes, keep = _reduce_args(a, axis, keepdims)
    _check_inexact(a, dtype, out)
    dtype = tl_dtype(dtype)
    if dtype is None and not (a.is_floating_point() or a.is_complex()):
        dtype = _C.float64
    a = cast(a, dtype)
    if mask is not None:  # NumPy's: the sum and the count of the kept non-NaN elements
        valid = ~_C.isnan(a) & mask.reshape(tuple(a.shape))
        return finish(_masked_mean(a, valid, axes, keep), out)
    if a.is_complex():  # the op takes real dtypes: NaN-free sum over the count
        total = _C.sum(_nan_to(a, 0), axes, keepdim=keep)
        return finish(total / _C.sum(~_C.isnan(a), axes, keepdim=keep), out)
    return finish(_C.nanmean(a, axes, keepdim=keep), out)


def _moment(name):
    op = getattr(_C, name)

    def impl(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, *,
             where=NoValue, mean=NoValue, correction=NoValue):
        if correction is not NoValue:
            if ddof:
                raise ValueError("ddof and correction can't be provided simultaneously.")
            ddof = correction
        a = as_tensor(a)
        mask = _where_mask(a, where)
        ndim = a.ndim
        a, axes, keep = _reduce_args(a, axis, keepdims)
        dtype = tl_dtype(dtype)
        if dtype is None and not (a.is_floating_point() or a.is_complex()):
            dtype = _C.float64
        a = cast(a, dtype)
        if mask is None and a.is_complex() and \
                math.prod(a.shape[i] for i in axes) - ddof <= 0:
            # NumPy divides the summed |z - mean|^2 by 0 (inf); torchlike's
            # op is PyTorch's var(re) + var(im), NaN where a part is 0 / 0
            mask = _C.ones((), dtype=_C.bool, device=a.device).expand(*a.shape)
        if mask is None and mean is NoValue:
            return finish(op(a, axes, correction=ddof, keepdim=keep), out)
        # NumPy's masked moment (and its moment about a given mean=, shaped
        # as with keepdims=True): the kept squared deviations from the
        # (masked) mean summed over (count - ddof), floored at 0
        if mask is None:
            mask = _C.ones((), dtype=_C.bool, device=a.device).expand(*a.shape)
        if a.ndim != mask.ndim:
            mask = mask.reshape(tuple(a.shape))
        if mean is NoValue:
            centred = a - _masked_mean(a, mask, axes, True)
        else:
            given = as_tensor(mean)
            centred = a - (given if a.ndim == ndim else given.reshape(*given.shape, 1))
        square = _C.real(centred * _C.conj_physical(centred)) if a.is_complex() else \
            centred * centred
        total = _C.sum(_C.where(mask, square, _C.zeros((), dtype=square.dtype,
                                                       device=a.device)), axes, keepdim=keep)
        count = _C.sum(mask, axes, keepdim=keep).to(total.dtype) - ddof
        result = total / _C.clamp(count, min=0)
        if name == "std":
            # a zero std has a zero gradient, as the op's (PyTorch's): sqrt's
            # infinite slope at 0 would make it NaN
            zero = result == 0
            result = _C.where(zero, 0.0, _C.sqrt(_C.where(zero, 1.0, result)))
        return finish(result, out)
    impl.__name__ = impl.__qualname__ = name
    return impl


implements(np.std)(_moment("std"))
implements(np.var)(_moment("var"))


def _extreme(name, public=None):
    """np.amax/np.amin (name), or np.max/np.min as ``public`` (its name in
    messages)."""
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, keepdims=NoValue, initial=NoValue, where=NoValue):
        if type(a) is Tensor and out is None and initial is NoValue and where is NoValue and \
                _plain_axis(axis, a.ndim) and a.numel() and not a.is_complex():
            # the common calls, short: np.max(x), np.max(x, axis=1)
            if axis is None and keepdims is not True:
                return op(a)
            return op(a, () if axis is None else (axis % a.ndim,), keepdim=keepdims is True)
        if out is not None:
            _check_reduce_out(name, a, axis, keepdims, out, where)
        a = as_tensor(a)
        loop = _out_loop(a, out)
        if initial is not NoValue:
            _reduce_args(a, axis, keepdims, ufunc=True)  # a bad axis before a bad initial
            if a.is_complex():
                raise Unsupported(f"{name}: 'initial' of a complex tensor")
            # NOTE: the masked-out elements become `initial`, and the result
            # is at least `initial`: the gradient goes to the winning element
            # unless `initial` wins
            if loop is None:
                start = _initial(initial, a.dtype, a.device)
            else:
                a, start = a.to(loop), _via_out(_initial(initial, loop, a.device), out, loop)
            mask = _where_mask(a, where)
            a = a if mask is None else _C.where(mask, a, start)
            a, axes, keep = _reduce_args(a, axis, keepdims, ufunc=True)
            if a.numel() == 0:
                shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape)) if keep \
                    else tuple(n for d, n in enumerate(a.shape) if d not in axes)
                filled = start.expand(shape).clone()
                if a.requires_grad:  # nothing to choose: still a's result, its gradient 0
                    filled = filled + 0 * _C.sum(a, axes, keepdim=keep)
                return finish(filled, out)
            best = op(a, axes, keepdim=keep)
            return finish((_C.maximum if name == "amax" else _C.minimum)(best, start), out)
        if where is not NoValue and where is not True:
            raise ValueError(f"reduction operation '{name[1:]}imum' does not have an identity, "
                             f"so to use a where mask one has to specify 'initial'")
        a, axes, keep = _reduce_args(a, axis, keepdims, ufunc=True)
        if a.numel() == 0 and any(a.shape[ax] == 0 for ax in axes):
            raise ValueError(f"zero-size array to reduction operation {name[1:]}imum which "
                             f"has no identity")
        if a.is_complex():
            return finish(_complex_extreme(op, a, axes, keep), out)
        if loop is not None:
            a = _first_via_out(a, axes, out, loop)
        return finish(op(a, axes, keepdim=keep), out)
    impl.__name__ = impl.__qualname__ = public or name
    return impl


def _complex_winner(op, flat):
    """The position along the last axis of ``flat`` (complex) of NumPy's
    extreme: by the real part, then the imaginary part among equal real parts;
    the first element with a NaN wins.  Shape (..., 1)."""
    re, im = _C.real(flat), _C.imag(flat)
    best_re = op(re, -1, keepdim=True)
    fill = float("-inf") if op is _C.amax else float("inf")
    best_im = op(_C.where(re == best_re, im, fill), -1, keepdim=True)
    winner = (re == best_re) & (im == best_im)
    nan = _C.isnan(re) | _C.isnan(im)
    return _C.where(nan.any(-1, keepdim=True), nan.to(_C.uint8).argmax(-1, keepdim=True),
                    winner.to(_C.uint8).argmax(-1, keepdim=True))


def _complex_extreme(op, a, axes, keep):
    """NumPy's complex max/min (see _complex_winner).  The reduced dims are
    flattened into one, the winner's position is found there, and the result
    is gathered -- so the selected element gets the gradient."""
    axes = list(axes) if axes else list(range(a.ndim))
    kept = [d for d in range(a.ndim) if d not in axes]
    reduced = 1
    for d in axes:
        reduced *= a.shape[d]
    # the reduced length named, not -1: with a kept length 0 (a (2, 0) array
    # reduced along axis 0) -1 is ambiguous to reshape
    flat = a.permute(*kept, *axes).reshape(*[a.shape[d] for d in kept], reduced)
    index = _complex_winner(op, flat)
    best = _C.gather(flat, -1, index).reshape(*[a.shape[d] for d in kept])
    if keep:
        shape = [1 if d in axes else a.shape[d] for d in range(a.ndim)]
        best = best.reshape(*shape)
    return best


implements(np.max)(_extreme("amax", "max"))
implements(np.amax)(_extreme("amax"))
implements(np.min)(_extreme("amin", "min"))
implements(np.amin)(_extreme("amin"))


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=NoValue):
    return finish(_extreme("amax")(a, axis, keepdims=keepdims)
                  - _extreme("amin")(a, axis, keepdims=keepdims), out)


def _arg_extreme(name):
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, *, keepdims=NoValue):
        a = as_tensor(a)
        keep = keepdims is True
        if a.ndim == 0:
            axis = _zero_d_axis(axis)
        if out is not None:  # NumPy's rule: out must take int64 indices ('safe')
            target = out.dtype if isinstance(out, Tensor) else tl_dtype(out.dtype)
            if target != _C.bfloat16 and not np.can_cast(np_dtype(target), np.int64, "safe"):
                raise TypeError(f"Cannot cast array data from dtype('{target.name}') to "
                                f"dtype('int64') according to the rule 'safe'")
        if (a.numel() == 0 if axis is None else a.shape[norm_axis(axis, a.ndim)] == 0):
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if a.is_complex():  # NumPy's lexicographic order (see _complex_winner)
            extreme = _C.amax if name == "argmax" else _C.amin
            axis_ = a.ndim - 1 if axis is None else norm_axis(axis, a.ndim)
            rows = a.reshape(-1) if axis is None else a.movedim(axis_, -1)
            result = _complex_winner(extreme, rows).squeeze(-1)
            if keep:
                result = result.reshape((1,) * a.ndim) if axis is None else \
                    result.unsqueeze(axis_)
        elif axis is None:
            result = op(a.reshape(-1), 0)
            result = result.reshape((1,) * a.ndim) if keep else result
        else:
            result = op(a, norm_axis(axis, a.ndim), keepdim=keep)
        return finish(result, out)
    impl.__name__ = impl.__qualname__ = name
    return impl


implements(np.argmax)(_arg_extreme("argmax"))
implements(np.argmin)(_arg_extreme("argmin"))


def _logical_reduction(name):
    op = getattr(_C, name)

    def impl(a, axis=None, out=None, keepdims=NoValue, *, where=NoValue):
        a = _masked(as_tensor(a), where, name == "all")  # the identity: True for all
        a, axes, keep = _reduce_args(a, axis, keepdims, ufunc=True)
        result = op(a, axes, keepdim=keep)
        if result.dtype is not _C.bool:  # torchlike (as PyTorch) keeps uint8; NumPy says bool
            result = result.to(_C.bool)
        return finish(result, out)
    impl.__name__ = impl.__qualname__ = name
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
        a = unaliased(as_tensor(a), out)    # cumprod keeps its input
        if axis is None or a.ndim == 0:  # (NumPy scans a 0-d array along axis 0 as 1-d)
            a, axis = a.reshape(-1), 0 if axis is None else axis
        if out is not None:
            check_accumulate_out(a.shape, out)
        axis = norm_axis(axis, a.ndim)
        dtype = tl_dtype(dtype)
        if dtype is None:
            dtype = accumulator_dtype(a.dtype)
        kw = {"dtype": dtype} if dtype is not None else {}
        return finish(op(a, axis, **kw), out)
    impl.__name__ = impl.__qualname__ = name
    return impl


implements(np.cumsum)(_scan("cumsum"))
implements(np.cumprod)(_scan("cumprod"))


@implements(np.cumulative_sum)
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    x = as_tensor(x)
    if x.ndim == 0:  # NumPy scans a 0-d array as one of shape (1,)
        x = x.reshape(1)
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
    if x.ndim == 0:  # NumPy scans a 0-d array as one of shape (1,)
        x = x.reshape(1)
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
        if not (a.is_floating_point() or a.is_complex()):
            return TABLE[getattr(np, name)](a, axis, out, keepdims, initial, where)
        # NumPy's is fmax/fmin.reduce: a where= mask needs initial= (the
        # reduction below raises NumPy's ValueError without it), and with
        # initial= an all-NaN (or all masked) slice gives initial, not NaN
        result = TABLE[getattr(np, name)](_nan_to(a, fill), axis, None, keepdims, initial,
                                           where)
        if initial is not NoValue:
            return finish(result, out)
        all_nan = TABLE[np.all](_C.isnan(a), axis, keepdims=keepdims)
        return finish(_C.where(all_nan, _C.full((), float("nan"), dtype=a.dtype,
                                                device=a.device), result), out)
    return impl


implements(np.nanmax)(_nan_extreme("max", float("-inf")))
implements(np.nanmin)(_nan_extreme("min", float("inf")))


def _nan_arg(name, fill):
    def impl(a, axis=None, out=None, *, keepdims=NoValue):
        a = as_tensor(a)
        if (a.is_floating_point() or a.is_complex()) and a.numel():
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
        if correction is not NoValue:
            if ddof != 0:
                raise ValueError("ddof and correction can't be provided simultaneously.")
            ddof = correction
        a = as_tensor(a)
        if not (a.is_floating_point() or a.is_complex()):  # no NaN: NumPy's var/std
            return TABLE[np.var if name == "nanvar" else np.std](
                a, axis, dtype, out, ddof, keepdims, where=where, mean=mean)
        mask = _where_mask(a, where)
        a, axes, keep = _reduce_args(a, axis, keepdims)
        _check_inexact(a, dtype, out)
        a = cast(a, dtype)
        # NumPy's steps and roundings: sums in the data's dtype, each divided
        # by its count in float64 and rounded back; dof <= 0 gives NaN; a
        # where= mask leaves its elements out as NaNs are left out
        valid = ~_C.isnan(a)
        if mask is not None:
            valid = valid & mask.reshape(tuple(a.shape))
        count = _C.sum(valid, axes, keepdim=True)                 # int64, kept dims
        zeros = _nan_to(a, 0) if mask is None else \
            _C.where(valid, a, _C.zeros((), dtype=a.dtype, device=a.device))
        if mean is NoValue:
            total = _C.sum(zeros, axes, keepdim=True)
            avg = (total.to(_C.complex128 if a.is_complex() else _C.float64) / count).to(a.dtype)
        else:
            avg = as_tensor(mean)
        centred = zeros - avg
        sq = _C.real(centred * centred.conj_physical()) if a.is_complex() else centred * centred
        sq = _C.where(valid, sq, _C.zeros((), dtype=sq.dtype, device=sq.device))
        var = _C.sum(sq, axes, keepdim=True)
        dof = count - ddof
        result = _C.where(dof > 0, (var.to(_C.float64) / dof).to(var.dtype),
                          _C.full((), float("nan"), dtype=var.dtype, device=var.device))
        if name == "nanstd":
            result = result.sqrt()
        if not keep:
            result = result.reshape(tuple(s for i, s in enumerate(result.shape) if i not in axes))
        return finish(result, out)
    return impl


implements(np.nanvar)(_nan_moment("nanvar"))
implements(np.nanstd)(_nan_moment("nanstd"))


# NumPy's quantile methods (Hyndman & Fan's estimators).  Each gives a virtual
# index into the sorted values of a slice holding n valid values.  Continuous
# methods interpolate between the two neighbours of that index; discrete ones
# pick one sorted value, so they keep the input's dtype.
_ALPHA_BETA = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
               "weibull": (0.0, 0.0), "median_unbiased": (1 / 3, 1 / 3),
               "normal_unbiased": (3 / 8, 3 / 8)}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_CONTINUOUS = ("linear", "midpoint", "averaged_inverted_cdf") + tuple(_ALPHA_BETA)


def _discrete_index(method, n, q):
    """The 0-based position (float, not yet clipped) a discrete method picks."""
    if method == "lower":
        return _C.floor((n - 1) * q)
    if method == "higher":
        return _C.ceil((n - 1) * q)
    if method == "nearest":
        return _C.round((n - 1) * q)  # half to even, as NumPy's around
    # inverted_cdf: the smallest order statistic whose CDF reaches q;
    # closest_observation: the nearest one, the even (1-based) one on a tie
    index = n * q - 1 if method == "inverted_cdf" else n * q - 1.5
    below = _C.floor(index)
    exact = index == below
    if method == "closest_observation":
        exact = exact & (_C.remainder(below, 2) == 1)
    return _C.where(exact, below, below + 1)


def _continuous_index(method, n, q):
    """(virtual index, its interpolation weight for the next value) before
    clipping; NumPy's gamma is fixed up for midpoint and averaged_inverted_cdf."""
    if method == "linear":
        return (n - 1) * q
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "midpoint":
        return 0.5 * (_C.floor((n - 1) * q) + _C.ceil((n - 1) * q))
    alpha, beta = _ALPHA_BETA[method]
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def _lerp(a, b, t, dtype):
    """NumPy's lerp in ``dtype``: from the nearer end, so t = 1 gives b exactly;
    b - a in the data's dtype, the weights in t's (then cast), as NumPy rounds."""
    diff = (b - a).to(dtype)
    return _C.where(t >= 0.5, b.to(dtype) - diff * (1 - t).to(dtype),
                    a.to(dtype) + diff * t.to(dtype))


def _rows(a, axis):
    """(``a`` with the axes ``axis`` reduces last, merged into one of their
    size: (*rest, N); those axes; N)."""
    axes = norm_axes(axis, a.ndim)
    axes = all_axes(a) if axes is None else axes
    rest = [i for i in range(a.ndim) if i not in axes]
    size = 1
    for i in axes:
        size *= a.shape[i]
    return a.permute(*rest, *axes).reshape(*[a.shape[i] for i in rest], size), axes, size


def _sorted_slices(a, axis, keepdims, nan_aware):
    """The slices ``axis`` reduces, as rows: (sorted values (*rest, N), NaN
    last; valid counts, (*rest, 1) or a 0-d N; N; the result's shape).  An
    empty slice is one NaN (float64 for integers): what a median or a nan*
    quantile of it gives."""
    x, axes, size = _rows(a, axis)
    rest = [i for i in range(a.ndim) if i not in axes]
    shape = [1 if i in axes else s for i, s in enumerate(a.shape)] if keepdims is True \
        else [a.shape[i] for i in rest]
    if size:
        xs = _C.sort(x, -1)[0]
    else:  # the NaN joined to the empty rows, so the result stays on their tape
        x = x if a.is_floating_point() else x.to(_C.float64)
        xs = _C.cat([x, _C.full((*x.shape[:-1], 1), float("nan"), device=x.device,
                                dtype=x.dtype)], -1)
    if nan_aware and a.is_floating_point():
        count = _C.sum(~_C.isnan(x), -1, keepdim=True)
    else:
        count = _C.full((), size, dtype=_C.int64, device=x.device)
    return xs, count, size, shape


def _quantile_impl(nan_aware, a, q, axis, out, overwrite_input, method, keepdims, weights,
                   interpolation, scale):
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    if interpolation is not None:
        raise Unsupported("quantile: the argument 'interpolation' is not supported on tensors")
    if method not in _DISCRETE and method not in _CONTINUOUS:
        raise ValueError(f"'{method}' is not a valid method. Use one of: "
                         f"{_CONTINUOUS[:1] + _DISCRETE + _CONTINUOUS[1:]}")
    a = as_tensor(a)
    if a.is_complex():
        raise TypeError("a must be an array of real numbers")
    # NumPy's dtypes: the virtual indices are computed in q's own dtype (a
    # Python number or a list is float64); a Python number is weak for the
    # result (float32 data give float32), an array q takes part in it
    weak = type(q) in (builtins.int, builtins.float)
    qt = as_tensor(q)
    if not qt.is_floating_point():
        if scale == 1 and method == "linear":
            method = "lower"  # an integer (or bool) q picks the values themselves
        qt = qt.to(_C.float64)
    qt = qt / scale if scale != 1 else qt
    if (~((qt >= 0) & (qt <= 1))).any().item():
        raise ValueError("Quantiles must be in the range [0, 1]" if scale == 1
                         else "Percentiles must be in the range [0, 100]")
    if nan_aware and a.numel() == 0:  # NumPy: the nanmean of the empty array, q aside
        return nanmean(a, axis, out=out, keepdims=keepdims)
    if weights is not None:
        return finish(_weighted_quantile(a, qt, axis, keepdims, weights, nan_aware), out)
    xs, count, size, shape = _sorted_slices(a, axis, keepdims, nan_aware)
    if size == 0 and not nan_aware:  # NumPy's indexing fails before its subtraction
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if a.dtype is _C.bool and method not in _DISCRETE:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported")
    floating = a.is_floating_point()
    qv = qt.reshape(-1)                                            # (Q,)
    n = count.to(qv.dtype)
    last = _C.clamp(count - 1, min=0)
    if method in _DISCRETE:
        index = _discrete_index(method, n, qv).to(_C.int64)        # (*rest, Q)
        index = _C.minimum(_C.clamp(index, min=0), last)
        index = _C.broadcast_to(index, (*xs.shape[:-1], qv.shape[0]))
        result = _C.gather(xs, -1, index)
    else:
        v = _continuous_index(method, n, qv)
        below = _C.floor(v)
        low = _C.where(v < 0, 0, _C.where((v >= n - 1) | _C.isnan(v), last.to(v.dtype), below))
        high = _C.where(v < 0, 0, _C.where((v >= n - 1) | _C.isnan(v), last.to(v.dtype),
                                           below + 1))
        gamma = v - low
        if method == "averaged_inverted_cdf":
            gamma = _C.where(gamma == 0, 0.5, 1.0).to(v.dtype)
        elif method == "midpoint":
            gamma = _C.where(_C.remainder(v, 1) == 0, 0.0, 0.5).to(v.dtype)
        if weak:
            dtype = a.dtype if floating else _C.float64
        else:
            dtype = tl_dtype(np.result_type(np_dtype(a), np_dtype(v)))
        rows = (*xs.shape[:-1], qv.shape[0])
        low = _C.broadcast_to(low.to(_C.int64), rows)
        high = _C.broadcast_to(high.to(_C.int64), rows)
        result = _lerp(_C.gather(xs, -1, low), _C.gather(xs, -1, high), gamma, dtype)
    if floating and not nan_aware and size:
        # NumPy: a slice holding a NaN has the quantile NaN, whatever the method
        result = _C.where(_C.isnan(xs[..., -1:]), float("nan"), result)
    result = result.permute(-1, *range(result.ndim - 1))           # (Q, *rest)
    result = result.reshape(*qt.shape, *shape)
    if out is not None and tuple(out.shape) != tuple(result.shape):
        result = _C.broadcast_to(result, tuple(out.shape))  # NumPy writes out= by broadcasting
    return finish(result, out)


def _quantile_weights(weights, a, axis):
    """NumPy's weights of a quantile: a's shape, or (with ``axis``) the shape
    of a along those axes, in their order; none negative."""
    w = _C.broadcast_to(weights_along(as_tensor(weights), a.shape, axis), tuple(a.shape))
    if bool((w < 0).any()):
        raise ValueError("Weights must be non-negative.")
    return w


def _weighted_quantile(a, qt, axis, keepdims, weights, nan_aware):
    """The weighted inverted_cdf quantile, NumPy's one weighted method: per
    slice, the smallest sorted value whose cumulative weight share (float64,
    then q's float dtype) reaches q; a slice holding a NaN gives NaN (nan*
    functions give NaN values no weight, and all-NaN slices NaN)."""
    w = _quantile_weights(weights, a, axis)
    x, axes, size = _rows(a, axis)                                # (*rest, N)
    w, _, _ = _rows(w, axis)
    order = _C.argsort(x, -1)
    xs, ws = _C.gather(x, -1, order), _C.gather(w, -1, order).to(_C.float64)
    nan_last = _C.isnan(xs[..., -1:]) if a.is_floating_point() else None
    if nan_aware and nan_last is not None:
        ws = _C.where(_C.isnan(xs), 0.0, ws)
    cdf = _C.cumsum(ws, -1)
    total = cdf[..., -1:]
    empty = (total == 0) & nan_last if nan_aware and nan_last is not None else None
    if empty is not None:
        total = _C.where(empty, 1.0, total)                      # all NaN: NaN below
    cdf = cdf / total
    if bool(_C.isnan(cdf[..., -1]).any()):  # 0 / 0: all weights zero
        raise ValueError("Weights included NaN, inf or were all zero.")
    cdf = cdf.to(qt.dtype)
    if size and bool((cdf[..., 0] == 0).any()):
        # leading zero weights: q = 0 picks the first value that weighs
        cdf = _C.where(cdf == 0, -1.0, cdf).to(cdf.dtype)
    qv = qt.reshape(-1)                                           # (Q,)
    index = _C.searchsorted(cdf, _C.broadcast_to(qv, (*cdf.shape[:-1], qv.shape[0])).contiguous())
    result = _C.gather(xs, -1, _C.clamp(index, max=size - 1))     # (*rest, Q)
    if nan_last is not None:
        result = _C.where(nan_last if empty is None else empty, float("nan"), result)
    rest = [i for i in range(a.ndim) if i not in axes]
    shape = [1 if i in axes else s for i, s in enumerate(a.shape)] if keepdims is True \
        else [a.shape[i] for i in rest]
    result = result.permute(-1, *range(result.ndim - 1))          # (Q, *rest)
    return result.reshape(*qt.shape, *shape)


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    return _quantile_impl(False, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 1)


@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    return _quantile_impl(False, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 100)


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=NoValue, *, weights=None, interpolation=None):
    return _quantile_impl(True, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 1)


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=NoValue, *, weights=None, interpolation=None):
    return _quantile_impl(True, a, q, axis, out, overwrite_input, method, keepdims,
                          weights, interpolation, 100)


def _median_impl(nan_aware, a, axis, out, keepdims):
    """NumPy's median: the middle value, or the mean of the middle two (their
    sum halved in the data's float dtype, float64 for integers: NumPy's mean
    of them); NaN for a slice holding a NaN (all-NaN for nanmedian) or none."""
    a = as_tensor(a)
    if a.is_complex():
        raise Unsupported("median of complex values")
    xs, count, size, shape = _sorted_slices(a, axis, keepdims, nan_aware)
    if not a.is_floating_point():
        xs = xs.to(_C.float64)
    last = _C.clamp(count - 1, min=0)
    low = _C.broadcast_to(_C.div(last, 2, rounding_mode="floor"), (*xs.shape[:-1], 1))
    high = _C.broadcast_to(last - _C.div(last, 2, rounding_mode="floor"), (*xs.shape[:-1], 1))
    lo, hi = _C.gather(xs, -1, low), _C.gather(xs, -1, high)
    wide = _C.float32 if xs.dtype in (_C.float16, _C.bfloat16) else xs.dtype
    result = _C.where(low == high, lo, ((lo.to(wide) + hi.to(wide)) / 2).to(xs.dtype))
    if a.is_floating_point() and not nan_aware and size:
        result = _C.where(_C.isnan(xs[..., -1:]), float("nan"), result)
    result = result.reshape(*shape)
    if out is not None and tuple(out.shape) != tuple(result.shape):
        result = _C.broadcast_to(result, tuple(out.shape))
    return finish(result, out)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _median_impl(False, a, axis, out, keepdims)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=NoValue):
    return _median_impl(True, a, axis, out, keepdims)


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=NoValue):
    a = as_tensor(a)
    original_exact = not (a.is_floating_point() or a.is_complex())
    if original_exact and weights is None:
        a = a.to(_C.float64)
    keep = keepdims is True
    axes = norm_axes(axis, a.ndim)
    axes = all_axes(a) if axes is None else axes
    if weights is None:
        avg = _C.mean(a, axes, keepdim=keep)
        # (NumPy's a.size / avg.size: a ZeroDivisionError for an empty result)
        scl = _C.full(tuple(avg.shape), a.numel() / avg.numel(), dtype=avg.dtype,
                      device=avg.device)
    else:
        w = as_tensor(weights)
        if _C.bfloat16 in (a.dtype, w.dtype):
            a, w = promote(a, w.to(a.dtype) if w.dtype is _C.bool else w)
        else:  # NumPy's result dtype: float64 at least for integer data
            both = (np_dtype(a), np_dtype(w)) + (("f8",) if original_exact else ())
            dtype = tl_dtype(np.result_type(*both))
            a, w = a.to(dtype), w.to(dtype)
        w = weights_along(w, a.shape, axis)
        # summed as given (1 along a's other axes): NumPy's zero-sum check
        scl = _C.sum(w, axes, keepdim=keep)
        if (scl == 0).any().item():
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _C.sum(a * w, axes, keepdim=keep) / scl
        scl = _C.broadcast_to(scl, tuple(avg.shape)).clone()
    return (avg, scl) if returned else avg


def _cov_weights(weights, name, n, integral=False):
    """cov's fweights or aweights as float64, with NumPy's checks (and its
    exception classes)."""
    w = as_tensor(weights).to(_C.float64)
    if integral and not builtins.bool((w == _C.round(w)).all().item()):
        raise TypeError("fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if builtins.bool((w < 0).any().item()):
        raise ValueError(f"{name} cannot be negative")
    return w


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """NumPy's covariance, step by step as its own code but without its
    writes (``X -= avg``, ``c *= 1 / fact``, ``w *= aweights``): average()
    keeps X for the tape when the weights require grad, so the write failed
    in backward, and NumPy's ``w *= aweights`` overwrites the caller's
    float64 fweights."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = as_tensor(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    parts = [m]
    if y is not None:
        y = as_tensor(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        parts.append(y)
    dtype = tl_dtype(dtype) if dtype is not None else \
        tl_dtype(np.result_type(*[np_dtype(p.dtype) for p in parts], np.float64))

    def rows(a):  # NumPy's array(a, ndmin=2, dtype=dtype)
        return a.to(dtype).reshape((1,) * (2 - a.ndim) + tuple(a.shape))

    X = rows(m)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return _C.zeros((0, 0), dtype=_C.float64, device=m.device)
    if y is not None:
        Y = rows(y)
        from ._manipulation import concatenate  # NumPy's ValueError for mismatched rows
        X = concatenate([X, Y if rowvar or Y.shape[0] == 1 else Y.T], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, "fweights", X.shape[1], integral=True)
    if aweights is not None:
        aweights = _cov_weights(aweights, "aweights", X.shape[1])
        w = aweights if w is None else w * aweights
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * _C.sum(w * aweights) / w_sum
    # (complex data average complex weights: NumPy orders by the real part first)
    if builtins.bool((fact.real if isinstance(fact, Tensor) and fact.is_complex() else fact)
                     <= 0):
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = fact * 0 if isinstance(fact, Tensor) else 0.0
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * w).T
    X, X_T = promote(X, X_T)
    c = _C.matmul(X, X_T.conj() if X_T.is_complex() else X_T)
    scale = 1 / fact if isinstance(fact, Tensor) else \
        (1 / fact if fact else float("inf"))
    return (c * scale).squeeze()


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, bias=NoValue, ddof=NoValue, *, dtype=None):
    # NumPy's own code divides its covariance in place, which would overwrite a
    # tensor the tape still needs; the same steps without writes:
    # (lists holding tensors as the arrays NumPy makes of them: its own
    # conversion in np.cov reads host memory only)
    x, y = tensor_if_holding(x), tensor_if_holding(y)
    c = as_tensor(np.cov(x, y, rowvar, dtype=dtype))  # an ndarray when x, y are host data
    if c.ndim == 0:
        return c / c
    d = _C.diagonal(c)
    std = _C.sqrt(_C.real(d) if d.is_complex() else d)
    c = c / std.reshape(-1, 1) / std.reshape(1, -1)
    if c.is_complex():
        return _C.clamp(_C.real(c), -1, 1) + _C.clamp(_C.imag(c), -1, 1) * 1j
    return _C.clamp(c, -1, 1)


def _learned_weights(weights):
    """Whether a histogram's weights are recorded: a tensor that requires
    grad with grad mode on.  Other calls run NumPy's own code (route 2),
    which adds the weights' bincount into an ndarray of zeros."""
    return isinstance(weights, Tensor) and weights.requires_grad and _C.is_grad_enabled()


def _weighted_counts(index, keep, weights, nbins):
    """The sum of the weights of each bin: index (host, one bin per value)
    and keep (host, the values inside the edges) read from the data, the
    weights summed by index_add, so the counts stay on the weights' tape."""
    w = weights.reshape(-1)
    at = _C.tensor(index[keep], dtype=_C.int64, device=w.device)
    w = w[_C.tensor(np.flatnonzero(keep), dtype=_C.int64, device=w.device)]
    dtype = w.dtype if w.is_floating_point() or w.is_complex() else _C.float64
    return _C.zeros(nbins, dtype=dtype, device=w.device).index_add(0, at, w.to(dtype))


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """NumPy's histogram with weights that require grad: the edges are
    np.histogram_bin_edges' (NumPy's code, on the tape in a), each value's
    bin is read on the host (NumPy's rule: bins closed on the left, the last
    on both sides, values outside dropped) and the weights are summed into
    their bins on the tape; density divides by the total and the widths."""
    if not _learned_weights(weights):
        raise Unsupported("histogram: NumPy's code runs for unrecorded weights")
    a = as_tensor(a)
    if tuple(weights.shape) != tuple(a.shape):
        raise ValueError("weights should have the same shape as a.")
    edges = np.histogram_bin_edges(a, bins, range, weights.detach())  # (read for its checks)
    values = a.detach().cpu().numpy().reshape(-1)
    at = edges.detach().cpu().numpy()
    index = np.searchsorted(at, values, side="right") - 1
    index[values == at[-1]] = len(at) - 2
    keep = (values >= at[0]) & (values <= at[-1])
    counts = _weighted_counts(index, keep, weights, len(at) - 1)
    if density:
        widths = (edges[1:] - edges[:-1]).to(_C.float64)
        return counts / widths / counts.sum(), edges
    return counts, edges


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's histogramdd with weights that require grad (np.histogram2d is
    NumPy's code over it): the edges and each sample's bin from NumPy on
    the host, the weights summed into their bins on the tape.  Samples that
    require grad themselves take NumPy's code, whose edges are recorded."""
    parts = sample if isinstance(sample, (list, tuple)) else [sample]
    if not _learned_weights(weights) or any(isinstance(x, Tensor) and x.requires_grad
                                            for x in parts):
        raise Unsupported("histogramdd: NumPy's code runs for unrecorded weights")
    held = [x.detach().cpu().numpy() if isinstance(x, Tensor) else x for x in parts]
    held = held if isinstance(sample, (list, tuple)) else held[0]
    _, edges = np.histogramdd(held, bins, range, density=False)
    points = np.asarray(held, dtype=float)
    if points.ndim != 2 or isinstance(sample, (list, tuple)):  # NumPy's reading of a sample
        points = np.atleast_2d(points).T
    if points.shape[0] != weights.numel():
        raise ValueError(f"histogramdd: {weights.numel()} weights for {points.shape[0]} samples")
    shape = tuple(len(e) - 1 for e in edges)
    index, keep = np.zeros(points.shape[0], np.int64), np.ones(points.shape[0], bool)
    for d, e in enumerate(edges):
        i = np.searchsorted(e, points[:, d], side="right") - 1
        i[points[:, d] == e[-1]] = len(e) - 2
        keep &= (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
        index = index * shape[d] + np.clip(i, 0, shape[d] - 1)
    counts = _weighted_counts(index, keep, weights, math.prod(shape)).reshape(shape)
    device = weights.device
    edges = [_C.tensor(np.asarray(e), device=device) for e in edges]
    if density:
        volume = _C.ones(shape, dtype=_C.float64, device=device)
        for d, e in enumerate(edges):
            along = [1] * len(shape)
            along[d] = shape[d]
            volume = volume * (e[1:] - e[:-1]).reshape(along)
        counts = counts / counts.sum() / volume
    return counts, edges


@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's histogram2d (histogramdd of the pair) with weights that
    require grad; other calls run NumPy's code."""
    if not _learned_weights(weights):
        raise Unsupported("histogram2d: NumPy's code runs for unrecorded weights")
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # one array of edges for both axes
        bins = [bins, bins]
    counts, edges = histogramdd([x, y], bins, range, density, weights)
    return counts, edges[0], edges[1]
