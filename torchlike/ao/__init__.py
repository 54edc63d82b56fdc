"""torch.ao: quantization (docs/quantization.md); loaded on first use."""
from . import nn, quantization  # noqa: F401
