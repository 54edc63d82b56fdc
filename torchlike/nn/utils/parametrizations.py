"""Ready-made parametrizations (``nn.utils.parametrizations``)."""
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, keeping dims (shape 1
    everywhere but ``dim``); over everything when ``dim`` is None or -1 (as
    PyTorch's ``norm_except_dim``: -1 there means "no dim", not the last one)."""
    if dim is None or dim == -1:
        return v.norm()
    if not -v.ndim <= dim < v.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.ndim}, "
                         f"{v.ndim - 1}], but got {dim})")
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return (v * v).sum(dim=others, keepdim=True).sqrt() if others else v.abs()


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` with the norm over every dim but ``dim``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as magnitude ``original0`` times the
    direction of ``original1`` (Salimans & Kingma, 2016).  State dicts of the
    older hook-based ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``)
    load into it: their two tensors are renamed on the way in, as PyTorch."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def rename_old_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(rename_old_keys)
    return module


class _SpectralNorm(Module):
    """``weight / sigma`` with sigma the largest singular value of the weight
    (reshaped to a matrix with ``dim`` first), estimated by power iteration on
    the buffers ``_u``, ``_v`` (updated in place in training mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        from ... import _C
        from ...autograd.grad_mode import no_grad
        from .. import functional as F
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._matrix(weight)
            h, w = mat.shape
            with no_grad():
                u = _C.empty((h,), dtype=mat.dtype, device=mat.device).normal_(0, 1)
                v = _C.empty((w,), dtype=mat.dtype, device=mat.device).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    def _power_method(self, mat, n_iterations):
        from ...autograd.grad_mode import no_grad
        from .. import functional as F
        with no_grad():
            mat = mat.detach()
            for _ in range(n_iterations):
                self._u.copy_(F.normalize(mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        from .. import functional as F
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * mat.mv(v)).sum()
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm (Miyato et al., 2018)."""
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    weight = getattr(module, name, None)
    if weight is None:
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    return parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))


# ---- orthogonal -----------------------------------------------------------------------------

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _positive_qr(A):
    """The Q of A = QR (A tall) with diag(R) made real and non-negative, so the
    factorisation, and Q, are unique."""
    from ... import linalg
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(Q):
    from ... import _C
    k, n = Q.shape[-1], Q.shape[-2]
    eye = _C.eye(k, dtype=Q.dtype, device=Q.device)
    import numpy as np
    eps = 10.0 * n * float(np.finfo(str(Q.dtype).split(".")[-1].replace("complex64", "float32")
                                    .replace("complex128", "float64")).eps)
    return bool(((Q.mH @ Q) - eye).abs().amax() <= eps) if Q.numel() else True


class _Orthogonal(Module):
    """Maps an unconstrained (*, n, k) tensor to one with orthonormal columns
    (rows when n < k), through the matrix exponential or the Cayley map of a
    skew-symmetric matrix built from its lower triangle, or a product of
    Householder reflectors stored below its diagonal.  With the dynamic
    trivialization, the result is multiplied by the orthogonal ``base``
    matrix, which right_inverse sets, so the unconstrained tensor starts at
    the map's origin."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import _C, linalg
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # X is tall: (*, n, k) with n >= k
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # embed into an (*, n, n) square matrix
                X = _C.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:  # (I + A/2)(I - A/2)^-1, as a solve
                eye = _C.eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # the diagonal of X holds +-1: which reflections are flipped (no gradient)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        from ... import _C, geqrf
        from ...autograd.grad_mode import no_grad
        with no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("matrix_exp", "cayley"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                # Householder: the reflectors of Q's QR, with diag(R) > 0 encoded
                # as the signs on the diagonal (flipped where LAPACK skipped a
                # reflection, tau == 0)
                A, tau = geqrf(Q)
                diag = A.diagonal(dim1=-2, dim2=-1)
                diag.copy_(_C.where(tau == 0, -diag.sign(), diag.sign()))
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _positive_qr(Q)
            else:  # complete Q's columns to an orthogonal (*, n, n) basis
                N = _C.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _positive_qr(_C.cat([Q, N], dim=-1))
            self.base = Q
            # -I: the Householder map of a tensor with -1 on its diagonal and
            # zeros elsewhere is the identity
            neg_eye = _C.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` (a matrix or a batch ``(*, m, n)``) to have
    orthonormal columns (m >= n) or rows (m < n).  ``orthogonal_map``:
    "matrix_exp" or "cayley" (of a skew-symmetric matrix) or "householder"
    (reflectors); by default matrix_exp for square or complex matrices,
    householder otherwise.  ``use_trivialization`` keeps an orthogonal
    ``base`` buffer that assignments move."""
    weight = getattr(module, name, None)
    from ... import _C
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    n, k = weight.shape[-2], weight.shape[-1]
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if n == k or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
