"""torch.ao.quantization.utils: helpers shared by the flows."""
from ..nn.quantized.reference.modules import get_qparam_dict  # noqa: F401

__all__ = ["get_qparam_dict"]
