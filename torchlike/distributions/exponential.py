import torchlike
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_params

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with rate ``rate`` (mean ``1 / rate``)."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,), batch_shape = broadcast_params(rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, ('rate',))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torchlike.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(tuple(shape), dtype=self.rate.dtype, device=self.rate.device)
        # u lies in [0, 1), so -log(1 - u) is a finite standard exponential draw
        return -torchlike.log1p(-u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torchlike.exp(-self.rate * value)

    def icdf(self, value):
        return -torchlike.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - torchlike.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -torchlike.log(-x)
