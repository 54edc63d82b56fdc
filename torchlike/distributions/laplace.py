import math

import torchlike
from . import constraints
from .distribution import Distribution
from .utils import broadcast_params, eps

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace distribution with location ``loc`` and scale ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ('loc', 'scale'))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        # u uniform on (-1, 1), kept off the end points so log1p(-|u|) is finite
        e = eps(self.loc.dtype)
        u = torchlike.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device) * 2 - 1
        u = u.clamp(-1 + e, 1 - e)
        return self.loc - self.scale * u.sign() * torchlike.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlike.log(2 * self.scale) - torchlike.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * torchlike.expm1(-z.abs())

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torchlike.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + torchlike.log(2 * self.scale)
