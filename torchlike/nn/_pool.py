"""Pooling and resampling: max/avg pooling (1d-3d), adaptive and fractional
max pooling, max_unpool, lp_pool, interpolate/upsample, the pixel and channel
shuffles, affine_grid and grid_sample.

Pooling and interpolation run the fused kernels of ``src/nn/pool`` (ops
``_max_pool``, ``_avg_pool``, ``_adaptive_avg_pool``, ``_upsample`` ...,
each with a backward op, so gradients and second derivatives come from the
registry).  This module turns PyTorch's arguments (ints or tuples, None for
"the input's size", scale factors) into those ops' per-dim lists.  The
shuffles are exact permutations, so they stay views and reshapes; lp_pool is
avg_pool of powers, as PyTorch composes it.

Legend: N batch, C channels, n spatial dims."""
import math
import numbers
import operator
import warnings

from .. import _C
from .._layout import channels_last
from . import _pool_checks
from ._conv import _ntuple


def _check_input(input, n, name):
    """(C, *spatial) or (N, C, *spatial), as PyTorch's pooling takes."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")


def _pool_args(kernel_size, stride, padding, dilation, n):
    k = _ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) \
        else _ntuple(stride, n, "stride")
    return k, s, _ntuple(padding, n, "padding"), _ntuple(dilation, n, "dilation")


# ---- max pooling -------------------------------------------------------------------------

def _not_implemented_for(kernel, input):
    """PyTorch's dtype refusal: '"kernel" not implemented for 'Long''."""
    from .._legacy_types import scalar_type_name
    scalar = scalar_type_name(input.dtype)
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar}\'')


def _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n,
                name):
    k, s, p, d = _pool_checks.max_pool(input, kernel_size, stride, padding, dilation,
                                       ceil_mode, n, return_indices)
    if n == 1 and not return_indices and not input.is_floating_point():
        # PyTorch's max_pool1d without indices is a float-only kernel; with
        # indices it runs max_pool2d's, which takes integers too
        raise _not_implemented_for("max_pool1d_impl", input)
    values, indices = _C._max_pool(input, k, s, p, d, bool(ceil_mode))
    return (values, indices) if return_indices else values


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
    plain = _pool_checks.plain_2d_window(kernel_size, stride, padding, dilation)
    if plain:
        (k, s), p, d = plain, padding, dilation
        try:
            values, indices = _C._max_pool(input, (k, k), (s, s), (p, p), (d, d), bool(ceil_mode))
            return (values, indices) if return_indices else values
        except RuntimeError:
            pass
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 2, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, D, H, W)."""
    return _max_poolnd(input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 3, "max_pool3d")


# ---- average pooling ---------------------------------------------------------------------

def _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override, n, name):
    k, s, p = _pool_checks.avg_pool(input, kernel_size, stride, padding, ceil_mode,
                                    divisor_override, n)
    return _C._avg_pool(input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                        divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of (N, C, L)."""
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       None, 1, "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, H, W)."""
    plain = _pool_checks.plain_2d_window(kernel_size, stride, padding)
    if plain and divisor_override is None:
        (k, s), p = plain, padding
        try:
            return _C._avg_pool(input, (k, k), (s, s), (p, p), bool(ceil_mode),
                                bool(count_include_pad), None)
        except RuntimeError:
            pass
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override, 2, "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, D, H, W)."""
    return _avg_poolnd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override, 3, "avg_pool3d")


def _lp_poolnd(input, norm_type, kernel_size, stride, ceil_mode, n):
    if norm_type == 0:  # the 1/norm_type root is undefined: PyTorch's refusal
        raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
    if type(kernel_size) is not int or not (stride is None or type(stride) is int):
        # PyTorch passes them on to avg_pool as given: its binding's refusals
        _pool_checks.pool_int_args(f"avg_pool{n}d", kernel_size, stride, 0)
    if n == 1:
        k = _pool_checks._avg_pool1d_args(kernel_size, stride, 0)[0]
    elif isinstance(kernel_size, numbers.Integral):
        k = (int(kernel_size),) * n
    else:  # PyTorch's lp_pool2d/3d unpack the kernel into n names (its ValueError)
        k = tuple(kernel_size)
        if len(k) != n:
            raise ValueError(f"too many values to unpack (expected {n})" if len(k) > n else
                             f"not enough values to unpack (expected {n}, got {len(k)})")
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


