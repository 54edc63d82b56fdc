"""torch.nn.modules.distance: the distance layers under PyTorch's module path; they live in
misc.py."""
from .misc import (CosineSimilarity, PairwiseDistance)  # noqa: F401

__all__ = ["CosineSimilarity", "PairwiseDistance"]
