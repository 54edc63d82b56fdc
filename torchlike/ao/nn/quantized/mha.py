"""The quantized MultiheadAttention (torch.ao.nn.quantized.MultiheadAttention):
the quantizable module converted (its Linear layers quantized, q scaled by
quantized::mul's Scalar form, the stubs quantizing / dequantizing); inputs
are quantized, the attention products and softmax float, as in PyTorch."""
from .... import _C, _quantized as _q
from .. import quantizable


class MultiheadAttention(quantizable.MultiheadAttention):
    _FLOAT_MODULE = quantizable.MultiheadAttention

    def _get_name(self):
        return "QuantizedMultiheadAttention"

    @classmethod
    def from_float(cls, other):
        raise NotImplementedError("It looks like you are trying to convert a non-observed MHA "
                                  "module. Please, see the examples on quantizable MHAs.")

    @classmethod
    def from_observed(cls, other):
        from ...quantization.observer import _choose_qparams_dynamic
        from ...quantization.quantize import convert
        converted = convert(other, mapping=None, inplace=False, remove_qconfig=True)
        converted.__class__ = cls
        # bias_k / bias_v become quint8 tensors (plain attributes, outside the state
        # dict); as PyTorch's, bias_v takes the qparams of the range of the quantized
        # bias_k, not its own
        bias_k = converted._parameters.pop("bias_k", None)
        if bias_k is not None:
            scale, zp = _choose_qparams_dynamic(bias_k.detach(), _C.quint8, False)
            bias_k = _q.quantize_per_tensor(bias_k.detach(), float(scale), int(zp), _C.quint8)
            converted.bias_k = bias_k
        bias_v = converted._parameters.pop("bias_v", None)
        if bias_v is not None:
            scale, zp = _choose_qparams_dynamic(bias_k.dequantize(), _C.quint8, False)
            converted.bias_v = _q.quantize_per_tensor(bias_v.detach(), float(scale), int(zp),
                                                      _C.quint8)
        del converted.in_proj_weight
        del converted.in_proj_bias
        return converted

