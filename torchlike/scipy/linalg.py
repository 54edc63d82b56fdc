"""torchlike.scipy.linalg: scipy.linalg's calls over differentiable torchlike ops.

- ``expm``: scaling and squaring with the degree-13 Pade approximant (Higham
  2005), made of matmuls and one solve, so it is differentiable to any order
  and runs wherever matmul runs.  The scaling power is chosen from the 1-norm
  of the detached input (piecewise constant, so it adds no gradient term).
- ``sqrtm``: the value is SciPy's (Schur method, on the host); the gradient
  solves the Sylvester equation X dA' + dA' X = G with X = sqrtm(A), written
  with ``solve_sylvester`` below, so it is differentiable again.
- ``solve_sylvester``: A X + X B = Q as one linear system
  (I (x) A + B^T (x) I) vec X = vec Q, solved with ``torchlike.linalg.solve``:
  exact and differentiable, at O((mn)^3) cost -- meant for the small matrices
  such equations usually have.
- ``solve_banded`` builds the dense matrix from the band storage and solves it.
- Batches follow SciPy's rule for a right-hand side: ``b`` of one dimension
  is a vector, of two or more a matrix (a stack of them), its batch
  dimensions broadcast against the factor's -- so ``a`` (B, n, n) with ``b``
  (n, k) solves every matrix of the stack for the same ``b``.
- ``lu_factor`` is ``torchlike.linalg.lu_factor`` with SciPy's 0-based
  int32 pivots; ``lu_solve`` solves with it, both differentiable.
- ``cho_factor`` returns the factor with the unused triangle zeroed (SciPy
  leaves whatever ``a`` held there; ``cho_solve`` reads one triangle either way).
"""

import numpy as np

from .. import _C
from .. import linalg as _linalg
from ..autograd.function import Function
from ._util import as_tensor, as_tensors

__all__ = ["expm", "sqrtm", "solve_triangular", "cho_factor", "cho_solve", "lu", "lu_factor",
           "lu_solve", "solve_sylvester", "solve_banded"]


def _square(a, name):
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected a square matrix (or a batch of them), got shape "
                         f"{tuple(a.shape)}")


def expm(A):
    """Matrix exponential of A (..., n, n): torchlike.linalg.matrix_exp, with
    integer input taken as float64 as SciPy does."""
    A = as_tensor(A)
    _square(A, "expm")
    if not (A.is_floating_point() or A.is_complex()):
        A = A.to(_C.float64)
    return _linalg.matrix_exp(A)


def solve_sylvester(a, b, q):
    """X with a X + X b = q; a (m, m), b (n, n), q (m, n)."""
    a, b, q = as_tensors(a, b, q)
    if a.dim() != 2 or b.dim() != 2 or q.dim() != 2:
        raise ValueError(f"solve_sylvester: a, b and q must be matrices, got shapes "
                         f"{tuple(a.shape)}, {tuple(b.shape)}, {tuple(q.shape)}")
    _square(a, "solve_sylvester")
    _square(b, "solve_sylvester")
    m, n = a.shape[0], b.shape[0]
    if tuple(q.shape) != (m, n):
        raise ValueError(f"solve_sylvester: q must have shape ({m}, {n}) for a of shape "
                         f"{tuple(a.shape)} and b of shape {tuple(b.shape)}, got "
                         f"{tuple(q.shape)}")
    # row-major vec: vec(a X) = (a (x) I) vec X, vec(X b) = (I (x) b^T) vec X
    im = _C.eye(m, dtype=a.dtype, device=a.device)
    in_ = _C.eye(n, dtype=a.dtype, device=a.device)
    K = _C.kron(a, in_) + _C.kron(im, b.mT)
    return _linalg.solve(K, q.reshape(m * n)).reshape(m, n)


