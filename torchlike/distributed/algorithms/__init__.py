"""torchlike.distributed.algorithms: DDP communication hooks and the
``Join`` context manager for uneven inputs."""
from . import ddp_comm_hooks  # noqa: F401
from .join import Join, Joinable, JoinHook  # noqa: F401
