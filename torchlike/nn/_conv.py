"""Pooling, resampling and the sliding-window helpers, composed from views.

Every sliding-window op here starts from one view: ``_windows`` unfolds the
spatial dims of an (N, C, *spatial) tensor into (N, C, *out, *kernel) with
``Tensor.unfold`` (a strided view, no copy), so max pooling is a max over the
kernel dims, average pooling a sum.  Gradients come from the tape.  Each
public function is one entry point that a fused kernel of ``src/nn`` can
later replace (convolution and fold/unfold have: ``_convolution.py``).

Legend: N batch, C channels, k kernel sizes, L = prod(out spatial), K = prod(k)."""
import itertools
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


# ---- pooling -----------------------------------------------------------------------------

def _pool_out(size, k, s, p, d, ceil_mode):
    """Output length of a pooling window sweep and the extra right padding the
    last (ceil_mode) window needs.  A window must start inside the input or
    its left padding."""
    span = d * (k - 1) + 1
    num = size + 2 * p - span
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    extra = max(0, (out - 1) * s + span - (size + 2 * p))
    return out, extra


def _pool_args(kernel_size, stride, padding, dilation, n):
    k = _ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _ntuple(stride, n, "stride")
    return k, s, _ntuple(padding, n, "padding"), _ntuple(dilation, n, "dilation")


def _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n,
                name):
    x, unbatched = _batched(input, n, name)
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation, n)
    for pp, kk, dd in zip(p, k, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")
    sp = tuple(x.shape[2:])
    geo = [_pool_out(sz, kk, ss, pp, dd, ceil_mode) for sz, kk, ss, pp, dd in zip(sp, k, s, p, d)]
    if any(o <= 0 for o, _ in geo):
        raise RuntimeError(f"Given input size: ({_shape_str(x.shape[1:])}). Calculated output "
                           f"size: ({x.shape[1]} x {_shape_str(o for o, _ in geo)}). Output "
                           "size is too small")
    pads = _pads(p, [pp + e for pp, (_, e) in zip(p, geo)])
    win = _window_copy(_pad(x, pads, float("-inf")), k, s, d)    # N, C, *out, *k
    out_sp = tuple(win.shape[2:2 + n])
    N, C = x.shape[0], x.shape[1]
    flat = win.reshape((N, C) + out_sp + (math.prod(k),))
    values, arg = flat.max(dim=-1)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    # the flat input position of every window entry: the same windows over a grid
    grid = _C.arange(math.prod(sp), device=x.device).reshape((1, 1) + sp)
    gwin = _windows(_pad(grid, pads, -1), k, s, d).reshape((1, 1) + out_sp + (-1,))
    indices = gwin.expand((N, C) + out_sp + (gwin.shape[-1],)).gather(
        -1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1,
                       "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2,
                       "max_pool2d")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3,
                       "max_pool3d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, L); ``return_indices`` adds the flat
    input positions of the maxima (for ``max_unpool1d``)."""
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 1, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, H, W)."""
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 2, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 3, "max_pool3d")


def _avg_divisor(size, k, s, p, out, count_include_pad):
    """Per-output-position window sizes along one dim (PyTorch's rule: a window
    is clipped to the padded input; without count_include_pad, to the input)."""
    sizes = []
    for i in range(out):
        start = i * s - p
        end = min(start + k, size + p)
        if not count_include_pad:
            start, end = max(start, 0), min(end, size)
        sizes.append(end - start)
    return sizes


def _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override, n, name):
    x, unbatched = _batched(input, n, name)
    k, s, p, d = _pool_args(kernel_size, stride, padding, 1, n)
    for pp, kk in zip(p, k):
        if pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation=1")
    sp = tuple(x.shape[2:])
    geo = [_pool_out(sz, kk, ss, pp, 1, ceil_mode) for sz, kk, ss, pp in zip(sp, k, s, p)]
    pads = _pads(p, [pp + e for pp, (_, e) in zip(p, geo)])
    win = _window_copy(_pad(x, pads), k, s, d)
    total = win.sum(dim=tuple(range(-n, 0)))
    if divisor_override:
        out = total / divisor_override
    else:
        div = None
        for axis, (sz, kk, ss, pp, (o, _)) in enumerate(zip(sp, k, s, p, geo)):
            v = _C.tensor(_avg_divisor(sz, kk, ss, pp, o, count_include_pad), dtype=x.dtype,
                          device=x.device).reshape((o,) + (1,) * (n - 1 - axis))
            div = v if div is None else div * v
        out = total / div
    return out.squeeze(0) if unbatched else out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of (N, C, L)."""
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       None, 1, "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, H, W)."""
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override, 2, "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override, 3, "avg_pool3d")


def _lp_poolnd(input, norm_type, kernel_size, stride, ceil_mode, n):
    k = _ntuple(kernel_size, n)
    out = _avg_poolnd(input ** norm_type, k, stride, 0, ceil_mode, True, None, n, "lp_pool")
    out = _C.sign(out) * out.abs().clamp(min=0)
    return (out * math.prod(k)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over the window of x^p)^(1/p)``."""
    return _lp_poolnd(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_poolnd(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_poolnd(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _adaptive_ranges(size, out):
    """The [start, end) input range of each adaptive-pooling output position."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _adaptive_size(output_size, x, n):
    sizes = (output_size,) * n if isinstance(output_size, numbers.Integral) or \
        output_size is None else tuple(output_size)
    if len(sizes) == 1 and n > 1:
        sizes = sizes * n
    return tuple(int(x.shape[x.ndim - n + i]) if o is None else int(o)
                 for i, o in enumerate(sizes))


def _adaptive_avg_poolnd(input, output_size, n, name):
    """Separable: along each spatial dim, multiply by the (out, size) averaging
    matrix whose row i holds 1/len over output i's range."""
    x, unbatched = _batched(input, n, name)
    out_size = _adaptive_size(output_size, x, n)
    for axis, o in enumerate(out_size):
        dim = 2 + axis
        size = x.shape[dim]
        rows = []
        for start, end in _adaptive_ranges(size, o):
            rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)])
        P = _C.tensor(rows, dtype=x.dtype, device=x.device).reshape(o, size)
        x = _C.matmul(x.movedim(dim, -1), P.t()).movedim(-1, dim)
    return x.squeeze(0) if unbatched else x


def adaptive_avg_pool1d(input, output_size):
    """Mean pooling of (N, C, L) to ``output_size`` positions."""
    return _adaptive_avg_poolnd(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size):
    """Mean pooling of (N, C, H, W) to ``output_size`` (an int, a pair, None keeps)."""
    return _adaptive_avg_poolnd(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg_poolnd(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max_poolnd(input, output_size, return_indices, n, name):
    x, unbatched = _batched(input, n, name)
    out_size = _adaptive_size(output_size, x, n)
    sp = tuple(x.shape[2:])
    N, C = x.shape[0], x.shape[1]
    ranges = [_adaptive_ranges(sz, o) for sz, o in zip(sp, out_size)]
    values, indices = [], []
    for cell in itertools.product(*ranges):
        region = x
        for axis, (start, end) in enumerate(cell):
            region = region.narrow(2 + axis, start, end - start)
        v, a = region.reshape(N, C, math.prod(e - s for s, e in cell)).max(dim=-1)
        values.append(v)
        if return_indices:
            # local flat index -> global flat index
            lens = [end - start for start, end in cell]
            glob = _C.zeros_like(a)
            rem = a
            for axis in range(n - 1, -1, -1):
                coord = rem % lens[axis] + cell[axis][0]
                rem = rem // lens[axis]
                glob = glob + coord * math.prod(sp[axis + 1:])
            indices.append(glob)
    out = _C.stack(values, -1).reshape((N, C) + out_size)
    if not return_indices:
        return out.squeeze(0) if unbatched else out
    idx = _C.stack(indices, -1).reshape((N, C) + out_size)
    return (out.squeeze(0), idx.squeeze(0)) if unbatched else (out, idx)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) to ``output_size``."""
    return _adaptive_max_poolnd(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def _max_unpoolnd(input, indices, kernel_size, stride, padding, output_size, n, name):
    x, unbatched = _batched(input, n, name)
    idx = indices.unsqueeze(0) if unbatched else indices
    k, s, p, _ = _pool_args(kernel_size, stride, padding, 1, n)
    if output_size is None:
        out_sp = tuple((sz - 1) * ss - 2 * pp + kk
                       for sz, kk, ss, pp in zip(x.shape[2:], k, s, p))
    else:
        out_sp = tuple(output_size)[-n:]
    N, C = x.shape[0], x.shape[1]
    out = _C.zeros((N, C, math.prod(out_sp)), dtype=x.dtype, device=x.device)
    n_in = math.prod(x.shape[2:])
    out = out.scatter(2, idx.reshape(N, C, n_in), x.reshape(N, C, n_in))
    out = out.reshape((N, C) + out_sp)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpoolnd(input, indices, kernel_size, stride, padding, output_size, 1,
                         "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool2d``: each value back at its index, zeros elsewhere."""
    return _max_unpoolnd(input, indices, kernel_size, stride, padding, output_size, 2,
                         "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpoolnd(input, indices, kernel_size, stride, padding, output_size, 3,
                         "max_unpool3d")


# ---- resampling ---------------------------------------------------------------------------

def _source_coords(out, size, scale, align_corners, clamp_low):
    """Source coordinate of each output position along one dim."""
    if align_corners:
        step = (size - 1) / (out - 1) if out > 1 else 0.0
        return [i * step for i in range(out)]
    coords = [(i + 0.5) * scale - 0.5 for i in range(out)]
    return [max(c, 0.0) for c in coords] if clamp_low else coords


def _cubic(v, a):
    """Keys' cubic convolution kernel with parameter ``a`` at distance ``v``."""
    v = abs(v)
    if v <= 1.0:
        return ((a + 2) * v - (a + 3)) * v * v + 1
    if v < 2.0:
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    return 0.0


def _cubic_weights(t, a=-0.75):
    """The four taps' weights at fractional offset ``t`` (PyTorch's a = -0.75)."""
    return [_cubic(t + 1, a), _cubic(t, a), _cubic(1 - t, a), _cubic(2 - t, a)]


def _resample_dim(x, dim, out, scale, mode, align_corners):
    """Resample ``x`` along ``dim`` to ``out`` positions: a weighted sum of
    gathered neighbours (1 tap nearest, 2 linear, 4 cubic)."""
    size = x.shape[dim]
    dev = x.device
    if mode in ("nearest", "nearest-exact"):
        off = 0.5 if mode == "nearest-exact" else 0.0
        src = [min(int(math.floor((i + off) * scale)), size - 1) for i in range(out)]
        return x.index_select(dim, _C.tensor(src, dtype=_C.int64, device=dev))
    if mode == "linear":
        coords = _source_coords(out, size, scale, align_corners, True)
        i0 = [min(int(math.floor(c)), size - 1) for c in coords]
        i1 = [min(i + 1, size - 1) for i in i0]
        lam = [c - i for c, i in zip(coords, i0)]
        shape = [1] * x.ndim
        shape[dim] = out
        w1 = _C.tensor(lam, dtype=x.dtype, device=dev).reshape(shape)
        a = x.index_select(dim, _C.tensor(i0, dtype=_C.int64, device=dev))
        b = x.index_select(dim, _C.tensor(i1, dtype=_C.int64, device=dev))
        return a + (b - a) * w1
    if mode == "cubic":
        coords = _source_coords(out, size, scale, align_corners, False)
        shape = [1] * x.ndim
        shape[dim] = out
        result = None
        base = [int(math.floor(c)) for c in coords]
        weights = [_cubic_weights(c - b) for c, b in zip(coords, base)]
        for tap in range(4):
            idx = [min(max(b - 1 + tap, 0), size - 1) for b in base]
            w = _C.tensor([ws[tap] for ws in weights], dtype=x.dtype, device=dev).reshape(shape)
            term = x.index_select(dim, _C.tensor(idx, dtype=_C.int64, device=dev)) * w
            result = term if result is None else result + term
        return result
    raise NotImplementedError(f"interpolate: mode {mode}")


def _antialias_dim(x, dim, out, scale, kind, align_corners):
    """Resample along ``dim`` with an anti-aliasing filter (triangle for
    linear, cubic a = -0.5 for cubic) stretched by the down-scaling factor, as
    one (out, in) weight matrix; rows are normalised to sum to 1."""
    size = x.shape[dim]
    if align_corners:
        scale = (size - 1) / (out - 1) if out > 1 else 0.0
    support = (1.0 if kind == "linear" else 2.0) * max(scale, 1.0)
    inv = 1.0 / scale if scale >= 1.0 else 1.0

    def filt(v):   # the anti-aliasing kernels use a = -0.5 for cubic
        return max(0.0, 1.0 - abs(v)) if kind == "linear" else _cubic(v, -0.5)
    rows = []
    for i in range(out):
        centre = scale * (i + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), size)
        w = [filt((j - centre + 0.5) * inv) for j in range(lo, hi)]
        total = sum(w)
        row = [0.0] * size
        for j, v in zip(range(lo, hi), w):
            row[j] = v / total if total else 0.0
        rows.append(row)
    W = _C.tensor(rows, dtype=x.dtype, device=x.device).reshape(out, size)
    return _C.matmul(x.movedim(dim, -1), W.t()).movedim(-1, dim)


_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *spatial) to ``size`` or by
    ``scale_factor``.  Modes: nearest, nearest-exact, linear, bilinear,
    bicubic, trilinear, area."""
    n = input.ndim - 2
    if n < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                         f"{input.ndim}D) for the modes: nearest | linear | bilinear | "
                         f"bicubic | trilinear | area | nearest-exact (got {mode})")
    if mode in _MODE_DIMS and _MODE_DIMS[mode] != n:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_MODE_DIMS[mode] + 2}D input")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and "
                         "requires a 4-D tensor as input")
    align_corners = bool(align_corners)
    sp = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(size, n, "size")
        scales = [s / o for s, o in zip(sp, out)]
    else:
        factors = scale_factor if isinstance(scale_factor, (tuple, list)) \
            else (scale_factor,) * n
        if len(factors) != n:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sp)} and scale_factor of shape {list(factors)}.")
        out = tuple(int(math.floor(s * f)) for s, f in zip(sp, factors))
        scales = [1.0 / f for f in factors] if not recompute_scale_factor \
            else [s / o for s, o in zip(sp, out)]
    if mode == "area":
        return _adaptive_avg_poolnd(input, out, n, "interpolate")
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    x = input
    for axis in range(n):
        if antialias:
            x = _antialias_dim(x, 2 + axis, out[axis], scales[axis], kind, align_corners)
        else:
            x = _resample_dim(x, 2 + axis, out[axis], scales[axis], kind, align_corners)
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    *lead, Cr, H, W = input.shape
    if Cr % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{Cr} is not divisible by {r * r}")
    C = Cr // (r * r)
    b = len(lead)
    x = input.reshape(tuple(lead) + (C, r, r, H, W))
    x = x.permute(*range(b), b, b + 3, b + 1, b + 4, b + 2)
    return x.reshape(tuple(lead) + (C, H * r, W * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    *lead, C, Hr, Wr = input.shape
    if Hr % r or Wr % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by "
                           f"downscale_factor, but got height={Hr}, width={Wr} and "
                           f"downscale_factor={r}")
    H, W = Hr // r, Wr // r
    b = len(lead)
    x = input.reshape(tuple(lead) + (C, H, r, W, r))
    x = x.permute(*range(b), b, b + 2, b + 4, b + 1, b + 3)
    return x.reshape(tuple(lead) + (C * r * r, H, W))


def channel_shuffle(input, groups):
    """(N, g * k, *) -> channels interleaved across the ``groups``."""
    N, C = input.shape[0], input.shape[1]
    rest = tuple(input.shape[2:])
    x = input.reshape((N, groups, C // groups) + rest).transpose(1, 2)
    return x.reshape((N, C) + rest)


# ---- sampling grids -----------------------------------------------------------------------

def _base_coords(n, align_corners, like):
    """The normalised [-1, 1] coordinate of each of ``n`` pixel positions."""
    if align_corners:
        return _C.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device) if n > 1 \
            else _C.zeros((n,), dtype=like.dtype, device=like.device)
    return (_C.arange(n, dtype=like.dtype, device=like.device) * 2 + 1) / n - 1


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of the affine maps ``theta`` (N, 2, 3):
    grid[n, h, w] = theta[n] @ (x_w, y_h, 1)."""
    align_corners = bool(align_corners)
    if len(size) != 4:
        raise NotImplementedError("affine_grid only supports 4D sizes, for 2D affine "
                                  f"transformations. Got size {list(size)}.")
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                         f"{list(size)}. Got {list(theta.shape)}.")
    N, _, H, W = size
    xs = _base_coords(W, align_corners, theta).reshape(1, W).expand(H, W)
    ys = _base_coords(H, align_corners, theta).reshape(H, 1).expand(H, W)
    base = _C.stack([xs, ys, _C.ones((H, W), dtype=theta.dtype, device=theta.device)], -1)
    return _C.matmul(base.reshape(1, H * W, 3), theta.transpose(1, 2)).reshape(N, H, W, 2)


def _reflect(coord, low2, high2):
    """Reflect ``coord`` into [low2/2, high2/2] (PyTorch's reflect_coordinates)."""
    if low2 == high2:
        return _C.zeros_like(coord)
    lo, span = low2 / 2, (high2 - low2) / 2
    c = (coord - lo).abs()
    extra = _C.fmod(c, span)
    flips = _C.floor(c / span)
    even = _C.remainder(flips, 2) == 0
    return _C.where(even, extra + lo, span - extra + lo)


def _unnormalise(coord, size, align_corners, padding_mode):
    c = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
    if padding_mode == "border":
        c = c.clamp(0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = c.clamp(0, size - 1)
    return c


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) at the normalised (x, y) positions of ``grid``
    (N, Ho, Wo, 2): bilinear or nearest, with zeros, border or reflection
    padding.  Differentiable w.r.t. both input and grid (bilinear)."""
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample: mode '{mode}' is not implemented")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise NotImplementedError(f"grid_sample: expected 4-D input and an (N, H, W, 2) grid, "
                                  f"got {list(input.shape)} and {list(grid.shape)}")
    align_corners = bool(align_corners)
    N, C, H, W = input.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    ix = _unnormalise(grid[..., 0], W, align_corners, padding_mode)      # N, Ho, Wo
    iy = _unnormalise(grid[..., 1], H, align_corners, padding_mode)
    flat = input.reshape(N, C, H * W)

    def tap(x, y):
        """Values at integer (x, y) (N, Ho, Wo), zero outside the image."""
        inside = (x >= 0) & (x <= W - 1) & (y >= 0) & (y <= H - 1)
        idx = (y.clamp(0, H - 1) * W + x.clamp(0, W - 1)).to(dtype=_C.int64)
        vals = flat.gather(2, idx.reshape(N, 1, Ho * Wo).expand(N, C, Ho * Wo))
        return vals * inside.reshape(N, 1, Ho * Wo).to(dtype=input.dtype)

    if mode == "nearest":
        out = tap(_C.round(ix.detach()), _C.round(iy.detach()))
    else:
        x0, y0 = _C.floor(ix.detach()), _C.floor(iy.detach())
        wx1, wy1 = (ix - x0).reshape(N, 1, Ho * Wo), (iy - y0).reshape(N, 1, Ho * Wo)
        wx0, wy0 = 1 - wx1, 1 - wy1
        out = (tap(x0, y0) * wx0 * wy0 + tap(x0 + 1, y0) * wx1 * wy0
               + tap(x0, y0 + 1) * wx0 * wy1 + tap(x0 + 1, y0 + 1) * wx1 * wy1)
    return out.reshape(N, C, Ho, Wo)
