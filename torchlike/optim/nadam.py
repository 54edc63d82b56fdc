"""NAdam (Adam with Nesterov momentum, Dozat 2016), as torch.optim.NAdam."""
from .optimizer import (_functional_step, Optimizer, _addcdiv_, _addcmul_, _check_nonnegative,
                        _add_eps, _lerp_, _step_tensor, _weight_decay)
from .adam import _check_adam_args
from .. import _C

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """Adam whose momentum factor follows the schedule
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)); the update mixes the
    gradient and the first moment by mu_t and mu_{t+1}.  decoupled_weight_decay
    scales p by 1 - lr * weight_decay (NAdamW) instead of adding the L2 term."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_nonnegative(momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["mu_product"] = _step_tensor(1.0)
        state["exp_avg"] = _C.zeros_like(p)
        state["exp_avg_sq"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("nadam", ("exp_avg", "exp_avg_sq"), ("step", "mu_product"),
                                     _single_tensor_nadam, closure)


def _single_tensor_nadam(params, grads, buffers, scalars, group):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    momentum_decay = group["momentum_decay"]
    for param, grad, exp_avg, exp_avg_sq, step_t, mu_product in zip(params, grads, *buffers,
                                                                    *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        grad = _weight_decay(param, grad, group)
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        _lerp_(exp_avg, grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom = _add_eps(denom, eps)
        _addcdiv_(param, grad, denom, -lr * (1. - mu) / (1. - mu_product.item()))
        _addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1. - mu_product_next))


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps,
          decoupled_weight_decay=False, foreach=None, capturable=False, differentiable=False,
          has_complex=False, maximize=False, *, beta1, beta2, lr, weight_decay, momentum_decay,
          eps):
    """One NAdam step over lists, as torch.optim.nadam.nadam (mu_products
    0-d tensors, advanced in place)."""
    group = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                 momentum_decay=momentum_decay, maximize=maximize,
                 decoupled_weight_decay=decoupled_weight_decay)
    _functional_step(_single_tensor_nadam, params, grads, [exp_avgs, exp_avg_sqs],
                     [state_steps, mu_products], group)
