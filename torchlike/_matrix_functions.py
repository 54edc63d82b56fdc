"""Matrix functions composed from the core's differentiable ops:
``linalg.matrix_exp`` and ``linalg.householder_product``.

Both are sums of matrix products and one solve, so autograd differentiates
them through the tape (gradients are those of the computed approximant,
which agrees with the exact derivative to the approximation's accuracy)."""
import math

from . import _C



def _pade_coefficients(m):
    """b_j of the [m/m] Pade approximant of exp: (2m-j)! m! / ((2m)! j! (m-j)!)."""
    f = math.factorial
    return tuple(f(2 * m - j) * f(m) / (f(2 * m) * f(j) * f(m - j)) for j in range(m + 1))


# The approximants used, and the largest 1-norm for which each of degree
# 3..9 is accurate to double precision; above theta_13, scaling and squaring
# (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005).
_PADE = {m: _pade_coefficients(m) for m in (3, 5, 7, 9, 13)}
_THETA = ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1), (7, 9.504178996162932e-1),
          (9, 2.097847961257068e0))
_THETA13 = 5.371920351148152


def _check_square(A, fn):
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"{fn}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim >= 2 else A.numel()} by "
                           f"{A.shape[-1] if A.ndim else 1} matrices")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {str(A.dtype).split('.')[-1]}")


def matrix_exp(A):
    """``exp(A)`` of a square matrix or a batch ``(*, n, n)``, by scaling and
    squaring with the Pade approximant of the smallest degree accurate for
    the batch's largest 1-norm."""
    _check_square(A, "linalg.matrix_exp")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    eye = _C.eye(n, dtype=A.dtype, device=A.device)
    with _no_grad():  # the degree and scaling are picked from values, not differentiated
        norm = float(A.abs().sum(-2).amax()) if n else 0.0
    if not math.isfinite(norm):
        return A * math.nan
    for m, theta in _THETA:
        if norm <= theta:
            return _pade(A, eye, m)
    s = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > 0 else 0
    R = _pade(A / (2.0 ** s), eye, 13)
    for _ in range(s):
        R = R @ R
    return R


def _pade(A, eye, m):
    """The [m/m] Pade approximant: r = (V - U)^-1 (V + U), with U the odd
    and V the even part of the numerator polynomial."""
    b = _PADE[m]
    A2 = A @ A
    if m < 13:
        powers = [eye, A2]
        for _ in range(2, m // 2 + 1):
            powers.append(powers[-1] @ A2)
        U = A @ sum(b[2 * j + 1] * powers[j] for j in range(len(powers)))
        V = sum(b[2 * j] * powers[j] for j in range(len(powers)))
    else:
        A4 = A2 @ A2
        A6 = A4 @ A2
        U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2)
                 + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
        V = (A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2)
             + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye)
    from .linalg import solve
    return solve(V - U, V + U)


def householder_product(A, tau, *, out=None):
    """The first n columns of ``H_1 H_2 ... H_k`` for A ``(*, m, n)`` and tau
    ``(*, k)``: ``H_i = I - tau_i v_i v_i^H``, with v_i zero above row i, one
    at row i and ``A[..., i+1:, i]`` below (LAPACK's orgqr/ungqr storage)."""
    fn = "torch.linalg.householder_product"
    for name, t in (("input", A), ("tau", tau)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"linalg.householder_product(): argument '{name}' must be Tensor, "
                            f"not {type(t).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]")
    k = tau.shape[-1] if tau.ndim else 1
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if k > n:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {tuple(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{fn}: tau dtype {str(tau.dtype).split('.')[-1]} does not match "
                           f"input dtype {str(A.dtype).split('.')[-1]}")
    batch = tuple(A.shape[:-2])
    Q = _C.eye(m, n, dtype=A.dtype, device=A.device).expand(*batch, m, n)
    rows = _C.arange(m, device=A.device)
    for i in reversed(range(k)):
        # v_i: A's column i below the diagonal, 1 on it, 0 above
        v = _C.where(rows > i, A[..., :, i], (rows == i).to(A.dtype))
        w = (v.conj().unsqueeze(-2) @ Q)  # (*, 1, n)
        Q = Q - tau[..., i, None, None] * (v.unsqueeze(-1) @ w)
    Q = Q.contiguous() if batch or k == 0 else Q
    if out is not None:
        out.copy_(Q)
        return out
    return Q


def _no_grad():
    from .autograd import no_grad
    return no_grad()