# ---- adaptive pooling --------------------------------------------------------------------

def _adaptive_avg_poolnd(input, output_size, n, name):
    sizes = _pool_checks.adaptive_sizes(output_size, input, n, name)
    _pool_checks.adaptive_avg(input, sizes, n)
    if all(o == 1 for o in sizes) and input.ndim >= n:
        # NOTE: as PyTorch, a 1-sized output is the mean over the last n dims,
        # for any rank (an empty window's is NaN).  The pooling op gives the
        # mean's bits and its MeanBackward1 node, in one pass (and its
        # gradient in one fill); the 1-d and unusual shapes take mean itself.
        if n > 1 and input.ndim in (n + 1, n + 2) and input.is_floating_point() and \
                input.numel():
            return _C._adaptive_avg_pool(input, sizes)
        out = input.mean(tuple(range(-n, 0)), keepdim=True)
        if n == 2 and _suggests_channels_last(input):  # PyTorch keeps the layout
            out = _C.empty_like(out, memory_format=channels_last).copy_(out)
        return out
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got "
                           f"{list(input.shape)}")
    # PyTorch's 1d pools the (N, C, 1, L) view with its 2d kernel, in its words
    view, words = (input.unsqueeze(-2), "adaptive_avg_pool2d") if n == 1 else (input, name)
    for d in range(view.ndim - max(n, 2), view.ndim):
        if view.shape[d] == 0:
            raise RuntimeError(f"{words}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(view.shape)} with "
                               f"dimension {d} being empty")
    return _C._adaptive_avg_pool(input, sizes)


