import math

import torchlike
from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalised Pareto distribution (peaks over a threshold) with location
    ``loc``, scale ``scale`` and shape ``concentration``; concentration 0 is
    the exponential limit, a negative one bounds the support above."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        (self.loc, self.scale, self.concentration), batch_shape = broadcast_params(loc, scale, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def _safe_concentration(self):
        """(concentration == 0 as torch.isclose sees it, concentration with
        those entries replaced by 1 so that both branches stay finite)."""
        c = self.concentration
        eq_zero = c.abs() <= 1e-8
        return eq_zero, torchlike.where(eq_zero, torchlike.ones_like(c), c)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        u = torchlike.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + torchlike.ones_like(z)
        where_nonzero = torchlike.where(y == 0, y, y * torchlike.log1p(safe_conc * z))
        return -self.scale.log() - torchlike.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe_conc = self._safe_concentration()
        return torchlike.where(eq_zero, -z, -torchlike.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return torchlike.log1p(-torchlike.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torchlike.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe_concentration()
        logu = torchlike.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * torchlike.expm1(-safe_conc * logu)
        return torchlike.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = torchlike.where(valid, self.concentration, torchlike.full_like(self.concentration, 0.5))
        result = self.loc + self.scale / (1 - safe_conc)
        return torchlike.where(valid, result, torchlike.full_like(result, math.nan))

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = torchlike.where(valid, self.concentration, torchlike.full_like(self.concentration, 0.25))
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return torchlike.where(valid, result, torchlike.full_like(result, math.nan))

    def entropy(self):
        return (torchlike.log(self.scale) + self.concentration + 1).expand(tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = torchlike.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                                torchlike.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)
