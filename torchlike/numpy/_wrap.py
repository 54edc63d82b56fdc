"""NumPy's own functions called from the namespace (its module ``__getattr__``,
``emath``): a function that dispatches on arrays gets its first argument as a
tensor when that is array data (a list, a number, an ndarray), so NumPy's code
runs on torchlike ops or the fallback rule takes it and the result is a
tensor; other first arguments (a file name, a function, a subscripts string)
and the arguments of functions that do not dispatch (``np.isscalar``,
``np.seterr``) go as they are.  An ndarray NumPy returns all the same (from
``np.indices``, ``np.fromfunction``, ``np.loadtxt``: no array went in) is host
data and becomes a tensor on the default device, as ``asarray`` makes it."""
import numpy as np

from .. import _C
from .._array_function import _NATIVE, as_tensor, numbers_device

_DATA = (list, tuple, bool, int, float, complex, np.ndarray, np.generic)


def dispatches(func):
    """Whether NumPy hands calls of ``func`` to its array arguments' overrides."""
    return isinstance(func, np.ufunc) or hasattr(func, "_implementation")


def tensors(result):
    """NumPy's result with its ndarrays as tensors on the default device."""
    # only dtypes torchlike has (str, object, longdouble ... stay ndarrays);
    # np.matrix results (np.asmatrix, np.bmat) stay NumPy's matrices, whose *
    # is the matrix product
    if isinstance(result, np.ndarray) and result.dtype.name in _NATIVE and \
            not isinstance(result, np.matrix):
        from ._creation import asarray
        return asarray(result)
    if isinstance(result, (tuple, list)):
        items = [tensors(r) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    return result


# functions whose first argument, given as a list, is a sequence of arrays
# (NumPy reads a list of D samples' coordinates differently from a 2-d array)
_SEQUENCE_FIRST = {"histogramdd"}

# functions whose first argument, given as a list or tuple, holds arrays of
# their own shapes (ravel_multi_index's coordinates broadcast, lexsort refuses
# keys of two shapes with its ValueError): each item becomes a tensor, where
# one tensor of them all could not be stacked, and they go as a tuple, whose
# items NumPy's dispatch looks at (lexsort's looks at a list as one array)
_ITEMS_FIRST = {"ravel_multi_index", "lexsort"}


# functions that do not dispatch and read their arguments as Python numbers
# (a window's length and beta, diag_indices' size): a count the program
# computed (np.count_nonzero(mask), a 0-d tensor) is given as its number,
# which NumPy cannot read from a device's memory itself
_NUMBERS_ONLY = {"bartlett", "blackman", "hamming", "hanning", "kaiser", "diag_indices"}


def _number(x):
    return x.item() if isinstance(x, _C.Tensor) and x.ndim == 0 else x


# functions that format one number: a 0-d tensor (an element read, a
# reduction's result) is the NumPy scalar of its dtype, whose shortest digits
# they print ('0.1' for a float32 element, not its float64 value's digits)
_SCALAR_FIRST = {"format_float_positional", "format_float_scientific"}


def _numpy_scalar(x):
    if not (isinstance(x, _C.Tensor) and x.ndim == 0):
        return x
    x = x.detach().cpu()
    return np.float32(x.item()) if x.dtype == _C.bfloat16 else x.numpy()[()]


def _placed(data, args, kwargs):
    """Array data as a tensor where the call computes: a list beside device
    tensors (np.convolve([1, 2], t)) goes to their device, as the lists of a
    call on them do (an ndarray is host memory, which the call refuses);
    numbers alone (np.polyadd([1, 2], [1, 0, 0]), np.roots([1, 0, -8])) go to
    the default device, as np.asarray of them does."""
    if isinstance(data, _C.Tensor):
        return data
    tensor = as_tensor(data)
    device = None if isinstance(data, np.ndarray) else \
        _C._offhost_device(args, kwargs) or numbers_device(args, kwargs)
    return tensor if device is None else tensor.to(device)


def numpy_function(func, name):
    takes_arrays = dispatches(func)
    sequence_first = name in _SEQUENCE_FIRST
    items_first = name in _ITEMS_FIRST
    numbers_only = name in _NUMBERS_ONLY
    scalar_first = name in _SCALAR_FIRST

    def call(*args, **kwargs):
        if numbers_only:
            args = tuple(_number(a) for a in args)
            kwargs = {k: _number(v) for k, v in kwargs.items()}
        if scalar_first and args:
            args = (_numpy_scalar(args[0]),) + args[1:]
        if sequence_first and args and isinstance(args[0], (list, tuple)):
            pass
        elif items_first and args and isinstance(args[0], (list, tuple)):
            args = (tuple(_placed(a, args, kwargs) for a in args[0]),) + args[1:]
        elif takes_arrays and args and isinstance(args[0], _DATA):
            args = (_placed(args[0], args, kwargs),) + args[1:]
        result = func(*args, **kwargs)
        out = kwargs.get("out")
        if result is not None and (result is out or isinstance(out, tuple) and result is out[0]):
            return result  # NumPy hands back the caller's own out= (an ndarray too)
        return tensors(result)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = func.__doc__
    call.__wrapped__ = func
    if isinstance(func, np.ufunc):
        from ._elementwise import give_ufunc_surface
        give_ufunc_surface(call, func)
    return call
