"""Gradient clipping.

``clip_grad_norm_`` is the two steps PyTorch also exposes on their own:
``get_total_norm`` (the ``norm_type`` norm of the per-tensor norms) and
``clip_grads_with_norm_`` (scale every gradient by
``min(1, max_norm / (total_norm + 1e-6))``), so a caller can compute the norm
once (e.g. over several parameter groups) and clip with it."""
import types
import warnings

from ... import _C
from ... import linalg
from ...autograd.grad_mode import no_grad

Tensor = _C.Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads(parameters):
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of ``tensors`` taken together: the norm of the
    vector of their norms.  0 for no tensors."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    device = tensors[0].device
    with no_grad():
        norms = [linalg.vector_norm(t.detach(), norm_type).to(device) for t in tensors]
        total = linalg.vector_norm(_C.stack(norms), norm_type)
    if error_if_nonfinite and not bool(_C.isfinite(total).item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by
    ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = _grads(parameters)
    if not grads:
        return
    max_norm = float(max_norm)
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(device=g.device, dtype=g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale all gradients together so that their joint ``norm_type`` norm is at
    most ``max_norm``; returns the norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=2)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
