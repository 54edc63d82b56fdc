"""Gradient clipping."""
import warnings

from ... import _C
from ...autograd.grad_mode import no_grad

Tensor = _C.Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale all gradients together so that their joint ``norm_type`` norm is at
    most ``max_norm``; returns the norm before clipping."""
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return _C.tensor(0.0)
    with no_grad():
        if norm_type == float("inf"):
            norms = [g.detach().abs().amax() for g in grads]
            total = norms[0] if len(norms) == 1 else _C.stack(norms).amax()
        else:
            norms = [g.detach().norm(norm_type) for g in grads]
            total = _C.stack(norms).norm(norm_type)
        if error_if_nonfinite and not bool(_C.isfinite(total).item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(dtype=g.dtype))
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
