"""torchlike.scipy.signal: convolve, correlate, convolve2d and correlate2d over
differentiable torchlike ops.

``method='direct'`` runs torchlike's conv1d/conv2d/conv3d (a convolution is a
correlation with the flipped kernel, padded by its length less one to give
the full output); ``method='fft'`` multiplies zero-padded FFTs from
torchlike.fft; ``'auto'`` takes the direct path for up to three dimensions
and small kernels.  Both are differentiable in either input.  Complex inputs
take the direct path as four real convolutions.  Integer inputs compute in
float64 (SciPy keeps integers)."""
import numpy as np

from .. import _C
from .. import fft as _fft
from ..nn import functional as _F
from ._util import as_tensors

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d"]

_MODES = ("full", "valid", "same")
_CONV = {1: _F.conv1d, 2: _F.conv2d, 3: _F.conv3d}


def _check_mode(mode, name):
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be 'full', 'valid' or 'same', got {mode!r}")


def _crop(full, mode, s1, s2):
    """The part of the full result that mode asks for."""
    if mode == "full":
        return full
    if mode == "same":
        target = s1
    else:
        target = [max(a, b) - min(a, b) + 1 for a, b in zip(s1, s2)]
    index = tuple(slice((f - n) // 2, (f - n) // 2 + n) for f, n in zip(full.shape, target))
    return full[index]


def _valid_swap(s1, s2, mode, name):
    if mode != "valid":
        return False
    ge = all(a >= b for a, b in zip(s1, s2))
    le = all(a <= b for a, b in zip(s1, s2))
    if not (ge or le):
        raise ValueError(f"{name}: for 'valid' mode one input must be at least as large as "
                         f"the other in every dimension, got shapes {tuple(s1)} and "
                         f"{tuple(s2)}")
    return not ge


def _full_direct_real(a, b):
    d = a.dim()
    pad = [n - 1 for n in b.shape]
    w = _C.flip(b, list(range(d)))
    out = _CONV[d](a.reshape((1, 1) + tuple(a.shape)), w.reshape((1, 1) + tuple(w.shape)),
                   padding=pad)
    return out.reshape(out.shape[2:])


def _full_direct(a, b):
    if not (a.is_complex() or b.is_complex()):
        return _full_direct_real(a, b)
    ar, ai = _parts(a)
    br, bi = _parts(b)
    re = _full_direct_real(ar, br) - _full_direct_real(ai, bi)
    im = _full_direct_real(ar, bi) + _full_direct_real(ai, br)
    return re + 1j * im


def _parts(x):
    if x.is_complex():
        return _C.real(x), _C.imag(x)
    return x, _C.zeros_like(x)


def _full_fft(a, b):
    shape = [n1 + n2 - 1 for n1, n2 in zip(a.shape, b.shape)]
    axes = list(range(a.dim()))
    if a.is_complex() or b.is_complex():
        return _fft.ifftn(_fft.fftn(a, s=shape, dim=axes) * _fft.fftn(b, s=shape, dim=axes),
                          s=shape, dim=axes)
    return _fft.irfftn(_fft.rfftn(a, s=shape, dim=axes) * _fft.rfftn(b, s=shape, dim=axes),
                       s=shape, dim=axes)


def _choose(method, a, b, name):
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"{name}: method must be 'auto', 'direct' or 'fft', got {method!r}")
    if method == "auto":
        small = b.numel() <= 64 or a.numel() <= 64
        method = "direct" if (a.dim() <= 3 and small) else "fft"
    if method == "direct" and a.dim() > 3:
        method = "fft"            # conv ops go to three dimensions
    return method


def _nd_inputs(in1, in2, mode, name):
    _check_mode(mode, name)
    a, b = as_tensors(in1, in2)
    if a.dim() != b.dim():
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality, got "
                         f"shapes {tuple(a.shape)} and {tuple(b.shape)}")
    return a, b


def convolve(in1, in2, mode="full", method="auto"):
    """N-dimensional convolution of in1 and in2 (scipy.signal.convolve)."""
    a, b = _nd_inputs(in1, in2, mode, "convolve")
    if a.dim() == 0:
        return a * b
    if a.numel() == 0 or b.numel() == 0:
        return _C.zeros(0, dtype=a.dtype, device=a.device)
    s1, s2 = list(a.shape), list(b.shape)
    if _valid_swap(s1, s2, mode, "convolve"):
        a, b, s1, s2 = b, a, s2, s1
    method = _choose(method, a, b, "convolve")
    full = _full_direct(a, b) if method == "direct" else _full_fft(a, b)
    return _crop(full, mode, s1, s2)


