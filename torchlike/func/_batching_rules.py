"""Batching rules: each op on BatchedTensors (_batched.py) run once on the
physical tensors.  ``handler_for(func)`` picks the rule by the op's name;
an op without one runs per element (``op_loop``).

Physical layout: ``levels`` batch dims in front, then the logical dims, so a
logical dim d of a tensor of logical rank R is physical ``d % R + K``."""
import inspect

from .. import _C
from . import _batched as B
from ._batched import (Abandon, BatchedTensor, Tensor, VmapError, align, levels_of, lrank,
                       op_loop, size_of, union, wrap, wrap_out)

_NoTF = _C.DisableTorchFunction


def _tl():
    import torchlike
    return torchlike


def _dim_error(d, n):
    lo, hi = (-n, n - 1) if n > 0 else (-1, 0)
    return IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but "
                      f"got {d})")


def _ldim(d, n, k):
    """Logical dim d of a rank-n tensor as a physical dim (k batch dims)."""
    m = max(n, 1)
    if not -m <= d < m:
        raise _dim_error(d, n)
    return d % m + k


# ---- elementwise ------------------------------------------------------------------------------

_POINTWISE = set("""
abs absolute neg negative exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan
arcsin arccos arctan sinh cosh tanh asinh acosh atanh arcsinh arccosh arctanh sigmoid relu relu6
gelu silu mish softplus elu selu celu leaky_relu hardtanh hardsigmoid hardswish logsigmoid
tanhshrink softsign softshrink hardshrink threshold erf erfc erfinv floor ceil round trunc fix frac
sign sgn signbit reciprocal square nan_to_num isnan isinf isfinite isposinf isneginf isreal
logical_not bitwise_not positive conj conj_physical resolve_conj resolve_neg angle digamma lgamma
i0 sinc logit expit clone contiguous detach float double half bfloat16 int long short bool byte
char cfloat cdouble clamp clip clamp_min clamp_max where lerp addcmul addcdiv add sub subtract mul
multiply div divide true_divide floor_divide remainder fmod pow float_power atan2 arctan2 hypot
maximum minimum fmax fmin copysign logaddexp logaddexp2 xlogy xlog1py eq ne lt le gt ge greater
less greater_equal less_equal not_equal logical_and logical_or logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_left_shift bitwise_right_shift isclose heaviside nextafter ldexp masked_fill
rsub zeros_like ones_like full_like empty_like copy_ fill_ zero_ tril triu real imag deg2rad
rad2deg exp_ polygamma mvlgamma special_expit special_logit gammaln ndtr ndtri erfcx log_ndtr entr
__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __floordiv__
__rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __and__ __rand__ __or__ __ror__ __xor__ __rxor__
__lshift__ __rlshift__ __rshift__ __rrshift__ __lt__ __le__ __gt__ __ge__ __eq__ __ne__ __neg__
__pos__ __abs__ __invert__ __iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__ __ipow__
__iand__ __ior__ __ixor__ __ilshift__ __irshift__
""".split())


def _pointwise(func, args, kwargs):
    """Every tensor aligned to the union of levels and the largest logical
    rank; unbatched tensors broadcast from the right as they are."""
    if len(args) == 1 and not kwargs:  # x.tanh(): nothing to align
        with _NoTF():
            return wrap_out(func(args[0]), args[0]._levels)
    ts = list(B.tensors_in(args, kwargs))
    levels = union(ts)
    with _NoTF():
        rank = max(lrank(t) for t in ts)
        a, k = B.map_tensors(lambda t: align(t, levels, rank) if levels_of(t) else t,
                             args, kwargs)
        return wrap_out(func(*a, **k), levels)


def _where(func, args, kwargs):
    """where(cond, x, y) is elementwise; where(cond) is nonzero (its sizes
    depend on the values)."""
    if len(args) + len(kwargs) == 1:
        raise Abandon("where(condition)")
    return _pointwise(func, args, kwargs)


def _pointwise_inplace(func, args, kwargs):
    """self (batched at every level of the call) written in place."""
    name = B.short_name(func)[1]
    self = args[0]
    levels = union(B.tensors_in(args, kwargs))
    B.check_inplace_target(name, self, levels)
    with _NoTF():
        rank = lrank(self)
        a, k = B.map_tensors(lambda t: t if t is self else
                             align(t, levels, max(rank, lrank(t))) if levels_of(t) else t,
                             args[1:], kwargs)
        func(self, *a, **k)
    return self


def _self_only(func, args, kwargs):
    """Ops whose other tensors give only a dtype or device (to, type_as,
    new_zeros): those run as they are, self physically."""
    self = args[0]
    with _NoTF():
        a, k = B.map_tensors(lambda t: t, args, kwargs)
        out = func(*a, **k)
    if out is self:
        return self
    name = B.short_name(func)[1]
    return out if name.startswith("new_") else wrap_out(out, levels_of(self))


def _meta(func, args, kwargs):
    """Non-tensor facts that do not depend on the batch (dtype, device,
    requires_grad ...): read physically; requires_grad_ & co return self."""
    with _NoTF():
        out = func(*args, **kwargs)
    return args[0] if out is args[0] else out


def _abandon(func, args, kwargs):
    raise Abandon(B.short_name(func)[1])


