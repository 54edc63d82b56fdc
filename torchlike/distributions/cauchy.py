import math

import torchlike
from .distribution import _LocationScale

__all__ = ["Cauchy"]


class Cauchy(_LocationScale):
    """Cauchy (Lorentz) distribution with median ``loc`` and half width at
    half maximum ``scale``; mean and variance are undefined (nan, inf)."""

    @property
    def mean(self):
        return torchlike.full(tuple(self._extended_shape()), math.nan,
                              dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        return torchlike.full(tuple(self._extended_shape()), math.inf,
                              dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        u = torchlike.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + torchlike.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torchlike.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
