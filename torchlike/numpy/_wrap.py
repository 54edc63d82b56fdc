"""NumPy's own functions called with tensors: the first argument becomes a
tensor, so a function that dispatches (``__array_function__``, ufuncs) runs
NumPy's code on torchlike ops or takes the fallback rule, and the result is a
tensor even for lists and scalars.  Functions that do not dispatch on arrays
(``np.isscalar``, ``np.seterr``) are handed out as they are."""
import numpy as np

from .. import _C
from .._array_function import as_tensor


def dispatches(func):
    """Whether NumPy hands calls of ``func`` to its array arguments' overrides."""
    return isinstance(func, np.ufunc) or hasattr(func, "_implementation")


def numpy_function(func, name):
    if not dispatches(func):
        return func

    def call(*args, **kwargs):
        if args and not isinstance(args[0], _C.Tensor):
            args = (as_tensor(args[0]),) + args[1:]
        return func(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = func.__doc__
    return call
