"""``torchlike.numpy.lib``: ``stride_tricks`` and ``array_utils`` on tensors;
any other name is NumPy's own ``numpy.lib`` member (``np.lib.format``,
``np.lib.scimath`` ...)."""
import numpy as _np

from . import array_utils, stride_tricks  # noqa: F401


def __getattr__(name):
    try:
        return getattr(_np.lib, name)
    except AttributeError:
        raise AttributeError(f"module 'torchlike.numpy.lib' has no attribute {name!r}") from None
