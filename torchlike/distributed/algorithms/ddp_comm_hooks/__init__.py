"""DDP communication hooks: ``hook(state, bucket) -> Future[Tensor]``,
registered with ``DistributedDataParallel.register_comm_hook``."""
from . import default_hooks  # noqa: F401
from .default_hooks import GradBucket  # noqa: F401
