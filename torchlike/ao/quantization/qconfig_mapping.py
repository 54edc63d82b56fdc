"""QConfigMapping (torch.ao.quantization.qconfig_mapping): which qconfig each
operator of a model gets in FX graph mode quantization.  Precedence, lowest
first: the global qconfig, the operator's type (module class, function or
method name), a module-name regex, a module name (the longest matching
prefix), a (module name, type, call index) triple."""
import re
from collections import OrderedDict

import torchlike as _t
from ... import _C, _quantized as _q
from ...nn import functional as F
from ...nn.modules import activation as _act
from ...nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ...nn.modules.normalization import LayerNorm
from .observer import (FixedQParamsObserver, ReuseInputObserver, NoopObserver,
                       PlaceholderObserver, HistogramObserver, MinMaxObserver,
                       default_weight_observer)
from .fake_quantize import FakeQuantize
from .qconfig import QConfig, get_default_qconfig, get_default_qat_qconfig

__all__ = ["QConfigMapping", "get_default_qconfig_mapping", "get_default_qat_qconfig_mapping"]

_KEYS = ("global_qconfig", "object_type_qconfigs", "module_name_regex_qconfigs",
         "module_name_qconfigs", "module_name_object_type_order_qconfigs")
_DICT_KEYS = {"": "global_qconfig", "object_type": "object_type_qconfigs",
              "module_name_regex": "module_name_regex_qconfigs",
              "module_name": "module_name_qconfigs",
              "module_name_object_type_order": "module_name_object_type_order_qconfigs"}


class QConfigMapping:
    """A mapping from model ops to qconfigs; the setters return self so
    calls chain (``QConfigMapping().set_global(q).set_object_type(nn.Linear, None)``)."""

    def __init__(self):
        self.global_qconfig = None
        self.object_type_qconfigs = OrderedDict()
        self.module_name_regex_qconfigs = OrderedDict()
        self.module_name_qconfigs = OrderedDict()
        self.module_name_object_type_order_qconfigs = OrderedDict()

    def set_global(self, global_qconfig):
        self.global_qconfig = global_qconfig
        return self

    def set_object_type(self, object_type, qconfig):
        self.object_type_qconfigs[object_type] = qconfig
        return self

    def set_module_name_regex(self, module_name_regex, qconfig):
        self.module_name_regex_qconfigs[module_name_regex] = qconfig
        return self

    def set_module_name(self, module_name, qconfig):
        self.module_name_qconfigs[module_name] = qconfig
        return self

    def set_module_name_object_type_order(self, module_name, object_type, index, qconfig):
        self.module_name_object_type_order_qconfigs[(module_name, object_type, index)] = qconfig
        return self

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for key in _KEYS:
            lines.append(f" {key}")
            value = getattr(self, key)
            if isinstance(value, OrderedDict) and value:
                lines += [f"  {k}: {v}" for k, v in value.items()]
            else:
                lines.append(f"  {value}")
        return "\n".join(lines) + "\n)"

    def to_dict(self):
        """The older qconfig_dict form."""
        return {"": self.global_qconfig,
                "object_type": list(self.object_type_qconfigs.items()),
                "module_name_regex": list(self.module_name_regex_qconfigs.items()),
                "module_name": list(self.module_name_qconfigs.items()),
                "module_name_object_type_order": [
                    (*k, v) for k, v in self.module_name_object_type_order_qconfigs.items()]}

    @classmethod
    def from_dict(cls, qconfig_dict):
        out = cls()
        for key, value in qconfig_dict.items():
            if key not in _DICT_KEYS:
                raise ValueError(f"Unknown key in qconfig_dict: {key!r}; expected one of "
                                 f"{sorted(_DICT_KEYS)}")
        out.global_qconfig = qconfig_dict.get("")
        for k, q in qconfig_dict.get("object_type", []):
            out.set_object_type(k, q)
        for k, q in qconfig_dict.get("module_name_regex", []):
            out.set_module_name_regex(k, q)
        for k, q in qconfig_dict.get("module_name", []):
            out.set_module_name(k, q)
        for name, typ, index, q in qconfig_dict.get("module_name_object_type_order", []):
            out.set_module_name_object_type_order(name, typ, index, q)
        return out

    def _copy(self):
        """A copy with its own tables (the keys and qconfigs shared)."""
        out = QConfigMapping()
        out.global_qconfig = self.global_qconfig
        for key in _KEYS[1:]:
            setattr(out, key, OrderedDict(getattr(self, key)))
        return out

    # ---- lookups (FX prepare) ---------------------------------------------------------

    def _for_type_or_name(self, object_type, module_name, fallback):
        """The qconfig of a module (or of an op inside it): its name's, its
        regex's, its type's, else fallback."""
        qconfig = self.object_type_qconfigs.get(object_type, fallback)
        for pattern, q in self.module_name_regex_qconfigs.items():
            if re.match(pattern, module_name):
                qconfig = q
                break
        prefix = module_name
        while True:  # the longest registered prefix of the name
            if prefix in self.module_name_qconfigs:
                return self.module_name_qconfigs[prefix]
            if not prefix:
                return qconfig
            prefix = prefix.rpartition(".")[0]

    def _for_order(self, module_name, object_type, index, fallback):
        return self.module_name_object_type_order_qconfigs.get(
            (module_name, object_type, index), fallback)


