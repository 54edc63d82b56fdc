import torchlike
from . import constraints
from .categorical import Categorical, _CategoricalParams
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(_CategoricalParams, Distribution):
    """A categorical distribution whose samples are one-hot vectors of size K."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        index = probs.argmax(-1, keepdim=True)
        return torchlike.zeros_like(probs).scatter(-1, index, 1.0)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=torchlike.Size()):
        indices = self._categorical.sample(sample_shape)
        probs = self._categorical.probs
        out = torchlike.zeros(tuple(indices.shape) + (self.event_shape[0],),
                              dtype=probs.dtype, device=probs.device)
        return out.scatter(-1, indices.unsqueeze(-1), 1.0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = torchlike.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values

    def __repr__(self):
        return Distribution.__repr__(self)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients straight through:
    the one-hot draw plus ``probs - probs.detach()`` (Bengio et al. 2013)."""
    has_rsample = True

    def rsample(self, sample_shape=torchlike.Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
