"""Reference quantized modules (torch.ao.nn.quantized.reference): float
modules that hold their weight's quantization parameters and run on the
weight quantized and dequantized (``get_weight()``), the form
``convert(is_reference=True)`` and ``convert_to_reference_fx`` produce."""
from .modules import (Linear, Conv1d, Conv2d, Conv3d, ConvTranspose1d,  # noqa: F401
                      ConvTranspose2d, ConvTranspose3d, ReferenceQuantizedModule,
                      get_qparam_dict)

__all__ = ["Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]
