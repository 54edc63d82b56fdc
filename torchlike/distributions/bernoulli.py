
import torchlike
from . import constraints
from .exp_family import ExponentialFamily
from .utils import lazy_property, logits_to_probs, probs_or_logits, probs_to_logits

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    """Elementwise binary cross entropy of ``target`` under ``logits``,
    written so that large |logits| neither overflow nor lose precision."""
    return logits.clamp(min=0) - logits * target + torchlike.log1p(torchlike.exp(-logits.abs()))


class _BinaryParams:
    """``probs`` and ``logits`` of a success probability, each derived
    lazily from the other (shared by Bernoulli and Binomial)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class Bernoulli(_BinaryParams, ExponentialFamily):
    """Bernoulli distribution given by ``probs`` or by ``logits`` (not both)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        is_scalar, _ = probs_or_logits(self, probs, logits)
        batch_shape = torchlike.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Bernoulli, batch_shape, _instance, ('probs', 'logits'))


    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlike.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torchlike.broadcast_tensors(self.logits, value)
        return -_bce_with_logits(logits, value)

    @property
    def _natural_params(self):
        return (torchlike.logit(self.probs),)

    def _log_normalizer(self, x):
        return torchlike.log1p(torchlike.exp(x))

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = torchlike.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
