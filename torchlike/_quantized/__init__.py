"""Quantized tensors (docs/quantization.md): PyTorch's quint8, qint8 and
qint32 tensors with a per-tensor or per-channel affine quantizer.

    tensor.py   the type (a Tensor subclass over its integers), the qschemes,
                the routing of ops, quantize / dequantize and the constructors
    ops.py      attributes, quantizer accessors, views and copies, relu, repr

The modules that use them (observers, prepare/convert, quantized nn modules)
are torchlike.ao.quantization and torchlike.ao.nn.quantized."""
from .tensor import (  # noqa: F401
    QTensor, qscheme, per_tensor_affine, per_channel_affine, per_tensor_symmetric,
    per_channel_symmetric, per_channel_affine_float_qparams, quantize_per_tensor,
    quantize_per_channel, quantize_per_tensor_dynamic, dequantize,
    _make_per_tensor_quantized_tensor, _make_per_channel_quantized_tensor, empty_quantized)
from .ops import (  # noqa: F401
    int_repr, q_scale, q_zero_point, q_per_channel_scales, q_per_channel_zero_points,
    q_per_channel_axis)

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
           "per_channel_symmetric", "per_channel_affine_float_qparams", "quantize_per_tensor",
           "quantize_per_channel", "quantize_per_tensor_dynamic", "dequantize",
           "_make_per_tensor_quantized_tensor", "_make_per_channel_quantized_tensor",
           "empty_quantized", "int_repr", "q_scale", "q_zero_point", "q_per_channel_scales",
           "q_per_channel_zero_points", "q_per_channel_axis"]
