"""torch.nn.modules.batchnorm: the batch-norm classes under PyTorch's module
path (code subclasses _BatchNorm or tests isinstance against it); they live
in normalization.py."""
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d,  # noqa: F401
                            LazyBatchNorm2d, LazyBatchNorm3d, SyncBatchNorm, _BatchNorm,
                            _LazyNormBase, _NormBase)

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d", "SyncBatchNorm"]
