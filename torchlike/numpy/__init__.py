"""torchlike.numpy: NumPy's API and the Python Array API standard over tensors.

``import torchlike.numpy as np`` gives NumPy's functions (``axis=``,
``keepdims=``, ``dtype=np.float32`` or ``"float32"``), NumPy's default dtypes
(``np.asarray([1.5])`` is float64) and ``device=`` placement.  The arrays are
torchlike tensors, so everything here runs torchlike ops and is recorded on the
autograd tape.  It is also the namespace ``t.__array_namespace__()`` returns,
conforming to the Array API standard (version below), with the ``linalg`` and
``fft`` extensions.

Where things live (one file per area):
  _creation.py      asarray, zeros, ones, full, arange, linspace, eye, *_like
  _elementwise.py   the elementwise functions (sin, add, pow, clip, real ...)
  _statistical.py   reductions: sum, mean, std, max, cumulative_sum, nan*, quantile
  _manipulation.py  reshape, concat, stack, flip, roll, pad, where, take ...
  _sorting.py       sort, argsort, searchsorted, unique_*, isin
  _linalg.py        matmul, tensordot, einsum ... and the ``linalg`` module
  _utility.py       diff, isclose, allclose, array_equal, meshgrid ...
  _signal.py        convolve, correlate, interp
  _info.py          finfo, iinfo, isdtype, result_type, __array_namespace_info__
  _index_tricks.py  r_, c_, mgrid, ogrid, ndenumerate (s_, index_exp, ndindex: NumPy's)
  _scalar_types.py  np.floating ..., dtype, issubdtype, typecodes, ScalarType
  _functional.py    vectorize, broadcast (Python loops over elements)
  _wrap.py          NumPy's own functions called with tensors
  _memmap.py        memmap, load (mmap_mode=: tensors over mapped files)
  _nditer.py        nditer, nested_iters (NumPy's iterator on host views)
  fft.py, random/, ma/, linalg.py, special.py, emath.py, testing.py     the submodules
                    (special: scipy.special; testing: numpy.testing on tensors)
Functions of NumPy not listed here are looked up in NumPy and called with
tensors (module ``__getattr__``), so they dispatch through
``Tensor.__array_function__``.
"""
import math as _math

import numpy as _np

from .. import _C
from .._array_function import TABLE as _TABLE, as_tensor as _as_tensor, norm_axis as _norm_axis
from . import _creation, _elementwise, _info, _linalg, _manipulation, _sorting  # noqa: F401
from . import _signal, _statistical, _utility  # noqa: F401
from . import emath, fft, linalg, random, special, testing  # noqa: F401
from .._special import NUMPY_FUNCTIONS as _SPECIAL_FUNCTIONS
_TABLE.update(_SPECIAL_FUNCTIONS)  # np.i0 -> torchlike.i0
from ._creation import (  # noqa: F401
    arange, array, asanyarray, asarray, asarray_chkfinite, ascontiguousarray, asfortranarray,
    empty, eye, from_dlpack, frombuffer, full, identity, linspace, ones, require, tri, zeros)
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import astype, ufunc  # noqa: F401
from ._info import (  # noqa: F401
    __array_namespace_info__, can_cast, finfo, iinfo, isdtype, result_type)
from ._wrap import numpy_function as _numpy_function
from ._functional import broadcast, vectorize  # noqa: F401
from ._index_tricks import (  # noqa: F401
    c_, index_exp, mgrid, ndenumerate, ndindex, ogrid, r_, s_)
from ._scalar_types import (  # noqa: F401
    ScalarType, character, complexfloating, dtype, flexible, floating, generic, inexact,
    integer, issubdtype, little_endian, long, number, sctypeDict, signedinteger, typecodes,
    unsignedinteger)

__array_api_version__ = "2025.12"
# The NumPy whose API this namespace follows is the one it runs beside (its
# Python code and fallback run here), so code that checks np.__version__ reads it.
__version__ = _np.__version__

ndarray = _creation.ndarray  # every tensor is one; calling it is NumPy's constructor

