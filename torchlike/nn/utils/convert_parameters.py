"""Flatten parameters into one vector and back."""
from ... import _C
from ...autograd.grad_mode import no_grad


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter, flattened, in order."""
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters (their data)."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        with no_grad():
            p.copy_(vec[offset:offset + n].reshape(tuple(p.shape)))
        offset += n
