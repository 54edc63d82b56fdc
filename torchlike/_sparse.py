"""Sparse tensors: the COO and compressed (CSR, CSC, BSR, BSC) layouts
(docs/sparse.md).

A sparse tensor is a :class:`SparseTensor`, a Tensor subclass that holds
plain tensors: COO keeps ``_idx`` (sparse_dim, nnz) int64 and ``_vals``
(nnz, *dense_shape); the compressed layouts keep ``_cidx`` (compressed
indices), ``_pidx`` (plain indices) and ``_vals``.  Its own dense storage is
a placeholder (one zero expanded to the shape, so that shape checks in C pass)
and is never read as data: every function, method, operator and property
reached with a sparse argument goes through ``SparseTensor.__torch_function__``,
which runs the sparse implementation registered for it (``_IMPL``) or raises
PyTorch's NotImplementedError naming the op and the backend.

Every implementation is written with dense ops on the index and value
tensors, so the autograd tape differentiates through ``_vals``: gradients
reach the values of sparse inputs and the dense operands."""
import functools
import math
import numbers

import numpy as np

from . import _C
from ._C import Tensor
from ._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, strided

_int64 = _C.int64
_COMPRESSED = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
_ROW_MAJOR = (sparse_csr, sparse_bsr)      # compressed rows (crow/col)
_BLOCKED = (sparse_bsr, sparse_bsc)
_INDEX_NAMES = {sparse_csr: ("crow_indices", "col_indices"),
                sparse_bsr: ("crow_indices", "col_indices"),
                sparse_csc: ("ccol_indices", "row_indices"),
                sparse_bsc: ("ccol_indices", "row_indices")}


class SparseTensor(Tensor):
    """A tensor in a sparse layout (see the module docstring)."""

    # read by the C buffer protocol, which refuses to export such a tensor
    _tl_placeholder_storage = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from .overrides import resolve_name
        kwargs = kwargs or {}
        full = resolve_name(func) or getattr(func, "__name__", str(func))
        name = full[len("torchlike."):] if full.startswith("torchlike.") else full
        impl = _IMPL.get(name)
        if impl is None:
            raise NotImplementedError(_not_implemented(name, args, kwargs))
        return impl(*args, **kwargs)

    # pickling (torchlike.save and pickle): rebuilt from the index and value tensors
    def __reduce_ex__(self, proto):
        if self._layout is sparse_coo:
            data = (self._idx, self._vals.detach(), self._size, self._coalesced)
        else:
            data = (self._cidx, self._pidx, self._vals.detach(), self._size)
        return _rebuild_sparse_tensor, (self._layout._name, data, self._vals.requires_grad)

    # Entry points that are not routed by __torch_function__ and would read
    # the placeholder storage: refused.
    @property
    def __array_struct__(self):
        raise TypeError(_NO_NUMPY.format("Sparse" if self._layout is sparse_coo else "SparseCsr"))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_NO_NUMPY.format("Sparse" if self._layout is sparse_coo else "SparseCsr"))

    def __dlpack__(self, *args, **kwargs):
        raise RuntimeError("Cannot pack tensors on sparse layouts: call to_dense() first")

    def __dlpack_device__(self):
        raise RuntimeError("Cannot pack tensors on sparse layouts: call to_dense() first")

    def as_subclass(self, cls):
        raise RuntimeError(f"as_subclass: a {self._layout} tensor has no strided data to "
                           f"share; call to_dense() first")

    def __deepcopy__(self, memo):
        out = _like(self, self._vals.detach().clone())
        if self._vals.requires_grad:
            out._vals.requires_grad_(True)
        memo[id(self)] = out
        return out


def _backend(layout):
    return "SparseCPU" if layout is sparse_coo else "SparseCsrCPU"


