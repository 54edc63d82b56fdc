"""Quantized modules (torch.ao.nn.quantized): they take and return quint8
tensors and hold int8 weights; ``from_float`` builds one from an observed
float module (what convert calls).  The arithmetic is functional.py's."""
from .... import _C, _quantized as _q
from ....nn.modules.module import Module
from ....nn.modules.linear import Linear as _FloatLinear
from . import functional as qF

# LinearReLU, ConvReLU1d/2d/3d are exported by ao.nn.intrinsic.quantized, as PyTorch's
__all__ = ["Quantize", "DeQuantize", "Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
           "ConvTranspose2d", "ConvTranspose3d", "ReLU6", "Hardtanh", "FloatFunctional",
           "QFunctional"]


def _act_qparams(mod):
    """The scale and zero point the float module's output observer chose."""
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return float(scale), int(zero_point)


def _quantize_weight(weight, observer):
    """The float weight quantized as its observer says (per tensor or per channel)."""
    scale, zero_point = observer.calculate_qparams()
    name = observer.qscheme.name
    if name in ("per_tensor_affine", "per_tensor_symmetric"):
        return _q.quantize_per_tensor(weight.float(), float(scale), int(zero_point),
                                      observer.dtype)
    if name in ("per_channel_affine", "per_channel_symmetric"):
        return _q.quantize_per_channel(weight.float(), scale.double(), zero_point.long(),
                                       observer.ch_axis, observer.dtype)
    return _q.quantize_per_channel(weight.float(), scale, zero_point, observer.ch_axis,
                                   observer.dtype)


def _observed_weight(mod):
    """mod's weight quantized: by the fake quantizer it trained with (QAT), or
    by a fresh weight observer of its qconfig."""
    observer = getattr(mod, "weight_fake_quant", None)
    if observer is None:
        observer = mod.qconfig.weight()
        observer(mod.weight)
    if observer.dtype is not _C.qint8:
        raise AssertionError("Weight observer must have dtype torch.qint8")
    return _quantize_weight(mod.weight.detach(), observer)


class Quantize(Module):
    """float32 -> quint8 (or dtype) with a fixed scale and zero point."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer("scale", _C.tensor([float(scale)]))
        self.register_buffer("zero_point", _C.tensor([int(zero_point)], dtype=_C.int64))
        self.dtype = dtype

    def forward(self, X):
        return _q.quantize_per_tensor(X, float(self.scale), int(self.zero_point), self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(float(scale), int(zero_point), mod.activation_post_process.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(Module):
    """quantized -> float32."""

    def forward(self, Xq):
        return Xq.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return DeQuantize()


class _WeightedModule(Module):
    """A quantized module with an int8 weight, a float bias and its output's
    scale and zero point; its state dict holds them as PyTorch's quantized
    convolutions do (``weight``, ``bias``, ``scale``, ``zero_point``)."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self):
        return "Quantized" + type(self).__name__

    def weight(self):
        return self._weight

    def bias(self):
        return self._bias

    def set_weight_bias(self, w, b):
        if not isinstance(w, _q.QTensor) or w.dtype is not _C.qint8:
            raise RuntimeError(f"{type(self).__name__}: the weight must be a qint8 quantized "
                               f"tensor, got {getattr(w, 'dtype', type(w).__name__)}")
        self._weight = w
        self._bias = None if b is None else b.detach().float()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight"] = self._weight
        destination[prefix + "bias"] = self._bias
        destination[prefix + "scale"] = _C.tensor(self.scale)
        destination[prefix + "zero_point"] = _C.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        keys = [prefix + k for k in ("weight", "bias", "scale", "zero_point")]
        if all(k in state_dict for k in keys):
            self.set_weight_bias(state_dict.pop(keys[0]), state_dict.pop(keys[1]))
            self.scale = float(state_dict.pop(keys[2]))
            self.zero_point = int(state_dict.pop(keys[3]))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class Linear(_WeightedModule):
    """y = x W^T + b on quantized tensors: x (*, in_features) quint8 ->
    (*, out_features) quint8 with this module's scale and zero point."""
    _FLOAT_MODULE = _FloatLinear
    _relu = False

    def __init__(self, in_features, out_features, bias_=True, dtype=_C.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        w = _q.quantize_per_tensor(_C.zeros(out_features, in_features), 1.0, 0, _C.qint8)
        self.set_weight_bias(w, _C.zeros(out_features) if bias_ else None)

    def forward(self, x):
        return qF.linear(x, self._weight, self._bias, self.scale, self.zero_point,
                         _relu=self._relu)

    # PyTorch's quantized Linear keeps (weight, bias) in a LinearPackedParams
    # child: its state dict has scale, zero_point, then _packed_params.dtype
    # (qint8) and _packed_params._packed_params (the (weight, bias) pair), so
    # checkpoints of quantized models move between the two libraries.
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        Module._save_to_state_dict(self, destination, prefix, keep_vars)
        destination[prefix + "scale"] = _C.tensor(self.scale)
        destination[prefix + "zero_point"] = _C.tensor(self.zero_point)
        destination[prefix + "_packed_params.dtype"] = self._packed_dtype()
        destination[prefix + "_packed_params._packed_params"] = (self._weight, self._bias)

    def _packed_dtype(self):
        return self._weight.dtype

    def _set_packed(self, dtype, weight, bias):
        """Takes a checkpoint's packed (weight, bias); an error message when it cannot."""
        if dtype is not _C.qint8:
            return (f"torchlike's quantized Linear holds qint8 weights, the checkpoint has "
                    f"{dtype}")
        self.set_weight_bias(weight, bias)
        return None

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        keys = [prefix + k for k in ("scale", "zero_point", "_packed_params.dtype",
                                     "_packed_params._packed_params")]
        present = [k in state_dict for k in keys]
        if all(present):
            scale, zero_point = state_dict.pop(keys[0]), state_dict.pop(keys[1])
            dtype, (weight, bias) = state_dict.pop(keys[2]), state_dict.pop(keys[3])
            error = self._set_packed(dtype, weight, bias)
            if error is not None:
                error_msgs.append(f"{prefix}_packed_params.dtype: {error}")
            else:
                self.scale, self.zero_point = float(scale), int(zero_point)
        elif strict:
            missing_keys.extend(k for k, p in zip(keys, present) if not p)
        Module._load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                     missing_keys, unexpected_keys, error_msgs)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"scale={self.scale}, zero_point={self.zero_point}, "
                f"qscheme={self._weight.qscheme()}")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        linear = mod[0] if _is_fused(mod) else mod
        qweight = _observed_weight(_with_qconfig(linear, mod))
        out = cls(linear.in_features, linear.out_features)
        out.set_weight_bias(qweight, linear.bias)
        out.scale, out.zero_point = _act_qparams(mod)
        return out

    @classmethod
    def from_reference(cls, ref, output_scale, output_zero_point):
        raise NotImplementedError("reference modules are not supported by torchlike")


