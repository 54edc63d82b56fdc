"""Conversion of SciPy-style arguments (tensors, arrays, Python numbers) to
tensors of one floating dtype on one device."""
import numpy as np

from .. import _C


def _floating(dtypes):
    """The floating dtype the arguments compute in: the promotion of the
    floating tensors among them, float64 (SciPy's) when there is none."""
    out = None
    for d in dtypes:
        if d.is_floating_point or d.is_complex:
            out = d if out is None else _C.promote_types(out, d)
    return out if out is not None else _C.float64


def as_tensors(*xs, dtype=None, device=None):
    """Every x as a tensor: one floating dtype (unless given) and the device of
    the first tensor argument (with none, device, or else the default device).
    Tensors keep their autograd history."""
    tensors = [x for x in xs if isinstance(x, _C.Tensor)]
    device = tensors[0].device if tensors else device
    if dtype is None:
        dtype = _floating([t.dtype for t in tensors])
    out = []
    for x in xs:
        if isinstance(x, _C.Tensor):
            out.append(x if x.dtype == dtype and x.device == device else x.to(
                device=device, dtype=dtype))
        else:
            arr = np.asarray(x)
            if arr.dtype == object:
                raise TypeError(f"expected a tensor, array or number, got {type(x).__name__}")
            out.append(_C.tensor(arr, dtype=dtype, device=device))
    return out


def as_tensor(x, dtype=None):
    return as_tensors(x, dtype=dtype)[0]
