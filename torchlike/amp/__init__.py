"""torchlike.amp: automatic mixed precision (``autocast``) and dynamic loss
scaling (``GradScaler``), as torch.amp."""
from .autocast_mode import (autocast, clear_autocast_cache, get_autocast_dtype,  # noqa: F401
                            is_autocast_available, is_autocast_cache_enabled, is_autocast_enabled)
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype", "is_autocast_cache_enabled", "clear_autocast_cache"]