_META = set("""
dtype device requires_grad is_leaf grad_fn layout is_cuda is_cpu is_sparse is_quantized is_meta
is_mkldnn is_nested is_floating_point is_complex is_signed element_size itemsize get_device
is_contiguous requires_grad_ retain_grad retains_grad names is_inference _version output_nr
data_ptr is_conj is_neg is_shared is_pinned is_set_to storage untyped_storage nbytes
""".split())
_ABANDON = set("""
item tolist numpy __bool__ __int__ __float__ __index__ __complex__ __array__ __repr__ __str__
__format__ equal allclose nonzero unique unique_consecutive masked_select argwhere __contains__
register_hook backward bincount histc
""".split())
_SELF_ONLY = set("to type type_as new_zeros new_ones new_full new_empty new_tensor cpu cuda"
                 .split())


# ---- shape facts ------------------------------------------------------------------------------

def _logical_shape(x):
    with _NoTF():
        return x.shape[len(levels_of(x)):]


def _shape(func, args, kwargs):
    return _logical_shape(args[0])


def _size(func, args, kwargs):
    shape = _logical_shape(args[0])
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    if d is None:
        return shape
    n = len(shape)
    if not -max(n, 1) <= d < max(n, 1):
        raise _dim_error(d, n)
    return shape[d % n] if n else 1


def _dim(func, args, kwargs):
    return len(_logical_shape(args[0]))


def _numel(func, args, kwargs):
    n = 1
    for s in _logical_shape(args[0]):
        n *= s
    return n


def _len(func, args, kwargs):
    shape = _logical_shape(args[0])
    if not shape:
        raise TypeError("len() of a 0-d tensor")
    return shape[0]


def _stride(func, args, kwargs):
    x = args[0]
    with _NoTF():
        st = x.stride()[len(levels_of(x)):]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    return st if d is None else st[d]


# ---- dims ---------------------------------------------------------------------------------------

# name: (position of the dim argument, how dim=None reduces: "tuple" (all the
# logical dims), "flat" (over the flattened logical dims), "vals" (flat, the
# values of a (values, indices) result), None (no None: required or no reduce))
_REDUCE = {
    "sum": (1, "tuple"), "nansum": (1, "tuple"), "mean": (1, "tuple"), "nanmean": (1, "tuple"),
    "amax": (1, "tuple"), "amin": (1, "tuple"), "logsumexp": (1, "tuple"), "all": (1, "tuple"),
    "any": (1, "tuple"), "count_nonzero": (1, "tuple"), "var": (1, "tuple"),
    "std": (1, "tuple"), "var_mean": (1, "tuple"), "std_mean": (1, "tuple"),
    "norm": (2, "tuple"), "prod": (1, "flat"), "argmax": (1, "flat"), "argmin": (1, "flat"),
    "max": (1, "vals"), "min": (1, "vals"), "median": (1, "vals"), "nanmedian": (1, "vals"),
    "aminmax": (1, "flatpair"),
    "softmax": (1, None), "log_softmax": (1, None), "cumsum": (1, None), "cumprod": (1, None),
    "logcumsumexp": (1, None), "cummax": (1, None), "cummin": (1, None), "sort": (1, None),
    "argsort": (1, None), "unbind": (1, None), "select": (1, None), "narrow": (1, None),
    "topk": (2, None), "kthvalue": (2, None), "split": (2, None), "chunk": (2, None),
    "tensor_split": (2, None), "diff": (2, None), "index_select": (1, None), "glu": (1, None),
    "mode": (1, None), "torchlike.linalg.vector_norm": (2, "tuple"),
}
_DEFAULT_DIM = {"softmax": None, "log_softmax": None, "cumsum": None, "sort": -1, "argsort": -1,
                "unbind": 0, "topk": -1, "kthvalue": -1, "split": 0, "chunk": 0,
                "tensor_split": 0, "diff": -1, "glu": -1, "mode": -1}


def _get_arg(args, kwargs, pos, names):
    if len(args) > pos:
        return args[pos], ("pos", pos)
    for n in names:
        if n in kwargs:
            return kwargs[n], ("kw", n)
    return None, None


def _set_arg(args, kwargs, where, value, default_kw="dim"):
    args, kwargs = list(args), dict(kwargs)
    if where is None:
        kwargs[default_kw] = value
    elif where[0] == "pos":
        args[where[1]] = value
    else:
        kwargs[where[1]] = value
    return args, kwargs


def _keepdim(args, kwargs, name, pos):
    if name in ("var", "std", "var_mean", "std_mean"):
        return kwargs.get("keepdim", args[3] if len(args) > 3 and isinstance(args[3], bool)
                          else False)
    if name == "norm":
        return kwargs.get("keepdim", args[3] if len(args) > 3 else False)
    return kwargs.get("keepdim", args[pos + 1] if len(args) > pos + 1 and
                      isinstance(args[pos + 1], bool) else False)


