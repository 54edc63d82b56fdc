"""The distributions NumPy's ``Generator`` and legacy ``RandomState`` share:
NumPy's parameter names, broadcasting, result dtypes (float64 for
continuous, int64 for discrete) and validation messages.

Results are tensors on the draw's device; where NumPy returns a Python or
NumPy scalar (every parameter a scalar, ``size=None``) the result is a 0-d
tensor, as every ``torchlike.numpy`` function returns (``np.sum(x)`` is a
0-d tensor too)."""
import numpy as _np

from ... import _C
from . import _sampling as S
from ._params import F64, I64, Prepared, isnan

_POISSON_LAM_MAX = float(_np.iinfo(_np.int64).max - _np.sqrt(_np.iinfo(_np.int64).max) * 10)


class Distributions:
    """Methods over ``self._bit_generator`` and ``self._device``."""

    _legacy = False

    def _prep(self, size, *values, ints=(), broadcast=True):
        dtypes = [I64 if i in ints else F64 for i in range(len(values))]
        return Prepared(self._bit_generator, self._device, size, values, dtypes, broadcast)

    # -- location-scale families ------------------------------------------------

    def normal(self, loc=0.0, scale=1.0, size=None):
        d = self._prep(size, loc, scale)
        loc, scale = d.values
        d.check(scale < 0, "scale < 0")
        return loc + scale * d.src.normal(d.shape)

    def uniform(self, low=0.0, high=1.0, size=None):
        d = self._prep(size, low, high)
        low, high = d.values
        scalar = not isinstance(low, _C.Tensor) and not isinstance(high, _C.Tensor)
        span = high - low
        if not self._legacy:
            d.check(span < 0, "high - low < 0")
        d.check(~_C.isfinite(_C.as_tensor(span)),
              "high - low range exceeds valid bounds" if scalar and not self._legacy
              else "Range exceeds valid bounds", OverflowError)
        return low + span * d.src.uniform(d.shape)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        d = self._prep(size, mean, sigma)
        mean, sigma = d.values
        d.check(sigma < 0, "sigma < 0")
        return _C.exp(mean + sigma * d.src.normal(d.shape))

    def laplace(self, loc=0.0, scale=1.0, size=None):
        d = self._prep(size, loc, scale)
        loc, scale = d.values
        d.check(scale < 0, "scale < 0")
        return loc + scale * (d.src.exponential(d.shape) - d.src.exponential(d.shape))

    def logistic(self, loc=0.0, scale=1.0, size=None):
        d = self._prep(size, loc, scale)
        loc, scale = d.values
        d.check(scale < 0, "scale < 0")
        u = d.src.open_uniform(d.shape)
        return loc + scale * _C.log(u / (1 - u))

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        d = self._prep(size, loc, scale)
        loc, scale = d.values
        d.check(scale < 0, "scale < 0")
        return loc - scale * _C.log(d.src.exponential(d.shape))

    def exponential(self, scale=1.0, size=None):
        d = self._prep(size, scale)
        (scale,) = d.values
        d.check(scale < 0, "scale < 0")
        return scale * d.src.exponential(d.shape)

    def rayleigh(self, scale=1.0, size=None):
        d = self._prep(size, scale)
        (scale,) = d.values
        d.check(scale < 0, "scale < 0")
        return scale * _C.sqrt(2 * d.src.exponential(d.shape))

    # -- gamma family -------------------------------------------------------------

    def gamma(self, shape, scale=1.0, size=None):
        d = self._prep(size, shape, scale)
        k, scale = d.values
        d.check(k < 0, "shape < 0")
        d.check(scale < 0, "scale < 0")
        return scale * S.standard_gamma(d.src, d.shape, k)

    def _standard_gamma(self, shape, size):
        d = self._prep(size, shape)
        (k,) = d.values
        d.check(k < 0, "shape < 0")
        return S.standard_gamma(d.src, d.shape, k)

    def beta(self, a, b, size=None):
        d = self._prep(size, a, b)
        a, b = d.values
        d.check(a <= 0, "a <= 0")
        d.check(b <= 0, "b <= 0")
        # X / (X + Y) = sigmoid(log X - log Y): no 0/0 when both gammas underflow
        return _C.sigmoid(S.log_standard_gamma(d.src, d.shape, a)
                          - S.log_standard_gamma(d.src, d.shape, b))

    def chisquare(self, df, size=None):
        d = self._prep(size, df)
        (df,) = d.values
        d.check(df <= 0, "df <= 0")
        return S.chisquare(d.src, d.shape, df)

    def noncentral_chisquare(self, df, nonc, size=None):
        d = self._prep(size, df, nonc)
        df, nonc = d.values
        d.check(df <= 0, "df <= 0")
        d.check(nonc < 0, "nonc < 0")
        return _noncentral_chisquare(d.src, d.shape, df, nonc)

    def f(self, dfnum, dfden, size=None):
        d = self._prep(size, dfnum, dfden)
        dfnum, dfden = d.values
        d.check(dfnum <= 0, "dfnum <= 0")
        d.check(dfden <= 0, "dfden <= 0")
        return (S.chisquare(d.src, d.shape, dfnum) * dfden) / \
            (S.chisquare(d.src, d.shape, dfden) * dfnum)

    def noncentral_f(self, dfnum, dfden, nonc, size=None):
        d = self._prep(size, dfnum, dfden, nonc)
        dfnum, dfden, nonc = d.values
        d.check(dfnum <= 0, "dfnum <= 0")
        d.check(dfden <= 0, "dfden <= 0")
        d.check(nonc < 0, "nonc < 0")
        return (_noncentral_chisquare(d.src, d.shape, dfnum, nonc) * dfden) / \
            (S.chisquare(d.src, d.shape, dfden) * dfnum)

    def standard_t(self, df, size=None):
        d = self._prep(size, df)
        (df,) = d.values
        d.check(df <= 0, "df <= 0")
        z = d.src.normal(d.shape)
        return z / _C.sqrt(S.chisquare(d.src, d.shape, df) / df)

    def standard_cauchy(self, size=None):
        d = self._prep(size)
        return d.src.normal(d.shape) / d.src.normal(d.shape)

    # -- power laws -----------------------------------------------------------------

    def pareto(self, a, size=None):
        d = self._prep(size, a)
        (a,) = d.values
        d.check(a <= 0, "a <= 0")
        return _C.expm1(d.src.exponential(d.shape) / a)

    def power(self, a, size=None):
        d = self._prep(size, a)
        (a,) = d.values
        d.check(a <= 0, "a <= 0")
        return (-_C.expm1(-d.src.exponential(d.shape))) ** (1.0 / _C.as_tensor(a, dtype=F64))

    def weibull(self, a, size=None):
        d = self._prep(size, a)
        (a,) = d.values
        d.check(a < 0, "a < 0")
        a = _C.as_tensor(a, dtype=F64, device=d.device)
        e = d.src.exponential(d.shape)
        return _C.where(a == 0, 0.0, e ** (1.0 / a))

    # -- others ---------------------------------------------------------------------

    def triangular(self, left, mode, right, size=None):
        d = self._prep(size, left, mode, right)
        left, mode, right = d.values
        d.check(left > mode, "left > mode")
        d.check(mode > right, "mode > right")
        d.check(left == right, "left == right")
        u = d.src.uniform(d.shape)
        base = right - left
        lbase = mode - left
        rbase = right - mode
        cut = lbase / base
        return _C.where(u <= cut, left + _C.sqrt(u * base * lbase),
                        right - _C.sqrt((1 - u) * base * rbase))

    def vonmises(self, mu, kappa, size=None):
        d = self._prep(size, mu, kappa)
        mu, kappa = d.values
        d.check(kappa < 0, "kappa < 0")
        return S.vonmises(d.src, d.shape, mu, kappa)

    def wald(self, mean, scale, size=None):
        d = self._prep(size, mean, scale)
        mean, scale = d.values
        d.check(mean <= 0, "mean <= 0")
        d.check(scale <= 0, "scale <= 0")
        y = d.src.normal(d.shape) ** 2
        my = mean * y
        x = mean + mean / (2 * scale) * (my - _C.sqrt(4 * scale * my + my * my))
        u = d.src.uniform(d.shape)
        return _C.where(u <= mean / (mean + x), x, mean * mean / x)

    # -- discrete -------------------------------------------------------------------

    def binomial(self, n, p, size=None):
        d = self._prep(size, n, p, ints=(0,))
        n, p = d.values
        d.check(n < 0, "n < 0")
        d.check((p < 0) | (p > 1) | isnan(p) if isinstance(p, _C.Tensor) else
              (p < 0 or p > 1 or p != p), "p < 0, p > 1 or p is NaN")
        return S.binomial(d.src, d.shape, n, p).to(I64)

    def negative_binomial(self, n, p, size=None):
        d = self._prep(size, n, p)
        n, p = d.values
        d.check(n <= 0, "n <= 0")
        if self._legacy:
            d.check(_bad_p(p, 0, False), "p < 0, p > 1 or p is NaN")
        else:
            d.check(_bad_p(p, 0, True), "p <= 0, p > 1 or p contains NaNs")
        p = _C.as_tensor(p, dtype=F64, device=d.device)
        rate = S.standard_gamma(d.src, d.shape, n) * ((1 - p) / p)
        return _int64_counts(S.poisson(d.src, d.shape, rate))

    def poisson(self, lam=1.0, size=None):
        d = self._prep(size, lam)
        (lam,) = d.values
        if isinstance(lam, _C.Tensor):  # NumPy's order for arrays, NaN "too large"
            d.check(~(lam <= _POISSON_LAM_MAX), "lam value too large")
        d.check((lam < 0) | isnan(lam) if isinstance(lam, _C.Tensor) else (lam < 0 or lam != lam),
              "lam < 0 or lam is NaN")
        d.check(lam > _POISSON_LAM_MAX, "lam value too large")
        return S.poisson(d.src, d.shape, lam).to(I64)

    def geometric(self, p, size=None):
        d = self._prep(size, p)
        (p,) = d.values
        d.check(_bad_p(p, 0, True), "p <= 0, p > 1 or p contains NaNs")
        p = _C.as_tensor(p, dtype=F64, device=d.device)
        k = _C.ceil(-d.src.exponential(d.shape) / _C.log1p(-p))
        return _int64_counts(k.clamp(min=1))

    def logseries(self, p, size=None):
        d = self._prep(size, p)
        (p,) = d.values
        d.check((p < 0) | (p >= 1) | isnan(p) if isinstance(p, _C.Tensor) else
              (p < 0 or p >= 1 or p != p), "p < 0, p >= 1 or p is NaN")
        return S.logseries(d.src, d.shape, p).to(I64)

    def zipf(self, a, size=None):
        d = self._prep(size, a)
        (a,) = d.values
        d.check((a <= 1) | isnan(a) if isinstance(a, _C.Tensor) else (a <= 1 or a != a),
              "a <= 1 or a is NaN")
        return _int64_counts(S.zipf(d.src, d.shape, a))

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        d = self._prep(size, ngood, nbad, nsample, ints=(0, 1, 2))
        good, bad, sample = d.values
        d.check(good + bad < sample, "ngood + nbad < nsample")  # NumPy's first check
        d.check(good < 0, "ngood < 0")
        d.check(bad < 0, "nbad < 0")
        if self._legacy:
            d.check(sample < 1, "nsample < 1 or nsample is NaN")
        else:
            d.check(sample < 0, "nsample < 0")
        d.check(good + bad < sample, "ngood + nbad < nsample")
        if not self._legacy:
            d.check((good >= 10**9) | (bad >= 10**9) if isinstance(good + bad, _C.Tensor)
                  else (good >= 10**9 or bad >= 10**9),
                  "both ngood and nbad must be less than 1000000000")
        return S.hypergeometric(d.src, d.shape, good, bad, sample).to(I64)

    def _choice_index(self, src, pop, count, replace, p):
        """``count`` flat indices into ``pop`` items (p: float64 tensor or None)."""
        if count == 0:
            return _C.zeros((0,), dtype=I64, device=src.device)
        if replace:
            if p is None:
                return src.int64((count,), 0, pop)
            cdf = _C.cumsum(p, 0)
            cdf = cdf / cdf[-1]
            idx = _C.searchsorted(cdf, src.uniform((count,)), right=True)
            return idx.clamp(max=pop - 1)
        if p is not None:
            return _C.multinomial(p, count, replacement=False, generator=src.gen)
        if pop > 10000 and count * 50 < pop:
            return _floyd(src, pop, count)
        return _C.randperm(pop, generator=src.gen, device=src.device)[:count]


