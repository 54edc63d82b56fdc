"""Adamax (Adam with the infinity norm), as torch.optim.Adamax."""
from .optimizer import _functional_step, Optimizer, _addcdiv_, _lerp_, _step_tensor, _weight_decay
from .adam import _check_adam_args
from .. import _C

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    """m = beta1 * m + (1 - beta1) * g,  u = max(beta2 * u, |g| + eps),
    p -= lr / (1 - beta1^t) * m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["exp_avg"] = _C.zeros_like(p)
        state["exp_inf"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("adamax", ("exp_avg", "exp_inf"), ("step",),
                                     _single_tensor_adamax, closure)


def _single_tensor_adamax(params, grads, buffers, scalars, group):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    for param, grad, exp_avg, exp_inf, step_t in zip(params, grads, *buffers, *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        grad = _weight_decay(param, grad, group)
        _lerp_(exp_avg, grad, 1 - beta1)
        if grad.requires_grad or exp_inf.requires_grad:  # recorded: no out=
            exp_inf.copy_(_C.maximum(exp_inf.mul(beta2), grad.abs().add_(eps)))
        else:
            _C.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        clr = lr / (1 - beta1 ** step_t.item())
        _addcdiv_(param, exp_avg, exp_inf, -clr)


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False,
           differentiable=False, capturable=False, has_complex=False, *, eps, beta1, beta2, lr,
           weight_decay):
    """One Adamax step over lists, as torch.optim.adamax.adamax."""
    group = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                 maximize=maximize)
    _functional_step(_single_tensor_adamax, params, grads, [exp_avgs, exp_infs], [state_steps],
                     group)