def _not_implemented(name, args, kwargs):
    layout = next(a._layout for a in (*args, *kwargs.values(), *_flat(args))
                  if isinstance(a, SparseTensor))
    op = name.rsplit(".", 1)[-1]
    if op.startswith("__") and op.endswith("__"):
        op = op[2:-2]
        if op in _DUNDER:
            op = _DUNDER[op]
        elif op[:1] in "ri" and op[1:] in _REFLECTED:  # __rsub__, __iadd__ ...
            op = op[1:] if op[0] == "r" else op[1:] + "_"
    return (f"Could not run 'aten::{op}' with arguments from the '{_backend(layout)}' backend. "
            "This could be because the operator doesn't exist for this backend, or was "
            "omitted during the selective/custom build process (if using custom build).")


_DUNDER = {"getitem": "index", "setitem": "index_put_", "invert": "bitwise_not",
           "truediv": "div", "rtruediv": "div", "itruediv": "div_", "floordiv": "floor_divide",
           "matmul": "matmul", "rmatmul": "matmul"}


_REFLECTED = {"add", "sub", "mul", "pow", "and", "or", "xor", "lshift", "rshift", "mod",
              "floordiv", "matmul", "truediv"}


def _flat(args):
    for a in args:
        if type(a) in (list, tuple):
            yield from a


# ---- construction -----------------------------------------------------------------------

def _placeholder(size, dtype):
    """The subclass's own storage: one element seen with the tensor's shape,
    NaN where the dtype has one, so that a read which escapes the routing
    (inside DisableTorchFunction) shows rather than passing for zeros.  A
    write into it fails (its elements share one memory location)."""
    fill = math.nan if dtype.is_floating_point or dtype.is_complex else 0
    return _C.full((), fill, dtype=dtype).expand(tuple(size))


def _new(layout, size, vals, **parts):
    s = Tensor._make_subclass(SparseTensor, _placeholder(size, vals.dtype), False)
    s._layout = layout
    s._size = tuple(int(n) for n in size)
    s._vals = vals
    s._idx = parts.get("idx")
    s._cidx = parts.get("cidx")
    s._pidx = parts.get("pidx")
    s._coalesced = bool(parts.get("coalesced", False))
    return s


def _coo(idx, vals, size, coalesced=False):
    return _new(sparse_coo, size, vals, idx=idx, coalesced=coalesced)


def _compressed(layout, cidx, pidx, vals, size):
    return _new(layout, size, vals, cidx=cidx, pidx=pidx)


def _like(s, vals):
    """s's pattern with other values."""
    if s._layout is sparse_coo:
        return _coo(s._idx, vals, s._size[:s._idx.shape[0]] + tuple(vals.shape[1:]),
                    s._coalesced)
    return _compressed(s._layout, s._cidx, s._pidx, vals, s._size)


def _set(s, other):
    """s takes other's contents (the in-place ops)."""
    s._layout, s._size, s._vals = other._layout, other._size, other._vals
    s._idx, s._cidx, s._pidx, s._coalesced = other._idx, other._cidx, other._pidx, \
        other._coalesced
    return s


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
    idx = _as_tensor(indices, name="indices")
    if idx.is_floating_point() or idx.is_complex() or idx.dtype == _C.bool:
        idx = idx.to(_int64)
    idx = idx.to(_int64)
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


def _need(s, op, layouts):
    """PyTorch's refusal of a tensor in another layout."""
    if not isinstance(s, SparseTensor) or s._layout not in layouts:
        got = _LAYOUT_WORDS[s._layout if isinstance(s, SparseTensor) else strided]
        raise RuntimeError(f"{op} expected {_kind(layouts)} tensor layout but got {got}")


_LAYOUT_WORDS = {strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr",
                 sparse_csc: "SparseCsc", sparse_bsr: "SparseBsr", sparse_bsc: "SparseBsc"}


def _kind(layouts):
    return {(sparse_coo,): "sparse coordinate", _ROW_MAJOR: "sparse row compressed",
            (sparse_csc, sparse_bsc): "sparse column compressed"}.get(
        tuple(layouts), "sparse" if len(layouts) > 2 else
        " or ".join(str(x)[len("torchlike."):] for x in layouts))