# dtypes: torchlike's own dtype objects, under NumPy's and the standard's names
bool = _C.bool
int8, int16, int32, int64 = _C.int8, _C.int16, _C.int32, _C.int64
uint8, uint16, uint32, uint64 = _C.uint8, _C.uint16, _C.uint32, _C.uint64
float16, bfloat16, float32, float64 = _C.float16, _C.bfloat16, _C.float32, _C.float64
complex64, complex128 = _C.complex64, _C.complex128
bool_, byte, ubyte, short, intc, int_, intp, longlong = \
    bool, int8, uint8, int16, int32, int64, int64, int64
ushort, uintc, uint, uintp, ulong, ulonglong = uint16, uint32, uint64, uint64, uint64, uint64
half, single, double, csingle, cdouble = float16, float32, float64, complex64, complex128

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
euler_gamma = _np.euler_gamma
newaxis = None

# Floating-point error handling is NumPy's own: it governs what NumPy computes
# (its scalars, the fallback rule's host calls).  torchlike ops never warn nor
# raise on division by zero, overflow or invalid values, as PyTorch and CuPy:
# they give inf and nan, inside errstate(all="raise") too.
errstate, seterr, geterr, seterrcall, geterrcall = \
    _np.errstate, _np.seterr, _np.geterr, _np.seterrcall, _np.geterrcall

# NumPy's own: its bool scalars (np.float32(1.0) is NumPy's scalar too), the
# exceptions torchlike.numpy raises (np.exceptions.AxisError), annotations
True_, False_ = _np.True_, _np.False_
exceptions = _np.exceptions
typing = _np.typing

# NumPy's polynomial classes and functions: evaluation (np.polyval,
# np.polynomial.polynomial.polyval(x, c), poly1d(c)(x)) takes tensors x on any
# device and returns tensors; coefficients are NumPy's arrays (host data).
# np.polynomial is NumPy's package seen through modules whose evaluation
# functions honour tensor=True for a tensor x (_polynomial.py)
poly1d = _np.poly1d
from ._polynomial import polynomial  # noqa: E402

# NumPy's matrix class (an ndarray subclass, which a tensor cannot be): old
# code's np.matrix(...) gets NumPy's own host matrix, with its * product, .I
# and .H; np.asmatrix(t) and np.bmat make one from tensors
matrix = _np.matrix


def _host_blocks(obj):
    # a matrix is host memory whatever the device: device tensors are copied
    # to the host once (the deliberate round trip of docs/devices.md)
    if isinstance(obj, _C.Tensor):
        return _np.asarray(obj.detach().cpu() if obj.requires_grad else obj.cpu())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_host_blocks(o) for o in obj)
    return obj


def bmat(obj, ldict=None, gdict=None):
    """NumPy's bmat, a host matrix; a tensor given alone is read as host data
    (NumPy's code returns None for an array that is not an ndarray)."""
    return _np.bmat(_host_blocks(obj), ldict, gdict)


def asmatrix(data, dtype=None):
    """NumPy's asmatrix: a host matrix of the values (a device tensor's copied)."""
    return _np.asmatrix(_host_blocks(data), dtype)


bmat.__wrapped__ = _np.bmat  # NumPy's own function (its string form's NameError too)

# String functions are NumPy's own (torchlike has no string dtype): they take
# and give NumPy's string arrays
char, strings = _np.char, _np.strings

