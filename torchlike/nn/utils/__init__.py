"""torchlike.nn.utils: gradient clipping, parameter/vector conversion,
sequence packing (``rnn``), parametrizations (and the older hook-based
``weight_norm`` / ``spectral_norm``), pruning (``prune``),
``stateless.functional_call``, ``skip_init``, conv/batch-norm fusion and the
conversion of conv weights to a memory format."""
from . import rnn  # noqa: F401
from . import parametrize  # noqa: F401
from . import parametrizations  # noqa: F401
from . import prune  # noqa: F401
from . import stateless  # noqa: F401
from .clip_grad import (clip_grad_norm_, clip_grad_norm, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: F401
from .memory_format import (convert_conv2d_weight_memory_format,  # noqa: F401
                            convert_conv3d_weight_memory_format)
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401
