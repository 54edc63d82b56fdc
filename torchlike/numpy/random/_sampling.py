"""Vectorised samplers behind the Generator's distributions, in float64
torchlike ops on the draw's device.

Every sampler takes a ``Source`` (a torchlike generator and a device) and
parameter tensors already broadcast to the output's shape.  Rejection
methods run on flat lanes: each round proposes for the lanes still pending
and keeps the accepted ones (``rejection``); every method here accepts with
a probability bounded away from 0, and a round cap turns a runaway loop
into an error instead of a hang.

Methods (all exact, up to float64 rounding):
  gamma        Marsaglia-Tsang (ACM TOMS 2000); shape < 1 by the boost
               Gamma(a) = Gamma(a + 1) U^(1/a), kept in logs so that tiny
               shapes give log-values instead of underflowed zeros
  binomial     inversion (walking the pmf up from 0) when n min(p, 1-p) < 10,
               else Hoermann's BTRS (transformed rejection with squeeze, 1993)
  hypergeometric  drawing the items one by one when the smaller of the sample
               and its complement has at most 10 items, else Stadlober's
               ratio-of-uniforms (HRUA)
  vonmises     Best and Fisher's rejection (1979); uniform for kappa < 1e-8,
               the wrapped normal for kappa > 1e6
  zipf         Devroye's rejection from the Pareto hat; the hat's uniform is
               drawn only where the draw fits int64
  logseries    Kemp's second accelerated generator (LK, 1981)"""
import math

from ... import _C

F64 = _C.float64
I64 = _C.int64
_MAX_ROUNDS = 100000
_TWO_PI = 2 * math.pi


class Source:
    """Uniform, normal and exponential draws from one generator on one device."""

    def __init__(self, gen, device):
        self.gen = gen
        self.device = device

    def uniform(self, shape):
        """U in [0, 1), 53-bit."""
        return _C.rand(shape, generator=self.gen, dtype=F64, device=self.device)

    def open_uniform(self, shape):
        """U in (0, 1): rand's exact 0 (probability 2^-53) moved to 2^-54."""
        u = self.uniform(shape)
        return _C.where(u == 0, 2.0 ** -54, u)

    def normal(self, shape):
        return _C.randn(shape, generator=self.gen, dtype=F64, device=self.device)

    def exponential(self, shape):
        return _C.empty(shape, dtype=F64, device=self.device).exponential_(1.0, generator=self.gen)

    def int64(self, shape, low, high):
        """Integers in [low, high) for Python ints, high <= 2**63 (Lemire's multiply)."""
        if high == 2 ** 63:  # random_(low, None) reaches the dtype's max
            return _C.empty(shape, dtype=I64, device=self.device).random_(low, None,
                                                                          generator=self.gen)
        return _C.randint(low, high, shape, generator=self.gen, dtype=I64, device=self.device)


def rejection(src, n, params, propose):
    """Flat float64 results for ``n`` lanes: ``propose(m, *params_of_m_lanes)`` returns
    (values, accepted); rejected lanes propose again, with only their parameters."""
    out = _C.empty((n,), dtype=F64, device=src.device)
    idx = None
    for _ in range(_MAX_ROUNDS):
        if n == 0:
            return out
        value, ok = propose(n, *params)
        if idx is None and bool(ok.all()):
            return value
        if idx is None:
            idx = _C.arange(n, device=src.device)
        out[idx[ok]] = value[ok]
        keep = ~ok
        idx = idx[keep]
        params = [p[keep] for p in params]
        n = idx.shape[0]
    raise RuntimeError("rejection sampling did not finish")


def _full(src, shape, param):
    """A float64 parameter broadcast to ``shape`` on the source's device."""
    return _C.as_tensor(param, dtype=F64, device=src.device).expand(shape)


def _lanes(src, shape, *params):
    """The element count of ``shape`` and the parameters flattened to it."""
    n = 1
    for s in shape:
        n *= s
    return n, [_full(src, shape, p).reshape(-1) for p in params]


def log_standard_gamma(src, shape, k):
    """log Gamma(k) draws of ``shape`` (the C sampler, random_samplers.c);
    k == 0 gives -inf.  The logarithm keeps tiny shapes' draws, which
    underflow, apart (beta, dirichlet)."""
    return _C._log_standard_gamma(_full(src, shape, k), src.gen)


def standard_gamma(src, shape, k):
    kf = _full(src, shape, k)
    if kf.numel() and bool((kf >= 1).all()):  # nothing underflows: no logs to take
        return _C._standard_gamma(kf, src.gen)
    return _C.exp(_C._log_standard_gamma(kf, src.gen))  # NumPy's zeros, not a floor


def chisquare(src, shape, df):
    return 2.0 * standard_gamma(src, shape, _C.as_tensor(df, dtype=F64, device=src.device) / 2)


def poisson(src, shape, lam):
    """Poisson counts (float64); rates beyond 2^52, which torchlike.poisson refuses,
    take the normal approximation (relative error below 1e-7 there), inf gives inf."""
    rates = _C.as_tensor(lam, dtype=F64, device=src.device).expand(shape).contiguous()
    huge = rates >= 2.0 ** 52
    if not bool(huge.any()):
        return _C.poisson(rates, generator=src.gen)
    counts = _C.poisson(_C.where(huge, 0.0, rates), generator=src.gen)
    approx = _C.floor(rates + _C.sqrt(rates) * src.normal(shape) + 0.5)
    return _C.where(huge, approx, counts)


# -- binomial -----------------------------------------------------------------

def binomial(src, shape, n, p):
    """Binomial(n, p) counts (float64) of ``shape``: the C sampler
    (random_samplers.c), inversion below n min(p, 1 - p) = 10, else
    Hoermann's BTRS."""
    return _C._binomial(_full(src, shape, n), _full(src, shape, p), src.gen)


