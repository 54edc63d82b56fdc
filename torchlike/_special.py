"""scipy.special ufuncs on tensors: each is a torchlike function made of
differentiable torchlike ops, so ``scipy.special.expit(t)`` runs on the
tensor's device and is recorded on the autograd tape like ``t.sigmoid()``.

``Tensor.__array_ufunc__`` (``_ufunc.py``) asks ``special_op(ufunc)`` for any
ufunc it has no torchlike op for; a ufunc is recognised by its name only when
it is the very object ``scipy.special`` exports under that name (scipy is
never imported from here: a scipy ufunc can only reach us once scipy is).

Accuracy notes:
- ``log_ndtr`` is computed in three pieces so that it stays accurate where
  ``log(ndtr(x))`` is not: ``log1p(-ndtr(-x))`` for x > 0,
  ``log(erfc(-x/sqrt 2)/2)`` down to x = -20, and below that the asymptotic
  series (12 terms: relative error under 1e-19 there)
  ``-x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 + 3/x^4 - ...)``.
  The series takes over at -20 rather than where erfc underflows, so that
  the second derivative of the middle piece (which squares ndtr(x)) does
  not underflow either.  Each piece reads x through ``where`` with a
  harmless value outside its range, so the branches not taken give finite
  values (and zero gradients).
- ``logit`` is ``log(x / (1 - x))``: ``1 - x`` is exact for x >= 1/2, so this
  keeps full precision near 1/2, where ``log(x) - log1p(-x)`` would cancel.
"""
import functools
import math
import sys

import numpy as np

from . import _C

__all__ = ["is_special", "special_op", "SPECIAL_UFUNCS"]

_SQRT1_2 = math.sqrt(0.5)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_NDTR_SERIES_BELOW = -20.0
_LOG_NDTR_TERMS = 12


def _tensor(x, like=None):
    if isinstance(x, _C.Tensor):
        return x
    if like is not None:
        return _C.tensor(x, dtype=like.dtype if like.is_floating_point() else None,
                         device=like.device)
    return _C.tensor(x)


def _float(x):
    """x as a floating tensor (integers and bools become the default float,
    as every torchlike float op does)."""
    x = _tensor(x)
    return x if x.is_floating_point() else x.to(_C.get_default_dtype())


def expit(x):
    return _C.sigmoid(_tensor(x))


def logit(x):
    x = _float(x)
    return _C.log(x / (1 - x))


def ndtr(x):
    x = _float(x)
    return _C.erfc(x * -_SQRT1_2) * 0.5


def log_ndtr(x):
    x = _float(x)
    upper = x > 0
    lower = x <= _LOG_NDTR_SERIES_BELOW
    middle = ~(upper | lower)  # NaN lands here and stays NaN
    # x > 0: log(1 - ndtr(-x)), exact to the last bit while ndtr(-x) is tiny
    xu = _C.where(upper, x, 1.0)
    up = _C.log1p(_C.erfc(xu * _SQRT1_2) * -0.5)
    # -20 < x <= 0: log(ndtr(x)) directly
    xm = _C.where(middle, x, -1.0)
    mid = _C.log(_C.erfc(xm * -_SQRT1_2) * 0.5)
    # x <= -20: the asymptotic series of log(ndtr(x)); its terms shrink fast there
    xl = _C.where(lower, x, _LOG_NDTR_SERIES_BELOW)
    inv2 = 1.0 / (xl * xl)
    term = _C.ones_like(xl)
    series = _C.zeros_like(xl)
    for k in range(1, _LOG_NDTR_TERMS + 1):
        term = term * inv2 * -(2 * k - 1)
        series = series + term
    low = xl * xl * -0.5 - _C.log(-xl) - _HALF_LOG_2PI + _C.log1p(series)
    return _C.where(upper, up, _C.where(lower, low, mid))


def xlogy(x, y):
    return _C.xlogy(_tensor(x, y if isinstance(y, _C.Tensor) else None),
                    _tensor(y, x if isinstance(x, _C.Tensor) else None))


