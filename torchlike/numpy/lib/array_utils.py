"""``np.lib.array_utils`` on tensors: ``byte_bounds`` reads the tensor's own
memory (NumPy's reads ``a.__array_interface__``, which a tensor does not
offer: it would hand NumPy the memory past the autograd and device checks);
the rest is NumPy's, which needs no array."""
import numpy as np

from ... import _C

normalize_axis_index = np.lib.array_utils.normalize_axis_index
normalize_axis_tuple = np.lib.array_utils.normalize_axis_tuple

__all__ = ["byte_bounds", "normalize_axis_index", "normalize_axis_tuple"]


def byte_bounds(a):
    """(low, high): the first byte address a's elements use and one past
    the last (a negative stride moves the low end), as NumPy's."""
    if not isinstance(a, _C.Tensor):
        return np.lib.array_utils.byte_bounds(a)
    size = a.element_size()
    low = high = a.data_ptr()
    if a.is_contiguous():  # NumPy's interface gives no strides then: the size alone
        return low, high + a.numel() * size
    for n, stride in zip(a.shape, a.stride()):
        if stride < 0:
            low += (n - 1) * stride * size
        else:
            high += (n - 1) * stride * size
    return low, high + size
