"""torchlike.fft: discrete Fourier transforms with PyTorch's API, differentiable.

Every transform is built from three primitives, as PyTorch's are:

    c2c(x, dims, inverse, scale)   complex -> complex over dims
    r2c(x, dims, scale)            real -> complex, the last dim one-sided
                                   (n // 2 + 1 frequencies)
    c2r(x, dims, n, scale)         one-sided complex -> real, the last dim of
                                   the output of length n

each computing ``scale * unnormalised DFT`` (sign -1 forward, +1 inverse).
The derivatives are transforms again (legend: F the unnormalised DFT over
dims, F^H its adjoint, the unnormalised inverse; P keeps the one-sided half):

    c2c:  y = s F x                 grad_x = s F^H grad_y
    r2c:  y = s P F x  (x real)     grad_x = s Re(F^H pad(grad_y))
    c2r:  y = s F^H ext(x)          grad_x = s P F grad_y, with the entries that
                                    ext() mirrored (1 .. n - n//2 - 1) doubled

so gradients of any order are transforms recorded on the tape.

On the CPU the transforms are NumPy's pocketfft on zero-copy views; on a
device they are the device's executor (``_C._fft_c2c/_fft_r2c/_fft_c2r``,
src/gpu/fft: cuFFT on CUDA, with the same conventions).  No FFT is written
here.  Sizes (``n=``/``s=``) are applied by padding or narrowing
before the primitive, with ordinary ops, so they are differentiable too.
Inputs of integral dtypes are promoted to the default float dtype; float16
and bfloat16 compute in float32."""
import math

import numpy as np

from . import _C
from .autograd.function import Function

Tensor = _C.Tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")


# ---- the three primitives -------------------------------------------------------


def _pocketfft(kind, a, axes, inverse=False, n=None):
    """The unscaled primitive on an ndarray over axes, by NumPy's pocketfft:
    the CPU's, and the emulated fake device's executor's (_emulated_pass)."""
    if kind == "c2c":
        return np.fft.ifftn(a, axes=axes, norm="forward") if inverse else \
            np.fft.fftn(a, axes=axes, norm="backward")
    if kind == "r2c":
        return np.fft.rfftn(a, axes=axes, norm="backward")
    sizes = [a.shape[d] for d in axes[:-1]] + [n]
    return np.fft.irfftn(a, s=sizes, axes=axes, norm="forward")


def _primitive(kind, x, dims, inverse=False, n=None):
    """The unscaled primitive on x: pocketfft on a CPU view, the device's
    executor elsewhere (_C._fft_*: cuFFT on CUDA, src/gpu/fft)."""
    if x.device.type != "cpu":
        if kind == "c2c":
            return _C._fft_c2c(x.detach(), dims, inverse)
        if kind == "r2c":
            return _C._fft_r2c(x.detach(), dims)
        return _C._fft_c2r(x.detach(), dims, n)
    return _C.from_numpy(np.ascontiguousarray(_pocketfft(kind, x.detach().numpy(), dims,
                                                         inverse, n)))


def _emulated_pass(kind, inverse, n, batch, src, dst, src_dtype, dst_dtype):
    """The emulated fake device's executor (py_fft.c): one pass of ``batch``
    contiguous signals of sizes ``n`` (the real side's), from the bytes of
    src into those of dst."""
    last = n[-1] // 2 + 1 if kind == "c2r" else n[-1]
    a = np.frombuffer(src, dtype=src_dtype).reshape((batch, *n[:-1], last))
    y = _pocketfft(kind, a, tuple(range(1, len(n) + 1)), inverse, n[-1])
    np.frombuffer(dst, dtype=dst_dtype)[...] = y.reshape(-1)


def _scaled(y, scale):
    """y * scale, part by part for complex y: a complex product with scale
    (as scale + 0j) would make NaN of an infinite part's 0 * inf, where
    NumPy's and PyTorch's normalisation scales each part by the real factor."""
    if scale == 1.0:
        return y
    if y.is_complex():  # y is the primitive's fresh result: scaled in place
        _C.real(y).mul_(scale)
        _C.imag(y).mul_(scale)
        return y
    return y * scale


class _C2C(Function):
    _backward_name = "FftC2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, inverse, scale):
        ctx.dims, ctx.inverse, ctx.scale = dims, inverse, scale
        return _scaled(_primitive("c2c", x, dims, inverse), scale)

    @staticmethod
    def backward(ctx, grad):
        return _C2C.apply(grad, ctx.dims, not ctx.inverse, ctx.scale), None, None, None


