"""Convolution and fold/unfold, composed from views (pooling and resampling: _pool.py).

Every sliding-window op here starts from one view: ``_windows`` unfolds the
spatial dims of an (N, C, *spatial) tensor into (N, C, *out, *kernel) with
``Tensor.unfold`` (a strided view, no copy), so convolution is that view
reshaped into columns times the weight matrix (im2col + GEMM), max pooling is
a max over the kernel dims, average pooling a sum.  Gradients come from the
tape.  Each public function is one entry point that a fused kernel of
``src/nn`` can later replace.

Legend: N batch, C channels, O output channels, g groups, k kernel sizes,
L = prod(out spatial), K = prod(k)."""
import math
import numbers

from .. import _C
from ..autograd.function import Function

Tensor = _C.Tensor


def _ntuple(value, n, name="argument"):
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return value


def _pad(x, pads, value=None):
    if not any(pads):
        return x
    return _C._pad(x, pads, "constant", value)


def _pads(left, right):
    """F.pad's list (last dim first) from per-dim (left, right) amounts."""
    out = []
    for lo, hi in zip(reversed(left), reversed(right)):
        out += [lo, hi]
    return out


def _windows(x, kernel, stride, dilation):
    """(N, C, *spatial) -> (N, C, *out, *kernel): a strided view of every window."""
    for d, (k, s, dil) in enumerate(zip(kernel, stride, dilation)):
        x = x.unfold(2 + d, dil * (k - 1) + 1, s)
        if dil > 1:
            x = x[..., ::dil]
    return x


class _WindowCopy(Function):
    """``_windows(x)`` copied out contiguously: (N, C, *spatial) ->
    (N, C, *out, *kernel).  Its backward sums each window entry's gradient
    back onto the input position it came from with one ``index_add`` (col2im);
    differentiating the strided view instead would be several times slower."""

    @staticmethod
    def forward(ctx, x, kernel, stride, dilation):
        ctx.shape = tuple(x.shape)
        ctx.geometry = (kernel, stride, dilation)
        return _windows(x, kernel, stride, dilation).contiguous()

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, dilation = ctx.geometry
        N, C = ctx.shape[:2]
        sp = ctx.shape[2:]
        grid = _C.arange(math.prod(sp), device=grad.device).reshape((1, 1) + sp)
        pos = _windows(grid, kernel, stride, dilation).reshape(-1)     # (*out, *k) flattened
        out = _C.zeros((N, C, math.prod(sp)), dtype=grad.dtype, device=grad.device)
        out = out.index_add(2, pos, grad.reshape(N, C, pos.shape[0]))
        return out.reshape(ctx.shape), None, None, None


def _window_copy(x, kernel, stride, dilation):
    """(N, C, *spatial) -> a contiguous (N, C, *out, *kernel) copy of every window."""
    if x.requires_grad and _C.is_grad_enabled():
        return _WindowCopy.apply(x, tuple(kernel), tuple(stride), tuple(dilation))
    return _windows(x, kernel, stride, dilation).contiguous()


def _batched(input, n, name):
    """Add a batch dim to an unbatched (C, *spatial) input; say whether it was."""
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    if input.ndim != n + 2:
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    return input, False


def _shape_str(shape):
    return " x ".join(str(int(s)) for s in shape)


# ---- convolution ------------------------------------------------------------------------

