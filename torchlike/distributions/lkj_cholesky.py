import math

import torchlike
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, tiny

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors L of (dim, dim)
    correlation matrices: L L^T has density proportional to
    det(L L^T) ** (concentration - 1). Sampling is the onion method
    (Lewandowski, Kurowicka and Joe 2009, section 3)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = torchlike.Size((dim, dim))
        # the squared norm of row i's off-diagonal part is Beta(i / 2, c + (dim - 2 - i) / 2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torchlike.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = torchlike.cat([torchlike.zeros((1,), dtype=offset.dtype, device=offset.device), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=torchlike.Size()):
        with torchlike.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = torchlike.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype,
                                       device=y.device).tril(-1)
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
            # the first row has no off-diagonal part (its 0 / 0 above is nan)
            first_row = torchlike.arange(self.dim, device=y.device) == 0
            u_hypersphere = torchlike.where(first_row.unsqueeze(-1), torchlike.zeros_like(u_hypersphere),
                                            u_hypersphere)
            w = torchlike.sqrt(y) * u_hypersphere
            diag_elems = torchlike.clamp(1 - torchlike.sum(w ** 2, dim=-1), min=tiny(w.dtype)).sqrt()
            return w + torchlike.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(0, -1, -2)[..., 1:]
        order = torchlike.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = torchlike.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = torchlike.lgamma(alpha) * dm1
        numerator = torchlike.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
