import torchlike
from . import constraints
from ._gamma_ops import standard_gamma
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import eps, tiny

__all__ = ["Dirichlet"]


def _lbeta(concentration):
    """log of the multivariate Beta function over the last dimension."""
    return torchlike.lgamma(concentration).sum(-1) - torchlike.lgamma(concentration.sum(-1))


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex of the last dimension of
    ``concentration``. ``rsample`` normalises Gamma draws, whose implicit
    reparameterisation gradients carry through the normalisation."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        gammas = standard_gamma(self.concentration.expand(shape))
        out = gammas / gammas.sum(-1, keepdim=True)
        # keep components strictly inside (0, 1) so that log_prob stays finite
        return out.clamp(tiny(out.dtype), 1 - eps(out.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.xlogy(self.concentration - 1.0, value).sum(-1) - _lbeta(self.concentration)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        concm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concm1 / concm1.sum(-1, keepdim=True)
        mask = (self.concentration < 1).all(-1)
        onehot = torchlike.zeros_like(mode).scatter(
            -1, self.concentration.argmax(-1, keepdim=True), 1.0)
        return torchlike.where(mask.unsqueeze(-1), onehot, mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _lbeta(x)

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (_lbeta(self.concentration) + (a0 - k) * torchlike.digamma(a0)
                - ((self.concentration - 1.0) * torchlike.digamma(self.concentration)).sum(-1))
