"""torch.nn.quantized: PyTorch's older name of torch.ao.nn.quantized."""
from ...ao.nn.quantized import *  # noqa: F401,F403
from ...ao.nn.quantized import functional, dynamic  # noqa: F401
