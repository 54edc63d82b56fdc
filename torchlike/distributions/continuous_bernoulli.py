import math

import torchlike
from . import constraints
from .bernoulli import _bce_with_logits
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_or_logits,
                    probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and
    Cunningham 2019): density proportional to p**x (1-p)**(1-x). Near p = 1/2,
    inside ``lims``, the normaliser and moments switch to their Taylor
    expansions, as PyTorch's, since the closed forms lose all precision there."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        is_scalar, _ = probs_or_logits(self, probs, logits)
        if probs is not None:
            # checked before the clamp below, which would hide bad values
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        batch_shape = torchlike.Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return torchlike.where(self._outside_unstable_region(), self.probs,
                               torchlike.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        """log C(p), the log normalising constant."""
        cut = self._cut_probs()
        below_half = torchlike.where(cut <= 0.5, cut, torchlike.zeros_like(cut))
        above_half = torchlike.where(cut >= 0.5, cut, torchlike.ones_like(cut))
        log_norm = (torchlike.log(torchlike.abs(torchlike.log1p(-cut) - torchlike.log(cut)))
                    - torchlike.where(cut <= 0.5, torchlike.log1p(-2.0 * below_half),
                                      torchlike.log(2.0 * above_half - 1.0)))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (torchlike.log1p(-cut) - torchlike.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return torchlike.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return torchlike.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        vars_ = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
                 + 1.0 / (torchlike.log1p(-cut) - torchlike.log(cut)).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), vars_, taylor)

    def sample(self, sample_shape=torchlike.Size()):
        with torchlike.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=torchlike.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = torchlike.where(self._outside_unstable_region(), cdfs, value)
        return torchlike.where(value <= 0.0, torchlike.zeros_like(value),
                               torchlike.where(value >= 1.0, torchlike.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        closed = ((torchlike.log1p(-cut + value * (2.0 * cut - 1.0)) - torchlike.log1p(-cut))
                  / (torchlike.log(cut) - torchlike.log1p(-cut)))
        return torchlike.where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        log_probs0 = torchlike.log1p(-self.probs)
        log_probs1 = torchlike.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log of the normaliser as a function of the natural parameter,
        with PyTorch's cut-off around 0 (``lims`` shifted by 1/2)."""
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = torchlike.where(out_unst_reg, x, torchlike.full_like(x, self._lims[0] - 0.5))
        log_norm = (torchlike.log(torchlike.abs(torchlike.expm1(cut_nat_params)))
                    - torchlike.log(torchlike.abs(cut_nat_params)))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return torchlike.where(out_unst_reg, log_norm, taylor)