def _dim_op(func, args, kwargs):
    """Ops with a dim argument (reductions, softmax, sort, split ...)."""
    name = B.short_name(func)[1]
    pos, none_mode = _REDUCE[name]
    x = args[0]
    dim, where = _get_arg(args, kwargs, pos, ("dim", "axis"))
    if name in ("max", "min") and isinstance(dim, Tensor):
        return _pointwise(func, args, kwargs)  # the elementwise maximum / minimum
    if any(levels_of(t) for t in list(B.tensors_in(args[1:], kwargs))):
        return op_loop(func, args, kwargs)
    levels = levels_of(x)
    k = len(levels)
    if name in ("var", "std", "var_mean", "std_mean") and isinstance(dim, bool):
        args, kwargs = [args[0]] + list(args[2:]), dict(kwargs, unbiased=dim)
        dim, where = _get_arg(args, kwargs, pos, ("dim", "axis"))
    if dim is None and name in _DEFAULT_DIM and _DEFAULT_DIM[name] is not None:
        dim = _DEFAULT_DIM[name]
    with _NoTF():
        n = lrank(x)
        if dim is None and none_mode is None:
            return op_loop(func, args, kwargs)
        if dim is None and none_mode == "tuple":
            if n == 0:
                phys = x.unsqueeze(-1)
                args = [phys] + list(args[1:])
                args, kwargs = _set_arg(args, kwargs, where, (k,))
                if "keepdim" in kwargs:
                    kwargs["keepdim"] = False
                return wrap_out(func(*args, **kwargs), levels)
            args, kwargs = _set_arg(args, kwargs, where, tuple(range(k, k + n)))
            return wrap_out(func(*args, **kwargs), levels)
        if dim is None:  # flat
            keep = _keepdim(args, kwargs, name, pos)
            sizes = list(x.shape[:k])
            phys = x.reshape(sizes + [-1])
            args = [phys] + list(args[1:])
            args, kwargs = _set_arg(args, kwargs, where, k)
            kwargs.pop("keepdim", None)
            out = func(*args, **kwargs)
            if none_mode == "vals":
                out = out[0]
            if keep:
                out = wrap_out(out, ()).reshape(sizes + [1] * n) if isinstance(out, Tensor) \
                    else type(out)(o.reshape(sizes + [1] * n) for o in out)
            return wrap_out(out, levels)
        scalar = n == 0
        if scalar:
            x = x.unsqueeze(-1)
            n = 1
        if isinstance(dim, (tuple, list)):
            pd = type(dim)(_ldim(d, n, k) for d in dim)
        else:
            pd = _ldim(dim, n, k)
        args = [x] + list(args[1:])
        args, kwargs = _set_arg(args, kwargs, where, pd)
        out = func(*args, **kwargs)
        if scalar:
            out = _squeeze_last(out, k)
        return wrap_out(out, levels)


def _squeeze_last(out, k):
    if isinstance(out, Tensor):
        return out.squeeze(-1) if out.dim() == k + 1 else out
    if isinstance(out, (tuple, list)):
        return type(out)(_squeeze_last(o, k) for o in out)
    return out


# ---- shape ops --------------------------------------------------------------------------------

