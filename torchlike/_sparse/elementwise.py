"""Copies, casts and the elementwise ops of sparse tensors: add/sub,
mul, div and pow by scalars, and the zero-preserving unary ops."""
import numbers

from .. import _C
from .._C import Tensor
from .._layout import sparse_coo
from .tensor import _IMPL, _backend, _compressed, _coo, _int64, _like, _op, _set, _sp, sparse_dim
from .create import _back, _check_device, _coo_of, _linear, coalesce, to_dense


# ---- copies, dtypes, autograd flags ------------------------------------------------------

@_op("Tensor.clone", "clone")
def clone(s, *, memory_format=None):
    out = _like(s, s._vals.clone())
    if s._layout is sparse_coo:
        out._idx = s._idx.clone()
    else:
        out._cidx, out._pidx = s._cidx.clone(), s._pidx.clone()
    return out


@_op("Tensor.detach", "detach")
def detach(s):
    return _like(s, s._vals.detach())


@_op("Tensor.detach_")
def detach_(s):
    s._vals = s._vals.detach()
    return s


@_op("Tensor.requires_grad_")
def requires_grad_(s, requires_grad=True):
    s._vals.requires_grad_(requires_grad)
    return s


@_op("Tensor.retain_grad")
def _retain_grad(s):
    s._vals.retain_grad()


@_op("Tensor.to")
def _to(s, *args, **kwargs):
    dtype = kwargs.get("dtype")
    for a in (*args, kwargs.get("device"), kwargs.get("other")):
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is not None:
            _check_device(a)
    if dtype is None or dtype == s._vals.dtype:
        return s if not kwargs.get("copy") else clone(s)
    return _like(s, s._vals.to(dtype))


def _cast(dtype):
    return lambda s, *a, **k: _like(s, s._vals.to(dtype))


for _name, _dt in (("double", _C.float64), ("float", _C.float32), ("half", _C.float16),
                   ("bfloat16", _C.bfloat16), ("long", _C.int64), ("int", _C.int32),
                   ("short", _C.int16), ("char", _C.int8), ("byte", _C.uint8),
                   ("bool", _C.bool), ("cfloat", _C.complex64), ("cdouble", _C.complex128)):
    _IMPL[f"Tensor.{_name}"] = _cast(_dt)


@_op("Tensor.type")
def _type(s, dtype=None, non_blocking=False):
    if dtype is None:
        return "torchlike.sparse." + s._vals.type().split(".")[-1]
    return _to(s, dtype)


@_op("Tensor.cpu", "Tensor.contiguous", "Tensor.coalesce_")
def _identity(s, *args, **kwargs):
    return s


@_op("zeros_like", "Tensor.new_zeros")
def zeros_like(s, *args, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False):
    dtype = dtype or s._vals.dtype
    if layout is not None and layout is not s._layout:
        raise RuntimeError(f"zeros_like: a sparse input keeps its layout here, got {layout}")
    if args:
        raise NotImplementedError("Could not run 'aten::new_zeros' with arguments from the "
                                  f"'{_backend(s._layout)}' backend.")
    if s._layout is sparse_coo:
        sdim = s._idx.shape[0]
        out = _coo(_C.zeros((sdim, 0), dtype=_int64),
                   _C.zeros((0,) + tuple(s._size[sdim:]), dtype=dtype), s._size, True)
    else:
        vals = _C.zeros((0,) + tuple(s._vals.shape[1:]), dtype=dtype)
        out = _compressed(s._layout, _C.zeros_like(s._cidx), s._pidx[:0], vals, s._size)
    if requires_grad:
        out._vals.requires_grad_(True)
    return out


@_op("Tensor.zero_")
def zero_(s):
    return _set(s, zeros_like(s))


@_op("Tensor.copy_")
def copy_(dst, src, non_blocking=False):
    if _sp(dst):
        if not _sp(src):
            raise RuntimeError("copy_ from a strided tensor into a sparse one: use "
                               "to_sparse() first")
        return _set(dst, _like(src, src._vals.to(dst._vals.dtype).clone()))
    # dense destination: the sparse source densified
    with _C.DisableTorchFunctionSubclass():
        return Tensor.copy_(dst, to_dense(src), non_blocking)


# ---- elementwise --------------------------------------------------------------------------

