import torchlike
import torchlike.nn.functional as F
from . import constraints
from .bernoulli import _BinaryParams
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property, probs_or_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryParams, Distribution):
    """Number of successes before ``total_count`` failures of Bernoulli(probs)
    trials. Sampling draws Poisson(Gamma(total_count, exp(-logits)))."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _, (total_count,) = probs_or_logits(self, probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(NegativeBinomial, batch_shape, _instance,
                                   ("total_count", "probs", "logits"))

    @property
    def mean(self):
        return self.total_count * torchlike.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torchlike.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=torchlike.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=torchlike.Size()):
        with torchlike.no_grad():
            rate = self._gamma.sample(sample_shape)
            return torchlike.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-torchlike.lgamma(self.total_count + value) + torchlike.lgamma(1.0 + value)
                             + torchlike.lgamma(self.total_count))
        # total_count + value == 0 happens only with total_count 0: the mass sits at 0
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0, 0.0)
        return log_unnormalized_prob - log_normalization
