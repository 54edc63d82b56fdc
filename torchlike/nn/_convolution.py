"""Convolution, transposed convolution and fold/unfold over the C kernels of
``src/nn/conv`` (``_C.convolution``, ``_C.im2col``, ``_C.col2im``).

These wrappers only do what PyTorch's Python layer does: add the batch dim
of an unbatched input, spell ``padding='same'/'valid'`` as numbers (an
asymmetric 'same' pads the input's far side first), and name the function in
rank errors.  Shape, channel and geometry checks, with PyTorch's messages,
are the op's; so are the derivatives (conv and conv_transpose are each
other's input gradient, im2col and col2im each other's).

Legend: N batch, C channels, O output channels, k kernel sizes."""
import warnings

from .. import _C
from .._composites import complex as _complex
from . import _pool_checks
from ._conv import _batched, _ntuple

_same_copy_warned = False


def _same_padding(x, weight, stride, dilation, n):
    """padding='same' as (padded x, symmetric padding): PyTorch's rule, the
    odd unit of a dim's total padding going to its far side."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    k = tuple(weight.shape[2:2 + n]) if weight.ndim == n + 2 else (1,) * n
    total = [d * (kk - 1) for d, kk in zip(dilation, k)]
    left = tuple(t // 2 for t in total)
    extra = [t - 2 * (t // 2) for t in total]
    if any(extra):
        global _same_copy_warned
        if not _same_copy_warned:   # PyTorch's notice, once per process
            _same_copy_warned = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                          "require a zero-padded copy of the input be created", stacklevel=4)
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        x = _C._pad(x, pads, "constant", None)
    return x, left


def _convolution(x, weight, bias, *geometry):
    """_C.convolution; complex operands (complex-valued networks) as four
    real convolutions, the kernels having none:
    (xr + i xi) * (wr + i wi) = (xr * wr - xi * wi) + i (xr * wi + xi * wr)."""
    if not (x.is_complex() or weight.is_complex()):
        return _C.convolution(x, weight, bias, *geometry)
    from .._dtype_names import cpp_name, scalar_type_name
    if x.dtype != weight.dtype:   # no promotion, as for real operands
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found "
                           f"{scalar_type_name(weight.dtype)}")
    if bias is not None and bias.dtype != x.dtype:
        raise RuntimeError(f"Input type ({cpp_name(x.dtype)}) and bias type "
                           f"({cpp_name(bias.dtype)}) should be the same")

    def conv(a, b):
        return _C.convolution(a, b, None, *geometry)

    out = _complex(conv(x.real, weight.real) - conv(x.imag, weight.imag),
                   conv(x.real, weight.imag) + conv(x.imag, weight.real))
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _convnd(input, weight, bias, stride, padding, dilation, groups, n, name):
    x, unbatched = _batched(input, n, name)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            x, padding = _same_padding(x, weight, _ntuple(stride, n, "stride"),
                                       _ntuple(dilation, n, "dilation"), n)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    out = _convolution(x, weight, bias, stride, padding, dilation, False, 0, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """(N, C, L) * (O, C/groups, k) -> (N, O, L_out)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """(N, C, H, W) * (O, C/groups, kH, kW) -> (N, O, H_out, W_out)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """(N, C, D, H, W) * (O, C/groups, kD, kH, kW) -> (N, O, D_out, H_out, W_out)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation,
                      n, name):
    """The transpose (input gradient) of convolution: weight (C, O/groups, *k),
    output size (L - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1."""
    x, unbatched = _batched(input, n, name)
    out = _convolution(x, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """(N, C, L) with weight (C, O/groups, k) -> (N, O, L_out)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """(N, C, H, W) with weight (C, O/groups, kH, kW) -> (N, O, H_out, W_out)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """(N, C, D, H, W) with weight (C, O/groups, kD, kH, kW) -> (N, O, D_out, H_out, W_out)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, "conv_transpose3d")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L), one column per window."""
    if input.dtype == _C.bool:  # a copy: through float32 (exact for 0 and 1), which has a kernel
        return unfold(input.to(_C.float32), kernel_size, dilation, padding, stride).to(_C.bool)
    k, d, p, s = _pool_checks.unfold(input, kernel_size, dilation, padding, stride)
    x, unbatched = _batched(input, 2, "unfold")
    out = _C.im2col(x, k, d, p, s)
    return out.squeeze(0) if unbatched else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of ``unfold``: (N, C * kH * kW, L) -> (N, C, H, W),
    overlapping windows summed."""
    o, k, d, p, s = _pool_checks.fold(input, output_size, kernel_size, dilation, padding,
                                      stride)
    if input.dtype == _C.bool:  # overlapping windows or-ed: summed in float32, then != 0
        return fold(input.to(_C.float32), output_size, kernel_size, dilation, padding,
                    stride) != 0
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    out = _C.col2im(x, o, k, d, p, s)
    return out.squeeze(0) if unbatched else out


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution in (time, batch, channel) layout.

    input (T, N, C), weight (k, C, O), bias (O,) -> (T + 2 pad - k + 1, N, O).
    A negative ``pad`` crops that many steps from each end of the input."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    T, N, O = input.shape[0], input.shape[1], weight.shape[2]
    steps = T + 2 * pad - weight.shape[0] + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"[{steps}, {N}, {O}]")
    x = input.permute(1, 2, 0)  # (N, C, T)
    if steps == 0:  # conv1d refuses an empty padded input
        return input.new_empty((0, N, O))
    if pad < 0:
        x, pad = x.narrow(2, -pad, T + 2 * pad), 0
    return conv1d(x, weight.permute(2, 1, 0), bias, padding=pad).permute(2, 0, 1)

