"""torchlike.nn.parallel: ``DataParallel`` (one device: see its docstring)."""
from .data_parallel import DataParallel  # noqa: F401

__all__ = ["DataParallel"]
