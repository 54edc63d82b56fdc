"""The functions of ``numpy.ma.extras`` that ``_functions`` has not: masking
and dropping whole rows and columns (``mask_rowcols``, ``compress_nd`` ...),
runs of masked and unmasked elements (``clump_masked``,
``notmasked_contiguous``, ``notmasked_edges`` ...), set operations
(``unique``'s masked core, ``in1d``, ``isin``, ``intersect1d`` ...),
``ediff1d``, ``cov``/``corrcoef``, ``polyfit``, ``vander``,
``apply_over_axes``, ``ndenumerate``, ``hsplit``.

The set operations follow NumPy's algorithms on masked arrays step by step
(sort with the masked elements last, compare neighbours with the masked
``==`` rule: two masked elements are equal, a masked and an unmasked one are
not), so masked elements take part as NumPy's do.  Runs and edges come back
as Python slices and index tensors, as NumPy gives slices and index arrays."""
import numpy

from ... import _C
from ..._array_function import norm_axis, np_dtype, tl_dtype
from ... import numpy as _tnp
from ._core import (MaskedArray, Tensor, array, asarray, getdata, getmask, getmaskarray,
                    make_mask, mask_or, masked, nomask)
from ._ops import OPS, finish


def _ma(a):
    return a if isinstance(a, MaskedArray) else asarray(a)


# ---------------------------------------------------------------------------
# whole rows and columns

def _check_2d(a, name):
    if a.ndim != 2:
        raise NotImplementedError(f"{name} works for 2D arrays only.")


def mask_rowcols(a, axis=None):
    """``a`` (2-d) with every row (``axis=0``), column (``axis=1``) or both
    (None) that holds a masked element masked entirely; ``a`` itself when it
    has no mask."""
    a = array(a, subok=False)
    _check_2d(a, "mask_rowcols")
    if a._m is nomask or not bool(a._m.any()):
        return a
    m = a._m
    full = _C.zeros(tuple(m.shape), dtype=_C.bool, device=m.device)
    if not axis:  # NumPy's test: None and 0 mask rows
        full = _C.logical_or(full, _tnp.any(m, axis=1, keepdims=True))
    if axis in (None, 1, -1):
        full = _C.logical_or(full, _tnp.any(m, axis=0, keepdims=True))
    return MaskedArray._new(a._data, _C.logical_or(m, full), a)  # the data shared


def mask_rows(a, axis=numpy._NoValue):
    """``a`` with each row holding a masked element masked entirely."""
    return mask_rowcols(a, 0)


def mask_cols(a, axis=numpy._NoValue):
    """``a`` with each column holding a masked element masked entirely."""
    return mask_rowcols(a, 1)


def compress_nd(x, axis=None):
    """The data of ``x`` without the slices, along each axis of ``axis``
    (all when None), that hold a masked element (a tensor)."""
    x = asarray(x)
    m = getmask(x)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(norm_axis(ax, x.ndim) for ax in axes)
    if m is nomask or not bool(m.any()):
        return x._data
    if bool(m.all()):  # NumPy's: a 1-d empty float64 array, whatever x's dtype
        return _C.zeros((0,), dtype=_C.float64, device=x.device)
    data = x._data
    for ax in axes:
        others = tuple(i for i in range(x.ndim) if i != ax)
        keep = _C.logical_not(_tnp.any(m, axis=others)) if others else \
            _C.logical_not(m)
        data = _tnp.compress(keep, data, axis=ax)
    return data


def compress_rowcols(x, axis=None):
    """The data of ``x`` (2-d) without the rows (0), columns (1) or both
    (None) that hold a masked element."""
    x = asarray(x)
    _check_2d(x, "compress_rowcols")
    return compress_nd(x, axis)


def compress_rows(a):
    """The data of ``a`` (2-d) without its rows that hold a masked element."""
    a = asarray(a)
    _check_2d(a, "compress_rows")
    return compress_rowcols(a, 0)


