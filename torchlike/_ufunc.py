"""NEP 13: NumPy ufuncs called on tensors run torchlike ops.

``np.sin(t)``, ``np.add(a, t, out=t2)``, ``np.add.reduce(t, axis=0)`` and
``np.multiply.accumulate(t)`` reach ``Tensor.__array_ufunc__``.  A ufunc with a
torchlike op of the same meaning runs that op, so the result is a tensor made by
the same call path as ``torchlike.sin(t)``; one without runs NumPy on zero-copy
views of the CPU tensors and wraps the result.

NOTE: results follow torchlike's promotion rules whichever namespace calls
them (``np.divide`` on int tensors gives the default float dtype, as
``torchlike.divide`` does), as the design asks of every operator on tensors.
"""
import warnings

import numpy as np

from . import _C
from ._array_function import _DEVICE, accumulator_dtype, as_tensor, check_fallback, tl_dtype
from ._special import is_special, special_op

# ufunc name -> torchlike function name, where they are spelled differently.
_RENAMED = {
    "equal": "eq", "not_equal": "ne", "invert": "bitwise_not", "bitwise_invert": "bitwise_not",
    "conjugate": "conj_physical", "conj": "conj_physical", "fabs": "abs", "mod": "remainder",
    "power": "pow", "rint": "round", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "radians": "deg2rad", "degrees": "rad2deg",
}
# ufunc.reduce / ufunc.accumulate -> the reduction or scan with that meaning.
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "amax", "minimum": "amin",
               "logical_and": "all", "logical_or": "any"}
_SCANS = {"add": "cumsum", "multiply": "cumprod"}
# Product ufuncs answered by torchlike.numpy's functions of the same name.
_NUMPY_PRODUCTS = {"matmul", "vecdot", "matvec", "vecmat"}
# Keyword values that mean "the default" and so need no handling.
_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "where": True}


def _floating(x):
    """x as a float tensor: integers and bool take the default float, as the
    FLOAT-rule ops do (np.sqrt on an int tensor)."""
    x = x if isinstance(x, _C.Tensor) else as_tensor(x)
    return x if x.is_floating_point() else x.to(_C.get_default_dtype())


def _spacing(x, *, out=None):
    """NumPy's spacing: the step from x to the next value away from zero (so
    negative for negative x), the smallest subnormal at either zero, NaN at
    the infinities."""
    x = _floating(x)
    inf = _C.full((), float("inf"), dtype=x.dtype, device=x.device)
    tiny = _C.nextafter(_C.zeros((), dtype=x.dtype, device=x.device), inf)
    step = _C.nextafter(x, _C.copysign(inf, x)) - x
    return _C.where(x == 0, tiny, step, **({} if out is None else {"out": out}))


def _modf(x):
    """NumPy's modf: (fraction, integral part), both with x's sign, so -2.0
    gives (-0.0, -2.0) and an infinity (+-0.0, +-inf)."""
    x = _floating(x)
    whole = _C.trunc(x)
    fraction = _C.where(_C.isinf(x), 0.0, x - whole)
    return _C.copysign(fraction, x), whole


def _frexp(x):
    import torchlike
    return tuple(torchlike.frexp(_floating(x)))


def _divide_by_zero(name):
    """NumPy's report of an integer division by zero, as np.errstate says."""
    mode = np.geterr()["divide"]
    if mode == "raise":
        raise FloatingPointError(f"divide by zero encountered in {name}")
    if mode != "ignore":
        warnings.warn(f"divide by zero encountered in {name}", RuntimeWarning, stacklevel=4)


def numpy_division(op):
    """op (floor_divide, remainder, fmod) with NumPy's rule for an integer
    zero divisor: 0 there, and a divide-by-zero warning.  torchlike's op
    raises PyTorch's ZeroDivisionError instead (on the host; it is the
    check that finds the zero, so the division runs only once otherwise)."""
    def call(a, b, out=None):
        try:
            return op(a, b) if out is None else op(a, b, out=out)
        except RuntimeError as error:
            if str(error) != "ZeroDivisionError":
                raise
        zero = _C.eq(b, 0) if isinstance(b, _C.Tensor) else _C.tensor(True)
        result = _C.where(zero, 0, op(a, _C.where(zero, 1, b) if isinstance(b, _C.Tensor) else 1))
        _divide_by_zero(op.__name__)
        if out is None:
            return result
        out.copy_(result)
        return out
    call.__name__ = call.__qualname__ = op.__name__
    return call


# Ufuncs answered by a composition of ops rather than one op of their name.
_COMPOSITES = {"spacing": _spacing, "floor_divide": numpy_division(_C.floor_divide),
               "remainder": numpy_division(_C.remainder), "fmod": numpy_division(_C.fmod)}
# Two-output ufuncs: a function giving both results.
_PAIRS = {"divmod": lambda a, b: (_COMPOSITES["floor_divide"](a, b),
                                  _COMPOSITES["remainder"](a, b)),
          "modf": _modf, "frexp": _frexp}