def _block(s):
    return tuple(s._vals.shape[1:3]) if s._layout in _BLOCKED else (1, 1)


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


def _back(result_coo, layout):
    """A COO result put back in the layout of the input."""
    if layout is sparse_coo:
        return result_coo
    if layout in _BLOCKED:
        raise NotImplementedError(f"this operation is not supported for {layout} here")
    return _to_layout(result_coo, layout)


# ---- the table of implementations --------------------------------------------------------

_IMPL = {}


def _op(*names):
    """Register f for these names (``resolve_name`` without the ``torchlike.`` prefix)."""
    def deco(f):
        for n in names:
            _IMPL[n] = f
        return f
    return deco


def _method_and_function(name):
    return (name, f"Tensor.{name}")


def _sp(x):
    return isinstance(x, SparseTensor)


# ---- attributes --------------------------------------------------------------------------

def _prop(name, getter):
    _IMPL[f"Tensor.{name}.__get__"] = getter


_prop("shape", lambda s: _C.Size(s._size))
_prop("dtype", lambda s: s._vals.dtype)
_prop("device", lambda s: s._vals.device)
_prop("layout", lambda s: s._layout)
_prop("is_sparse", lambda s: s._layout is sparse_coo)
_prop("is_sparse_csr", lambda s: s._layout is sparse_csr)
_prop("requires_grad", lambda s: s._vals.requires_grad)
_prop("grad_fn", lambda s: s._vals.grad_fn)
_prop("is_leaf", lambda s: s._vals.is_leaf)
_prop("ndim", lambda s: len(s._size))
_prop("is_cuda", lambda s: False)
_prop("is_cpu", lambda s: True)
_prop("is_meta", lambda s: False)
_prop("is_quantized", lambda s: False)
_prop("is_nested", lambda s: False)
_prop("is_mkldnn", lambda s: False)
_prop("names", lambda s: (None,) * len(s._size))
_prop("data", lambda s: detach(s))
_prop("itemsize", lambda s: s._vals.itemsize)


def _get_grad(s):
    g = s._vals.grad
    return None if g is None else _like(s, g)


def _set_grad(s, g):
    if g is None:
        s._vals.grad = None
        return
    if not _sp(g):
        raise RuntimeError("assigned grad has data of a different layout: sparse tensors "
                           "take sparse gradients")
    s._vals.grad = _coo_of(g)._vals if s._layout is not sparse_coo else g._vals


_prop("grad", _get_grad)
_IMPL["Tensor.grad.__set__"] = _set_grad


def _set_requires_grad(s, flag):
    s._vals.requires_grad = flag


_IMPL["Tensor.requires_grad.__set__"] = _set_requires_grad


@_op("Tensor.dim", "Tensor.ndimension")
def _dim(s):
    return len(s._size)


@_op("Tensor.size")
def _size_of(s, dim=None):
    if dim is None:
        return _C.Size(s._size)
    return s._size[_wrap_dim(dim, len(s._size))]


@_op("Tensor.numel", "numel", "Tensor.nelement")
def _numel(s):
    return math.prod(s._size)


@_op("Tensor.__len__")
def _len(s):
    if not s._size:
        raise TypeError("len() of a 0-d tensor")
    return s._size[0]


@_op("Tensor.is_floating_point", "is_floating_point")
def _is_fp(s):
    return s._vals.is_floating_point()


@_op("Tensor.is_complex", "is_complex")
def _is_complex(s):
    return s._vals.is_complex()


@_op("Tensor.element_size")
def _element_size(s):
    return s._vals.element_size()


@_op("Tensor.get_device")
def _get_device(s):
    return -1


@_op("Tensor.is_contiguous")
def _is_contiguous(s, memory_format=None):
    return False


