import numbers

import torchlike
from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with ``concentration1`` (alpha) and
    ``concentration0`` (beta); a two-component Dirichlet underneath."""
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            c1, c0 = broadcast_all(concentration1, concentration0)
            batch_shape = torchlike.Size()
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            batch_shape = c1.size()
        self._dirichlet = Dirichlet(torchlike.stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = torchlike.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    @property
    def _natural_params(self):
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        return torchlike.lgamma(x) + torchlike.lgamma(y) - torchlike.lgamma(x + y)

    def entropy(self):
        return self._dirichlet.entropy()

    def __repr__(self):
        return (f"Beta(concentration1: {self.concentration1 if self.concentration1.numel() == 1 else self.concentration1.size()}, "
                f"concentration0: {self.concentration0 if self.concentration0.numel() == 1 else self.concentration0.size()})")
