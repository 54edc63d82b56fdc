"""Sparse tensors made and converted: the factories with their invariant
checks, coalesce and the index arithmetic, to_dense / to_sparse_* between
the layouts, and the rebuild from a checkpoint."""
from .. import _C
from .._C import Tensor
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, strided
from .tensor import (
    SparseTensor, _BLOCKED, _COMPRESSED, _INDEX_NAMES, _ROW_MAJOR, _block, _compressed,
    _coo, _int64, _need)


def _as_tensor(x, dtype=None, name="values"):
    if isinstance(x, SparseTensor):
        raise TypeError(f"{name} must be a strided tensor, not a sparse one")
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype == dtype else x.to(dtype)
    return _C.tensor(x, dtype=dtype)


def _check_size(size):
    size = tuple(int(n) for n in size)
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}")
    return size


def _check_bounds(idx, size):
    """PyTorch's check_invariants for COO indices (always run here)."""
    if idx.shape[1] == 0:
        return
    lo = idx.amin(1).tolist()
    hi = idx.amax(1).tolist()
    for d, (a, b) in enumerate(zip(lo, hi)):
        if a < 0:
            raise RuntimeError(f"found negative index {a} for dim {d}")
        if b >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {b}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A COO tensor: ``values[k]`` sits at ``indices[:, k]`` (duplicates add)."""
    _check_device(device)
    idx = _as_tensor(indices, name="indices").to(_int64)  # float indices cast, as PyTorch
    vals = _as_tensor(values, dtype)
    if idx.ndim == 1 and size is not None and len(size) != idx.shape[0] + vals.ndim - 1:
        # PyTorch reads 1-D indices as one column of idx.shape[0] sparse dims
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                           f"len(size) = {len(size)}, sparse_dim = {idx.shape[0]}, dense_dim = "
                           f"{vals.ndim - 1}")
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if vals.ndim == 0:
        raise RuntimeError("values must be at least 1-dimensional (nnz x dense dims)")
    nnz, sdim = idx.shape[1], idx.shape[0]
    if vals.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {vals.shape[0]}")
    dense = tuple(vals.shape[1:])
    if size is None:
        sp = tuple(idx.amax(1).add(1).tolist()) if nnz else (0,) * sdim
        size = sp + dense
    size = _check_size(size)
    if len(size) != sdim + len(dense):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                           f"len(size) = {len(size)}, sparse_dim = {sdim}, dense_dim = "
                           f"{len(dense)}")
    if tuple(size[sdim:]) != dense:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sdim:]]}, got "
                           f"{[nnz, *dense]}")
    _check_bounds(idx, size)
    if requires_grad and not vals.requires_grad:
        vals = vals.detach().requires_grad_(True)
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return _coo(idx, vals, size, coalesced)


def _check_device(device):
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"sparse tensors are CPU-only in torchlike, got device {device}")


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                             layout=None, device=None, pin_memory=False, requires_grad=False,
                             check_invariants=None):
    """A CSR, CSC, BSR or BSC tensor (``layout``) from its three tensors."""
    if layout not in _COMPRESSED:
        raise RuntimeError(f"sparse_compressed_tensor: expected a sparse compressed layout, "
                           f"got {layout}")
    _check_device(device)
    cidx = _as_tensor(compressed_indices, name="compressed_indices").to(_int64)
    pidx = _as_tensor(plain_indices, name="plain_indices").to(_int64)
    vals = _as_tensor(values, dtype)
    cname, pname = _INDEX_NAMES[layout]
    if cidx.ndim != 1 or pidx.ndim != 1:
        raise RuntimeError(f"{cname} and {pname} must be 1-D here (torchlike has no batch "
                           f"dimensions in compressed layouts), got {cname} of shape "
                           f"{list(cidx.shape)} and {pname} of shape {list(pidx.shape)}")
    blocked = layout in _BLOCKED
    if vals.ndim < (3 if blocked else 1):
        raise RuntimeError(f"values must be at least {3 if blocked else 1}-dimensional for "
                           f"{layout}, got {vals.ndim}")
    nnz = pidx.shape[0]
    if vals.shape[0] != nnz:
        raise RuntimeError(f"{pname} and values must have the same number of elements, but "
                           f"got {pname}.numel(): {nnz}, values.numel(): {vals.shape[0]}")
    block = tuple(vals.shape[1:3]) if blocked else (1, 1)
    dense = tuple(vals.shape[3:] if blocked else vals.shape[1:])
    ncomp = cidx.shape[0] - 1
    if size is None:
        nplain = int(pidx.max().item()) + 1 if nnz else 0
        nrow, ncol = (ncomp, nplain) if layout in _ROW_MAJOR else (nplain, ncomp)
        size = (nrow * block[0], ncol * block[1]) + dense
    size = _check_size(size)
    if len(size) != 2 + len(dense) or tuple(size[2:]) != dense:
        raise RuntimeError(f"size {list(size)} does not match values of shape "
                           f"{list(vals.shape)} for {layout}")
    if size[0] % block[0] or size[1] % block[1]:
        raise RuntimeError(f"size {list(size[:2])} is not divisible by blocksize {list(block)}")
    nrow, ncol = size[0] // block[0], size[1] // block[1]
    ncomp_want, nplain = (nrow, ncol) if layout in _ROW_MAJOR else (ncol, nrow)
    if ncomp != ncomp_want:
        raise RuntimeError(f"{cname}.shape[-1] must be equal to {ncomp_want} + 1, but got: "
                           f"{ncomp + 1}")
    c = cidx.tolist()
    if c[0] != 0:
        raise RuntimeError(f"`{cname}[..., 0] == 0` is not satisfied.")
    if c[-1] != nnz:
        raise RuntimeError(f"`{cname}[..., -1] == nnz` is not satisfied.")
    if any(b < a for a, b in zip(c, c[1:])):
        raise RuntimeError(f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= "
                           f"{pname.split('_')[0]}s` is not satisfied.")
    if nnz:
        lo, hi = int(pidx.min().item()), int(pidx.max().item())
        if lo < 0 or hi >= nplain:
            raise RuntimeError(f"`0 <= {pname} < n{pname.split('_')[0]}s` is not satisfied.")
        seg = _C.repeat_interleave(_C.arange(ncomp), cidx.diff())
        key = seg * max(nplain, 1) + pidx
        if bool((key.diff() <= 0).any().item()):
            raise RuntimeError(f"`{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for all i = "
                               f"1, ..., nrows are sorted and distinct along the last dimension "
                               f"values` is not satisfied.")
    if requires_grad and not vals.requires_grad:
        vals = vals.detach().requires_grad_(True)
    return _compressed(layout, cidx, pidx, vals, size)


def _compressed_factory(layout):
    cname, pname = _INDEX_NAMES[layout]

    def factory(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                device=None, pin_memory=False, requires_grad=False, check_invariants=None):
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size,
                                        dtype=dtype, layout=layout, device=device,
                                        requires_grad=requires_grad)
    factory.__name__ = f"sparse_{layout._name.split('_')[1]}_tensor"
    factory.__qualname__ = factory.__name__
    factory.__doc__ = f"A {layout._name.split('_')[1].upper()} tensor from {cname}, {pname} " \
                      f"and values (sparse_compressed_tensor with layout={layout})."
    factory.__module__ = "torchlike._sparse"
    return factory


sparse_csr_tensor = _compressed_factory(sparse_csr)
sparse_csc_tensor = _compressed_factory(sparse_csc)
sparse_bsr_tensor = _compressed_factory(sparse_bsr)
sparse_bsc_tensor = _compressed_factory(sparse_bsc)


# ---- index arithmetic --------------------------------------------------------------------

def _strides(sizes):
    out, acc = [], 1
    for n in reversed(sizes):
        out.append(acc)
        acc *= max(int(n), 1)
    return out[::-1]


def _linear(idx, sizes):
    """Row-major linear index of each column of idx (sparse_dim, nnz)."""
    if idx.shape[0] == 0:
        return _C.zeros(idx.shape[1], dtype=_int64)
    st = _C.tensor(_strides(sizes), dtype=_int64).unsqueeze(1)
    return (idx * st).sum(0)


def _unravel(lin, sizes):
    rows = []
    for s in _strides(sizes):
        rows.append(_C.div(lin, s, rounding_mode="floor"))
        lin = lin - rows[-1] * s
    return _C.stack(rows) if rows else _C.zeros((0, lin.shape[0]), dtype=_int64)


def coalesce(s):
    """Duplicates summed, indices sorted (row-major), as PyTorch's coalesce."""
    _need(s, "coalesce", (sparse_coo,))
    if s._coalesced:
        return s
    idx, vals = s._idx, s._vals
    sdim, nnz = idx.shape
    if nnz == 0:
        return _coo(idx, vals, s._size, True)
    if sdim == 0:
        return _coo(_C.zeros((0, 1), dtype=_int64), vals.sum(0, keepdim=True), s._size, True)
    sizes = s._size[:sdim]
    lin = _linear(idx, sizes)
    uniq, inv = _C.unique(lin, sorted=True, return_inverse=True)
    summed = _C.zeros((uniq.shape[0],) + tuple(vals.shape[1:]), dtype=vals.dtype).index_add(
        0, inv, vals)
    return _coo(_unravel(uniq, sizes), summed, s._size, True)


