"""torch.sparse: products, sums and softmaxes of sparse tensors
(docs/sparse.md; the layouts and the tensor type are torchlike._sparse's)."""
from .._sparse import (mm, addmm, sum, softmax, log_softmax, sampled_addmm,  # noqa: F401
                       spdiags)
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc  # noqa: F401

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sampled_addmm", "spdiags",
           "check_sparse_tensor_invariants"]


class check_sparse_tensor_invariants:
    """PyTorch's switch for checking sparse tensors' invariants on creation.
    torchlike always checks them (an out-of-range index never reaches a
    kernel), so entering, leaving and the class methods change nothing."""

    def __init__(self, enable=True):
        self.enable = enable

    @staticmethod
    def is_enabled():
        return True

    @staticmethod
    def enable():
        pass

    @staticmethod
    def disable():
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