def adaptive_avg_pool1d(input, output_size):
    """Mean pooling of (N, C, L) to ``output_size`` positions."""
    return _adaptive_avg_poolnd(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size):
    """Mean pooling of (N, C, H, W) to ``output_size`` (an int, a pair, None keeps)."""
    return _adaptive_avg_poolnd(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg_poolnd(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max_poolnd(input, output_size, return_indices, n, name):
    sizes = _pool_checks.adaptive_sizes(output_size, input, n, name)
    _pool_checks.adaptive_max(input, sizes, n, name)
    values, indices = _C._adaptive_max_pool(input, sizes)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) to ``output_size``."""
    return _adaptive_max_poolnd(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` returning (values, indices) whatever ``return_indices``."""
    return _adaptive_max_poolnd(input, output_size, True, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, True, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_poolnd(input, output_size, True, 3, "adaptive_max_pool3d")


# ---- fractional max pooling --------------------------------------------------------------

def _fractional_max_poolnd(input, kernel_size, output_size, output_ratio, return_indices,
                           _random_samples, n, name):
    _pool_checks.check_int_args(name, (kernel_size, "kernel_size", 2),
                                *[(output_size, "output_size", 3)] * (output_size is not None))
    _check_input(input, n, name)
    k = _ntuple(kernel_size, n, "kernel_size")
    sp = tuple(input.shape[-n:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             "output_ratio")
        ratio = _ntuple_float(output_ratio, n)
        output_size = tuple(int(s * r) for s, r in zip(sp, ratio))
    out = _ntuple(output_size, n, "output_size")
    planes = input.shape[0] * input.shape[1] if input.ndim == n + 2 else input.shape[0]
    if _random_samples is None:
        if not input.is_floating_point():  # the samples would have the input's dtype
            raise _not_implemented_for("check_uniform_bounds", input)
        # one sample per plane and dim in [0, 1), from the default generator
        lead = (input.shape[0], input.shape[1]) if input.ndim == n + 2 else (1, input.shape[0])
        _random_samples = _C.rand(lead + (n,), dtype=input.dtype, device=input.device)
    samples = _random_samples.reshape(planes, n) if _random_samples.numel() == planes * n \
        else _random_samples
    values, indices = _C._fractional_max_pool(input, k, out, samples)
    return (values, indices) if return_indices else values


def _ntuple_float(value, n):
    if isinstance(value, numbers.Real):
        return (float(value),) * n
    value = tuple(float(v) for v in value)
    return value * n if len(value) == 1 else value


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over pseudo-random windows of (N, C, H, W) (Graham's fractional max
    pooling): PyTorch's interval rule, one sample per plane and dim drawn
    from the default generator unless ``_random_samples`` (N, C, 2) is given."""
    return _fractional_max_poolnd(input, kernel_size, output_size, output_ratio,
                                  return_indices, _random_samples, 2, "fractional_max_pool2d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    return _fractional_max_poolnd(input, kernel_size, output_size, output_ratio,
                                  return_indices, _random_samples, 3, "fractional_max_pool3d")


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


# ---- max_unpool --------------------------------------------------------------------------

def _max_unpoolnd(input, indices, kernel_size, stride, padding, output_size, n, name):
    _check_input(input, n, name)
    k, s, p, _ = _pool_args(kernel_size, stride, padding, 1, n)
    default = tuple((sz - 1) * ss - 2 * pp + kk
                    for sz, kk, ss, pp in zip(input.shape[-n:], k, s, p))
    if output_size is None:
        out_sp = default
    else:
        if len(output_size) == n + 2 or (len(output_size) == n + 1 and input.ndim == n + 1):
            output_size = output_size[-n:]  # the refusal shows it so, as PyTorch's
        out_sp = tuple(int(v) for v in output_size)
        if len(out_sp) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for i, (o, d, ss) in enumerate(zip(out_sp, default, s)):
            if not d - ss < o < d + ss:
                raise ValueError(f"invalid output_size \"{output_size}\" (dim {i} must be "
                                 f"between {d - ss} and {d + ss})")
    return _C._max_unpool(input, indices, out_sp)


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

_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_KERNEL_MODE = {"nearest": "nearest", "nearest-exact": "nearest-exact", "linear": "linear",
                "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}


def _interpolate_size_types(size, n, mode):
    """PyTorch's refusals of a size by type: a sequence of other than ints
    (its Python check), then the upsampling kernel's binding, which takes no
    bool or float standing for every dim nor a bool first (it finds no
    overload: a TypeError in our words)."""
    if isinstance(size, (tuple, list)):
        if not all(isinstance(v, numbers.Integral) or (isinstance(v, _C.Tensor) and not
                   v.is_floating_point()) for v in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            f"or Tuple[int, int, int], but got size with types "
                            f"{[type(v) for v in size]}")
        first = size[0] if size else None
    else:
        first = size
    if type(first) is bool or not (isinstance(first, (numbers.Integral, _C.Tensor)) or
                                   first is None):
        raise TypeError(f"interpolate(): size must be ints (the first not a bool) for the "
                        f"{n}-d {mode} kernel, got {type(first).__name__}")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *spatial) to ``size`` or by
    ``scale_factor``.  Modes: nearest, nearest-exact, linear, bilinear,
    bicubic, trilinear, area; ``antialias`` for bilinear/bicubic."""
    n = input.ndim - 2
    if n < 1 or n > 3:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                         f"{input.ndim}D) for the modes: nearest | linear | bilinear | "
                         f"bicubic | trilinear | area | nearest-exact (got {mode})")
    if mode not in _KERNEL_MODE and mode != "area":
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    if mode in _MODE_DIMS and _MODE_DIMS[mode] != n:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_MODE_DIMS[mode] + 2}D input")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and "
                         "requires a 4-D tensor as input")
    align_corners = bool(align_corners)
    sp = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    scales = None
    if size is not None:
        if isinstance(size, (tuple, list)) and len(size) != n:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, "
                             f"but got input with spatial dimensions of {list(sp)} and output "
                             f"size of {size}. Please provide input tensor in (N, C, d1, d2, "
                             f"...,dK) format and output size in (o1, o2, ...,oK) format.")
        _interpolate_size_types(size, n, mode)
        out = _ntuple(size, n, "size")
    else:
        factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) \
            else (scale_factor,) * n
        if len(factors) != n:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sp)} and scale_factor of shape {scale_factor}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        factors = tuple(float(f) for f in factors)
        out = tuple(int(math.floor(s * f)) for s, f in zip(sp, factors))
        if not recompute_scale_factor:
            scales = factors
    if mode == "area":
        return _C._adaptive_avg_pool(input, out)
    return _C._upsample(input, out, _KERNEL_MODE[mode], align_corners, scales, bool(antialias))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _shuffle_factor(name, what, input, factor):
    """PyTorch's checks on pixel_(un)shuffle's factor and rank: a 0 factor was a
    ZeroDivisionError, a 2-d input an unpacking error."""
    try:
        factor = operator.index(factor)  # ints, NumPy ints and 0-d integer tensors
    except TypeError:
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not "
                        f"{type(factor).__name__}") from None
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.ndim} dimension(s)")
    return factor


