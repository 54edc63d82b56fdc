"""torch.quantization: PyTorch's older name of torch.ao.quantization."""
from .ao.quantization import *  # noqa: F401,F403
from .ao.quantization import (observer, fake_quantize, qconfig, stubs,  # noqa: F401
                              quantize_dynamic, prepare, convert, fuse_modules, QConfig,
                              get_default_qconfig)
