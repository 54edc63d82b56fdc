"""torch.ao.nn: quantized and fused modules."""
from . import quantized, intrinsic, qat, quantizable  # noqa: F401
