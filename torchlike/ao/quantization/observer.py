"""Observers: modules that watch the tensors passing through them and choose
a scale and zero point for them (torch.ao.quantization.observer).

Each observer's forward records statistics (running min and max, per tensor
or per channel) and returns its input unchanged; calculate_qparams() turns
them into (scale, zero_point) as PyTorch does:

    affine      scale = (max(max, 0) - min(min, 0)) / (quant_max - quant_min), at least eps
                zero_point = clamp(quant_min - round(min(min, 0) / scale), quant_min, quant_max)
    symmetric   scale = max(-min(min, 0), max(max, 0)) / ((quant_max - quant_min) / 2), at least eps
                zero_point = 0 (128, or the middle of a custom range, for quint8)
    float qparams (per channel)
                scale = (max - min) / (quant_max - quant_min), 1 where not above eps
                zero_point = -min / scale (a float)

computed in float32 tensors.  quant_min/quant_max default to the dtype's
range, halved by reduce_range (quint8: 0..127, qint8: -64..63)."""
import functools
import math

import numpy as np

from ... import _C, _quantized as _q
from ...nn.modules.module import Module

__all__ = ["ObserverBase", "UniformQuantizationObserverBase", "MinMaxObserver",
           "MovingAverageMinMaxObserver", "PerChannelMinMaxObserver",
           "MovingAveragePerChannelMinMaxObserver", "HistogramObserver", "PlaceholderObserver",
           "RecordingObserver", "NoopObserver", "FixedQParamsObserver", "ReuseInputObserver",
           "default_observer", "default_weight_observer",
           "default_per_channel_weight_observer", "default_dynamic_quant_observer",
           "default_placeholder_observer", "default_debug_observer",
           "default_histogram_observer", "default_float_qparams_observer",
           "weight_observer_range_neg_127_to_127",
           "per_channel_weight_observer_range_neg_127_to_127", "get_observer_state_dict",
           "load_observer_state_dict"]

_EPS = 2.0 ** -23  # torch.finfo(torch.float32).eps


class _PartialWrapper:
    """What ``Observer.with_args(...)`` returns: calling it builds the observer
    with those arguments (and the later ones)."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        kwargs = {k: v() for k, v in self.callable_args.items()}
        return self.p(*args, **{**kwargs, **keywords})

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _with_args(cls_or_self, **kwargs):
    """A factory of the class with these keyword arguments (PyTorch's with_args)."""
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self, **kwargs):
    result = _PartialWrapper(p=cls_or_self)
    return result.with_callable_args(**kwargs)


class ObserverBase(Module):
    """The base of every observer: dtype and whether it is dynamic."""

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    def forward(self, x):
        raise NotImplementedError

    def calculate_qparams(self, **kwargs):
        raise NotImplementedError

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


