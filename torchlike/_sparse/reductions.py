"""Sums, norms and softmaxes of sparse tensors."""
from .. import _C
from .tensor import _IMPL, _coo, _int64, _like, _op, _sp, _wrap_dim
from .create import _coo_of, _linear, coalesce


# ---- reductions ---------------------------------------------------------------------------

@_op("sum", "Tensor.sum", "sparse.sum")
def sum(s, dim=None, keepdim=False, *, dtype=None):
    """Without dim: a dense 0-d sum.  With dims: the stored entries summed
    over them, sparse while sparse dims remain (torch.sparse.sum)."""
    if not _sp(s):
        return s.sum(dtype=dtype) if dim is None else s.sum(dim, keepdim, dtype=dtype)
    if keepdim:
        raise RuntimeError("sum: keepdim=True is not supported for sparse tensors")
    vals = s._vals if dtype is None else s._vals.to(dtype)
    if dim is None:
        return vals.sum()
    c = _coo_of(s)
    nd = len(c._size)
    dims = sorted({_wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)})
    sdim = c._idx.shape[0]
    sp = [d for d in dims if d < sdim]
    dn = [d - sdim + 1 for d in dims if d >= sdim]
    if dn:
        vals = vals.sum(dn)
    keep = [d for d in range(sdim) if d not in sp]
    size = tuple(c._size[d] for d in range(nd) if d not in dims)
    if not keep:
        return vals.sum(0)
    out = _coo(c._idx[keep], vals, size)
    return coalesce(out)


def _vector_norm(s, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if dim is not None:
        raise RuntimeError("vector_norm: dim= is not supported for sparse tensors")
    from .. import linalg
    return linalg.vector_norm(coalesce(_coo_of(s))._vals, ord, dtype=dtype)


_IMPL["linalg.vector_norm"] = _vector_norm


@_op("norm", "Tensor.norm")
def _norm(s, p="fro", dim=None, keepdim=False, dtype=None):
    return _vector_norm(s, 2 if p == "fro" else p, dim, keepdim, dtype=dtype)


def _softmax(s, dim, dtype=None, log=False):
    """Softmax over the stored entries along dim (absent entries are -inf)."""
    if not _sp(s):
        return (_C.log_softmax if log else _C.softmax)(s, dim, dtype=dtype)
    c = coalesce(_coo_of(s))
    nd = len(c._size)
    dim = _wrap_dim(dim, nd)
    vals = c._vals if dtype is None else c._vals.to(dtype)
    sdim = c._idx.shape[0]
    if dim >= sdim:  # a dense dim: the ordinary softmax of the values
        f = _C.log_softmax if log else _C.softmax
        return _like(c, f(vals, dim - sdim + 1))
    others = [d for d in range(sdim) if d != dim]
    group = _linear(c._idx[others], [c._size[d] for d in others]) if others else \
        _C.zeros(c._idx.shape[1], dtype=_int64)
    _, group = _C.unique(group, return_inverse=True)
    ngroups = int(group.max().item()) + 1 if group.shape[0] else 0
    shape = (ngroups,) + tuple(vals.shape[1:])
    gidx = group.reshape((-1,) + (1,) * (vals.ndim - 1)).expand(vals.shape)
    top = _C.zeros(shape, dtype=vals.dtype).scatter_reduce(0, gidx, vals.detach(), "amax",
                                                            include_self=False)
    shifted = vals - top[group]
    total = _C.zeros(shape, dtype=vals.dtype).index_add(0, group, shifted.exp())
    out = shifted - total.log()[group] if log else shifted.exp() / total[group]
    return _like(c, out)


@_op("sparse.softmax", "softmax", "Tensor.softmax", "_sparse_softmax")
def softmax(s, dim, dtype=None):
    return _softmax(s, dim, dtype)


@_op("sparse.log_softmax", "log_softmax", "Tensor.log_softmax", "_sparse_log_softmax")
def log_softmax(s, dim, dtype=None):
    return _softmax(s, dim, dtype, log=True)
