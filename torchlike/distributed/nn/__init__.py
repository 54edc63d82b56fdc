"""torchlike.distributed.nn: ``functional``, collectives that autograd
differentiates through."""
from . import functional  # noqa: F401