def _fixed(scale, zero_point):
    return QConfig(activation=FixedQParamsObserver.with_args(
        scale=scale, zero_point=zero_point, dtype=_C.quint8, quant_min=0, quant_max=255),
        weight=default_weight_observer)


def _fixed_qat(scale, zero_point):
    return QConfig(activation=FakeQuantize.with_args(
        observer=FixedQParamsObserver.with_args(scale=scale, zero_point=zero_point),
        scale=scale, zero_point=zero_point, dtype=_C.quint8, quant_min=0, quant_max=255),
        weight=default_weight_observer)


def _default_mapping(is_qat, backend, version):
    qconfig = (get_default_qat_qconfig if is_qat else get_default_qconfig)(backend, version)
    weight_pt = MinMaxObserver.with_args(dtype=_C.qint8, qscheme=_q.per_tensor_symmetric)
    # transposed convolutions take per-tensor weights on x86/fbgemm (their kernels refuse
    # per-channel ones); layer norm's weight is not quantized
    conv_t = QConfig(activation=qconfig.activation, weight=weight_pt) \
        if backend in ("x86", "fbgemm") else qconfig
    sigmoid, tanh = (_fixed_qat if is_qat else _fixed)(1.0 / 256.0, 0), \
        (_fixed_qat if is_qat else _fixed)(2.0 / 256.0, 128)
    mapping = QConfigMapping().set_global(qconfig)
    mapping.set_object_type("reshape", QConfig(activation=ReuseInputObserver,
                                               weight=NoopObserver))
    for t in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, F.conv_transpose1d,
              F.conv_transpose2d, F.conv_transpose3d):
        mapping.set_object_type(t, conv_t)
    layer_norm = QConfig(activation=qconfig.activation, weight=PlaceholderObserver)
    mapping.set_object_type(F.layer_norm, layer_norm).set_object_type(LayerNorm, layer_norm)
    mapping.set_object_type(_act.PReLU, QConfig(activation=HistogramObserver,
                                                weight=MinMaxObserver))
    for t in (_act.Hardsigmoid, F.hardsigmoid, "hardsigmoid", "hardsigmoid_", _act.Sigmoid,
              _t.sigmoid, "sigmoid", "sigmoid_", _act.Softmax):
        mapping.set_object_type(t, sigmoid)
    for t in (_act.Tanh, _t.tanh, "tanh", "tanh_"):
        mapping.set_object_type(t, tanh)
    return mapping


def get_default_qconfig_mapping(backend="x86", version=0):
    """PyTorch's post-training QConfigMapping for a backend: its default
    qconfig everywhere, per-tensor weights for transposed convolutions (x86,
    fbgemm), fixed qparams for sigmoid / tanh / hardsigmoid / softmax."""
    return _default_mapping(False, backend, version)


def get_default_qat_qconfig_mapping(backend="x86", version=1):
    """As get_default_qconfig_mapping, for quantization-aware training."""
    return _default_mapping(True, backend, version)
