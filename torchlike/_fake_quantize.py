"""torch.fake_quantize_per_tensor_affine and fake_quantize_per_channel_affine:
quantization-aware training's round trip through an integer grid, in
floating point.

    q   = round_half_even(x * (1 / scale)) + zero_point      (integer zero point)
    q   = round_half_even(x * (1 / scale) + zero_point)      (float zero point, per channel)
    out = (clamp(q, quant_min, quant_max) - zero_point) * scale

As PyTorch computes it: scale is rounded to float32 and 1 / scale taken in
float32; the product x * (1 / scale) is float32 for float32 and the 16-bit
floats (float64 input: float64); the result is rounded once, to float32
per tensor (also for float64 input, as PyTorch's kernel does), to x's dtype
per channel.
The gradient is the straight-through estimator: the incoming gradient where
q fell inside [quant_min, quant_max], zero where it was clamped.  Infinities
saturate to the ends of the range and NaN gives quant_min (PyTorch's
per-tensor results; its per-channel kernel casts out-of-range values to
int64 unchecked, which on x86 gives quant_min for +inf too).

Composed of elementwise ops, so it runs on every device those do."""
from math import inf

from . import _C
from ._composites import _dtype_name
from .autograd import Function

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _check_input(x, kernel):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"fake_quantize: argument 'input' must be Tensor, not {type(x).__name__}")
    if not x.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(x.dtype)}'")


def _work(x):
    """The dtype x * (1 / scale) is computed in."""
    return _C.float64 if x.dtype == _C.float64 else _C.float32


def _round_trip(x, scale, zero_point, quant_min, quant_max, float_zero_point, per_tensor=False):
    """(output, mask) for scale and zero_point already shaped to broadcast
    against x (scale float32, zero_point float64 holding integers unless
    float_zero_point)."""
    work = _work(x)
    inv = (1.0 / scale).to(work)                       # float32 reciprocal
    scaled = x.to(work) * inv
    if float_zero_point:  # the zero point added before rounding, as PyTorch's float qparams
        q = _C.round(scaled + zero_point.to(work)).double()
        mask = _C.logical_and(q >= quant_min, q <= quant_max)
        q = _C.nan_to_num(q, nan=float(quant_min), posinf=inf, neginf=-inf)
        out = (q.clamp(quant_min, quant_max) - zero_point.double()) * scale.double()
        return out.to(x.dtype), mask
    q = _C.round(scaled).double() + zero_point
    mask = _C.logical_and(q >= quant_min, q <= quant_max)
    q = _C.nan_to_num(q, nan=float(quant_min), posinf=inf, neginf=-inf)  # NaN: PyTorch's quant_min
    # (integer - zero point) * scale, rounded once: to float32 per tensor (also
    # for float64 input, as PyTorch's kernel), exact in float64 per channel
    out = (q.clamp(quant_min, quant_max) - zero_point) * scale.double()
    return out.to(_C.float32 if per_tensor else x.dtype).to(x.dtype), mask


class _PerTensor(Function):
    """Straight-through: the gradient passes where the value was not clamped."""

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max):
        out, mask = _round_trip(x, scale, zero_point, quant_min, quant_max, False, True)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask, None, None, None, None


class _PerTensorTensorQparams(_PerTensor):
    """The same, for scale and zero_point given as tensors."""


class _PerChannel(Function):

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max, float_zero_point):
        out, mask = _round_trip(x, scale, zero_point, quant_min, quant_max, float_zero_point)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask, None, None, None, None, None


# the nodes' names are PyTorch's
_PerTensor._backward_name = "FakeQuantizePerTensorAffineCachemaskBackward0"
_PerTensorTensorQparams._backward_name = "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"
_PerChannel._backward_name = "FakeQuantizePerChannelAffineCachemaskBackward0"


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """input quantized to the grid zero_point + k / scale clamped to
    [quant_min, quant_max], then dequantized.  scale and zero_point are
    numbers, or one-element tensors (read where they live, no sync)."""
    _check_input(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
    tensors = isinstance(scale, _C.Tensor) or isinstance(zero_point, _C.Tensor)
    if tensors:
        scale = scale if isinstance(scale, _C.Tensor) else _C.tensor(float(scale))
        zero_point = zero_point if isinstance(zero_point, _C.Tensor) else _C.tensor(zero_point)
        for t in (scale, zero_point):
            if t.numel() != 1:
                raise RuntimeError(f"a Tensor with {t.numel()} elements cannot be converted to "
                                   f"Scalar")
        scale = scale.reshape(()).to(device=input.device, dtype=_C.float32)
        zero_point = zero_point.reshape(()).to(device=input.device, dtype=_C.int64).double()
        _check_range(quant_min, quant_max)
        return _PerTensorTensorQparams.apply(
            input, scale, zero_point, quant_min, quant_max)
    if not isinstance(zero_point, int) or isinstance(zero_point, bool):
        raise TypeError(f"fake_quantize_per_tensor_affine() received an invalid combination of "
                        f"arguments - got (Tensor, {type(scale).__name__}, "
                        f"{type(zero_point).__name__}, int, int)")
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    scale = _C.tensor(float(scale), dtype=_C.float32, device=input.device)
    zero_point = _C.tensor(float(zero_point), dtype=_C.float64, device=input.device)
    return _PerTensor.apply(
        input, scale, zero_point, quant_min, quant_max)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """fake_quantize_per_tensor_affine with one scale and zero point per
    index of dim ``axis``: scale a 1-D float32 tensor, zero_point a 1-D int32
    (or float, then added before rounding) tensor, both of input.shape[axis]."""
    _check_input(input, "fake_quantize_channel_cachemask_cpu_type_handling")
    if scale.dtype not in (_C.float32, _C.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {_dtype_name(scale.dtype)}")
    if zero_point.dtype not in (_C.int32, _C.float32, _C.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found "
                           f"{_dtype_name(zero_point.dtype)}")
    if scale.ndim != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.ndim != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    input.size(axis)  # PyTorch's IndexError for an axis out of range
    if axis < 0:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    if scale.numel() != input.shape[axis] or zero_point.numel() != input.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    _check_range(quant_min, quant_max)
    float_zero_point = zero_point.is_floating_point()
    if not float_zero_point and not bool(((zero_point >= quant_min) & (zero_point <= quant_max)).all()):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    shape = [1] * input.ndim
    shape[axis] = -1
    scale = scale.to(device=input.device, dtype=_C.float32).reshape(shape)
    zero_point = zero_point.to(device=input.device).reshape(shape)
    zero_point = zero_point.float() if float_zero_point else zero_point.double()
    return _PerChannel.apply(
        input, scale, zero_point, quant_min, quant_max, float_zero_point)

