import math

import torchlike
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of I0 and I1 (Abramowitz and Stegun 9.8.1-9.8.4),
# the ones PyTorch uses, so that log_prob and variance agree with it to the
# last bit rather than to the approximations' 1e-7.
_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])
_COEF_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2])


def _eval_poly(y, coef):
    """Horner's rule, highest coefficient first."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0 and order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75).pow(2)
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return torchlike.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher's (1979) wrapped-Cauchy envelope, run on whole
    tensors: the still-rejected entries draw again."""
    x = torchlike.zeros(shape, dtype=loc.dtype, device=loc.device)
    done = torchlike.zeros(shape, dtype=torchlike.bool, device=loc.device)
    while not bool(done.all()):
        u = torchlike.rand((3,) + tuple(shape), dtype=loc.dtype, device=loc.device)
        u1, u2, u3 = u.unbind()
        z = torchlike.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        x = torchlike.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises (circular normal) distribution of angles, with mean
    direction ``loc`` and concentration ``concentration``; samples lie in
    [-pi, pi). Mean and variance are the circular ones."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torchlike.Size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torchlike.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _proposal_r(self):
        kappa = self.concentration.to(torchlike.float64)
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        # second-order Taylor expansion around 0 for small kappa
        return torchlike.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=torchlike.Size()):
        """Draws in float64 whatever the dtype: in float32 the rejection loop
        can spin for concentrations near 1e-4."""
        shape = tuple(self._extended_shape(sample_shape))
        with torchlike.no_grad():
            x = _rejection_sample(self.loc.to(torchlike.float64), self.concentration.to(torchlike.float64),
                                  self._proposal_r, shape)
            return x.to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
