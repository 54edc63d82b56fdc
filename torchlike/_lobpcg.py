"""torch.lobpcg: a few extreme eigenpairs of a large symmetric (generalized)
eigenproblem A X = B X diag(E) by Knyazev's locally optimal block
preconditioned conjugate gradient method (SIAM J. Sci. Comput. 23, 2001),
written with torchlike ops (so it runs on any device).

Each iteration (legend: m rows, n block columns, k pairs wanted, k <= n):
    R = A X - B X diag(E)                      residuals          (m, n)
    W = iK R                                   preconditioned     (m, n)
    S = [X, W, P]                              the search space   (m, <= 3n)
    Rayleigh-Ritz on S: the n extreme Ritz pairs give X, E
    P = X_new - X_old (X_old^T B X_new)        the new direction  (m, n)
until the first k residuals satisfy |R_i| < tol (|A| + |E_i| |B|)
(Frobenius norms) or niter iterations.  method="ortho" (the default)
B-orthonormalizes S by the SVQB of Stathopoulos and Wu, dropping the
directions that became dependent, before a standard eigh; method="basic"
solves the generalized Ritz problem through a Cholesky factor of
S^T B S, faster but it fails (LinAlgError) once S loses rank.

Gradients: the eigenvalues are returned as the Rayleigh quotients of the
(detached) eigenvectors, x^T A x / x^T B x, whose derivative in A and B is
exact at converged, simple eigenpairs (Hellmann-Feynman); a gradient
reaching the eigenvectors raises NotImplementedError instead of being
dropped.  PyTorch's ortho_*params tune its own orthogonalization loop and
are accepted and ignored here.  Where PyTorch's Python asserts (A not
square, B or X of the wrong shape: AssertionError), ValueError is raised
with the same words."""
import types

from . import _C
from .autograd.function import Function

__all__ = ["lobpcg"]


def _mm(M, X):
    return X if M is None else _C.matmul(M, X)


def _sym(G):
    """G made exactly symmetric (rounding leaves S^T M S slightly not)."""
    return (G + G.mT) / 2


def _gram(S, M):
    """S^T M S (M None: the identity), symmetric: (cols, cols)."""
    return _sym(_C.matmul(S.mT, _mm(M, S)))


def _b_orthonormal(S, B, drop):
    """SVQB: columns of S made B-orthonormal; directions whose scaled Gram
    eigenvalue is below drop times the largest are removed."""
    from .linalg import eigh
    G = _gram(S, B)
    d = _C.rsqrt(_C.clamp(G.diagonal(), min=1e-300))
    w, Q = eigh(G * d.unsqueeze(1) * d.unsqueeze(0))
    keep = w > drop * _C.clamp(w.max(), min=1e-300)
    Q, w = Q[:, keep], w[keep]
    return _C.matmul(S, d.unsqueeze(1) * Q * _C.rsqrt(w).unsqueeze(0))


def _ritz(S, A, B, n, basic):
    """The n largest Ritz pairs of (A, B) on span(S): (E (n,), C (cols, n))."""
    from .linalg import cholesky, eigh, solve_triangular
    H = _gram(S, A)
    if basic:
        L = cholesky(_gram(S, B))
        Li_H = solve_triangular(L, H, upper=False)
        K = solve_triangular(L, Li_H.mT, upper=False)          # L^-1 H L^-T
        w, V = eigh(_sym(K))
        V = solve_triangular(L.mT, V, upper=True)
    else:
        w, V = eigh(H)
    return w.flip(0)[:n], V.flip(1)[:, :n]


class _Eigenvectors(Function):
    """The eigenvectors, outside the derivative: a gradient reaching them raises."""

    @staticmethod
    def forward(ctx, A, X):
        return X.clone()

    @staticmethod
    def backward(ctx, grad):
        if bool((grad != 0).any()):
            raise NotImplementedError("lobpcg: gradients with respect to the eigenvectors are "
                                      "not implemented; differentiate the eigenvalues, or use "
                                      "linalg.eigh")
        return None, None