def _host_sqrtm(a):
    import scipy.linalg
    out = scipy.linalg.sqrtm(a.detach().cpu().numpy())
    if np.iscomplexobj(out) and not a.is_complex():
        if np.abs(out.imag).max(initial=0.0) > 0:
            raise ValueError("sqrtm: the matrix has a negative real eigenvalue, so its "
                             "principal square root is complex; pass a complex tensor")
        out = out.real
    return _C.from_numpy(np.ascontiguousarray(out, dtype=np.dtype(a.dtype.name))).to(
        device=a.device)


class _Sqrtm(Function):
    @staticmethod
    def forward(ctx, a):
        x = _host_sqrtm(a)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        xh = x.mT.conj() if x.is_complex() else x.mT
        # X dX + dX X = dA, so <G, dX> = <Y, dA> with X^H Y + Y X^H = G
        return solve_sylvester(xh, xh, grad)


def sqrtm(A):
    """Principal square root of the matrix A: sqrtm(A) @ sqrtm(A) == A."""
    A = as_tensor(A)
    if A.dim() != 2:
        raise ValueError(f"sqrtm: expected a square matrix, got shape {tuple(A.shape)}")
    _square(A, "sqrtm")
    return _Sqrtm.apply(A)


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """x with a x = b (trans=0/'N'), a^T x = b (1/'T') or a^H x = b (2/'C'),
    reading only the lower or upper triangle of a."""
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got "
                         f"{trans!r}")
    a, b = as_tensors(a, b)
    _square(a, "solve_triangular")
    b, vector = _right_hand_side(a, b, "solve_triangular")
    upper = not lower
    mode = _TRANS[trans]
    if mode:
        a = a.mT.conj() if (mode == 2 and a.is_complex()) else a.mT
        upper = not upper
    x = _linalg.solve_triangular(a, b, upper=upper, unitriangular=bool(unit_diagonal))
    return x.squeeze(-1) if vector else x


def _right_hand_side(a, b, name):
    """b as a matrix (a stack of them) and whether it was a vector: SciPy's
    rule, a vector only when b has one dimension (any batch is a's)."""
    vector = b.dim() <= 1
    if vector:
        b = b.reshape(-1, 1) if b.dim() else b.reshape(1, 1)
    if b.shape[-2] != a.shape[-1]:
        raise ValueError(f"{name}: shapes of a {tuple(a.shape)} and b "
                         f"{tuple(b.shape if not vector else b.shape[:-1])} are incompatible")
    return b, vector


