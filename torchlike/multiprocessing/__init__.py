"""torchlike.multiprocessing: the standard ``multiprocessing`` module with
tensors that cross processes through shared memory, as ``torch.multiprocessing``.

Everything of :mod:`multiprocessing` is here under the same names.  What
changes is how a tensor is pickled on its way to another process (a
``Queue``, a ``Pipe``, ``Pool.map``, the arguments of a spawned ``Process``):
its storage moves into shared memory in place (:meth:`Tensor.share_memory_`)
and only a handle crosses, so the receiver gets a view of the same memory,
not a copy.  Two sharing strategies, as in PyTorch:

* ``"file_descriptor"`` (the default): an anonymous file whose descriptor is
  passed over a Unix socket.  The kernel frees the memory when the last
  process lets go, also when a process is killed.  Each shared storage keeps
  one descriptor open.
* ``"file_system"``: a named segment in ``/dev/shm``; no descriptor is kept.
  A count in the segment removes its name when the last mapping goes, and a
  cleanup process removes what a crashed process left when every process
  that used it has exited.

:func:`spawn` starts ``nprocs`` processes running ``fn(i, *args)`` and raises
a child's error in the parent with the child's traceback."""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
           "ProcessExitedException"]
__all__ += multiprocessing.__all__

_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Set the strategy for sharing CPU tensors: ``"file_descriptor"`` or
    ``"file_system"`` (see :func:`get_all_sharing_strategies`)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise ValueError(f"unknown sharing strategy {new_strategy!r}: expected one of "
                         f"{sorted(_all_sharing_strategies)}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return set(_all_sharing_strategies)


init_reductions()
