"""torchlike.distributed.tensor.debug: ``CommDebugMode``, which counts the
collectives DTensor issues, as torch.distributed.tensor.debug."""
from ._comm_mode import CommDebugMode

__all__ = ["CommDebugMode"]
