"""Normalisation layers: BatchNorm, InstanceNorm, LayerNorm, GroupNorm,
RMSNorm and LocalResponseNorm.

BatchNorm keeps running statistics as buffers (running_mean, running_var,
num_batches_tracked); with ``momentum=None`` the running statistics are the
cumulative average over the batches seen (factor 1 / num_batches_tracked)."""
import numbers

from ... import _C
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm",
           "LocalResponseNorm"]


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
        # checkpoints from before num_batches_tracked existed load as 0 batches
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict and \
                local_metadata.get("version", 2) < 2:
            state_dict[key] = _C.tensor(0, dtype=_C.int64)
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
    """BatchNorm over any number of dims (one process: no synchronisation)."""

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")


class _InstanceNorm(_NormBase):
    _batched_ndim = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        n = self._batched_ndim
        if input.ndim not in (n, n - 1):
            raise ValueError(f"expected {n - 1}D or {n}D input (got {input.ndim}D input)")
        unbatched = input.ndim == n - 1
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
            raise ValueError("num_channels must be divisible by num_groups")
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
