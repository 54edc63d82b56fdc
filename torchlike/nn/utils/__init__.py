"""torchlike.nn.utils: gradient clipping, parameter/vector conversion,
sequence packing (``rnn``), parametrizations, ``stateless.functional_call``
and conv/batch-norm fusion."""
from . import rnn  # noqa: F401
from . import parametrize  # noqa: F401
from . import parametrizations  # noqa: F401
from . import stateless  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval  # noqa: F401
