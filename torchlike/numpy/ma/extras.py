"""``torchlike.numpy.ma.extras``: the names of ``numpy.ma.extras`` that
``torchlike.numpy.ma`` has (every one of NumPy's ``__all__``), the same
objects as the package's."""
import sys as _sys

import numpy as _numpy

_ma = _sys.modules[__package__]
__all__ = [n for n in _numpy.ma.extras.__all__ if hasattr(_ma, n)]
globals().update({n: getattr(_ma, n) for n in __all__})
del _sys, _numpy
