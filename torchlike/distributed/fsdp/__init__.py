"""torchlike.distributed.fsdp: Fully Sharded Data Parallel, as
torch.distributed.fsdp (see docs/distributed.md)."""
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig,  # noqa: F401
                  FullStateDictConfig, LocalOptimStateDictConfig, LocalStateDictConfig,
                  MixedPrecision, OptimStateDictConfig, OptimStateKeyType,
                  ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401
from . import wrap  # noqa: F401
from ._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy,  # noqa: F401
                           OffloadPolicy, UnshardHandle, fully_shard,
                           register_fsdp_forward_method)
