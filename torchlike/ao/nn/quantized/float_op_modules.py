"""Quantized activations and normalizations (torch.ao.nn.quantized): each
is its float module computing on the dequantized input, its result quantized
to the module's output scale and zero point (functional.requantize_float),
which is what PyTorch's kernels give.  Like PyTorch's, they subclass the
float modules (same arguments, parameters and repr) and ``from_float`` takes
the output qparams from the observed float module."""
from .... import _C
from ....autograd.grad_mode import no_grad
from ....nn import functional as F
from ....nn.modules import activation as _act, normalization as _norm, batchnorm as _bn
from ....nn.modules.dropout import Dropout as _FloatDropout
from . import functional as qF
from .modules import _act_qparams

__all__ = ["Hardswish", "ELU", "LeakyReLU", "Sigmoid", "Softmax", "LayerNorm", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "BatchNorm2d", "BatchNorm3d",
           "Dropout"]


def _qparam_buffers(mod, scale, zero_point):
    """scale and zero_point as buffers: in the state dict, as PyTorch keeps them."""
    mod.register_buffer("scale", _C.tensor(float(scale)))
    mod.register_buffer("zero_point", _C.tensor(int(zero_point)))


class Hardswish(_act.Hardswish):
    def __init__(self, scale, zero_point, device=None, dtype=None):
        super().__init__()
        _qparam_buffers(self, scale, zero_point)

    def forward(self, input):
        return qF.hardswish(input, float(self.scale), int(self.zero_point))

    def _get_name(self):
        return "QuantizedHardswish"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return Hardswish(*_act_qparams(mod))


class ELU(_act.ELU):
    def __init__(self, scale, zero_point, alpha=1.0):
        super().__init__(alpha)
        self.scale, self.zero_point = scale, zero_point

    def forward(self, input):
        return qF.elu(input, self.scale, self.zero_point, self.alpha)

    def _get_name(self):
        return "QuantizedELU"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ELU(*_act_qparams(mod), mod.alpha)


class LeakyReLU(_act.LeakyReLU):
    def __init__(self, scale, zero_point, negative_slope=1e-2, inplace=False, device=None,
                 dtype=None):
        super().__init__(negative_slope, inplace)
        _qparam_buffers(self, scale, zero_point)

    def forward(self, input):
        return qF.leaky_relu(input, self.negative_slope, False, float(self.scale),
                             int(self.zero_point))

    def _get_name(self):
        return "QuantizedLeakyReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(*_act_qparams(mod), mod.negative_slope, mod.inplace)


class Sigmoid(_act.Sigmoid):
    """PyTorch's keeps the float module's name ("Sigmoid()")."""

    def __init__(self, output_scale, output_zero_point):
        super().__init__()
        self.output_scale, self.output_zero_point = output_scale, output_zero_point

    def forward(self, input):
        return qF.requantize_float(input, _C.sigmoid, self.output_scale, self.output_zero_point,
                                   "quantized::sigmoid")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(*_act_qparams(mod))


class Softmax(_act.Softmax):
    def __init__(self, dim=None, scale=1.0, zero_point=0):
        super().__init__()
        self.dim, self.scale, self.zero_point = dim, scale, zero_point

    def forward(self, input):
        dim = self.dim
        if dim is None:  # the float module's legacy choice of dim
            dim = 0 if input.ndim in (0, 1, 3) else 1
        return qF.requantize_float(input, lambda v: F.softmax(v, dim), self.scale,
                                   self.zero_point, "quantized::softmax")

    def _get_name(self):
        return "QuantizedSoftmax"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return Softmax(mod.dim, *_act_qparams(mod))


class LayerNorm(_norm.LayerNorm):
    def __init__(self, normalized_shape, weight, bias, scale, zero_point, eps=1e-5,
                 elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)
        self.weight, self.bias = weight, bias
        _qparam_buffers(self, scale, zero_point)

    def forward(self, input):
        return qF.requantize_float(
            input, lambda v: F.layer_norm(v, self.normalized_shape, self.weight, self.bias,
                                          self.eps),
            float(self.scale), int(self.zero_point), "quantized::layer_norm")

    def _get_name(self):
        return "QuantizedLayerNorm"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.normalized_shape, mod.weight, mod.bias, *_act_qparams(mod), mod.eps,
                   mod.elementwise_affine)


class GroupNorm(_norm.GroupNorm):
    def __init__(self, num_groups, num_channels, weight, bias, scale, zero_point, eps=1e-5,
                 affine=True, device=None, dtype=None):
        super().__init__(num_groups, num_channels, eps, affine)
        self.weight, self.bias = weight, bias
        _qparam_buffers(self, scale, zero_point)

    def forward(self, input):
        return qF.requantize_float(
            input, lambda v: F.group_norm(v, self.num_groups, self.weight, self.bias, self.eps),
            float(self.scale), int(self.zero_point), "quantized::group_norm")

    def _get_name(self):
        return "QuantizedGroupNorm"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.num_groups, mod.num_channels, mod.weight, mod.bias, *_act_qparams(mod),
                   mod.eps, mod.affine)


