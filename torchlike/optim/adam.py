"""Adam and AdamW (Kingma & Ba; Loshchilov & Hutter), with amsgrad, as
torch.optim.Adam / AdamW."""
import math

from .optimizer import (Optimizer, _addcdiv_, _addcmul_, _check_nonnegative, _functional_step,
                        _lerp_, _step_tensor, _weight_decay)
from .. import _C

__all__ = ["Adam", "AdamW", "adam"]


def _check_adam_args(lr, betas, eps, weight_decay, foreach=None, capturable=None):
    """The checks of Adam's arguments, in PyTorch's order; foreach and
    capturable given (Adam, AdamW) add Adam's own on tensor lr and betas."""
    adam = capturable is not None
    # PyTorch refuses tensor hyperparameters on its foreach path unless
    # capturable (which then keeps them on the device)
    if adam and isinstance(lr, _C.Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    _check_nonnegative(lr=lr, eps=eps)
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    _check_nonnegative(weight_decay=weight_decay)
    if not adam:
        return
    if not (all(isinstance(b, float) for b in betas) or
            all(isinstance(b, _C.Tensor) for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if isinstance(beta, _C.Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False "
                                 f"and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(Optimizer):
    """m = beta1 * m + (1 - beta1) * g,  v = beta2 * v + (1 - beta2) * g^2,
    p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps),
    with v replaced by its running maximum under amsgrad.  weight_decay adds
    weight_decay * p to g, or with decoupled_weight_decay (AdamW) scales p by
    1 - lr * weight_decay first."""

    def _sparse_refusal(self):
        # AdamW's too names Adam, as PyTorch's (AdamW is Adam with decoupled decay)
        return "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["exp_avg"] = _C.zeros_like(p)
        state["exp_avg_sq"] = _C.zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("adam", ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"),
                                     ("step",), _single_tensor_adam, closure)


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before the
    Adam update (default weight_decay 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def _single_tensor_adam(params, grads, buffers, scalars, group):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    for param, grad, exp_avg, exp_avg_sq, max_sq, step_t in zip(params, grads, *buffers,
                                                                 *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        grad = _weight_decay(param, grad, group)
        _lerp_(exp_avg, grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = math.sqrt(bias_correction2)
        if group["amsgrad"]:
            if exp_avg_sq.requires_grad:  # a recorded (differentiable) step: no out=
                max_sq.copy_(_C.maximum(max_sq.clone(), exp_avg_sq))
            else:
                _C.maximum(max_sq, exp_avg_sq, out=max_sq)
            denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        _addcdiv_(param, exp_avg, denom, -step_size)


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
         capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
         has_complex=False, decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr,
         weight_decay, eps, maximize):
    """One Adam step over lists, as torch.optim.adam.adam (the functional
    API): the caller keeps the moments and the step counters (0-d tensors,
    advanced in place); max_exp_avg_sqs may be empty without amsgrad.  Like
    PyTorch's, it updates leaves in place, so call it under no_grad."""
    group = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                 amsgrad=amsgrad, maximize=maximize,
                 decoupled_weight_decay=decoupled_weight_decay)
    _functional_step(_single_tensor_adam, params, grads,
                     [exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else []], [state_steps],
                     group, grad_scale, found_inf)
