"""torch.nn.modules.pixelshuffle: the pixel-shuffle layers under PyTorch's module path; they live in
misc.py."""
from .misc import (PixelShuffle, PixelUnshuffle)  # noqa: F401

__all__ = ["PixelShuffle", "PixelUnshuffle"]
