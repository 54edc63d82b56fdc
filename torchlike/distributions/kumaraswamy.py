import math

import torchlike
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_params

__all__ = ["Kumaraswamy"]

_EULER = 0.57721566490153286060


def _moments(a, b, n):
    """E[X^n] = b * B(1 + n / a, b) for X ~ Kumaraswamy(a, b)."""
    arg1 = 1 + n / a
    log_value = torchlike.lgamma(arg1) + torchlike.lgamma(b) - torchlike.lgamma(arg1 + b)
    return b * torchlike.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution on (0, 1): (1 - U ** (1 / concentration0))
    ** (1 / concentration1) for U uniform."""
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        (self.concentration1, self.concentration0), _ = broadcast_params(concentration1, concentration0)
        base_dist = Uniform(torchlike.full_like(self.concentration0, 0),
                            torchlike.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((c1 - 1) / (c1 c0 - 1)) ** (1 / c1) where both are >= 1. NOTE: PyTorch's
        # expression, c0^-1 log(1 - c0) - log(1 - c0 c1), is nan for every c0 > 1
        # (a bug); this is the density's argmax (tests check it numerically)
        c1, c0 = self.concentration1, self.concentration0
        log_mode = ((c1 - 1).log() - (c1 * c0 - 1).log()) / c1
        log_mode = torchlike.where((c0 < 1) | (c1 < 1), torchlike.full_like(log_mode, math.nan), log_mode)
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = torchlike.digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * H0 - torchlike.log(self.concentration1) - torchlike.log(self.concentration0)