@_op("Tensor.sparse_dim")
def sparse_dim(s):
    return s._idx.shape[0] if s._layout is sparse_coo else 2


@_op("Tensor.dense_dim")
def dense_dim(s):
    return len(s._size) - sparse_dim(s)


@_op("Tensor._nnz")
def _nnz(s):
    return s._vals.shape[0]


@_op("Tensor.is_coalesced")
def is_coalesced(s):
    _need(s, "is_coalesced", (sparse_coo,))
    return s._coalesced


@_op("Tensor._coalesced_")
def _coalesced_(s, flag):
    _need(s, "_coalesced_", (sparse_coo,))
    s._coalesced = bool(flag)
    return s


@_op("Tensor.indices")
def indices(s):
    _need(s, "indices", (sparse_coo,))
    if not s._coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return s._idx


@_op("Tensor._indices")
def _indices(s):
    _need(s, "_indices", (sparse_coo,))
    return s._idx


@_op("Tensor.values")
def values(s):
    _need(s, "values", (sparse_coo,) + _COMPRESSED)
    if s._layout is sparse_coo and not s._coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return s._vals


@_op("Tensor._values")
def _values(s):
    _need(s, "_values", (sparse_coo,))
    return s._vals


def _compressed_getter(name, layouts, part):
    def get(s):
        _need(s, name, layouts)
        return getattr(s, part)
    get.__name__ = name
    _IMPL[f"Tensor.{name}"] = get
    return get


crow_indices = _compressed_getter("crow_indices", _ROW_MAJOR, "_cidx")
col_indices = _compressed_getter("col_indices", _ROW_MAJOR, "_pidx")
ccol_indices = _compressed_getter("ccol_indices", (sparse_csc, sparse_bsc), "_cidx")
row_indices = _compressed_getter("row_indices", (sparse_csc, sparse_bsc), "_pidx")


@_op("Tensor.coalesce")
def _coalesce_method(s):
    return coalesce(s)


_op("Tensor.to_dense")(to_dense)
_op("Tensor.to_sparse")(to_sparse)
_op("Tensor.to_sparse_coo")(to_sparse_coo)
_op("Tensor.to_sparse_csr")(to_sparse_csr)
_op("Tensor.to_sparse_csc")(to_sparse_csc)
_op("Tensor.to_sparse_bsr")(to_sparse_bsr)
_op("Tensor.to_sparse_bsc")(to_sparse_bsc)


_NO_NUMPY = "can't convert {} layout tensor to numpy. Use Tensor.to_dense() first."


@_op("Tensor.numpy", "Tensor.__array__")
def _numpy(s, *args, **kwargs):
    raise TypeError(_NO_NUMPY.format("Sparse" if s._layout is sparse_coo else "SparseCsr"))


_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


@_op("Tensor.tolist", "Tensor.data_ptr", "Tensor.__float__", "Tensor.__int__",
     "Tensor.__index__", "Tensor.__complex__")
def _no_storage(s, *args, **kwargs):
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.item")
def _item(s):
    n = math.prod(s._size)
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.__bool__")
def _bool(s):
    if math.prod(s._size) > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.storage", "Tensor.untyped_storage", "Tensor.stride")
def _no_storage_impl(s, *args, **kwargs):
    raise NotImplementedError(f"Cannot access storage of {'SparseTensorImpl' if s._layout is sparse_coo else 'SparseCsrTensorImpl'}")


# ---- printing ----------------------------------------------------------------------------

def _inner(t, indent):
    """The body PyTorch prints for an index or value tensor inside a sparse repr."""
    from ._tensor_str import _body_str, _PRINT_DTYPES
    t = t.detach()
    arr = (t.float() if t.dtype == _C.bfloat16 else t).numpy()
    np_dtype = _PRINT_DTYPES.get(str(t.dtype).split(".")[-1])
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if arr.size == 0:
        return "[], size=" + str(tuple(arr.shape))
    return _body_str(arr, indent)


