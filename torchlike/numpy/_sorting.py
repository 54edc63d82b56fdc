"""NumPy sorting, searching and set functions over tensors."""

import numpy as np

from .. import _C, _composites
from .._array_function import (
    implements, Unsupported, as_tensor, norm_axis, np_dtype, promote, refuse)

Tensor = _C.Tensor


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Always stable (NumPy's ``kind="stable"``); ``descending`` is the Array
    API's, keeping equal elements in their original order."""
    refuse(order=order)
    _check_kind(kind, stable)
    a = as_tensor(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.is_complex():
        dim = norm_axis(axis, a.ndim)
        return _C.gather(a, dim, _complex_order(a, dim, descending))
    dim = norm_axis(axis, a.ndim)
    if a.requires_grad and _C.is_grad_enabled():
        # the backward needs the order: sort's indices keep it, so the input
        # may change afterwards (ndarray.sort writes the result over it)
        return _C.sort(a, dim=dim, descending=descending, stable=True).values
    # values only: no positions computed or written (the sort is stable, so
    # -0.0/0.0 and NaN payloads come out in input order)
    return _C._sort_values(a, dim, descending)


def _complex_order(a, dim, descending):
    """NumPy's order of complex numbers, as indices along ``dim``: by the real
    part, ties by the imaginary part, and those holding a NaN last, in
    NumPy's classes R + Rj < R + nanj < nan + Rj < nan + nanj (three stable
    sorts, the minor key first)."""
    from ._elementwise import real, imag
    re, im = real(a), imag(a)
    nan_class = _C.isnan(re).to(_C.int8) * 2 + _C.isnan(im).to(_C.int8)
    if descending:
        re, im = -re, -im
    order = _C.argsort(im, dim=dim, stable=True)
    for key in (re, nan_class):
        order = _C.gather(order, dim, _C.argsort(_C.gather(key, dim, order), dim=dim,
                                                 stable=True))
    return order


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    refuse(order=order)
    _check_kind(kind, stable)
    a = as_tensor(a)
    if axis is None or a.ndim == 0:  # NumPy: a 0-d array is sorted as shape (1,)
        a, axis = a.reshape(-1), 0 if axis is None else norm_axis(axis, 1)
    if a.is_complex():
        return _complex_order(a, norm_axis(axis, a.ndim), descending)
    return _C.argsort(a, dim=norm_axis(axis, a.ndim), descending=descending, stable=True)


@implements(np.lexsort)
def lexsort(keys, axis=-1):
    """Indices sorting by several keys, the last one primary: a stable sort
    by each key in turn, the first key first, each along the order found so
    far (argsorts and gathers on the keys' device)."""
    if isinstance(keys, Tensor):
        keys = list(keys.unbind(0)) if keys.ndim else [keys]
    keys = [as_tensor(k) for k in keys]
    if not keys or keys[0].ndim == 0:
        raise Unsupported("lexsort of no keys or of 0-d keys")  # NumPy's own errors
    if any(k.shape != keys[0].shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    dim = norm_axis(axis, keys[0].ndim)
    order = argsort(keys[0], axis=dim)
    for key in keys[1:]:
        order = _C.gather(order, dim, argsort(_C.gather(key, dim, order), axis=dim))
    return order


@implements(np.digitize)
def digitize(x, bins, right=False):
    """The bin of each x: NumPy's searchsorted of x in increasing bins (of the
    reversed bins, counted from the end, for decreasing ones), on the device;
    whether the bins are monotonic is one host read (NumPy's ValueError)."""
    x, bins = as_tensor(x), as_tensor(bins)
    if bins.ndim != 1 or x.is_complex() or bins.is_complex() or \
            (bins.is_floating_point() and bool(bins.isnan().any())):
        raise Unsupported("digitize of complex values, NaN bins or bins not 1-d")
    increasing = bool((bins[1:] >= bins[:-1]).all())
    if not increasing and not bool((bins[1:] <= bins[:-1]).all()):
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return searchsorted(bins, x, side)
    return bins.shape[0] - searchsorted(bins.flip(0), x, side)


def _check_kind(kind, stable):
    """NumPy takes the sort's kind= or stable=, not both (every sort here is
    stable, which every kind allows); a kind is read, as NumPy reads it, by
    its first letter in either case (quicksort, heapsort, stable, mergesort)."""
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, (str, bytes)):  # NumPy reads bytes as their text
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if kind[:1].lower() not in ("q", "h", "s", "m", b"q", b"h", b"s", b"m"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


@implements(np.searchsorted)
def searchsorted(a, v, side="left", sorter=None):
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    a = as_tensor(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    scalar = not isinstance(v, (Tensor, np.ndarray, list, tuple))
    v = as_tensor(v)
    if sorter is not None:
        sorter = _sorter(sorter)
    if a.is_complex() or v.is_complex():
        if sorter is not None:
            a = a[sorter]
        result = _complex_searchsorted(*promote(a, v.reshape(-1)), side).reshape(tuple(v.shape))
        return result if not scalar else result.reshape(())
    kw = {}
    if sorter is not None:
        # NumPy's ValueErrors (the op's own are RuntimeErrors)
        if sorter.numel() != a.numel():
            raise ValueError(f"sorter.size must equal a.size (sorter of shape "
                             f"{tuple(sorter.shape)}, a of shape {tuple(a.shape)})")
        if sorter.numel() and bool(((sorter < 0) | (sorter >= a.numel())).any()):
            raise ValueError("Sorter index out of range.")
        kw["sorter"] = sorter
    result = _C.searchsorted(a, v.reshape(-1), side=side, **kw).reshape(tuple(v.shape))
    return result if not scalar else result.reshape(())


def _sorter(sorter):
    """searchsorted's sorter as NumPy reads it, as int64 (the op's dtype): one
    dimension (else its TypeError), integers of any dtype that casts safely
    to intp (a bool or float sorter is its TypeError, a uint64 one its
    ValueError)."""
    sorter = as_tensor(sorter)
    if sorter.ndim != 1:
        raise TypeError("could not parse sorter argument")
    if sorter.dtype is _C.bool or sorter.is_floating_point() or sorter.is_complex():
        raise TypeError("sorter must only contain integers")
    if sorter.dtype is _C.uint64:
        raise ValueError("could not parse sorter argument")
    return sorter.to(_C.int64)


def _complex_searchsorted(a, v, side):
    """Where each of ``v`` goes in ``a`` (sorted in NumPy's complex order):
    the count of ``a``'s elements placed before it when both are sorted
    together, ties putting ``v``'s element first ("left") or last ("right")."""
    n, m = a.shape[0], v.shape[0]
    both = _C.cat([a, v], 0)
    from_v = _C.cat([_C.zeros(n, dtype=_C.int64, device=a.device),
                     _C.ones(m, dtype=_C.int64, device=a.device)], 0)
    tie = (1 - from_v) if side == "left" else from_v
    # three stable sorts, the minor key first: tie, imaginary, real part
    order = _C.argsort(tie, stable=True)
    order = order[_complex_order(both[order], 0, False)]
    rank = _C.empty_like(order)
    rank[order] = _C.arange(n + m, dtype=_C.int64, device=a.device)
    placed = rank[n:]
    # the v elements before each one in that order are not a's
    among = _C.empty_like(placed)
    among[_C.argsort(placed, stable=True)] = _C.arange(m, dtype=_C.int64, device=a.device)
    return placed - among


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    ar = as_tensor(ar)
    if axis is not None:
        axis = norm_axis(axis, ar.ndim)
    if axis is not None and ar.ndim == 1:
        axis = None  # NumPy: the elements themselves (equal_nan applies)
    if axis is not None:
        rest = [s for i, s in enumerate(ar.shape) if i != axis]
        # NumPy compares slices elementwise, so rows holding NaN stay distinct
        if return_index or ar.is_complex() or ar.is_floating_point() or 0 in rest:
            return _unique_slices(ar, axis, return_index, return_inverse, return_counts)
        result = _C.unique(ar, sorted=True, return_inverse=return_inverse,
                           return_counts=return_counts, dim=axis)
    else:
        flat = ar.reshape(-1)
        if flat.is_complex():
            values, inverse, counts, order = _unique_complex(
                flat, equal_nan, not (return_index or return_inverse or return_counts))
        else:
            values, inverse, counts = _C.unique(flat, sorted=True, return_inverse=True,
                                                return_counts=True)
            order = None
            if equal_nan and flat.is_floating_point():
                values, inverse, counts = _one_nan(values, inverse, counts)
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


def _unique_slices(ar, axis, return_index, return_inverse, return_counts):
    """unique along ``axis``: the slices as rows, ordered lexicographically
    (a stable sort per column, the last column first; complex columns by real
    then imaginary part, as NumPy orders them), runs of equal rows merged."""
    from ._elementwise import real, imag
    moved = _C.movedim(ar, axis, 0)
    m = 1
    for size in moved.shape[1:]:
        m *= size
    rows = moved.reshape(moved.shape[0], m)                      # (n, m)
    n = rows.shape[0]
    order = _C.arange(n, dtype=_C.int64, device=ar.device)
    keys = []
    for j in range(rows.shape[1]):
        column = rows[:, j]
        keys += [real(column), imag(column)] if column.is_complex() else [column]
    for key in reversed(keys):
        order = order[_C.argsort(key[order], stable=True)]
    ordered = rows[order]
    if n:
        differs = (ordered[1:] != ordered[:-1]).any(1) if rows.shape[1] else \
            _C.zeros(n - 1, dtype=_C.bool, device=ar.device)
        starts = _C.cat([_C.ones(1, dtype=_C.bool, device=ar.device), differs], 0)
    else:
        starts = _C.zeros(0, dtype=_C.bool, device=ar.device)
    run = _C.cumsum(starts.to(_C.int64), 0) - 1
    values = _C.movedim(moved[order[starts]], 0, axis)
    extra = []
    if return_index:
        extra.append(order[starts])
    if return_inverse:
        inverse = _C.empty_like(run)
        inverse[order] = run
        extra.append(inverse)
    if return_counts:
        extra.append(_C.bincount(run, minlength=0) if n else run)
    return (values, *extra) if extra else values


def _one_nan(values, inverse, counts):
    """unique's NaNs (sorted last, each its own value) as one value, NumPy's
    ``equal_nan=True``: the first NaN stays, counting them all."""
    nans = int(_C.isnan(values).sum().item())
    if nans <= 1:
        return values, inverse, counts
    keep = values.shape[0] - nans + 1
    counts = _C.cat([counts[:keep - 1], counts[keep - 1:].sum().reshape(1)], 0)
    return values[:keep], _C.clamp(inverse, max=keep - 1), counts


def _unique_complex(flat, equal_nan=False, values_only=False):
    """unique of complex numbers, ordered as NumPy orders them (real part,
    then imaginary part, those holding a NaN last).  NaNs compare unequal, so
    each is its own value; with ``equal_nan`` every number holding a NaN is
    one value, as NumPy's: the first of them in that order, or, when only the
    values are asked for, the first in ``flat`` (NumPy's hashing path)."""
    order = _complex_order(flat, 0, False)
    ordered = flat[order]
    if flat.numel() == 0:
        empty = _C.zeros(0, dtype=_C.int64, device=flat.device)
        return ordered, empty, empty, order
    first = _C.ones(1, dtype=_C.bool, device=flat.device)
    starts = _C.cat([first, ordered[1:] != ordered[:-1]], 0)
    nan = _C.isnan(ordered)
    if equal_nan:
        starts = starts & ~(nan & _C.cat([~first, nan[:-1]], 0))  # a NaN after a NaN
    run = _C.cumsum(starts.to(_C.int64), 0) - 1
    inverse = _C.empty_like(run)
    inverse[order] = run
    counts = _C.bincount(run, minlength=0)
    values = ordered[starts]
    if equal_nan and values_only and bool(nan[-1]):
        values[-1] = flat[_C.argmax(_C.isnan(flat).to(_C.int8), 0)]
    return values, inverse, counts, order


def _unique_result(name, fields):
    import collections
    return collections.namedtuple(name, fields)


_UniqueAll = _unique_result("UniqueAllResult", "values indices inverse_indices counts")
_UniqueCounts = _unique_result("UniqueCountsResult", "values counts")
_UniqueInverse = _unique_result("UniqueInverseResult", "values inverse_indices")


@implements(np.unique_values)
def unique_values(x):
    # the Array API's: NaNs are distinct values
    return unique(x, equal_nan=False)


@implements(np.unique_counts)
def unique_counts(x):
    return _UniqueCounts(*unique(x, return_counts=True, equal_nan=False))


@implements(np.unique_inverse)
def unique_inverse(x):
    return _UniqueInverse(*unique(x, return_inverse=True, equal_nan=False))


@implements(np.unique_all)
def unique_all(x):
    return _UniqueAll(*unique(x, True, True, True, equal_nan=False))


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    element, test = as_tensor(element), as_tensor(test_elements).reshape(-1)
    if kind == "table" and (element.is_floating_point() or element.is_complex()
                            or test.is_floating_point() or test.is_complex()):
        raise ValueError("The 'table' method is only supported for boolean or integer "
                         "arrays. Please select 'sort' or None for kind.")
    if test.numel() == 0 or element.numel() == 0:
        hit = _C.zeros(tuple(element.shape), dtype=_C.bool, device=element.device)
    elif element.is_complex() or test.is_complex():
        hit = _C.any(element.reshape(*element.shape, 1) == test, -1)
    else:  # torch.isin's table or binary search, in NumPy's common dtype
        if element.dtype != test.dtype:
            element, test = promote(element, test)
        hit = _composites.isin(element, test)
    return ~hit if invert else hit


def _set_operands(ar1, ar2, assume_unique):
    """The two inputs flattened, made unique unless the caller says they are."""
    ar1, ar2 = as_tensor(ar1).reshape(-1), as_tensor(ar2).reshape(-1)
    if ar1.dtype != ar2.dtype:
        ar1, ar2 = promote(ar1, ar2)
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    return ar1, ar2


@implements(np.intersect1d)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both; with ``return_indices``, where each first
    occurs in ``ar1`` and ``ar2`` (flattened)."""
    a1, a2 = as_tensor(ar1).reshape(-1), as_tensor(ar2).reshape(-1)
    if a1.dtype != a2.dtype:
        a1, a2 = promote(a1, a2)
    if not assume_unique:
        a1, first1 = unique(a1, return_index=True)
        a2, first2 = unique(a2, return_index=True)
    both = _C.cat([a1, a2], 0)
    # stable: of two equal values, the one from ar1 comes first (complex
    # numbers in NumPy's order)
    order = argsort(both)
    both = both[order]
    same = both[1:] == both[:-1]
    values = both[:-1][same]
    if not return_indices:
        return values
    idx1, idx2 = order[:-1][same], order[1:][same] - a1.shape[0]
    if not assume_unique:
        idx1, idx2 = first1[idx1], first2[idx2]
    return values, idx1, idx2


@implements(np.setxor1d)
def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the two."""
    a1, a2 = _set_operands(ar1, ar2, assume_unique)
    both = sort(_C.cat([a1, a2], 0))
    if both.numel() == 0:
        return both
    edge = _C.ones(1, dtype=_C.bool, device=both.device)
    differs = _C.cat([edge, both[1:] != both[:-1], edge], 0)
    return both[differs[1:] & differs[:-1]]


@implements(np.setdiff1d)
def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of ``ar1`` not in ``ar2``: sorted and unique, or in ``ar1``'s
    order when ``assume_unique``."""
    a1, a2 = as_tensor(ar1).reshape(-1), as_tensor(ar2).reshape(-1)
    if not assume_unique:
        a1 = unique(a1)
    return a1[isin(a1, a2, invert=True)]  # ar1's dtype: its values, filtered


@implements(np.union1d)
def union1d(ar1, ar2):
    a1, a2 = _joined(ar1, ar2).reshape(-1), _joined(ar2, ar1).reshape(-1)
    return unique(_C.cat(promote(a1, a2) if a1.dtype != a2.dtype else [a1, a2], 0))


_NUMBERS = (bool, int, float, complex)


def _joined(x, other):
    """x as NumPy's concatenate takes it beside other: a Python number next
    to an array is weak (NEP 50), in the array's dtype where its kind allows,
    cast as NumPy casts it (300 into int8 wraps, past int64 is refused)."""
    if type(x) not in _NUMBERS or type(other) in _NUMBERS:
        return as_tensor(x)
    dtype = np.result_type(np.empty(0, np_dtype(as_tensor(other))), x)
    return as_tensor(np.array(x).astype(dtype))


@implements(np.sort_complex)
def sort_complex(a):
    """Sorted in NumPy's complex order (np.sort's), as a complex array
    (complex64 for 8- and 16-bit integers, complex128 for other reals)."""
    a = as_tensor(a)
    if not a.is_complex():
        small = a.dtype in (_C.int8, _C.uint8, _C.int16, _C.uint16)
        a = a.to(_C.complex64 if small else _C.complex128)
    dim = norm_axis(-1, a.ndim)  # a 0-d array is NumPy's AxisError (it sorts along -1)
    return _C.gather(a, dim, _complex_order(a, dim, False))


# A full sort is a valid partition: the k-th element lands where a sort puts it,
# everything before it is not larger and everything after not smaller (NumPy
# leaves the order inside each side unspecified).

@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    refuse(order=order)
    a = as_tensor(a)
    _check_kth(a, kth, axis, kind)
    return sort(a, axis)


@implements(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    refuse(order=order)
    a = as_tensor(a)
    _check_kth(a, kth, axis, kind)
    return argsort(a, axis, stable=True)


def _check_kth(a, kth, axis, kind):
    if not isinstance(kind, (str, bytes)):  # NumPy reads bytes as their text
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind not in ("introselect", b"introselect"):
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    n = a.numel() if axis is None else a.shape[norm_axis(axis, a.ndim)]
    # kth read as NumPy reads it, into an integer array of at most one dim
    # (an empty list is a float array, so NumPy's TypeError)
    if isinstance(kth, (list, tuple)):  # counts the program computed: 0-d tensors, any device
        kth = [k.tolist() if isinstance(k, Tensor) else k for k in kth]
    kths = np.asarray(kth.tolist() if isinstance(kth, Tensor) else kth)
    if kths.dtype == np.bool_:
        raise ValueError("Booleans unacceptable as partition index")
    if kths.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if kths.ndim > 1:
        raise ValueError("kth must be a scalar or a 1-d sequence of integers")
    if a.numel() == 0:  # NumPy returns an empty array before looking at kth's bounds
        return
    for k in kths.reshape(-1).tolist():
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
