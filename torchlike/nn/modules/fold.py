"""torch.nn.modules.fold: the fold layers under PyTorch's module path; they live in
misc.py."""
from .misc import (Fold, Unfold)  # noqa: F401

__all__ = ["Fold", "Unfold"]