@_op("Tensor.__repr__", "Tensor.__str__")
def _repr(s, *, tensor_contents=None):
    from ._tensor_str import _add_suffixes
    from . import get_default_dtype
    indent = len("tensor(")
    suffixes = [f"size={tuple(s._size)}", f"nnz={s._vals.shape[0]}"]
    dt = s._vals.dtype
    default = get_default_dtype()
    defaults = (default, _C.complex128 if default == _C.float64 else _C.complex64,
                _C.int64, _C.bool)
    if dt not in defaults:
        suffixes.append(f"dtype={dt}")
    suffixes.append(f"layout={s._layout}")
    if s._layout is sparse_coo:
        parts = [("indices", s._idx), ("values", s._vals)]
    else:
        cname, pname = _INDEX_NAMES[s._layout]
        parts = [(cname, s._cidx), (pname, s._pidx), ("values", s._vals)]
    body = (",\n" + " " * indent).join(
        f"{name}=tensor(" + _inner(t, indent + len(name) + len("=tensor(")) + ")"
        for name, t in parts)
    gf = s._vals.grad_fn
    if gf is not None:
        suffixes.append(f"grad_fn=<{gf.name()}>")
    elif s._vals.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, suffixes, indent, s._layout is sparse_coo)


@_op("Tensor.__format__")
def _format(s, spec):
    return _repr(s)


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
_UNARY_INPLACE_ONLY_FLOAT = ()


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
        return _back(out, a._layout)
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
        return _set(a, add(a, b, alpha=alpha))
    _same_size("add_", a.shape, b._size)
    cb = _coo_of(b)
    vb = cb._vals.to(a.dtype) if alpha == 1 else cb._vals.to(a.dtype) * alpha
    return _scatter_add(a, cb, vb, inplace=True)


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
        return _back(out, a._layout)
    # sparse * dense: the dense factor read at the stored entries, pattern kept
    _same_size("mul", a._size, _C.broadcast_shapes(tuple(b.shape), a._size))
    d = b.expand(a._size)
    ca = _coo_of(a)
    picked = d[tuple(ca._idx.unbind(0))] if ca._idx.shape[0] else d.unsqueeze(0)
    return _back(_like(ca, ca._vals * picked), a._layout) if a._layout is not sparse_coo \
        else _like(ca, ca._vals * picked)


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


# ---- matrix products ----------------------------------------------------------------------

def _check_mm(a_shape, b_shape, dt_a, dt_b, name="addmm"):
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise RuntimeError(f"{name}: expected 2-D matrices, got {len(a_shape)}-D and "
                           f"{len(b_shape)}-D")
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(f"{name}: Argument #3 (dense): Expected dim 0 size {a_shape[1]}, "
                           f"got {b_shape[0]}")
    if dt_a != dt_b:
        raise RuntimeError(f"expected scalar type {_type_name(dt_a)} but found "
                           f"{_type_name(dt_b)}")


def _type_name(dt):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble", "float16": "Half",
            "bfloat16": "BFloat16", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}[str(dt).split(".")[-1]]


def _spmm(a, d):
    """sparse (m, k) @ dense (k, n) -> dense (m, n): each stored a[r, c] adds
    a[r, c] * d[c] to row r (index_select, mul, index_add: the tape
    differentiates the values and d)."""
    ca = _coo_of(a)
    if ca._idx.shape[0] != 2 or len(ca._size) != 2:
        raise RuntimeError("mm: a sparse operand must be a matrix with 2 sparse dimensions "
                           "and no dense ones")
    _check_mm(ca._size, tuple(d.shape), ca._vals.dtype, d.dtype)
    rows, cols = ca._idx[0], ca._idx[1]
    contrib = d.index_select(0, cols) * ca._vals.unsqueeze(1)
    out = _C.zeros((ca._size[0], d.shape[1]), dtype=contrib.dtype)
    return out.index_add(0, rows, contrib)


