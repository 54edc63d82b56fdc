"""torchlike.distributed.algorithms: DDP communication hooks."""
from . import ddp_comm_hooks  # noqa: F401
