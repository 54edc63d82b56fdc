"""torchlike.distributed.pipelining: pipeline parallelism, as PyTorch's
``torch.distributed.pipelining``.

A model is cut into stages (by hand, or by ``pipeline()`` through
torchlike.fx tracing), each stage lives on a rank of a process group, and
a schedule runs the microbatches of each batch through them, forward and
backward, exchanging activations and gradients point to point::

    stage = PipelineStage(part, rank, world, torch.device("cpu"))
    schedule = ScheduleGPipe(stage, n_microbatches=4, loss_fn=loss_fn)
    if rank == 0:
        schedule.step(x)
    else:
        losses = []
        out = schedule.step(target=y, losses=losses)
    opt.step()

See docs/distributed.md (Pipeline parallelism)."""
from ._IR import Pipe, SplitPoint, pipe_split, pipeline  # noqa: F401
from .schedules import (PipelineScheduleMulti, PipelineScheduleSingle,  # noqa: F401
                        Schedule1F1B, ScheduleDualPipeV, ScheduleGPipe, ScheduleInterleaved1F1B,
                        ScheduleInterleavedZeroBubble, ScheduleLoopedBFS, ScheduleZBVZeroBubble,
                        _ScheduleForwardOnly)
from . import microbatch, schedules, stage  # noqa: F401
from .stage import PipelineStage, build_stage  # noqa: F401

__all__ = ["Pipe", "pipe_split", "SplitPoint", "pipeline", "PipelineStage", "build_stage",
           "Schedule1F1B", "ScheduleGPipe", "ScheduleInterleaved1F1B", "ScheduleLoopedBFS",
           "ScheduleInterleavedZeroBubble", "ScheduleZBVZeroBubble", "ScheduleDualPipeV"]
