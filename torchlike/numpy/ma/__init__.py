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
  _protocol.py   NumPy's __array_function__/__array_ufunc__ on masked arrays
"""
from ..._array_function import MASKED_TYPES as _MASKED_TYPES
from ._core import (  # noqa: F401
    MaskError, MaskType, MaskedArray, MaskedConstant, array, asanyarray, asarray,
    common_fill_value, count_masked, default_fill_value, filled, get_data, get_fill_value,
    get_mask, getdata, getmask, getmaskarray, isMA, isMaskedArray, is_mask, is_masked, isarray,
    make_mask, make_mask_none, mask_or, masked, masked_array, masked_singleton,
    maximum_fill_value, minimum_fill_value, nomask, set_fill_value)
from ._ops import OPS, clip, power  # noqa: F401
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

globals().update(OPS)  # ma.sqrt, ma.add, ma.divide ... (masked, with NumPy's domains)
_MASKED_TYPES.append(MaskedArray)