def _suggests_channels_last(x):
    """PyTorch's suggest_memory_format() is channels_last (channels_last_3d)
    for this 4-d (5-d) x: its strides put channels innermost, then the
    spatial dims from the last, then N (the rule of tl_tensor_suggest_format,
    which the C layers follow)."""
    if x.ndim not in (4, 5) or x.stride(1) == 0:
        return False
    extent = 0
    for d in (1, *range(x.ndim - 1, 1, -1), 0):
        n, s = x.shape[d], x.stride(d)
        if n == 0 or s < extent or (d == 0 and extent == x.stride(1)):
            return False
        extent = s * max(n, 1)
    return True


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r).  A channels-last input gives a
    channels-last result (and gradient), as in PyTorch."""
    r = _shuffle_factor("pixel_shuffle", "upscale_factor", input, upscale_factor)
    *lead, Cr, H, W = input.shape
    if Cr % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{Cr} is not divisible by {r * r}")
    C = Cr // (r * r)
    b = len(lead)
    if input.ndim == 4 and _suggests_channels_last(input):
        # the same shuffle on the (N, H, W, C r^2) view: one copy, into NHWC
        N = lead[0]
        x = input.permute(0, 2, 3, 1).reshape(N, H, W, C, r, r).permute(0, 1, 4, 2, 5, 3)
        return x.reshape(N, H * r, W * r, C).permute(0, 3, 1, 2)
    x = input.reshape(tuple(lead) + (C, r, r, H, W))
    x = x.permute(*range(b), b, b + 3, b + 1, b + 4, b + 2)
    return x.reshape(tuple(lead) + (C, H * r, W * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), channels-last kept as pixel_shuffle."""
    r = _shuffle_factor("pixel_unshuffle", "downscale_factor", input, downscale_factor)
    *lead, C, Hr, Wr = input.shape
    for side, dim, n in (("height", -2, Hr), ("width", -1, Wr)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by "
                               f"downscale_factor, but input.size({dim})={n} is not divisible "
                               f"by {r}")
    H, W = Hr // r, Wr // r
    b = len(lead)
    if input.ndim == 4 and _suggests_channels_last(input):
        N = lead[0]
        x = input.permute(0, 2, 3, 1).reshape(N, H, r, W, r, C).permute(0, 1, 3, 5, 2, 4)
        return x.reshape(N, H, W, C * r * r).permute(0, 3, 1, 2)
    x = input.reshape(tuple(lead) + (C, H, r, W, r))
    x = x.permute(*range(b), b, b + 2, b + 4, b + 1, b + 3)
    return x.reshape(tuple(lead) + (C * r * r, H, W))


def channel_shuffle(input, groups):
    """(N, g * k, *) -> channels interleaved across the ``groups``."""
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    N, C = input.shape[0], input.shape[1]
    if C % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {C} channels "
                           f"and {groups} groups.")
    rest = tuple(input.shape[2:])
    x = input.reshape((N, groups, C // groups) + rest).transpose(1, 2)
    return x.reshape((N, C) + rest)


# ---- sampling grids -----------------------------------------------------------------------

_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return bool(align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta``: (N, 2, 3) for a 2-D
    size (N, C, H, W) gives (N, H, W, 2), (N, 3, 4) for a 3-D size
    (N, C, D, H, W) gives (N, D, H, W, 3); grid[n, o] = theta[n] @ (base(o), 1)
    (op ``affine_grid_generator``, its derivative ``affine_grid_generator_backward``)."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {tuple(size)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    return _C.affine_grid_generator(theta, size, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) at the normalised (x, y) positions of ``grid``
    (N, Ho, Wo, 2), or (N, C, D, H, W) at the (x, y, z) of (N, Do, Ho, Wo, 3):
    bilinear (trilinear), nearest or bicubic (4-D only), with zeros, border
    or reflection padding (op ``grid_sampler``; gradients for input and grid
    from ``grid_sampler_backward``, second derivatives through the composed
    form in ``_backward_vjp``)."""
    if mode not in _GRID_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _GRID_PADDING:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    return _C.grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode],
                           align_corners)
