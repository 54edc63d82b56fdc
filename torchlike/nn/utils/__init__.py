"""torchlike.nn.utils: gradient clipping, parameter/vector conversion, and
the sequence helpers of ``nn.utils.rnn``."""
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
