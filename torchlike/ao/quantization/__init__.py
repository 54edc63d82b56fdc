"""torch.ao.quantization (also torch.quantization): eager-mode quantization
of float models — observers, fake quantization, qconfigs, stubs, module
fusion, prepare / convert and quantize_dynamic (docs/quantization.md)."""
from .observer import *  # noqa: F401,F403
from .fake_quantize import *  # noqa: F401,F403
from .qconfig import *  # noqa: F401,F403
from .qconfig import get_default_qconfig_dict  # noqa: F401
from .stubs import *  # noqa: F401,F403
from .fuse_modules import *  # noqa: F401,F403
from .quantize import *  # noqa: F401,F403
from .quantize import swap_module  # noqa: F401
from .qconfig_mapping import *  # noqa: F401,F403
from . import (observer, qconfig_mapping, backend_config, quantize_fx, utils,  # noqa: F401
               fake_quantize, qconfig, stubs, quantize)
from ..._quantized import (quantize_per_tensor, quantize_per_channel,  # noqa: F401
                           dequantize)
