import math

import torchlike
from . import constraints
from .binomial import Binomial
from .categorical import Categorical, _CategoricalParams
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(_CategoricalParams, Distribution):
    """Counts of ``total_count`` draws from Categorical(probs / logits), as
    vectors of K counts (event shape (K,))."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(tuple(batch_shape) + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlike.Size()):
        sample_shape = torchlike.Size(sample_shape)
        with torchlike.no_grad():
            # (total_count,) + sample_shape + batch_shape category indices,
            # counted per category along a new last dimension
            samples = self._categorical.sample(torchlike.Size((self.total_count,) + tuple(sample_shape)))
            samples = samples.permute(*range(1, samples.dim()), 0)
            counts = torchlike.zeros(tuple(self._extended_shape(sample_shape)), dtype=samples.dtype,
                                     device=samples.device)
            counts = counts.scatter_add(-1, samples, torchlike.ones_like(samples))
            return counts.to(self.probs.dtype)

    def entropy(self):
        n = torchlike.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - torchlike.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torchlike.exp(self._binomial.log_prob(support))
        weights = torchlike.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum(0).sum(-1)
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = torchlike.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torchlike.lgamma(value + 1).sum(-1)
        # a category of probability 0 drawn 0 times contributes 0, not 0 * -inf
        logits = torchlike.where((value == 0) & (logits == -math.inf), torchlike.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
