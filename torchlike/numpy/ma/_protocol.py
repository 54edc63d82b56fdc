"""NumPy's protocols on masked arrays: ``numpy.sum(x)``, ``numpy.sqrt(x)``
(and the same calls of ``torchlike.numpy``, which hand masked operands over
to NumPy's dispatch) run the masked implementations of this package, so the
mask is kept.  A NumPy function with none here runs NumPy's own ``numpy.ma``
on a host copy (CPU data only, as the fallback rule of the namespace), and
its masked results come back as masked arrays of tensors."""
import sys

import numpy

from ... import _C
from ..._array_function import as_tensor, check_fallback
from ._core import MaskedArray, Tensor, _host
from ._ops import weak_scalars

# NumPy functions whose masked implementation is the function of that name here
# (NumPy's own on its masked arrays does what numpy.ma's does: diff, take,
# compress, trace and put call the masked methods)
FUNCTIONS = frozenset("""
    sum prod product mean var std min max amin amax ptp argmin argmax all any cumsum cumprod
    median average count_nonzero concatenate stack vstack hstack dstack column_stack
    reshape transpose swapaxes moveaxis squeeze expand_dims ravel flip roll atleast_1d
    atleast_2d atleast_3d diagonal repeat where nonzero dot inner sort argsort unique
    allclose clip round around shape size ndim apply_along_axis
    diff take compress trace put
""".split())
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def _ns():
    return vars(sys.modules[__package__])


def array_function(func, args, kwargs):
    name = getattr(func, "__name__", "")
    if name in FUNCTIONS and kwargs.get("out") is None:
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        return _ns()[name](*args, **kwargs)
    return host_call(func, name, args, kwargs)


def array_ufunc(ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    if kwargs.get("out") is None:
        with weak_scalars():  # NumPy's ufuncs keep Python scalars weak (NEP 50)
            result = _masked_ufunc(method, name, inputs, kwargs)
        if result is not NotImplemented:
            return result
    return host_call(getattr(ufunc, method), f"{name}.{method}", inputs, kwargs)


def _masked_ufunc(method, name, inputs, kwargs):
    """The masked implementation of a ufunc call, or NotImplemented."""
    ns = _ns()
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if method == "__call__" and not kwargs:
        if name in ns.get("OPS", {}):
            return ns["OPS"][name](*inputs)
        if name == "matmul":
            return ns["dot"](*inputs)
    if method == "reduce" and name in _REDUCE and set(kwargs) <= {"axis", "keepdims", "dtype"}:
        kw = {"axis": kwargs.get("axis", 0), "keepdims": kwargs.get("keepdims", False)}
        if kwargs.get("dtype") is not None:
            kw["dtype"] = kwargs["dtype"]
        return ns[_REDUCE[name]](inputs[0], **kw)
    if method == "accumulate" and name in _ACCUMULATE and set(kwargs) <= {"axis", "dtype"}:
        return ns[_ACCUMULATE[name]](inputs[0], axis=kwargs.get("axis", 0),
                                     dtype=kwargs.get("dtype"))
    return NotImplemented


def _tensors(obj, found):
    if isinstance(obj, MaskedArray):
        found.append(obj._data)
    elif isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors(o, found)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors(o, found)
    return found


def _to_host(obj):
    if isinstance(obj, MaskedArray):
        return obj.to_numpy()
    if isinstance(obj, Tensor):
        return _host(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_host(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_host(v) for k, v in obj.items()}
    return obj


def _back(result):
    if result is numpy.ma.masked:
        return _ns()["masked"]
    if isinstance(result, numpy.ma.MaskedArray):
        return MaskedArray(result)
    if isinstance(result, numpy.ndarray) and result.dtype.kind in "biufc":
        return as_tensor(result)
    if isinstance(result, tuple):
        return tuple(_back(r) for r in result)
    if isinstance(result, list):
        return [_back(r) for r in result]
    return result


def host_call(func, name, args, kwargs):
    """``func`` (NumPy's) on host copies, as NumPy's masked arrays."""
    check_fallback(name, _tensors((args, kwargs), []))
    return _back(func(*_to_host(args), **_to_host(kwargs)))


del _C
