"""Picking, placing and combining elements of masked arrays: ``take``,
``put``, ``putmask``, ``choose``, ``compress``, ``resize``, ``trace``,
``diff``, ``append``, ``outer``, ``convolve``/``correlate`` and the
logical reductions ``alltrue``/``sometrue``, each on data and mask alike
(functions and methods), with NumPy ma's masks.

Host data given with a device array (index lists, values) is copied to the
array's device, as the namespace copies Python sequences."""
import numpy

from ... import _C
from ..._array_function import norm_axis, np_dtype, tl_dtype
from ... import numpy as _tnp
from ._core import (MaskedArray, Tensor, asarray, filled, getdata, getmask, getmaskarray,
                    make_mask, masked, nomask, _broadcast_mask)
from ._ops import OPS, finish
from ._reduce import _filled_reduce


def _ma(a):
    return a if isinstance(a, MaskedArray) else asarray(a)


def _on(x, device):
    """``x``'s data as a tensor on ``device``."""
    t = getdata(x)
    return t if t.device == device else t.to(device)


def _mask_on(x, device):
    m = getmask(x)
    return m if m is nomask or m.device == device else m.to(device)


# ---------------------------------------------------------------------------
# take, put, putmask, choose, compress, resize

def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` (flat when ``axis`` is None); masked
    where ``a`` is, and where an index is masked (it picks element 0)."""
    a = _ma(a)
    im = _mask_on(indices, a.device)
    idx = _on(indices, a.device)
    if im is not nomask:
        idx = idx.masked_fill(im, 0)
    idx = _in_range(idx, a.size if axis is None else a.shape[norm_axis(axis, a.ndim)], mode)
    d = _tnp.take(a._data, idx, axis=axis)
    m = nomask if a._m is nomask else _tnp.take(a._m, idx, axis=axis)
    if im is not nomask:
        im = im.expand(tuple(d.shape)) if tuple(im.shape) != tuple(d.shape) else im
        m = im.clone() if m is nomask else _C.logical_or(m, im)
    return finish(d, m, None)


def _in_range(idx, n, mode):
    """Indices by NumPy's ``mode``: 'wrap' takes them modulo ``n``, 'clip'
    clamps them into [0, n - 1], 'raise' leaves them to the bounds check."""
    if mode == "raise" or n == 0:
        return idx
    if mode == "wrap":
        return _C.remainder(idx, n)
    if mode == "clip":
        return _C.clamp(idx, 0, n - 1)
    raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


def _cyclic(values, n, device, dtype):
    """``values`` repeated (flat, cyclically) to ``n`` elements, as ``put``
    reads them; their mask alike (``nomask`` when they have none)."""
    d = _on(values, device).reshape(-1)
    m = _mask_on(values, device)
    m = m if m is nomask else m.reshape(-1)
    if d.numel() == 0:
        return d.to(dtype), m
    if d.numel() != n:
        reps = -(-n // d.numel())
        d = d.repeat(reps)[:n]
        m = m if m is nomask else m.repeat(reps)[:n]
    return d.to(dtype), m


def put(a, indices, values, mode="raise"):
    """Write ``values`` at the flat ``indices`` of ``a`` (in place; values
    repeat when shorter); the written elements take the values' mask, and
    the mask is shrunk to ``nomask`` when nothing is left masked.  A hard
    mask keeps its masked elements."""
    if not isinstance(a, MaskedArray):
        _tnp.put(a, _on(indices, a.device), _on(values, a.device), mode=mode)
        return None
    idx = _on(indices, a.device).reshape(-1)
    vd, vm = _cyclic(values, idx.numel(), a.device, a.dtype)
    if a._hardmask and a._m is not nomask and idx.numel():
        keep = _C.logical_not(_tnp.take(a._m, idx, mode=mode))
        idx, vd = idx[keep], vd[keep]
        vm = vm if vm is nomask else vm[keep]
    _tnp.put(a._data, idx, vd, mode=mode)
    if a._m is nomask and vm is nomask:
        return None
    m = getmaskarray(a).clone() if a._m is nomask else a._m
    _tnp.put(m, idx, False if vm is nomask else vm, mode=mode)
    a._m = make_mask(m, shrink=True)
    return None


def putmask(a, mask, values):
    """Write ``values`` (broadcast) into ``a`` where ``mask`` is true, in
    place; the values' mask goes with them (a hard mask only gains)."""
    d = a._data if isinstance(a, MaskedArray) else a
    cond = _on(mask, d.device).to(_C.bool)
    cond = cond.expand(tuple(d.shape)) if tuple(cond.shape) != tuple(d.shape) else cond
    vd = _on(values, d.device)
    if not numpy.can_cast(np_dtype(vd.dtype), np_dtype(d.dtype), "same_kind"):
        raise TypeError(f"Cannot cast array data from {np_dtype(vd.dtype)!r} to "
                        f"{np_dtype(d.dtype)!r} according to the rule 'same_kind'")
    vm = _mask_on(values, d.device)
    if isinstance(a, MaskedArray):
        # an existing mask is written in place, so views share the change
        if a._m is nomask:
            if vm is not nomask:
                a._m = _C.logical_and(cond, vm)
        elif a._hardmask:
            if vm is not nomask:
                a._m[...] = _C.logical_or(a._m, _C.logical_and(cond, vm))
        else:
            full = getmaskarray(values).to(d.device)
            a._m[...] = _C.where(cond, full, a._m)
    d[...] = _C.where(cond, vd.to(d.dtype), d)
    return None


def choose(indices, choices, out=None, mode="raise"):
    """``choices[indices]`` elementwise (NumPy's ``choose``); masked where the
    chosen element or the index is masked (``nomask`` when neither is)."""
    im = getmask(indices)
    c = filled(indices, 0) if isinstance(indices, MaskedArray) else getdata(indices)
    device = next((getdata(x).device for x in choices
                   if isinstance(x, (MaskedArray, Tensor)) and x is not masked), c.device)
    c = c.to(device)
    data, masks = [], []
    for x in choices:
        if x is masked:
            data.append(_C.ones((), dtype=_C.bool, device=device))
            masks.append(_C.ones((), dtype=_C.bool, device=device))
            continue
        data.append(_on(filled(x) if isinstance(x, MaskedArray) else x, device))
        masks.append(getmaskarray(x).to(device))
    d = _tnp.choose(c, data, mode=mode)
    m = _tnp.choose(c, masks, mode=mode)
    if im is not nomask:
        m = _C.logical_or(m, im.to(device))
    return finish(d, make_mask(_broadcast_mask(m, tuple(d.shape)), shrink=True), None)


def compress(condition, a, axis=None, out=None):
    """The elements (or slices along ``axis``) of ``a`` where ``condition``
    is true; the mask alike."""
    a = _ma(a)
    cond = _on(condition, a.device)
    return a._apply(lambda t: _tnp.compress(cond, t, axis=axis))


def resize(x, new_shape):
    """``x`` repeated or cut to ``new_shape`` (flat order), its mask alike."""
    x = _ma(x)
    m = x._m
    d = _tnp.resize(x._data, new_shape)
    # NumPy's keeps the fill value only for an empty result (a view of x)
    return MaskedArray._new(d, m if m is nomask else _tnp.resize(m, new_shape),
                            x if d.numel() == 0 else None)


# ---------------------------------------------------------------------------
# trace, outer, diff, append

def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal, masked elements as 0; never masked.  As NumPy's,
    the result is cast to ``dtype`` even when it is None, so float64."""
    a = _ma(a)
    dtype = _C.float64 if dtype is None else tl_dtype(dtype)

    def cast(t):
        if t.is_complex() and not dtype.is_complex:
            t = _C.real(t)  # NumPy drops the imaginary part (with a ComplexWarning)
        return t.to(dtype)
    if a._m is nomask:
        return cast(_tnp.trace(a._data, offset, axis1, axis2))
    # the diagonal cast, then summed (NumPy's sum: small integers add as int64)
    d = a.diagonal(offset, axis1, axis2)
    return _tnp.sum(MaskedArray._new(cast(d._data), d._m).filled(0), axis=-1)


def outer(a, b):
    """The outer product of ``a`` and ``b`` flattened; masked where either
    factor is (``nomask`` when neither has a mask)."""
    da = (filled(a, 0) if isinstance(a, MaskedArray) else getdata(a)).reshape(-1)
    db = _on(filled(b, 0) if isinstance(b, MaskedArray) else b, da.device).reshape(-1)
    d = _tnp.outer(da, db)
    if getmask(a) is nomask and getmask(b) is nomask:
        return MaskedArray._new(d, nomask)
    ma_ = getmaskarray(a).reshape(-1, 1).to(d.device)
    mb = getmaskarray(b).reshape(1, -1).to(d.device)
    return MaskedArray._new(d, make_mask(_C.logical_or(ma_, mb), shrink=True))


outerproduct = outer


def _broadcast_edge(x, a, axis):
    """A prepend/append value as an array that joins ``a`` along ``axis``."""
    x = _ma(x) if isinstance(x, MaskedArray) else MaskedArray._new(
        _on(x, a.device), nomask)
    if x.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        x = x._apply(lambda t: t.expand(tuple(shape)))
    return x


def diff(a, /, n=1, axis=-1, prepend=numpy._NoValue, append=numpy._NoValue):
    """The ``n``-th differences along ``axis``; an element is masked where
    either element it is the difference of is (``not_equal`` for bool), and
    the mask is ``nomask`` when none is."""
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _ma(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = norm_axis(axis, a.ndim)
    parts = [a]
    if prepend is not numpy._NoValue:
        parts.insert(0, _broadcast_edge(prepend, a, axis))
    if append is not numpy._NoValue:
        parts.append(_broadcast_edge(append, a, axis))
    if len(parts) > 1:
        from ._functions import concatenate
        a = concatenate(parts, axis)
    op = OPS["not_equal"] if a.dtype == _C.bool else OPS["subtract"]
    hi = [slice(None)] * a.ndim
    lo = [slice(None)] * a.ndim
    hi[axis], lo[axis] = slice(1, None), slice(None, -1)
    for _ in range(n):
        a = op(a[tuple(hi)], a[tuple(lo)])
        if a._m is not nomask:  # NumPy's (np.diff's ufunc on masked arrays) shrinks
            a._m = make_mask(a._m, shrink=True)
    return a


def append(a, b, axis=None):
    """``b`` joined after ``a`` along ``axis`` (both flattened when None)."""
    from ._functions import concatenate
    a = _ma(a)
    b = b if isinstance(b, MaskedArray) else MaskedArray._new(_on(b, a.device), nomask)
    if axis is None:
        a, b, axis = a.ravel(), b.ravel(), 0
    return concatenate([a, b], axis)


# ---------------------------------------------------------------------------
# convolve, correlate

def _bool_any(f, x, y, mode):
    """``f`` of two bool arrays in NumPy's bool arithmetic (True where any
    product is true): the float counts, compared with 0."""
    return _C.gt(f(x.to(_C.float64), y.to(_C.float64), mode=mode), 0.5)


def _conv(f, a, v, mode, propagate_mask):
    a, v = _ma(a), _ma(v)
    v = v if v.device == a.device else v.to(a.device)
    am, vm = getmaskarray(a), getmaskarray(v)
    if propagate_mask:
        m = _C.logical_or(_bool_any(f, am, _C.ones_like(vm), mode),
                          _bool_any(f, _C.ones_like(am), vm, mode))
        d = f(a._data, v._data, mode=mode)
    else:
        m = _C.logical_not(_bool_any(f, _C.logical_not(am), _C.logical_not(vm), mode))
        d = f(a.filled(0), v.filled(0), mode=mode)
    return MaskedArray._new(d, m)


def convolve(a, v, mode="full", propagate_mask=True):
    """The discrete convolution of 1-d ``a`` and ``v``: an element is masked
    where a masked element takes part (``propagate_mask=False``: only where
    no unmasked pair does, masked elements counting as 0)."""
    return _conv(_tnp.convolve, a, v, mode, propagate_mask)


def correlate(a, v, mode="valid", propagate_mask=True):
    """The cross-correlation of 1-d ``a`` and ``v``, masked as ``convolve``."""
    return _conv(_tnp.correlate, a, v, mode, propagate_mask)


# ---------------------------------------------------------------------------
# alltrue, sometrue: logical_and/or reductions (axis 0 by default)

def _logical(fn, fill, name):
    def reduce(target, axis=0, dtype=None):
        if dtype is not None and tl_dtype(dtype) != _C.bool:
            raise TypeError(f"No loop matching the specified signature and casting was "
                            f"found for ufunc {name}")
        a = _ma(target)
        if a.ndim == 0:
            a = a.reshape(1)
        return _filled_reduce(fn, fill, a, axis, False)
    reduce.__name__ = reduce.__qualname__ = "alltrue" if fill else "sometrue"
    reduce.__doc__ = (f"``{name}`` reduced along ``axis`` (0 by default, None for all), "
                      "the masked elements left out; masked where all are.")
    return reduce


alltrue = _logical(_tnp.all, True, "logical_and")
sometrue = _logical(_tnp.any, False, "logical_or")


# ---------------------------------------------------------------------------
# methods

def _partition_warning(name):
    import warnings
    warnings.warn(f"Warning: '{name}' will ignore the 'mask' of the MaskedArray.",
                  UserWarning, stacklevel=3)


def _partition(self, kth, axis=-1, kind="introselect", order=None):
    """Partition the data in place (NumPy's ignores the mask, with a warning)."""
    _partition_warning("partition")
    self._data[...] = _tnp.partition(self._data, kth, axis=axis)


def _argpartition(self, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition the data (the mask ignored, with NumPy's warning)."""
    _partition_warning("argpartition")
    return _tnp.argpartition(self._data, kth, axis=axis)


def _searchsorted(self, v, side="left", sorter=None):
    """Where ``v`` would go in the data (the mask is not looked at, as NumPy's)."""
    return _tnp.searchsorted(self._data, _on(v, self.device), side=side,
                             sorter=None if sorter is None else _on(sorter, self.device))


def _imatmul(self, other):
    r = self @ other
    rd = getdata(r)
    self._data[...] = rd.to(self.dtype) if rd.dtype != self.dtype else rd
    rm = getmask(r)
    if self._m is not nomask and rm is not nomask:
        self._m[...] = rm
    else:
        self._m = _broadcast_mask(rm, self.shape) if rm is not nomask else nomask
    return self


def _divmod(a, b):
    return OPS["floor_divide"](a, b), OPS["remainder"](a, b)


MaskedArray.take = lambda self, indices, axis=None, out=None, mode="raise": \
    take(self, indices, axis, mode=mode)
MaskedArray.put = lambda self, indices, values, mode="raise": put(self, indices, values, mode)
MaskedArray.compress = lambda self, condition, axis=None, out=None: \
    compress(condition, self, axis)
MaskedArray.choose = lambda self, choices, out=None, mode="raise": \
    choose(self, choices, mode=mode)
MaskedArray.trace = lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: \
    trace(self, offset, axis1, axis2, dtype)
MaskedArray.partition = _partition
MaskedArray.argpartition = _argpartition
MaskedArray.searchsorted = _searchsorted
MaskedArray.__imatmul__ = _imatmul
MaskedArray.__divmod__ = _divmod
MaskedArray.__rdivmod__ = lambda self, other: _divmod(other, self)
for _m in (take, put, compress, choose, trace):
    getattr(MaskedArray, _m.__name__).__doc__ = _m.__doc__