_LINEAR_UNARY = ("neg", "negative", "conj_physical", "positive")
# zero-preserving unary ops: f(0) == 0, so they act on the stored values
_UNARY = ("abs", "absolute", "asin", "arcsin", "asinh", "arcsinh", "atan", "arctan", "atanh",
          "arctanh", "ceil", "deg2rad", "erf", "erfinv", "expm1", "floor", "frac", "log1p",
          "rad2deg", "relu", "round", "sgn", "sign", "sin", "sinh", "sqrt", "square", "tan",
          "tanh", "trunc", "fix", "nan_to_num", "signbit", "isnan", "isinf", "isposinf",
          "isneginf", "angle")
def _unary(op, linear):
    def f(s, *args, **kwargs):
        src = s if linear or s._layout is not sparse_coo else coalesce(s)
        return _like(src, getattr(_C, op)(src._vals, *args, **kwargs))

    def f_(s, *args, **kwargs):
        if s._layout is sparse_coo and not linear and not s._coalesced:
            _set(s, coalesce(s))
        getattr(s._vals, op + "_")(*args, **kwargs)
        return s
    return f, f_


for _name in _LINEAR_UNARY + _UNARY:
    _f, _f_ = _unary(_name, _name in _LINEAR_UNARY)
    _IMPL[_name] = _IMPL[f"Tensor.{_name}"] = _f
    _IMPL[f"Tensor.{_name}_"] = _f_
_IMPL["Tensor.__neg__"] = _IMPL["neg"]
_IMPL["Tensor.__abs__"] = _IMPL["abs"]
_IMPL["Tensor.__pos__"] = _IMPL["positive"]
_IMPL["conj"] = _IMPL["Tensor.conj"] = _IMPL["conj_physical"]


def _is_scalar(x):
    return isinstance(x, numbers.Number) or (isinstance(x, Tensor) and not _sp(x) and x.ndim == 0)


def _same_size(op, a_size, b_size):
    if tuple(a_size) != tuple(b_size):
        raise RuntimeError(f"{op}: expected sizes of 'self' and 'other' to match, but "
                           f"{list(a_size)} != {list(b_size)}")


def _values_dtype(*xs):
    return _C.result_type(*(x._vals if _sp(x) else x for x in xs))


@_op("add", "Tensor.add", "Tensor.__add__", "Tensor.__radd__")
def add(a, b, *, alpha=1, out=None):
    if out is not None:
        raise RuntimeError("add: out= is not supported for sparse tensors here")
    if _sp(a) and _sp(b):
        if a._layout is not b._layout:
            raise RuntimeError(f"add: expected both operands in the same layout, got "
                               f"{a._layout} and {b._layout}")
        _same_size("add", a._size, b._size)
        if sparse_dim(a) != sparse_dim(b):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse "
                               f"dimensions, but got {sparse_dim(a)} and {sparse_dim(b)}")
        dt = _values_dtype(a, b)
        ca, cb = _coo_of(a), _coo_of(b)
        vb = cb._vals.to(dt) if alpha == 1 else cb._vals.to(dt) * alpha
        out = _coo(_C.cat([ca._idx, cb._idx], 1), _C.cat([ca._vals.to(dt), vb]), a._size)
        if ca._coalesced and cb._coalesced or a._layout is not sparse_coo:
            out = coalesce(out)
        return _back(out, a)
    if _sp(a):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    # dense + sparse -> dense
    _same_size("add", a.shape, b._size)
    cb = _coo_of(b)
    dt = _values_dtype(a, b)
    vb = cb._vals.to(dt) if alpha == 1 else cb._vals.to(dt) * alpha
    return _scatter_add(a.to(dt), cb, vb)


def _scatter_add(dense, coo, vals, inplace=False):
    if coo._idx.shape[0] == 0:
        return dense.add_(vals.sum(0)) if inplace else dense + vals.sum(0)
    key = tuple(coo._idx.unbind(0))
    if inplace:
        return dense.index_put_(key, vals, True)
    return dense.index_put(key, vals, True)


@_op("Tensor.add_", "Tensor.__iadd__")
def add_(a, b, *, alpha=1):
    if _sp(a):
        if _same_pattern(a, b):  # the stored values add in place (an optimizer's step)
            a._vals.add_(b._vals.to(a._vals.dtype), alpha=alpha)
            return a
        return _set(a, add(a, b, alpha=alpha))
    _same_size("add_", a.shape, b._size)
    cb = _coo_of(b)
    vb = cb._vals.to(a.dtype) if alpha == 1 else cb._vals.to(a.dtype) * alpha
    return _scatter_add(a, cb, vb, inplace=True)


