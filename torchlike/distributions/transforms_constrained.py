"""Transforms onto constrained sets (positive reals, the simplex, Cholesky
factors, positive definite and correlation matrices): the ones
``constraint_registry`` hands out. Re-exported by ``transforms``."""
import math

import torchlike
import torchlike.nn.functional as F
from . import constraints
from .transforms import Transform, _clipped_sigmoid, _softplus
from .utils import eps, tiny

__all__ = ["AbsTransform", "CorrCholeskyTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "SoftmaxTransform", "SoftplusTransform",
           "StickBreakingTransform"]


class _Stateless(Transform):
    """A transform without parameters: all instances of a class are equal."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    def __hash__(self):
        return hash(type(self))


class AbsTransform(_Stateless):
    """y = |x| (not injective: the inverse picks the positive root)."""
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class SoftplusTransform(_Stateless):
    """y = log(1 + exp(x))."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1) = y + log(1 - exp(-y))
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


def _check_vector(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_Stateless):
    """y = softmax(x) over the last dimension (not bijective: x is known up
    to a constant, and the inverse returns log y)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _check_vector(shape)
        return shape

    def inverse_shape(self, shape):
        _check_vector(shape)
        return shape


def _reverse_offsets(x, n, start):
    """(start, start - 1, ..., start - n + 1) in x's dtype and device."""
    return start - torchlike.ones(n, dtype=x.dtype, device=x.device).cumsum(-1) + 1


class StickBreakingTransform(_Stateless):
    """Maps R^(K-1) onto the K-simplex by stick breaking: entry i takes the
    fraction sigmoid(x_i - log(K - 1 - i)) of what the previous entries left,
    so that x = 0 lands on the simplex's centre."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        # x: (..., K-1) -> y: (..., K)
        offset = _reverse_offsets(x, x.shape[-1], x.shape[-1])
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _reverse_offsets(y, y_crop.shape[-1], y.shape[-1] - 1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=tiny(y.dtype))
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = _reverse_offsets(x, x.shape[-1], x.shape[-1])
        x = x - offset.log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _check_vector(shape)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _check_vector(shape)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_Stateless):
    """Unconstrained square matrices to lower triangular ones with a positive
    diagonal: keep the strict lower triangle, exponentiate the diagonal."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + torchlike.diag_embed(x.diagonal(0, -2, -1).exp())

    def _inverse(self, y):
        return y.tril(-1) + torchlike.diag_embed(y.diagonal(0, -2, -1).log())


class PositiveDefiniteTransform(_Stateless):
    """Unconstrained square matrices to positive definite ones: L L^T for
    L the LowerCholeskyTransform of x."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torchlike.linalg.cholesky(y))


def _tril_flat_index(n, diag, device):
    """Flat (row-major) positions in an (n, n) matrix of the entries with
    col - row <= diag, in row-major order."""
    rows, cols = torchlike.tril_indices(n, n, offset=diag, device=device)
    return rows * n + cols


def _vec_to_tril_matrix(vec, diag=0):
    """The lower triangle (col - row <= diag) of a square matrix filled
    row-major from ``vec`` (..., N); zeros elsewhere."""
    N = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * N + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > 1.1920928955078125e-07:
        raise ValueError(f"The size of last dimension is {N} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    flat = torchlike.zeros(tuple(vec.shape[:-1]) + (n * n,), dtype=vec.dtype, device=vec.device)
    flat = flat.index_copy(-1, _tril_flat_index(n, diag, vec.device), vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))


def _tril_matrix_to_vec(mat, diag=0):
    """The entries with col - row <= diag of ``mat`` (..., n, n), row-major."""
    n = mat.shape[-1]
    flat = mat.reshape(tuple(mat.shape[:-2]) + (n * n,))
    return flat.index_select(-1, _tril_flat_index(n, diag, mat.device))


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) to Cholesky factors of D x D correlation matrices: tanh
    maps each entry into (-1, 1), then each row is built by stick breaking so
    that its squared norm is 1 (Lewandowski et al. 2009's partial
    correlations)."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        e = eps(x.dtype)
        x = torchlike.tanh(x).clamp(-1 + e, 1 - e)
        r = _vec_to_tril_matrix(x, diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + torchlike.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - torchlike.cumsum(y * y, dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = _tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = _tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        stick_breaking_logdet = 0.5 * _tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        _check_vector(shape)
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)