def _spgemm(a, b):
    """sparse (m, k) @ sparse (k, n) -> coalesced COO: every a[r, c] meets
    the entries of row c of b (found by searchsorted in b's sorted rows)."""
    ca, cb = coalesce(_coo_of(a)), coalesce(_coo_of(b))
    for c in (ca, cb):
        if c._idx.shape[0] != 2 or len(c._size) != 2:
            raise RuntimeError("mm: sparse operands must be matrices with 2 sparse dimensions")
    _check_mm(ca._size, cb._size, ca._vals.dtype, cb._vals.dtype)
    ar, ac = ca._idx[0], ca._idx[1]
    br, bc = cb._idx[0], cb._idx[1]
    lo = _C.searchsorted(br, ac)
    cnt = _C.searchsorted(br, ac, right=True) - lo
    ia = _C.repeat_interleave(_C.arange(ac.shape[0]), cnt)
    start = (_C.cumsum(cnt, 0) - cnt)[ia]
    ib = lo[ia] + _C.arange(ia.shape[0]) - start
    out = _coo(_C.stack([ar[ia], bc[ib]]), ca._vals[ia] * cb._vals[ib],
               (ca._size[0], cb._size[1]))
    return coalesce(out)


@_op("mm", "Tensor.mm", "sparse.mm", "matmul", "Tensor.matmul", "Tensor.__matmul__")
def mm(a, b, reduce=None):
    if not _sp(a) and not _sp(b):
        return _C.matmul(a, b)
    if reduce not in (None, "sum"):
        raise NotImplementedError(f"sparse.mm: reduce={reduce!r} is not supported here")
    if _sp(a) and _sp(b):
        if (a._layout is sparse_coo) != (b._layout is sparse_coo):
            raise RuntimeError(f"mm: expected both operands in COO or both in compressed "
                               f"layouts, got {a._layout} and {b._layout}")
        return _back(_spgemm(a, b), a._layout if a._layout is not sparse_csc else sparse_csr)
    if _sp(a):
        if b.ndim == 1:
            return _spmm(a, b.unsqueeze(1)).squeeze(1)
        return _spmm(a, b)
    # dense @ sparse = (sparse^T @ dense^T)^T
    if a.ndim == 1:
        return _spmm(transpose(_coo_of(b), 0, 1), a.unsqueeze(1)).squeeze(1)
    return _spmm(transpose(_coo_of(b), 0, 1), a.t()).t()


_IMPL["Tensor.__rmatmul__"] = lambda a, b: mm(b, a)
_IMPL["mv"] = _IMPL["Tensor.mv"] = mm


@_op("addmm", "Tensor.addmm", "sparse.addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if not (_sp(input) or _sp(mat1) or _sp(mat2)):
        return _C.addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    prod = mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    if _sp(input):
        return add(input * beta if beta != 1 else input, prod) if _sp(prod) else \
            add(prod, input, alpha=beta)
    if beta == 0:
        base = _C.zeros_like(input)
    else:
        base = input if beta == 1 else input * beta
    return add(base, prod) if _sp(prod) else base + prod


@_op("sparse.sampled_addmm")
def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):
    """beta * input + alpha * (mat1 @ mat2) at input's stored entries (CSR)."""
    _need(input, "sampled_addmm", (sparse_csr,))
    rows, cols = _compressed_rows_cols(input)
    prod = (mat1.index_select(0, rows) * mat2.t().index_select(0, cols)).sum(1)
    vals = input._vals * beta + prod * alpha
    return _compressed(sparse_csr, input._cidx, input._pidx, vals, input._size)


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


def _wrap_dim(d, nd):
    if not -max(nd, 1) <= d < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {d})")
    return d % max(nd, 1)


