"""scipy.special functions that torchlike has no kernel for, differentiable.

The value is SciPy's own, computed on zero-copy views of CPU tensors (Bessel
functions, incomplete gamma and beta, erfcx, ndtri, erfcinv, erf of complex
numbers): no special function is written here.  The derivative is written
with recorded ops -- usually the same family one order away -- so gradients of
every order are recorded:

    jv'(v, x)  = (jv(v-1, x) - jv(v+1, x)) / 2     (yv alike)
    iv'(v, x)  = (iv(v-1, x) + iv(v+1, x)) / 2
    kv'(v, x)  = -(kv(v-1, x) + kv(v+1, x)) / 2
    ive'       = iv' e^-|x| - sign(x) ive          kve' = kv' e^x + kve
    j0' = -j1, j1' = (j0 - j2)/2, y0' = -y1, y1' = (y0 - y2)/2
    d/dx gammainc(a, x)  = x^(a-1) e^-x / gamma(a) = -d/dx gammaincc(a, x)
    d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)
    erfcx' = 2x erfcx - 2/sqrt(pi)      ndtri' = sqrt(2 pi) e^(ndtri^2 / 2)
    erfcinv' = -sqrt(pi)/2 e^(erfcinv^2)  erf'(z) = 2/sqrt(pi) e^(-z^2)

NOTE: derivatives with respect to an order or a shape parameter (v of jv, a
of gammainc, a and b of betainc) have no closed form here; asking for one
raises NotImplementedError naming the argument rather than returning zero.
On a device other than the CPU these raise NotImplementedError: SciPy runs on
the host only."""
import math

import numpy as np

from . import _C
from ._special import floating
from .autograd.function import Function

Tensor = _C.Tensor
_SQRT_PI = math.sqrt(math.pi)


def _scipy():
    import scipy.special
    return scipy.special


def _inputs(args, func):
    """Tensors of one floating dtype (_special.floating); half precision computes
    in float32, as SciPy has no half loops."""
    tensors = floating(*args)
    for t in tensors:
        if t.device.type != "cpu":
            raise NotImplementedError(f"scipy.special.{func}: no kernel for device "
                                      f"{t.device}; SciPy computes it on the host only")
    if tensors[0].dtype in (_C.float16, _C.bfloat16):
        tensors = [t.to(_C.float32) for t in tensors]
    # Not broadcast here: SciPy broadcasts, and a broadcast view of a constant
    # would be tied to the history of the tensors it was broadcast with.
    return tensors


