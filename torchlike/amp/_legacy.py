"""The deprecated per-device spellings ``torch.cpu.amp`` and
``torch.cuda.amp``: the same classes with the device fixed and a
FutureWarning naming the new spelling."""
import warnings

from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


def legacy_classes(device, default_dtype):
    """(autocast, GradScaler) subclasses bound to ``device``."""

    class autocast(_autocast):
        def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
            warnings.warn(f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000, enabled=True):
            warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                          f"`torch.amp.GradScaler('{device}', args...)` instead.", FutureWarning,
                          stacklevel=2)
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval,
                             enabled=enabled)

    autocast.__doc__ = f"``torchlike.{device}.amp.autocast(...)`` is ``torchlike.amp.autocast('{device}', ...)``."
    GradScaler.__doc__ = f"``torchlike.{device}.amp.GradScaler(...)`` is ``torchlike.amp.GradScaler('{device}', ...)``."
    autocast.__module__ = GradScaler.__module__ = f"torchlike.{device}.amp"
    return autocast, GradScaler