def _sizes_arg(args):
    """A shape given as varargs or as one sequence."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)) or \
            len(args) == 1 and type(args[0]).__name__ == "Size":
        return list(args[0])
    return list(args)


def _batch_sizes(x):
    with _NoTF():
        return list(x.shape[:len(levels_of(x))])


def _reshape(func, args, kwargs):
    x = args[0]
    shape = _sizes_arg(args[1:]) if len(args) > 1 else list(kwargs.get("shape", kwargs.get(
        "size", ())))
    name = B.short_name(func)[1]
    if name in ("view", "reshape") and len(args) == 2 and not isinstance(args[1], (
            int, tuple, list)) and type(args[1]).__name__ != "Size":
        return _self_only(func, args, kwargs)  # view(dtype)
    with _NoTF():
        full = _batch_sizes(x) + shape
        if name == "view":
            try:
                return wrap(x.view(full), levels_of(x))
            except RuntimeError:
                raise Abandon("view of a batched tensor whose layout allows no view")
        return wrap(x.reshape(full), levels_of(x))


def _reshape_as(func, args, kwargs):
    x, other = args[0], args[1]
    shape = list(_logical_shape(other))
    name = B.short_name(func)[1]
    if name == "view_as":
        return _reshape(_tl().Tensor.view, (x, shape), {})
    if name == "expand_as":
        return _expand(None, (x, shape), {})
    return _reshape(_tl().Tensor.reshape, (x, shape), {})


def _expand(func, args, kwargs):
    x = args[0]
    sizes = _sizes_arg(args[1:]) if len(args) > 1 else list(kwargs.get("size", ()))
    levels = levels_of(x)
    with _NoTF():
        p = align(x, levels, max(len(sizes), lrank(x)))
        return wrap(p.expand(_batch_sizes(x) + sizes), levels)


def _broadcast_to(func, args, kwargs):
    return _expand(None, (args[0], args[1] if len(args) > 1 else kwargs["size"]), {})


def _flatten(func, args, kwargs):
    x = args[0]
    start = args[1] if len(args) > 1 else kwargs.get("start_dim", 0)
    end = args[2] if len(args) > 2 else kwargs.get("end_dim", -1)
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        if n == 0:
            return wrap(x.reshape(list(x.shape) + [1]), levels_of(x))
        return wrap(x.flatten(_ldim(start, n, k), _ldim(end, n, k)), levels_of(x))


def _unflatten(func, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs["dim"]
    sizes = args[2] if len(args) > 2 else kwargs["sizes"]
    with _NoTF():
        return wrap(x.unflatten(_ldim(dim, lrank(x), len(levels_of(x))), sizes), levels_of(x))


def _dim_list(func, args, kwargs):
    """permute / flip: a list of logical dims (permute keeps the batch dims
    in front)."""
    x = args[0]
    dims = _sizes_arg(args[1:]) if len(args) > 1 else list(kwargs["dims"])
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        pd = [_ldim(d, n, k) for d in dims]
        if B.short_name(func)[1] == "permute":
            if len(dims) != n:
                raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor "
                                   f"input does not match the length of the desired ordering of "
                                   f"dimensions i.e. input.dim() = {n} is not equal to len(dims) "
                                   f"= {len(dims)}")
            pd = list(range(k)) + pd
        return wrap(func(x, pd), levels_of(x))


def _two_dims(func, args, kwargs, names=("dim0", "dim1")):
    x = args[0]
    d0 = args[1] if len(args) > 1 else kwargs[names[0]]
    d1 = args[2] if len(args) > 2 else kwargs[names[1]]
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        if isinstance(d0, (tuple, list)):
            return wrap(func(x, [_ldim(d, n, k) for d in d0], [_ldim(d, n, k) for d in d1]),
                        levels_of(x))
        return wrap(func(x, _ldim(d0, n, k), _ldim(d1, n, k)), levels_of(x))


def _movedim(func, args, kwargs):
    return _two_dims(func, args, kwargs, ("source", "destination"))


def _t(func, args, kwargs):
    x = args[0]
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        if n > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
        return wrap(x.transpose(k, k + 1) if n == 2 else x.view_as(x), levels_of(x))


def _T(func, args, kwargs):
    x = args[0]
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        return wrap(x.permute(list(range(k)) + list(range(k + n - 1, k - 1, -1))), levels_of(x))


def _mT(func, args, kwargs):
    x = args[0]
    with _NoTF():
        if lrank(x) < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {lrank(x)}-D tensor.")
        out = x.transpose(-2, -1)
        if B.short_name(func)[1] in ("mH", "adjoint"):
            out = out.conj()
        return wrap(out, levels_of(x))


def _unsqueeze(func, args, kwargs):
    x = args[0]
    d = args[1] if len(args) > 1 else kwargs["dim"]
    k = len(levels_of(x))
    with _NoTF():
        return wrap(x.unsqueeze(_ldim(d, lrank(x) + 1, k)), levels_of(x))


def _squeeze(func, args, kwargs):
    x = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        if d is None:
            d = [i for i, s in enumerate(x.shape[k:]) if s == 1]
        if n == 0:
            return wrap(x.view_as(x), levels_of(x))
        pd = [_ldim(i, n, k) for i in d] if isinstance(d, (tuple, list)) else _ldim(d, n, k)
        return wrap(x.squeeze(pd) if pd != [] else x.view_as(x), levels_of(x))


def _repeat(func, args, kwargs):
    x = args[0]
    sizes = _sizes_arg(args[1:])
    levels = levels_of(x)
    with _NoTF():
        p = align(x, levels, max(len(sizes), lrank(x)))
        return wrap(p.repeat([1] * len(levels) + sizes), levels)


def _roll(func, args, kwargs):
    x = args[0]
    shifts = args[1] if len(args) > 1 else kwargs["shifts"]
    dims = args[2] if len(args) > 2 else kwargs.get("dims")
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        if dims is None:
            flat = x.reshape(_batch_sizes(x) + [-1]).roll(shifts, k)
            return wrap(flat.reshape(x.shape), levels_of(x))
        pd = [_ldim(d, n, k) for d in dims] if isinstance(dims, (tuple, list)) \
            else _ldim(dims, n, k)
        return wrap(x.roll(shifts, pd), levels_of(x))


def _diagonal(func, args, kwargs):
    x = args[0]
    offset = args[1] if len(args) > 1 else kwargs.get("offset", 0)
    d1 = args[2] if len(args) > 2 else kwargs.get("dim1", 0)
    d2 = args[3] if len(args) > 3 else kwargs.get("dim2", 1)
    k = len(levels_of(x))
    with _NoTF():
        n = lrank(x)
        return wrap(x.diagonal(offset, _ldim(d1, n, k), _ldim(d2, n, k)), levels_of(x))


def _is_advanced(i):
    return isinstance(i, (Tensor, list)) or type(i) is bool


def _index_tuple(idx):
    """The index as a tuple, or None when a batched or non-adjacent
    advanced index makes it a case for the per-element loop."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    adv = [j for j, i in enumerate(idx) if _is_advanced(i)]
    if any(levels_of(i) for i in idx if isinstance(i, Tensor)):
        return None
    if adv and adv != list(range(adv[0], adv[0] + len(adv))):
        return None
    return idx


def _getitem(func, args, kwargs):
    x, idx = args[0], args[1]
    if not levels_of(x):
        if type(idx) is BatchedTensor and not idx.is_floating_point() and idx.dtype != _C.bool:
            with _NoTF():  # rows of an unbatched tensor picked by a batched index
                return wrap(x[idx], idx._levels)
        return op_loop(func, args, kwargs)
    t = _index_tuple(idx)
    if t is None:
        return op_loop(func, args, kwargs)
    levels = levels_of(x)
    with _NoTF():
        return wrap(x[(slice(None),) * len(levels) + t], levels)


def _setitem(func, args, kwargs):
    x, idx, value = args
    levels = union([x, value] + (list(idx) if isinstance(idx, tuple) else [idx]))
    B.check_inplace_target("__setitem__", x, levels)
    t = _index_tuple(idx)
    if t is None:
        return op_loop(func, args, kwargs)
    with _NoTF():
        pidx = (slice(None),) * len(levels) + t
        if isinstance(value, Tensor) and levels_of(value):
            target = x[pidx].dim() - len(levels)
            value = align(value, levels, max(target, lrank(value)))
        x[pidx] = value
    return None