def xlog1py(x, y):
    x = _tensor(x, y if isinstance(y, _C.Tensor) else None)
    y = _tensor(y, x)
    # 0 where x == 0 (unless y is NaN), as SciPy.  There x * log1p(y) is 0
    # and its x-gradient log1p(y), PyTorch's; where log1p(y) is not finite
    # (y <= -1, y = inf) log1p reads a harmless 0 instead, so the gradient is
    # 0 there, not inf or NaN.  (+ 0.0: SciPy's zero is +0.)
    zero = (x == 0) & ~_C.isnan(y)
    safe = _C.where(zero & ((y <= -1) | _C.isposinf(y)), 0.0, y)
    return x * _C.log1p(safe) + 0.0


# ---- the gamma family, composed from lgamma and digamma -----------------------------

def gammasgn(x):
    """Sign of gamma(x): 1 for x > 0 (and +0), -1 for -0, alternating between the
    poles for x < 0, NaN at the poles and at -inf."""
    x = _float(x)
    floor = _C.floor(-x)
    neg = _C.where(_C.remainder(floor, 2) == 0, -1.0, 1.0).to(x.dtype)
    sign = _C.where(x > 0, 1.0, _C.where(x == 0, _C.copysign(_C.ones_like(x), x), neg))
    pole = ((x < 0) & (floor == -x)) | _C.isnan(x)
    return _C.where(pole, float("nan"), sign)


def gamma(x):
    x = _float(x)
    return gammasgn(x) * _C.exp(_C.lgamma(x))


def rgamma(x):
    """1 / gamma(x): zero at the poles."""
    x = _float(x)
    pole = (x <= 0) & (_C.floor(x) == x)
    safe = _C.where(pole, 0.5, x)
    return _C.where(pole, 0.0, gammasgn(safe) * _C.exp(-_C.lgamma(safe)))


def betaln(a, b):
    """log |B(a, b)|."""
    a, b = _float_pair(a, b)
    return _C.lgamma(a) + _C.lgamma(b) - _C.lgamma(a + b)