def _qrange(dtype, reduce_range, quant_min, quant_max):
    """(quant_min, quant_max): the dtype's range or the given one, halved by reduce_range."""
    if quant_min is not None and quant_max is not None:
        return (quant_min // 2, quant_max // 2) if reduce_range else (quant_min, quant_max)
    ranges = {_C.qint8: (-128, 127), _C.quint8: (0, 255), _C.int8: (-128, 127),
              _C.uint8: (0, 255), _C.qint32: (-2 ** 31, 2 ** 31 - 1),
              _C.int32: (-2 ** 31, 2 ** 31 - 1)}
    lo, hi = ranges.get(dtype, (0, 255))  # float16: no integer range; quint8's, as PyTorch
    if reduce_range and dtype in (_C.qint8, _C.int8):
        return -64, 63
    if reduce_range and dtype in (_C.quint8, _C.uint8):
        return 0, 127
    return lo, hi


class UniformQuantizationObserverBase(ObserverBase):
    """The observers of a uniform grid: their qscheme, range and eps, and the
    one computation of (scale, zero_point) from min and max."""

    _SCHEMES = ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine",
                "per_channel_symmetric", "per_channel_affine_float_qparams")

    def __init__(self, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        dtype = _C.quint8 if dtype is None else dtype
        qscheme = _q.per_tensor_affine if qscheme is None else qscheme
        super().__init__(dtype, is_dynamic)
        self.qscheme = qscheme
        if reduce_range:
            import warnings
            warnings.warn("Please use quant_min and quant_max to specify the range for "
                          "observers. reduce_range will be deprecated in a future release of "
                          "PyTorch.")
        self.reduce_range = reduce_range
        self.register_buffer("eps", _C.tensor([eps], dtype=_C.float32))
        if getattr(qscheme, "name", None) not in self._SCHEMES:
            raise AssertionError(f"Default Observer only works for per_tensor_affine, "
                                 f"per_tensor_symmetric, per_channel_affine, "
                                 f"per_channel_symmetric and per_channel_float_qparams quantization"
                                 f" scheme, got {qscheme}")
        if dtype not in (_C.qint8, _C.quint8, _C.qint32, _C.int8,
                         _C.uint8, _C.int32, _C.float16):
            raise AssertionError(f"Default Observer only works for qint8, quint8 and quint4x2 "
                                 f"data type, got {dtype}")
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            if not quant_min <= 0 <= quant_max:
                raise AssertionError("Used-specified quantization range must include 0.")
            if quant_min >= quant_max:
                raise AssertionError("qmin must be strictly less than qmax for "
                                     "user-specified quantization range.")
        self.quant_min, self.quant_max = _qrange(dtype, reduce_range, quant_min, quant_max)

    def _symmetric(self):
        return self.qscheme.name in ("per_tensor_symmetric", "per_channel_symmetric")

    def _calculate_qparams(self, min_val, max_val):
        """(scale float32, zero_point int64) from min and max (0-d or 1-d)."""
        if min_val.numel() == 0 or max_val.numel() == 0 or (
                min_val.ndim == 0 and (math.isinf(min_val.item()) or math.isinf(max_val.item()))):
            import warnings
            warnings.warn("must run observer before calling calculate_qparams. Returning "
                          "default values.")
            return _C.tensor([1.0]), _C.tensor([0])
        lo, hi = self.quant_min, self.quant_max
        min_neg = _C.minimum(min_val, _C.zeros_like(min_val))
        max_pos = _C.maximum(max_val, _C.zeros_like(max_val))
        zero_point = _C.zeros(tuple(min_neg.shape), dtype=_C.int64)
        if self._symmetric():
            max_pos = _C.maximum(-min_neg, max_pos)
            scale = _C.maximum(max_pos / (float(hi - lo) / 2), self.eps)
            if self.dtype in (_C.quint8, _C.uint8):
                mid = (lo + hi) // 2 if self.has_customized_qrange else 128
                zero_point = _C.full(tuple(zero_point.shape), mid, dtype=_C.int64)
        elif self.qscheme.name == "per_channel_affine_float_qparams":
            scale = (max_val - min_val) / float(hi - lo)
            scale = _C.where(scale > self.eps, scale, _C.ones_like(scale))
            zero_point = -1 * min_val / scale  # float zero points
        else:
            scale = _C.maximum((max_pos - min_neg) / float(hi - lo), self.eps)
            zero_point = lo - _C.round(min_neg / scale).to(_C.int32)
            zero_point = zero_point.clamp(lo, hi)  # int32, as PyTorch's
        if scale.ndim == 0:
            scale = scale.reshape(1)
        if zero_point.ndim == 0:
            zero_point = zero_point.reshape(1)
        return scale, zero_point

    def reset_min_max_vals(self):
        raise NotImplementedError


class MinMaxObserver(UniformQuantizationObserverBase):
    """The running min and max of every tensor seen, per tensor."""

    def __init__(self, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        dtype = _C.quint8 if dtype is None else dtype
        qscheme = _q.per_tensor_affine if qscheme is None else qscheme
        if qscheme.name.startswith("per_channel") and type(self) in (MinMaxObserver,
                                                                      MovingAverageMinMaxObserver):
            raise NotImplementedError("MinMaxObserver's qscheme only support "
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine.")
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs,
                         eps, is_dynamic, **kwargs)
        self.register_buffer("min_val", _C.tensor(float("inf")))
        self.register_buffer("max_val", _C.tensor(float("-inf")))
        if qscheme.name == "per_tensor_symmetric" and reduce_range and dtype is _C.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        self.min_val.copy_(_C.minimum(x.min(), self.min_val))
        self.max_val.copy_(_C.maximum(x.max(), self.max_val))
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        self.min_val.copy_(_C.tensor(float("inf")))
        self.max_val.copy_(_C.tensor(float("-inf")))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """min and max as moving averages: v += averaging_constant * (new - v),
    the first tensor's taken as they are."""

    def __init__(self, averaging_constant=0.01, dtype=None, qscheme=None, reduce_range=False,
                 quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        self.averaging_constant = averaging_constant
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps,
                         is_dynamic=is_dynamic, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        lo, hi = x.min(), x.max()
        if math.isinf(self.min_val.item()) and math.isinf(self.max_val.item()):
            new_lo, new_hi = lo, hi
        else:
            c = self.averaging_constant
            new_lo = self.min_val + c * (lo - self.min_val)
            new_hi = self.max_val + c * (hi - self.max_val)
        self.min_val.copy_(new_lo)
        self.max_val.copy_(new_hi)
        return x_orig


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """Running min and max per index of dim ch_axis."""

    def __init__(self, ch_axis=0, dtype=None, qscheme=None, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        qscheme = _q.per_channel_affine if qscheme is None else qscheme
        if not qscheme.name.startswith("per_channel"):
            raise NotImplementedError("PerChannelObserver's qscheme only support "
                                      "torch.per_channel_symmetric, torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs,
                         eps, is_dynamic, **kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", _C.tensor([]))
        self.register_buffer("max_val", _C.tensor([]))
        if qscheme.name == "per_channel_symmetric" and reduce_range and \
                self.dtype is _C.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def _channel_extrema(self, x):
        x = x.detach().to(self.min_val.dtype if self.min_val.numel() else _C.float32)
        y = x.movedim(self.ch_axis, 0).reshape(x.shape[self.ch_axis], -1)
        return y.amin(1), y.amax(1)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        lo, hi = self._channel_extrema(x_orig)
        if self.min_val.numel() == 0 or self.max_val.numel() == 0:
            new_lo, new_hi = lo, hi
        else:
            new_lo, new_hi = self._update(lo, hi)
        self.min_val = new_lo.detach().clone()  # buffers: the number of channels may change
        self.max_val = new_hi.detach().clone()
        return x_orig

    def _update(self, lo, hi):
        return _C.minimum(self.min_val, lo), _C.maximum(self.max_val, hi)

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name in ("min_val", "max_val"):  # the number of channels comes with the state
            key = prefix + name
            if key in state_dict:
                setattr(self, name, _C.zeros_like(state_dict[key]))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def reset_min_max_vals(self):
        self.min_val = _C.tensor([])
        self.max_val = _C.tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel min and max as moving averages."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=None, qscheme=None,
                 reduce_range=False, quant_min=None, quant_max=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        self.averaging_constant = averaging_constant
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme,
                         reduce_range=reduce_range, quant_min=quant_min, quant_max=quant_max,
                         eps=eps, is_dynamic=is_dynamic, **kwargs)

    def _update(self, lo, hi):
        c = self.averaging_constant
        return self.min_val + c * (lo - self.min_val), self.max_val + c * (hi - self.max_val)


class HistogramObserver(UniformQuantizationObserverBase):
    """A running histogram (``bins`` bins between the running min and max);
    calculate_qparams searches it for the [min, max] whose quantization
    error (L2, values spread evenly inside each bin) stops falling, then
    computes scale and zero point from them as MinMaxObserver does.

    When a tensor widens the range, the old histogram is re-binned onto the
    new bins: each bin split into ``upsample_rate`` equal parts, each part's
    count moved to the new bin holding its midpoint.  The arithmetic is
    PyTorch's: float32 tensors, the thresholds of the search rounded to
    float32 as PyTorch's weak scalars are."""

    def __init__(self, bins=2048, dtype=None, qscheme=None, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        qscheme = _q.per_tensor_affine if qscheme is None else qscheme
        if not qscheme.name.startswith("per_tensor"):
            raise NotImplementedError("HistogramObserver's qscheme only support "
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs,
                         eps, is_dynamic, **kwargs)
        self.bins = bins
        self.register_buffer("histogram", _C.zeros(bins))
        self.register_buffer("min_val", _C.tensor(float("inf")))
        self.register_buffer("max_val", _C.tensor(float("-inf")))
        self.dst_nbins = 2 ** (8 if self.dtype in (_C.quint8, _C.qint8, _C.uint8, _C.int8)
                               else 32)
        self.upsample_rate = 16

    # ---- collecting ----

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().float()
        lo, hi = x.min(), x.max()
        if math.isinf(lo.item()) or math.isinf(hi.item()):
            import warnings
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != math.inf]
            if x.numel() == 0:
                return x_orig
            lo, hi = x.min(), x.max()
        if math.isinf(self.min_val.item()) or math.isinf(self.max_val.item()):
            self.min_val, self.max_val = lo.clone(), hi.clone()
            self.histogram = _C.histc(x, self.bins, min=lo.item(), max=hi.item())
            return x_orig
        new_lo, new_hi = _C.minimum(self.min_val, lo), _C.maximum(self.max_val, hi)
        counts = _C.histc(x, self.bins, min=new_lo.item(), max=new_hi.item())
        same = new_lo.item() == self.min_val.item() and new_hi.item() == self.max_val.item()
        if same:
            self.histogram = self.histogram + counts
        else:
            self.histogram = counts + self._rebinned(new_lo, new_hi)
            self.min_val, self.max_val = new_lo.clone(), new_hi.clone()
        return x_orig

    def _rebinned(self, new_lo, new_hi):
        """The current histogram moved onto ``bins`` bins over [new_lo, new_hi]."""
        old_lo, old_hi = self.min_val, self.max_val
        if old_lo.item() == old_hi.item():  # every value seen so far is one value
            return _C.histc(old_lo, self.bins, min=new_lo.item(), max=new_hi.item()) * \
                self.histogram.sum()
        parts = self.bins * self.upsample_rate
        counts = self.histogram.repeat_interleave(self.upsample_rate) / self.upsample_rate
        width = (old_hi - old_lo) / parts
        mids = _C.linspace(old_lo, old_hi, parts + 1)[:-1] + 0.5 * width
        edges = _C.linspace(new_lo, new_hi, self.bins + 1)
        where = (_C.bucketize(mids, edges, right=True) - 1).clamp(0, self.bins - 1)
        return _C.bincount(where, weights=counts, minlength=self.bins)

    # ---- the search ----

    @staticmethod
    def _norm(begin, end, density):
        """density * the integral of x**2 from begin to end."""
        return density * (end * end * end - begin * begin * begin) / 3

    def _quantization_error(self, start, end):
        """L2 error of quantizing the histogram with bins start..end as the range."""
        width = (self.max_val.item() - self.min_val.item()) / self.bins
        dst = width * (end - start + 1) / self.dst_nbins
        if dst == 0.0:
            return 0.0
        src = _C.arange(self.bins)
        begin = (src - start) * width
        stop = begin + width
        first = _C.floor_divide(begin, dst).clamp(0, self.dst_nbins - 1)
        last = _C.floor_divide(stop, dst).clamp(0, self.dst_nbins - 1)
        density = self.histogram / width
        half = _C.tensor(dst / 2)
        norm = self._norm(begin - (first + 0.5) * dst, _C.ones(self.bins) * (dst / 2), density)
        norm = norm + (last - first - 1) * self._norm(-half, half, density)
        norm = norm + self._norm(-half, stop - (last * dst + dst / 2), density)
        return norm.sum().item()

    def _non_linear_param_search(self):
        """Narrows [start, end] from whichever side holds less of the mass, in
        steps of 1e-5 of it, while the quantization error does not grow."""
        import numpy as np
        width = (self.max_val - self.min_val) / self.bins
        total = self.histogram.sum().item()
        csum = _C.cumsum(self.histogram, 0).numpy()
        step, alpha, beta = 1e-5, 0.0, 1.0
        start, end = 0, self.bins - 1
        best = math.inf
        while alpha < beta:
            next_alpha, next_beta = alpha + step, beta - step
            lo_t, hi_t = np.float32(next_alpha * total), np.float32(next_beta * total)
            left, right = start, end
            while left < end and csum[left] < lo_t:
                left += 1
            while right > start and csum[right] > hi_t:
                right -= 1
            new_start, new_end = start, end
            if left - start > end - right:
                new_start, alpha = left, next_alpha
            else:
                new_end, beta = right, next_beta
            if (new_start, new_end) == (start, end):
                continue
            err = self._quantization_error(new_start, new_end)
            if err > best:
                break
            best, start, end = err, new_start, new_end
        return self.min_val + width * start, self.min_val + width * (end + 1)

    def calculate_qparams(self):
        if math.isinf(self.min_val.item()) and math.isinf(self.max_val.item()):
            import warnings
            warnings.warn("must run observer before calling calculate_qparams. Returning "
                          "default scale and zero point ")
            return _C.tensor([1.0]), _C.tensor([0])
        lo, hi = self._non_linear_param_search()
        return self._calculate_qparams(lo, hi)


class PlaceholderObserver(ObserverBase):
    """Observes nothing: it carries dtype (and the range) to convert, for
    dynamic quantization and float16."""

    def __init__(self, dtype=None, custom_op_name="", compute_dtype=None, quant_min=None,
                 quant_max=None, qscheme=None, eps=None, is_dynamic=False):
        dtype = _C.float32 if dtype is None else dtype
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        if qscheme is None:
            qscheme = _q.per_tensor_affine
        if eps is None:
            eps = _EPS
        self.quant_min, self.quant_max, self.qscheme, self.eps = quant_min, quant_max, qscheme, eps
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")


class RecordingObserver(ObserverBase):
    """Keeps every tensor it sees (debugging)."""

    def __init__(self, dtype=None):
        super().__init__(dtype=_C.quint8 if dtype is None else dtype)
        self.tensor_val = []

    def forward(self, x):
        self.tensor_val.append(x.clone())
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for RecordingObserver")

    def get_tensor_value(self):
        return self.tensor_val


class NoopObserver(ObserverBase):
    """Observes nothing; dtype float16 by default (weights cast, not quantized)."""

    def __init__(self, dtype=_C.float16, custom_op_name=""):
        super().__init__(dtype=dtype)
        self.dtype = dtype
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for NoopObserver")


class FixedQParamsObserver(ObserverBase):
    """Qparams fixed in advance (ops with a known output range: sigmoid,
    tanh, hardsigmoid, softmax in PyTorch's default qconfig mappings)."""

    def __init__(self, scale, zero_point, dtype=_C.quint8, qscheme=None, quant_min=0,
                 quant_max=255, is_dynamic=False, **kwargs):
        if is_dynamic:
            raise NotImplementedError("FixedQParamsObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.register_buffer("scale", _C.tensor([float(scale)]))
        self.register_buffer("zero_point", _C.tensor([int(zero_point)], dtype=_C.int32))
        self.qscheme = _q.per_tensor_affine if qscheme is None else qscheme

    def forward(self, x):
        return x

    def calculate_qparams(self):
        return self.scale, self.zero_point


class ReuseInputObserver(ObserverBase):
    """Observes nothing: the op's output takes its input's qparams (reshape)."""

    def __init__(self):
        super().__init__(dtype=_C.quint8, is_dynamic=False)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise AssertionError("calculate_qparams should not be called for ReuseInputObserver")


_SMALL_SCALE = 6.1e-5  # PyTorch cuts smaller scales off at this (float32) value


def choose_qparams(lo, hi, qmin, qmax, preserve_sparsity=False, reduce_range=False):
    """PyTorch's C++ choose of (scale, zero_point) for values in [lo, hi]
    (dynamic quantization, the fused QAT fake quantizer): the range widened
    to hold 0 (made symmetric first with preserve_sparsity), small scales
    raised to 6.1e-5, the zero point taken from whichever end gives the
    smaller error, then nudged into range.  lo and hi are float32 values as
    in PyTorch; scale is a double."""
    f = np.float32
    lo, hi = f(lo), f(hi)
    if reduce_range:
        qmin, qmax = int(qmin / 2), int(qmax / 2)  # C's division, toward zero
    symmetric = preserve_sparsity and lo < 0 and hi > 0
    if symmetric:
        sym_min, sym_max = -((qmax - qmin) // 2 + 1), (qmax - qmin) // 2
        max_scale = float(max(abs(f(lo / f(sym_min))), abs(f(hi / f(sym_max)))))
        lo, hi = f(max_scale * sym_min), f(max_scale * sym_max)
    lo, hi = min(lo, f(0)), max(hi, f(0))
    scale = (float(hi) - float(lo)) / (qmax - qmin)
    if f(scale) == 0 or math.isinf(f(1) / f(scale)):
        scale = 0.1
    small = f(_SMALL_SCALE)
    if scale < float(small):
        amplifier = f(small / scale)
        scale = float(small)
        if lo == 0:
            hi = f(small * f(qmax - qmin))
        elif hi == 0:
            lo = f(-small * f(qmax - qmin))
        else:
            lo, hi = f(lo * amplifier), f(hi * amplifier)
    zp_min, zp_max = qmin - float(lo) / scale, qmax - float(hi) / scale
    err_min = abs(qmin) - abs(float(lo) / scale)
    err_max = abs(qmax) - abs(float(hi) / scale)
    zp = zp_min if err_min < err_max else zp_max
    if symmetric:
        zp = (qmin + qmax) / 2
    zp = qmin if zp < qmin else qmax if zp > qmax else int(round(zp))  # round: half to even
    return scale, zp


def _choose_qparams_dynamic(x, dtype, reduce_range):
    """(scale, zero_point) of dynamic quantization, from x's min and max."""
    qmin, qmax = (0, 255) if dtype is _C.quint8 else (-128, 127)
    lo = x.min().item() if x.numel() else 0.0
    hi = x.max().item() if x.numel() else 0.0
    return choose_qparams(lo, hi, qmin, qmax, False, reduce_range)


def get_observer_state_dict(mod):
    """The observers' state (min/max buffers) of every submodule."""
    import collections
    od = collections.OrderedDict()
    for k, v in mod.state_dict().items():
        if "observer" in k or "activation_post_process" in k:
            od[k] = v
    return od


def load_observer_state_dict(mod, obs_dict):
    mod.load_state_dict(obs_dict, strict=False)


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = MinMaxObserver.with_args(dtype=_C.qint8,
                                                   qscheme=_q.per_tensor_symmetric)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=_C.qint8, qscheme=_q.per_channel_symmetric)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=_C.quint8, quant_min=0, quant_max=255, is_dynamic=True)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=_C.quint8, qscheme=_q.per_channel_affine_float_qparams, ch_axis=0)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=_C.qint8, qscheme=_q.per_tensor_symmetric, quant_min=-127, quant_max=127,
    eps=2 ** -12)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=_C.qint8, qscheme=_q.per_channel_symmetric, quant_min=-127, quant_max=127,
    eps=2 ** -12)
