"""torchlike.cuda: GPU queries.  On a machine without a GPU, or a build without
CUDA, ``is_available()`` is False and ``device_count()`` is 0."""
from .. import _C


def device_count():
    """Number of CUDA devices this process can use."""
    return _C._cuda_device_count()


def is_available():
    """True when at least one CUDA device can be used."""
    return device_count() > 0


from .random import (  # noqa: E402,F401  (torch.cuda's seeding functions)
    manual_seed, manual_seed_all, seed, seed_all, initial_seed, get_rng_state,
    get_rng_state_all, set_rng_state, set_rng_state_all)

from .memory import *  # noqa: E402,F401,F403  (torch.cuda's memory functions)
from .memory import OutOfMemoryError  # noqa: E402,F401