# NumPy functions whose registered tensor implementation is also ours, as is
_FROM_TABLE = [
    # creation
    "empty_like", "zeros_like", "ones_like", "full_like", "copy",
    # manipulation
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes",
    "moveaxis", "squeeze", "concatenate", "concat", "stack", "vstack", "hstack", "dstack",
    "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "split", "array_split",
    "hsplit", "vsplit", "tile", "repeat", "flip", "fliplr", "flipud", "rot90", "roll",
    "broadcast_to", "broadcast_arrays", "where", "nonzero", "flatnonzero", "argwhere",
    "diagonal", "diag", "tril", "triu", "pad", "take", "take_along_axis", "put_along_axis",
    "compress", "choose",
    # statistical
    "sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "ptp", "argmax",
    "argmin", "all", "any", "count_nonzero", "cumsum", "cumprod", "cumulative_sum",
    "cumulative_prod", "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmax",
    "nanmin", "nanargmax", "nanargmin", "nancumsum", "nancumprod", "median", "nanmedian",
    "quantile", "nanquantile", "percentile", "nanpercentile", "average",
    # sorting, searching, sets
    "sort", "argsort", "searchsorted", "unique", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "isin", "union1d",
    # linear algebra at the top level
    "dot", "vdot", "inner", "outer", "matmul", "vecdot", "tensordot", "einsum", "trace",
    "kron", "cross",
    # the rest
    "diff", "ediff1d", "isclose", "allclose", "array_equal", "array_equiv", "nan_to_num",
    "ndim", "shape", "size", "iscomplexobj", "isrealobj", "meshgrid", "tril_indices_from",
    "triu_indices_from", "bincount",
    # built from recorded ops where NumPy's own code writes into fresh arrays
    "logspace", "geomspace", "vander", "partition", "argpartition", "insert", "delete",
    "block", "select", "piecewise", "corrcoef",
]


# (an entry meeting an argument it cannot honour takes the next routes itself:
# _array_function.implements)
# NumPy 2.2's matvec and vecmat gufuncs, where the installed NumPy has them
_FROM_TABLE += [_name for _name in ("matvec", "vecmat") if hasattr(_np, _name)]
for _name in _FROM_TABLE:
    globals()[_name] = _TABLE[getattr(_np, _name)]
    if isinstance(getattr(_np, _name), _np.ufunc):  # the gufuncs matmul, vecdot ...
        _elementwise.give_ufunc_surface(globals()[_name], getattr(_np, _name))
del _name


def broadcast_shapes(*shapes):
    """The shape that arrays of these shapes broadcast to, as a tuple; a
    ValueError when they do not broadcast (NumPy's and the standard's)."""
    try:
        return tuple(_C.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s)
                                           for s in shapes]))
    except RuntimeError as error:  # NumPy's class and wording, then ours
        raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape ({error})"
                         ) from None


def expand_dims(a, axis=0):
    """Insert length-1 axes at ``axis`` (an int or a tuple of ints)."""
    return _TABLE[_np.expand_dims](a, axis)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = _as_tensor(x)
    return tuple(_C.unbind(x, _norm_axis(axis, x.ndim)))


def tril_indices(n, k=0, m=None):
    return tuple(_C.tril_indices(n, n if m is None else m, k))


def triu_indices(n, k=0, m=None):
    return tuple(_C.triu_indices(n, n if m is None else m, k))


def __getattr__(name):
    """Any other NumPy function, called with tensors so it dispatches back here
    (NumPy's Python implementation on torchlike ops, or the fallback rule).
    The wrapper is kept in the module, so later look-ups of ``name`` (in a
    loop: ``tnp.polyval(...)``) find it without building another."""
    func = getattr(_np, name, None)
    if callable(func) and not isinstance(func, type) and not name.startswith("_"):
        wrapper = globals()[name] = _numpy_function(func, name)
        return wrapper
    if name in _NO_SUCH_DTYPE:
        from .._array_function import no_dtype
        raise AttributeError(f"module 'torchlike.numpy' has no attribute {name!r}: "
                             f"{no_dtype(_np.dtype(_NO_SUCH_DTYPE[name]))}")
    raise AttributeError(f"module 'torchlike.numpy' has no attribute {name!r}")


# NumPy's scalar types of dtypes torchlike does not have: the AttributeError
# names what is missing (docs/numpy.md, "What cannot work")
_NO_SUCH_DTYPE = {
    "longdouble": "longdouble", "clongdouble": "clongdouble",
    "datetime64": "M8", "timedelta64": "m8", "object_": "O", "str_": "U",
    "bytes_": "S", "void": "V8", "record": [("f0", "i8")],
}


from . import ma  # noqa: E402,F401  (masked arrays; they use the functions above)
from . import lib  # noqa: E402,F401  (stride_tricks: views; uses broadcast_to above)
from ._memmap import load, memmap  # noqa: E402,F401  (tensors over mapped files)
from ._nditer import nditer, nested_iters  # noqa: E402,F401  (NumPy's iterator on tensors)
