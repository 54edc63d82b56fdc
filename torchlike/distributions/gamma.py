import torchlike
from . import constraints
from ._gamma_ops import gammainc, standard_gamma
from .exp_family import ExponentialFamily
from .utils import broadcast_params, tiny

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale
    ``rate``. ``rsample`` is differentiable in both (implicit
    reparameterisation for the concentration, see ``_gamma_ops``)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        (self.concentration, self.rate), batch_shape = broadcast_params(concentration, rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ('concentration', 'rate'))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # floored in place outside the graph, as PyTorch's: the node stays the
        # division (DivBackward0) and a floored draw keeps its gradient
        value.detach().clamp_(min=tiny(value.dtype))
        return value

    def log_prob(self, value):
        value = torchlike.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (torchlike.xlogy(self.concentration, self.rate)
                + torchlike.xlogy(self.concentration - 1, value)
                - self.rate * value - torchlike.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - torchlike.log(self.rate) + torchlike.lgamma(self.concentration)
                + (1.0 - self.concentration) * torchlike.digamma(self.concentration))

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return torchlike.lgamma(x + 1) + (x + 1) * torchlike.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration.to(torchlike.float64),
                        (self.rate * value).to(torchlike.float64)).to(self.rate.dtype)
