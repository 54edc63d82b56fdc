import math

import torchlike
from .cauchy import Cauchy
from .half_normal import _HalfFamily
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfFamily):
    """|X| for X ~ Cauchy(0, scale); its mean and variance are infinite."""

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def mean(self):
        return torchlike.full(tuple(self._extended_shape()), math.inf,
                              dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance
