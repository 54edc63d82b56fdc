"""torch.nn.modules.flatten: the flatten layers under PyTorch's module path; they live in
misc.py."""
from .misc import (Flatten, Unflatten)  # noqa: F401

__all__ = ["Flatten", "Unflatten"]
