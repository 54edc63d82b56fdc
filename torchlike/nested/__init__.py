"""torch.nested: batches of tensors of different shapes (docs/nested.md).
The tensor type and its ops are in _tensor.py."""
import itertools

from .. import _C
from .._layout import strided, jagged
from ._tensor import NestedTensor, NestedInt, _make, _jagged_from_values, to_padded  # noqa: F401

Tensor = _C.Tensor

__all__ = ["nested_tensor", "as_nested_tensor", "to_padded_tensor", "narrow",
           "nested_tensor_from_jagged", "masked_select", "NestedTensor", "NestedInt"]


def _check_layout(layout):
    layout = strided if layout is None else layout
    if layout is not strided and layout is not jagged:
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    return layout


def _components(items, dtype, device, layout, copy):
    """items (tensors or nested lists of numbers) as tensors of one dtype and
    device and of one ndim; copies (detached) unless copy is False."""
    comps = []
    for x in items:
        if isinstance(x, Tensor):
            comps.append(x.detach() if copy else x)
        else:
            comps.append(_C.tensor(x))
    if comps:
        dtype = dtype or comps[0].dtype
        device = device if device is not None else comps[0].device
        comps = [c.to(device=device, dtype=dtype) for c in comps]
        comps = [c.clone() for c in comps]   # components own their memory (PyTorch copies too)
        for i, c in enumerate(comps):
            if c.ndim != comps[0].ndim:
                if layout is jagged:
                    raise RuntimeError("When constructing a nested tensor, all tensors in list "
                                       "must have the same dim")
                raise RuntimeError(f"All Tensors given to nested_tensor must have the same "
                                   f"dimension. Found dimension {c.ndim} for Tensor at index "
                                   f"{i} and dimension {comps[0].ndim} for Tensor at index 0.")
    return comps, dtype or _C.get_default_dtype(), device


