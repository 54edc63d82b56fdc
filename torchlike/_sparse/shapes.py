"""Shape and selection ops of sparse tensors: transpose/permute,
narrow_copy, index_select, sparse_mask, sparse_resize_, spdiags, and for COO
unsqueeze, cat, stack, select and integer indexing."""
from .. import _C
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc
from .tensor import (
    _BLOCKED, _COMPRESSED, _backend, _compressed, _coo, _int64, _need, _op, _set, _sp,
    _wrap_dim, dense_dim, sparse_dim)
from .create import _back, _check_size, _coo_of, _to_layout, coalesce, to_dense
from .elementwise import _same_size


# ---- shapes and selection -----------------------------------------------------------------

@_op("transpose", "Tensor.transpose", "swapaxes", "Tensor.swapaxes", "swapdims",
     "Tensor.swapdims")
def transpose(s, dim0, dim1):
    nd = len(s._size)
    d0, d1 = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    if s._layout in _COMPRESSED:
        if {d0, d1} != {0, 1}:
            raise RuntimeError(f"transpose(): {s._layout} supports swapping its two sparse "
                               f"dimensions only, got {dim0} and {dim1}")
        flip = {sparse_csr: sparse_csc, sparse_csc: sparse_csr, sparse_bsr: sparse_bsc,
                sparse_bsc: sparse_bsr}[s._layout]
        vals = s._vals.transpose(1, 2) if s._layout in _BLOCKED else s._vals
        size = (s._size[1], s._size[0]) + tuple(s._size[2:])
        return _compressed(flip, s._cidx, s._pidx, vals, size)
    perm = list(range(nd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute(s, perm)


@_op("Tensor.t", "t")
def t(s):
    if len(s._size) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                           f"got {sparse_dim(s)} sparse and {dense_dim(s)} dense dimensions")
    return s if len(s._size) < 2 else transpose(s, 0, 1)


@_op("Tensor.t_", "Tensor.transpose_")
def t_(s, dim0=0, dim1=1):
    return _set(s, transpose(s, dim0, dim1))


@_op("permute", "Tensor.permute")
def permute(s, *dims):
    _need(s, "permute", (sparse_coo,))
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    nd = len(s._size)
    dims = [_wrap_dim(d, nd) for d in dims]
    if sorted(dims) != list(range(nd)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    sdim = s._idx.shape[0]
    if sorted(dims[:sdim]) != list(range(sdim)):
        raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense "
                           "dimensions are not allowed. Only transpositions within sparse and "
                           "dense dimensions are supported.")
    idx = s._idx[list(dims[:sdim])] if sdim else s._idx
    vals = s._vals.permute([0] + [d - sdim + 1 for d in dims[sdim:]])
    size = tuple(s._size[d] for d in dims)
    keeps = dims[:sdim] == list(range(sdim))
    return _coo(idx, vals, size, s._coalesced and keeps)


@_op("narrow_copy", "Tensor.narrow_copy")
def narrow_copy(s, dim, start, length):
    c = _coo_of(s)
    nd = len(c._size)
    dim = _wrap_dim(dim, nd)
    start = int(start) + (c._size[dim] if int(start) < 0 else 0)
    if start < 0 or length < 0 or start + length > c._size[dim]:
        raise IndexError(f"start ({start}) + length ({length}) exceeds dimension size "
                         f"({c._size[dim]}).")
    size = list(c._size)
    size[dim] = length
    sdim = c._idx.shape[0]
    if dim >= sdim:
        out = _coo(c._idx, c._vals.narrow(dim - sdim + 1, start, length), size, c._coalesced)
    else:
        keep = _C.nonzero((c._idx[dim] >= start) & (c._idx[dim] < start + length)).reshape(-1)
        idx = c._idx[:, keep].clone()
        idx[dim] -= start
        out = _coo(idx, c._vals[keep], size, c._coalesced)
    return _back(out, s)


@_op("index_select", "Tensor.index_select")
def index_select(s, dim, index):
    _need(s, "index_select", (sparse_coo,))
    nd = len(s._size)
    dim = _wrap_dim(dim, nd)
    index = index.to(_int64).reshape(-1)
    n = s._size[dim]
    if index.shape[0] and (int(index.min().item()) < -n or int(index.max().item()) >= n):
        raise IndexError(f"index_select(): index out of range for dimension {dim} of size {n}")
    index = _C.where(index < 0, index + n, index)
    size = list(s._size)
    size[dim] = index.shape[0]
    sdim = s._idx.shape[0]
    if dim >= sdim:
        return _coo(s._idx, s._vals.index_select(dim - sdim + 1, index), size, s._coalesced)
    # entries sorted by their index along dim; for each picked k the run equal to index[k]
    key = s._idx[dim]
    order = _C.argsort(key, stable=True)
    skey = key[order]
    lo = _C.searchsorted(skey, index)
    cnt = _C.searchsorted(skey, index, right=True) - lo
    k = _C.repeat_interleave(_C.arange(index.shape[0]), cnt)
    pos = order[lo[k] + _C.arange(k.shape[0]) - (_C.cumsum(cnt, 0) - cnt)[k]]
    idx = s._idx[:, pos].clone()
    idx[dim] = k
    return _coo(idx, s._vals[pos], size)


@_op("Tensor.sparse_mask")
def sparse_mask(x, mask):
    """x's values at mask's stored entries, in mask's layout and (coalesced) pattern."""
    if not _sp(mask):
        raise RuntimeError("sparse_mask: expected mask to be a sparse tensor")
    m = coalesce(_coo_of(mask))
    _same_size("sparse_mask", tuple(x._size if _sp(x) else x.shape), m._size)
    d = to_dense(x)
    picked = d[tuple(m._idx.unbind(0))] if m._idx.shape[0] else d.unsqueeze(0)
    return _back(_coo(m._idx, picked, m._size, True), mask)


@_op("Tensor.sparse_resize_and_clear_")
def sparse_resize_and_clear_(s, size, sparse_dim_, dense_dim_):
    _need(s, "sparse_resize_and_clear_", (sparse_coo,))
    s._idx = _C.zeros((s._idx.shape[0], 0), dtype=_int64)
    s._vals = _C.zeros((0,) + tuple(s._vals.shape[1:]), dtype=s._vals.dtype)
    return sparse_resize_(s, size, sparse_dim_, dense_dim_)


@_op("Tensor.sparse_resize_")
def sparse_resize_(s, size, sparse_dim_, dense_dim_):
    _need(s, "sparse_resize_", (sparse_coo,))
    size = _check_size(size)
    if len(size) != sparse_dim_ + dense_dim_:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim_}) + "
                           f"dense_dim ({dense_dim_}), but got {len(size)}")
    if s._vals.requires_grad and s._vals.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    nnz = s._vals.shape[0]
    if nnz and (sparse_dim_ != s._idx.shape[0] or dense_dim_ != dense_dim(s)
                or tuple(size[sparse_dim_:]) != tuple(s._size[s._idx.shape[0]:])):
        raise RuntimeError("resizing a sparse tensor with stored entries keeps its sparse and "
                           "dense dimensions and its dense sizes (call sparse_resize_and_clear_ "
                           "to change them)")
    if nnz and any(a < b for a, b in zip(size[:sparse_dim_], s._size[:sparse_dim_])):
        raise RuntimeError("shrinking the size of dimensions (from "
                           f"{list(s._size[:sparse_dim_])} to {list(size[:sparse_dim_])}) on a "
                           "non-empty sparse tensor is not supported.")
    if nnz == 0:
        s._idx = _C.zeros((sparse_dim_, 0), dtype=_int64)
        s._vals = _C.zeros((0,) + tuple(size[sparse_dim_:]), dtype=s._vals.dtype)
    s._size = size
    return s


