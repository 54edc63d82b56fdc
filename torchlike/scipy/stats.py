"""torchlike.scipy.stats: SciPy's distributions over differentiable torchlike ops.

Each distribution is an object with SciPy's methods and signatures: shape
parameters positional, then ``loc=`` and ``scale=``; every argument
broadcasts, and values equal SciPy's.  Outside a distribution's support the
density is 0 (log-density -inf); a non-positive scale or an invalid shape
parameter gives NaN, as in SciPy.

Gradients flow to x, loc, scale and to the shape parameters wherever the
function is written with elementary ops (all log-densities).  The cdfs of t,
gamma, beta, chi2 and poisson go through the regularized incomplete gamma and
beta functions, whose derivatives with respect to a shape parameter have no
closed form here: asking for one raises NotImplementedError."""
import math

from .. import _C
from .. import linalg as _linalg
from .._special import log_expit, log_ndtr, ndtr, xlog1py, xlogy, betaln
from .._special_host import betainc, gammainc, gammaincc, ndtri
from ._util import as_tensors

__all__ = ["norm", "t", "gamma", "beta", "chi2", "logistic", "poisson",
           "multivariate_normal", "dirichlet"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_NAN = float("nan")
_NEG_INF = float("-inf")


def _valid(value, ok):
    """value where the parameters are valid, NaN where not (SciPy's answer)."""
    return _C.where(ok, value, _C.full_like(value, _NAN))


def _broadcast(*xs):
    """xs expanded to their common shape, each keeping its own requires_grad
    (broadcast_tensors marks every output as requiring grad when one does)."""
    shape = _C.broadcast_shapes(*[x.shape for x in xs])
    return [x.expand(shape) for x in xs]


def _log(x):
    return _C.log(x)


class _Continuous:
    """log-density and log-cdf are primary; pdf, cdf, sf and logsf follow."""
    _shapes = 0

    def _split(self, args, kwargs, name):
        nshape = self._shapes
        loc = kwargs.pop("loc", 0.0)
        scale = kwargs.pop("scale", 1.0)
        if kwargs:
            raise TypeError(f"{self.name}.{name}() got unexpected keyword arguments "
                            f"{sorted(kwargs)}")
        if len(args) > nshape + 2:
            raise TypeError(f"{self.name}.{name}() takes {nshape} shape parameter(s) "
                            f"plus loc and scale, got {len(args)} positional arguments")
        if len(args) < nshape:
            raise TypeError(f"{self.name}.{name}() missing shape parameter(s) "
                            f"{self._shape_names[len(args):]}")
        rest = args[nshape:]
        if len(rest) > 0:
            loc = rest[0]
        if len(rest) > 1:
            scale = rest[1]
        return args[:nshape], loc, scale

    def _standard(self, name, x, args, kwargs):
        shapes, loc, scale = self._split(list(args), dict(kwargs), name)
        x, loc, scale, *shapes = as_tensors(x, loc, scale, *shapes)
        z = (x - loc) / scale
        ok = scale > 0
        shapes_ok = self._argcheck(*shapes)
        if shapes_ok is not None:
            ok = ok & shapes_ok
        return z, scale, shapes, ok

    def _argcheck(self, *shapes):
        ok = None
        for s in shapes:
            ok = (s > 0) if ok is None else ok & (s > 0)
        return ok

    def logpdf(self, x, *args, **kwargs):
        z, scale, shapes, ok = self._standard("logpdf", x, args, kwargs)
        return _valid(self._logpdf(z, *shapes) - _log(scale), ok)

    def pdf(self, x, *args, **kwargs):
        return _C.exp(self.logpdf(x, *args, **kwargs))

    def cdf(self, x, *args, **kwargs):
        z, _, shapes, ok = self._standard("cdf", x, args, kwargs)
        return _valid(self._cdf(z, *shapes), ok)

    def logcdf(self, x, *args, **kwargs):
        z, _, shapes, ok = self._standard("logcdf", x, args, kwargs)
        return _valid(self._logcdf(z, *shapes), ok)

    def sf(self, x, *args, **kwargs):
        z, _, shapes, ok = self._standard("sf", x, args, kwargs)
        return _valid(self._sf(z, *shapes), ok)

    def logsf(self, x, *args, **kwargs):
        z, _, shapes, ok = self._standard("logsf", x, args, kwargs)
        return _valid(self._logsf(z, *shapes), ok)

    # defaults in terms of one another
    def _logcdf(self, z, *shapes):
        return _log(self._cdf(z, *shapes))

    def _sf(self, z, *shapes):
        return 1 - self._cdf(z, *shapes)

    def _logsf(self, z, *shapes):
        return _log(self._sf(z, *shapes))

    def __repr__(self):
        return f"<torchlike.scipy.stats.{self.name}>"


class norm_gen(_Continuous):
    name = "norm"
    _shape_names = []

    def _logpdf(self, z):
        return -0.5 * z * z - _HALF_LOG_2PI

    def _cdf(self, z):
        return ndtr(z)

    def _logcdf(self, z):
        return log_ndtr(z)

    def _sf(self, z):
        return ndtr(-z)

    def _logsf(self, z):
        return log_ndtr(-z)

    def ppf(self, q, loc=0.0, scale=1.0):
        q, loc, scale = as_tensors(q, loc, scale)
        return _valid(loc + scale * ndtri(q), scale > 0)


class t_gen(_Continuous):
    name = "t"
    _shapes = 1
    _shape_names = ["df"]

    def _logpdf(self, z, df):
        return (_C.lgamma((df + 1) / 2) - _C.lgamma(df / 2) - 0.5 * _log(df * math.pi)
                - (df + 1) / 2 * _C.log1p(z * z / df))

    def _cdf(self, z, df):
        # P(T < -|z|) = I_{df/(df+z^2)}(df/2, 1/2) / 2.  At z = 0 the chain rule
        # meets betainc's infinite slope at 1 times a zero slope of the argument;
        # there the value is written 1/2 + z pdf(0), which has the right slope.
        zero = z == 0
        zs = _C.where(zero, _C.ones_like(z), z)
        df, zs = _broadcast(df, zs)
        tail = 0.5 * betainc(df / 2, _C.full_like(zs, 0.5), df / (df + zs * zs))
        at_zero = 0.5 + z * _C.exp(self._logpdf(_C.zeros_like(z), df))
        return _C.where(zero, at_zero, _C.where(zs < 0, tail, 1 - tail))

    def _sf(self, z, df):
        return self._cdf(-z, df)


class gamma_gen(_Continuous):
    name = "gamma"
    _shapes = 1
    _shape_names = ["a"]

    def _logpdf(self, z, a):
        inside = z >= 0
        zs = _C.where(inside, z, _C.ones_like(z))
        val = xlogy(a - 1, zs) - zs - _C.lgamma(a)
        return _C.where(inside, val, _C.full_like(val, _NEG_INF))

    def _cdf(self, z, a):
        return gammainc(a, _C.clamp(z, min=0.0))

    def _sf(self, z, a):
        return gammaincc(a, _C.clamp(z, min=0.0))


class chi2_gen(_Continuous):
    name = "chi2"
    _shapes = 1
    _shape_names = ["df"]

    def _logpdf(self, z, df):
        return gamma._logpdf(z / 2, df / 2) - math.log(2.0)

    def _cdf(self, z, df):
        return gamma._cdf(z / 2, df / 2)

    def _sf(self, z, df):
        return gamma._sf(z / 2, df / 2)


class beta_gen(_Continuous):
    name = "beta"
    _shapes = 2
    _shape_names = ["a", "b"]

    def _logpdf(self, z, a, b):
        inside = (z >= 0) & (z <= 1)
        zs = _C.where(inside, z, _C.full_like(z, 0.5))
        val = xlogy(a - 1, zs) + xlog1py(b - 1, -zs) - betaln(a, b)
        return _C.where(inside, val, _C.full_like(val, _NEG_INF))

    def _cdf(self, z, a, b):
        a, b, z = _broadcast(a, b, _C.clamp(z, 0.0, 1.0))
        return betainc(a, b, z)

    def _sf(self, z, a, b):
        # I_{1-x}(b, a): accurate where the cdf is close to 1
        a, b, z = _broadcast(a, b, _C.clamp(z, 0.0, 1.0))
        return betainc(b, a, 1 - z)


class logistic_gen(_Continuous):
    name = "logistic"
    _shape_names = []

    def _logpdf(self, z):
        return log_expit(z) + log_expit(-z)

    def _cdf(self, z):
        return _C.sigmoid(z)

    def _logcdf(self, z):
        return log_expit(z)

    def _sf(self, z):
        return _C.sigmoid(-z)

    def _logsf(self, z):
        return log_expit(-z)


class poisson_gen:
    """Poisson(mu) shifted by loc: logpmf/pmf/cdf/logcdf/sf/logsf(k, mu, loc=0)."""
    name = "poisson"

    def _prepare(self, k, mu, loc):
        k, mu, loc = as_tensors(k, mu, loc)
        k = k - loc
        return k, mu, mu >= 0

    def logpmf(self, k, mu, loc=0):
        k, mu, ok = self._prepare(k, mu, loc)
        support = (k >= 0) & (k == _C.floor(k))
        ks = _C.where(support, k, _C.zeros_like(k))
        val = xlogy(ks, mu) - mu - _C.lgamma(ks + 1)
        return _valid(_C.where(support, val, _C.full_like(val, _NEG_INF)), ok)

    def pmf(self, k, mu, loc=0):
        return _C.exp(self.logpmf(k, mu, loc))

    def _cumulative(self, k, mu, loc, upper):
        """P(K <= k) = Q(floor(k) + 1, mu), or P(K > k) = P(floor(k) + 1, mu) when upper."""
        k, mu, ok = self._prepare(k, mu, loc)
        k = _C.floor(k).detach()
        inside = k >= 0
        a, mu = _broadcast(_C.where(inside, k, _C.zeros_like(k)) + 1, mu)
        val = gammainc(a, mu) if upper else gammaincc(a, mu)
        outside = _C.ones_like(val) if upper else _C.zeros_like(val)
        return _valid(_C.where(inside, val, outside), ok)

    def cdf(self, k, mu, loc=0):
        return self._cumulative(k, mu, loc, upper=False)

    def logcdf(self, k, mu, loc=0):
        return _log(self.cdf(k, mu, loc))

    def sf(self, k, mu, loc=0):
        return self._cumulative(k, mu, loc, upper=True)

    def logsf(self, k, mu, loc=0):
        return _log(self.sf(k, mu, loc))

    def __repr__(self):
        return "<torchlike.scipy.stats.poisson>"


def _squeeze(out):
    """SciPy's multivariate results drop axes of length one."""
    return out.reshape([n for n in out.shape if n != 1])


class multivariate_normal_gen:
    """logpdf/pdf(x, mean=None, cov=1) and entropy(mean=None, cov=1).

    x has the dimension on its last axis (a 1-d x is one point, or, when the
    dimension is 1, a list of points); cov is a scalar, a vector (diagonal) or
    a matrix, factored with a Cholesky decomposition."""
    name = "multivariate_normal"

    def _params(self, mean, cov, name, device=None):
        if mean is None:
            mean = 0.0
        mean, cov = as_tensors(mean, cov, device=device)
        if cov.dim() > 2:
            raise ValueError(f"multivariate_normal.{name}: cov must be a scalar, a vector or "
                             f"a matrix, got shape {tuple(cov.shape)}")
        dim = max(mean.numel() if mean.dim() else 1,
                  cov.shape[0] if cov.dim() else 1)
        if mean.dim() == 0:
            mean = mean.expand(dim)
        if mean.dim() != 1:
            raise ValueError(f"multivariate_normal.{name}: mean must be a vector, got shape "
                             f"{tuple(mean.shape)}")
        if cov.dim() == 0:
            cov = cov * _C.eye(dim, dtype=cov.dtype, device=cov.device)
        elif cov.dim() == 1:
            cov = _C.diag_embed(cov)
        if tuple(cov.shape) != (dim, dim) or mean.shape[0] != dim:
            raise ValueError(f"multivariate_normal.{name}: mean of shape {tuple(mean.shape)} "
                             f"and cov of shape {tuple(cov.shape)} do not agree")
        return mean, cov, dim

    def logpdf(self, x, mean=None, cov=1, allow_singular=False):
        if allow_singular:
            raise NotImplementedError("multivariate_normal.logpdf: allow_singular=True (a "
                                      "pseudo-inverse density) is not implemented; cov must "
                                      "be positive definite")
        # mean and cov given as arrays or numbers go to x's device, not the default one
        mean, cov, dim = self._params(mean, cov, "logpdf", device=x.device if isinstance(
            x, _C.Tensor) else None)
        (x,) = as_tensors(x, dtype=mean.dtype)
        x = x.to(device=mean.device)
        if x.dim() == 0:
            x = x.reshape(1, 1) if dim == 1 else x.reshape(1)
        elif x.dim() == 1:
            x = x.reshape(-1, 1) if dim == 1 else x
        if x.shape[-1] != dim:
            raise ValueError(f"multivariate_normal.logpdf: x of shape {tuple(x.shape)} has "
                             f"last axis {x.shape[-1]}, the distribution dimension is {dim}")
        chol = _linalg.cholesky(cov)
        dev = (x - mean).reshape(-1, dim)
        white = _linalg.solve_triangular(chol, dev.mT, upper=False)
        maha = (white * white).sum(0)
        logdet = 2 * _C.log(_C.diagonal(chol)).sum()
        out = -0.5 * (dim * math.log(2 * math.pi) + logdet + maha)
        return _squeeze(out.reshape(x.shape[:-1]))

    def pdf(self, x, mean=None, cov=1, allow_singular=False):
        return _C.exp(self.logpdf(x, mean, cov, allow_singular))

    def entropy(self, mean=None, cov=1):
        mean, cov, dim = self._params(mean, cov, "entropy")
        logdet = 2 * _C.log(_C.diagonal(_linalg.cholesky(cov))).sum()
        return 0.5 * (dim * (1 + math.log(2 * math.pi)) + logdet)

    def __repr__(self):
        return "<torchlike.scipy.stats.multivariate_normal>"


class dirichlet_gen:
    """logpdf/pdf(x, alpha) with SciPy's layout: the components on x's FIRST
    axis (K of them, or K-1 and the last completed as 1 - sum), alpha a vector."""
    name = "dirichlet"

    def _check(self, x, alpha, name):
        x, alpha = as_tensors(x, alpha)
        if alpha.dim() != 1:
            raise ValueError(f"dirichlet.{name}: alpha must be a vector, got shape "
                             f"{tuple(alpha.shape)}")
        if x.dim() == 0 or x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
            raise ValueError(f"dirichlet.{name}: x of shape {tuple(x.shape)} must have "
                             f"{alpha.shape[0]} or {alpha.shape[0] - 1} entries on its first "
                             f"axis (alpha has shape {tuple(alpha.shape)})")
        if bool((alpha <= 0).any()):
            raise ValueError(f"dirichlet.{name}: all entries of alpha must be positive")
        if x.shape[0] == alpha.shape[0] - 1:
            x = _C.cat([x, (1 - x.sum(0)).unsqueeze(0)], 0)
        if bool(((x < 0) | (x > 1)).any()):
            raise ValueError(f"dirichlet.{name}: every entry of x must lie in [0, 1]")
        if bool(((x.sum(0) - 1).abs() > 1e-9 * max(1, x.shape[0])).any()) and \
                x.dtype == _C.float64:
            raise ValueError(f"dirichlet.{name}: x must sum to 1 along its first axis")
        return x, alpha

    def logpdf(self, x, alpha):
        x, alpha = self._check(x, alpha, "logpdf")
        a = alpha.reshape([-1] + [1] * (x.dim() - 1))
        lnb = _C.lgamma(alpha).sum() - _C.lgamma(alpha.sum())
        return xlogy(a - 1, x).sum(0) - lnb

    def pdf(self, x, alpha):
        return _C.exp(self.logpdf(x, alpha))

    def __repr__(self):
        return "<torchlike.scipy.stats.dirichlet>"


norm = norm_gen()
t = t_gen()
gamma = gamma_gen()
chi2 = chi2_gen()
beta = beta_gen()
logistic = logistic_gen()
poisson = poisson_gen()
multivariate_normal = multivariate_normal_gen()
dirichlet = dirichlet_gen()