def compress_cols(a):
    """The data of ``a`` (2-d) without its columns that hold a masked element."""
    a = asarray(a)
    _check_2d(a, "compress_cols")
    return compress_rowcols(a, 1)


# ---------------------------------------------------------------------------
# runs and edges

def _runs(flags):
    """Slices of the runs of True in a 1-d bool tensor (one host copy of the
    run boundaries, which are what the caller asks for)."""
    n = flags.numel()
    if n == 0:
        return []
    f = flags.to(_C.int8)
    edges = _C.ne(f[1:], f[:-1]) if n > 1 else _C.zeros((0,), dtype=_C.bool,
                                                          device=f.device)
    cuts = [0] + [int(i) + 1 for i in _tnp.nonzero(edges)[0].tolist()] + [n]
    first = bool(flags[0])
    return [slice(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)
            if (i % 2 == 0) == first]


def _clumps(flags, scalar_words):
    """NumPy's runs of True in a mask for clump_masked/clump_unmasked: the
    bounds inside the array are NumPy ints (they come from its nonzero),
    the array's ends Python ints; NumPy indexes the mask's first element, so
    an empty mask is its IndexError, and a 0-d one too (``scalar_words``:
    the words differ, as its unmasked flags are a NumPy bool scalar)."""
    if flags.ndim == 0:
        raise IndexError(scalar_words)
    flags = flags.reshape(-1)
    n = flags.numel()
    if n == 0:
        raise IndexError("index 0 is out of bounds for axis 0 with size 0")

    def bound(i):
        return i if i in (0, n) else numpy.intp(i)
    return [slice(bound(run.start), bound(run.stop)) for run in _runs(flags)]


def clump_masked(a):
    """Slices of the runs of masked elements of ``a`` (flattened)."""
    m = getmask(a)
    if m is nomask:
        return []
    return _clumps(m, "too many indices for array: array is 0-dimensional, but 1 were indexed")


def clump_unmasked(a):
    """Slices of the runs of unmasked elements of ``a`` (flattened)."""
    m = getmask(a)
    if m is nomask:
        return [slice(0, _ma(a).size)]
    return _clumps(_C.logical_not(m), "invalid index to scalar variable.")


def flatnotmasked_contiguous(a):
    """Slices of the runs of unmasked elements of ``a`` flattened (``[]``
    when all are masked)."""
    m = getmask(a)
    if m is nomask:
        return [slice(0, _ma(a).size)]
    return _runs(_C.logical_not(m.reshape(-1)))


def flatnotmasked_edges(a):
    """The flat indices of the first and last unmasked elements (an int64
    tensor of 2), or None when every element is masked."""
    a = _ma(a)
    m = a._m
    if m is nomask or not bool(m.any()):
        return _tnp.asarray([0, a.size - 1], dtype=_C.int64, device=a.device)
    idx = _tnp.nonzero(_C.logical_not(m.reshape(-1)))[0]
    if idx.numel() == 0:
        return None
    return _C.stack([idx[0], idx[-1]])


def notmasked_edges(a, axis=None):
    """The indices of the first and last unmasked elements along ``axis``
    (NumPy's form: two tuples of index tensors, one per dimension, lines
    with no unmasked element left out); ``flatnotmasked_edges`` when None."""
    a = asarray(a)
    if axis is None or a.ndim == 1:
        return flatnotmasked_edges(a)
    axis = norm_axis(axis, a.ndim)
    m = getmaskarray(a)
    grids = _tnp.indices(a.shape).to(a.device)
    live = _C.logical_not(_C.all(m, axis))
    n = a.shape[axis]
    big = _C.full((), n, dtype=grids.dtype, device=a.device)
    low = _C.full((), -1, dtype=grids.dtype, device=a.device)
    pos = _C.arange(n, dtype=grids.dtype, device=a.device).reshape(
        (n,) + (1,) * (a.ndim - 1 - axis))
    first = _tnp.argmin(_C.where(m, big, pos.expand(a.shape)), axis=axis, keepdims=True)
    last = _tnp.argmax(_C.where(m, low, pos.expand(a.shape)), axis=axis, keepdims=True)
    take = _tnp.take_along_axis
    out = []
    for at in (first, last):
        out.append(tuple(take(g, at, axis).squeeze(axis)[live] for g in grids))
    return out


