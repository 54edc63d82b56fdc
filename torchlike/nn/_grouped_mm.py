"""nn.functional.grouped_mm: the Mixture-of-Experts grouped GEMM of PyTorch
2.15, as one matmul per group over views of the operands (so autograd,
devices and dtypes are matmul's).

Shapes (G groups; offs: int32 (G,), nondecreasing ends of the groups along
the jagged dimension, whose elements past offs[-1] are ignored):
    a (T, K)    b (G, K, N)  offs  -> (T, N)     rows of a split into groups
    a (G, M, K) b (K, T)     offs  -> (M, T)     columns of b split
    a (M, T)    b (T, N)     offs  -> (G, M, N)  the contraction split
    a (G, M, K) b (G, K, N)  None  -> (G, M, N)  a batched matmul
Rows (columns) past offs[-1] of a jagged result are zero; PyTorch leaves
them uninitialised.  PyTorch's CPU kernel also rejects float64 and requires
16-byte aligned strides; here float64 is accepted (it is what gradcheck
needs) and any strides are.  The offsets are read on the host (one sync of
G integers) to cut the operands into views."""
from .. import _C

__all__ = ["grouped_mm"]

_DTYPES = (_C.float32, _C.bfloat16, _C.float16, _C.float64)  # float64 beyond PyTorch's CPU


def _name(dt):
    from .._composites import _dtype_name   # here: _composites imports nn's users
    return _dtype_name(dt)


def _bounds(offs, total, G):
    """The (start, end) of each group from the int32 offsets."""
    if offs.dtype != _C.int32:
        raise RuntimeError("Offsets have to be int32")
    if offs.ndim != 1:
        raise RuntimeError(f"offs must be 1D, got {offs.ndim}D")
    if offs.shape[0] != G:
        raise RuntimeError("matrix batch sizes have to match")
    ends = [int(v) for v in offs.tolist()]
    starts = [0] + ends[:-1]
    if any(e < s for s, e in zip(starts, ends)) or (ends and (ends[0] < 0 or ends[-1] > total)):
        raise RuntimeError(f"grouped_mm: offs must be nondecreasing, within [0, {total}], "
                           f"got {ends}")
    return list(zip(starts, ends))


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix multiply (see the module doc for the four shape forms)."""
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if not isinstance(m, _C.Tensor):
            raise TypeError(f"grouped_mm(): argument '{name}' must be Tensor, not "
                            f"{type(m).__name__}")
        if m.ndim not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    if mat_a.dtype not in _DTYPES:
        raise RuntimeError(f"Expected mat_a to be Float32, BFloat16 or Float16 matrix, got "
                           f"{_name(mat_a.dtype)}")
    if mat_b.dtype != mat_a.dtype:
        raise RuntimeError(f"Expected mat_a and mat_b to have the same dtype, got "
                           f"{_name(mat_a.dtype)} and {_name(mat_b.dtype)}")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype and not (
            out_dtype == _C.float32 and mat_a.dtype in (_C.bfloat16, _C.float16)):
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    a_2d, b_2d = mat_a.ndim == 2, mat_b.ndim == 2
    if (offs is None) != (not a_2d and not b_2d):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if "
                           "both matrices are 3d")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    acc = out_dtype or mat_a.dtype
    a, b = mat_a.to(acc), mat_b.to(acc)
    if not a_2d and not b_2d:
        if a.shape[0] != b.shape[0]:
            raise RuntimeError("batched dimension has to match")
        return _C.matmul(a, b)
    if a_2d and not b_2d:                      # (T, K) x (G, K, N) -> (T, N)
        bounds = _bounds(offs, a.shape[0], b.shape[0])
        parts = [_C.matmul(a.narrow(0, s, e - s), b[g]) for g, (s, e) in enumerate(bounds)]
        rest = a.shape[0] - (bounds[-1][1] if bounds else 0)
        parts.append(_C.zeros((rest, b.shape[2]), dtype=acc, device=a.device))
        return _C.cat(parts, 0)
    if b_2d and not a_2d:                      # (G, M, K) x (K, T) -> (M, T)
        bounds = _bounds(offs, b.shape[1], a.shape[0])
        parts = [_C.matmul(a[g], b.narrow(1, s, e - s)) for g, (s, e) in enumerate(bounds)]
        rest = b.shape[1] - (bounds[-1][1] if bounds else 0)
        parts.append(_C.zeros((a.shape[1], rest), dtype=acc, device=a.device))
        return _C.cat(parts, 1)
    # (M, T) x (T, N) -> (G, M, N): each group contracts its own slice
    G = offs.shape[0] if offs.ndim == 1 else -1
    bounds = _bounds(offs, a.shape[1], G)
    return _C.stack([_C.matmul(a.narrow(1, s, e - s), b.narrow(0, s, e - s))
                     for s, e in bounds], 0) if bounds else \
        _C.zeros((0, a.shape[0], b.shape[1]), dtype=acc, device=a.device)