class _R2C(Function):
    _backward_name = "FftR2CBackward0"

    @staticmethod
    def forward(ctx, x, dims, scale):
        ctx.dims, ctx.scale, ctx.n = dims, scale, x.shape[dims[-1]]
        return _scaled(_primitive("r2c", x, dims), scale)

    @staticmethod
    def backward(ctx, grad):
        last = ctx.dims[-1]
        padded = _resize(grad, last, ctx.n)  # P^T: the dropped half is zero
        return _C2C.apply(padded, ctx.dims, True, ctx.scale).real, None, None


class _C2R(Function):
    _backward_name = "FftC2RBackward0"

    @staticmethod
    def forward(ctx, x, dims, n, scale):
        ctx.dims, ctx.scale = dims, scale
        return _scaled(_primitive("c2r", x, dims, True, n), scale)

    @staticmethod
    def backward(ctx, grad):
        last = ctx.dims[-1]
        n = grad.shape[last]
        gx = _R2C.apply(grad, ctx.dims, ctx.scale)
        mirrored = n - gx.shape[last]  # entries 1 .. mirrored appear twice in ext(x)
        if mirrored > 0:
            weight = _C.ones(gx.shape[last], dtype=grad.dtype, device=grad.device)
            weight[1:mirrored + 1] = 2.0
            shape = [1] * gx.ndim
            shape[last] = gx.shape[last]
            gx = gx * weight.reshape(shape)
        return gx, None, None, None


# ---- argument handling ------------------------------------------------------------


def _check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f'Invalid normalization mode: "{norm}"; expected one of '
                         f'"forward", "backward" or "ortho"')
    return norm or "backward"


def _scale(norm, inverse, size):
    """The factor a transform of ``size`` points carries under ``norm``."""
    if norm == "ortho":
        return 1.0 / math.sqrt(size) if size else 1.0
    if (norm == "backward") == inverse:
        return 1.0 / size if size else 1.0
    return 1.0


def _as_input(x, complex_input, func):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft.{func}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype in (_C.float16, _C.bfloat16):
        x = x.to(_C.float32)
    elif not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.get_default_dtype())
    if complex_input and not x.is_complex():
        x = x.to(_C.complex64 if x.dtype == _C.float32 else _C.complex128)
    if not complex_input and x.is_complex():
        raise RuntimeError(f"fft.{func}() expects a real input tensor, but got {x.dtype}")
    return x


def _resize(x, dim, size):
    """Narrow or zero-pad ``x`` along ``dim`` to ``size``."""
    have = x.shape[dim]
    if size == have:
        return x
    if size < have:
        return x.narrow(dim, 0, size)
    shape = list(x.shape)
    shape[dim] = size - have
    return _C.cat([x, _C.zeros(shape, dtype=x.dtype, device=x.device)], dim)


def _dims_and_sizes(x, s, dim, func):
    """PyTorch's rules for (s, dim) of the n-d transforms."""
    if dim is None and s is None:
        dims = list(range(x.ndim))
    elif dim is None:
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    for d in dims:
        if not -x.ndim <= d < max(x.ndim, 1) or x.ndim == 0:
            raise IndexError(f"fft.{func}(): dimension {d} out of range for a {x.ndim}-d "
                             f"tensor")
    dims = [d % x.ndim for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"fft.{func}(): dims must be unique, got {tuple(dims)}")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if len(s) != len(dims):
            raise RuntimeError(f"fft.{func}(): when given, dim and shape arguments must have "
                               f"the same length, got s={tuple(s)} and dim={tuple(dims)}")
    sizes = [x.shape[d] if s is None or s[i] == -1 else int(s[i]) for i, d in enumerate(dims)]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"fft.{func}(): invalid number of data points ({n}) specified")
    return dims, sizes


def _c2c_nd(x, s, dim, norm, inverse, func):
    x = _as_input(x, True, func)
    norm = _check_norm(norm)
    dims, sizes = _dims_and_sizes(x, s, dim, func)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    if not dims:
        return x.clone()
    return _C2C.apply(x, tuple(dims), inverse, _scale(norm, inverse, math.prod(sizes)))


def _r2c_nd(x, s, dim, norm, func, inverse=False):
    x = _as_input(x, False, func)
    norm = _check_norm(norm)
    dims, sizes = _dims_and_sizes(x, s, dim, func)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    return _R2C.apply(x, tuple(dims), _scale(norm, inverse, math.prod(sizes)))