# -- hypergeometric ------------------------------------------------------------

_HRUA_D1 = 2 * math.sqrt(2 / math.e)
_HRUA_D2 = 3 - 2 * math.sqrt(3 / math.e)


def _lfact(x):
    return _C.lgamma(x + 1)


def _hyper_direct(src, good, total, m):
    """Good items among m <= 10 drawn one by one."""
    count = _C.zeros_like(good)
    for i in range(int(m.max().item()) if m.shape[0] else 0):
        active = m > i
        pick = active & (src.uniform(good.shape) * total < good)
        count = count + pick.to(F64)
        good = good - pick.to(F64)
        total = total - active.to(F64)
    return count


def _hyper_hrua(src, good, bad, m):
    """Good items among m > 10 drawn from good <= bad: ratio of uniforms."""
    total = good + bad
    p = good / total
    mean = m * p + 0.5
    sd = _C.sqrt((total - m) * m * p * (1 - p) / (total - 1) + 0.5)
    width = _HRUA_D1 * sd + _HRUA_D2
    mode = _C.floor((m + 1) * (good + 1) / (total + 2))

    def lf(z, good, bad, m):
        return _lfact(z) + _lfact(good - z) + _lfact(m - z) + _lfact(bad - m + z)
    top = _C.minimum(_C.minimum(m, good) + 1, _C.floor(mean + 16 * sd))
    head = lf(mode, good, bad, m)

    def propose(k, good, bad, m, mean, width, top, head):
        x = src.open_uniform((k,))
        y = src.uniform((k,))
        w = mean + width * (y - 0.5) / x
        z = _C.floor(w)
        inside = (w >= 0) & (w < top)
        zs = _C.where(inside, z, 0.0)
        t = head - lf(zs, good, bad, m)
        return zs, inside & (2 * _C.log(x) <= t)
    return rejection(src, good.shape[0], [good, bad, m, mean, width, top, head], propose)


def hypergeometric(src, shape, ngood, nbad, nsample):
    """Good items among nsample drawn from ngood good and nbad bad (float64)."""
    count, (good, bad, sample) = _lanes(src, shape, ngood, nbad, nsample)
    total = good + bad
    m = _C.minimum(sample, total - sample)  # the sample or its complement
    few = _C.minimum(good, bad)
    many = _C.maximum(good, bad)
    small = m <= 10
    z = _C.zeros((count,), dtype=F64, device=src.device)
    idx = _C.nonzero(small).reshape(-1)
    if idx.shape[0]:
        z[idx] = _hyper_direct(src, few[idx], total[idx], m[idx])
    idx = _C.nonzero(~small).reshape(-1)
    if idx.shape[0]:
        z[idx] = _hyper_hrua(src, few[idx], many[idx], m[idx])
    z = _C.where(good > bad, m - z, z)           # z counted the smaller colour
    z = _C.where(m < sample, good - z, z)        # z counted the complement
    return z.reshape(shape)


# -- circular, heavy-tailed and logarithmic -------------------------------------

def vonmises(src, shape, mu, kappa):
    n, (muf, kf) = _lanes(src, shape, mu, kappa)
    tiny = kf < 1e-8
    huge = kf > 1e6
    k = _C.where(tiny | huge, 1.0, kf)
    r = 1 + _C.sqrt(1 + 4 * k * k)
    rho = (r - _C.sqrt(2 * r)) / (2 * k)
    s = _C.where(k < 1e-5, 1 / k + k, (1 + rho * rho) / (2 * rho))

    def propose(m, s, k):
        z = _C.cos(math.pi * src.uniform((m,)))
        w = (1 + s * z) / (s + z)
        y = k * (s - w)
        v = src.open_uniform((m,))
        return w, (y * (2 - y) - v >= 0) | (_C.log(y / v) + 1 - y >= 0)
    w = rejection(src, n, [s, k], propose)
    angle = _C.acos(w.clamp(-1, 1))
    angle = _C.where(src.uniform((n,)) < 0.5, -angle, angle)
    angle = _C.where(tiny, math.pi * (2 * src.uniform((n,)) - 1), angle)
    angle = _C.where(huge, src.normal((n,)) / _C.sqrt(kf), angle)
    # into [-pi, pi)
    wrapped = _C.remainder(angle + muf + math.pi, _TWO_PI) - math.pi
    return wrapped.reshape(shape)


def zipf(src, shape, a):
    n, (af,) = _lanes(src, shape, a)
    am1 = af - 1
    b = _C.exp2(am1)
    # X = floor(U^(-1/(a-1))) fits int64 exactly when U > 2^(-63 (a-1))
    low = _C.exp2(-63 * am1)

    def propose(m, am1, b, low):
        u = low + (1 - low) * (1 - src.uniform((m,)))
        v = src.uniform((m,))
        x = _C.floor(u ** (-1 / am1))
        t = _C.exp(am1 * _C.log1p(1 / x))  # (1 + 1/x)^(a-1)
        ok = (x >= 1) & (x < 2.0 ** 63) & (v * x * (t - 1) / (b - 1) <= t / b)
        return x, ok
    return rejection(src, n, [am1, b, low], propose).reshape(shape)


def logseries(src, shape, p):
    n, (pf,) = _lanes(src, shape, p)
    r = _C.log1p(-pf)
    v = src.open_uniform((n,))
    q = -_C.expm1(r * src.open_uniform((n,)))
    deep = _C.floor(1 + _C.log(v) / _C.log(q)).clamp(min=1)
    out = _C.where(v >= pf, 1.0, _C.where(v <= q * q, deep, _C.where(v >= q, 1.0, 2.0)))
    return out.reshape(shape)