def notmasked_contiguous(a, axis=None):
    """Slices of the runs of unmasked elements along ``axis`` (2-d at most):
    one list of slices per line; ``flatnotmasked_contiguous`` when None."""
    a = asarray(a)
    if a.ndim > 2:
        raise NotImplementedError("Currently limited to at most 2D array.")
    if axis is None or a.ndim == 1:
        return flatnotmasked_contiguous(a)
    axis = norm_axis(axis, a.ndim)
    other = 1 - axis
    if a._m is nomask:
        return [[slice(0, a.shape[axis])] for _ in range(a.shape[other])]
    m = a._m
    return [_runs(_C.logical_not(m.select(other, i))) for i in range(a.shape[other])]


# ---------------------------------------------------------------------------
# set operations

def _equal_data(d1, m1, d2, m2, ne=False):
    """NumPy's masked ``==`` (``!=``) data: the data compared where both are
    unmasked, the masks compared where either is masked."""
    both = _C.logical_or(m1, m2)
    cmp = _C.ne if ne else _C.eq
    return _C.where(both, cmp(m1, m2), cmp(d1, d2)), both


def unique_masked(a, return_index=False, return_inverse=False):
    """NumPy's ``unique`` of a masked array with a mask: the sorted distinct
    unmasked values, then one masked element (the first masked one), with
    the first index of each and the inverse (the input's shape)."""
    d = a._data.reshape(-1)
    m = a._m.reshape(-1)
    n = d.numel()
    p1 = _tnp.argsort(d.masked_fill(m, 0), kind="stable")
    perm = p1[_tnp.argsort(m[p1].to(_C.int8), kind="stable")]  # masked last, in order
    aux, auxm = d[perm], m[perm]
    flag = _C.ones((n,), dtype=_C.bool, device=d.device)
    if n > 1:
        neq, both = _equal_data(aux[1:], auxm[1:], aux[:-1], auxm[:-1], ne=True)
        if (aux.is_floating_point() or aux.is_complex()) and not bool(auxm[-1]):
            # NumPy's equal_nan: the NaNs (last) are one value unless a masked
            # element ends the sort
            nan = _C.isnan(aux)
            neq = _C.logical_and(neq, _C.logical_not(_C.logical_and(nan[1:], nan[:-1])))
        flag[1:] = neq
    out = MaskedArray._new(aux[flag], auxm[flag], a)
    extra = ()
    if return_index:
        extra += (perm[flag],)
    if return_inverse:
        inv = _C.empty((n,), dtype=_C.int64, device=d.device)
        inv[perm] = _C.cumsum(flag.to(_C.int64), 0) - 1
        extra += (inv.reshape(a.shape),)
    return (out,) + extra if extra else out


def _unique(a, return_inverse=False):
    from ._functions import unique
    return unique(a, return_inverse=return_inverse)


def _cat(*arrays):
    from ._functions import concatenate
    device = next(getdata(x).device for x in arrays if isinstance(x, (MaskedArray, Tensor)))
    return concatenate([x if isinstance(x, MaskedArray) else
                        MaskedArray._new(getdata(x).to(device), nomask) for x in arrays], 0)


