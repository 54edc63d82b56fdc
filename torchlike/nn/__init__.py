"""torchlike.nn: neural-network building blocks (``import torchlike.nn as nn``).

Modules, parameters and containers shaped like PyTorch's ``torch.nn``; the
stateless ops are in ``nn.functional``, the initialisers in ``nn.init``.
docs/nn.md lists what is implemented and which ops are composed from other
ops rather than fused kernels."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import parameter  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import modules  # noqa: F401
from . import attention  # noqa: F401  (SDPBackend, sdpa_kernel, flex_attention)
from . import grad  # noqa: F401  (conv*_input, conv*_weight)
from ._linear_cross_entropy import LinearCrossEntropyOptions  # noqa: F401
from .modules.linear_cross_entropy import LinearCrossEntropyLoss  # noqa: F401


def __getattr__(name):
    """torch.nn.quantized and torch.nn.intrinsic: torch.ao.nn's, loaded on first use."""
    if name in ("quantized", "intrinsic"):
        import importlib
        return importlib.import_module(f"..ao.nn.{name}", __name__)
    raise AttributeError(f"module 'torchlike.nn' has no attribute {name!r}")