def _cat(func, args, kwargs):
    name = B.short_name(func)[1]
    tensors = args[0] if args else kwargs["tensors"]
    dim = args[1] if len(args) > 1 else kwargs.get("dim", kwargs.get("axis", 0))
    levels = union(tensors)
    with _NoTF():
        ranks = [lrank(t) for t in tensors]
        n = max(ranks) if ranks else 0
        phys = [align(t, levels, lrank(t), expand=True) for t in tensors]
        if name == "stack":
            d = _ldim(dim, n + 1, len(levels))
        else:
            d = _ldim(dim, n, len(levels))
        return wrap(func(phys, d), levels)


# ---- matrix products --------------------------------------------------------------------------

def matmul(a, b):
    """a @ b for batched or unbatched a, b (NumPy's matmul rules, logically)."""
    la, lb = levels_of(a), levels_of(b)
    levels = union([a, b])
    k = len(levels)
    with _NoTF():
        ra, rb = lrank(a), lrank(b)
        if ra == 0 or rb == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{ra}D and {rb}D")
        if not la and ra == 2 and rb == 1:  # W @ v: one GEMM over the batch
            return wrap(b.matmul(a.t()), lb)
        if not lb and rb <= 2:  # x @ W, x @ v: the batch folds into the rows
            return wrap(a.matmul(b), la)
        pa = align(a, levels, ra) if la else a
        pb = align(b, levels, rb) if lb else b
        if ra == 1:
            pa = pa.unsqueeze(-2)
        if rb == 1:
            pb = pb.unsqueeze(-1)
        n = max(ra, rb, 2)
        if la:
            pa = _pad(pa, k, max(ra, 2), n)
        if lb:
            pb = _pad(pb, k, max(rb, 2), n)
        out = pa.matmul(pb)
        if rb == 1:
            out = out.squeeze(-1)
        if ra == 1:
            out = out.squeeze(-1 if rb == 1 else -2)
        return wrap(out, levels)


def _pad(p, k, r, n):
    if r == n:
        return p
    s = list(p.shape)
    return p.reshape(s[:k] + [1] * (n - r) + s[k:])


_MM_RANKS = {"mm": (2, 2), "bmm": (3, 3), "mv": (2, 1), "dot": (1, 1), "vdot": (1, 1),
             "inner": None}


def _matmul_rule(func, args, kwargs):
    name = B.short_name(func)[1]
    a = args[0]
    if len(args) > 1:
        b = args[1]
    else:
        b = next(kwargs[k] for k in ("other", "mat2", "vec", "tensor") if k in kwargs)
    if name == "__rmatmul__":
        a, b = b, a
    want = _MM_RANKS.get(name)
    if want:
        with _NoTF():
            ra, rb = lrank(a) if isinstance(a, Tensor) else -1, lrank(b)
        if (ra, rb) != want:
            return op_loop(func, args, kwargs)
        if name == "vdot":
            a = _tl().conj(a)
    return matmul(a, b)


def _outer(func, args, kwargs):
    tl = _tl()
    a, b = args[0], args[1]
    return tl.mul(tl.unsqueeze(a, -1), tl.unsqueeze(b, -2))


def _addmm(func, args, kwargs):
    tl = _tl()
    names = ["input", "mat1", "mat2"]
    vals = list(args) + [kwargs[n] for n in names[len(args):3]]
    inp, m1, m2 = vals[:3]
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    name = B.short_name(func)[1]
    if name == "addmv":
        m1, m2 = vals[1], vals[2]
    prod = matmul(m1, m2)
    if alpha != 1:
        prod = tl.mul(prod, alpha)
    if beta == 0:
        return tl.add(prod, tl.mul(inp, 0))
    return tl.add(tl.mul(inp, beta) if beta != 1 else inp, prod)


def _linear(func, args, kwargs):
    tl = _tl()
    x = args[0]
    w = args[1] if len(args) > 1 else kwargs["weight"]
    b = args[2] if len(args) > 2 else kwargs.get("bias")
    if not levels_of(w) and not levels_of(b):
        with _NoTF():
            return wrap(func(x, w, b), levels_of(x))
    out = matmul(x, tl.Tensor.mT.__get__(w))
    return out if b is None else tl.add(out, b)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum(func, args, kwargs):
    eq = args[0].replace(" ", "")
    ops = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) \
        else list(args[1:])
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        letters = lhs.replace(",", "").replace(".", "")
        out = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    terms = lhs.split(",")
    if len(terms) != len(ops):
        return op_loop(func, args, kwargs)
    levels = union(ops)
    free = [c for c in _LETTERS if c not in eq]
    letter = dict(zip(levels, free))
    terms = ["".join(letter[lv] for lv in levels_of(t)) + s for t, s in zip(ops, terms)]
    new = ",".join(terms) + "->" + "".join(letter[lv] for lv in levels) + out
    with _NoTF():
        return wrap(func(new, *ops), levels)


# ---- nn ---------------------------------------------------------------------------------------

def _bound(func, args, kwargs):
    """The arguments of a Python-written function by name, defaults filled."""
    sig = inspect.signature(func.__wrapped__).bind(*args, **kwargs)
    sig.apply_defaults()
    return sig.arguments


