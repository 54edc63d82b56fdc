"""NumPy's remaining array functions over tensors: clip, diff, isclose,
allclose, array_equal, round, nan_to_num, result_type, meshgrid ..."""
import builtins
import math

import numpy as np

from .. import _C
from .._array_function import (
    implements, Unsupported, as_tensor, norm_axis, finish, promote, np_dtype, tl_dtype,
    NoValue, can_cast_dtypes, integer_clip_bounds, open_clip_bounds, unaliased, check_out_cast,
    out_broadcast)
from ._elementwise import round as _round  # the namespace's np.round, one for both routes
# the namespace's own: NumPy's complex order (clip), real/imag of any dtype
from ._elementwise import clip as ordered_clip, imag as imag_part, real as real_part

Tensor = _C.Tensor


def _clip_finish(operands, result, out, casting="same_kind", where=None):
    """np.clip's result into out= as NumPy's clip ufunc writes it: the
    result's dtype must cast to out's ("same_kind", NumPy's TypeError, looked
    at first), then the operands (a bound of None left out, a number as a
    0-d array) and out broadcast together, a larger out filled by
    broadcasting (NumPy's ValueError naming them otherwise)."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if isinstance(target, (Tensor, np.ndarray)):
        check_out_cast("clip", result.dtype, target, casting)
        shaped = [x if isinstance(x, (Tensor, np.ndarray)) else np.empty(np.shape(x))
                  for x in operands if x is not None]
        if out_broadcast(shaped, tuple(target.shape), where) is not None:
            result = result.expand(tuple(target.shape))
    if where is not None and target is not None:
        held = _C.from_numpy(target) if isinstance(target, np.ndarray) else target
        mask = where if isinstance(where, Tensor) else as_tensor(where)
        result = _C.where(mask.to(result.device), result, held.to(result.dtype))
    return finish(result, out)


@implements(np.clip)
def clip(a, a_min=NoValue, a_max=NoValue, out=None, *, min=NoValue, max=NoValue,
         **kwargs):
    lo = a_min if min is NoValue else min
    hi = a_max if max is NoValue else max
    lo, hi = (None if v is NoValue else v for v in (lo, hi))
    a = unaliased(as_tensor(a), out)
    if "signature" in kwargs or "sig" in kwargs:
        return _clip_ufunc(a, lo, hi, out, kwargs)
    operands = (a, lo, hi)
    dtype, where = kwargs.pop("dtype", None), kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    kwargs.pop("order", None), kwargs.pop("subok", None)  # layout and subclasses: nothing to do
    if kwargs:
        raise TypeError(f"clip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is not None or where is not True:
        return _clip_with(operands, out, dtype, where, casting)
    if a.is_complex():  # NumPy's complex order: the namespace's clip has it
        return _clip_finish(operands, ordered_clip(a, lo, hi), out, casting)
    # a Python number is weak; a NumPy scalar (np.float64 is a float) is an array
    lo, hi = (b if b is None or isinstance(b, (int, float)) and not isinstance(b, np.generic)
              else as_tensor(b) for b in (lo, hi))
    lo, hi = integer_clip_bounds(a, lo, hi)
    if lo is None and hi is None:
        return _clip_finish(operands, a.clone(), out, casting)
    if a.is_floating_point() and all(b is None or type(b) is float for b in (lo, hi)):
        # NOTE: number bounds are clamp's, as torch.clip's and the namespace's
        # clip: an element at a bound gets no gradient (maximum/minimum would
        # give it half)
        return _clip_finish(operands, _C.clamp(a, lo, hi), out, casting)
    lo, hi = (None if b is None else _clip_bound(b, a) for b in (lo, hi))
    dtype = a.dtype
    for b in (lo, hi):
        dtype = dtype if b is None else _C.promote_types(dtype, b.dtype)
    if dtype.is_floating_point:
        # NOTE: tensor bounds are clamp's too, in NumPy's promoted dtype, as the
        # namespace's clip and torch.clamp: a tie with one bound splits the
        # gradient between x and it, x == min == max gives x all of it
        # (maximum then minimum gave x a quarter there)
        lo, hi = (None if b is None else b.to(dtype) for b in (lo, hi))
        return _clip_finish(operands, _C.clamp(a.to(dtype), lo, hi), out, casting)
    result = a if lo is None else _C.maximum(a, lo)
    result = result if hi is None else _C.minimum(result, hi)
    return _clip_finish(operands, result, out, casting)


def _clip_ufunc(a, lo, hi, out, kwargs):
    """np.clip with signature=, which only NumPy's ufuncs take: NumPy's own
    route, called on the tensors (torchlike's ufunc machinery runs the loop
    the signature names, or refuses it in NumPy's words).  NumPy hands the
    call to its clip ufunc, or, a bound missing (or an int bound that bounds
    no value of integer data), to maximum, minimum or positive, so the
    signature's length is theirs."""
    lo, hi = open_clip_bounds(a.dtype, lo, hi)
    if out is not None:
        kwargs = dict(kwargs, out=out)
    if lo is None and hi is None:
        return np.positive(a, **kwargs)
    if lo is None:
        return np.minimum(a, hi, **kwargs)
    if hi is None:
        return np.maximum(a, lo, **kwargs)
    return np._core.umath.clip(a, lo, hi, **kwargs)


def _clip_with(operands, out, dtype, where, casting):
    """np.clip's ufunc keywords, which were dropped: ``dtype=`` clips in that
    dtype (the array and array bounds cast under ``casting=``, NumPy's
    error otherwise), ``where=`` keeps out's values where the mask is False
    (without out= NumPy leaves them undefined: here, clipped)."""
    a, lo, hi = operands
    if dtype is not None:
        want = np.dtype(dtype)
        for i, x in enumerate((a, lo, hi)):
            if isinstance(x, (Tensor, np.ndarray, np.generic)):
                have = np_dtype(x) if isinstance(x, Tensor) else x.dtype
                if not np.can_cast(have, want, casting=casting):
                    raise TypeError(f"Cannot cast ufunc 'clip' input {i} from {have!r} to "
                                    f"{want!r} with casting rule {casting!r}")
        a = a.to(tl_dtype(want))
        lo, hi = (b.to(tl_dtype(want)) if isinstance(b, Tensor) else b for b in (lo, hi))
        result = clip(a, lo, hi)
        result = result.to(tl_dtype(want))
    else:
        result = clip(a, lo, hi)
    return _clip_finish(operands, result, out, casting, None if where is True else where)


def _clip_bound(b, x):
    """A clip bound as a tensor next to ``x``: a Python number is NEP 50's weak
    scalar, made in x's float dtype directly (0.3 went through float32 first,
    so np.clip(t, None, 0.3) of float64 data gave 0.30000001192...), and a
    float bound of integer data is float64 and an int bound of bool data
    int64, NumPy's result dtypes."""
    if isinstance(b, Tensor):
        return b
    if x.is_floating_point() or isinstance(b, builtins.bool) or \
            isinstance(b, int) and x.dtype is not _C.bool:
        return _C.tensor(b, dtype=x.dtype, device=x.device)
    return _C.tensor(b, dtype=_C.float64 if isinstance(b, float) else _C.int64, device=x.device)


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=NoValue, append=NoValue):
    if n == 0 and isinstance(a, Tensor):
        return a  # NumPy returns its input itself
    a = as_tensor(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = norm_axis(axis, a.ndim)
    parts = []
    for extra in (prepend, a, append):
        if extra is a:
            parts.append(a)
        elif extra is not NoValue and extra is not None:
            e = as_tensor(extra)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                e = _C.broadcast_to(e, tuple(shape))
            parts.append(e)
    if len(parts) > 1:
        for i, p in enumerate(parts):
            if p.ndim != a.ndim or any(p.shape[d] != a.shape[d] for d in range(a.ndim)
                                       if d != axis):
                raise ValueError(f"all the input array dimensions except for the "
                                 f"concatenation axis must match exactly: {tuple(p.shape)} "
                                 f"against {tuple(a.shape)} along axis {axis}")
        a = _C.cat(promote(*parts), axis)
    for _ in range(n):
        length = a.shape[axis]
        if length == 0:  # NumPy: n past the length leaves an empty axis
            break
        hi = _C.narrow(a, axis, 1, length - 1)
        lo = _C.narrow(a, axis, 0, length - 1)
        a = hi ^ lo if a.dtype is _C.bool else hi - lo
    return a


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    a = as_tensor(ary).reshape(-1)
    if a.dtype is _C.bool:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    parts = [a[1:] - a[:-1]]
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            continue
        e = as_tensor(extra)
        # NumPy: the extras take the input's dtype, if same_kind casting allows
        if not np.can_cast(np_dtype(e), np_dtype(a), casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under "
                            f"the `same_kind` rule.")
        e = e.reshape(-1).to(a.dtype)
        parts.insert(0, e) if name == "to_begin" else parts.append(e)
    return _C.cat(parts, 0)


@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b|, as NumPy computes it: a Python number is
    weak (0.1 beside float16 data is float16's 0.1, so np.isclose(f16, 0.1)
    holds), integer data compares in float64, and equal infinities are close."""
    x, y = (v if isinstance(v, (int, float, complex)) else as_tensor(v) for v in (a, b))
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        y = as_tensor(y)
    if isinstance(x, Tensor) and not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.float64)
    if isinstance(y, Tensor) and not (y.is_floating_point() or y.is_complex()):
        y = y.to(_C.float64)  # NumPy's result_type(y, 1.0)
    elif not isinstance(y, Tensor):
        y = complex(y) if isinstance(y, complex) else float(y)
    result = (abs(x - y) <= atol + rtol * abs(y)) & _C.isfinite(_number_beside(y, x)) | \
        (x == y)
    if equal_nan:
        result = result | (_C.isnan(_number_beside(x, y)) & _C.isnan(_number_beside(y, x)))
    return result


def _number_beside(v, t):
    """A Python number as a 0-d tensor of its own kind on ``t``'s device."""
    return v if isinstance(v, Tensor) else _C.tensor(v, device=t.device, dtype=(
        _C.complex128 if isinstance(v, complex) else _C.float64 if isinstance(v, float)
        else _C.bool if isinstance(v, builtins.bool) else _C.int64))


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(isclose(a, b, rtol, atol, equal_nan).all().item())


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    a, b = as_tensor(a1), as_tensor(a2)
    if tuple(a.shape) != tuple(b.shape):
        return False
    same = a == b
    if equal_nan and (a.is_floating_point() or a.is_complex()):
        same = same | (_C.isnan(a) & _C.isnan(b))
    return builtins.bool(same.all().item())


@implements(np.array_equiv)
def array_equiv(a1, a2):
    a, b = as_tensor(a1), as_tensor(a2)
    try:
        a, b = _C.broadcast_tensors(a, b)
    except (RuntimeError, ValueError):
        return False
    return builtins.bool((a == b).all().item())


@implements(np.round, np.around)
def round_(a, decimals=0, out=None):
    return finish(_round(as_tensor(a), decimals=decimals), out)


@implements(np.real)
def real(val):
    return real_part(as_tensor(val))


@implements(np.imag)
def imag(val):
    return imag_part(as_tensor(val))


def _nan_to_num_part(p, nan, posinf, neginf):
    """One real float tensor with its NaNs and infinities replaced: by
    numbers through the core's op, by arrays (NumPy takes array-likes,
    broadcast against x, one value per element) with where()."""
    if all(v is None or isinstance(v, (int, float, np.generic)) for v in (nan, posinf, neginf)):
        return _C.nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf)
    info = np.finfo(np_dtype(p))
    result = p
    for mask, value in ((_C.isnan(p), nan),
                        (_C.isposinf(p), info.max if posinf is None else posinf),
                        (_C.isneginf(p), info.min if neginf is None else neginf)):
        value = as_tensor(value).to(device=p.device)
        result = _C.where(mask, value.to(p.dtype), result)
    return result


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = as_tensor(x)
    # copy=False writes into x: the ops read a copy, which the tape may keep
    src = x if copy else unaliased(x, x)
    if x.is_complex():  # each part on its own, as NumPy
        parts = [_nan_to_num_part(p, nan, posinf, neginf)
                 for p in (real_part(src), imag_part(src))]
        result = parts[0] + parts[1] * 1j
    elif x.is_floating_point():
        result = _nan_to_num_part(src, nan, posinf, neginf)
    else:
        return x.clone() if copy else x
    if copy:
        return result
    x.copy_(result)  # copy=False: in place, the input returned
    return x


