"""Ready-made parametrizations (``nn.utils.parametrizations``)."""
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm"]


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
