"""Matrix products with sparse operands: sparse x dense and dense x
sparse -> dense, sparse x sparse -> sparse, addmm and sampled_addmm."""
from .. import _C
from .._dtype_names import scalar_type_name as _type_name
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc
from .tensor import _IMPL, _block, _compressed, _coo, _need, _op, _sp
from .create import _back, _compressed_rows_cols, _coo_of, coalesce
from .elementwise import add
from .shapes import transpose


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
        # CSR and CSC give CSR (as PyTorch); BSR/BSC blocks: a's rows by b's columns
        layout = sparse_csr if a._layout is sparse_csc else a._layout
        blocks = (_block(a)[0], _block(b)[1]) if layout in (sparse_bsr, sparse_bsc) else None
        return _back(_spgemm(a, b), a, layout, blocks)
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
