"""NumPy sorting, searching and set functions over tensors."""

import numpy as np

from .. import _C
from .._array_function import (
    implements, Unsupported, as_tensor, norm_axis, refuse)

Tensor = _C.Tensor


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Always stable (NumPy's ``kind="stable"``); ``descending`` is the Array
    API's, keeping equal elements in their original order."""
    refuse(order=order)
    a = as_tensor(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    return _C.sort(a, dim=norm_axis(axis, a.ndim), descending=descending, stable=True).values


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    refuse(order=order)
    a = as_tensor(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    return _C.argsort(a, dim=norm_axis(axis, a.ndim), descending=descending, stable=True)


@implements(np.searchsorted)
def searchsorted(a, v, side="left", sorter=None):
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    a = as_tensor(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    scalar = not isinstance(v, (Tensor, np.ndarray, list, tuple))
    v = as_tensor(v)
    kw = {"sorter": as_tensor(sorter)} if sorter is not None else {}
    result = _C.searchsorted(a, v.reshape(-1), side=side, **kw).reshape(tuple(v.shape))
    return result if not scalar else result.reshape(())


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    ar = as_tensor(ar)
    if axis is not None:
        if return_index:
            raise Unsupported("unique: argument 'return_index' is not supported with 'axis'")
        axis = norm_axis(axis, ar.ndim)
        result = _C.unique(ar, sorted=True, return_inverse=return_inverse,
                           return_counts=return_counts, dim=axis)
    else:
        flat = ar.reshape(-1)
        if flat.is_complex():
            values, inverse, counts, order = _unique_complex(flat)
        else:
            values, inverse, counts = _C.unique(flat, sorted=True, return_inverse=True,
                                                return_counts=True)
            order = None
        extra = []
        if return_index:
            order = _C.argsort(flat, stable=True) if order is None else order
            starts = _C.cumsum(counts, 0) - counts
            extra.append(order[starts])
        if return_inverse:
            extra.append(inverse.reshape(tuple(ar.shape)))
        if return_counts:
            extra.append(counts)
        return (values, *extra) if extra else values
    return result


def _unique_complex(flat):
    """unique of complex numbers, ordered as NumPy orders them (real part,
    then imaginary part); NaNs compare unequal, so each is its own value."""
    from ._elementwise import real, imag
    by_imag = _C.argsort(imag(flat), stable=True)
    order = by_imag[_C.argsort(real(flat)[by_imag], stable=True)]
    ordered = flat[order]
    if flat.numel() == 0:
        empty = _C.zeros(0, dtype=_C.int64, device=flat.device)
        return ordered, empty, empty, order
    first = _C.ones(1, dtype=_C.bool, device=flat.device)
    starts = _C.cat([first, ordered[1:] != ordered[:-1]], 0)
    run = _C.cumsum(starts.to(_C.int64), 0) - 1
    inverse = _C.empty_like(run)
    inverse[order] = run
    counts = _C.bincount(run, minlength=0)
    return ordered[starts], inverse, counts, order


def _unique_result(name, fields):
    import collections
    return collections.namedtuple(name, fields)


_UniqueAll = _unique_result("UniqueAllResult", "values indices inverse_indices counts")
_UniqueCounts = _unique_result("UniqueCountsResult", "values counts")
_UniqueInverse = _unique_result("UniqueInverseResult", "values inverse_indices")


@implements(np.unique_values)
def unique_values(x):
    return unique(x)


@implements(np.unique_counts)
def unique_counts(x):
    return _UniqueCounts(*unique(x, return_counts=True))


@implements(np.unique_inverse)
def unique_inverse(x):
    return _UniqueInverse(*unique(x, return_inverse=True))


@implements(np.unique_all)
def unique_all(x):
    return _UniqueAll(*unique(x, True, True, True))


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    element, test = as_tensor(element), as_tensor(test_elements).reshape(-1)
    hit = _C.any(element.reshape(*element.shape, 1) == test, -1) if test.numel() else \
        _C.zeros(tuple(element.shape), dtype=_C.bool, device=element.device)
    return ~hit if invert else hit


# A full sort is a valid partition: the k-th element lands where a sort puts it,
# everything before it is not larger and everything after not smaller (NumPy
# leaves the order inside each side unspecified).

@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    refuse(order=order)
    a = as_tensor(a)
    _check_kth(a, kth, axis)
    return sort(a, axis)


@implements(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    refuse(order=order)
    a = as_tensor(a)
    _check_kth(a, kth, axis)
    return argsort(a, axis, stable=True)


def _check_kth(a, kth, axis):
    n = a.numel() if axis is None else a.shape[norm_axis(axis, a.ndim)]
    for k in ([kth] if isinstance(kth, int) else list(kth)):
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
