"""``np.polynomial`` of the namespace: NumPy's package, seen through thin
modules whose evaluation functions take a tensor ``x`` as NumPy's take an
ndarray.

NumPy's ``polyval(x, c)``, ``chebval`` ... and ``polyvalfromroots(x, r)``
reshape the coefficients for ``tensor=True`` only when ``x`` is an ndarray;
with a tensor ``x`` they broadcast instead, so ``polyvalfromroots(x, r)`` of
a 1-d ``x`` and ``r`` multiplied ``x[i] - r[i]`` pairs into one number, and
a 2-d ``c`` gave the wrong shape.  Here the reshape is done first and NumPy's
function runs with ``tensor=False`` (the same result for a reshaped ``c``);
the ``*val2d/3d`` and ``*grid2d/3d`` forms evaluate axis by axis through it,
and the ``*vander`` matrices of tensor points run NumPy's code on them.
Tensor coefficients, and the fits of tensor samples, run NumPy's own code
on the tensors (``numpy_code``: on their device, as route 2 runs NumPy's
code).  The series classes are NumPy's, called on a tensor as on an ndarray
(a tensor result, on the tape), fitted to tensor samples on their device
(the coefficients then kept on the host, as NumPy's series keep them);
everything else (arithmetic, roots) is NumPy's own object."""
import inspect
import sys
import types

import numpy as np

from numpy.polynomial import polyutils as _pu

from .. import _C
from .._array_function import (_on_device_of, _rebind, as_tensor, has_tensor, implements,
                               numpy_code)

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
        # tensor coefficients (or roots): NumPy's recurrence run on them, as
        # route 2 runs NumPy's code (its np.array keeps them tensors)
        run = numpy_code if _tensors(c) else _host_call
        if not (isinstance(x, Tensor) and tensor):
            return run(func, x, c, tensor)
        if func is np.polynomial.polynomial.polyvalfromroots:
            return _roots_product(x, c)
        if np.ndim(c) <= 1 and not isinstance(c, Tensor):
            # one set of coefficients: NumPy's recurrence on its scalars, which
            # meet x on any device (tensor=True changes nothing for them)
            return func(x, c, tensor=False)
        return run(func, x, _reshaped(c, x), tensor=False)
    call.__name__ = call.__qualname__ = func.__name__
    call.__doc__ = func.__doc__
    call.__wrapped__ = func
    return call


def _points_and_values(evaluate, func, grid):
    """The module's ``*val2d``/``*val3d`` (values at points) and
    ``*grid2d``/``*grid3d`` (values on the grid of the axes' product) with
    tensors among the arguments.  NumPy's helpers reach the module's own
    evaluation function, which reshapes the coefficients for an ndarray
    axis only: a tensor axis broadcast against them instead (``polygrid2d``
    of tensors gave one value per point, not the grid), and the ``val``
    forms made ndarrays of the tensors.  Here each axis goes through the
    namespace's evaluation (``tensor=True`` for every axis of a grid, for
    the first of a set of points), on the device of the tensors."""
    signature = inspect.signature(func)  # (x, y[, z], c)

    def call(*args, **kwargs):
        *points, c = signature.bind(*args, **kwargs).arguments.values()
        if not _tensors(*points, c):
            return func(*points, c)
        return _on_device_of(evaluate_all, (points, c), {})

    def evaluate_all(points, c):
        # the axes become tensors by the namespace's rule: numbers copied to
        # the tensors' device, an ndarray shared on the CPU and refused beside
        # device tensors (host memory)
        points = [as_tensor(p) for p in points]
        if grid:
            for p in points:
                c = evaluate(p, c)
            return c
        if any(p.shape != points[0].shape for p in points[1:]):
            raise ValueError(f"{', '.join('xyz'[:len(points)])} are incompatible")
        c = evaluate(points[0], c)
        for p in points[1:]:
            c = evaluate(p, c, tensor=False)
        return c
    call.__name__ = call.__qualname__ = func.__name__
    call.__doc__ = func.__doc__
    call.__wrapped__ = func
    return call


def _vanders(func, vander, n):
    """The module's Vandermonde matrix ``func`` of ``n`` sets of sample
    points (``polyvander``, ``polyvander2d`` ...) for tensor points: NumPy's
    code run on them, on their device (its ``np.array(x) + 0.0`` made a
    device tensor's refusal, a CPU tensor's an ndarray)."""
    signature = inspect.signature(func)  # (x[, y[, z]], deg)

    def call(*args, **kwargs):
        *points, deg = signature.bind(*args, **kwargs).arguments.values()
        if not _tensors(*points):
            return func(*points, deg)
        if n == 1:
            return numpy_code(func, *points, deg)
        # the helper NumPy's *vander2d/3d call, given the rebound 1-d matrix
        return numpy_code(_pu._vander_nd_flat, (_rebind(vander),) * n, points, deg)
    call.__name__ = call.__qualname__ = func.__name__
    call.__doc__ = func.__doc__
    call.__wrapped__ = func
    return call


def _host_call(func, *args, **kwargs):
    return func(*args, **kwargs)


def _tensors(*objs):
    return [o for o in objs if isinstance(o, Tensor) or isinstance(o, (list, tuple)) and
            has_tensor(o)]


def _recorded(*objs):
    return _C.is_grad_enabled() and any(getattr(o, "requires_grad", False) for o in objs)