def _lapack_dtype(a):
    """a in the dtype SciPy's LAPACK call runs in: float32 for half
    precision, float64 for integers and booleans."""
    if a.dtype in (_C.float16, _C.bfloat16):
        return a.to(_C.float32)
    if not (a.is_floating_point() or a.is_complex()):
        return a.to(_C.float64)
    return a


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) of a (..., m, n) = P L U: L's strict lower triangle and U
    in lu, piv the 0-based int32 row swaps of LAPACK's getrf (row i was
    swapped with row piv[i]).  Differentiable in a through lu."""
    a = _lapack_dtype(as_tensor(a))
    if a.dim() < 2:
        raise ValueError(f"lu_factor: expected a matrix (or a batch of them), got shape "
                         f"{tuple(a.shape)}")
    if check_finite and not bool(_C.isfinite(a.detach()).all()):
        raise ValueError("array must not contain infs or NaNs")
    LU, pivots, info = _linalg.lu_factor_ex(a)
    if a.numel() and bool((info > 0).any()):
        import warnings
        from scipy.linalg import LinAlgWarning
        warnings.warn(f"Diagonal number {int(info.max())} is exactly zero. Singular matrix.",
                      LinAlgWarning, stacklevel=2)
    return LU, pivots - 1


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans=0/'N'), a^T x = b (1/'T') or a^H x = b (2/'C'),
    given (lu, piv) = lu_factor(a); differentiable in lu and b."""
    try:
        lu, piv = lu_and_piv
    except (TypeError, ValueError):
        raise TypeError("lu_solve: the first argument must be the pair (lu, piv) that "
                        "lu_factor returns") from None
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    lu, b = as_tensors(lu, b)
    _square(lu, "lu_solve")
    piv = piv if isinstance(piv, _C.Tensor) else _C.tensor(np.asarray(piv))
    if piv.is_floating_point() or piv.is_complex() or tuple(piv.shape) != tuple(lu.shape[:-1]):
        raise ValueError(f"lu_solve: piv must be the integer pivots lu_factor returns, of "
                         f"shape {tuple(lu.shape[:-1])}, got {tuple(piv.shape)} {piv.dtype}")
    b, vector = _right_hand_side(lu, b, "lu_solve")
    if check_finite and not bool(_C.isfinite(b.detach()).all()):
        raise ValueError("array must not contain infs or NaNs")
    lu = _lapack_dtype(lu)
    b = b.to(lu.dtype)
    pivots = (piv.to(_C.int32) + 1).to(lu.device)
    mode = _TRANS[trans]
    if mode == 1 and lu.is_complex():  # a^T x = b is a^H conj(x) = conj(b)
        x = _linalg.lu_solve(lu, pivots, b.conj(), adjoint=True).conj()
    else:
        x = _linalg.lu_solve(lu, pivots, b, adjoint=bool(mode))
    return x.squeeze(-1) if vector else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): c the Cholesky factor of a, lower or upper triangular."""
    a = as_tensor(a)
    _square(a, "cho_factor")
    L = _linalg.cholesky(a)
    if lower:
        return L, True
    return (L.mT.conj() if L.is_complex() else L.mT), False


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b, given (c, lower) = cho_factor(a)."""
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError):
        raise TypeError("cho_solve: the first argument must be the pair (c, lower) that "
                        "cho_factor returns") from None
    c, b = as_tensors(c, b)
    _square(c, "cho_solve")
    b, vector = _right_hand_side(c, b, "cho_solve")
    if lower:
        y = solve_triangular(c, b, lower=True)
        x = solve_triangular(c, y, trans="C", lower=True)
    else:
        y = solve_triangular(c, b, trans="C", lower=False)
        x = solve_triangular(c, y, lower=False)
    return x.squeeze(-1) if vector else x


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """p, l, u with a = p @ l @ u (partial pivoting, as LAPACK's getrf).

    permute_l=True returns (p @ l, u); p_indices=True returns p as row indices
    with a = l[p] @ u."""
    a = as_tensor(a)
    if a.dim() < 2:
        raise ValueError(f"lu: expected a matrix (or a batch of them), got shape "
                         f"{tuple(a.shape)}")
    P, L, U = _linalg.lu(a)
    if permute_l:
        return P @ L, U
    if p_indices:
        return P.argmax(-1), L, U
    return P, L, U


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """x with a x = b, a given in band storage: ab[u + i - j, j] == a[i, j]."""
    try:
        nlower, nupper = (int(v) for v in l_and_u)
    except (TypeError, ValueError):
        raise TypeError("solve_banded: l_and_u must be the pair (l, u) of the numbers of "
                        "lower and upper diagonals") from None
    ab, b = as_tensors(ab, b)
    if ab.dim() != 2 or ab.shape[0] != nlower + nupper + 1:
        raise ValueError(f"solve_banded: ab of shape {tuple(ab.shape)} must have "
                         f"l + u + 1 = {nlower + nupper + 1} rows")
    n = ab.shape[1]
    if b.dim() == 0 or b.shape[0] != n:
        raise ValueError(f"solve_banded: b of shape {tuple(b.shape)} must have {n} rows, "
                         f"as ab of shape {tuple(ab.shape)} has columns")
    a = None
    for row in range(nlower + nupper + 1):
        d = nupper - row                 # the diagonal this row of ab holds
        if abs(d) >= n:
            continue
        band = ab[row, d:] if d >= 0 else ab[row, :n + d]
        term = _C.diag(band, d)
        a = term if a is None else a + term
    if a is None:
        a = _C.zeros(n, n, dtype=ab.dtype, device=ab.device)
    return _linalg.solve(a, b)