def _floyd(src, pop, count):
    """``count`` distinct integers of [0, pop) in random order: Floyd's algorithm
    on the host (count is small) from one vector of draws, then permuted."""
    u = src.uniform((count,)).cpu().tolist()
    chosen = []
    seen = set()
    for i, ui in enumerate(u):
        j = pop - count + i
        t = min(int(ui * (j + 1)), j)
        pick = j if t in seen else t
        seen.add(pick)
        chosen.append(pick)
    order = _C.randperm(count, generator=src.gen, device=src.device)
    return _C.as_tensor(chosen, dtype=I64, device=src.device)[order]


def _bad_p(p, low, low_strict):
    """p outside (low, 1] (low_strict) or [low, 1], or NaN."""
    if isinstance(p, _C.Tensor):
        return ((p <= low) if low_strict else (p < low)) | (p > 1) | isnan(p)
    return (p <= low if low_strict else p < low) or p > 1 or p != p


def _int64_counts(x):
    """Float counts as int64, the ones beyond int64 at its max."""
    return _C.where(x >= 2.0 ** 63, float(2 ** 63 - 1024), x).to(I64)


def _noncentral_chisquare(src, shape, df, nonc):
    """Chi-square with df + 2 K degrees of freedom, K ~ Poisson(nonc / 2)."""
    k = S.poisson(src, shape, _C.as_tensor(nonc, dtype=F64, device=src.device) / 2)
    return S.chisquare(src, shape, df + 2 * k)