@implements(np.ndim)
def ndim(a):
    return as_tensor(a).ndim


@implements(np.shape)
def shape(a):
    return tuple(as_tensor(a).shape)


@implements(np.size)
def size(a, axis=None):
    a = as_tensor(a)
    if axis is None:
        return a.numel()
    if isinstance(axis, (tuple, list)):  # NumPy 2.4: the product over the axes
        return math.prod(a.shape[norm_axis(x, a.ndim)] for x in axis)
    return a.shape[norm_axis(axis, a.ndim)]


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    return np.result_type(*[np_dtype(x) if isinstance(x, (Tensor, _C.dtype)) else x
                            for x in arrays_and_dtypes])


@implements(np.can_cast)
def can_cast(from_, to, casting="safe"):
    return np.can_cast(np_dtype(from_) if isinstance(from_, (Tensor, _C.dtype)) else from_,
                       np_dtype(to) if isinstance(to, _C.dtype) else to, casting)




@implements(np.min_scalar_type)
def min_scalar_type(a):
    # a question about dtypes, answered on the host: a number reaches here as a
    # 0-d tensor (on the default device), read back by value; an array with
    # dimensions answers with its own dtype, as in NumPy
    if not isinstance(a, Tensor):
        return np.min_scalar_type(a)
    if a.ndim:
        return np_dtype(a.dtype) if a.dtype != _C.bfloat16 else a.dtype
    return np.min_scalar_type(np.asarray(a.item(), np_dtype(a.dtype)))


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return as_tensor(x).is_complex()


