"""``np.emath``: NumPy's math with automatic domain (the square root or
logarithm of a negative real is complex), on tensors.  NumPy's own code runs
with the tensors (``Tensor.__array_function__``), so the results are tensors
on the input's device; the choice of a complex result reads whether any input
is negative, one value brought to the host."""
import numpy as _np

from ._wrap import numpy_function

__all__ = ["sqrt", "log", "log2", "logn", "log10", "power", "arccos", "arcsin", "arctanh"]

for _name in __all__:
    globals()[_name] = numpy_function(getattr(_np.emath, _name), _name)
del _name
