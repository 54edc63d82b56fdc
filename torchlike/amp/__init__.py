"""torchlike.amp: automatic mixed precision (``autocast``) and dynamic loss
scaling (``GradScaler``), as torch.amp; ``custom_fwd``/``custom_bwd`` for
custom autograd Functions inside autocast regions."""
from .autocast_mode import (autocast, clear_autocast_cache, custom_bwd, custom_fwd,  # noqa: F401
                            get_autocast_dtype, is_autocast_available, is_autocast_cache_enabled,
                            is_autocast_enabled)
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype", "is_autocast_cache_enabled", "clear_autocast_cache", "custom_fwd",
           "custom_bwd"]
