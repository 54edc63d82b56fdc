"""RAdam (Adam with a rectified adaptive learning rate, Liu et al. 2019), as
torch.optim.RAdam."""
import math

from .optimizer import (_functional_step, Optimizer, _add_eps, _addcmul_, _lerp_, _step_tensor,
                        _weight_decay)
from .adam import _check_adam_args
from .. import _C

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """While the variance of the adaptive rate is intractable (rho_t <= 5),
    p -= lr * m_hat (SGD with momentum); afterwards the Adam step scaled by the
    rectification term r_t."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        # in PyTorch's order (its param groups and state dicts show it)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["exp_avg"] = _C.zeros_like(p)
        state["exp_avg_sq"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("radam", ("exp_avg", "exp_avg_sq"), ("step",),
                                     _single_tensor_radam, closure)


def _single_tensor_radam(params, grads, buffers, scalars, group):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    for param, grad, exp_avg, exp_avg_sq, step_t in zip(params, grads, *buffers, *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        step = step_t.item()
        grad = _weight_decay(param, grad, group)
        _lerp_(exp_avg, grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = (exp_avg / bias_correction1) * lr
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive_lr = math.sqrt(bias_correction2) / _add_eps(exp_avg_sq.sqrt(), eps)
            update = update * adaptive_lr * rect
        param.sub_(update)


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, decoupled_weight_decay=False,
          foreach=None, differentiable=False, capturable=False, has_complex=False,
          maximize=False, *, beta1, beta2, lr, weight_decay, eps):
    """One RAdam step over lists, as torch.optim.radam.radam."""
    group = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                 maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)
    _functional_step(_single_tensor_radam, params, grads, [exp_avgs, exp_avg_sqs],
                     [state_steps], group)
