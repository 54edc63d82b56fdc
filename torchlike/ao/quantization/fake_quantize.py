"""FakeQuantize modules (torch.ao.quantization.fake_quantize): an observer
that sets scale and zero point, then the float round trip through the
integer grid (torch.fake_quantize_per_tensor_affine / per_channel_affine),
for quantization-aware training."""
from ... import _C, _quantized as _q
from ..._fake_quantize import fake_quantize_per_tensor_affine, fake_quantize_per_channel_affine
from ...nn.modules.module import Module
from .observer import (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver,
                       _with_args, _with_callable_args)

__all__ = ["FakeQuantizeBase", "FakeQuantize", "FusedMovingAvgObsFakeQuantize",
           "default_fused_act_fake_quant", "default_fused_wt_fake_quant",
           "default_fused_per_channel_wt_fake_quant", "default_fake_quant",
           "default_weight_fake_quant",
           "default_per_channel_weight_fake_quant", "default_embedding_fake_quant",
           "disable_fake_quant", "enable_fake_quant",
           "disable_observer", "enable_observer"]

_PER_CHANNEL = ("per_channel_affine", "per_channel_symmetric", "per_channel_affine_float_qparams")


class FakeQuantizeBase(Module):
    """The switches of fake quantization: observer_enabled and fake_quant_enabled
    (uint8 buffers, as PyTorch's, so they travel in state dicts)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("fake_quant_enabled", _C.tensor([1], dtype=_C.uint8))
        self.register_buffer("observer_enabled", _C.tensor([1], dtype=_C.uint8))

    def enable_fake_quant(self, enabled=True):
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        self.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        self.enable_observer(False)

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


class FakeQuantize(FakeQuantizeBase):
    """x -> (clamp(round(x / scale) + zero_point, quant_min, quant_max) - zero_point) * scale,
    with scale and zero_point from ``observer`` (re-computed on each forward
    while the observer is enabled)."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None,
                 is_dynamic=False, **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            observer_kwargs.update(quant_min=quant_min, quant_max=quant_max)
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        app = self.activation_post_process
        self.quant_min, self.quant_max = app.quant_min, app.quant_max
        self.is_dynamic = app.is_dynamic
        float_zp = app.qscheme is _q.per_channel_affine_float_qparams
        self.register_buffer("scale", _C.tensor([1.0], dtype=_C.float32))
        self.register_buffer("zero_point", _C.tensor([0], dtype=_C.float32 if float_zp
                                                     else _C.int32))
        self.dtype = app.dtype
        self.qscheme = app.qscheme
        self.ch_axis = getattr(app, "ch_axis", -1)
        self.is_per_channel = self.qscheme.name in _PER_CHANNEL
        self.is_symmetric_quant = self.qscheme.name in ("per_tensor_symmetric",
                                                        "per_channel_symmetric")

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if self.observer_enabled[0] == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.calculate_qparams()
            self.scale = scale.to(self.scale.dtype).clone()  # buffers: channels may change
            self.zero_point = zero_point.to(self.zero_point.dtype).clone()
        if self.fake_quant_enabled[0] == 1:
            if self.is_per_channel:
                X = fake_quantize_per_channel_affine(X, self.scale, self.zero_point,
                                                     self.ch_axis, self.quant_min, self.quant_max)
            else:
                X = fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,
                                                    self.quant_min, self.quant_max)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, quant_min={self.quant_min}, "
                f"quant_max={self.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, "
                f"ch_axis={self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name in ("scale", "zero_point"):  # per channel: the saved number of channels
            key = prefix + name
            if key in state_dict:
                setattr(self, name, _C.zeros_like(state_dict[key]))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """FakeQuantize as PyTorch's fused kernel computes it (its QAT default):
    the observer's running min/max updated as a moving average, the scale
    and zero point from them by the C++ rule (observer.choose_qparams:
    symmetric schemes keep the sparsity of 0, small scales are raised), then
    the fake quantization.  calculate_qparams (what convert reads) is the
    observer's own, as in PyTorch."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                 **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(self.activation_post_process, (MovingAverageMinMaxObserver,
                                                         MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Fused observer+fake_quant module only works with "
                                 "MovingAverageMinMaxObserver")
        self.register_buffer("fake_quant_enabled", _C.tensor([1], dtype=_C.int64))
        self.register_buffer("observer_enabled", _C.tensor([1], dtype=_C.int64))

    def forward(self, X):
        if self.observer_enabled[0] == 1:
            self.activation_post_process(X.detach())  # the moving averages
            self._fused_qparams()
        if self.fake_quant_enabled[0] == 1:
            if self.is_per_channel:
                return fake_quantize_per_channel_affine(X, self.scale, self.zero_point,
                                                        self.ch_axis, self.quant_min,
                                                        self.quant_max)
            return fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,
                                                   self.quant_min, self.quant_max)
        return X

    def _fused_qparams(self):
        from .observer import choose_qparams
        app = self.activation_post_process
        lows, highs = app.min_val.reshape(-1).tolist(), app.max_val.reshape(-1).tolist()
        pairs = [choose_qparams(lo, hi, self.quant_min, self.quant_max, self.is_symmetric_quant)
                 for lo, hi in zip(lows, highs)]
        self.scale = _C.tensor([p[0] for p in pairs], dtype=_C.float32)
        self.zero_point = _C.tensor([p[1] for p in pairs], dtype=_C.int32)


default_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=_C.quint8,
    qscheme=_q.per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=_C.qint8,
    qscheme=_q.per_tensor_symmetric, reduce_range=False)
default_embedding_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, qscheme=_q.per_channel_affine_float_qparams,
    dtype=_C.quint8, quant_min=0, quant_max=255, ch_axis=0, averaging_constant=1)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=_C.qint8, qscheme=_q.per_channel_symmetric, reduce_range=False, ch_axis=0)


default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=_C.quint8)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=_C.qint8,
    qscheme=_q.per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=_C.qint8, qscheme=_q.per_channel_symmetric)


def _apply(mod, method):
    if isinstance(mod, FakeQuantizeBase):
        getattr(mod, method)()


def disable_fake_quant(mod):
    """For ``model.apply``: turn fake quantization off in FakeQuantize modules."""
    _apply(mod, "disable_fake_quant")


def enable_fake_quant(mod):
    _apply(mod, "enable_fake_quant")


def disable_observer(mod):
    _apply(mod, "disable_observer")


def enable_observer(mod):
    _apply(mod, "enable_observer")
