"""torchlike.numpy.fft: NumPy's ``np.fft`` and the Array API ``fft`` extension.

Each function is NumPy's signature over the differentiable transforms of
``torchlike.fft`` (pocketfft on the CPU), so ``np.fft.fft(t)`` on a tensor
that requires grad is recorded on the tape.  dtypes are NumPy's: integers and
bools transform in float64 (complex128), single precision stays single
(float32 -> complex64), float16 computes in float32."""
import inspect

import numpy as np

from .. import _C
from .. import fft as _tlfft
from .._array_function import TABLE, as_tensor, finish, tl_dtype, value_errors, scalar_count

Tensor = _C.Tensor

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


# the transforms of real data: NumPy refuses complex input to them with a
# TypeError (its rfft ufunc has no complex loop), not a ValueError
_REAL_INPUT = ("rfft", "ihfft", "rfftn", "rfft2")


def _input(a, name):
    x = a if isinstance(a, Tensor) else as_tensor(a)
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.float64)  # NumPy transforms integers in double precision
    elif x.is_complex() and name in _REAL_INPUT:
        raise TypeError(f"np.fft.{name}() takes real input, got {x.dtype} (transform complex "
                        f"data with np.fft.{name.replace('rfft', 'fft').replace('ihfft', 'ifft')})")
    return x


def _ints(v):
    """Lengths and axes as NumPy takes them: NumPy integers and counts the
    program computed (0-d integer arrays) as ints, alone or in a sequence."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return tuple(_ints(x) for x in v)
    v = scalar_count(v)
    return int(v) if isinstance(v, np.integer) else v


def _one_dim(name):
    op = getattr(_tlfft, name)

    def fn(a, n=None, axis=-1, norm=None, out=None):
        with value_errors(name):  # an invalid number of points
            result = op(_input(a, name), n=_ints(n), dim=_ints(axis), norm=norm)
        return finish(result, out)
    return _named(fn, name)


def _many_dims(name, default_axes):
    op = getattr(_tlfft, name)

    def fn(a, s=None, axes=default_axes, norm=None, out=None):
        with value_errors(name):
            result = op(_input(a, name), s=_ints(s), dim=_ints(axes), norm=norm)
        return finish(result, out)
    return _named(fn, name)


def _named(fn, name):
    np_func = getattr(np.fft, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = np_func.__doc__
    fn.__signature__ = inspect.signature(np_func)
    return fn


fft = _one_dim("fft")
ifft = _one_dim("ifft")
rfft = _one_dim("rfft")
irfft = _one_dim("irfft")
hfft = _one_dim("hfft")
ihfft = _one_dim("ihfft")
fftn = _many_dims("fftn", None)
ifftn = _many_dims("ifftn", None)
rfftn = _many_dims("rfftn", None)
irfftn = _many_dims("irfftn", None)
fft2 = _many_dims("fft2", (-2, -1))
ifft2 = _many_dims("ifft2", (-2, -1))
rfft2 = _many_dims("rfft2", (-2, -1))
irfft2 = _many_dims("irfft2", (-2, -1))


def _count(n):
    """n as NumPy's fftfreq/rfftfreq take it: a Python int (a bool is one) or
    a NumPy integer, kept as given for NumPy's arithmetic with d (a count
    computed by the program, a 0-d integer array, as its int); anything
    else is NumPy's ValueError."""
    if isinstance(n, Tensor):
        n = scalar_count(n)
    if not isinstance(n, (int, np.integer)):
        raise ValueError("n should be an integer")
    return n


def _bins(n, device):
    """fftfreq's integer bins 0, 1, ..., -2, -1.  A NumPy integer n runs
    NumPy's own steps on the host (an unsigned n wraps -(n // 2) as NumPy's
    does); a bool n is NumPy's TypeError from its empty(n)."""
    if isinstance(n, bool):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{n}'")
    if isinstance(n, np.integer):
        bins = np.empty(n, int)
        half = (n - 1) // 2 + 1
        bins[:half] = np.arange(0, half, dtype=int)
        bins[half:] = np.arange(-(n // 2), 0, dtype=int)
        bins = as_tensor(bins).to(_C.int64)
        return bins if device is None else bins.to(device)
    k = _C.arange(n, dtype=_C.int64, device=device)
    return _C.where(k < (n + 1) // 2, k, k - n)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies, made with torchlike ops on ``device``.  As NumPy's:
    1 / (n d) first (n = 0 with a Python spacing is ZeroDivisionError), then
    a negative n is refused by the empty bins."""
    n = _count(n)
    val, wide = _reciprocal(n, d)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    return _frequencies(_bins(n, _device_of(d, device)), val, wide, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The non-negative frequencies; as NumPy's, a negative n gives none
    (its range up to n // 2 + 1 is empty)."""
    n = _count(n)
    val, wide = _reciprocal(n, d)
    k = _C.arange(max(int(n) // 2 + 1, 0), dtype=_C.int64, device=_device_of(d, device))
    return _frequencies(k, val, wide, dtype)


def _device_of(d, device):
    return d.device if device is None and isinstance(d, Tensor) else device


def _reciprocal(n, d):
    """1 / (n d) as NumPy computes it, and the dtype of the frequencies: the
    reciprocal in the arithmetic of n and d (a float32 spacing's rounding
    kept; a Python 0 is Python's ZeroDivisionError), float64, complex128 for
    a complex spacing."""
    n = n if isinstance(n, np.integer) else int(n)  # a NumPy int32 n promotes as its own
    if isinstance(d, np.ndarray) and d.ndim:  # host data: refused beside a device's bins
        d = as_tensor(d)
    if isinstance(d, Tensor):
        val = n * d  # in d's dtype: an integer product wraps as NumPy's does
        if not (val.is_floating_point() or val.is_complex()):
            val = val.to(_C.float64)  # NumPy's 1.0 / ints is float64, not the default float
        val = 1.0 / val
        wide = _C.complex128 if val.is_complex() else _C.float64
        return val.to(wide), wide
    # a number, a NumPy scalar or 0-d array: the reciprocal on the host
    val = 1.0 / (n * d)
    wide = _C.complex128 if np.iscomplexobj(val) else _C.float64
    return (complex(val) if wide is _C.complex128 else float(val)), wide


def _frequencies(k, val, wide, dtype):
    """The bins ``k`` times 1 / (n d), the product in float64 (complex128)."""
    return (k.to(wide) * val).to(tl_dtype(dtype) or wide)


def fftshift(x, axes=None):
    """Zero frequency to the centre: a roll, so it stays on the tape."""
    return _tlfft.fftshift(x if isinstance(x, Tensor) else as_tensor(x), dim=_ints(axes))


def ifftshift(x, axes=None):
    return _tlfft.ifftshift(x if isinstance(x, Tensor) else as_tensor(x), dim=_ints(axes))


# np.fft.<name>(tensor) dispatches here through __array_function__.
for _name in __all__:
    TABLE[getattr(np.fft, _name)] = globals()[_name]
