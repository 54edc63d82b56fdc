"""Normalisation layers: BatchNorm, InstanceNorm (and their Lazy forms),
LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d.

BatchNorm keeps running statistics as buffers (running_mean, running_var,
num_batches_tracked); with ``momentum=None`` the running statistics are the
cumulative average over the batches seen (factor 1 / num_batches_tracked)."""
import numbers
import warnings

from ... import _C
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from ._sync_batch_norm import SyncBatchNormFunction
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm",
           "LocalResponseNorm", "CrossMapLRN2d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


def _make_affine(module, shape, affine, bias, kw):
    """Register ``weight`` (and ``bias`` unless ``bias`` is False) of ``shape``,
    or None for both without ``affine``; they start at ones and zeros."""
    if affine:
        module.weight = Parameter(_C.empty(shape, **kw))
        if bias:
            module.bias = Parameter(_C.empty(shape, **kw))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


class _NormBase(Module):
    """Affine parameters and running statistics shared by BatchNorm and
    InstanceNorm."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _make_affine(self, (num_features,), affine, bias, kw)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros((num_features,), **kw))
            self.register_buffer("running_var", _C.ones((num_features,), **kw))
            self.register_buffer("num_batches_tracked",
                                 _C.tensor(0, dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # checkpoints from before num_batches_tracked existed (version 1, or
        # no version: a plain dict) keep the module's count, as PyTorch's
        key = prefix + "num_batches_tracked"
        version = local_metadata.get("version")
        if self.track_running_stats and key not in state_dict and \
                (version is None or version < 2):
            count = self.num_batches_tracked
            state_dict[key] = count if count is not None else _C.tensor(0, dtype=_C.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None
                                            and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L)."""

    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W)."""

    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over any number of dims whose training statistics are those
    of the whole batch across the ranks of ``process_group`` (the default
    group when None), when torchlike.distributed is initialised and the
    group has more than one rank; otherwise (eval, one process) it is
    BatchNorm.  Unlike PyTorch, CPU tensors are supported (see
    _sync_batch_norm.py for the forward and backward)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def _sync_group(self):
        from ... import distributed as dist
        if not (self.training and dist.is_initialized()):
            return None
        pg = dist.distributed_c10d.resolve(self.process_group)
        return pg if pg is not None and pg.size() > 1 else None

    def forward(self, input):
        pg = self._sync_group()
        if pg is None:
            return super().forward(input)
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(f"expected {self.num_features} channels, got input of shape "
                             f"{tuple(input.shape)}")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        y, mean, var = SyncBatchNormFunction.apply(input, self.weight, self.bias, self.eps, pg)
        if self.track_running_stats and self.running_mean is not None:
            with no_grad():
                self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
                self.running_var.mul_(1 - factor).add_(var.detach() * factor)
        return y

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d layer in it replaced by a
        SyncBatchNorm sharing its parameters and running statistics (the same
        objects) and training flag; other modules are kept, their children
        converted in place."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats,
                                          process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module_output


class _InstanceNorm(_NormBase):
    _batched_ndim = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # a checkpoint without a version (a plain dict, or one from before
        # 0.4.0) holding running stats this module does not track: PyTorch
        # reports them in its own words (whatever strict says) and drops them
        if local_metadata.get("version") is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                name = type(self).__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {} for {} with track_running_stats=False. "
                    "If state_dict is a checkpoint saved before 0.4.0, this may be expected "
                    "because {} does not track running stats by default since 0.4.0. Please "
                    "remove these keys from state_dict. If the running stats are actually "
                    "needed, instead set track_running_stats=True in {} to enable them. See "
                    "the documentation of {} for details.".format(
                        " and ".join(f'"{k}"' for k in keys), name, name, name, name))
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        n = self._batched_ndim
        if input.ndim not in (n, n - 1):
            raise ValueError(f"expected {n - 1}D or {n}D input (got {input.ndim}D input)")
        unbatched = input.ndim == n - 1
        dim = 0 if unbatched else 1
        if input.shape[dim] != self.num_features:
            # PyTorch's check: num_features only matters for the affine parameters
            if self.affine:
                raise ValueError(f"expected input's size at dim={dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[dim]}.")
            warnings.warn(f"input's size at dim={dim} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not "
                          "used because affine=False", stacklevel=2)
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.1, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _batched_ndim = 3


class InstanceNorm2d(_InstanceNorm):
    _batched_ndim = 4


class InstanceNorm3d(_InstanceNorm):
    _batched_ndim = 5


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A BatchNorm/InstanceNorm whose ``num_features`` is ``input.shape[1]``
    of the first input (as PyTorch, also for an unbatched instance-norm
    input): until then ``weight``/``bias`` are UninitializedParameters and
    the running statistics UninitializedBuffers (``num_batches_tracked`` is
    a real 0)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        # built with neither affine parameters nor statistics, then given
        # uninitialised ones
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        with no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose ``num_features`` is taken from the first input."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose ``num_features`` is taken from the first input."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose ``num_features`` is taken from the first input."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class _LazyInstanceNorm(_LazyNormBase, _InstanceNorm):
    # NOTE: affine and track_running_stats default to True here, unlike
    # InstanceNorm's, as in PyTorch (its lazy forms share BatchNorm's defaults)
    pass


class LazyInstanceNorm1d(_LazyInstanceNorm):
    """An InstanceNorm1d whose ``num_features`` is taken from the first input."""
    cls_to_become = InstanceNorm1d
    _batched_ndim = 3


class LazyInstanceNorm2d(_LazyInstanceNorm):
    """An InstanceNorm2d whose ``num_features`` is taken from the first input."""
    cls_to_become = InstanceNorm2d
    _batched_ndim = 4


class LazyInstanceNorm3d(_LazyInstanceNorm):
    """An InstanceNorm3d whose ``num_features`` is taken from the first input."""
    cls_to_become = InstanceNorm3d
    _batched_ndim = 5


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(s) for s in normalized_shape)


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _make_affine(self, self.normalized_shape, elementwise_affine, bias, kw)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / rms(x) * weight`` over the trailing dims."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.empty(self.normalized_shape, device=device,
                                             dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Normalise each sample's channels in ``num_groups`` groups."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _make_affine(self, (num_channels,), affine, bias, dict(device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---- CrossMapLRN2d ----------------------------------------------------------------------
# Legend: N batch, C channels, H x W the map; sq = input**2 (N, C, H, W).
# PyTorch's legacy kernel sums its window of squares with a running sum that
# adds sq[c + pre_pad - 1] and, for c > pre_pad, drops sq[c - pre_pad]; so
# channel 0 is never dropped and the forward window of channel c is
# {0} U [max(1, c - pre_pad + 1), min(c + pre_pad - 1, C - 1)], with
# pre_pad = int((size - 1) / 2 + 1).  Its hand-written backward sums
# ratio = g * out / scale over [c - lead, c + size - 1 - lead], with
# lead = int(size - (size - 1) / 2), which is not the derivative of that
# forward: both are kept as PyTorch has them, so values and gradients match
# PyTorch's (and gradcheck does not hold, there as here).


def _channel_window_sums(t, lo, hi):
    """(N, C, H, W) -> (N, len(lo), H, W): sum of t[:, lo[i]..hi[i]] (inclusive,
    empty when hi < lo) through one cumulative sum."""
    zero = _C.zeros_like(t[:, :1])
    csum = _C.cat([zero, t.cumsum(1)], dim=1)   # csum[:, j] = sum of t[:, :j]
    idx = lambda v: _C.tensor(v, dtype=_C.int64, device=t.device)  # noqa: E731
    return csum.index_select(1, idx([h + 1 for h in hi])) - \
        csum.index_select(1, idx(lo))


def _cross_map_scale(input, size, alpha, k):
    C = input.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    sq = input * input
    hi = [min(c + pre_pad - 1, C - 1) for c in range(C)]
    scale = _channel_window_sums(sq, [0] * C, hi)
    # the running sum drops sq[1 .. c - pre_pad] (never sq[0])
    dropped_hi = [c - pre_pad for c in range(C)]
    if any(h >= 1 for h in dropped_hi):
        scale = scale - _channel_window_sums(sq, [1] * C, [max(h, 0) for h in dropped_hi])
    return scale * (alpha / size) + k


class _CrossMapLRN2dFunction(Function):
    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D "
                             "instead.")
        scale = _cross_map_scale(input, size, alpha, k)
        output = scale.pow(-beta) * input
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, C = ctx.size, input.shape[1]
        lead = int(size - (size - 1) / 2)          # PyTorch's inversePrePad
        ratio = grad_output * output / scale
        lo = [max(c - lead, 0) for c in range(C)]
        hi = [min(c + size - 1 - lead, C - 1) for c in range(C)]
        accum = _channel_window_sums(ratio, lo, hi)
        grad_input = scale.pow(-ctx.beta) * grad_output - \
            (2 * ctx.alpha * ctx.beta / size) * input * accum
        return grad_input, None, None, None, None


class CrossMapLRN2d(Module):
    """PyTorch's legacy cross-channel LRN of (N, C, H, W):
    ``out = input * (k + alpha / size * window sum of input**2) ** -beta``,
    with PyTorch's window and gradient (see the note above)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
