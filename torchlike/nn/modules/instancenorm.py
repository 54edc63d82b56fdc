"""torch.nn.modules.instancenorm: the instance-norm classes under PyTorch's
module path; they live in normalization.py."""
from .normalization import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,  # noqa: F401
                            LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d,
                            _InstanceNorm, _LazyInstanceNorm)

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
