"""torchlike.cuda: GPU queries.  On a machine without a GPU, or a build without
CUDA, ``is_available()`` is False and ``device_count()`` is 0."""
from .. import _C


def device_count():
    """Number of CUDA devices this process can use."""
    return _C._cuda_device_count()


def is_available():
    """True when at least one CUDA device can be used."""
    return device_count() > 0
