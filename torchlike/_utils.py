"""torch._utils: the few helpers of PyTorch's private module that
distributed and mixed-precision code imports (gradient bucketing, fused
all-reduce buffers): flattening a list of dense tensors into one buffer and
viewing a buffer as such a list again."""
from . import _C

__all__ = ["_flatten_dense_tensors", "_unflatten_dense_tensors"]


def _flatten_dense_tensors(tensors):
    """One contiguous 1-D tensor holding ``tensors``' elements in order (a
    copy); they share a dtype and device.  A single tensor is viewed flat."""
    tensors = list(tensors)
    if len(tensors) == 1:
        return tensors[0].contiguous().view(-1)
    return _C.cat([t.contiguous().view(-1) for t in tensors], 0)


def _unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` (as _flatten_dense_tensors made it) with the shapes
    of ``tensors``, in order: writing one writes the buffer."""
    out, offset = [], 0
    for t in tensors:
        n = t.numel()
        out.append(flat.narrow(0, offset, n).view(t.shape))
        offset += n
    return tuple(out)