class _HostSpecial(Function):
    """value = scipy.special.<name>(*args); d value / d args[i] from DERIVATIVES."""

    @staticmethod
    def forward(ctx, name, *args):
        ctx.name = name
        result = getattr(_scipy(), name)(*[a.detach().numpy() for a in args])
        # (np.ascontiguousarray makes a 0-d result 1-d: the shape is put back)
        value = np.asarray(result, dtype=np.dtype(args[0].dtype.name))
        out = _C.from_numpy(np.ascontiguousarray(value)).reshape(value.shape)
        ctx.save_for_backward(*args, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        *args, out = ctx.saved_tensors
        rules = DERIVATIVES[ctx.name]
        grads = [None]
        for i, needed in enumerate(ctx.needs_input_grad[1:]):
            if not needed:
                grads.append(None)
                continue
            rule = rules.get(i)
            if rule is None:
                names = _PARAMS[ctx.name]
                raise NotImplementedError(
                    f"scipy.special.{ctx.name}: the derivative with respect to "
                    f"'{names[i]}' is not implemented (only with respect to "
                    f"{', '.join(repr(names[j]) for j in sorted(rules))})")
            d = rule(*args, out)
            grads.append(grad * (d.conj() if d.is_complex() else d))
        return tuple(grads)


def _call(name, *args):
    return _HostSpecial.apply(name, *_inputs(args, name))


def _ufunc(name):
    def fn(*args):
        return _call(name, *args)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"scipy.special.{name} on tensors (SciPy's value, recorded derivative)."
    return fn


jv, yv, iv, kv, ive, kve = (_ufunc(n) for n in ("jv", "yv", "iv", "kv", "ive", "kve"))
j0, j1, y0, y1 = (_ufunc(n) for n in ("j0", "j1", "y0", "y1"))
gammainc, gammaincc, betainc = (_ufunc(n) for n in ("gammainc", "gammaincc", "betainc"))
erfcx, ndtri, erfcinv = (_ufunc(n) for n in ("erfcx", "ndtri", "erfcinv"))


def yn(n, x):
    """Bessel function of the second kind of integer order n."""
    return _call("yn", n, x)


def erf(z):
    """erf; complex arguments through SciPy (the torchlike kernel is real)."""
    z = z if isinstance(z, Tensor) else _C.tensor(z)
    return _call("erf", z) if z.is_complex() else _C.erf(z)


def erfc(z):
    z = z if isinstance(z, Tensor) else _C.tensor(z)
    return _call("erfc", z) if z.is_complex() else _C.erfc(z)


def _gauss_derivative(sign):
    return lambda z, out: sign * (2 / _SQRT_PI) * _C.exp(-z * z)


DERIVATIVES = {
    "jv": {1: lambda v, x, out: (jv(v - 1, x) - jv(v + 1, x)) / 2},
    "yv": {1: lambda v, x, out: (yv(v - 1, x) - yv(v + 1, x)) / 2},
    "iv": {1: lambda v, x, out: (iv(v - 1, x) + iv(v + 1, x)) / 2},
    "kv": {1: lambda v, x, out: -(kv(v - 1, x) + kv(v + 1, x)) / 2},
    "ive": {1: lambda v, x, out: (ive(v - 1, x) + ive(v + 1, x)) / 2 - _C.sign(x) * out},
    "kve": {1: lambda v, x, out: -(kve(v - 1, x) + kve(v + 1, x)) / 2 + out},
    "yn": {1: lambda n, x, out: (yn(n - 1, x) - yn(n + 1, x)) / 2},
    "j0": {0: lambda x, out: -j1(x)},
    "j1": {0: lambda x, out: (j0(x) - jv(2, x)) / 2},
    "y0": {0: lambda x, out: -y1(x)},
    "y1": {0: lambda x, out: (y0(x) - yv(2, x)) / 2},
    "gammainc": {1: lambda a, x, out: _C.exp((a - 1) * _C.log(x) - x - _C.lgamma(a))},
    "gammaincc": {1: lambda a, x, out: -_C.exp((a - 1) * _C.log(x) - x - _C.lgamma(a))},
    "betainc": {2: lambda a, b, x, out: _C.exp((a - 1) * _C.log(x) + (b - 1) * _C.log1p(-x)
                                               - _C.lgamma(a) - _C.lgamma(b)
                                               + _C.lgamma(a + b))},
    "erfcx": {0: lambda x, out: 2 * x * out - 2 / _SQRT_PI},
    "ndtri": {0: lambda p, out: math.sqrt(2 * math.pi) * _C.exp(out * out / 2)},
    "erfcinv": {0: lambda y, out: -(_SQRT_PI / 2) * _C.exp(out * out)},
    "erf": {0: _gauss_derivative(1)},
    "erfc": {0: _gauss_derivative(-1)},
}

# parameter names, as SciPy's documentation gives them, for error messages
_PARAMS = {"jv": ("v", "z"), "yv": ("v", "z"), "iv": ("v", "z"), "kv": ("v", "z"),
           "ive": ("v", "z"), "kve": ("v", "z"), "yn": ("n", "x"), "j0": ("x",), "j1": ("x",),
           "y0": ("x",), "y1": ("x",), "gammainc": ("a", "x"), "gammaincc": ("a", "x"),
           "betainc": ("a", "b", "x"), "erfcx": ("x",), "ndtri": ("y",), "erfcinv": ("y",),
           "erf": ("z",), "erfc": ("z",)}

# ---- distribution functions, composed of gammainc and betainc ------------------
# SciPy's own identities (its documentation's): the value and the derivative in
# the continuous argument (x, m, p, t) follow from gammainc's and betainc's; a
# count (k, floored as SciPy does) or a shape asks for a derivative in a or b
# of those, which raises naming it.

def _floor(k):
    return _C.floor(floating(k)[0]) if isinstance(k, Tensor) else float(math.floor(k))


def _trunc(k):
    """A count as SciPy's integer loops read a float: toward zero."""
    return _C.trunc(floating(k)[0]) if isinstance(k, Tensor) else float(math.trunc(k))


def _nan_below(k, least, value):
    """value, NaN where the count k is below least (SciPy's domain)."""
    k, v = floating(k, value)
    return _C.where(k < least, float("nan"), v)


def chdtr(v, x):
    """The chi-square CDF with v degrees of freedom."""
    return gammainc(v / 2, x / 2)


def chdtrc(v, x):
    return gammaincc(v / 2, x / 2)


def gdtr(a, b, x):
    """The gamma CDF of rate a and shape b."""
    return gammainc(b, a * x)


def gdtrc(a, b, x):
    return gammaincc(b, a * x)


def pdtr(k, m):
    """The Poisson CDF: P(N <= k) for mean m."""
    k = _floor(k)
    return _nan_below(k, 0, gammaincc(k + 1, m))


def pdtrc(k, m):
    k = _floor(k)
    return _nan_below(k, 0, gammainc(k + 1, m))


def _all_trials(k, n, p, value, rest):
    """SciPy's binomial tail at k = n: value for p in [0, 1] (NaN outside),
    where the beta function's first shape is 0."""
    k, n, q = floating(k, n, p)
    at_n = _C.where((q >= 0) & (q <= 1), value, float("nan"))
    return _C.where(k == n, at_n, rest)


def bdtr(k, n, p):
    """The binomial CDF: P(N <= k) of n trials of probability p (1 for k = n)."""
    k, n = _floor(k), _trunc(n)
    return _nan_below(k, 0, _all_trials(k, n, p, 1.0, betainc(n - k, k + 1, 1 - p)))


def bdtrc(k, n, p):
    """P(N > k): 1 for any k below 0, 0 for k = n (p in [0, 1])."""
    k, n = _floor(k), _trunc(n)
    tail = _all_trials(k, n, p, 0.0, betainc(k + 1, n - k, p))
    k, q, tail = floating(k, p, tail)
    return _C.where(k < 0, _C.where((q >= 0) & (q <= 1), 1.0, float("nan")), tail)


def nbdtr(k, n, p):
    """The negative binomial CDF: at most k failures before n successes."""
    k, n = _trunc(k), _trunc(n)
    return _nan_below(n, 1, _nan_below(k, 0, betainc(n, k + 1, p)))


def nbdtrc(k, n, p):
    k, n = _trunc(k), _trunc(n)
    return _nan_below(n, 1, _nan_below(k, 0, betainc(k + 1, n, 1 - p)))


def fdtr(dfn, dfd, x):
    """The F distribution's CDF (1 at x = inf, whose ratio below is NaN: the
    ratio reads a finite stand-in there, so its gradient stays finite)."""
    x = floating(x, dfn, dfd)[0]
    infinite = _C.isinf(x) & (x > 0)
    safe = _C.where(infinite, 1.0, x)
    return _C.where(infinite, 1.0, betainc(dfn / 2, dfd / 2, dfn * safe / (dfd + dfn * safe)))


def fdtrc(dfn, dfd, x):
    return betainc(dfd / 2, dfn / 2, dfd / (dfd + dfn * x))


def stdtr(df, t):
    """Student's t CDF: half the regularised beta function of df / (df + t^2)
    below 0, one minus it above."""
    t = floating(t, df)[0]
    half = betainc(df / 2, 0.5, df / (df + t * t)) / 2
    return _C.where(t < 0, half, 1 - half)


# scipy.special ufunc name -> implementation (jn is SciPy's name for jv's ufunc)
HOST_UFUNCS = {"jv": jv, "jn": jv, "yv": yv, "iv": iv, "kv": kv, "ive": ive, "kve": kve,
               "yn": yn, "j0": j0, "j1": j1, "y0": y0, "y1": y1, "gammainc": gammainc,
               "gammaincc": gammaincc, "betainc": betainc, "erfcx": erfcx, "ndtri": ndtri,
               "erfcinv": erfcinv, "erf": erf, "erfc": erfc,
               "chdtr": chdtr, "chdtrc": chdtrc, "gdtr": gdtr, "gdtrc": gdtrc, "pdtr": pdtr,
               "pdtrc": pdtrc, "bdtr": bdtr, "bdtrc": bdtrc, "nbdtr": nbdtr, "nbdtrc": nbdtrc,
               "fdtr": fdtr, "fdtrc": fdtrc, "stdtr": stdtr}