def in1d(ar1, ar2, assume_unique=False, invert=False):
    """Whether each element of ``ar1`` is in ``ar2`` (NumPy ma's sorting
    algorithm, so masked elements answer as NumPy's: a masked element is
    'in' ``ar2`` when ``ar2`` has one, and the result may be masked next to
    one)."""
    from ._functions import argsort
    ar1 = _ma(ar1)
    if not assume_unique:
        u1, rev = _unique(ar1, return_inverse=True)
        u2 = _unique(ar2)
    else:
        u1, rev, u2 = ar1.ravel(), None, _ma(ar2).ravel()
    ar = _cat(u1, u2)
    order = argsort(ar, kind="stable")
    sar = ar[order]
    sm = getmaskarray(sar)
    if sar.size > 1:
        data, m = _equal_data(sar._data[1:], sm[1:], sar._data[:-1], sm[:-1], ne=invert)
    else:
        data = m = _C.zeros((0,), dtype=_C.bool, device=sar.device)
    tail = _C.full((1,), bool(invert), dtype=_C.bool, device=sar.device)
    flag_d, flag_m = _C.cat([data, tail]), _C.cat([m, _C.zeros_like(tail)])
    indx = _tnp.argsort(order, kind="stable")[:u1.size]
    d, m = flag_d[indx], flag_m[indx]
    if rev is not None:
        d, m = d[rev], m[rev]
    # NumPy's neighbour comparison has a mask only where one takes part
    return finish(d, m if getmask(ar) is not nomask and sar.size > 1 else nomask, None)


def isin(element, test_elements, assume_unique=False, invert=False):
    """``in1d`` of ``element``, in ``element``'s shape."""
    element = _ma(element)
    r = in1d(element, test_elements, assume_unique=assume_unique, invert=invert)
    return r.reshape(element.shape) if isinstance(r, MaskedArray) else r


def intersect1d(ar1, ar2, assume_unique=False):
    """The sorted values in both (one masked element when both have masked
    ones)."""
    from ._functions import sort
    if assume_unique:
        aux = _cat(_ma(ar1).ravel(), _ma(ar2).ravel())
    else:
        aux = _cat(_unique(ar1), _unique(ar2))
    aux = sort(aux)
    if aux.size < 2:
        return aux[:0]
    am = getmaskarray(aux)
    same, _ = _equal_data(aux._data[1:], am[1:], aux._data[:-1], am[:-1])
    return aux[:-1][same]


