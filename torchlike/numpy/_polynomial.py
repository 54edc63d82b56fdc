"""``np.polynomial`` of the namespace: NumPy's package, seen through thin
modules whose evaluation functions take a tensor ``x`` as NumPy's take an
ndarray.

NumPy's ``polyval(x, c)``, ``chebval`` ... and ``polyvalfromroots(x, r)``
reshape the coefficients for ``tensor=True`` only when ``x`` is an ndarray;
with a tensor ``x`` they broadcast instead, so ``polyvalfromroots(x, r)`` of
a 1-d ``x`` and ``r`` multiplied ``x[i] - r[i]`` pairs into one number, and
a 2-d ``c`` gave the wrong shape.  Here the reshape is done first and NumPy's
function runs with ``tensor=False`` (the same result for a reshaped ``c``).
Everything else (the classes, fitting, arithmetic) is NumPy's own object."""
import inspect
import sys
import types

import numpy as np

from .. import _C

Tensor = _C.Tensor

# submodule -> its evaluation functions with the tensor= argument
_EVALUATIONS = {
    "polynomial": ("polyval", "polyvalfromroots"), "chebyshev": ("chebval",),
    "legendre": ("legval",), "laguerre": ("lagval",), "hermite": ("hermval",),
    "hermite_e": ("hermeval",),
}


def _reshaped(c, x):
    """c with one length-1 axis per axis of x appended (NumPy's tensor=True)."""
    if isinstance(c, Tensor):
        c = c.reshape(1) if c.ndim == 0 else c
        return c.reshape(*c.shape, *(1,) * x.ndim)
    c = np.array(c, ndmin=1, copy=None)
    return c.reshape(c.shape + (1,) * x.ndim)


def _roots_product(x, r):
    """polyvalfromroots(x, r) for a tensor x (tensor=True): prod(x - r) over
    the roots, r given one length-1 axis per axis of x, as NumPy computes it;
    the roots become a tensor beside x (host data does not meet device data)."""
    from . import asarray
    r = r if isinstance(r, Tensor) else asarray(np.array(r, ndmin=1, copy=None), device=x.device)
    r = r.reshape(1) if r.ndim == 0 else r
    if not (r.is_floating_point() or r.is_complex()):
        r = r + 0.0  # NumPy's: integer and bool roots evaluate in float64
    return _C.prod(x - r.reshape(*r.shape, *(1,) * x.ndim), 0)


def _evaluation(func):
    signature = inspect.signature(func)  # (x, c, tensor=True); polyvalfromroots names c r

    def call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x, c, tensor = bound.arguments.values()
        if not (isinstance(x, Tensor) and tensor):
            return func(x, c, tensor)
        if func is np.polynomial.polynomial.polyvalfromroots:
            return _roots_product(x, c)
        if np.ndim(c) <= 1 and not isinstance(c, Tensor):
            # one set of coefficients: NumPy's recurrence on its scalars, which
            # meet x on any device (tensor=True changes nothing for them)
            return func(x, c, tensor=False)
        return func(x, _reshaped(c, x), tensor=False)
    call.__name__ = call.__qualname__ = func.__name__
    call.__doc__ = func.__doc__
    call.__wrapped__ = func
    return call


class _View(types.ModuleType):
    """A module that answers with NumPy's module ``source``, except for the
    attributes set on it."""

    def __init__(self, name, source):
        super().__init__(name, source.__doc__)
        self._source = source

    def __getattr__(self, name):
        return getattr(self._source, name)

    def __dir__(self):
        return sorted(set(dir(self._source)) | set(self.__dict__))


polynomial = _View("torchlike.numpy.polynomial", np.polynomial)
for _sub, _names in _EVALUATIONS.items():
    _module = _View(f"torchlike.numpy.polynomial.{_sub}", getattr(np.polynomial, _sub))
    for _name in _names:
        setattr(_module, _name, _evaluation(getattr(_module._source, _name)))
    setattr(polynomial, _sub, _module)
    sys.modules[_module.__name__] = _module  # import torchlike.numpy.polynomial.chebyshev
sys.modules[polynomial.__name__] = polynomial
del _sub, _names, _module, _name