def _compressed_rows_cols(s):
    """The (block) row and column of each stored entry of a compressed tensor."""
    ncomp = s._cidx.shape[0] - 1
    expanded = _C.repeat_interleave(_C.arange(ncomp), s._cidx.diff())
    return (expanded, s._pidx) if s._layout in _ROW_MAJOR else (s._pidx, expanded)


# ---- conversions -------------------------------------------------------------------------

def to_dense(s, dtype=None, *, masked_grad=None):
    """The strided tensor holding s's values (duplicates added)."""
    if not isinstance(s, SparseTensor):
        return s if dtype is None else s.to(dtype)
    vals = s._vals if dtype is None else s._vals.to(dtype)
    if s._layout is sparse_coo:
        sdim = s._idx.shape[0]
        if sdim == 0:
            return vals.sum(0) if vals.shape[0] else _C.zeros(s._size, dtype=vals.dtype)
        out = _C.zeros(s._size, dtype=vals.dtype)
        return out.index_put(tuple(s._idx.unbind(0)), vals, True)
    rows, cols = _compressed_rows_cols(s)
    if s._layout not in _BLOCKED:
        return _C.zeros(s._size, dtype=vals.dtype).index_put((rows, cols), vals, True)
    br, bc = _block(s)
    nr, nc = s._size[0] // br, s._size[1] // bc
    dense = tuple(s._size[2:])
    blocks = _C.zeros((nr, nc, br, bc) + dense, dtype=vals.dtype).index_put((rows, cols), vals,
                                                                            True)
    return blocks.transpose(1, 2).reshape(s._size)