def _vector_norm(s, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if dim is not None:
        raise RuntimeError("vector_norm: dim= is not supported for sparse tensors")
    from . import linalg
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
    return _back(out, s._layout)


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
    return _back(_coo(m._idx, picked, m._size, True), mask._layout)


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



def _rebuild_sparse_tensor(layout_name, data, requires_grad=False):
    """A sparse tensor from its pickled parts (SparseTensor.__reduce_ex__)."""
    from . import _layout
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


# ---- the methods a strided tensor has for the sparse API ---------------------------------

def _dense_refusal(name, layouts):
    def refuse(self, *args, **kwargs):
        if _sp(self):  # private names (_values, _nnz ...) are not routed by __torch_function__
            return _IMPL[f"Tensor.{name}"](self, *args, **kwargs)
        if layouts is None:  # no layout check in PyTorch: the dispatcher refuses
            raise NotImplementedError(
                f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This "
                f"could be because the operator doesn't exist for this backend, or was omitted "
                f"during the selective/custom build process (if using custom build).")
        _need(self, name, layouts)
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__module__ = __name__
    refuse.__doc__ = f"Sparse tensors only: a strided tensor has no {name}()."
    return refuse


def _dense_sparse_mask(self, mask):
    """A strided tensor's values at mask's entries (mask must be sparse)."""
    raise RuntimeError("sparse_mask: expected mask to be a sparse tensor, got a strided one")


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    """A strided tensor is its own dense form."""
    return self if dtype is None else self.to(dtype)


def _dense_sparse_dim(self):
    """0: a strided tensor has no sparse dimensions."""
    return 0


def _dense_dense_dim(self):
    """All of a strided tensor's dimensions are dense."""
    return self.ndim


def _install_tensor_methods():
    methods = {"to_sparse": to_sparse, "to_sparse_coo": to_sparse_coo,
               "to_sparse_csr": to_sparse_csr, "to_sparse_csc": to_sparse_csc,
               "to_sparse_bsr": to_sparse_bsr, "to_sparse_bsc": to_sparse_bsc,
               "to_dense": _dense_to_dense, "sparse_mask": _dense_sparse_mask,
               "sparse_dim": _dense_sparse_dim, "dense_dim": _dense_dense_dim}
    coo, cols = (sparse_coo,), (sparse_csc, sparse_bsc)
    for name, layouts in (("indices", coo), ("_indices", coo), ("_values", coo),
                          ("coalesce", coo), ("is_coalesced", coo), ("_coalesced_", coo),
                          ("sparse_resize_", coo), ("sparse_resize_and_clear_", coo),
                          ("values", coo + _COMPRESSED), ("_nnz", None),
                          ("crow_indices", _ROW_MAJOR), ("col_indices", _ROW_MAJOR),
                          ("ccol_indices", cols), ("row_indices", cols)):
        methods[name] = _dense_refusal(name, layouts)
    for name, f in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, f)
    for name in ("is_sparse", "is_sparse_csr"):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(lambda self: False,
                                           doc="False: a strided tensor (sparse ones say True)."))


_install_tensor_methods()


# ---- sparse gradients of embedding tables ---------------------------------------------------

def deliver_grad(weight, grad):
    """The gradient of weight from a Function's backward: a sparse grad is
    added to weight.grad here when backward() accumulates into every leaf
    and weight is a leaf (None goes back to the engine, which cannot add a
    sparse tensor); otherwise (autograd.grad, a non-leaf table) the engine
    gets its dense form."""
    if weight.grad_fn is None and weight.requires_grad and _C._is_checkpoint_valid():
        old = weight.grad
        weight.grad = grad if old is None else (add(old, grad) if _sp(old) else add_(old, grad))
        if not getattr(weight, "_tl_sparse_grad_hook", False):
            weight.register_hook(functools.partial(_dense_meets_sparse_grad, weight))
            weight._tl_sparse_grad_hook = True
        return None
    return to_dense(grad)


