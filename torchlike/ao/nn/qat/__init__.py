"""torch.ao.nn.qat: float modules for quantization-aware training, whose
weight passes through a FakeQuantize (``weight_fake_quant``, from the
qconfig's weight) on every forward; the output is observed by prepare_qat's
activation FakeQuantize.  convert turns them into quantized modules."""
from ....nn import functional as F
from ....nn.modules.linear import Linear as _Linear
from ....nn.modules.conv import Conv2d as _Conv2d
from ..intrinsic import LinearReLU as _LinearReLU, ConvReLU2d as _ConvReLU2d

__all__ = ["Linear", "Conv2d", "LinearReLU", "ConvReLU2d", "Embedding", "EmbeddingBag"]


def _copy_float(qat, mod):
    qat.weight = mod.weight
    qat.bias = mod.bias
    return qat


class Linear(_Linear):
    """nn.Linear with a fake-quantized weight."""
    _FLOAT_MODULE = _Linear
    _relu = False

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None):
        super().__init__(in_features, out_features, bias)
        if qconfig is None:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        out = F.linear(input, self.weight_fake_quant(self.weight), self.bias)
        return F.relu(out) if self._relu else out

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        linear = mod[0] if isinstance(mod, _LinearReLU) else mod
        qat = cls(linear.in_features, linear.out_features, linear.bias is not None,
                  qconfig=mod.qconfig)
        return _copy_float(qat, linear)


class LinearReLU(Linear):
    """Linear with a fake-quantized weight, then relu."""
    _FLOAT_MODULE = _LinearReLU
    _relu = True


class Conv2d(_Conv2d):
    """nn.Conv2d with a fake-quantized weight."""
    _FLOAT_MODULE = _Conv2d
    _relu = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", qconfig=None, device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode)
        if qconfig is None:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        out = self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)
        return F.relu(out) if self._relu else out

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        conv = mod[0] if isinstance(mod, _ConvReLU2d) else mod
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                  conv.padding, conv.dilation, conv.groups, conv.bias is not None,
                  conv.padding_mode, qconfig=mod.qconfig)
        return _copy_float(qat, conv)


class ConvReLU2d(Conv2d):
    """Conv2d with a fake-quantized weight, then relu."""
    _FLOAT_MODULE = _ConvReLU2d
    _relu = True


from .embedding import Embedding, EmbeddingBag  # noqa: E402,F401
