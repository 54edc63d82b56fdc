import math

import torchlike
from .distribution import _LocationScale
from .utils import eps

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    """Laplace distribution with location ``loc`` and scale ``scale``."""

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
