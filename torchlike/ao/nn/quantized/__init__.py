"""torch.ao.nn.quantized (also torch.nn.quantized): quantized modules,
their functional forms and the dynamic modules (docs/quantization.md)."""
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .embedding import Embedding, EmbeddingBag  # noqa: F401
from .prelu import PReLU  # noqa: F401
from .mha import MultiheadAttention  # noqa: F401
from .float_op_modules import *  # noqa: F401,F403
from .float_op_modules import __all__ as _float_op_all
from . import functional, dynamic, reference  # noqa: F401

__all__ = list(_modules_all) + list(_float_op_all) + [
    "Embedding", "EmbeddingBag", "PReLU", "MultiheadAttention", "functional", "reference",
    "dynamic"]