def _layer_norm(func, args, kwargs):
    tl = _tl()
    a = _bound(func, args, kwargs)
    x, w, b = a["input"], a["weight"], a["bias"]
    if not levels_of(w) and not levels_of(b):
        with _NoTF():
            return wrap(func(*args, **kwargs), levels_of(x))
    with _NoTF():
        y = wrap(func(x, a["normalized_shape"], None, None, a["eps"]), levels_of(x))
    if w is not None:
        y = tl.mul(y, w)
    return y if b is None else tl.add(y, b)


def _batch_norm(func, args, kwargs):
    """Training batch norm with unbatched running stats would update them
    once per element: PyTorch's rule refuses it (after the size check,
    which the element's run makes); anything else runs per element."""
    a = _bound(func, args, kwargs)
    x, rm, rv = a["input"], a["running_mean"], a["running_var"]
    if (a["training"] and rm is not None and levels_of(x) and rm.numel() == x.shape[1]
            and not levels_of(rm) and (rv is None or not levels_of(rv))):
        raise VmapError("Batch norm got a batched tensor as input while the running_mean or "
                        "running_var, which will be updated in place, were not batched.")
    return op_loop(func, args, kwargs)


def _class_loss(func, args, kwargs):
    """cross_entropy / nll_loss: the batch folded into the loss's own batch
    dim with reduction 'none', reduced per element afterwards."""
    tl = _tl()
    a = _bound(func, args, kwargs)
    x, target, weight = a["input"], a["target"], a["weight"]
    if levels_of(weight) or a["size_average"] is not None or a["reduce"] is not None:
        return op_loop(func, args, kwargs)
    reduction, ignore = a["reduction"], a["ignore_index"]
    if reduction not in ("none", "mean", "sum"):
        return op_loop(func, args, kwargs)
    levels = union([x, target])
    k = len(levels)
    extra = {"label_smoothing": a["label_smoothing"]} if "label_smoothing" in a else {}
    with _NoTF():
        n = lrank(x)
        px = align(x, levels, n, expand=True)
        pt = align(target, levels, lrank(target), expand=True)
        bs = list(px.shape[:k])
        lshape = list(px.shape[k:])
        probs = pt.is_floating_point() and list(pt.shape[k:]) == lshape
        if n == 1:
            fx, ft = px.reshape([-1] + lshape), pt.reshape([-1] + list(pt.shape[k:]))
        else:
            fx = px.reshape([-1] + lshape[1:])
            ft = pt.reshape([-1] + list(pt.shape[k + 1:]))
        none = func(fx, ft, weight, ignore_index=ignore, reduction="none", **extra)
        none = none.reshape(bs + ([] if n == 1 else [lshape[0]] + lshape[2:]))
        if reduction == "none":
            return wrap(none, levels)
        dims = list(range(k, none.dim()))
        total = none.sum(dims) if dims else none
        if reduction == "sum":
            return wrap(total, levels)
        if probs:
            count = 1
            for s in lshape:
                count *= s
            return wrap(total / (count // lshape[0 if n == 1 else 1]), levels)
        t = pt
        keep = t != ignore
        w = weight[tl.where(keep, t, 0)] if weight is not None else tl.ones_like(t, dtype=x.dtype)
        w = w * keep
        den = w.sum(list(range(k, w.dim()))) if w.dim() > k else w
        return wrap(total / den, levels)


_POINT_LOSSES = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                 "binary_cross_entropy", "binary_cross_entropy_with_logits",
                 "soft_margin_loss"}


def _point_loss(func, args, kwargs):
    a = dict(_bound(func, args, kwargs))
    if a.get("size_average") is not None or a.get("reduce") is not None:
        return op_loop(func, args, kwargs)
    reduction = a["reduction"]
    if reduction not in ("none", "mean", "sum"):
        return op_loop(func, args, kwargs)
    ts = [v for v in a.values() if isinstance(v, Tensor)]
    levels = union(ts)
    with _NoTF():
        x, t = a["input"], a["target"]
        if tuple(x.shape[len(levels_of(x)):]) != tuple(t.shape[len(levels_of(t)):]):
            return op_loop(func, args, kwargs)
        rank = max(lrank(v) for v in ts)
        for key, v in a.items():
            if isinstance(v, Tensor):
                a[key] = align(v, levels, rank, expand=key in ("input", "target"))
        a["reduction"] = "none"
        out = func(**a)
        k = len(levels)
        if reduction != "none" and out.dim() > k:
            dims = list(range(k, out.dim()))
            out = out.mean(dims) if reduction == "mean" else out.sum(dims)
        return wrap(out, levels)


def _conv(func, args, kwargs):
    """conv1d/2d/3d with an unbatched weight: the batch folded into N."""
    a = _bound(func, args, kwargs)
    x, w, b = a["input"], a["weight"], a["bias"]
    if levels_of(w) or levels_of(b):
        return op_loop(func, args, kwargs)
    n = int(B.short_name(func)[1][4])
    levels = levels_of(x)
    with _NoTF():
        shape = list(x.shape)
        k = len(levels)
        lead = shape[:len(shape) - n - 1]  # the batch dims, and N when f's input has one
        out = func(x.reshape([-1] + shape[len(lead):]), w, b, a["stride"], a["padding"],
                   a["dilation"], a["groups"])
        return wrap(out.reshape(lead + list(out.shape[1:])), levels) if k else out


def _embedding(func, args, kwargs):
    a = _bound(func, args, kwargs)
    if levels_of(a["weight"]) or a["max_norm"] is not None:
        return op_loop(func, args, kwargs)
    with _NoTF():
        return wrap(func(*args, **kwargs), levels_of(a["input"]))


def _gather(func, args, kwargs):
    """gather / scatter / take_along_dim: the tensors expanded to every level."""
    name = B.short_name(func)[1]
    pos = 2 if name == "take_along_dim" else 1
    dim, where = _get_arg(args, kwargs, pos, ("dim",))
    if dim is None:
        return op_loop(func, args, kwargs)
    levels = union(B.tensors_in(args, kwargs))
    with _NoTF():
        n = lrank(args[0])
        a, k = B.map_tensors(lambda t: align(t, levels, lrank(t), expand=True), args, kwargs)
        a, k = _set_arg(a, k, where, _ldim(dim, n, len(levels)))
        return wrap_out(func(*a, **k), levels)


def _sdpa(func, args, kwargs):
    """scaled_dot_product_attention: q, k, v (and the mask) aligned, the
    batch one more leading dim of the attention's own batch."""
    a = _bound(func, args, kwargs)
    if a["dropout_p"] > 0:
        lv = random_levels()
        if len(lv) != len(B.active()):
            raise Abandon("attention dropout with randomness='same'")
    ts = [a[n] for n in ("query", "key", "value", "attn_mask") if isinstance(a[n], Tensor)]
    levels = union(ts)
    with _NoTF():
        rank = max(lrank(t) for t in ts)
        for n in ("query", "key", "value", "attn_mask"):
            if isinstance(a[n], Tensor):
                a[n] = align(a[n], levels, rank, expand=n != "attn_mask")
        return wrap(func(**a), levels)


def _fused_dropout(func, args, kwargs):
    """The dropout kernel (nn.Dropout's forward calls it): a multiplicative
    mask drawn per the randomness of the levels; alpha and feature dropout
    run per element when every level draws differently."""
    x = args[0]
    p = args[1] if len(args) > 1 else kwargs["p"]
    batch_dims = args[2] if len(args) > 2 else kwargs.get("batch_dims", 0)
    alpha = args[3] if len(args) > 3 else kwargs.get("alpha", False)
    lv = random_levels()
    if alpha or batch_dims or "out" in kwargs or "generator" in kwargs:
        if len(lv) == len(B.active()):
            return op_loop(func, args, kwargs)
        raise Abandon("feature or alpha dropout with randomness='same'")
    with _NoTF():
        shape = [size_of(v) for v in lv] + list(x.shape[len(levels_of(x)):])
        res = func(_C.ones(shape, dtype=x.dtype, device=x.device), p)
    mask = wrap(res[0], lv)
    return (_tl().mul(x, mask),) + tuple(wrap(r, lv) for r in res[1:])


# ---- randomness -------------------------------------------------------------------------------

def random_levels():
    """The active levels whose draws differ across their batch; raises in a
    level with randomness='error'."""
    out = []
    for lv in B.active():
        if lv.randomness == "error":
            raise VmapError(B._RANDOM_ERROR)
        if lv.randomness == "different":
            out.append(lv.id)
    return tuple(out)


def _draw_like(func, args, kwargs):
    """rand_like & co: a draw of shape (the differing levels' sizes + the
    logical shape)."""
    x = args[0]
    lv = random_levels()
    with _NoTF():
        shape = [size_of(v) for v in lv] + list(x.shape[len(levels_of(x)):])
        proto = _C.empty(shape, dtype=x.dtype, device=x.device)
        out = func(proto, *args[1:], **kwargs)
    return wrap(out, lv)


def _random_inplace(func, args, kwargs):
    """x.normal_() & co: the draw of x's logical shape per the differing
    levels, copied into x (which must be batched at them)."""
    x = args[0]
    drawn = _draw_like(func, args, kwargs)
    return _tl().Tensor.copy_(x, drawn)


def _dropout(func, args, kwargs):
    tl = _tl()
    a = _bound(func, args, kwargs)
    x, p, training = a["input"], a["p"], a["training"]
    if not training or p == 0:
        return x
    lv = random_levels()
    with _NoTF():
        shape = [size_of(v) for v in lv] + list(x.shape[len(levels_of(x)):])
        mask = func(_C.ones(shape, dtype=x.dtype, device=x.device), p, True)
    mask = wrap(mask, lv)
    if a["inplace"]:
        return tl.Tensor.mul_(x, mask)
    return tl.mul(x, mask)


_CREATION = {"rand": None, "randn": None, "randint": None, "normal": None,
             "randperm": None, "bernoulli": None, "multinomial": None, "poisson": None,
             "rand_like": None, "randn_like": None, "randint_like": None}


def _creation(func, args, kwargs):
    """randn(3) & co inside f: one draw per element of the differing levels
    (PyTorch's 'different'), or one draw for all ('same')."""
    lv = random_levels()
    if not lv:
        return func(*args, **kwargs)
    sizes = [size_of(v) for v in lv]
    n = 1
    for s in sizes:
        n *= s
    with _NoTF():
        draws = [func(*args, **kwargs) for _ in range(n)]
        if not all(isinstance(d, Tensor) for d in draws):
            raise Abandon("random draw")
        out = _C.stack(draws).reshape(sizes + list(draws[0].shape)) if n else None
    if out is None:
        raise Abandon("random draw on an empty batch")
    return wrap(out, lv)


def _fast_creation(func, args, kwargs):
    """rand / randn with a shape: one draw with the levels' sizes in front."""
    lv = random_levels()
    if not lv or "out" in kwargs:
        return func(*args, **kwargs) if not lv else _creation(func, args, kwargs)
    size = _sizes_arg(args) if args else list(kwargs.pop("size"))
    with _NoTF():
        out = func([size_of(v) for v in lv] + size, **kwargs)
    return wrap(out, lv)


def random_creation(func):
    """The rule for a random op called without batched arguments, or None."""
    kind, name = B.short_name(func)
    if kind == "function" and name in ("rand", "randn"):
        return _fast_creation
    if kind in ("function", "F") and name in _CREATION or name in ("dropout", "alpha_dropout",
                                                                   "dropout1d", "dropout2d",
                                                                   "dropout3d",
                                                                   "feature_alpha_dropout"):
        return _creation
    if kind == "method" and name in _RANDOM_INPLACE:
        return _creation_inplace
    return None


def _creation_inplace(func, args, kwargs):
    lv = random_levels()
    if not lv:
        return func(*args, **kwargs)
    # an unbatched tensor drawn into under 'different' would need a batch
    raise VmapError("vmap: Cannot ask for different inplace randomness on an unbatched tensor. "
                    "This will appear like same randomness. If this is necessary for your "
                    "usage, please file an issue with functorch.")


_RANDOM_INPLACE = set("uniform_ normal_ bernoulli_ exponential_ geometric_ cauchy_ log_normal_ "
                      "random_".split())


# ---- choosing the rule ------------------------------------------------------------------------

_CUSTOM = {
    "shape": _shape, "size": _size, "dim": _dim, "ndim": _dim, "ndimension": _dim,
    "numel": _numel, "nelement": _numel, "__len__": _len, "stride": _stride,
    "reshape": _reshape, "view": _reshape, "view_as": _reshape_as, "reshape_as": _reshape_as,
    "expand_as": _reshape_as, "expand": _expand, "broadcast_to": _broadcast_to,
    "flatten": _flatten, "ravel": _flatten, "unflatten": _unflatten, "permute": _dim_list,
    "transpose": _two_dims, "swapaxes": _two_dims, "swapdims": _two_dims, "movedim": _movedim,
    "moveaxis": _movedim, "t": _t, "T": _T, "mT": _mT, "mH": _mT, "adjoint": _mT,
    "H": _mT, "unsqueeze": _unsqueeze, "squeeze": _squeeze, "repeat": _repeat, "flip": _dim_list,
    "roll": _roll, "diagonal": _diagonal, "__getitem__": _getitem, "__setitem__": _setitem,
    "cat": _cat, "concat": _cat, "concatenate": _cat, "stack": _cat,
    "matmul": _matmul_rule, "__matmul__": _matmul_rule, "__rmatmul__": _matmul_rule,
    "mm": _matmul_rule, "bmm": _matmul_rule, "mv": _matmul_rule, "dot": _matmul_rule,
    "vdot": _matmul_rule, "outer": _outer, "ger": _outer, "addmm": _addmm, "addmv": _addmm,
    "where": _where, "einsum": _einsum, "gather": _gather, "scatter": _gather, "scatter_add": _gather,
    "take_along_dim": _gather, "_fused_dropout": _fused_dropout, "rand_like": _draw_like,
    "randn_like": _draw_like, "randint_like": _draw_like,
}
_F_RULES = {"linear": _linear, "layer_norm": _layer_norm, "cross_entropy": _class_loss,
            "nll_loss": _class_loss, "dropout": _dropout, "conv1d": _conv, "conv2d": _conv,
            "conv3d": _conv, "embedding": _embedding, "scaled_dot_product_attention": _sdpa,
            "batch_norm": _batch_norm}
# Python-written functions of nn.functional whose bodies call only
# dispatching ops: they run on the batched tensors as they are (the in-place
# spellings write the whole batch in one recorded call, _C._inplace_op: per
# element, each write would outdate the output the previous one's node keeps)
_F_DECOMPOSE = set("""relu relu6 gelu tanh sigmoid silu elu selu celu leaky_relu softplus hardtanh
hardsigmoid hardswish logsigmoid softsign tanhshrink mish softmax log_softmax normalize threshold
relu_ elu_ selu_ celu_ leaky_relu_ hardtanh_ threshold_""".split())


def handler_for(func):
    kind, name = B.short_name(func)
    if kind == "F":
        if name in _F_RULES:
            return _F_RULES[name]
        if name in _POINT_LOSSES:
            return _point_loss
        if name in _F_DECOMPOSE:
            return lambda f, args, kwargs: f.__wrapped__(*args, **kwargs)
        return op_loop
    if kind == "other":
        return _dim_op if name in _REDUCE else op_loop
    if name in ("bernoulli", "multinomial", "poisson", "normal", "bernoulli_"):
        return _abandon  # the draws depend on batched values: the per-element path
    if name in _RANDOM_INPLACE:
        return _random_inplace
    if name in _CUSTOM:
        return _CUSTOM[name]
    if name in _META:
        return _meta
    if name in _ABANDON:
        return _abandon
    if name in _SELF_ONLY:
        return _self_only
    if name in _REDUCE:
        return _dim_op
    if name == "data":
        return lambda f, args, kwargs: wrap(_meta(f, args, kwargs), levels_of(args[0]))
    if name in _POINTWISE:
        return _pointwise_inplace if B.is_inplace(name) else _pointwise
    if name.endswith("_") and not name.endswith("__") and name[:-1] in _POINTWISE:
        return _pointwise_inplace
    return op_loop
