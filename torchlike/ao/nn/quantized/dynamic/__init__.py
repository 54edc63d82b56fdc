"""Dynamically quantized modules (torch.ao.nn.quantized.dynamic): float in,
float out, int8 weights; each input is quantized on the fly with the scale
and zero point its own min and max choose."""
from ..... import _C
from ..modules import Linear as _StaticLinear, _quantize_weight
from .. import functional as qF

__all__ = ["Linear"]


class Linear(_StaticLinear):
    """y = x W^T + b with W int8: x (*, in_features) float32 is quantized to
    uint8 per call (range reduced, as PyTorch's x86 engine does), the
    product accumulated in int32 and returned as float32."""

    def __init__(self, in_features, out_features, bias_=True, dtype=_C.qint8):
        super().__init__(in_features, out_features, bias_, dtype)
        self.version = 4
        self.reduce_range = True

    def forward(self, x):
        if x.dtype is not _C.float32:
            raise RuntimeError(f"dynamic quantized linear expects a float32 input, got {x.dtype}")
        xq = qF.quantize_dynamic_input(x, self.reduce_range)
        w = self._weight
        wi, sw = qF._weight_parts(w, (-1,))
        acc = _C.matmul(xq._int.double() - xq._zp, wi.t())
        out = acc.float() * (qF._f32(xq._scale) * sw).float()
        if self._bias is not None:
            out = out + self._bias
        return out

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._weight.dtype}, qscheme={self._weight.qscheme()}")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from ....quantization.qconfig import default_dynamic_qconfig
        qconfig = getattr(mod, "qconfig", None) or default_dynamic_qconfig
        observer = qconfig.weight()
        observer(mod.weight)
        if observer.dtype is not _C.qint8:
            raise NotImplementedError("torchlike's dynamic Linear takes qint8 weights only "
                                      f"(got {observer.dtype})")
        out = cls(mod.in_features, mod.out_features)
        out.set_weight_bias(_quantize_weight(mod.weight.detach(), observer), mod.bias)
        return out
