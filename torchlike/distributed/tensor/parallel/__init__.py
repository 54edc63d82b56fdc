"""torchlike.distributed.tensor.parallel: tensor parallelism over DTensor,
as torch.distributed.tensor.parallel."""
from .._api import distribute_module
from .api import parallelize_module
from .loss import loss_parallel
from .style import (ColwiseParallel, ParallelStyle, PrepareModuleInput,
                    PrepareModuleInputOutput, PrepareModuleOutput, RowwiseParallel,
                    SequenceParallel)

__all__ = ["parallelize_module", "ColwiseParallel", "RowwiseParallel", "SequenceParallel",
           "PrepareModuleInput", "PrepareModuleOutput", "PrepareModuleInputOutput",
           "ParallelStyle", "distribute_module", "loss_parallel"]
