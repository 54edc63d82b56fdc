"""torch.ao.nn.intrinsic.quantized: the quantized fused modules (linear or
conv with the relu applied in the output grid)."""
from ...quantized.modules import LinearReLU, ConvReLU1d, ConvReLU2d  # noqa: F401

__all__ = ["LinearReLU", "ConvReLU1d", "ConvReLU2d"]