@implements(np.isrealobj)
def isrealobj(x):
    return not as_tensor(x).is_complex()


def _memory_of(x):
    """An ndarray over a host tensor's own memory (a dtype NumPy lacks is
    seen as integers of its size); anything else as it is."""
    if not isinstance(x, Tensor):
        return x
    x = x.detach()
    try:
        return x.numpy()
    except TypeError:  # bfloat16, the float8s
        return x.view({1: _C.uint8, 2: _C.int16}[x.element_size()]).numpy()


class _Addresses:
    """The element addresses of a device tensor as an array NumPy never
    reads: its overlap checks need only the pointer, shape and strides, so
    a device view's offset and strides (in bytes) over a made-up base
    address stand for its memory."""
    _BASE = 1 << 44  # any address: never dereferenced

    def __init__(self, t):
        size = t.element_size()
        self.__array_interface__ = {
            "version": 3, "typestr": f"|V{size}", "shape": tuple(t.shape),
            "strides": tuple(s * size for s in t.stride()),
            "data": (self._BASE + t.storage_offset() * size, True)}


def _overlap(check, a, b, max_work):
    if not (isinstance(a, Tensor) or isinstance(b, Tensor)):
        raise Unsupported("shares_memory: one of 'a' and 'b' must be a tensor")
    on_device = [isinstance(x, Tensor) and x.device.type != "cpu" for x in (a, b)]
    if any(on_device):
        # memory on an accelerator is never a host array's, nor another
        # storage's; two views of one storage are checked by their addresses
        if not (all(on_device) and a.device == b.device and
                _C._storage_id(a) == _C._storage_id(b)):
            return False
        return check(np.asarray(_Addresses(a)), np.asarray(_Addresses(b)), max_work=max_work)
    return check(_memory_of(a), _memory_of(b), max_work=max_work)