def _one(A, B, X, k, n, iK, niter, tol, largest, method, tracker):
    sign = 1.0 if largest else -1.0
    Ad = A.detach() * sign
    Bd = None if B is None else B.detach()
    iK = None if iK is None else iK.detach()
    basic = method == "basic"
    anorm = float(Ad.norm())
    bnorm = 1.0 if Bd is None else float(Bd.norm())
    X = _b_orthonormal(X.detach().to(A.dtype), Bd, tol * tol)
    while X.shape[1] < n:   # a rank-deficient start: complete it with random directions
        fill = _C.randn((X.shape[0], n - X.shape[1]), dtype=X.dtype, device=X.device)
        X = _b_orthonormal(_C.cat([X, fill], 1), Bd, tol * tol)
    E, C = _ritz(X, Ad, Bd, n, basic)
    X = _C.matmul(X, C)
    P = None
    state = types.SimpleNamespace(A=A, B=B, iK=iK, X=X, E=E * sign, R=None,
                                  ivars={"istep": 0, "converged_count": 0},
                                  fvars={"tol": tol}, bvars={"largest": largest}, tvars={})
    for step in range(niter):
        BX = _mm(Bd, X)
        R = _C.matmul(Ad, X) - BX * E.unsqueeze(0)
        rerr = R.norm(dim=0) / (anorm + E.abs() * bnorm)
        converged = int((rerr[:k] < tol).sum())
        state.X, state.E, state.R = X, E * sign, R
        state.ivars.update(istep=step, converged_count=converged)
        if tracker is not None:
            tracker(state)
        if converged == k:
            break
        W = _mm(iK, R)
        S = _C.cat([X, W] + ([] if P is None else [P]), 1)
        if not basic:
            S = _b_orthonormal(S, Bd, tol * tol)
        E, C = _ritz(S, Ad, Bd, n, basic)
        X_new = _C.matmul(S, C)
        P = X_new - _C.matmul(X, _C.matmul(BX.mT, X_new))
        X = X_new
    return X[:, :k]


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The k largest (largest=False: smallest) eigenpairs (E (*, k),
    X (*, m, k)) of symmetric A (*, m, m), or of A x = lambda B x with B
    symmetric positive definite; X (*, m, n) is the initial block (random
    if None, n = k by default), iK a preconditioner, tol the relative
    residual to reach (default eps ** 0.5), niter the iteration cap
    (default 1000).  See the module doc for the algorithm and gradients."""
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"lobpcg(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    if B is not None and tuple(B.shape) != tuple(A.shape):
        raise ValueError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    if A.dtype not in (_C.float32, _C.float64):
        raise RuntimeError(f"lobpcg: expected a float32 or float64 A, got {A.dtype}")
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    if tol is None:
        tol = {_C.float32: 1.2e-07, _C.float64: 2.23e-16}[A.dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    largest = True if largest is None else largest
    niter = 1000 if niter is None else niter
    batch = tuple(A.shape[:-2])
    flatA = A.reshape((-1, m, m))
    flatB = None if B is None else B.reshape((-1, m, m))
    flatX = None if X is None else X.reshape((-1, m, n))
    vecs = []
    for i in range(flatA.shape[0]):
        X0 = _C.randn((m, n), dtype=A.dtype, device=A.device) if flatX is None else flatX[i]
        if tuple(X0.shape) != (m, n):
            raise ValueError(f"X shape mismatch: got {X0.shape}, expected {(m, n)}")
        vecs.append(_one(flatA[i], None if flatB is None else flatB[i], X0, k, n, iK, niter,
                         tol, largest, method or "ortho", tracker))
    V = _C.stack(vecs, 0).reshape(batch + (m, k))
    # eigenvalues as Rayleigh quotients of the detached vectors: differentiable in A, B
    E = (V * _C.matmul(A, V)).sum(-2)
    if B is not None:
        E = E / (V * _C.matmul(B, V)).sum(-2)
    return E, _Eigenvectors.apply(A, V) if A.requires_grad else V
