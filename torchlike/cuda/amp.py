"""torchlike.cuda.amp: the deprecated ``torch.cuda.amp`` spellings of
autocast, GradScaler, custom_fwd and custom_bwd. Without a GPU both warn and disable themselves,
as PyTorch on a CPU-only build."""
import warnings

import torchlike
from ..amp._legacy import legacy_classes

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = legacy_classes("cuda", torchlike.float16)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: ``torchlike.amp.custom_fwd(..., device_type="cuda")``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return torchlike.amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: ``torchlike.amp.custom_bwd(..., device_type="cuda")``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return torchlike.amp.custom_bwd(bwd, device_type="cuda")
