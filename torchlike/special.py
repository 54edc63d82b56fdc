"""torchlike.special: PyTorch's torch.special namespace.  Each name is the
very op (or function) torchlike has for it, under its plain name where
PyTorch has one too (special.gammainc is torch.igamma, special.multigammaln
torch.mvlgamma, special.expit torch.sigmoid ...); the others (ndtr, bessel_j0,
the orthogonal polynomials ...) are registry ops of their own
(src/ndcore/dispatch/ops.def, docs/elementwise.md, "torch.special")."""
from . import _C
from ._aliases import polygamma
from ._composites import logit, mvlgamma as multigammaln
from .nn._torch_api import softmax, log_softmax

sinc = _C.sinc
erf, erfc, erfinv, erfcx = _C.erf, _C.erfc, _C.erfinv, _C.erfcx
ndtr, ndtri, log_ndtr = _C.ndtr, _C.ndtri, _C.log_ndtr
expit = _C.sigmoid
exp2, expm1, log1p = _C.exp2, _C.expm1, _C.log1p
entr = _C.entr
xlogy, xlog1py = _C.xlogy, _C.xlog1py
i0, i0e, i1, i1e = _C.i0, _C.i0e, _C.i1, _C.i1e
modified_bessel_i0, modified_bessel_i1 = _C.i0, _C.i1
modified_bessel_k0, modified_bessel_k1 = _C.modified_bessel_k0, _C.modified_bessel_k1
scaled_modified_bessel_k0 = _C.scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _C.scaled_modified_bessel_k1
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = _C.bessel_j0, _C.bessel_j1, _C.bessel_y0, _C.bessel_y1
spherical_bessel_j0 = _C.spherical_bessel_j0
airy_ai = _C.airy_ai
digamma = psi = _C.digamma
gammaln = _C.lgamma
gammainc, gammaincc = _C.igamma, _C.igammac
zeta = _C.zeta
chebyshev_polynomial_t = _C.chebyshev_polynomial_t
chebyshev_polynomial_u = _C.chebyshev_polynomial_u
chebyshev_polynomial_v = _C.chebyshev_polynomial_v
chebyshev_polynomial_w = _C.chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _C.shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _C.shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _C.shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _C.shifted_chebyshev_polynomial_w
hermite_polynomial_h, hermite_polynomial_he = _C.hermite_polynomial_h, _C.hermite_polynomial_he
laguerre_polynomial_l = _C.laguerre_polynomial_l
legendre_polynomial_p = _C.legendre_polynomial_p
logsumexp = _C.logsumexp
round = _C.round  # noqa: A001  (torch.special.round shadows the builtin there too)

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