def _convnd(input, weight, bias, stride, padding, dilation, groups, n, name):
    x, unbatched = _batched(input, n, name)
    stride = _ntuple(stride, n, "stride")
    dilation = _ntuple(dilation, n, "dilation")
    N, C = x.shape[0], x.shape[1]
    O, Cg = weight.shape[0], weight.shape[1]
    k = tuple(weight.shape[2:])
    if weight.ndim != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional "
                           f"input {list(x.shape)}, but got weight of size {list(weight.shape)}")
    if C != Cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {Cg * groups} channels, but got {C} channels instead")
    if O % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    if isinstance(padding, str):
        if padding == "valid":
            left = right = (0,) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            total = [d * (kk - 1) for d, kk in zip(dilation, k)]
            left = tuple(t // 2 for t in total)
            right = tuple(t - t // 2 for t in total)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             "{'valid', 'same'}")
    else:
        left = right = _ntuple(padding, n, "padding")
    padded = [s + lo + hi for s, lo, hi in zip(x.shape[2:], left, right)]
    span = [d * (kk - 1) + 1 for d, kk in zip(dilation, k)]
    if any(p < s for p, s in zip(padded, span)):
        raise RuntimeError(f"Calculated padded input size per channel: ({_shape_str(padded)})."
                           f" Kernel size: ({_shape_str(span)}). Kernel size can't be greater "
                           "than actual input size")
    x = _pad(x, _pads(left, right))
    win = _window_copy(x, k, stride, dilation)                # N, C, *out, *k
    out_sp = tuple(win.shape[2:2 + n])
    L, K, g = math.prod(out_sp), math.prod(k), groups
    perm = (0, 1) + tuple(range(3, 3 + n)) + (2,) + tuple(range(3 + n, 3 + 2 * n))
    cols = win.reshape((N, g, Cg) + out_sp + k).permute(*perm).reshape(N, g, L, Cg * K)
    w = weight.reshape(g, O // g, Cg * K).transpose(1, 2)     # g, Cg*K, O/g
    out = _C.matmul(cols, w)                                  # N, g, L, O/g
    out = out.transpose(2, 3).reshape((N, O) + out_sp)
    if bias is not None:
        out = out + bias.reshape((1, O) + (1,) * n)
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
    """The transpose (gradient) of convolution, as a convolution: the input is
    spread out by ``stride`` (zeros between elements), padded by
    ``dilation * (k - 1) - padding`` (plus ``output_padding`` at the end), and
    convolved with the flipped, in/out-swapped weight."""
    x, unbatched = _batched(input, n, name)
    stride = _ntuple(stride, n, "stride")
    padding = _ntuple(padding, n, "padding")
    output_padding = _ntuple(output_padding, n, "output_padding")
    dilation = _ntuple(dilation, n, "dilation")
    C = x.shape[1]
    if weight.shape[0] != C:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[0]} channels, but got {C} channels instead")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation,"
                               f" but got output_padding: {op}, stride: {s}, dilation: {d}")
    k = tuple(weight.shape[2:])
    for d, s in enumerate(stride):
        if s > 1:
            dim = 2 + d
            L = x.shape[dim]
            zeros = _C.zeros_like(x)
            x = _C.stack([x] + [zeros] * (s - 1), dim + 1)
            shape = tuple(x.shape[:dim]) + (L * s,) + tuple(x.shape[dim + 2:])
            x = x.reshape(shape).narrow(dim, 0, max((L - 1) * s + 1, 0))
    left = [dl * (kk - 1) - p for dl, kk, p in zip(dilation, k, padding)]
    right = [lo + op for lo, op in zip(left, output_padding)]
    x = _pad(x, _pads(left, right))
    g = groups
    Og = weight.shape[1]
    w = weight.reshape((g, C // g, Og) + k).transpose(1, 2)
    w = w.flip(tuple(range(3, 3 + n))).reshape((g * Og, C // g) + k)
    out = _convnd(x, w, bias, 1, 0, dilation, groups, n, name)
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
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, "conv_transpose3d")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L), one column per window."""
    x, unbatched = _batched(input, 2, "unfold")
    k = _ntuple(kernel_size, 2)
    p = _ntuple(padding, 2)
    x = _pad(x, _pads(p, p))
    win = _windows(x, k, _ntuple(stride, 2), _ntuple(dilation, 2))   # N, C, oh, ow, kh, kw
    N, C = x.shape[0], x.shape[1]
    out = win.permute(0, 1, 4, 5, 2, 3).reshape(N, C * k[0] * k[1],
                                                win.shape[2] * win.shape[3])
    return out.squeeze(0) if unbatched else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of ``unfold``: (N, C * kH * kW, L) -> (N, C, H, W),
    overlapping windows summed."""
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    size = _ntuple(output_size, 2)
    k = _ntuple(kernel_size, 2)
    p = _ntuple(padding, 2)
    K = k[0] * k[1]
    N, CK, L = x.shape
    if CK % K:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={CK} and "
                           f"kernel_size=({k[0]}, {k[1]})")
    C = CK // K
    Hp, Wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    # where each column entry lands: the same windows, taken over the positions
    grid = _C.arange(Hp * Wp, device=x.device).reshape(1, 1, Hp, Wp)
    pos = _windows(grid, k, _ntuple(stride, 2), _ntuple(dilation, 2))   # 1, 1, oh, ow, kh, kw
    if pos.shape[2] * pos.shape[3] != L:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, "
                           f"{k[1]}), expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {pos.shape[2]} * "
                           f"{pos.shape[3]} = {pos.shape[2] * pos.shape[3]}, but got "
                           f"input.size(2)={L}.")
    pos = pos.permute(0, 1, 4, 5, 2, 3).reshape(-1)
    out = _C.zeros((N, C, Hp * Wp), dtype=x.dtype, device=x.device)
    out = out.index_add(2, pos, x.reshape(N, C, K * L)).reshape(N, C, Hp, Wp)
    out = out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return out.squeeze(0) if unbatched else out
