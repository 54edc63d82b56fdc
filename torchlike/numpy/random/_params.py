"""Reading the arguments of a draw as NumPy does: parameters broadcast
against each other and against ``size``, validated with NumPy's messages.

A parameter is a Python float when NumPy would see a scalar (a number, a
0-d array), else a float64 (or int64) tensor on the draw's device: host
data is copied there, as ``torchlike.numpy.asarray`` copies it, and a tensor
on another device is moved (parameters are small; the draws are not)."""
import numpy as _np

from ... import _C
from ..._array_function import tensor_if_holding, tl_dtype
from ..._device import device, get_default_device
from ._sampling import Source

Tensor = _C.Tensor
F64 = _C.float64
I64 = _C.int64


def size_tuple(size):
    """``size`` as a tuple (None stays None); NumPy's errors for negative sizes."""
    if size is None:
        return None
    if isinstance(size, Tensor):
        size = size.tolist()
    if isinstance(size, (int, _np.integer)):
        size = (size,)
    # a size the program computed (a 0-d tensor, on any device) is read as
    # its number; NumPy's own conversion reads host data only
    shape = tuple(s if isinstance(s, int) else int(s.item()) if isinstance(s, Tensor)
                  else int(_np.asarray(s).item()) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def any_true(cond):
    """A Python bool from a comparison of floats or tensors (any element)."""
    if isinstance(cond, Tensor):
        return bool(cond.any())
    return bool(cond)


def check(cond, message, exc=ValueError):
    """Raise ``exc(message)`` where ``cond`` holds."""
    if any_true(cond):
        raise exc(message)


def isnan(x):
    return x != x


def _device_of(values, explicit):
    if explicit is not None:
        return device(explicit)
    for v in values:
        if isinstance(v, Tensor):
            return v.device
    return device(get_default_device())


def convert(value, device, dtype=F64):
    """A Python number for a scalar, else a tensor of ``dtype`` on ``device``."""
    value = tensor_if_holding(value)
    if isinstance(value, Tensor):
        value = value.detach()
        if value.ndim == 0 and value.device.type == "cpu":
            return _scalar(value.item(), dtype)
        if dtype == I64 and (value.dtype.is_floating_point or value.dtype.is_complex):
            _cannot_cast(value.dtype.name)
        return value.to(device=device, dtype=dtype)
    arr = _np.asarray(value)
    if arr.dtype.kind not in "biuf":
        arr = arr.astype(_np.float64)  # raises NumPy's own error for strings and objects
    if arr.ndim == 0:
        return _scalar(arr.item(), dtype)
    if dtype == I64 and arr.dtype.kind == "f":
        _cannot_cast(arr.dtype.name)
    npd = _np.float64 if dtype == F64 else _np.int64
    return _C.as_tensor(arr.astype(npd), device=device)


def _cannot_cast(name):
    """NumPy's error for an array of floats where an integer parameter is read."""
    raise TypeError(f"Cannot cast array data from dtype('{name}') to dtype('int64') "
                    "according to the rule 'safe'")


def _scalar(x, dtype):
    return float(x) if dtype == F64 else int(x)


def shape_of(x):
    return tuple(x.shape) if isinstance(x, Tensor) else ()


def out_shape(size, *values):
    """The draw's shape: the parameters' broadcast shape, or ``size`` when it
    holds them (NumPy's ValueError otherwise)."""
    shapes = [shape_of(v) for v in values]
    if size is None:
        return tuple(_np.broadcast_shapes(*shapes)) if shapes else ()
    both = tuple(_np.broadcast_shapes(size, *shapes))
    if both != size:
        raise ValueError(f"Output size {size} is not compatible with broadcast dimensions "
                         f"of inputs {both}.")
    return size


class Prepared:
    """A draw's parameters, shape and source."""

    def __init__(self, bitgen, explicit_device, size, values, dtypes, broadcast=True):
        device = _device_of(values, explicit_device)
        self.values = [convert(v, device, d) for v, d in zip(values, dtypes)]
        self.arrays = any(isinstance(v, Tensor) for v in self.values)
        self.shape = out_shape(size_tuple(size), *(self.values if broadcast else ()))
        self.device = device
        self.src = Source(bitgen._generator_for(device), device)

    def check(self, cond, message, exc=ValueError):
        """``check``; with an array among the parameters NumPy says "contains
        NaNs" where its all-scalar message says "is NaN"."""
        if self.arrays:
            message = message.replace(" is NaN", " contains NaNs")
        check(cond, message, exc)


def float_dtype(dtype, what):
    """float32 or float64 for the ``dtype=`` of random/standard_* (NumPy's TypeError)."""
    d = tl_dtype(dtype) if dtype is not None else F64
    if d not in (_C.float32, F64):
        raise TypeError(f"Unsupported dtype {_np.dtype(d.name)!r} for {what}")
    return d


def fill_out(result, out, size):
    """``out=``: its shape must be ``size``'s; the result is copied in and out returned."""
    if out is None:
        return result
    if size is not None and size_tuple(size) != tuple(out.shape):
        raise ValueError("size must match out.shape when used together")
    if out.dtype != result.dtype:
        raise TypeError(f"Supplied output array has the wrong type. Expected "
                        f"{_np.dtype(result.dtype.name)}, got {_np.dtype(out.dtype.name)}")
    out.copy_(result)
    return out