def union1d(ar1, ar2):
    """The sorted values in either (``unique`` of both joined)."""
    return _unique(_cat(_ma(ar1).ravel(), _ma(ar2).ravel()))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` that are not in ``ar2``."""
    if assume_unique:
        ar1 = _ma(ar1).ravel()
    else:
        ar1 = _unique(ar1)
        ar2 = _unique(ar2)
    keep = in1d(ar1, ar2, assume_unique=True, invert=True)
    return ar1[getdata(keep)] if ar1.size else ar1


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the two."""
    from ._functions import sort
    if not assume_unique:
        ar1, ar2 = _unique(ar1), _unique(ar2)
    aux = _cat(_ma(ar1).ravel(), _ma(ar2).ravel())
    if aux.size == 0:
        return aux
    aux = sort(aux)
    auxf = aux.filled()
    t = _C.ones((1,), dtype=_C.bool, device=auxf.device)
    flag = _C.cat([t, _C.ne(auxf[1:], auxf[:-1]), t])
    return aux[_C.eq(flag[1:], flag[:-1])]


def ediff1d(arr, to_end=None, to_begin=None):
    """Differences of consecutive elements of ``arr`` flattened, with
    ``to_begin`` before and ``to_end`` after (masked where either element
    is)."""
    from ._functions import hstack
    a = _ma(arr).ravel()
    ed = OPS["subtract"](a[1:], a[:-1])
    parts = [ed]
    if to_begin is not None:
        parts.insert(0, _edge(to_begin, a))
    if to_end is not None:
        parts.append(_edge(to_end, a))
    return hstack(parts) if len(parts) > 1 else ed


def _edge(x, a):
    if isinstance(x, MaskedArray):
        return x.ravel()
    t = getdata(x)
    return MaskedArray._new(t.to(a.device).reshape(-1), nomask)


# ---------------------------------------------------------------------------
# cov, corrcoef, polyfit, vander

def _covhelper(x, y, rowvar, allow_masked):
    """The centred variables (float64, at least 2-d) and where they are not
    masked (float32 counts, as NumPy's), and the ``rowvar`` NumPy settles on."""
    x = MaskedArray(x, dtype=_C.float64, copy=True)
    if x.ndim < 2:
        x = x.reshape((1,) * (2 - x.ndim) + x.shape)
    xmask = getmaskarray(x)
    if not allow_masked and bool(xmask.any()):
        raise ValueError("Cannot process masked data.")
    if x.shape[0] == 1:
        rowvar = True
    rowvar = int(bool(rowvar))
    axis = 1 - rowvar
    if y is not None:
        y = MaskedArray(y, dtype=_C.float64)
        if y.ndim < 2:
            y = y.reshape((1,) * (2 - y.ndim) + y.shape)
        if y.device != x.device:
            y = y.to(x.device)
        ymask = getmaskarray(y)
        if not allow_masked and bool(ymask.any()):
            raise ValueError("Cannot process masked data.")
        if (bool(xmask.any()) or bool(ymask.any())) and y.shape == x.shape:
            common = _C.logical_or(xmask, ymask)
            x._m, y._m = common.clone(), common.clone()
            xmask = ymask = common
        from ._functions import concatenate
        x = concatenate([x, y], axis)
        xmask = _tnp.concatenate([xmask, ymask], axis=axis)
    wide = x.shape[0] > 2 ** 24 or x.shape[1] > 2 ** 24
    xnotmask = _C.logical_not(xmask).to(_C.float64 if wide else _C.float32)
    from ._reduce import mean
    mu = mean(x, axis=rowvar)
    mu = MaskedArray(mu) if not isinstance(mu, MaskedArray) else mu
    mu = mu.reshape((-1, 1)) if rowvar else mu.reshape((1, -1))
    x = OPS["subtract"](x, mu)
    if not isinstance(x, MaskedArray):
        x = MaskedArray(x)
    return x, xnotmask, rowvar


def cov(x, y=None, rowvar=True, bias=False, allow_masked=True, ddof=None):
    """The covariance matrix of the unmasked pairs: each entry divides by the
    number of pairs both unmasked, less ``ddof``, and is masked where that
    is not positive (float64; a 0-d result for one variable)."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be an integer")
    if ddof is None:
        ddof = 0 if bias else 1
    x, xnotmask, rowvar = _covhelper(x, y, rowvar, allow_masked)
    xf = x.filled(0)
    if rowvar:
        fact = _tnp.dot(xnotmask, xnotmask.T) - ddof
        data = _tnp.dot(xf, _tnp.conj(xf.T)) / fact
    else:
        fact = _tnp.dot(xnotmask.T, xnotmask) - ddof
        data = _tnp.dot(xf.T, _tnp.conj(xf)) / fact
    result = MaskedArray._new(data.to(_C.float64) if not data.is_complex() else data,
                              _C.le(fact, 0))
    result = result.squeeze()
    return result if result.ndim else finish(result._data, result._m, None)


def corrcoef(x, y=None, rowvar=True, bias=numpy._NoValue, allow_masked=True,
             ddof=numpy._NoValue):
    """The correlation coefficients: ``cov`` over the outer product of its
    diagonal's square roots (masked for a single variable, as NumPy's)."""
    if bias is not numpy._NoValue or ddof is not numpy._NoValue:
        import warnings
        warnings.warn("bias and ddof have no effect and are deprecated",
                      DeprecationWarning, stacklevel=2)
    c = cov(x, y, rowvar, allow_masked=allow_masked)
    if not isinstance(c, MaskedArray) or c.ndim < 2:
        return masked
    dg = c.diagonal()
    std = OPS["sqrt"](dg)
    sm = getmaskarray(std)
    den = MaskedArray._new(_tnp.outer(std._data, std._data),
                           _C.logical_or(sm.reshape(-1, 1), sm.reshape(1, -1)))
    return OPS["divide"](c, den)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``polyfit`` of the points where neither ``x`` nor ``y`` (nor ``w``)
    is masked (a 2-d ``y``: rows with a masked element are left out)."""
    x, y = asarray(x), asarray(y)
    m = getmask(x)
    if y.ndim == 1:
        m = mask_or(m, getmask(y))
    elif y.ndim == 2:
        my = getmask(mask_rows(y))
        if my is not nomask:
            m = mask_or(m, my[:, 0])
    else:
        raise TypeError("Expected a 1D or 2D array for y!")
    if w is not None:
        w = asarray(w)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        m = mask_or(m, getmask(w))
    xd, yd, wd = x._data, y._data, None if w is None else w._data
    if m is not nomask:
        keep = _C.logical_not(m)
        xd, yd = xd[keep], yd[keep]
        wd = None if wd is None else wd[keep]
    return _tnp.polyfit(xd, yd, deg, rcond, full, wd, cov)


def vander(x, n=None):
    """The Vandermonde matrix of ``x`` (a tensor), its rows zero where ``x``
    is masked."""
    d = getdata(x)
    if d.dtype != _C.bfloat16:  # NumPy's matrix dtype: x's promoted with int64
        want = tl_dtype(numpy.promote_types(np_dtype(d.dtype), numpy.int64))
        d = d if d.dtype == want else d.to(want)
    v = _tnp.vander(d, n)
    m = getmask(x)
    if m is not nomask:
        v = v.masked_fill(m.reshape(-1, 1), 0)
    return v


# ---------------------------------------------------------------------------
# apply_over_axes, ndenumerate, hsplit, flatten_mask

def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each axis in turn, each result kept with the
    input's number of dimensions (an axis added back where ``func`` drops
    it)."""
    val = _ma(a)
    n = val.ndim
    for axis in (axes if isinstance(axes, (list, tuple)) else (axes,)):
        axis = axis + n if axis < 0 else axis
        res = func(val, axis)
        if not isinstance(res, MaskedArray):
            res = MaskedArray(res) if res is not masked else res
        if res.ndim != val.ndim:
            res = res.reshape(res.shape[:axis] + (1,) + res.shape[axis:])
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def ndenumerate(a, compressed=True):
    """``(index, element)`` in C order: the unmasked elements only, or with
    ``compressed=False`` every element (``masked`` for masked ones)."""
    a = _ma(a)
    m = getmaskarray(a)
    flat_m = m.reshape(-1).tolist() if a.size else []
    for k, idx in enumerate(numpy.ndindex(*a.shape)):
        if flat_m[k]:
            if not compressed:
                yield idx, masked
        else:
            yield idx, a._data[idx]


def hsplit(ary, indices_or_sections):
    """``hsplit`` of data and mask; as NumPy ma's, the pieces come back as one
    masked array (stacked, so they must be of one shape)."""
    a = _ma(ary)
    d = _tnp.hsplit(a._data, indices_or_sections)
    m = _tnp.hsplit(getmaskarray(a), indices_or_sections)
    shapes = sorted({tuple(p.shape) for p in d})
    if len(shapes) > 1:
        raise ValueError(f"ma.hsplit stacks its pieces into one masked array (as NumPy's), "
                         f"so they must be of one shape; these are of shapes {shapes}")
    return MaskedArray._new(_C.stack(d), _C.stack(m))


def flatten_mask(mask):
    """The mask as a bool tensor (structured masks, which torchlike has not,
    are what NumPy's flattens)."""
    return make_mask(mask, shrink=False)
