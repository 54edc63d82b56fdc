"""PyTorch's older LU and triangular-solve spellings: torch.lu, torch.lu_solve,
torch.lu_unpack, torch.triangular_solve (and their Tensor methods), over
torch.linalg's lu_factor_ex, lu_solve and solve_triangular, with the checks,
messages and deprecation warnings the older functions give.

Legend: A (*, m, n), k = min(m, n); LU packs L (m, k, unit lower) and
U (k, n, upper); pivots (*, k) int32, 1-based: row i was swapped with row
pivots[i] in turn, so A = P L U.

lu_unpack builds P without reading the pivots on the host: the pivots of a
square m x m factor whose L and U are the identity describe A = P, so
lu_solve(I, pivots, I) = P^T, on any device.  Only the CPU checks the
pivots' range, as PyTorch's CPU kernel does."""
import warnings

from . import _C
from . import linalg
from ._composites import _dtype_name, _need_tensor
from ._return_types import return_type

__all__ = ["lu", "lu_solve", "lu_unpack", "triangular_solve"]

Tensor = _C.Tensor
_LU_WITH_INFO = return_type("_lu_with_info", ["LU", "pivots", "info"])
_LU_UNPACK = return_type("lu_unpack", ["P", "L", "U"])
_TRIANGULAR_SOLVE = return_type("triangular_solve", ["solution", "cloned_coefficient"])


def _floating(t):
    return t.is_floating_point() or t.is_complex()


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots), or (LU, pivots, infos) with get_infos: lu_factor_ex's
    results; a singular matrix is no error (infos says so)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
                  "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
                  "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
                  "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
                  "should be replaced with\n"
                  "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
                  UserWarning, stacklevel=2)
    _need_tensor("_lu_with_info", "input", A)
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    if not _floating(A):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_dtype_name(A.dtype)}'")
    LU, pivots, info = linalg.lu_factor_ex(A, pivot=pivot)
    return _LU_WITH_INFO(LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """X with A X = b, A = P L U given as lu's (LU_data, LU_pivots)."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                  "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                  "arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced "
                  "with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning, stacklevel=2)
    for i, (name, t) in enumerate((("input", b), ("LU_data", LU_data), ("LU_pivots", LU_pivots))):
        _need_tensor("lu_solve", name, t, i + 1)
    if b.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if LU_data.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 "
                           "dimensions.")
    m, n = LU_data.shape[-2:]
    if m != n:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                           f"they are {m} by {n} matrices")
    if LU_data.dtype != b.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           f"found LU of type {_dtype_name(LU_data.dtype)} and B of type "
                           f"{_dtype_name(b.dtype)} instead")
    if LU_pivots.dtype != _C.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    if b.shape[-2] != m:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({m}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    if LU_pivots.ndim == 0 or LU_pivots.shape[-1] != m:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    return linalg.lu_solve(LU_data, LU_pivots, b)


def _permutation(pivots, m, dtype):
    """P (*, m, m) of the 1-based pivots (*, k), k <= m: lu_solve(I, pivots, I)
    is P^T (the factor's L and U are I, so A = P)."""
    k = pivots.shape[-1]
    batch = list(pivots.shape[:-1])
    if k < m:  # rows k .. m - 1 stay where they are
        rest = _C.arange(k + 1, m + 1, dtype=_C.int32, device=pivots.device)
        pivots = _C.cat([pivots, rest.expand(batch + [m - k])], -1)
    eye = _C.eye(m, dtype=dtype, device=pivots.device).expand(batch + [m, m]).contiguous()
    return linalg.lu_solve(eye, pivots.contiguous(), eye).mT.contiguous()


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) of a packed LU; the parts not asked for are empty tensors.
    L and U are differentiable in LU_data."""
    _need_tensor("lu_unpack", "LU_data", LU_data)
    _need_tensor("lu_unpack", "LU_pivots", LU_pivots, 2)
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    if LU_pivots.dtype != _C.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    want = list(LU_data.shape[:-2]) + [k]
    if list(LU_pivots.shape) != want:
        raise ValueError(f"Expected LU_pivots to have shape {want} but got "
                         f"{list(LU_pivots.shape)} instead.")
    dt, dev = LU_data.dtype, LU_data.device
    empty = _C.empty(0, dtype=dt, device=dev)
    if unpack_data:
        eye = _C.eye(m, k, dtype=dt, device=dev)
        L = _C.add(LU_data[..., :, :k].tril(-1), eye)                  # (*, m, k)
        U = LU_data[..., :k, :].triu()                                 # (*, k, n)
    else:
        L = U = empty
    P = empty
    if unpack_pivots:
        if dev.type == "cpu" and LU_pivots.numel() and (
                bool(_C.lt(LU_pivots, 1).any()) or bool(_C.gt(LU_pivots, m).any())):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                               "inclusive.Did you properly pass the result of lu_factor?")
        real = LU_data.real.dtype if _floating(LU_data) else _C.float32
        P = _permutation(LU_pivots, m, real).to(dt)                    # (*, m, m)
    return _LU_UNPACK(P, L, U)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(X, A's copy) with op(A) X = b, op(A) = A or A^T, A triangular (only the
    named triangle read; a unit diagonal assumed with unitriangular); the batch
    dims of b and A broadcast."""
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
                  "torch.linalg.solve_triangular has its arguments reversed and does not return "
                  "a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\n"
                  "should be replaced with\nX = torch.linalg.solve_triangular(A, B).",
                  UserWarning, stacklevel=2)
    _need_tensor("triangular_solve", "input", b)
    _need_tensor("triangular_solve", "A", A, 2)
    for name, t in (("b", b), ("A", A)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {t.ndim} dimensions instead")
    if b.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_dtype_name(b.dtype)} and A of type {_dtype_name(A.dtype)} "
                           "instead.")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if b.shape[-2] != m:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{m} by {n} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if not _floating(A):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for "
                                  f"'{_dtype_name(A.dtype)}'")
    batch = list(_C.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2])))
    A = A.expand(batch + [m, m])
    b = b.expand(batch + list(b.shape[-2:]))
    op = A.mT if transpose else A
    X = linalg.solve_triangular(op, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR_SOLVE(X, A.clone())


Tensor.lu = lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos)
Tensor.lu_solve = lu_solve
Tensor.triangular_solve = triangular_solve
