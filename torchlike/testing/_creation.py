"""``make_tensor``: a tensor of random values for tests, with PyTorch's
default value range per dtype:

    bool         [False, True]
    unsigned     [0, 10)
    other ints   [-9, 10)
    float/complex [-9, 9)   (complex: real and imaginary parts each)

Given ``low``/``high`` are clamped into the dtype's finite range; for
integer dtypes they are rounded up (``ceil``).  The values come from the
default generator, so ``manual_seed`` reproduces them (they are not PyTorch's
numbers)."""
import math

from .. import _C
from .._dtype_info import finfo, iinfo

_UNSIGNED = (_C.uint8, _C.uint16, _C.uint32, _C.uint64)


def _default_range(dtype):
    if dtype == _C.bool:
        return 0, 2
    if dtype in _UNSIGNED:
        return 0, 10
    if dtype.is_floating_point or dtype.is_complex:
        return -9, 9
    return -9, 10


def _bounds(dtype, low, high):
    default_low, default_high = _default_range(dtype)
    low = default_low if low is None else low
    high = default_high if high is None else high
    if (isinstance(low, float) and math.isnan(low)) or (isinstance(high, float) and
                                                        math.isnan(high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high:
        return low, high
    if low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    if dtype.is_floating_point or dtype.is_complex:
        info = finfo(dtype)
        return max(low, info.min), min(high, info.max)
    info = iinfo(dtype)
    return max(math.ceil(low), info.min), min(math.ceil(high), info.max + 1)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` (ints or one sequence) with random values in
    ``[low, high)`` (see the module's table for the defaults).

    ``noncontiguous`` gives a strided view (for two or more elements);
    ``memory_format`` a tensor in that layout (the two exclude each other);
    ``exclude_zero`` replaces zeros by 1 (bool, ints) or the dtype's
    smallest normal number (floats; both parts of a complex)."""
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and (dtype == _C.bool or not (dtype.is_floating_point or dtype.is_complex)):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, _C.Size)):
        shape = tuple(shape[0])
    shape = tuple(int(n) for n in shape)
    numel = math.prod(shape)
    draw = shape[:-1] + (shape[-1] * 2,) if noncontiguous and numel > 1 else shape
    if dtype == _C.bool:
        result = _C.randint(0, 2, draw, device=device).to(_C.bool)
    else:
        low, high = _bounds(dtype, low, high)
        if dtype.is_floating_point or dtype.is_complex:
            result = _uniform(draw, dtype, low, high, device)
        elif low == high:
            result = _C.full(draw, low, dtype=dtype, device=device)
        else:
            result = _C.randint(low, high, draw, dtype=dtype, device=device)
    if exclude_zero:
        result = _without_zeros(result)
    if draw != shape:
        result = result[..., ::2]
    elif memory_format is not None:
        result = _in_format(result, memory_format)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _uniform(shape, dtype, low, high, device):
    """Values in [low, high) drawn in float64 (a range wider than the dtype's
    max, such as [finfo.min, 9), does not overflow) and rounded to dtype."""
    if low == high:
        return _C.full(shape, low, dtype=dtype, device=device)
    real = dtype if dtype.is_floating_point else {_C.complex64: _C.float32,
                                                  _C.complex128: _C.float64}[dtype]
    parts = [_C.rand(shape, dtype=_C.float64, device=device) * (high - low) + low
             for _ in range(2 if dtype.is_complex else 1)]
    # a value just below high may round up to it in a narrow dtype: keep [low, high)
    parts = [p.to(real) for p in parts]
    parts = [p.masked_fill(p >= high, low) for p in parts]
    if dtype.is_complex:
        from .. import complex as make_complex
        return make_complex(parts[0], parts[1])
    return parts[0]


def _without_zeros(t):
    if t.dtype == _C.bool or not (t.dtype.is_floating_point or t.dtype.is_complex):
        return t.masked_fill(t == 0, 1)
    tiny = finfo(t.dtype).tiny
    replacement = complex(tiny, tiny) if t.dtype.is_complex else tiny
    return t.masked_fill(t == 0, replacement)


def _in_format(t, memory_format):
    """A copy of t laid out as memory_format asks (channels_last: the channel
    dim innermost), built with empty_strided since torchlike's clone keeps
    the default layout."""
    from .. import channels_last, channels_last_3d
    want = {channels_last: 4, channels_last_3d: 5}.get(memory_format)
    if want is None:
        return t.contiguous()
    if t.ndim != want:
        name = str(memory_format).rsplit(".", 1)[-1]
        raise RuntimeError(f"required rank {want} tensor to use {name} format")
    order = [0] + list(range(2, t.ndim)) + [1]   # outermost to innermost
    stride, step = [0] * t.ndim, 1
    for d in reversed(order):
        stride[d] = step
        step *= t.shape[d]
    out = _C.empty_strided(tuple(t.shape), tuple(stride), dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out
