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
    # 0 where x == 0 (unless y is NaN), as SciPy; log1p reads a harmless y there
    # so that the branch not taken gives neither inf nor a NaN gradient.
    zero = (x == 0) & ~_C.isnan(y)
    safe = _C.where(zero, 0.0, y)
    return _C.where(zero, 0.0, x * _C.log1p(safe))


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
    return SPECIAL_UFUNCS.get(ufunc.__name__) if is_special(ufunc) else None
