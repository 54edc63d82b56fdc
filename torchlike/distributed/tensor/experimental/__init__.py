"""torchlike.distributed.tensor.experimental: ``implicit_replication``, as
torch.distributed.tensor.experimental."""
from contextlib import contextmanager

from .. import _ops

__all__ = ["implicit_replication"]


@contextmanager
def implicit_replication():
    """Within it, a plain tensor given to an op beside DTensors is taken as
    replicated on their mesh (instead of raising "got mixed torch.Tensor
    and DTensor"): every rank must hold the same values."""
    before = _ops.IMPLICIT_REPLICATION[0]
    _ops.IMPLICIT_REPLICATION[0] = True
    try:
        yield
    finally:
        _ops.IMPLICIT_REPLICATION[0] = before
