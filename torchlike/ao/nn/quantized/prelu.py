"""Quantized PReLU (torch.ao.nn.quantized.PReLU): a quint8 weight (one
slope, or one per channel) quantized per tensor by the qconfig's weight
observer; the arithmetic is functional.prelu's (PyTorch's integer kernel).
As PyTorch's, the weight, scale and zero point are plain attributes: its
state dict is empty."""
import warnings

from .... import _C, _quantized as _q
from ....nn.modules.module import Module
from . import functional as qF
from .modules import _act_qparams


class PReLU(Module):
    def __init__(self, output_scale, output_zero_point, num_parameters=1):
        super().__init__()
        self.num_parameters = num_parameters
        self.scale, self.zero_point = output_scale, output_zero_point
        self.set_weight(_q.quantize_per_tensor(_C.randn(num_parameters), 1.0, 0, _C.quint8))

    def set_weight(self, w):
        if not isinstance(w, _q.QTensor):
            raise RuntimeError(f"QuantizedPReLU: the weight must be a quantized tensor, got "
                               f"{getattr(w, 'dtype', type(w).__name__)}")
        self.weight = w

    def forward(self, input):
        return qF.prelu(input, self.weight, self.scale, self.zero_point)

    def _get_name(self):
        return "QuantizedPReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        scale, zero_point = _act_qparams(mod)
        out = cls(scale, zero_point, mod.num_parameters)
        weight = mod.weight.detach().float()
        observer = mod.qconfig.weight()
        observer(weight)
        if observer.dtype is not _C.quint8:
            warnings.warn(f"PReLU's weight observer should have dtype quint8 but got "
                          f"{observer.dtype}", stacklevel=2)
        w_scale, w_zp = observer.calculate_qparams()
        out.set_weight(_q.quantize_per_tensor(weight, float(w_scale), int(w_zp), _C.quint8))
        return out
