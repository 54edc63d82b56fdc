"""torch.linalg.polar and torch.linalg.matrix_sqrth, composed of linalg.svd
and linalg.eigh (as PyTorch does on the CPU), so they are batched, take
complex input and are differentiable through those factorizations.

polar: A = W diag(S) V^H (thin SVD, m >= n) gives U = W V^H, with
orthonormal columns, and H = V diag(S) V^H, Hermitian positive
semi-definite, with A = U H.  The factors do not depend on the signs
(phases) that the SVD leaves free, so the SVD's gradient is well defined
for them wherever the singular values are distinct; at repeated singular
values the composed gradient is not finite although polar's exists (an
identity-like A is the common case: perturb it, or orthogonalize another
way).

matrix_sqrth: A = Q diag(w) Q^H (eigh, lower triangle) gives
X = Q diag(sqrt(max(w, 0))) Q^H; negative eigenvalues (A not positive
semi-definite) are clamped to zero, as PyTorch does."""

from . import _C
from ._return_types import return_type

PolarResult = return_type("linalg_polar", ["U", "H"])


def _check(fn, A):
    from ._composites import _need_tensor  # here: _composites imports linalg, which imports us
    _need_tensor(f"linalg_{fn}", "A", A)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{fn}: The input tensor A must have at least 2 dimensions.")


def _need_float(fn, A):
    if not (A.is_floating_point() or A.is_complex()):
        from ._composites import _dtype_name
        raise NotImplementedError(f"linalg.{fn}: Expected a floating point or complex tensor "
                                  f"as input. Got {_dtype_name(A.dtype)}")


def polar(A, *, out=None):
    """(*, m, n), m >= n -> U (*, m, n), H (*, n, n) with A = U H."""
    from .linalg import svd
    _check("polar", A)
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"linalg.polar: input must have at least as many rows as columns, "
                           f"but got {m} by {n} matrices")
    _need_float("polar", A)
    W, S, Vh = svd(A, full_matrices=False)
    U = _C.matmul(W, Vh)
    H = _C.matmul(Vh.mH, _C.mul(S.unsqueeze(-1).to(A.dtype), Vh))
    if out is not None:
        for o, r in zip(out, (U, H)):
            o.resize_(r.shape)
            o.copy_(r)
        return PolarResult(*out)
    return PolarResult(U, H)


def matrix_sqrth(A):
    """(*, n, n) symmetric (Hermitian) positive-definite -> its principal
    square root X (*, n, n), X X = A, from A's lower triangle."""
    from .linalg import eigh
    _check("matrix_sqrth", A)
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.matrix_sqrth: A must be batches of square matrices, but "
                           f"they are {m} by {n} matrices")
    _need_float("matrix_sqrth", A)
    w, Q = eigh(A)
    root = _C.sqrt(_C.clamp(w, min=0.0)).unsqueeze(-2).to(A.dtype)   # (*, 1, n)
    return _C.matmul(_C.mul(Q, root), Q.mH)
