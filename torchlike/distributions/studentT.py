import math

import torchlike
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location
    ``loc`` and scale ``scale``; rsample divides a normal draw by
    sqrt(Chi2(df) / df)."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return torchlike.where(self.df <= 1, torchlike.full_like(self.loc, math.nan), self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / torchlike.where(df > 2, df - 2, torchlike.ones_like(df))
        m = torchlike.where(df > 2, finite, torchlike.full_like(df, math.inf))
        return torchlike.where(df <= 1, torchlike.full_like(df, math.nan), m)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, self.df.dtype, self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * torchlike.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + torchlike.lgamma(0.5 * self.df) - torchlike.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torchlike.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        lbeta = (torchlike.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - torchlike.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (torchlike.digamma(0.5 * (self.df + 1))
                                         - torchlike.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
