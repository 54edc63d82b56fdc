"""torch.signal.windows: the SciPy-style window functions (scipy.signal.windows).

Every window is computed in float64 on the requested device from the point
index n = 0 .. M-1 and then cast to the requested dtype (float32 or float64),
so a float32 window is float64's rounded once.  ``sym=False`` gives the
periodic window for spectral analysis: the symmetric window of length M + 1
without its last point.  M = 0 gives an empty window, M = 1 a single 1.

The argument checks and their messages are PyTorch's, including the function
that names them (hann, hamming and nuttall are general_cosine's)."""
import math

from .. import _C
from .._composites import _window_values
from .._layout import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _check(fn, M, layout, dtype):
    if M < 0:
        raise ValueError(f"{fn} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{fn} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_C.float32, _C.float64):
        raise ValueError(f"{fn} expects float32 or float64 dtypes, got: "
                         f"{str(dtype).replace('torchlike.', 'torch.')}")


def _window(fn, M, sym, dtype, layout, device, requires_grad, make):
    """make(n, L) -> the symmetric window of length L at the float64 points n."""
    dtype = dtype or _C.get_default_dtype()
    _check(fn, M, layout, dtype)
    return _window_values(M, not sym, dtype, device, requires_grad, make)


def _cosine_sum(a):
    """sum_k a_k cos(k x) over x = -pi .. pi: scipy's general_cosine."""
    def make(n, L):
        x = _C.sub(_C.mul(n, 2 * math.pi / (L - 1)), math.pi)
        w = None
        for k, ak in enumerate(a):
            term = _C.mul(_C.cos(_C.mul(x, float(k))), float(ak))
            w = term if w is None else _C.add(w, term)
        return w
    return make


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """w[n] = sum_k a_k cos(k x_n), x_n spread evenly over [-pi, pi]."""
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _window("general_cosine", M, sym, dtype, layout, device, requires_grad,
                   _cosine_sum(a))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    """general_cosine with a = [alpha, 1 - alpha]."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, alpha=0.54, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The triangle 1 - |2n / (M - 1) - 1|, zero at both ends."""
    def make(n, L):
        return _C.sub(1.0, _C.abs(_C.sub(_C.mul(n, 2.0 / (L - 1)), 1.0)))
    return _window("bartlett", M, sym, dtype, layout, device, requires_grad, make)


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The sine window sin(pi (n + 1/2) / M)."""
    def make(n, L):
        return _C.sin(_C.mul(_C.add(n, 0.5), math.pi / L))
    return _window("cosine", M, sym, dtype, layout, device, requires_grad, make)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided,
                device=None, requires_grad=False):
    """exp(-|n - center| / tau); center defaults to the middle, (L - 1) / 2."""
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def make(n, L):
        c = (L - 1) / 2 if center is None else float(center)
        return _C.exp(_C.mul(_C.abs(_C.sub(n, c)), -1.0 / tau))
    return _window("exponential", M, sym, dtype, layout, device, requires_grad, make)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    """exp(-(n - (L - 1) / 2)^2 / (2 std^2))."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def make(n, L):
        k = _C.sub(n, (L - 1) / 2)
        return _C.exp(_C.mul(_C.mul(k, k), -1.0 / (2.0 * std * std)))
    return _window("gaussian", M, sym, dtype, layout, device, requires_grad, make)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    """i0(beta sqrt(1 - (2n / (L - 1) - 1)^2)) / i0(beta)."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def make(n, L):
        r = _C.sub(_C.mul(n, 2.0 / (L - 1)), 1.0)
        arg = _C.mul(_C.sqrt(_C.clamp(_C.sub(1.0, _C.mul(r, r)), min=0.0)), float(beta))
        return _C.div(_C.i0(arg), _C.i0(_C.tensor(float(beta), dtype=_C.float64,
                                                     device=n.device)))
    return _window("kaiser", M, sym, dtype, layout, device, requires_grad, make)
