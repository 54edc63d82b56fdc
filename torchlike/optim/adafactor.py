"""Adafactor (factored second moments), as torch.optim.Adafactor."""
import math

from .optimizer import Optimizer, _functional_step, _step_tensor
from .. import _C
from .. import linalg
from .._dtype_info import finfo

__all__ = ["Adafactor", "adafactor"]


class Adafactor(Optimizer):
    """Per step t: rho = min(lr, t^-1/2), alpha = max(eps2, RMS(p)) * rho,
    decoupled decay p *= 1 - lr * weight_decay.  A parameter of two or more
    dims keeps only the row and column means of g^2 (its last two dims), so
    the second moment costs O(m + n), not O(m n):

        R (..., m, 1) <- lerp(R, mean(g^2, -1), t^beta2_decay)
        C (..., 1, n) <- lerp(C, mean(g^2, -2), t^beta2_decay)
        V (..., m, n)  = R @ C / max(mean(R, -2), eps1)

    a vector keeps V itself.  U = g / max(sqrt(V), eps1), clipped to RMS d:
    p -= alpha * U / max(1, RMS(U) / d).  eps1 defaults to the dtype's eps."""

    _refuses_complex = True  # as PyTorch's: complex parameters raise
    _state_like_params = False   # factored row and column variances

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if not isinstance(lr, float) and hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        if p.grad.dim() > 1:
            state["row_var"] = p.grad.new_zeros(p.grad.shape[:-1] + (1,))
            state["col_var"] = p.grad.new_zeros(p.grad.shape[:-2] + (1,) + p.grad.shape[-1:])
        else:
            state["variance"] = _C.zeros_like(p.grad)

    def step(self, closure=None):
        return self._multi_or_single(None, ("row_var", "col_var", "variance"), ("step",),
                                     _single_tensor_adafactor, closure)


def _rms(t):
    return t.norm(2).item() / math.sqrt(t.numel())


def _single_tensor_adafactor(params, grads, buffers, scalars, group):
    lr = float(group["lr"])
    eps1, eps2 = group["eps"]
    for param, grad, row_var, col_var, variance, step_t in zip(params, grads, *buffers,
                                                                  *scalars):
        if group["maximize"]:
            grad = -grad
        e1 = finfo(param.dtype).eps if eps1 is None else eps1
        step_t += 1
        t = step_t.item()
        one_minus_beta2 = t ** group["beta2_decay"]
        alpha = max(eps2, _rms(param)) * min(lr, 1 / t ** 0.5)
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            # the means of g^2 along the last two dims, as squared norms: no m x n temporary
            row_var.lerp_(_mean_square(grad, -1), one_minus_beta2)
            col_var.lerp_(_mean_square(grad, -2), one_minus_beta2)
            estimate = row_var @ col_var
            estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
        else:
            variance.lerp_(grad * grad, one_minus_beta2)
            estimate = variance.clone()
        # eps1 squared under the root keeps eps1's scale in the update
        update = estimate.clamp_(min=e1 * e1).rsqrt_().mul_(grad)
        denom = max(1.0, _rms(update) / group["d"])
        param.add_(update, alpha=-alpha / denom)


def _mean_square(grad, dim):
    return linalg.vector_norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None,
              grad_scale=None, found_inf=None, has_complex=False, *, d, lr, beta2_decay,
              weight_decay, eps1, eps2, maximize):
    """One Adafactor step over lists, as torch.optim._adafactor.adafactor
    (row_vars and col_vars for matrices, variances otherwise, None in the
    other lists' places)."""
    group = dict(lr=lr, beta2_decay=beta2_decay, eps=(eps1, eps2), d=d,
                 weight_decay=weight_decay, maximize=maximize)
    _functional_step(_single_tensor_adafactor, params, grads, [row_vars, col_vars, variances],
                     [state_steps], group, grad_scale, found_inf)
