"""torch.vander, torch.svd_lowrank, torch.pca_lowrank: Vandermonde matrices
and the randomized low-rank SVD of Halko, Martinsson and Tropp (2009),
composed of matmul, linalg.qr and linalg.svd, so they run on every device
and are differentiable where those are.

Randomized range finder (Algorithm 4.4 of the paper): Q = orth(A R) for a
Gaussian n x q matrix R, refined by ``niter`` power iterations
Q <- orth(A orth(A^H Q)); then A ~ Q (Q^H A) and the SVD of the small
q x n matrix Q^H A gives the factors.  A wide A is handled through its
transpose so that the small matrix has the fewer columns.  ``M`` (a mean
broadcastable to A) is subtracted inside every product, never from A
itself, so a sparse-like structure of A would be kept."""
from . import _C
from ._composites import _need_tensor
from .linalg import qr as _qr, svd as _svd

__all__ = ["vander", "svd_lowrank", "pca_lowrank"]


def vander(x, N=None, increasing=False):
    """(n,) -> (n, N) with columns x ** (N-1), ..., x, 1 (x ** 0, ... with
    increasing=True); N defaults to n; integers and bools widen to int64."""
    _need_tensor("vander", "x", x)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.int64)
    if n == 0:
        return _C.empty((x.shape[0], 0), dtype=x.dtype, device=x.device)
    # cumulative product of [1, x, x, ...]: exact for integers, differentiable
    ones = _C.ones((x.shape[0], 1), dtype=x.dtype, device=x.device)
    w = _C.cumprod(_C.cat([ones, x.unsqueeze(-1).expand(x.shape[0], n - 1)], -1), -1)
    return w if increasing else w.flip(-1)


def _floating(A):
    """A's dtype if floating or complex, else the default float dtype."""
    return A.dtype if (A.is_floating_point() or A.is_complex()) else _C.get_default_dtype()


def _minus_mean(A, M, X, left):
    """A X - M X (left) or A^H X - M^H X: the product with A - M, M broadcast."""
    if left:
        out = _C.matmul(A, X)
        return out if M is None else _C.sub(out, _C.matmul(M, X))
    out = _C.matmul(A.mH, X)
    return out if M is None else _C.sub(out, _C.matmul(M.mH, X))


def get_approximate_basis(A, q, niter=2, M=None):
    """(*, m, n) -> Q (*, m, min(m, q)) with orthonormal columns whose span
    approximates the range of A - M (the randomized range finder)."""
    niter = 2 if niter is None else niter
    R = _C.randn(A.shape[-1], q, dtype=A.dtype, device=A.device)
    Q = _qr(_minus_mean(A, M, R, True)).Q
    for _ in range(niter):
        Q = _qr(_minus_mean(A, M, Q, False)).Q
        Q = _qr(_minus_mean(A, M, Q, True)).Q
    return Q


def _check_matrices(A, fn):
    _need_tensor(fn, "A", A)
    if A.ndim < 2:
        raise ValueError(f"{fn}: A must have at least 2 dimensions, but got {A.ndim}")


def _check_dtype(A, fn):
    if not (A.is_floating_point() or A.is_complex()) or A.dtype in (_C.float16, _C.bfloat16):
        raise RuntimeError(f"{fn}: expected a float32, float64, complex64 or complex128 "
                           f"tensor, but got {A.dtype}")


def svd_lowrank(A, q=6, niter=2, M=None):
    """U (*, m, k), S (*, k), V (*, n, k), k = min(q, m, n), with
    A - M ~ U diag(S) V^H: the randomized SVD.  q a little above the rank
    sought and niter = 2 power iterations give near-optimal factors for
    slowly decaying spectra; results are random (the global generator).
    As PyTorch's, returns V, not V^H."""
    _check_matrices(A, "svd_lowrank")
    _check_dtype(A, "svd_lowrank")
    q = 6 if q is None else q
    if q < 0:
        raise RuntimeError(f"svd_lowrank: q(={q}) must be a non-negative integer")
    m, n = A.shape[-2:]
    if M is not None:   # broadcast (a view) so that M^H is the transpose of A's mean
        M = M.to(A.dtype).expand(A.shape)
    if m < n:  # factor A^H so that the small matrix Q^H A is tall and thin
        U, S, V = _svd_tall(A.mH, q, niter, None if M is None else M.mH)
        return V, S, U
    return _svd_tall(A, q, niter, M)


def _svd_tall(A, q, niter, M):
    Q = get_approximate_basis(A, q, niter=niter, M=M)   # (*, m, k)
    B = _minus_mean(A, M, Q, False).mH                   # Q^H (A - M): (*, k, n)
    U, S, Vh = _svd(B, full_matrices=False)
    return _C.matmul(Q, U), S, Vh.mH


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of A: U, S, V of svd_lowrank of A
    minus its column means (center=True); q defaults to min(6, m, n).  The
    principal directions are V's columns, the projections A V[:, :k]."""
    _check_matrices(A, "pca_lowrank")  # before q's checks, the dtype's after, as PyTorch
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    _check_dtype(A, "pca_lowrank")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(_C.sub(A, A.mean(-2, keepdim=True)), q, niter=niter)