def _c2r_nd(x, s, dim, norm, func, inverse=True):
    x = _as_input(x, True, func)
    norm = _check_norm(norm)
    dims, sizes = _dims_and_sizes(x, s, dim, func)
    if s is None or s[-1] == -1:  # the default output length: the input was one-sided
        sizes[-1] = 2 * (x.shape[dims[-1]] - 1)
    if sizes[-1] < 1:
        raise RuntimeError(f"fft.{func}(): invalid number of data points ({sizes[-1]}) "
                           f"specified")
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _resize(x, d, n)
    x = _resize(x, dims[-1], sizes[-1] // 2 + 1)
    return _C2R.apply(x, tuple(dims), sizes[-1], _scale(norm, inverse, math.prod(sizes)))


def _one(n, func):
    # -1 means "the input's length" only inside an n-d transform's s; a 1-d
    # transform's n must be a real length, as in PyTorch
    if n is not None and not isinstance(n, (str, bytes)) and n < 1:
        raise RuntimeError(f"fft.{func}(): invalid number of data points ({n}) specified")
    return None if n is None else [n]


# ---- the public transforms --------------------------------------------------------


def fft(input, n=None, dim=-1, norm=None):
    """One-dimensional DFT along ``dim`` (complex output)."""
    return _c2c_nd(input, _one(n, "fft"), dim, norm, False, "fft")


def ifft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`fft`."""
    return _c2c_nd(input, _one(n, "ifft"), dim, norm, True, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c_nd(input, s, dim, norm, False, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2c_nd(input, s, dim, norm, True, "ifft2")


def fftn(input, s=None, dim=None, norm=None):
    return _c2c_nd(input, s, dim, norm, False, "fftn")


def ifftn(input, s=None, dim=None, norm=None):
    return _c2c_nd(input, s, dim, norm, True, "ifftn")


def rfft(input, n=None, dim=-1, norm=None):
    """DFT of a real signal: the n // 2 + 1 non-negative frequencies."""
    return _r2c_nd(input, _one(n, "rfft"), dim, norm, "rfft")


def irfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`rfft`: a real signal of length ``n``
    (default ``2 * (input.size(dim) - 1)``)."""
    return _c2r_nd(input, _one(n, "irfft"), dim, norm, "irfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _r2c_nd(input, s, dim, norm, "rfft2")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _c2r_nd(input, s, dim, norm, "irfft2")


def rfftn(input, s=None, dim=None, norm=None):
    return _r2c_nd(input, s, dim, norm, "rfftn")


def irfftn(input, s=None, dim=None, norm=None):
    return _c2r_nd(input, s, dim, norm, "irfftn")


# A Hermitian-symmetric signal's DFT is real: hfft is c2r of the conjugate under
# a forward transform's scaling, ihfft the conjugate of r2c under an inverse's.

def hfftn(input, s=None, dim=None, norm=None):
    x = _as_input(input, True, "hfftn")
    return _c2r_nd(x.conj(), s, dim, norm, "hfftn", inverse=False)


def ihfftn(input, s=None, dim=None, norm=None):
    return _r2c_nd(input, s, dim, norm, "ihfftn", inverse=True).conj()


def hfft(input, n=None, dim=-1, norm=None):
    return hfftn(input, _one(n, "hfft"), [dim], norm)


def ihfft(input, n=None, dim=-1, norm=None):
    return ihfftn(input, _one(n, "ihfft"), [dim], norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    return ihfftn(input, s, dim, norm)


# ---- helpers ------------------------------------------------------------------------


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """Sample frequencies of an ``n``-point DFT with spacing ``d``."""
    if n < 1:
        raise RuntimeError(f"fftfreq(): n must be positive, got {n}")
    k = _C.arange(n, dtype=dtype or _C.get_default_dtype(), device=device)
    k = _C.where(k < (n + 1) // 2, k, k - n) / (n * d)
    return k.requires_grad_(requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The non-negative frequencies of an ``n``-point real DFT."""
    if n < 1:
        raise RuntimeError(f"rfftfreq(): n must be positive, got {n}")
    k = _C.arange(n // 2 + 1, dtype=dtype or _C.get_default_dtype(), device=device) / (n * d)
    return k.requires_grad_(requires_grad)


def _shift(input, dim, sign):
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return input.clone()
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return _C.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre (a roll: differentiable)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Inverse of :func:`fftshift`."""
    return _shift(input, dim, -1)
