"""torch.ao.nn: quantized and fused modules."""
from . import quantized, intrinsic  # noqa: F401
