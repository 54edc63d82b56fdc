"""The reference modules: the float module's parameters plus buffers
weight_scale, weight_zero_point, weight_axis and the attributes
weight_qscheme, weight_dtype (all five in the state dict, as PyTorch's)."""
from ..... import _C, _quantized as _q
from .....nn import functional as F
from .....nn.modules.module import Module
from .....nn.modules import linear as _linear, conv as _conv
from .....nn.parameter import Parameter

_QDTYPES = ("quint8", "qint8", "quint4x2", "qint32")
_SCHEMES = (None, "per_tensor_affine", "per_channel_affine", "per_channel_affine_float_qparams")
_KEYS = ("weight_qscheme", "weight_dtype", "weight_scale", "weight_zero_point", "weight_axis")


def get_qparam_dict(observer):
    """What a weight observer chose, as reference modules take it: qscheme
    (symmetric ones as their affine form), dtype, scale, zero_point, axis."""
    scheme = observer.qscheme
    scheme = {"per_tensor_symmetric": _q.per_tensor_affine,
              "per_channel_symmetric": _q.per_channel_affine}.get(scheme.name, scheme)
    out = {"qscheme": scheme, "dtype": observer.dtype, "is_dynamic": observer.is_dynamic}
    scale, zero_point = observer.calculate_qparams()
    out.update(scale=scale, zero_point=zero_point)
    if scheme.name != "per_tensor_affine":
        out["axis"] = observer.ch_axis
    out.update(quant_min=getattr(observer, "quant_min", None),
               quant_max=getattr(observer, "quant_max", None))
    return out


def _as_tensor(value, dtype):
    return value.detach().clone() if isinstance(value, _C.Tensor) else \
        _C.tensor(value, dtype=dtype)


