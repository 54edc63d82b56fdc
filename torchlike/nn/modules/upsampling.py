"""torch.nn.modules.upsampling: the upsampling layers under PyTorch's module path; they live in
misc.py."""
from .misc import (Upsample, UpsamplingBilinear2d, UpsamplingNearest2d)  # noqa: F401

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