def _fit_function(func, vander):
    """The module's least-squares fit (``polyfit``, ``chebfit`` ...) of tensor
    samples: NumPy's own code (polyutils' ``_fit`` with the module's
    ``*vander``) run on the tensors, so the Vandermonde matrix and lstsq run
    on their device and the coefficients come back there."""
    def fit(x, y, deg, rcond=None, full=False, w=None):
        if not _tensors(x, y, w):
            return func(x, y, deg, rcond, full, w)
        return numpy_code(_pu._fit, _rebind(vander), x, y, deg, rcond, full, w)
    fit.__name__ = fit.__qualname__ = func.__name__
    fit.__doc__ = func.__doc__
    fit.__wrapped__ = func
    return fit


def _getdomain(x):
    """NumPy's polyutils.getdomain for a tensor: the smallest interval (a
    rectangle for complex samples) holding them, as host numbers (a series
    keeps its domain in NumPy arrays)."""
    x = x.detach()
    if x.is_complex():
        lo = complex(float(x.real.min()), float(x.imag.min()))
        hi = complex(float(x.real.max()), float(x.imag.max()))
        return np.array((lo, hi))
    return np.array((float(x.min()), float(x.max())))


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


def _series_class(base, fits):
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

    def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None,
            symbol="x"):
        """NumPy's ``fit`` of tensor samples: the domain mapping and the least
        squares run on the samples' device (``_fit_function``), and the
        series takes its coefficients to the host, where NumPy's series keep
        them (one copy of deg + 1 numbers).  Samples that require grad go to
        NumPy's fit, which refuses them (the host coefficients could not
        carry the gradient)."""
        if not _tensors(x, y, w) or _recorded(x, y, w):
            return base.fit.__func__(cls, x, y, deg, domain, rcond, full, w, window, symbol)
        from . import asarray
        x = x if isinstance(x, Tensor) else asarray(x)
        if domain is None:
            domain = _getdomain(x)
        elif type(domain) is list and len(domain) == 0:
            domain = cls.domain
        if window is None:
            window = cls.window
        off, scl = _pu.mapparms(domain, window)
        res = fitter(off + scl * x, y, deg, w=w, rcond=rcond, full=full)
        coef, status = res if full else (res, None)
        if isinstance(coef, Tensor):
            coef = coef.cpu().numpy()
        series = cls(coef, domain=domain, window=window, symbol=symbol)
        return (series, status) if full else series
    fitter = fits.get(base.__name__)
    body = {"__call__": __call__, "__doc__": base.__doc__,
            "__module__": "torchlike.numpy.polynomial"}
    if fitter is not None:
        body["fit"] = classmethod(fit)
    return type(base.__name__, (base,), body)


polynomial = _View("torchlike.numpy.polynomial", np.polynomial)
_CLASSES = {"polynomial": "Polynomial", "chebyshev": "Chebyshev", "legendre": "Legendre",
            "laguerre": "Laguerre", "hermite": "Hermite", "hermite_e": "HermiteE"}
# submodule -> (its fit, its Vandermonde matrix)
_FITS = {"polynomial": ("polyfit", "polyvander"), "chebyshev": ("chebfit", "chebvander"),
         "legendre": ("legfit", "legvander"), "laguerre": ("lagfit", "lagvander"),
         "hermite": ("hermfit", "hermvander"), "hermite_e": ("hermefit", "hermevander")}
for _sub, _names in _EVALUATIONS.items():
    _module = _View(f"torchlike.numpy.polynomial.{_sub}", getattr(np.polynomial, _sub))
    for _name in _names:
        setattr(_module, _name, _evaluation(getattr(_module._source, _name)))
    _prefix = _names[0][:-3]  # polyval -> poly
    for _n, _nd in enumerate(("vander", "vander2d", "vander3d"), 1):
        setattr(_module, _prefix + _nd, _vanders(getattr(_module._source, _prefix + _nd),
                                                 getattr(_module._source, _prefix + "vander"), _n))
    for _nd, _grid in ((f"{_prefix}val2d", False), (f"{_prefix}val3d", False),
                       (f"{_prefix}grid2d", True), (f"{_prefix}grid3d", True)):
        _source = getattr(_module._source, _nd)
        _call = _points_and_values(getattr(_module, _names[0]), _source, _grid)
        setattr(_module, _nd, _call)
        if not isinstance(_source, types.FunctionType):
            # NumPy dispatches this one (polyval2d, polygrid2d): numpy's own
            # call with tensors reaches the same implementation
            implements(_source)(_call)
    _fit, _vander = _FITS[_sub]
    setattr(_module, _fit, _fit_function(getattr(_module._source, _fit),
                                         getattr(_module._source, _vander)))
    _cls = _series_class(getattr(_module._source, _CLASSES[_sub]),
                         {_CLASSES[_sub]: getattr(_module, _fit)})
    setattr(_module, _cls.__name__, _cls)
    setattr(polynomial, _cls.__name__, _cls)
    setattr(polynomial, _sub, _module)
    sys.modules[_module.__name__] = _module  # import torchlike.numpy.polynomial.chebyshev
sys.modules[polynomial.__name__] = polynomial
del _sub, _names, _module, _name, _cls, _fit, _vander, _prefix, _n, _nd, _grid, _source, _call
