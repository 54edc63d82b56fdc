"""The layer library: every class PyTorch's torch.nn.modules exports that
torchlike implements so far."""
from .module import Module  # noqa: F401
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .linear import NonDynamicallyQuantizableLinear  # noqa: F401
from .activation import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .misc import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .lazy import LazyModuleMixin  # noqa: F401
from .linear_cross_entropy import LinearCrossEntropyLoss  # noqa: F401
from .._linear_cross_entropy import LinearCrossEntropyOptions  # noqa: F401
# PyTorch's module paths for classes that live in the files above, and the
# argument helpers (torch.nn.modules.utils._pair ...)
from . import (batchnorm, channelshuffle, distance, flatten, fold, instancenorm,  # noqa: F401
               padding, pixelshuffle, upsampling, utils)
