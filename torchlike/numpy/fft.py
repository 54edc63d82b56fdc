"""torchlike.numpy.fft: NumPy's ``np.fft`` and the Array API ``fft`` extension.

Transforms run NumPy's pocketfft on zero-copy views of CPU tensors and wrap
the result, keeping single precision (float32 -> complex64) as the standard
asks.  There is no FFT kernel in torchlike yet, so a transform of a tensor
that requires grad, or of a GPU tensor, raises TypeError rather than dropping
the gradient or copying to the host silently."""
import inspect

import numpy as np

from .. import _C
from .._array_function import as_tensor, check_fallback, tl_dtype

Tensor = _C.Tensor

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

# which result dtype a transform of each input dtype has
_COMPLEX_OF = {_C.float32: _C.complex64, _C.complex64: _C.complex64,
               _C.float16: _C.complex64, _C.bfloat16: _C.complex64}
_REAL_OF = {_C.complex64: _C.float32, _C.float32: _C.float32, _C.float16: _C.float32,
            _C.bfloat16: _C.float32}


def _transform(name, real_output):
    np_func = getattr(np.fft, name)

    def fn(x, /, *args, **kwargs):
        x = x if isinstance(x, Tensor) else as_tensor(x)
        check_fallback(f"torchlike.numpy.fft.{name}", [x])
        if not (x.is_floating_point() or x.is_complex()):
            raise TypeError(f"fft.{name} expects a floating-point or complex array, got "
                            f"{x.dtype}")
        src = x.numpy() if x.dtype not in (_C.float16, _C.bfloat16) else \
            x.to(_C.float32).numpy()
        result = as_tensor(np_func(src, *args, **kwargs))
        want = (_REAL_OF if real_output else _COMPLEX_OF).get(
            x.dtype, _C.float64 if real_output else _C.complex128)
        return result if result.dtype == want else result.to(want)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = np_func.__doc__
    fn.__signature__ = inspect.signature(np_func)
    return fn


fft = _transform("fft", False)
ifft = _transform("ifft", False)
fftn = _transform("fftn", False)
ifftn = _transform("ifftn", False)
fft2 = _transform("fft2", False)
ifft2 = _transform("ifft2", False)
rfft = _transform("rfft", False)
rfftn = _transform("rfftn", False)
rfft2 = _transform("rfft2", False)
ihfft = _transform("ihfft", False)
irfft = _transform("irfft", True)
irfftn = _transform("irfftn", True)
irfft2 = _transform("irfft2", True)
hfft = _transform("hfft", True)


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies, made with torchlike ops on ``device``."""
    if not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    k = _C.arange(n, dtype=_C.float64, device=device)
    k = _C.where(k < (n + 1) // 2, k, k - n)
    return (k / (n * d)).to(tl_dtype(dtype) or _C.float64)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    if not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    k = _C.arange(n // 2 + 1, dtype=_C.float64, device=device)
    return (k / (n * d)).to(tl_dtype(dtype) or _C.float64)


def _shift(x, axes, sign):
    x = x if isinstance(x, Tensor) else as_tensor(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    shifts = tuple(sign * (x.shape[a] // 2) if sign > 0 else -(x.shape[a] // 2) for a in axes)
    return _C.roll(x, shifts, tuple(axes)) if axes else x.clone()


def fftshift(x, /, *, axes=None):
    """Zero frequency to the centre: a roll, so it stays on the tape."""
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    return _shift(x, axes, -1)