def _op_for(ufunc):
    import torchlike
    if ufunc.__name__ in _COMPOSITES:
        return _COMPOSITES[ufunc.__name__]
    if is_special(ufunc):  # scipy.special: only the ones _special.py implements
        return special_op(ufunc)
    if ufunc.__name__ in _NUMPY_PRODUCTS:  # torchlike's take one dtype; NumPy's promote
        import torchlike.numpy
        return getattr(torchlike.numpy, ufunc.__name__, None)
    name = _RENAMED.get(ufunc.__name__, ufunc.__name__)
    return getattr(torchlike, name, None)


def _is_default(kwargs):
    """Whether the ufunc keywords given are all NumPy's defaults; an array
    given (``where=mask``) is not, and is never compared elementwise."""
    for key, default in _DEFAULTS.items():
        given = kwargs.get(key, default)
        if given is not default and not (isinstance(given, (str, bool, np.bool_))
                                         and given == default):
            return False
    return True


def _single_out(out):
    if out is None:
        return None
    if len(out) != 1:
        return False
    target = out[0]
    if isinstance(target, np.ndarray):
        target = _C.from_numpy(target)  # written in place, zero-copy
    return target


def _call_pair(ufunc, inputs, kwargs):
    """divmod, modf, frexp: both results computed, then written into out=
    (a pair of tensors, or of ndarrays on the host) where where= allows."""
    fn = _PAIRS.get(ufunc.__name__)
    given_out = kwargs.pop("out", None)
    where = kwargs.pop("where", True)
    if fn is None or not _is_default(kwargs) or kwargs.get("dtype") is not None or \
            (given_out is not None and len(given_out) != 2):
        return NotImplemented
    results = fn(*inputs)
    if given_out is None and where is True:
        return results
    mask = None if where is True else where if isinstance(where, _C.Tensor) else as_tensor(where)
    given_out = (None, None) if given_out is None else given_out
    for target in given_out:
        if not (target is None or isinstance(target, (_C.Tensor, np.ndarray))):
            raise TypeError(f"{ufunc.__name__}: return arrays must be tensors or ndarrays, "
                            f"not {type(target).__name__}")
    outs = []
    for target, result in zip(given_out, results):
        if target is None:  # one NumPy would allocate: the result itself
            outs.append(result)
            continue
        view = _C.from_numpy(target) if isinstance(target, np.ndarray) else target
        view.copy_(result if mask is None else _C.where(mask, result, view))
        outs.append(target)
    return tuple(outs)


# Ufuncs whose torchlike op is several times slower than NumPy's SIMD loop
# (glibc's scalar cbrt; frexp's two passes): on host tensors outside autograd
# NumPy runs them on zero-copy views; on a device, or recorded, the op does.
_HOST_FASTER = {"cbrt", "frexp"}


def _host_plain(inputs):
    return all(not isinstance(x, _C.Tensor) or (x.device.type == "cpu" and not x.requires_grad)
               for x in inputs)


def _call(ufunc, inputs, kwargs):
    if ufunc.__name__ in _HOST_FASTER and _host_plain(inputs):
        return NotImplemented
    if ufunc.nout == 2:
        return _call_pair(ufunc, inputs, kwargs)
    op = _op_for(ufunc)
    given_out = kwargs.pop("out", None)
    out = _single_out(given_out)
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    if op is None or out is False or ufunc.nout != 1 or not _is_default(kwargs):
        return NotImplemented
    if where is not True:
        # NumPy keeps out's values where the mask is False (and leaves them
        # undefined without out=): compute everywhere, then select.
        result = _call(ufunc, inputs, dict(kwargs, dtype=dtype))
        if result is NotImplemented:
            return NotImplemented
        if out is None:
            return result
        mask = where if isinstance(where, _C.Tensor) else as_tensor(where)
        out.copy_(_C.where(mask, result, out))
        return given_out[0]
    if ufunc.__name__ == "sign" and any(getattr(x, "is_complex", lambda: False)() for x in inputs):
        op = _C.sgn  # NumPy 2's sign of a complex number is z/|z|
    if dtype is not None:
        if isinstance(dtype, str):  # "float32": .to() would read a str as a device
            dtype = tl_dtype(dtype)
        inputs = [x.to(dtype) if isinstance(x, _C.Tensor) else as_tensor(x).to(dtype)
                  for x in inputs]
    if out is None:
        if dtype is None and not kwargs and op is not _C.sgn and ufunc.__name__ not in _COMPOSITES:
            _FAST[ufunc] = op  # the C fast path may answer this ufunc from now on
        return op(*inputs)
    op(*inputs, out=out)
    return given_out[0]  # NumPy hands back the caller's own out object