@implements(np.may_share_memory)
def may_share_memory(a, b, /, max_work=None):
    """NumPy's bounds check over the tensors' memory."""
    return _overlap(np.may_share_memory, a, b, max_work)


@implements(np.shares_memory)
def shares_memory(a, b, /, max_work=None):
    """NumPy's exact answer: a[:, 0] and a[:, 1] interleave in memory but
    share no element (the bounds check says they may)."""
    return _overlap(np.shares_memory, a, b, max_work)


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Each input keeps its dtype; ``sparse`` gives broadcastable views with
    one non-unit axis each; the dense grids are copies unless ``copy=False``
    (then broadcast views of the inputs, as NumPy's)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    grids = []
    for i, x in enumerate(xi):
        shape = [1] * ndim
        shape[i] = -1
        grids.append(as_tensor(x).reshape(*shape))
    if indexing == "xy" and ndim > 1:
        for i in range(ndim):
            g = grids[i]
            shape = list(g.shape)
            shape[0], shape[1] = shape[1], shape[0]
            grids[i] = g.reshape(*shape)
    if not sparse:
        grids = list(_C.broadcast_tensors(*grids)) if grids else []
    if copy:
        grids = [g.clone() for g in grids]
    return tuple(grids)


@implements(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    arr = as_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tuple(_C.tril_indices(arr.shape[-2], arr.shape[-1], k))


@implements(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    arr = as_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tuple(_C.triu_indices(arr.shape[-2], arr.shape[-1], k))


@implements(np.bincount)
def bincount(x, /, weights=None, minlength=0):
    x = as_tensor(x)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.numel() == 0 and x.dtype is _C.float64 or x.dtype is _C.bool:
        # an empty list: no values to cast unsafely; a mask counts its False
        # and True values (bool casts to NumPy's intp safely)
        x = x.to(_C.int64)
    if x.is_floating_point() or x.is_complex():
        raise TypeError(f"Cannot cast array data from dtype('{np_dtype(x)}') to "
                        f"dtype('int64') according to the rule 'safe'")
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    if isinstance(minlength, builtins.bool) or not hasattr(minlength, "__index__"):
        raise TypeError(f"'{type(minlength).__name__}' object cannot be interpreted as "
                        f"an integer")
    minlength = minlength.__index__()
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.numel() and int(x.min().item()) < 0:
        raise ValueError("'list' argument must have no negative elements")
    if weights is None or x.numel() == 0:  # NumPy's empty count is intp, weights or not
        return _C.bincount(x, minlength=minlength)
    w = as_tensor(weights)
    # NumPy sums the weights in float64 whatever their dtype
    w = w.to(_C.complex128 if w.is_complex() else _C.float64)
    if w.requires_grad and _C.is_grad_enabled():
        # the bincount op has no derivative; a scatter-add of the weights
        # (a segment sum) is the same sum, and is recorded
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError("The weights and list don't have the same length.")
        n = builtins.max(minlength, int(x.max().item()) + 1 if x.numel() else 0)
        return _C.zeros(n, dtype=w.dtype, device=w.device).index_add(0, x.to(_C.int64), w)
    return _C.bincount(x, minlength=minlength, weights=w)


@implements(np.select)
def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conds = [as_tensor(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype is not _C.bool:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # NumPy's result dtype: Python numbers among the choices are weak (NEP 50)
    items = [c if type(c) in (int, float, complex) else as_tensor(c)
             for c in (*choicelist, default)]
    try:
        dtype = np.result_type(*[np_dtype(c) if isinstance(c, Tensor) else c for c in items])
    except TypeError as error:
        raise TypeError(f"Choicelist and default value do not have a common dtype: "
                        f"{error}") from None
    dtype = tl_dtype(dtype)
    choices = [(c if isinstance(c, Tensor) else as_tensor(_weak_choice(c, dtype))).to(dtype)
               for c in items]
    result = choices[-1]
    # The first condition that holds wins: apply them from the last one back.
    for cond, choice in zip(reversed(conds), reversed(choices[:-1])):
        result = _C.where(cond, choice, result)
    return result


def _weak_choice(c, dtype):
    """A Python int past uint64 among select's choices, as NumPy takes it
    into the result dtype: a float for a float result, else its OverflowError."""
    if type(c) is not int or -2 ** 63 <= c < 2 ** 64:
        return c
    if dtype.is_floating_point or dtype.is_complex:
        return float(c)
    raise OverflowError(f"Python integer {c} out of bounds for {dtype.name}")


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    x = as_tensor(x)
    # NumPy's rule: a scalar, or a sequence whose first item is no list or
    # array (one mask written out), is one condition.  A 0-d tensor alone is
    # NumPy's bool scalar, and so are the items of a 1-d tensor; a 0-d tensor
    # in a list is an array, as NumPy's 0-d arrays are there (a condition
    # that holds everywhere or nowhere)
    arrays = (Tensor, np.ndarray)
    if isinstance(condlist, arrays) and condlist.ndim == 0 or np.isscalar(condlist):
        condlist = [condlist]
    elif not len(condlist):
        raise IndexError("piecewise() needs at least one condition: condlist is empty")
    elif x.ndim != 0 and (condlist.ndim == 1 if isinstance(condlist, arrays)
                          else not isinstance(condlist[0], (list,) + arrays)):
        condlist = [condlist]
    conds = [_piece_mask(as_tensor(c), x) for c in condlist]
    shapes = {tuple(c.shape) for c in conds}
    if len(shapes) > 1:  # NumPy makes one bool array of the list first
        raise ValueError(f"piecewise(): the conditions have shapes {sorted(shapes)}; NumPy makes "
                         f"one array of them, so they must share one shape (an inhomogeneous "
                         f"list)")
    n = len(conds)
    if len(funclist) == n + 1:  # the last function covers "none of the conditions"
        shape = max((c.shape for c in conds), key=len)
        conds.append(~_C.stack([_C.broadcast_to(c, shape) for c in conds]).any(0))
    elif len(funclist) != n:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         f"expected")
    y = _C.zeros_like(x)
    # Each function sees only the elements its condition selects, as in NumPy
    # (so a function undefined elsewhere is never evaluated there), and is not
    # called when it selects none (x.max() of no elements would raise).
    for cond, func in zip(conds, funclist):
        if callable(func):
            picked = x[cond]
            if picked.numel() == 0:
                continue
            values = as_tensor(func(picked, *args, **kw))
        else:
            values = as_tensor(func)
        y = _C.index_put(y, (cond,), values.to(y.dtype))
    return y


def _piece_mask(cond, x):
    """A piecewise condition as the bool mask NumPy indexes ``x`` with: one of
    x's shape or of its leading axes (selecting whole rows), or 0-d (all of x,
    or nothing); any other shape is NumPy's IndexError (never broadcast)."""
    if tuple(cond.shape) != tuple(x.shape[:cond.ndim]):
        raise IndexError(f"piecewise(): a condition of shape {tuple(cond.shape)} cannot "
                         f"select from x of shape {tuple(x.shape)}")
    return cond.to(_C.bool)


@implements(np.array_repr)
def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's repr of the values, ``array([...], dtype=...)``, as NumPy
    writes it for its own arrays (NumPy's code would name the class
    ``Tensor``); ``repr(t)`` itself stays PyTorch's ``tensor(...)``."""
    return np.array_repr(_printable(arr), max_line_width, precision, suppress_small)


def _printable(arr):
    """The host ndarray NumPy's printing reads: text is host objects, so a
    device tensor's values are copied to the host once (as repr(t) does)."""
    if not isinstance(arr, Tensor):
        return arr
    host = np.asarray(arr.detach().cpu())
    # the buffer protocol's int64 is NumPy's longlong, which its repr names
    # (dtype=int64); the dtype NumPy makes for int64 data is int_
    return host.view(np_dtype(arr.dtype)) if arr.dtype is not _C.bfloat16 else host


@implements(np.array_str)
def array_str(a, *args, **kwargs):
    """NumPy's str of the values (a device tensor's through one host copy)."""
    return np.array_str(_printable(a), *args, **kwargs)


@implements(np.array2string)
def array2string(a, *args, **kwargs):
    """NumPy's text of the values (a device tensor's through one host copy)."""
    return np.array2string(_printable(a), *args, **kwargs)


# ---- writes into an existing array: copyto, putmask, place ---------------------------------------
# NumPy's C routines write into NumPy memory.  On host tensors outside
# autograd they still do (Unsupported: NumPy itself runs on zero-copy views,
# with all its rules); a write that must be recorded (a value, or the
# destination, requires grad) or that lands on a device is a torchlike
# in-place write of the destination, recorded like `dst[...] = value`.

def _recorded_write(func, dst, *sources):
    """Whether this write is ours to do (else Unsupported: NumPy's).  A tensor
    that requires grad takes part even under no_grad (an optimizer's
    np.copyto(param, new) there): NumPy cannot see it, and the write must
    bump the destination's version counter."""
    involved = any(getattr(t, "requires_grad", False) for t in (dst,) + sources)
    grads = _C.is_grad_enabled() and involved
    if isinstance(dst, np.ndarray):
        if grads:
            raise RuntimeError(f"numpy.{func} writes into a NumPy array, which cannot record "
                               f"autograd history, and a tensor that requires grad is given: "
                               f"write into a tensor instead (np.zeros_like(t), t.copy())")
        raise Unsupported(f"{func} into an ndarray")
    if not isinstance(dst, Tensor):
        raise TypeError(f"{func}() argument 1 must be numpy.ndarray, not {type(dst).__name__}")
    if not involved and dst.device.type == "cpu":
        raise Unsupported(f"{func}: NumPy's own loop on the host")


def _check_cast(src, dst, casting, scalar=False):
    if casting != "unsafe" and not can_cast_dtypes(src.dtype, dst.dtype, casting):
        raise TypeError(f"Cannot cast {'scalar' if scalar else 'array data'} from "
                        f"dtype('{np_dtype(src.dtype)}') to dtype('{np_dtype(dst.dtype)}') "
                        f"according to the rule {casting!r}")


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    """dst[...] = src where `where` holds (both broadcast to dst's shape)."""
    _recorded_write("copyto", dst, src, where)
    value = as_tensor(src)
    _check_cast(value, dst, casting, scalar=not isinstance(src, (Tensor, np.ndarray)))
    shape = tuple(dst.shape)
    try:
        value = value.to(dst.dtype).broadcast_to(shape)
    except RuntimeError:
        raise ValueError(f"could not broadcast input array from shape {tuple(value.shape)} "
                         f"into shape {shape}") from None
    if where is not True:
        mask = as_tensor(where).to(_C.bool).broadcast_to(shape)
        value = _C.where(mask, value, dst)
    dst.copy_(value)


@implements(np.putmask)
def putmask(a, /, mask, values):
    """a[mask] = values, values taken cyclically by position in a (NumPy's
    rule: element i of a gets values.flat[i % values.size])."""
    _recorded_write("putmask", a, values)
    v = as_tensor(values)
    _check_cast(v, a, "safe")
    if v.numel() == 0:
        return
    v = v.reshape(-1).to(a.dtype)
    n = a.numel()
    spread = v[_C.arange(n, device=a.device) % v.numel()].reshape(tuple(a.shape))
    a.copy_(_C.where(as_tensor(mask).to(_C.bool).broadcast_to(tuple(a.shape)), spread, a))


@implements(np.place)
def place(arr, mask, vals):
    """arr[mask] = vals, the k-th True element getting vals[k % len(vals)]."""
    _recorded_write("place", arr, vals)
    m = as_tensor(mask).to(_C.bool).reshape(-1)
    if m.numel() != arr.numel():
        raise ValueError(f"place: mask and data must be the same size")
    v = as_tensor(vals).reshape(-1).to(arr.dtype)
    if not builtins.bool(m.any()):
        return
    if v.numel() == 0:
        raise ValueError("Cannot insert from an empty array!")
    k = (_C.cumsum(m.to(_C.int64), 0) - 1) % v.numel()  # the index into vals of each True
    flat = _C.where(m, v[k], arr.reshape(-1))
    arr.copy_(flat.reshape(tuple(arr.shape)))


# ---- saving arrays to files: a file is host data ----------------------------------------
# NumPy's writers run on the host; a device tensor's values are copied there
# once (as torchlike.save copies them), the deliberate round trip of
# docs/devices.md.  A tensor that requires grad is refused, as the fallback
# rule refuses it (the file could not carry its history).

def _saved(x, name):
    if isinstance(x, (list, tuple)):
        return type(x)(_saved(e, name) for e in x)
    if not isinstance(x, Tensor):
        return x
    if x.requires_grad and _C.is_grad_enabled():
        raise TypeError(f"numpy.{name} has no torchlike implementation, so it cannot be "
                        f"recorded for autograd: it does not accept a tensor that requires grad")
    return x.cpu().numpy()


@implements(np.save)
def save(file, arr, *args, **kwargs):
    return np.save(file, _saved(arr, "save"), *args, **kwargs)


@implements(np.savez)
def savez(file, *args, **kwds):
    return np.savez(file, *_saved(args, "savez"),
                    **{k: _saved(v, "savez") for k, v in kwds.items()})


@implements(np.savez_compressed)
def savez_compressed(file, *args, **kwds):
    return np.savez_compressed(file, *_saved(args, "savez_compressed"),
                               **{k: _saved(v, "savez_compressed") for k, v in kwds.items()})


@implements(np.savetxt)
def savetxt(fname, X, *args, **kwargs):
    return np.savetxt(fname, _saved(X, "savetxt"), *args, **kwargs)
