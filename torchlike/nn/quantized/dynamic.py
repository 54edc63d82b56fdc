"""torch.nn.quantized.dynamic: PyTorch's older name of torch.ao.nn.quantized.dynamic."""
from ...ao.nn.quantized.dynamic import *  # noqa: F401,F403
