"""Dynamically quantized modules (torch.ao.nn.quantized.dynamic): float in,
float out, weights int8 (qint8) or float16; each input of an int8 layer is
quantized on the fly with the scale and zero point its own min and max
choose (range reduced, as PyTorch's x86 engine does)."""
from ..... import _C
from ..modules import Linear as _StaticLinear, _quantize_weight
from .. import functional as qF

__all__ = ["Linear", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_DTYPES = (_C.qint8, _C.float16)


def _weight_quantizer(mod, what):
    """(dtype, quantize): the weight dtype mod's qconfig asks for
    (default_dynamic_qconfig's when it has none) and a function quantizing a
    float weight with a fresh observer of it (float16: rounding, saturated)."""
    from ....quantization.qconfig import default_dynamic_qconfig
    qconfig = getattr(mod, "qconfig", None)
    factory = qconfig.weight if qconfig is not None and qconfig.weight is not None else \
        default_dynamic_qconfig.weight
    dtype = factory().dtype
    if dtype is _C.float16:
        return dtype, qF.to_fp16_weight
    if dtype is not _C.qint8:
        raise RuntimeError(f"Unsupported dtype for dynamic {what} quantization: {dtype} "
                           f"(torch.qint8 or torch.float16)")

    def quantize(weight):
        observer = factory()
        observer(weight)
        return _quantize_weight(weight.detach(), observer)
    return dtype, quantize


def dynamic_linear(x, weight, bias):
    """x @ weight.T + bias for an int8 (quantized) or float16 (float) weight."""
    if weight.dtype is _C.qint8:
        return qF.linear_dynamic(x, weight, bias)
    return qF.linear_dynamic_fp16(x, weight, bias)


class Linear(_StaticLinear):
    """y = x W^T + b with W int8 or float16: x (*, in_features) float32; for
    int8, x is quantized to uint8 per call and the product accumulated in
    int32; for float16, W is widened and the product summed in float32."""

    def __init__(self, in_features, out_features, bias_=True, dtype=_C.qint8):
        if dtype not in _DTYPES:
            raise RuntimeError(f"Unsupported dtype specified for dynamic quantized Linear: "
                               f"{dtype} (torch.qint8 or torch.float16)")
        self._dtype = _C.qint8  # the static Linear sets int8 zeros first
        super().__init__(in_features, out_features, bias_, dtype)
        if dtype is _C.float16:
            self._dtype = dtype
            self.set_weight_bias(_C.zeros(out_features, in_features), self._bias)
        self.version = 4
        self.reduce_range = True

    def set_weight_bias(self, w, b):
        if self._dtype is _C.qint8:
            return super().set_weight_bias(w, b)
        if not isinstance(w, _C.Tensor) or getattr(w, "is_quantized", False) or \
                not w.is_floating_point():
            raise RuntimeError(f"float16 dynamic Linear: the weight must be a float tensor, got "
                               f"{getattr(w, 'dtype', type(w).__name__)}")
        self._weight = qF.to_fp16_weight(w)
        self._bias = None if b is None else b.detach().float()

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def _packed_dtype(self):
        return self._dtype

    def _set_packed(self, dtype, weight, bias):
        if dtype not in _DTYPES:
            return f"dynamic quantized Linear packs qint8 or float16 weights, not {dtype}"
        old, self._dtype = self._dtype, dtype
        try:
            self.set_weight_bias(weight, bias)
        except RuntimeError as e:
            self._dtype = old
            return str(e)
        return None

    def forward(self, x):
        if x.dtype is not _C.float32:
            raise RuntimeError(f"dynamic quantized linear expects a float32 input, got {x.dtype}")
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise RuntimeError(f"dynamic quantized linear: input {tuple(x.shape)} does not end "
                               f"with in_features={self.in_features}")
        if self._dtype is _C.float16:
            return qF.linear_dynamic_fp16(x, self._weight, self._bias)
        return qF.linear_dynamic(x, self._weight, self._bias, self.reduce_range)

    def extra_repr(self):
        s = f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._dtype}"
        if self._dtype is _C.qint8:
            s += f", qscheme={self._weight.qscheme()}"
        return s

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        dtype, quantize = _weight_quantizer(mod, "Linear")
        out = cls(mod.in_features, mod.out_features, mod.bias is not None, dtype)
        out.set_weight_bias(quantize(mod.weight), mod.bias)
        return out


from .rnn import LSTM, GRU, RNNCell, LSTMCell, GRUCell  # noqa: E402