def _instance_norm(base, dims):
    """A quantized InstanceNorm{dims}d: statistics of each instance and
    channel (never running ones), as PyTorch's quantized kernel."""

    def __init__(self, num_features, weight, bias, scale, zero_point, eps=1e-5, momentum=0.1,
                 affine=False, track_running_stats=False, device=None, dtype=None):
        base.__init__(self, num_features, eps, momentum, affine, track_running_stats)
        self.weight, self.bias = weight, bias
        _qparam_buffers(self, scale, zero_point)

    def forward(self, input):
        if input.ndim not in (dims + 1, dims + 2):
            raise ValueError(f"expected {dims + 1}D or {dims + 2}D input (got {input.ndim}D "
                             f"input)")
        def norm(v):
            unbatched = v.ndim == dims + 1
            v = v.unsqueeze(0) if unbatched else v
            out = F.instance_norm(v, weight=self.weight, bias=self.bias, eps=self.eps)
            return out.squeeze(0) if unbatched else out
        return qF.requantize_float(input, norm, float(self.scale), int(self.zero_point),
                                   "quantized::instance_norm")

    def from_float(cls, mod, use_precomputed_fake_quant=False):
        # PyTorch passes affine where momentum goes (its repr then says
        # "momentum=True, affine=False"); the weight and bias apply either way
        return cls(mod.num_features, mod.weight, mod.bias, *_act_qparams(mod), mod.eps,
                   mod.affine)
    name = f"InstanceNorm{dims}d"
    return type(name, (base,), {
        "__init__": __init__, "forward": forward, "from_float": classmethod(from_float),
        "_get_name": lambda self: "Quantized" + name, "__module__": __name__,
        "__doc__": f"InstanceNorm{dims}d on quantized tensors."})


InstanceNorm1d = _instance_norm(_norm.InstanceNorm1d, 1)
InstanceNorm2d = _instance_norm(_norm.InstanceNorm2d, 2)
InstanceNorm3d = _instance_norm(_norm.InstanceNorm3d, 3)


class _BatchNorm(_bn._BatchNorm):
    """Batch norm with the running statistics (inference), as PyTorch's
    quantized::batch_norm: its state dict is the float module's plus
    scale and zero_point."""
    _dims = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, True, True)
        _qparam_buffers(self, 1.0, 0)

    def _check_input_dim(self, input):
        if input.ndim != self._dims + 2:
            raise ValueError(f"Input shape must be `(N, C, {'D, ' if self._dims == 3 else ''}H, "
                             f"W)`!")

    def forward(self, input):
        self._check_input_dim(input)
        return qF.requantize_float(
            input, lambda v: F.batch_norm(v, self.running_mean, self.running_var, self.weight,
                                          self.bias, False, 0.0, self.eps),
            float(self.scale), int(self.zero_point), f"quantized::batch_norm{self._dims}d")

    def _get_name(self):
        return f"QuantizedBatchNorm{self._dims}d"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        out = cls(mod.num_features, mod.eps)
        with no_grad():
            for name in ("weight", "bias"):
                getattr(out, name).copy_(getattr(mod, name))
            out.running_mean.copy_(mod.running_mean)
            out.running_var.copy_(mod.running_var)
        # the observer's one-element tensors, as PyTorch assigns them
        out.scale, out.zero_point = mod.activation_post_process.calculate_qparams()
        return out


class BatchNorm2d(_BatchNorm):
    _dims = 2


class BatchNorm3d(_BatchNorm):
    _dims = 3


class _BNReLU(_BatchNorm):
    """Batch norm then relu (ao.nn.intrinsic.quantized.BNReLU2d/3d):
    quantize(relu(bn(x))), what quantized::batch_norm{2,3}d_relu give."""

    def forward(self, input):
        self._check_input_dim(input)
        return qF.requantize_float(
            input, lambda v: F.relu(F.batch_norm(v, self.running_mean, self.running_var,
                                                 self.weight, self.bias, False, 0.0, self.eps)),
            float(self.scale), int(self.zero_point), f"quantized::batch_norm{self._dims}d_relu")

    def _get_name(self):
        return f"QuantizedBNReLU{self._dims}d"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        bn = mod[0]  # the fused module holds the observer
        bn.activation_post_process = mod.activation_post_process
        return super().from_float.__func__(cls, bn)


class BNReLU2d(_BNReLU):
    _dims = 2


class BNReLU3d(_BNReLU):
    _dims = 3


class Dropout(_FloatDropout):
    """Passes its (quantized) input through, in training mode too, as PyTorch's."""

    def forward(self, input):
        return input

    def _get_name(self):
        return "QuantizedDropout"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.p, mod.inplace)
