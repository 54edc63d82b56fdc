"""Adadelta (Zeiler 2012), as torch.optim.Adadelta."""
from .optimizer import (_functional_step, Optimizer, _addcmul_, _check_nonnegative, _step_tensor,
                        _weight_decay)
from .. import _C

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """v = rho * v + (1 - rho) * g^2,  d = sqrt(u + eps) / sqrt(v + eps) * g,
    u = rho * u + (1 - rho) * d^2,  p -= lr * d."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_nonnegative(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, capturable=capturable, foreach=foreach,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["square_avg"] = _C.zeros_like(p)
        state["acc_delta"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("adadelta", ("square_avg", "acc_delta"), ("step",),
                                     _single_tensor_adadelta, closure)


def _single_tensor_adadelta(params, grads, buffers, scalars, group):
    lr, rho, eps = group["lr"], group["rho"], group["eps"]
    for param, grad, square_avg, acc_delta, step_t in zip(params, grads, *buffers, *scalars):
        step_t += 1
        if group["maximize"]:
            grad = -grad
        grad = _weight_decay(param, grad, group)
        _addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if delta.requires_grad:  # sqrt_ saved it (a differentiable step)
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        _addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
        param.add_(delta, alpha=-lr)


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False,
             foreach=None, differentiable=False, has_complex=False, *, lr, rho, eps, weight_decay,
             maximize):
    """One Adadelta step over lists, as torch.optim.adadelta.adadelta."""
    group = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize)
    _functional_step(_single_tensor_adadelta, params, grads, [square_avgs, acc_deltas],
                     [state_steps], group)
