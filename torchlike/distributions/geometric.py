
import torchlike
from . import constraints
from .bernoulli import _BinaryParams, _bce_with_logits
from .distribution import Distribution
from .utils import broadcast_all, probs_or_logits, tiny

__all__ = ["Geometric"]


class Geometric(_BinaryParams, Distribution):
    """Number of failures before the first success of Bernoulli(probs)
    trials, on {0, 1, 2, ...}."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        is_scalar, _ = probs_or_logits(self, probs, logits)
        batch_shape = torchlike.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # probs == 0 passes unit_interval but gives no distribution
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to satisfy the constraint {constraints.positive!r}, "
                    f"but found invalid values:\n{value[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torchlike.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with torchlike.no_grad():
            probs = self.probs
            u = torchlike.rand(shape, dtype=probs.dtype, device=probs.device).clamp(min=tiny(probs.dtype))
            return (u.log() / (-probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # probs == 1: all the mass is at 0, where 0 * log(0) counts as 0
        probs = torchlike.where((probs == 1) & (value == 0), torchlike.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs) / self.probs
