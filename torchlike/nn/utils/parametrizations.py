"""Ready-made parametrizations (``nn.utils.parametrizations``)."""
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, keeping dims (shape 1
    everywhere but ``dim``); over everything when ``dim`` is None."""
    if dim is None:
        return v.norm()
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
    direction of ``original1`` (Salimans & Kingma, 2016)."""
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


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
