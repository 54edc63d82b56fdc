import torchlike
from . import constraints
from .distribution import Distribution
from .bernoulli import _BinaryParams
from .utils import probs_or_logits

__all__ = ["Binomial"]

def _clamp_by_zero(x):
    # equals x.clamp(min=0) but with gradient 1/2 at x == 0, as PyTorch's
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryParams, Distribution):
    """Binomial distribution of ``total_count`` trials, each succeeding with
    ``probs`` (or ``logits``). Sampling counts successes of Bernoulli trials,
    so it costs O(total_count) per draw."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _, (total_count,) = probs_or_logits(self, probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Binomial, batch_shape, _instance, ('total_count', 'probs', 'logits'))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)


    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with torchlike.no_grad():
            return torchlike.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = torchlike.lgamma(self.total_count + 1)
        log_factorial_k = torchlike.lgamma(value + 1)
        log_factorial_nmk = torchlike.lgamma(self.total_count - value + 1)
        # total_count * log(1 + exp(logits)), stable for large |logits|
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * torchlike.log1p(torchlike.exp(-self.logits.abs()))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max().item())
        if not bool((self.total_count == total_count).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torchlike.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max().item())
        if not bool((self.total_count == total_count).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = torchlike.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
