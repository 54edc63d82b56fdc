"""The ufunc methods of ``np.ma``'s binary operations: NumPy's ``numpy.ma.add``
... carry ``reduce``, ``accumulate`` and ``outer`` (``maximum``/``minimum``
``reduce`` and ``outer``), and code spells ``np.ma.maximum.reduce(m,
axis=1)``.  Which operations have which methods is read from NumPy's own
objects, and so is the value a masked element is filled with before a
reduction (``filly``: 0 for add, 1 for multiply)."""
import warnings

import numpy

from ... import _C
from ..._array_function import as_tensor
from ._core import MaskedArray, filled, getmask, nomask
from ._ops import finish

_UNSET = object()  # maximum/minimum.reduce's axis, not given


def _reduce(name, ufunc, fill):
    def reduce(target, axis=0, dtype=None):
        """NumPy ma's reduce: masked elements filled with the operation's
        neutral value, then the ufunc's reduce; a result is masked where
        every element it reduces is."""
        m = getmask(target)
        t = filled(target, fill)
        if t.ndim == 0:
            t = t.reshape(1)
            m = m if m is nomask else m.reshape(1)
        result = ufunc.reduce(t, axis=axis, dtype=dtype)
        if m is nomask:
            return MaskedArray._new(result, nomask, None) if result.ndim else result
        return finish(result, _C.all(m) if axis is None else numpy.logical_and.reduce(
            m, axis=axis), target)
    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return reduce


def _extremum(name, ns):
    masked_reduction = {"maximum": "max", "minimum": "min"}[name]

    def reduce(target, axis=_UNSET):
        """NumPy ma's maximum/minimum.reduce: the masked max/min, along axis 0
        of a 1-d array and over every axis of a larger one unless told."""
        if axis is _UNSET:
            if getattr(target, "ndim", 1) <= 1:
                axis = 0
            else:  # NumPy's warning of the default it will change
                warnings.warn(f"In the future the default for ma.{name}.reduce will be "
                              f"axis=0, not the current None, to match np.{name}.reduce. "
                              f"Explicitly pass 0 or None to silence this warning.",
                              numpy.ma.core.MaskedArrayFutureWarning, stacklevel=2)
                axis = None
        return ns[masked_reduction](target, axis=axis)
    reduce.__name__ = reduce.__qualname__ = f"{name}.reduce"
    return reduce


def _accumulate(name, ufunc, fill):
    def accumulate(target, axis=0):
        """NumPy ma's accumulate: masked elements filled with the operation's
        neutral value; the scan keeps no mask."""
        return MaskedArray._new(ufunc.accumulate(filled(target, fill), axis=axis), nomask, None)
    accumulate.__name__ = accumulate.__qualname__ = f"{name}.accumulate"
    return accumulate


def _outer(name, op):
    def outer(a, b):
        """The operation of every element of ``a`` with every one of ``b``,
        masked where either is, ``a``'s data under the mask (NumPy's copies
        it there, which raises for a masked 1-d ``a``: its data is not
        broadcast against the result's shape)."""
        a = a if hasattr(a, "reshape") else as_tensor(a)
        return op(a.reshape(tuple(a.shape) + (1,) * numpy.ndim(b)), b)
    outer.__name__ = outer.__qualname__ = f"{name}.outer"
    return outer


def attach(ops, ns):
    """Give each masked operation in ``ops`` the methods NumPy's has."""
    for name, op in ops.items():
        theirs = getattr(numpy.ma, name, None)
        if not (hasattr(theirs, "reduce") and hasattr(theirs, "outer")):
            continue
        ufunc = getattr(numpy, name)
        if hasattr(theirs, "accumulate"):
            op.reduce = _reduce(name, ufunc, theirs.filly)
            op.accumulate = _accumulate(name, ufunc, theirs.filly)
        else:  # maximum, minimum: the masked max and min
            op.reduce = _extremum(name, ns)
        op.outer = _outer(name, op)