def _jagged(comps, dtype, device, requires_grad):
    """A contiguous jagged tensor over comps: their concatenation along
    their dim 0 is values(); the components are its slices."""
    if not comps or comps[0].ndim == 0:
        raise RuntimeError("Cannot represent given tensor list as a nested tensor with the "
                           "jagged layout. Note that the jagged layout only allows for a single "
                           "ragged dimension. For example: (B, *, D_0, D_1, ..., D_N), with "
                           "ragged * dim.")
    tail = tuple(comps[0].shape[1:])
    if any(tuple(c.shape[1:]) != tail for c in comps):
        raise RuntimeError("Cannot represent given tensor list as a nested tensor with the "
                           "jagged layout. Note that the jagged layout only allows for a single "
                           "ragged dimension. For example: (B, *, D_0, D_1, ..., D_N), with "
                           "ragged * dim.")
    values = _C.cat(comps, 0)
    if requires_grad:
        values = values.detach().requires_grad_(True)
    lens = [int(c.shape[0]) for c in comps]
    offsets = _C.tensor([0] + list(itertools.accumulate(lens)), dtype=_C.int64,
                        device=values.device)
    return _jagged_from_values(values, offsets, leaf=requires_grad)


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A nested tensor holding copies of the tensors (or nested lists of
    numbers) in tensor_list: a leaf, detached from them.  dtype defaults to
    the first item's."""
    if not isinstance(tensor_list, list):
        raise TypeError("Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in "
                        "nested_tensor")
    layout = _check_layout(layout)
    comps, dtype, device = _components(tensor_list, dtype, device, layout, copy=True)
    if layout is jagged:
        return _jagged(comps, dtype, device, requires_grad)
    if requires_grad:
        comps = [c.requires_grad_(True) for c in comps]
    dim = comps[0].ndim + 1 if comps else 1
    return _make(comps, strided, dtype, device, dim, leaf=True)


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor of the tensors in ts (a list, or the rows of a tensor)
    that keeps their autograd history: gradients through it reach them."""
    layout = _check_layout(layout)
    if isinstance(ts, Tensor):
        if ts.ndim < 1:
            raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim > 1")
        items = list(ts.unbind(0))
    elif isinstance(ts, (list, tuple)) and all(isinstance(t, Tensor) for t in ts):
        items = list(ts)
    else:
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list "
                        "/ tuple of tensors ")
    comps = []
    for t in items:
        t = t.to(device=device if device is not None else t.device,
                 dtype=dtype or items[0].dtype)
        comps.append(t.clone())
    if comps:
        for i, c in enumerate(comps):
            if c.ndim != comps[0].ndim:
                raise RuntimeError(f"All Tensors given to nested_tensor must have the same "
                                   f"dimension. Found dimension {c.ndim} for Tensor at index "
                                   f"{i} and dimension {comps[0].ndim} for Tensor at index 0.")
    dtype = dtype or (comps[0].dtype if comps else _C.get_default_dtype())
    if layout is jagged:
        if not comps:
            raise RuntimeError("as_nested_tensor(): the jagged layout needs at least one tensor")
        return _jagged(comps, dtype, device, False)
    device = comps[0].device if comps else device
    dim = comps[0].ndim + 1 if comps else 1
    return _make(comps, strided, dtype, device, dim)


def to_padded_tensor(input, padding, output_size=None):
    """input's components padded with `padding` to a common shape (the
    largest in each dim, or output_size) and stacked: a dense tensor."""
    if not isinstance(input, NestedTensor):
        raise RuntimeError("to_padded_tensor(): expected a nested tensor, got a "
                           f"{type(input).__name__} of shape {tuple(input.shape)}")
    return to_padded(input, padding, output_size)


def narrow(tensor, dim, start, length, layout=strided):
    """The rows of tensor narrowed: dim 0 for the strided layout (rows
    start .. start + length); dim 1 for the jagged layout, where start and
    length may be tensors giving each row its own (the result's values() is
    tensor's buffer, with holes)."""
    layout = _check_layout(layout)
    if layout is strided:
        if isinstance(start, Tensor) or isinstance(length, Tensor):
            raise RuntimeError("start and length must be integers for the strided layout NT "
                               "impl")
        if dim != 0:
            raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: "
                               f"{dim}")
        if isinstance(tensor, NestedTensor):
            comps = tensor._nt_comps[start:start + length]
            return _make(comps, strided, tensor._nt_dtype, tensor._nt_device, tensor._nt_dim)
        return as_nested_tensor(tensor.narrow(0, start, length))
    if dim != 1:
        raise RuntimeError("jagged layout only supports dim=1")
    if isinstance(tensor, NestedTensor):
        raise RuntimeError("narrow(): the jagged layout narrows a dense tensor")
    batch, width = int(tensor.shape[0]), int(tensor.shape[1])
    starts = start if isinstance(start, Tensor) else _C.full((batch,), int(start),
                                                             dtype=_C.int64)
    lengths = length if isinstance(length, Tensor) else _C.full((batch,), int(length),
                                                                dtype=_C.int64)
    starts, lengths = starts.to(_C.int64), lengths.to(_C.int64)
    flat = tensor.reshape((batch * width,) + tuple(tensor.shape[2:]))
    begins = _C.arange(batch, dtype=_C.int64) * width + starts
    offsets = _C.cat([begins, (begins[-1:] + lengths[-1:])])
    return _jagged_from_values(flat, offsets, lengths, contiguous=False)


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None,
                              min_seqlen=None, max_seqlen=None):
    """A jagged nested tensor viewing values: component i is
    values[offsets[i] : offsets[i] + lengths[i]] (offsets[i + 1] when no
    lengths are given; offsets are the running sum of lengths when none
    are).  Gradients reach values."""
    if offsets is None:
        if lengths is None:
            raise RuntimeError("nested_tensor_from_jagged(): At least one of offsets or "
                               "lengths is required.")
        offsets = _C.cat([_C.zeros(1, dtype=_C.int64),
                          _C.cumsum(lengths.to(_C.int64), 0)])
        lengths = None
    if jagged_dim not in (None, 1):
        raise NotImplementedError("nested_tensor_from_jagged(): only jagged_dim=1 is supported")
    return _jagged_from_values(values, offsets.to(_C.int64),
                               None if lengths is None else lengths.to(_C.int64))


def masked_select(tensor, mask):
    """A jagged tensor of the elements of tensor where mask (broadcast to its
    shape) is True, one component per row along the last dim (a 1-d tensor
    is one row).  Differentiable in tensor."""
    if mask.dtype != _C.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    mask = mask.expand(tensor.shape) if tuple(mask.shape) != tuple(tensor.shape) else mask
    width = int(tensor.shape[-1]) if tensor.ndim else 1
    rows = mask.reshape(-1, width)
    values = _C.masked_select(tensor, mask)
    counts = rows.sum(1)
    offsets = _C.cat([_C.zeros(1, dtype=_C.int64, device=counts.device),
                      _C.cumsum(counts, 0)])
    return _jagged_from_values(values, offsets)


def _to_padded_method(self, padding, output_size=None):
    """Tensor.to_padded_tensor: a nested tensor's components padded and
    stacked (a dense tensor has no such op, as in PyTorch)."""
    raise NotImplementedError(
        "Could not run 'aten::to_padded_tensor' with arguments from the "
        f"'{'CUDA' if self.device.type == 'cuda' else 'CPU'}' backend: it takes a nested tensor")


_to_padded_method.__name__ = _to_padded_method.__qualname__ = "to_padded_tensor"
Tensor.to_padded_tensor = _to_padded_method