def _dense_to_coo(x, sparse_dim=None):
    sdim = x.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sdim <= x.ndim:
        raise RuntimeError(f"sparse_dim must be in [0, {x.ndim}], got {sdim}")
    if sdim == 0:
        return _coo(_C.zeros((0, 1), dtype=_int64), x.unsqueeze(0), x.shape, True)
    mask = x != 0
    if x.ndim > sdim:
        mask = mask.reshape(tuple(x.shape[:sdim]) + (-1,)).any(-1)
    idx = _C.nonzero(mask).t().contiguous()
    vals = x[tuple(idx.unbind(0))]
    return _coo(idx, vals, x.shape, True)


def _to_layout(x, layout, blocksize=None, dense_dim=None):
    """x (strided or sparse) in layout."""
    cur = x._layout if isinstance(x, SparseTensor) else strided
    if layout is cur and (layout not in _BLOCKED or blocksize is None
                          or tuple(blocksize) == _block(x)):
        return x
    if layout is strided:
        return to_dense(x)
    if layout is sparse_coo:
        if cur is strided:
            return _dense_to_coo(x, None if dense_dim is None else x.ndim - dense_dim)
        rows, cols = _compressed_rows_cols(x)
        if cur not in _BLOCKED:
            coo = _coo(_C.stack([rows, cols]), x._vals, x._size,
                       cur in _ROW_MAJOR)
            return coo if cur in _ROW_MAJOR else coalesce(coo)
        return _dense_to_coo(to_dense(x), 2)
    # a compressed layout
    if layout in _BLOCKED:
        if blocksize is None:
            if cur in _BLOCKED:
                blocksize = _block(x)
            else:
                raise RuntimeError(f"to_sparse for {layout} requires blocksize")
        return _dense_to_blocked(to_dense(x) if cur is not strided else x, layout,
                                 tuple(blocksize), dense_dim)
    if cur is strided:
        if x.ndim < 2:
            raise RuntimeError(f"to_sparse: expected a tensor of at least 2 dims for {layout}, "
                               f"got {x.ndim}")
        coo = _dense_to_coo(x, 2 if dense_dim is None else x.ndim - dense_dim)
    elif cur is sparse_coo:
        if x._idx.shape[0] != 2:
            raise RuntimeError(f"Only tensors with two sparse dimensions can be converted to "
                               f"{layout}, got self with {x._idx.shape[0]} sparse dimensions.")
        coo = coalesce(x)
    else:
        coo = _to_layout(x, sparse_coo)
    if coo._idx.shape[0] != 2:
        raise RuntimeError(f"to_sparse: {layout} needs 2 sparse dimensions, got "
                           f"{coo._idx.shape[0]}")
    rows, cols = coo._idx[0], coo._idx[1]
    vals = coo._vals
    m, n = coo._size[0], coo._size[1]
    if layout is sparse_csc:
        order = _C.argsort(cols * max(m, 1) + rows)
        rows, cols, vals = rows[order], cols[order], vals[order]
        comp, plain, ncomp = cols, rows, n
    else:
        comp, plain, ncomp = rows, cols, m
    cidx = _C.searchsorted(comp.contiguous(), _C.arange(ncomp + 1))
    return _compressed(layout, cidx, plain, vals, coo._size)