def _reverse_conj(x):
    x = _C.flip(x, list(range(x.dim())))
    return x.conj() if x.is_complex() else x


def correlate(in1, in2, mode="full", method="auto"):
    """N-dimensional cross-correlation: z[k] = sum_l in1[l + k - K] conj(in2[l])."""
    a, b = _nd_inputs(in1, in2, mode, "correlate")
    if a.dim() == 0:
        return a * (b.conj() if b.is_complex() else b)
    if _valid_swap(list(a.shape), list(b.shape), mode, "correlate"):
        # SciPy correlates the swapped pair and reverses (and conjugates) the result
        return _reverse_conj(convolve(b, _reverse_conj(a), mode, method))
    return convolve(a, _reverse_conj(b), mode, method)


def _extend(x, pad, boundary, fillvalue):
    """x padded by pad[i] on both sides of axis i: 'fill' with fillvalue, 'wrap'
    periodic, 'symm' mirrored with the edge repeated."""
    if boundary == "fill":
        base = _C.full([n + 2 * p for n, p in zip(x.shape, pad)], 0.0, dtype=x.dtype,
                       device=x.device) + fillvalue
        index = tuple(slice(p, p + n) for n, p in zip(x.shape, pad))
        inside = _C.zeros_like(base, dtype=_C.bool)
        inside[index] = True
        grown = _F.pad(x, [q for p in reversed(pad) for q in (p, p)])
        return _C.where(inside, grown, base)
    for axis, p in enumerate(pad):
        n = x.shape[axis]
        i = np.arange(-p, n + p)
        if boundary == "wrap":
            idx = np.mod(i, n)
        else:
            m = np.mod(i, 2 * n)
            idx = np.where(m < n, m, 2 * n - 1 - m)
        x = _C.index_select(x, axis, _C.tensor(idx, dtype=_C.int64, device=x.device))
    return x


_BOUNDARIES = {"fill": "fill", "pad": "fill", "wrap": "wrap", "circular": "wrap",
               "symm": "symm", "symmetric": "symm"}


def _check2d(a, b, name, mode, boundary):
    _check_mode(mode, name)
    if boundary not in _BOUNDARIES:
        raise ValueError(f"{name}: boundary must be 'fill', 'wrap' or 'symm', got "
                         f"{boundary!r}")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"{name}: in1 and in2 must be 2-D, got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """2-D convolution with scipy.signal.convolve2d's boundary handling."""
    a, b = as_tensors(in1, in2)
    _check2d(a, b, "convolve2d", mode, boundary)
    fv = np.asarray(fillvalue)
    if fv.size != 1:
        raise ValueError(f"convolve2d: fillvalue must be a scalar, got shape {fv.shape}")
    s1, s2 = list(a.shape), list(b.shape)
    if _valid_swap(s1, s2, mode, "convolve2d"):
        a, b, s1, s2 = b, a, s2, s1
    pad = [n - 1 for n in b.shape]
    ext = _extend(a, pad, _BOUNDARIES[boundary], fv.item())
    w = _C.flip(b, [0, 1])
    if a.is_complex() or b.is_complex():
        full = _full_direct(ext, b)[tuple(slice(p, p + n1 + p) for p, n1 in zip(pad, s1))]
    else:
        full = _F.conv2d(ext.reshape((1, 1) + tuple(ext.shape)),
                         w.reshape((1, 1) + tuple(w.shape))).reshape(s1[0] + pad[0],
                                                                    s1[1] + pad[1])
    return _crop(full, mode, s1, s2)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """2-D cross-correlation with scipy.signal.correlate2d's boundary handling."""
    a, b = as_tensors(in1, in2)
    _check2d(a, b, "correlate2d", mode, boundary)
    if _valid_swap(list(a.shape), list(b.shape), mode, "correlate2d"):
        return _reverse_conj(convolve2d(b, _reverse_conj(a), mode, boundary, fillvalue))
    if mode != "same":
        return convolve2d(a, _reverse_conj(b), mode, boundary, fillvalue)
    # SciPy's correlate2d centres 'same' rounding the other way from convolve2d
    full = convolve2d(a, _reverse_conj(b), "full", boundary, fillvalue)
    return full[tuple(slice((f - n + 1) // 2, (f - n + 1) // 2 + n)
                      for f, n in zip(full.shape, a.shape))]
