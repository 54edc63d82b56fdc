"""Adagrad (Duchi et al. 2011), as torch.optim.Adagrad."""
from .optimizer import (_functional_step, Optimizer, _addcdiv_, _addcmul_, _check_nonnegative,
                        _add_eps, _fill_value, _step_tensor, _weight_decay)
from .. import _C, _sparse

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """s += g^2,  p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps).
    The state (s filled with initial_accumulator_value) exists from the start."""
    _takes_sparse = True

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["sum"] = _C.full_like(p, _fill_value(p, group["initial_accumulator_value"]))

    def step(self, closure=None):
        return self._multi_or_single("adagrad", ("sum",), ("step",), _single_tensor_adagrad,
                                     closure)


def _single_tensor_adagrad(params, grads, buffers, scalars, group):
    lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
    for param, grad, state_sum, step_t in zip(params, grads, *buffers, *scalars):
        step_t += 1
        if group["maximize"]:
            grad = -grad
        clr = lr / (1 + (step_t.item() - 1) * lr_decay)
        if grad.is_sparse:
            _sparse_adagrad(param, grad, state_sum, clr, eps, group)
            continue
        grad = _weight_decay(param, grad, group)
        _addcmul_(state_sum, grad, grad, 1)
        std = _add_eps(state_sum.sqrt(), eps)
        _addcdiv_(param, grad, std, -clr)


def _sparse_adagrad(param, grad, state_sum, clr, eps, group):
    """PyTorch's step for a sparse gradient: only the stored entries' sums and
    parameters move (the gradient coalesced first)."""
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    grad = grad.coalesce()
    values = grad._values()
    state_sum.add_(_sparse._like(grad, values.pow(2)))
    std = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
    param.add_(_sparse._like(grad, values / std), alpha=-clr)


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None, found_inf=None,
            has_sparse_grad=False, foreach=None, differentiable=False, has_complex=False, *, lr,
            weight_decay, lr_decay, eps, maximize):
    """One Adagrad step over lists, as torch.optim.adagrad.adagrad."""
    group = dict(lr=lr, weight_decay=weight_decay, lr_decay=lr_decay, eps=eps, maximize=maximize)
    _functional_step(_single_tensor_adagrad, params, grads, [state_sums], [state_steps], group,
                     grad_scale, found_inf)
