"""NumPy's index tricks over tensors: ``r_``, ``c_``, ``mgrid``, ``ogrid``,
``ndenumerate`` (and NumPy's own ``s_``, ``index_exp``, ``ndindex``, which
build only slices and tuples).

``r_``/``c_`` concatenate with torchlike ops, so tensors stay on their device;
``mgrid``/``ogrid`` take only numbers, so NumPy computes the grid on the host
(its exact values and dtypes) and it lands on the default device, as host data
does in ``asarray``."""
import operator

import numpy as np

from .. import _C
from .._array_function import _DEVICE, Unsupported, as_tensor, implements, np_dtype, tl_dtype
from ._creation import arange, array, asarray, linspace
from ._manipulation import concatenate
from ._info import result_type
from ._scalar_types import ScalarType

Tensor = _C.Tensor
s_ = np.s_
index_exp = np.index_exp
ndindex = np.ndindex


def _directive(item, axis, ndmin, trans1d):
    """NumPy's string directive as the first item: 'r'/'c' (matrix), 'axis',
    'axis,ndmin' or 'axis,ndmin,trans1d'. Returns (matrix, col, axis, ndmin, trans1d)."""
    if item in ("r", "c"):
        return True, item == "c", axis, ndmin, trans1d
    if "," in item:
        vec = item.split(",")
        try:
            axis, ndmin = [int(x) for x in vec[:2]]
            if len(vec) == 3:
                trans1d = int(vec[2])
        except Exception as error:
            raise ValueError(f"unknown special directive {item!r}") from error
        return False, False, axis, ndmin, trans1d
    try:
        return False, False, int(item), ndmin, trans1d
    except (ValueError, TypeError) as error:
        raise ValueError("unknown special directive") from error


def _scalar_dtype(item):
    """How a scalar item promotes: NumPy scalars by their dtype, Python ones weakly."""
    return tl_dtype(item.dtype) if isinstance(item, np.generic) else item


