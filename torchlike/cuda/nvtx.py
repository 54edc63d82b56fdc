"""torchlike.cuda.nvtx: NVTX ranges and marks, shaped like ``torch.cuda.nvtx``.

With CUDA in the build they are NVTX3's calls (src/gpu/nvtx.c), seen by a
profiler such as Nsight Systems; without a profiler attached, and in a build
without CUDA, they do nothing and answer as NVTX does then (push and pop
-2, range_start 0), so annotated code runs unchanged everywhere."""
from contextlib import contextmanager

from .. import _C

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def range_push(msg):
    """Open a nested range named ``msg``; the depth it starts at (-2: no profiler)."""
    return _C._nvtx_range_push(msg)


def range_pop():
    """Close the innermost range range_push opened; the depth it ended at."""
    return _C._nvtx_range_pop()


def range_start(msg) -> int:
    """Start a range that may end on another thread; its id, for range_end."""
    return _C._nvtx_range_start(msg)


def range_end(range_id) -> None:
    """End the range range_start returned ``range_id`` for."""
    _C._nvtx_range_end(range_id)


def mark(msg):
    """An instantaneous event named ``msg``."""
    _C._nvtx_mark(msg)


@contextmanager
def range(msg, *args, **kwargs):
    """``with nvtx.range("step {}", i):`` pushes ``msg.format(*args, **kwargs)``
    for the block and pops it after."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
