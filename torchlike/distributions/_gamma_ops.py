"""Gamma sampling with implicit reparameterisation gradients, and the
regularised lower incomplete gamma function, written in torchlike ops.

Sampling: torchlike._standard_gamma (Marsaglia and Tsang's method, in C:
src/ndcore/kernels/random_samplers.c).

Gradient: a draw x of Gamma(alpha, 1) is a deterministic function of alpha
for a fixed uniform u = P(alpha, x), the CDF. Differentiating P(alpha, x(alpha))
= u gives dx/dalpha = -(dP/dalpha) / p(x; alpha) (implicit reparameterisation,
Figurnov et al. 2018, the rule PyTorch's _standard_gamma_grad approximates).
dP/dalpha is taken by autograd through the series / continued fraction below,
computed in float64."""
import torchlike


__all__ = ["standard_gamma", "gammainc", "_standard_gamma_grad"]

_MAX_ITER = 2000
_CHECK_EVERY = 16


def _log_prefactor(a, x):
    return a * torchlike.log(x) - x - torchlike.lgamma(a)


def _series(a, x):
    """P(a, x) by its power series; accurate for x < a + 1."""
    term = 1.0 / a
    total = term
    for n in range(1, _MAX_ITER):
        term = term * x / (a + n)
        total = total + term
        if n % _CHECK_EVERY == 0 and bool((term.abs() <= total.abs() * 1e-16).all()):
            break
    return total * torchlike.exp(_log_prefactor(a, x))


def _continued_fraction(a, x):
    """Q(a, x) = 1 - P(a, x) by Lentz's continued fraction; for x >= a + 1."""
    small = 1e-300
    b = x + 1 - a
    c = torchlike.full_like(x, 1.0 / small)
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = torchlike.where(d.abs() < small, torchlike.full_like(d, small), d)
        c = b + an / c
        c = torchlike.where(c.abs() < small, torchlike.full_like(c, small), c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if i % _CHECK_EVERY == 0 and bool(((delta - 1).abs() <= 1e-15).all()):
            break
    return torchlike.exp(_log_prefactor(a, x)) * h


def gammainc(a, x):
    """Regularised lower incomplete gamma P(a, x), differentiable in a and x
    (torch.special.gammainc). Both branches get inputs valid for them, so the
    branch not taken contributes finite zero gradients."""
    a, x = torchlike.broadcast_tensors(a, x)
    x = x.clamp(min=0)
    use_series = x < a + 1
    positive = x > 0
    x_pos = torchlike.where(positive, x, a)
    xs = torchlike.where(use_series, x_pos, a)
    xc = torchlike.where(use_series, a + 1, x_pos)
    p = torchlike.where(use_series, _series(a, xs), 1 - _continued_fraction(a, xc))
    return torchlike.where(positive, p, torchlike.zeros_like(p))


def _standard_gamma_grad(alpha, x):
    """dx/dalpha of a Gamma(alpha, 1) draw x (implicit reparameterisation);
    torch._standard_gamma_grad(self, output).  Not differentiable itself."""
    with torchlike.enable_grad():
        a = alpha.detach().to(torchlike.float64).requires_grad_(True)
        xd = x.detach().to(torchlike.float64)
        p = gammainc(a, xd)
        (dp_da,) = torchlike.autograd.grad(p.sum(), a)
    log_pdf = (a.detach() - 1) * torchlike.log(xd) - xd - torchlike.lgamma(a.detach())
    return (-dp_da * torchlike.exp(-log_pdf)).to(alpha.dtype)


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws; differentiable in alpha when alpha requires grad
    (the draw's node, StandardGammaBackward0 as PyTorch's, sends
    g * _standard_gamma_grad(alpha, x): src/grad/formulas_random.c)."""
    return torchlike._standard_gamma(alpha)