class AxisConcatenator:
    """``r_`` and ``c_``: the items (arrays, scalars, slices as ``arange`` or,
    with a complex step, ``linspace``) made at least ``ndmin``-d, promoted
    together and concatenated along ``axis``; NumPy's directives."""

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1):
        self.axis, self.matrix, self.ndmin, self.trans1d = axis, matrix, ndmin, trans1d

    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError("r_/c_ of a string builds a numpy.matrix (np.bmat); "
                                      "torchlike has no matrix type")
        key = key if isinstance(key, tuple) else (key,)
        axis, matrix, ndmin, trans1d = self.axis, self.matrix, self.ndmin, self.trans1d
        col = False
        # lists and scalars join the tensors' device (the default one when none)
        device = next((k.device for k in key if isinstance(k, Tensor)), None)
        objs, promoted = [], []
        for k, item in enumerate(key):
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                step = 1 if item.step is None else item.step
                if isinstance(step, (complex, np.complexfloating)):
                    obj = linspace(start, item.stop, num=int(abs(step)), device=device)
                else:
                    obj = arange(start, item.stop, step, device=device)
                if ndmin > 1:
                    obj = array(obj, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        obj = obj.transpose(-1, trans1d)
                promoted.append(obj.dtype)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                matrix, col, axis, ndmin, trans1d = _directive(item, axis, ndmin, trans1d)
                continue
            elif type(item) in ScalarType:
                obj = item
                promoted.append(_scalar_dtype(item))
            else:
                obj = _operand(item, device)
                item_ndim = obj.ndim
                obj = array(obj, copy=None, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                    axes = list(range(ndmin))
                    obj = obj.permute(axes[:k1] + axes[k2:] + axes[k1:k2])
                promoted.append(obj.dtype)
            objs.append(obj)
        if promoted:
            dtype = _promote(promoted)
            objs = [array(o, dtype=dtype, copy=None, ndmin=ndmin, device=device) for o in objs]
        res = concatenate(objs, axis=axis)
        if matrix:  # what np.matrix(res) would be: 2-d, a row unless 'c' asked a column
            if res.ndim > 2:
                raise ValueError("matrix must be 2-dimensional")
            if res.ndim == 1:
                res = res.reshape(1, -1).T if col else res.reshape(1, -1)
        return res

    def __len__(self):
        return 0


def _operand(item, device):
    """An array item as a tensor: on the tensors' device (host data on the
    default one when there is no tensor), by the NumPy spellings' rule on a
    device: lists copied there, an ndarray refused (no implicit host copy)."""
    if device is None or device.type == "cpu":
        return asarray(item, device=device)
    token = _DEVICE.set(device)
    try:
        return as_tensor(item)
    finally:
        _DEVICE.reset(token)


def _promote(items):
    """NumPy's result_type of dtypes and (weak) Python scalars: NumPy's own
    answer (int8 with 2.5 is float64 there), torchlike's where bfloat16 is in."""
    if any(i is _C.bfloat16 for i in items):
        return result_type(*items)
    return tl_dtype(np.result_type(*[np_dtype(i) if isinstance(i, _C.dtype) else i
                                     for i in items]))


class RClass(AxisConcatenator):
    """``np.r_``: along the first axis."""

    def __init__(self):
        super().__init__(0)


class CClass(AxisConcatenator):
    """``np.c_``: along the last axis, 1-d items as columns."""

    def __init__(self):
        super().__init__(-1, ndmin=2, trans1d=0)


r_ = RClass()
c_ = CClass()


def _number(x):
    """A slice bound for NumPy: 0-d tensors as Python numbers."""
    return x.item() if isinstance(x, Tensor) else x


def _host_key(key):
    if isinstance(key, slice):
        return slice(_number(key.start), _number(key.stop), _number(key.step))
    if isinstance(key, tuple):
        return tuple(_host_key(k) for k in key)
    return key


class _Grid:
    """``mgrid`` / ``ogrid``: NumPy's grid of the same key, as tensors on the
    default device (one array for ``mgrid``, a tuple for a multi-key ``ogrid``)."""

    def __init__(self, grid):
        self._grid = grid

    def __getitem__(self, key):
        result = self._grid[_host_key(key)]
        if isinstance(result, tuple):
            return tuple(asarray(r) for r in result)
        return asarray(result)


mgrid = _Grid(np.mgrid)
ogrid = _Grid(np.ogrid)


class ndenumerate:
    """``(index, value)`` pairs in C order; values are NumPy scalars, as NumPy's
    (one copy of the array to the host; bfloat16 values as float32)."""

    def __init__(self, arr):
        host = asarray(arr).detach().cpu()
        if host.dtype == _C.bfloat16:
            host = host.to(_C.float32)
        self._iter = np.ndenumerate(host.numpy())

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter)


@implements(np.ix_)
def ix_(*args):
    """Open-mesh index tensors: the k-th input (1-d; a bool mask becomes its
    positions) shaped to broadcast along axis k.  An empty sequence indexes
    with int64, as NumPy's intp (an empty float64 tensor is what an empty
    list made; other empty tensors keep their dtype, as NumPy's arrays)."""
    out = []
    for k, new in enumerate(args):
        new = as_tensor(new)
        if new.numel() == 0 and new.dtype == _C.float64:
            new = new.to(_C.int64)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == _C.bool:
            new = _C.nonzero(new).reshape(-1)
        out.append(new.reshape((1,) * k + (new.shape[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


# ---- flat and multi-dimensional indices, on the indices' device ----------------------

def _strides_of(dims, order):
    """The step of each dim in a flat index of shape ``dims``."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    steps, step = [], 1
    for n in (reversed(dims) if order == "C" else dims):
        steps.append(step)
        step *= n
    return steps[::-1] if order == "C" else steps


def _dims_of(dims, too_large):
    """NumPy's shape argument as ints (a float is NumPy's TypeError) and the
    number of elements it holds; a product past int64 (intp) is NumPy's
    ValueError ``too_large``, where the flat indices would wrap."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = tuple(operator.index(d) for d in dims)
    size = 1
    for n in dims:
        size *= n
    if size > _INTP_MAX or any(n > _INTP_MAX for n in dims):
        raise ValueError(too_large)
    return dims, size


_INTP_MAX = 2 ** 63 - 1


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of each coordinate tuple: sum of coordinate * step.
    ``mode='raise'`` checks the coordinates with one host read (NumPy's
    ValueError); 'wrap' and 'clip' map them into range per dim.  The
    coordinates broadcast first, as NumPy's, so an empty broadcast is an
    empty result whatever the dims."""
    dims, size = _dims_of(dims, "invalid dims: array size defined by dims is larger than the "
                                "maximum possible size.")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError(f"list of clipmodes has wrong length ({len(modes)} instead of "
                         f"{len(dims)})")
    for m in modes:
        if m not in ("raise", "wrap", "clip"):
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
    steps = _strides_of(dims, order)
    coords = [as_tensor(c) for c in multi_index]
    if any(c.is_floating_point() or c.is_complex() for c in coords):
        raise TypeError("only int indices permitted")
    if not coords:
        return _C.zeros((), dtype=_C.int64)
    coords = _C.broadcast_tensors(*coords)
    if coords[0].numel() and size == 0:
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    flat = None
    for c, n, m, step in zip(coords, dims, modes, steps):
        c = c.to(_C.int64)
        if m == "wrap":
            c = _C.remainder(c, n)
        elif m == "clip":
            c = _C.clamp(c, 0, n - 1)
        elif bool(((c < 0) | (c >= n)).any()):
            raise ValueError("invalid entry in coordinates array")
        flat = c * step if flat is None else flat + c * step
    return flat


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """The coordinates of flat indices in ``shape``: a quotient and a
    remainder per dim; out-of-range indices are NumPy's ValueError (one host
    read)."""
    shape, size = _dims_of(shape, "dimensions are too large; arrays and shapes with a total "
                                  "size greater than 'intp' are not supported.")
    flat = as_tensor(indices)
    if flat.is_floating_point() or flat.is_complex() or flat.dtype == _C.bool:
        raise TypeError("only int indices permitted")
    flat = flat.to(_C.int64)
    if not shape and flat.ndim:  # a 0-d shape has one place: one index, not an array of them
        raise ValueError("multiple indices are not supported for 0d arrays")
    bad = (flat < 0) | (flat >= size)
    if bool(bad.any()):
        first = int(flat[bad].reshape(-1)[0])
        raise ValueError(f"index {first} is out of bounds for array with size {size}")
    return tuple(_C.remainder(_C.div(flat, step, rounding_mode="floor"), n)
                 for n, step in zip(shape, _strides_of(shape, order)))


@implements(np.unpackbits)
def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of uint8 data as uint8 0/1, eight per byte along ``axis``
    (the flattened array for None), shifts and masks on the device."""
    a = as_tensor(a)
    if a.dtype != _C.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("big", "little"):
        raise Unsupported("unpackbits with another bitorder")
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = axis + a.ndim if axis < 0 else axis
    shifts = _C.arange(7, -1, -1, device=a.device) if bitorder == "big" else \
        _C.arange(8, device=a.device)
    bits = _C.bitwise_and(_C.bitwise_right_shift(a.unsqueeze(axis + 1),
                                                 shifts.to(_C.uint8).reshape(
                                                     (8,) + (1,) * (a.ndim - axis - 1))), 1)
    shape = tuple(a.shape)
    bits = bits.reshape(shape[:axis] + (shape[axis] * 8,) + shape[axis + 1:])
    if count is None:
        return bits
    total = shape[axis] * 8
    if count < -total:
        raise ValueError("-count larger than number of elements")
    keep = min(count, total) if count >= 0 else max(total + count, 0)
    bits = bits.narrow(axis, 0, keep)
    if count > total:  # NumPy pads with zero bits
        pad = list(bits.shape)
        pad[axis] = count - total
        bits = _C.cat([bits, _C.zeros(tuple(pad), dtype=_C.uint8, device=a.device)], axis)
    return bits


@implements(np.packbits)
def packbits(a, axis=None, bitorder="big"):
    """Eight truth values per uint8 along ``axis`` (the flattened array for
    None), the last byte padded with zeros: weighted sums on the device."""
    a = as_tensor(a)
    if a.is_floating_point() or a.is_complex():
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("big", "little"):
        raise Unsupported("packbits with another bitorder")
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        raise Unsupported("packbits of a 0-d array")  # NumPy's own rules
    axis = axis + a.ndim if axis < 0 else axis
    a = (a != 0).to(_C.uint8).movedim(axis, -1)
    n = a.shape[-1]
    if n % 8:
        pad = _C.zeros(tuple(a.shape[:-1]) + (8 - n % 8,), dtype=_C.uint8, device=a.device)
        a = _C.cat([a, pad], -1)
    weights = _C.tensor([128, 64, 32, 16, 8, 4, 2, 1], dtype=_C.int64, device=a.device)
    if bitorder == "little":
        weights = weights.flip(0)
    groups = a.reshape(tuple(a.shape[:-1]) + (a.shape[-1] // 8, 8))
    return (groups * weights).sum(-1).to(_C.uint8).movedim(-1, axis)