def _reduce(ufunc, method, inputs, kwargs):
    table = _REDUCTIONS if method == "reduce" else _SCANS
    name = table.get(ufunc.__name__)
    (x,) = inputs
    axis = kwargs.pop("axis", 0)
    keepdims = kwargs.pop("keepdims", False)
    dtype = kwargs.pop("dtype", None)
    given_out = kwargs.pop("out", None)
    out = _single_out(given_out)
    if name is None or out is False or not _is_default(kwargs) or "initial" in kwargs:
        return NotImplemented
    fn = getattr(_C, name)
    x = as_tensor(x)
    if dtype is None and name in ("sum", "prod", "cumsum", "cumprod"):
        dtype = accumulator_dtype(x.dtype)
    if method == "accumulate":
        if axis is None:
            x, axis = x.reshape(-1), 0
        result = fn(x, axis, dtype=dtype) if dtype is not None else fn(x, axis)
    else:
        kw = {"keepdim": keepdims}
        if dtype is not None and name in ("sum", "prod"):
            kw["dtype"] = dtype
        result = fn(x, axis, **kw) if axis is not None else fn(x, **kw) if not keepdims \
            else fn(x, tuple(range(x.ndim)), **kw)
    if out is not None:
        out.copy_(result)
        return given_out[0]
    return result


def _outer(ufunc, inputs, kwargs):
    op = _op_for(ufunc)
    if op is None or kwargs or len(inputs) != 2:
        return NotImplemented
    a, b = (as_tensor(x) for x in inputs)
    return op(a.reshape(*a.shape, *([1] * b.ndim)), b)


def _fallback(ufunc, method, inputs, kwargs):
    """Run NumPy itself on zero-copy ndarray views of CPU tensors."""
    where = kwargs.get("where")
    tensors = [x for x in inputs + tuple(kwargs.get("out") or ()) + (where,)
               if isinstance(x, _C.Tensor)]
    module = "scipy.special" if is_special(ufunc) else "numpy"
    name = f"{module}.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    check_fallback(name, tensors)  # CPU and no gradient, else TypeError
    arrays = [np.asarray(x) if isinstance(x, _C.Tensor) else x for x in inputs]
    if isinstance(where, _C.Tensor):  # else NumPy hands the call straight back to us
        kwargs["where"] = np.asarray(where)
    outs = kwargs.get("out")
    if outs:
        kwargs["out"] = tuple(np.asarray(x) if isinstance(x, _C.Tensor) else x for x in outs)
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if outs:  # NumPy wrote into views of the caller's out objects: hand those back
        if len(outs) == 1:
            return outs[0]
        # (None in out=: the array NumPy allocated there)
        return tuple(_wrap(r) if o is None else o for o, r in zip(outs, result))
    if method == "at":
        return None
    return tuple(_wrap(r) for r in result) if isinstance(result, tuple) else _wrap(result)


def _wrap(r):
    # Numbers become tensors; an object array (np.frompyfunc's result) stays
    # NumPy's, as the function fallback leaves it (torchlike has no object
    # dtype), so its .astype(int) still works.
    if isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "biufc":
        return _C.from_numpy(np.asarray(r))
    return r


# ufunc -> op for plain calls, read by Tensor.__array_ufunc__ in C (py_ufunc.c).
_FAST = {}


# The first off-CPU device among the call's tensors (operands, out=, where=),
# or None: the CPU.
_device_of = _C._offhost_device


def _on_device(ufunc, method, inputs, kwargs, device):
    """A ufunc on device tensors: Python scalars combine as they are, lists
    and 0-d arrays are copied to the device; an ndarray operand, mask or out=
    is host memory and is refused, as CuPy refuses it (docs/numpy.md)."""
    token = _DEVICE.set(device)
    try:
        for x in tuple(kwargs.get("out") or ()):
            if isinstance(x, np.ndarray):
                raise TypeError(f"numpy.{ufunc.__name__}: out= is an ndarray (host memory), "
                                f"the operands are {device} tensors")
        if "where" in kwargs and not isinstance(kwargs["where"], (bool, _C.Tensor)):
            kwargs["where"] = as_tensor(kwargs["where"])
        inputs = tuple(x if isinstance(x, (_C.Tensor, bool, int, float, complex))
                       else as_tensor(x) for x in inputs)
        return _dispatch(ufunc, method, inputs, kwargs)
    finally:
        _DEVICE.reset(token)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    device = _device_of(inputs, kwargs)
    if device is not None:
        return _on_device(ufunc, method, inputs, kwargs, device)
    # On the host an ndarray operand is a zero-copy CPU tensor: left to the op,
    # it would become a tensor on the default device, which need not be the CPU.
    inputs = tuple(as_tensor(x) if isinstance(x, np.ndarray) else x for x in inputs)
    return _dispatch(ufunc, method, inputs, kwargs)


def _dispatch(ufunc, method, inputs, kwargs):
    if method == "__call__":
        result = _call(ufunc, inputs, dict(kwargs))
    elif method in ("reduce", "accumulate"):
        result = _reduce(ufunc, method, inputs, dict(kwargs))
    elif method == "outer":
        result = _outer(ufunc, inputs, dict(kwargs))
    else:  # "at", "reduceat": NumPy writes through the zero-copy view
        result = NotImplemented
    if result is NotImplemented:
        result = _fallback(ufunc, method, inputs, kwargs)
    return result


_C._set_array_ufunc(_FAST, array_ufunc)
