"""The option types of FullyShardedDataParallel, as torch.distributed.fsdp
spells them: the sharding strategies, mixed precision, CPU offload, the
state-dict kinds and their configurations."""
import enum
from dataclasses import dataclass
from typing import NamedTuple, Optional

__all__ = ["ShardingStrategy", "BackwardPrefetch", "MixedPrecision", "CPUOffload",
           "StateDictType", "StateDictConfig", "FullStateDictConfig", "LocalStateDictConfig",
           "ShardedStateDictConfig", "OptimStateDictConfig", "FullOptimStateDictConfig",
           "LocalOptimStateDictConfig", "ShardedOptimStateDictConfig", "StateDictSettings",
           "OptimStateKeyType"]


class ShardingStrategy(enum.Enum):
    """FULL_SHARD: parameters, gradients and optimizer state sharded; the
    full parameters exist only while a unit runs (forward and backward).
    SHARD_GRAD_OP: the full parameters are kept from forward to the end of
    the unit's backward.  NO_SHARD: every rank keeps everything and the
    gradients are all-reduced (DDP).  The hybrid strategies are not
    implemented."""
    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    """Accepted; the all-gathers here are issued when backward needs them."""
    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


@dataclass
class MixedPrecision:
    """param_dtype: the dtype the full parameters are gathered in (and the
    computation runs in); reduce_dtype: the dtype gradients are reduced in
    (default param_dtype); buffer_dtype: the dtype buffers are cast to."""
    param_dtype: Optional[object] = None
    reduce_dtype: Optional[object] = None
    buffer_dtype: Optional[object] = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = ()


@dataclass
class CPUOffload:
    """offload_params: keep the shards on the CPU.  Everything here already
    lives on the CPU, so this is recorded and changes nothing."""
    offload_params: bool = False


class StateDictType(enum.Enum):
    FULL_STATE_DICT = enum.auto()
    LOCAL_STATE_DICT = enum.auto()
    SHARDED_STATE_DICT = enum.auto()


@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


class StateDictSettings(NamedTuple):
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig


class OptimStateKeyType(enum.Enum):
    PARAM_NAME = enum.auto()
    PARAM_ID = enum.auto()