class ReferenceQuantizedModule(Module):
    """The weight-qparams half of a reference module."""

    def _init_weight_qparams(self, weight_qparams, device=None):
        if weight_qparams is None:
            weight_qparams = {"qscheme": _q.per_tensor_affine, "dtype": _C.quint8,
                              "scale": 1.0, "zero_point": 0}
        scheme, dtype = weight_qparams["qscheme"], weight_qparams["dtype"]
        if (scheme.name if scheme is not None else None) not in _SCHEMES:
            raise AssertionError(f"qscheme: {scheme} is not supported in reference quantized "
                                 f"{self._get_name()}")
        self.weight_qscheme, self.weight_dtype = scheme, dtype
        if str(dtype).rpartition(".")[2] in _QDTYPES:
            zp = weight_qparams["zero_point"]
            self.register_buffer("weight_scale", _as_tensor(weight_qparams["scale"], _C.float32))
            self.register_buffer("weight_zero_point", _as_tensor(
                zp, zp.dtype if isinstance(zp, _C.Tensor) else _C.int32))
            axis = weight_qparams.get("axis", 0) if scheme is not None and \
                scheme.name != "per_tensor_affine" else 0
            self.register_buffer("weight_axis", _as_tensor(axis, _C.int32))
        else:
            self.register_buffer("weight_scale", _C.tensor(1.0))
            self.register_buffer("weight_zero_point", _C.tensor(0, dtype=_C.int32))
            self.register_buffer("weight_axis", _C.tensor(0, dtype=_C.int32))
        self.is_decomposed = weight_qparams.get("is_decomposed", False)
        if self.is_decomposed:
            raise NotImplementedError("decomposed reference modules are not supported by "
                                      "torchlike")
        self.weight_axis_int = int(self.weight_axis)
        self.weight_quant_min = weight_qparams.get("quant_min")
        self.weight_quant_max = weight_qparams.get("quant_max")

    def get_quantized_weight(self):
        """The weight quantized with the module's weight qparams."""
        w, dtype, scheme = self.weight.detach(), self.weight_dtype, self.weight_qscheme
        if dtype is _C.float16:
            return w.to(dtype)
        if scheme is _q.per_tensor_affine and dtype in (_C.quint8, _C.qint8, _C.qint32):
            return _q.quantize_per_tensor(w, float(self.weight_scale),
                                          int(self.weight_zero_point), dtype)
        if scheme in (_q.per_channel_affine, _q.per_channel_affine_float_qparams) and \
                dtype in (_C.quint8, _C.qint8, _C.qint32):
            zps = self.weight_zero_point
            return _q.quantize_per_channel(w, self.weight_scale.double(),
                                           zps if zps.is_floating_point() else zps.long(),
                                           self.weight_axis_int, dtype)
        raise ValueError(f"Unsupported dtype and qscheme: {dtype}, {scheme}")

    def get_weight(self):
        """The weight quantized and dequantized (float32), what forward uses."""
        if self.weight_qscheme is None:
            return self.weight
        if self.weight_dtype is _C.float16:
            return self.weight.to(_C.float16)
        return self.get_quantized_weight().dequantize()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight_qscheme"] = self.weight_qscheme
        destination[prefix + "weight_dtype"] = self.weight_dtype

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for key in _KEYS:
            if prefix + key in state_dict:
                if key in ("weight_qscheme", "weight_dtype"):
                    setattr(self, key, state_dict.pop(prefix + key))
                else:  # its shape and dtype come with it (per tensor or per channel)
                    self._buffers[key] = state_dict[prefix + key].detach().clone()
        self.weight_axis_int = int(self.weight_axis)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def _reference(float_cls, name, forward, args_of):
    """A reference module class over float_cls: its constructor takes
    weight_qparams too, from_float(float module, weight_qparams) copies the
    float parameters."""
    def __init__(self, *args, weight_qparams=None, **kwargs):
        kwargs.pop("device", None), kwargs.pop("dtype", None)
        float_cls.__init__(self, *args, **kwargs)
        self._init_weight_qparams(weight_qparams)

    @classmethod
    def from_float(cls, mod, weight_qparams):
        out = cls(*args_of(mod), weight_qparams=weight_qparams)
        out.weight = Parameter(mod.weight.detach())
        if mod.bias is not None:
            out.bias = Parameter(mod.bias.detach())
        return out

    cls = type(name, (float_cls, ReferenceQuantizedModule),
               {"__init__": __init__, "forward": forward, "from_float": from_float,
                "_IS_REFERENCE": True, "_get_name": lambda self: f"Quantized{name}(Reference)",
                "__doc__": f"{float_cls.__name__} on its weight quantized and dequantized."})
    cls.__module__ = __name__
    return cls


def _linear_forward(self, x):
    return F.linear(x, self.get_weight(), self.bias)


def _conv_forward(self, x):
    return self._conv_forward(x, self.get_weight(), self.bias)


def _conv_t_forward(self, x, output_size=None):
    fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._n - 1]
    return fn(x, self.get_weight(), self.bias, self.stride, self.padding,
              self._output_padding(x, output_size), self.groups, self.dilation)


def _conv_args(mod):
    return (mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding,
            mod.dilation, mod.groups, mod.bias is not None, mod.padding_mode)


def _conv_t_args(mod):
    return (mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding,
            mod.output_padding, mod.groups, mod.bias is not None, mod.dilation,
            mod.padding_mode)


Linear = _reference(_linear.Linear, "Linear", _linear_forward,
                    lambda m: (m.in_features, m.out_features, m.bias is not None))
Conv1d = _reference(_conv.Conv1d, "Conv1d", _conv_forward, _conv_args)
Conv2d = _reference(_conv.Conv2d, "Conv2d", _conv_forward, _conv_args)
Conv3d = _reference(_conv.Conv3d, "Conv3d", _conv_forward, _conv_args)
ConvTranspose1d = _reference(_conv.ConvTranspose1d, "ConvTranspose1d", _conv_t_forward,
                             _conv_t_args)
ConvTranspose2d = _reference(_conv.ConvTranspose2d, "ConvTranspose2d", _conv_t_forward,
                             _conv_t_args)
ConvTranspose3d = _reference(_conv.ConvTranspose3d, "ConvTranspose3d", _conv_t_forward,
                             _conv_t_args)