def beta(a, b):
    a, b = _float_pair(a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * _C.exp(betaln(a, b))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d."""
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"multigammaln: d must be a positive integer, got {d!r}")
    a = _float(a)
    if bool((a <= 0.5 * (d - 1)).any()):
        raise ValueError(f"multigammaln: condition a ({a}) > 0.5 * (d-1) ({0.5 * (d - 1)}) "
                         f"not met")
    total = d * (d - 1) / 4 * math.log(math.pi)
    return total + sum(_C.lgamma(a - 0.5 * j) for j in range(d))


def polygamma(n, x):
    """scipy.special.polygamma(n, x) for an integer order n."""
    if isinstance(n, _C.Tensor):
        if n.numel() != 1:
            raise TypeError("polygamma: an array of orders is not supported; call it once per "
                            "order")
        n = int(n.item())
    if int(n) != n or n < 0:
        raise ValueError(f"polygamma: the order must be a non-negative integer, got {n!r}")
    return _C.digamma(_float(x)) if n == 0 else _C._polygamma(_float(x), int(n))


# ---- entropies, from x log x with the limits SciPy gives ----------------------------

def entr(x):
    """-x log x; 0 at 0, -inf for x < 0."""
    x = _float(x)
    safe = _C.where(x > 0, x, 1.0)
    return _C.where(x > 0, -x * _C.log(safe), _C.where(x == 0, 0.0, float("-inf")))


def _in_double(fn):
    """fn computed in float64 for narrower real floats, rounded back once, as
    SciPy's float32 loops do: kl_div's x log(x/y) - x + y cancels, and in
    float32 the logarithms' last bits (which differ between vector math
    libraries) become its leading digits."""
    @functools.wraps(fn)
    def wrapped(x, y):
        x, y = _float_pair(x, y)
        if x.dtype.is_complex or x.dtype == _C.float64:
            return fn(x, y)
        return fn(x.to(_C.float64), y.to(_C.float64)).to(x.dtype)
    return wrapped


@_in_double
def rel_entr(x, y):
    """x log(x / y) for x, y > 0; 0 for x == 0 <= y; inf otherwise."""
    both = (x > 0) & (y > 0)
    sx, sy = _C.where(both, x, 1.0), _C.where(both, y, 1.0)
    inside = sx * (_C.log(sx) - _C.log(sy))
    edge = _C.where((x == 0) & (y >= 0), 0.0, float("inf"))
    nan = _C.isnan(x) | _C.isnan(y)
    return _C.where(nan, float("nan"), _C.where(both, inside, edge))


@_in_double
def kl_div(x, y):
    """rel_entr(x, y) - x + y for x, y > 0; y for x == 0 <= y; inf otherwise."""
    both = (x > 0) & (y > 0)
    edge = _C.where((x == 0) & (y >= 0), y, float("inf"))
    return _C.where(both, rel_entr(x, y) - x + y, _C.where(_C.isnan(x) | _C.isnan(y),
                                                             float("nan"), edge))


def log_expit(x):
    """log(expit(x)) without overflow: -log1p(exp(-x)) for x >= 0, x - log1p(exp(x))
    below."""
    x = _float(x)
    pos = x >= 0
    return _C.where(pos, -_C.log1p(_C.exp(-_C.where(pos, x, 0.0))),
                    x - _C.log1p(_C.exp(_C.where(pos, 0.0, x))))


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (NumPy's normalised sinc)."""
    x = _float(x)
    zero = x == 0
    px = math.pi * _C.where(zero, 1.0, x)
    return _C.where(zero, 1.0, _C.sin(px) / px)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over axis, shifted by the maximum so nothing
    overflows; with return_sign, (log|sum|, sign)."""
    a = _float(a)
    if b is not None:
        a, b = _C.broadcast_tensors(a, _tensor(b, like=a).to(a.dtype))
    dims = tuple(range(a.ndim)) if axis is None else \
        (axis,) if isinstance(axis, int) else tuple(axis)
    dims = tuple(d % a.ndim for d in dims) if a.ndim else ()
    if b is not None:  # where b == 0 the term is absent, whatever a is
        a = _C.where(b == 0, float("-inf"), a)
    top = _C.amax(a, dims, keepdim=True) if dims else a
    top = _C.where(_C.isfinite(top), top, 0.0).detach()
    terms = _C.exp(a - top)
    if b is not None:
        terms = terms * b
    total = _C.sum(terms, dims, keepdim=True) if dims else terms
    sign = _C.sign(total)
    out = _C.log(_C.abs(total) if return_sign else total) + top
    if not keepdims and dims:
        out, sign = out.squeeze(dims), sign.squeeze(dims)
    return (out, sign) if return_sign else out


# ---- small exact-ish forms: losses and power transforms -----------------------------------
# Each follows SciPy's formula and its special cases (checked against SciPy
# 1.17 in tests/test_numpy_layers.py); the branch not taken reads a harmless
# value through `where`, so its gradient is finite (zero).

def cosm1(x):
    """cos(x) - 1 without cancellation near 0: -2 sin(x/2)^2."""
    x = _float(x)
    half = _C.sin(x * 0.5)
    return -2.0 * half * half


def exprel(x):
    """(exp(x) - 1) / x, 1 for |x| < 1e-16, inf above 717 (SciPy's cut-offs)."""
    x = _float(x)
    small = _C.abs(x) < 1e-16
    safe = _C.where(small, 1.0, x)
    return _C.where(small, 1.0, _C.where(x > 717.0, float("inf"), _C.expm1(safe) / safe))


def exp10(x):
    return _C.pow(10.0, _float(x))


def loggamma(x):
    """log Gamma(x) of real x: NaN below 0, as SciPy's real loop (complex
    arguments run SciPy itself: NotImplemented)."""
    x = _tensor(x)
    if x.is_complex():
        return NotImplemented
    x = _float(x)
    return _C.where(x < 0, float("nan"), _C.lgamma(x))


loggamma.may_decline = True  # NotImplemented: never the C fast path's (_ufunc._FAST)


def huber(delta, r):
    """0.5 r^2 for |r| <= delta, delta (|r| - delta/2) beyond; inf for delta < 0."""
    delta, r = _float_pair(delta, r)
    quad = _C.abs(r) <= delta
    return _C.where(delta < 0, float("inf"),
                    _C.where(quad, 0.5 * r * r, delta * (_C.abs(r) - 0.5 * delta)))


def pseudo_huber(delta, r):
    """delta^2 (sqrt(1 + (r/delta)^2) - 1); 0 when delta or r is 0, inf for
    delta < 0."""
    delta, r = _float_pair(delta, r)
    zero = (delta == 0) | (r == 0)
    safe = _C.where(zero | (delta < 0), 1.0, delta)
    v = r / safe
    value = safe * safe * _C.expm1(0.5 * _C.log1p(v * v))  # sqrt(1 + v^2) - 1, no cancellation
    return _C.where(delta < 0, float("inf"), _C.where(zero, 0.0, value))


def powm1(x, y):
    """x**y - 1, accurate for y log(x) near 0: expm1(y log x) for x > 0; 0 when
    y == 0 or x == 1 (even for a NaN partner), as SciPy."""
    x, y = _float_pair(x, y)
    positive = x > 0
    inside = _C.expm1(y * _C.log(_C.where(positive, x, 1.0)))
    value = _C.where(positive, inside, _C.pow(x, y) - 1.0)
    return _C.where((y == 0) | (x == 1), 0.0, value)


def boxcox(x, lmbda):
    """(x^lmbda - 1) / lmbda, log(x) for |lmbda| < 1e-19."""
    x, lmbda = _float_pair(x, lmbda)
    tiny = _C.abs(lmbda) < 1e-19
    safe = _C.where(tiny, 1.0, lmbda)
    return _C.where(tiny, _C.log(x), _C.expm1(safe * _C.log(x)) / safe)


def boxcox1p(x, lmbda):
    """boxcox(1 + x, lmbda) accurate for small x."""
    x, lmbda = _float_pair(x, lmbda)
    lx = _C.log1p(x)
    tiny = (_C.abs(lmbda) < 1e-19) | ((_C.abs(lx) < 1e-289) & (_C.abs(lmbda) < 1e273))
    safe = _C.where(tiny, 1.0, lmbda)
    return _C.where(tiny, lx, _C.expm1(safe * lx) / safe)


def inv_boxcox(y, lmbda):
    """The inverse of boxcox: exp(y) for lmbda == 0, (1 + lmbda y)^(1/lmbda)."""
    y, lmbda = _float_pair(y, lmbda)
    zero = lmbda == 0
    safe = _C.where(zero, 1.0, lmbda)
    return _C.where(zero, _C.exp(y), _C.exp(_C.log1p(safe * y) / safe))


def inv_boxcox1p(y, lmbda):
    """The inverse of boxcox1p; y itself where |lmbda y| < 1e-154 (SciPy's cut-off)."""
    y, lmbda = _float_pair(y, lmbda)
    zero = lmbda == 0
    safe = _C.where(zero, 1.0, lmbda)
    tiny = ~zero & (_C.abs(lmbda * y) < 1e-154)
    return _C.where(zero, _C.expm1(y),
                    _C.where(tiny, y, _C.expm1(_C.log1p(safe * y) / safe)))


def floating(*args):
    """args as tensors of one floating dtype: the tensors' promoted dtype, the
    default float when that is integral; Python numbers are weak (NEP 50) and
    are made in that dtype (sp.xlogy(0.7, t) of a float64 t reads 0.7 as a
    float64, not rounded to float32 first), complex ones making it complex.
    Results live on the given tensors' device (a device's, not a 0-d CPU
    tensor's), not on the default device, which may be another."""
    given = [a for a in args if isinstance(a, _C.Tensor)]
    device = next((t.device for t in given if t.device.type != "cpu"),
                  given[0].device if given else None)
    weak = [isinstance(a, (int, float, complex)) and not isinstance(a, np.generic)
            for a in args]
    strong = [a if isinstance(a, _C.Tensor) else _C.tensor(a, device=device)
              for a, w in zip(args, weak) if not w or not given]
    dtype = strong[0].dtype
    for t in strong[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _C.get_default_dtype()
    if given and not dtype.is_complex and any(w and isinstance(a, complex)
                                              for a, w in zip(args, weak)):
        dtype = _C.complex128 if dtype == _C.float64 else _C.complex64
    strong = iter(strong)
    tensors = [_C.tensor(a, dtype=dtype, device=device) if w and given else next(strong)
               for a, w in zip(args, weak)]
    return [t.to(dtype) for t in tensors]


def _float_pair(a, b):
    return _C.broadcast_tensors(*floating(a, b))


def _unary(name):
    op = getattr(_C, name)

    def fn(x):
        return op(_tensor(x))
    fn.__name__ = name
    return fn


# scipy.special ufunc name -> torchlike implementation
SPECIAL_UFUNCS = {
    "expit": expit,
    "logit": logit,
    "erf": _unary("erf"),
    "erfc": _unary("erfc"),
    "erfinv": _unary("erfinv"),
    "ndtr": ndtr,
    "log_ndtr": log_ndtr,
    "gammaln": _unary("lgamma"),
    "psi": _unary("digamma"),  # scipy.special.digamma is the ufunc named "psi"
    "digamma": _unary("digamma"),
    "xlogy": xlogy,
    "xlog1py": xlog1py,
    "i0": _unary("i0"),
    "i0e": _unary("i0e"),
    "i1": _unary("i1"),
    "i1e": _unary("i1e"),
    "gamma": gamma,
    "rgamma": rgamma,
    "gammasgn": gammasgn,
    "beta": beta,
    "betaln": betaln,
    "entr": entr,
    "rel_entr": rel_entr,
    "kl_div": kl_div,
    "log_expit": log_expit,
    "expm1": _unary("expm1"),
    "log1p": _unary("log1p"),
    "exp2": _unary("exp2"),
    "exp10": exp10,
    "cbrt": _unary("cbrt"),
    "round": _unary("round"),  # half to even, as SciPy's
    "cosm1": cosm1,
    "exprel": exprel,
    "loggamma": loggamma,
    "huber": huber,
    "pseudo_huber": pseudo_huber,
    "powm1": powm1,
    "boxcox": boxcox,
    "boxcox1p": boxcox1p,
    "inv_boxcox": inv_boxcox,
    "inv_boxcox1p": inv_boxcox1p,
}


def is_special(ufunc):
    """Is this ufunc one of scipy.special's?  (Its name is what scipy.special
    exports it under, except digamma, whose ufunc is named psi.)"""
    special = sys.modules.get("scipy.special")
    if special is None:
        return False
    name = ufunc.__name__
    return getattr(special, name, None) is ufunc or getattr(special, _ALIASES.get(name, name),
                                                            None) is ufunc


_ALIASES = {"psi": "digamma", "jv": "jn"}


def _numpy_i0(x):
    return _C.i0(_tensor(x))


# NumPy functions (not ufuncs) that NEP 18 sends here; torchlike.numpy adds
# them to the dispatch table when it fills it.
NUMPY_FUNCTIONS = {np.i0: _numpy_i0}


def special_op(ufunc):
    """The torchlike implementation of a scipy.special ufunc; None for the
    ones without (those run SciPy on the ndarray, or raise a TypeError naming
    the function when a tensor requires grad)."""
    if not is_special(ufunc):
        return None
    from ._special_host import HOST_UFUNCS  # SciPy's values, recorded derivatives
    return HOST_UFUNCS.get(ufunc.__name__) or SPECIAL_UFUNCS.get(ufunc.__name__)