def spdiags(diagonals, offsets, shape, layout=None):
    """The sparse (COO unless layout) matrix of shape with diagonals[i]
    along diagonal offsets[i] (column j of a row of diagonals sits in column j)."""
    if diagonals.ndim != 2:
        raise ValueError(f"Diagonals must be 2-dimensional, got {diagonals.ndim}")
    offsets = offsets.to(_int64).reshape(-1)
    if offsets.shape[0] != diagonals.shape[0]:
        raise ValueError(f"Number of diagonals ({diagonals.shape[0]}) does not match the "
                         f"number of offsets ({offsets.shape[0]})")
    m, n = int(shape[0]), int(shape[1])
    rows, cols, picks = [], [], []
    for i, off in enumerate(offsets.tolist()):
        c0, c1 = max(0, off), min(n, m + off, diagonals.shape[1])
        if c1 <= c0:
            continue
        c = _C.arange(c0, c1)
        rows.append(c - off)
        cols.append(c)
        picks.append(diagonals[i, c0:c1])
    if rows:
        idx = _C.stack([_C.cat(rows), _C.cat(cols)])
        vals = _C.cat(picks)
    else:
        idx, vals = _C.zeros((2, 0), dtype=_int64), diagonals.reshape(-1)[:0]
    out = _coo(idx, vals, (m, n))
    return out if layout in (None, sparse_coo) else _to_layout(out, layout)