def _dense_meets_sparse_grad(weight, grad):
    """A hook on a table that has taken sparse gradients: a dense gradient
    about to be added to a sparse .grad (a weight shared with a dense layer)
    takes it over, as PyTorch's AccumulateGrad makes dense + sparse dense
    (the engine cannot add into a sparse tensor)."""
    old = weight.grad
    if _sp(old) and not _sp(grad) and _C._is_checkpoint_valid():
        weight.grad = None
        return add(grad, old)
    return grad


def _embedding_grad(weight_shape, flat, rows, padding_idx, scale_grad_by_freq):
    """PyTorch's embedding_sparse_backward: one value row per index, in input
    order, padding rows dropped, uncoalesced."""
    if scale_grad_by_freq:  # refused in backward, where PyTorch refuses it
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    if padding_idx is not None and padding_idx >= 0:
        keep = _C.nonzero(flat != padding_idx).reshape(-1)
        flat, rows = flat[keep], rows[keep]
    return _coo(flat.reshape(1, -1), rows, weight_shape, flat.shape[0] <= 1)


def _function():
    from .autograd import Function
    return Function


class _Lazy:
    """A Function subclass made on first use (autograd imports after this module)."""

    def __init__(self, make):
        self._make, self._cls = make, None

    def apply(self, *args):
        if self._cls is None:
            self._cls = self._make()
        return self._cls.apply(*args)


def _make_sparse_embedding():
    class SparseEmbeddingBackward(_function()):
        @staticmethod
        def forward(ctx, weight, input, padding_idx, scale_grad_by_freq):
            ctx.weight, ctx.input = weight, input
            ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
            return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, False)

        @staticmethod
        def backward(ctx, grad):
            w = ctx.weight
            flat = ctx.input.reshape(-1).to(_int64)
            g = _embedding_grad(tuple(w.shape), flat, grad.reshape(-1, w.shape[1]),
                                ctx.padding_idx, ctx.scale)
            return deliver_grad(w, g), None, None, None
    return SparseEmbeddingBackward


def _make_sparse_embedding_bag():
    class SparseEmbeddingBagBackward(_function()):
        @staticmethod
        def forward(ctx, weight, input, offsets, mode, psw, include_last_offset, padding_idx,
                    scale):
            from .nn import functional as F
            ctx.weight, ctx.input, ctx.offsets, ctx.mode = weight, input, offsets, mode
            ctx.psw, ctx.last, ctx.pad, ctx.scale = psw, include_last_offset, padding_idx, scale
            return F.embedding_bag(input, weight, offsets, mode=mode,
                                   per_sample_weights=psw, include_last_offset=include_last_offset,
                                   padding_idx=padding_idx)

        @staticmethod
        def backward(ctx, grad):
            w, input = ctx.weight, ctx.input
            flat = input.reshape(-1).to(_int64)
            n = flat.shape[0]
            if input.ndim == 2:
                bag = _C.arange(input.shape[0]).repeat_interleave(input.shape[1])
            else:
                bag = _C.searchsorted(ctx.offsets.to(_int64).contiguous(), _C.arange(n),
                                      right=True) - 1
            rows = grad.index_select(0, bag)
            if ctx.psw is not None:
                rows = rows * ctx.psw.reshape(-1, 1).to(rows.dtype)
            if ctx.mode == "mean":
                kept = flat != ctx.pad if ctx.pad is not None else _C.ones_like(flat, dtype=_C.bool)
                size = _C.zeros(grad.shape[0], dtype=_int64).index_add(0, bag, kept.to(_int64))
                rows = rows / size.clamp(min=1)[bag].to(rows.dtype).unsqueeze(1)
            g = _embedding_grad(tuple(w.shape), flat, rows, ctx.pad, ctx.scale)
            return deliver_grad(w, g), None, None, None, None, None, None, None
    return SparseEmbeddingBagBackward


sparse_embedding = _Lazy(_make_sparse_embedding)
sparse_embedding_bag = _Lazy(_make_sparse_embedding_bag)
