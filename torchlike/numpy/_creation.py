"""NumPy creation functions over tensors: the ``*_like`` family and copy."""
import numpy as np

from .. import _C
from .._array_function import (
    implements, tl_dtype, as_tensor)

Tensor = _C.Tensor


def _like(proto, dtype, shape, device):
    proto = as_tensor(proto)
    dtype = tl_dtype(dtype) or proto.dtype
    shape = tuple(proto.shape) if shape is None else \
        ((shape,) if isinstance(shape, int) else tuple(shape))
    return shape, dtype, device or proto.device


@implements(np.empty_like)
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype, device = _like(prototype, dtype, shape, device)
    return _C.empty(shape, dtype=dtype, device=device)


@implements(np.zeros_like)
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype, device = _like(a, dtype, shape, device)
    return _C.zeros(shape, dtype=dtype, device=device)


@implements(np.ones_like)
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype, device = _like(a, dtype, shape, device)
    return _C.ones(shape, dtype=dtype, device=device)


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype, device = _like(a, dtype, shape, device)
    if isinstance(fill_value, Tensor):
        return fill_value.to(dtype).expand(*shape).clone()
    return _C.full(shape, fill_value, dtype=dtype, device=device)


@implements(np.copy)
def copy(a, order="K", subok=False):
    return as_tensor(a).clone()