def _dense_to_blocked(x, layout, blocksize, dense_dim):
    br, bc = blocksize
    m, n = x.shape[0], x.shape[1]
    if m % br or n % bc:
        raise RuntimeError(f"Tensor size({m}, {n}) needs to be divisible by blocksize "
                           f"({br}, {bc})")
    dense = tuple(x.shape[2:])
    blocks = x.reshape((m // br, br, n // bc, bc) + dense).transpose(1, 2)
    mask = (blocks != 0).reshape((m // br, n // bc, -1)).any(-1)
    if layout is sparse_bsc:
        nz = _C.nonzero(mask.t())
        cols, rows = nz[:, 0], nz[:, 1]
        comp, plain, ncomp = cols, rows, n // bc
    else:
        nz = _C.nonzero(mask)
        rows, cols = nz[:, 0], nz[:, 1]
        comp, plain, ncomp = rows, cols, m // br
    vals = blocks[rows, cols]
    cidx = _C.searchsorted(comp.contiguous(), _C.arange(ncomp + 1))
    return _compressed(layout, cidx, plain.contiguous(), vals, x.shape)


def to_sparse(x, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """x in a sparse layout: ``to_sparse(sparse_dim)`` or ``to_sparse(layout=...)``."""
    if layout is None or layout is sparse_coo:
        if isinstance(x, SparseTensor):
            if x._layout is sparse_coo and sparse_dim is not None \
                    and sparse_dim != x._idx.shape[0]:
                return _dense_to_coo(to_dense(x), sparse_dim)
            return _to_layout(x, sparse_coo)
        return _dense_to_coo(x, sparse_dim if dense_dim is None else x.ndim - dense_dim)
    return _to_layout(x, layout, blocksize, dense_dim)


def to_sparse_coo(x):
    return to_sparse(x)


def to_sparse_csr(x, dense_dim=None):
    return _to_layout(x, sparse_csr, dense_dim=dense_dim)


def to_sparse_csc(x, dense_dim=None):
    return _to_layout(x, sparse_csc, dense_dim=dense_dim)


def to_sparse_bsr(x, blocksize, dense_dim=None):
    return _to_layout(x, sparse_bsr, blocksize, dense_dim)


def to_sparse_bsc(x, blocksize, dense_dim=None):
    return _to_layout(x, sparse_bsc, blocksize, dense_dim)


def _coo_of(x):
    """A COO view of x's entries (compressed layouts converted; COO as is)."""
    return x if x._layout is sparse_coo else _to_layout(x, sparse_coo)


def _back(result_coo, like, layout=None, blocksize=None):
    """A COO result put back in the layout of the input `like` (or layout),
    with like's blocksize (or blocksize) for BSR/BSC: there the block
    pattern is that of the result's nonzero values."""
    layout = like._layout if layout is None else layout
    if layout is sparse_coo:
        return result_coo
    if layout in _BLOCKED:
        return _to_layout(result_coo, layout, blocksize or _block(like))
    return _to_layout(result_coo, layout)


def _rebuild_sparse_tensor(layout_name, data, requires_grad=False):
    """A sparse tensor from its pickled parts (SparseTensor.__reduce_ex__)."""
    from .. import _layout
    layout = getattr(_layout, layout_name)
    if layout is sparse_coo:
        idx, vals, size, coalesced = data
        out = sparse_coo_tensor(idx, vals, size, is_coalesced=coalesced)
    else:
        cidx, pidx, vals, size = data
        out = sparse_compressed_tensor(cidx, pidx, vals, size, layout=layout)
    if requires_grad:
        out._vals.requires_grad_(True)
    return out