class LinearReLU(Linear):
    """Linear then ReLU, fused (the relu is a max with the zero point)."""
    _relu = True


class _ConvNd(_WeightedModule):
    _conv = None
    _relu = False
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        n = self._dims

        def tup(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
        if padding_mode != "zeros":
            raise NotImplementedError("Only zero-padding is supported!")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = tup(kernel_size), tup(stride), tup(padding)
        self.dilation, self.groups, self.padding_mode = tup(dilation), groups, padding_mode
        w = _q.quantize_per_tensor(
            _C.zeros(out_channels, in_channels // groups, *self.kernel_size), 1.0, 0, _C.qint8)
        self.set_weight_bias(w, _C.zeros(out_channels) if bias else None)

    def _check_ndim(self, input):
        if input.ndim != self._dims + 2:
            raise ValueError(f"Input shape must be `(N, C, {_SPATIAL[self._dims]})`!")

    def forward(self, input):
        self._check_ndim(input)
        return type(self)._conv(input, self._weight, self._bias, self.stride, self.padding,
                                self.dilation, self.groups, "zeros", self.scale,
                                self.zero_point, _relu=self._relu)

    def extra_repr(self):  # PyTorch's: the non-default arguments only
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}, scale={self.scale}, zero_point={self.zero_point}")
        n = len(self.kernel_size)
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if getattr(self, "output_padding", (0,) * n) != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self._bias is None:
            s += ", bias=False"
        return s

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        conv = mod[0] if _is_fused(mod) else mod
        qweight = _observed_weight(_with_qconfig(conv, mod))
        out = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                  conv.padding, conv.dilation, conv.groups, conv.bias is not None,
                  conv.padding_mode)
        out.set_weight_bias(qweight, conv.bias)
        out.scale, out.zero_point = _act_qparams(mod)
        return out


class Conv2d(_ConvNd):
    """A 2-d convolution on quantized tensors: (N, C, H, W) quint8 -> quint8."""
    _conv = staticmethod(qF.conv2d)


class Conv1d(_ConvNd):
    """A 1-d convolution on quantized tensors: (N, C, L) quint8 -> quint8."""
    _conv = staticmethod(qF.conv1d)
    _dims = 1


class Conv3d(_ConvNd):
    """A 3-d convolution on quantized tensors: (N, C, D, H, W) quint8 -> quint8."""
    _conv = staticmethod(qF.conv3d)
    _dims = 3


_SPATIAL = {1: "L", 2: "H, W", 3: "D, H, W"}


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution on quantized tensors: weight (C_in, C_out/groups,
    k...) qint8 per tensor (PyTorch's x86 engine refuses per-channel ones)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        _WeightedModule.__init__(self)
        n = self._dims

        def tup(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = tup(kernel_size), tup(stride), tup(padding)
        self.output_padding, self.dilation = tup(output_padding), tup(dilation)
        self.groups, self.padding_mode = groups, padding_mode
        w = _q.quantize_per_tensor(
            _C.zeros(in_channels, out_channels // groups, *self.kernel_size), 1.0, 0, _C.qint8)
        self.set_weight_bias(w, _C.zeros(out_channels) if bias else None)

    def forward(self, input):
        self._check_ndim(input)
        return type(self)._conv(input, self._weight, self._bias, self.stride, self.padding,
                                self.output_padding, self.groups, self.dilation, self.scale,
                                self.zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        qweight = _observed_weight(mod)
        out = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding,
                  mod.output_padding, mod.groups, mod.bias is not None, mod.dilation,
                  mod.padding_mode)
        out.set_weight_bias(qweight, mod.bias)
        out.scale, out.zero_point = _act_qparams(mod)
        return out


class ConvTranspose1d(_ConvTransposeNd):
    """(N, C_in, L) quint8 -> (N, C_out, L_out) quint8."""
    _conv = staticmethod(qF.conv_transpose1d)
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """(N, C_in, H, W) quint8 -> (N, C_out, H_out, W_out) quint8."""
    _conv = staticmethod(qF.conv_transpose2d)
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """(N, C_in, D, H, W) quint8 -> (N, C_out, D_out, H_out, W_out) quint8."""
    _conv = staticmethod(qF.conv_transpose3d)
    _dims = 3


class ConvReLU2d(Conv2d):
    _relu = True


class ConvReLU3d(Conv3d):
    _relu = True


class ConvReLU1d(Conv1d):
    _relu = True


def _with_qconfig(inner, outer):
    """The float module inside a fused one takes the fused module's qconfig."""
    if getattr(inner, "qconfig", None) is None:
        inner.qconfig = outer.qconfig
    return inner


def _is_fused(mod):
    """Whether mod is a fused float module (ao.nn.intrinsic, which imports
    this package's modules: hence the late import)."""
    from ..intrinsic import _FusedModule
    return isinstance(mod, _FusedModule)


class Hardtanh(Module):
    def __init__(self, scale, zero_point, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.scale, self.zero_point = scale, zero_point
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return qF.hardtanh(input, self.min_val, self.max_val, self.inplace)


class ReLU6(Module):
    """min(max(x, 0), 6) in the quantized grid of x."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return qF.relu6(input, self.inplace)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ReLU6(mod.inplace)


class FloatFunctional(Module):
    """add, mul, cat ... as a module, so prepare can observe their outputs;
    convert swaps it for QFunctional."""

    def __init__(self):
        super().__init__()
        from ....nn.modules.linear import Identity
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use "
                           "the underlying operation")

    def add(self, x, y):
        return self.activation_post_process(_C.add(x, y))

    def add_scalar(self, x, y):
        return _C.add(x, y)

    def mul(self, x, y):
        return self.activation_post_process(_C.mul(x, y))

    def mul_scalar(self, x, y):
        return _C.mul(x, y)

    def cat(self, x, dim=0):
        return self.activation_post_process(_C.cat(x, dim))

    def add_relu(self, x, y):
        return self.activation_post_process(_C.relu(_C.add(x, y)))

    def matmul(self, x, y):
        return self.activation_post_process(_C.matmul(x, y))


class QFunctional(Module):
    """The quantized FloatFunctional: outputs requantized to its scale and zero point."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0
        from ....nn.modules.linear import Identity
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("Functional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        return qF.add(x, y, self.scale, self.zero_point)

    def add_relu(self, x, y):
        return qF.add_relu(x, y, self.scale, self.zero_point)

    def mul(self, x, y):
        return qF.mul(x, y, self.scale, self.zero_point)

    def cat(self, x, dim=0):
        return qF.cat(x, dim, self.scale, self.zero_point)

    # the Scalar forms choose their output qparams (not observed, as PyTorch's)
    def add_scalar(self, x, y):
        return qF.add_scalar(x, y)

    def mul_scalar(self, x, y):
        return qF.mul_scalar(x, y)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"

    # scale and zero_point travel in the state dict, as PyTorch's QFunctional keeps them
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = _C.tensor(self.scale)
        destination[prefix + "zero_point"] = _C.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        if prefix + "scale" in state_dict:
            self.scale = float(state_dict.pop(prefix + "scale"))
        elif strict:
            missing_keys.append(prefix + "scale")
        if prefix + "zero_point" in state_dict:
            self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        elif strict:
            missing_keys.append(prefix + "zero_point")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        out = cls()
        out.scale, out.zero_point = _act_qparams(mod)
        return out
