"""``np.polynomial`` of the namespace: NumPy's package, seen through thin
modules whose evaluation functions take a tensor ``x`` as NumPy's take an
ndarray.

NumPy's ``polyval(x, c)``, ``chebval`` ... and ``polyvalfromroots(x, r)``
reshape the coefficients for ``tensor=True`` only when ``x`` is an ndarray;
with a tensor ``x`` they broadcast instead, so ``polyvalfromroots(x, r)`` of
a 1-d ``x`` and ``r`` multiplied ``x[i] - r[i]`` pairs into one number, and
a 2-d ``c`` gave the wrong shape.  Here the reshape is done first and NumPy's
function runs with ``tensor=False`` (the same result for a reshaped ``c``).
The series classes are NumPy's, called on a tensor as on an ndarray (a
tensor result, on the tape); everything else (fitting, arithmetic) is
NumPy's own object."""
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


def _series_class(base):
    """NumPy's series class ``base`` whose call takes a tensor as NumPy's
    takes an ndarray: NumPy's maps the domain with np.asanyarray, so p(t)
    gave an ndarray, refused a tensor that requires grad and a device
    tensor.  The tensor is mapped with tensor ops (in NumPy's result dtype)
    and evaluated by the recorded evaluation function; anything else is
    NumPy's call."""
    evaluate = _evaluation(base._val)

    def __call__(self, arg):
        if not isinstance(arg, Tensor):
            return base.__call__(self, arg)
        from .._array_function import np_dtype, tl_dtype
        want = tl_dtype(np.result_type(np_dtype(arg.dtype), self.coef.dtype))
        off, scl = self.mapparms()
        return evaluate(off + scl * arg.to(want), self.coef)
    return type(base.__name__, (base,), {"__call__": __call__, "__doc__": base.__doc__,
                                         "__module__": "torchlike.numpy.polynomial"})


polynomial = _View("torchlike.numpy.polynomial", np.polynomial)
_CLASSES = {"polynomial": "Polynomial", "chebyshev": "Chebyshev", "legendre": "Legendre",
            "laguerre": "Laguerre", "hermite": "Hermite", "hermite_e": "HermiteE"}
for _sub, _names in _EVALUATIONS.items():
    _module = _View(f"torchlike.numpy.polynomial.{_sub}", getattr(np.polynomial, _sub))
    for _name in _names:
        setattr(_module, _name, _evaluation(getattr(_module._source, _name)))
    _cls = _series_class(getattr(_module._source, _CLASSES[_sub]))
    setattr(_module, _cls.__name__, _cls)
    setattr(polynomial, _cls.__name__, _cls)
    setattr(polynomial, _sub, _module)
    sys.modules[_module.__name__] = _module  # import torchlike.numpy.polynomial.chebyshev
sys.modules[polynomial.__name__] = polynomial
del _sub, _names, _module, _name, _cls