def _same_pattern(a, b):
    """b is sparse and stores exactly a's entries, in a's order."""
    if not _sp(b) or a._layout is not b._layout or a._size != b._size:
        return False
    if a._layout is sparse_coo:
        return a._coalesced and b._coalesced and _equal(a._idx, b._idx)
    return _equal(a._cidx, b._cidx) and _equal(a._pidx, b._pidx)


def _equal(x, y):
    return x is y or (x.shape == y.shape and bool((x == y).all().item()))


@_op("sub", "Tensor.sub", "Tensor.__sub__", "subtract", "Tensor.subtract")
def sub(a, b, *, alpha=1):
    if _sp(a) and not _sp(b):
        raise RuntimeError("sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")
    return add(a, b, alpha=-alpha)


@_op("Tensor.__rsub__")
def _rsub(a, b):
    return add(b, a, alpha=-1) if not _sp(b) else sub(b, a)


@_op("Tensor.sub_", "Tensor.__isub__")
def sub_(a, b, *, alpha=1):
    return add_(a, b, alpha=-alpha)


def _intersect(a, b):
    """Entries stored in both coalesced COO tensors: (idx, positions in a, positions in b)."""
    sizes = a._size[:a._idx.shape[0]]
    la, lb = _linear(a._idx, sizes), _linear(b._idx, sizes)
    if lb.shape[0] == 0 or la.shape[0] == 0:
        empty = _C.zeros(0, dtype=_int64)
        return a._idx[:, :0], empty, empty
    pos = _C.searchsorted(lb, la).clamp(max=lb.shape[0] - 1)
    hit = lb[pos] == la
    pa = _C.nonzero(hit).reshape(-1)
    return a._idx[:, pa], pa, pos[pa]


@_op("mul", "Tensor.mul", "Tensor.__mul__", "Tensor.__rmul__", "multiply", "Tensor.multiply")
def mul(a, b):
    if not _sp(a):
        a, b = b, a
    if _is_scalar(b):
        return _like(a, a._vals * b)
    if _sp(b):
        if a._layout is not b._layout:
            raise RuntimeError(f"mul: expected both operands in the same layout, got "
                               f"{a._layout} and {b._layout}")
        _same_size("mul", a._size, b._size)
        ca, cb = coalesce(_coo_of(a)), coalesce(_coo_of(b))
        idx, pa, pb = _intersect(ca, cb)
        out = _coo(idx, ca._vals[pa] * cb._vals[pb], a._size, True)
        return _back(out, a)
    # sparse * dense: the dense factor read at the stored entries, pattern kept
    _same_size("mul", a._size, _C.broadcast_shapes(tuple(b.shape), a._size))
    d = b.expand(a._size)
    ca = _coo_of(a)
    picked = d[tuple(ca._idx.unbind(0))] if ca._idx.shape[0] else d.unsqueeze(0)
    return _back(_like(ca, ca._vals * picked), a)


@_op("Tensor.mul_", "Tensor.__imul__")
def mul_(a, b):
    if _sp(a) and _is_scalar(b):
        a._vals.mul_(b)
        return a
    if not _sp(a):
        raise RuntimeError("mul_(dense, sparse) would make the dense tensor sparse: use "
                           "dense.mul(sparse)")
    return _set(a, mul(a, b))


def _scalar_divisor(op, b):
    if not _is_scalar(b):
        shape = list(b._size) if _sp(b) else list(b.shape)
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor "
                           f"(got shape {shape} for divisor)")


@_op("div", "Tensor.div", "Tensor.__truediv__", "true_divide", "Tensor.true_divide", "divide",
     "Tensor.divide")
def div(a, b, *, rounding_mode=None):
    if not _sp(a):
        raise RuntimeError("div(dense, sparse) is not supported: the quotient is not sparse")
    _scalar_divisor("div", b)
    return _like(a, _C.div(a._vals, b, rounding_mode=rounding_mode))


@_op("Tensor.div_", "Tensor.__itruediv__", "Tensor.true_divide_")
def div_(a, b, *, rounding_mode=None):
    _scalar_divisor("div_", b)
    a._vals.div_(b, rounding_mode=rounding_mode)
    return a


@_op("pow", "Tensor.pow", "Tensor.__pow__")
def pow(a, exponent):
    if not _sp(a) or not isinstance(exponent, numbers.Number):
        raise RuntimeError("pow: a sparse tensor takes a scalar exponent only")
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make "
                           "the result tensor dense")
    src = coalesce(a) if a._layout is sparse_coo else a
    return _like(src, src._vals.pow(exponent))