@_op("unsqueeze", "Tensor.unsqueeze")
def unsqueeze(s, dim):
    _need(s, "unsqueeze", (sparse_coo,))
    nd = len(s._size)
    dim = _wrap_dim(dim, nd + 1)
    sdim = s._idx.shape[0]
    size = s._size[:dim] + (1,) + s._size[dim:]
    if dim <= sdim:  # a new sparse dim: index 0 everywhere
        zero = _C.zeros((1, s._idx.shape[1]), dtype=_int64)
        idx = _C.cat([s._idx[:dim], zero, s._idx[dim:]])
        return _coo(idx, s._vals, size)  # PyTorch marks it uncoalesced
    return _coo(s._idx, s._vals.unsqueeze(dim - sdim + 1), size, s._coalesced)


@_op("cat", "concat", "concatenate")
def cat(tensors, dim=0):
    """COO tensors joined along dim: along a sparse dim the indices are
    shifted by the sizes before; along a dense dim each tensor's values are
    padded with zeros where the others' go (PyTorch's result)."""
    tensors = list(tensors)
    for x in tensors:
        _need(x, "cat", (sparse_coo,))
    first = tensors[0]
    nd, sdim = len(first._size), first._idx.shape[0]
    dim = _wrap_dim(dim, nd)
    for pos, x in enumerate(tensors):
        if len(x._size) != nd or any(a != b for d, (a, b) in enumerate(zip(x._size, first._size))
                                     if d != dim):
            raise RuntimeError(f"All tensors must have the same shape: {list(first._size)} "
                               f"(except in the concatenating dimension), but found shape: "
                               f"{list(x._size)} at position {pos}.")
        if x._idx.shape[0] != sdim:
            raise RuntimeError(f"cat: sparse tensors must have the same sparse_dim, got "
                               f"{sdim} and {x._idx.shape[0]} at position {pos}")
    total = sum(x._size[dim] for x in tensors)
    size = first._size[:dim] + (total,) + first._size[dim + 1:]
    dt = _C.result_type(*(x._vals for x in tensors))
    idx, vals, offset = [], [], 0
    for x in tensors:
        v = x._vals.to(dt)
        if dim < sdim:
            i = x._idx.clone()
            i[dim] += offset
        else:  # zeros before and after this tensor's block of the dense dim
            i, vd = x._idx, dim - sdim + 1
            shape = list(v.shape)
            before, after = list(shape), list(shape)
            before[vd], after[vd] = offset, total - offset - x._size[dim]
            v = _C.cat([_C.zeros(before, dtype=dt), v, _C.zeros(after, dtype=dt)], vd)
        idx.append(i)
        vals.append(v)
        offset += x._size[dim]
    return _coo(_C.cat(idx, 1), _C.cat(vals), size)


@_op("stack")
def stack(tensors, dim=0):
    tensors = list(tensors)
    for x in tensors:
        _need(x, "stack", (sparse_coo,))
    return cat([unsqueeze(x, dim) for x in tensors], dim)


@_op("select", "Tensor.select")
def select(s, dim, index):
    """The slice at index along dim: a sparse dim fewer (a dense tensor, the
    values summed, once none is left) or a dense dim fewer."""
    _need(s, "select", (sparse_coo,))
    nd = len(s._size)
    dim = _wrap_dim(dim, nd)
    n = s._size[dim]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {n}")
    index %= n
    sdim = s._idx.shape[0]
    size = s._size[:dim] + s._size[dim + 1:]
    if dim >= sdim:
        return _coo(s._idx, s._vals.select(dim - sdim + 1, index), size, s._coalesced)
    keep = _C.nonzero(s._idx[dim] == index).reshape(-1)
    rows = [d for d in range(sdim) if d != dim]
    idx = s._idx[rows][:, keep] if rows else _C.zeros((0, keep.shape[0]), dtype=_int64)
    out = _coo(idx, s._vals[keep], size, s._coalesced)
    return out if rows else to_dense(out)


@_op("Tensor.__getitem__")
def _getitem(s, key):
    if isinstance(key, int) and not isinstance(key, bool):
        return select(s, 0, key)
    raise NotImplementedError(f"Could not run 'aten::as_strided' with arguments from the "
                              f"'{_backend(s._layout)}' backend: a sparse tensor takes an "
                              f"integer index only, got {type(key).__name__}")
