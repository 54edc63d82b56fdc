"""torch.ao.nn.intrinsic.quantized: the quantized fused modules (linear or
conv with the relu applied in the output grid, batch norm + relu; the
onednn-only ones in onednn.py)."""
from ...quantized.modules import LinearReLU, ConvReLU1d, ConvReLU2d, ConvReLU3d  # noqa: F401
from ...quantized.float_op_modules import BNReLU2d, BNReLU3d  # noqa: F401
from .onednn import LinearLeakyReLU, LinearTanh, ConvAdd2d, ConvAddReLU2d  # noqa: F401

__all__ = ["LinearReLU", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "BNReLU2d", "BNReLU3d",
           "LinearLeakyReLU", "LinearTanh", "ConvAdd2d", "ConvAddReLU2d"]
