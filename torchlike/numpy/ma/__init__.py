"""torchlike.numpy.ma: NumPy's masked arrays over tensors.

A ``MaskedArray`` holds its data and its mask as tensors (the mask: a bool
tensor of the data's shape, or ``nomask``), so it lives on the data's device
and its operations are torchlike ops.  Elementwise functions and operators
propagate the mask as NumPy does (with its domains: ``sqrt`` of a negative,
``log`` of 0 and division by 0 are masked), reductions leave masked elements
out, fill values are NumPy's.  ``numpy.<function>(x)``, ``numpy.<ufunc>(x)``
and the same calls of ``torchlike.numpy`` keep the mask.

Where things live:
  _core.py       the class, masks, fill values, construction, indexing
  _ops.py        elementwise functions and operators (domains)
  _reduce.py     sum, mean, var, min, median, average, count, cumsum ...
  _functions.py  masked_where and its spellings, joining, shaping, where, dot,
                 sort, unique, allclose, apply_along_axis
  _creation.py   zeros, ones, arange ... with no element masked; copy, diag,
                 diagflat, masked_object, mr_
  _select.py     take, put, putmask, choose, compress, resize, trace, diff,
                 append, outer, convolve, correlate, alltrue, sometrue
  _extras.py     rows and columns (mask_rowcols, compress_nd ...), runs and
                 edges (clump_masked, notmasked_edges ...), set operations,
                 ediff1d, cov, corrcoef, polyfit, vander, apply_over_axes
  _structured.py the names about structured dtypes (torchlike has none)
  _protocol.py   NumPy's __array_function__/__array_ufunc__ on masked arrays
  core, extras   the names of numpy.ma.core and numpy.ma.extras we have
"""
from ..._array_function import MASKED_TYPES as _MASKED_TYPES
from ._core import (  # noqa: F401
    MAError, MaskError, bool_, MaskType, MaskedArray, MaskedConstant, array, asanyarray, asarray,
    common_fill_value, count_masked, default_fill_value, filled, get_data, get_fill_value,
    get_mask, getdata, getmask, getmaskarray, isMA, isMaskedArray, is_mask, is_masked, isarray,
    make_mask, make_mask_none, mask_or, masked, masked_array, masked_singleton,
    maximum_fill_value, minimum_fill_value, nomask, set_fill_value)
from ._ops import OPS, clip, power  # noqa: F401
from . import _methods
from ._reduce import (  # noqa: F401
    all, amax, amin, anom, anomalies, any, argmax, argmin, average, count, cumprod, cumsum,
    max, mean, median, min, prod, product, ptp, std, sum, var)
from ._functions import (  # noqa: F401
    allclose, allequal, apply_along_axis, argsort, atleast_1d, atleast_2d, atleast_3d,
    column_stack, compressed, concatenate, diagonal, dot, dstack, expand_dims, fix_invalid,
    flip, hstack, inner, masked_all, masked_all_like, masked_equal, masked_greater,
    masked_greater_equal, masked_inside, masked_invalid, masked_less, masked_less_equal,
    masked_not_equal, masked_outside, masked_values, masked_where, moveaxis, ndim, nonzero,
    ones_like, ravel, repeat, reshape, roll, row_stack, shape, size, sort, squeeze, stack,
    swapaxes, transpose, unique, vstack, where, zeros_like)

from ._creation import (  # noqa: F401
    arange, copy, diag, diagflat, empty, empty_like, frombuffer, fromfunction, identity,
    indices, masked_object, mr_, ones, zeros)
from ._select import (  # noqa: F401
    alltrue, append, choose, compress, convolve, correlate, diff, outer, outerproduct, put,
    putmask, resize, sometrue, take, trace)
from ._extras import (  # noqa: F401
    apply_over_axes, clump_masked, clump_unmasked, compress_cols, compress_nd,
    compress_rowcols, compress_rows, corrcoef, cov, ediff1d, flatnotmasked_contiguous,
    flatnotmasked_edges, flatten_mask, hsplit, in1d, intersect1d, isin, mask_cols,
    mask_rowcols, mask_rows, ndenumerate, notmasked_contiguous, notmasked_edges, polyfit,
    setdiff1d, setxor1d, union1d, vander)
from ._structured import (  # noqa: F401
    flatten_structured_array, fromflex, make_mask_descr, masked_print_option, mvoid, test)

innerproduct = inner


def harden_mask(a):
    """``a`` with a hard mask (masked elements stay masked when assigned)."""
    return a.harden_mask()


def soften_mask(a):
    """``a`` with a soft mask (assignment unmasks)."""
    return a.soften_mask()


def ids(a):
    """The addresses of ``a``'s data and mask."""
    return a.ids()


globals().update(OPS)  # ma.sqrt, ma.add, ma.divide ... (masked, with NumPy's domains)
_methods.attach(OPS, globals())  # ma.add.reduce, ma.maximum.outer ... (NumPy's methods)
_MASKED_TYPES.append(MaskedArray)
from . import core, extras  # noqa: E402,F401  (after every name above exists)
