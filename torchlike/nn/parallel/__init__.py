"""torchlike.nn.parallel: ``DataParallel`` (one device: see its docstring),
``DistributedDataParallel`` (one process per replica, over
torchlike.distributed), and the pieces PyTorch builds DataParallel from:
``replicate``, ``scatter`` / ``gather`` (``scatter_gather.scatter_kwargs``),
``parallel_apply`` and the functional ``data_parallel``."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
from .parallel_apply import parallel_apply  # noqa: F401
from .replicate import replicate  # noqa: F401
from .scatter_gather import gather, scatter  # noqa: F401
from . import scatter_gather  # noqa: F401

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel",
           "DataParallel", "DistributedDataParallel"]
