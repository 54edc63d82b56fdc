"""``np.lib.stride_tricks`` on tensors: ``as_strided`` and
``sliding_window_view`` (what NumPy 2's module holds) give views of the
tensor's memory, so they run on its device and are recorded on the autograd
tape.  ``sliding_window_view`` also answers NumPy's own (NEP 18 dispatches
it; NumPy's ``as_strided`` is not dispatched and converts with np.asarray)."""
import numpy as np

from ... import _C
from ..._array_function import as_tensor, implements, norm_axis

Tensor = _C.Tensor


def _view(x, shape, steps, offset):
    """``x.as_strided(shape, steps, offset)`` (steps in elements) where steps
    may be negative, as NumPy's strides may: the core's view takes
    non-negative strides only, so each axis that steps backwards is laid out
    forwards from its last element, then reversed by a negative-step slice
    (the view the core gives ``x[::-1]``)."""
    start, forward, backward = offset, [], []
    for axis, (n, step) in enumerate(zip(shape, steps)):
        if step < 0:
            start += max(n - 1, 0) * step
            backward.append(axis)
        forward.append(abs(step))
    view = x.as_strided(shape, tuple(forward), start)
    if not backward:
        return view
    index = [slice(None)] * len(shape)
    for axis in backward:
        index[axis] = slice(None, None, -1)
    return view[tuple(index)]


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of ``x``'s memory with this shape and these strides, in bytes
    (NumPy's units; ``Tensor.as_strided`` counts elements).  The view is
    writeable whatever ``writeable`` says: read-only belongs to the memory
    here, and would make ``x`` read-only too."""
    x = as_tensor(x)
    shape = tuple(x.shape) if shape is None else tuple(int(s) for s in shape)
    if strides is None:
        # NumPy: a C-contiguous x has no strides in its array interface, so
        # the view gets C-contiguous ones for the new shape; other x keep theirs
        steps = tuple(x.stride()) if not x.is_contiguous() else \
            tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        if len(steps) != len(shape):
            raise ValueError(f"as_strided: mismatch in length of strides and shape: shape "
                             f"{shape}, the non-contiguous input's strides (in elements) "
                             f"{steps}; give strides=")
    else:
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(f"as_strided: shape {shape} and strides {strides} differ in length")
        size = x.itemsize
        if any(s % size for s in strides):
            raise ValueError(f"as_strided: strides {strides} are not multiples of the "
                             f"{x.dtype} element size ({size} bytes)")
        steps = tuple(s // size for s in strides)
    return _view(x, shape, steps, x.storage_offset())


@implements(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` over ``x`` (along ``axis``, all axes by
    default) as a view: the shape is ``x``'s, each windowed axis shortened by
    its window less one, then the window's axes.  The view shares ``x``'s
    memory (writes through it reach ``x``; ``writeable`` is not enforced)."""
    x = as_tensor(x)
    window = (int(window_shape),) if not isinstance(window_shape, (tuple, list)) else \
        tuple(int(w) for w in window_shape)
    if any(w < 0 for w in window):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {len(window)} window_shape elements "
                             f"and `x.ndim` is {x.ndim}.")
        axes = tuple(range(x.ndim))
    else:
        axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
        if len(axes) != len(window):
            raise ValueError(f"Must provide matching length window_shape and axis; got "
                             f"{len(window)} window_shape elements and {len(axes)} axes "
                             f"elements.")
        axes = tuple(norm_axis(a, x.ndim) for a in axes)
    shape = list(x.shape)
    for ax, w in zip(axes, window):
        if shape[ax] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        shape[ax] -= w - 1
    steps = tuple(x.stride()) + tuple(x.stride(ax) for ax in axes)
    return _view(x, tuple(shape) + window, steps, x.storage_offset())
