"""torchlike.nn.parallel: ``DataParallel`` (one device: see its docstring)
and ``DistributedDataParallel`` (one process per replica, over
torchlike.distributed)."""
from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel"]
