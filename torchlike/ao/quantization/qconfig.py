"""QConfig: which observer (or fake quantizer) watches a module's output
activations and which its weight (torch.ao.quantization.qconfig), and the
defaults PyTorch ships for its backends."""
from collections import namedtuple

from ...nn.modules.module import Module
from .observer import (HistogramObserver, NoopObserver, MovingAverageMinMaxObserver,
                       PlaceholderObserver,
                       default_debug_observer, default_dynamic_quant_observer,
                       default_float_qparams_observer, default_observer,
                       default_per_channel_weight_observer, default_placeholder_observer,
                       default_weight_observer)
from .fake_quantize import (FakeQuantize, FusedMovingAvgObsFakeQuantize, default_fake_quant,
                            default_weight_fake_quant, default_per_channel_weight_fake_quant,
                            default_embedding_fake_quant,
                            default_fused_wt_fake_quant,
                            default_fused_per_channel_wt_fake_quant)
from ... import _C

__all__ = ["QConfig", "QConfigDynamic", "default_qconfig", "default_debug_qconfig",
           "default_per_channel_qconfig", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "float16_static_qconfig", "per_channel_dynamic_qconfig", "default_qat_qconfig",
           "default_embedding_qat_qconfig",
           "float_qparams_weight_only_qconfig", "get_default_qconfig",
           "get_default_qat_qconfig", "qconfig_equals"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """(activation, weight): observer *factories* (classes or ``with_args``
    results), called once per module by prepare."""
    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError("QConfig received observer instance, please pass observer class "
                             "instead. Use MyObserver.with_args(x=1) to override arguments to "
                             "constructor if needed")
        return super().__new__(cls, activation, weight)


QConfigDynamic = QConfig

default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_debug_qconfig = QConfig(weight=default_weight_observer, activation=default_debug_observer)
default_per_channel_qconfig = QConfig(activation=default_observer,
                                      weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                  weight=default_weight_observer)
float16_dynamic_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=_C.float16, is_dynamic=True),
    weight=PlaceholderObserver.with_args(dtype=_C.float16))
float16_static_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=_C.float16),
                                 weight=PlaceholderObserver.with_args(dtype=_C.float16))
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)
float_qparams_weight_only_qconfig = QConfig(activation=default_placeholder_observer,
                                            weight=default_float_qparams_observer)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_embedding_qat_qconfig = QConfig(activation=NoopObserver.with_args(dtype=_C.float32),
                                        weight=default_embedding_fake_quant)

_BACKENDS = ("x86", "fbgemm", "qnnpack", "onednn")


def get_default_qconfig(backend="x86", version=0):
    """PyTorch's post-training qconfig for a backend: a histogram observer on
    activations (range reduced for x86/fbgemm), per-channel symmetric int8
    weights (per tensor for qnnpack)."""
    if backend not in _BACKENDS:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of "
                             f"{list(_BACKENDS)}")
    if version != 0:
        raise AssertionError(f"Version number: {version} in get_default_qconfig is not "
                             f"supported. Version number must be 0")
    if backend in ("x86", "fbgemm"):
        return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                       weight=default_per_channel_weight_observer)
    if backend == "qnnpack":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                       weight=default_weight_observer)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                   weight=default_per_channel_weight_observer)


def get_default_qat_qconfig(backend="x86", version=1):
    """PyTorch's quantization-aware-training qconfig for a backend: moving
    averages of min and max on activations (range reduced for x86/fbgemm),
    symmetric int8 weights per channel (per tensor for qnnpack); version 1,
    the default, uses the fused fake quantizer, version 0 FakeQuantize."""
    if backend not in _BACKENDS:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of "
                             f"{list(_BACKENDS)}")
    if version not in (0, 1):
        raise AssertionError(f"Version number: {version}in get_default_qat_qconfig is not "
                             f"supported. Version number must be 0 or 1")
    fake = FakeQuantize if version == 0 else FusedMovingAvgObsFakeQuantize
    act = fake.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                         reduce_range=backend in ("x86", "fbgemm"))
    if version == 0:
        weight = default_weight_fake_quant if backend == "qnnpack" else \
            default_per_channel_weight_fake_quant
    else:
        weight = default_fused_wt_fake_quant if backend == "qnnpack" else \
            default_fused_per_channel_wt_fake_quant
    return QConfig(activation=act, weight=weight)


def get_default_qconfig_dict(backend="x86", version=0):
    return {"": get_default_qconfig(backend, version)}


def qconfig_equals(q1, q2):
    """Whether two qconfigs build the same observers."""
    if q1 is None or q2 is None:
        return q1 == q2

    def same(a, b):
        pa, pb = getattr(a, "p", None), getattr(b, "p", None)
        if pa is not None and pb is not None:
            return pa.func == pb.func and pa.args == pb.args and pa.keywords == pb.keywords
        return a == b
    return same(q1.activation, q2.activation) and same(q1.weight, q2.weight)
