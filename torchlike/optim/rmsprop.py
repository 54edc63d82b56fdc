"""RMSprop (Hinton's lecture 6e), with momentum and the centered variant, as
torch.optim.RMSprop."""
from .optimizer import (_functional_step, Optimizer, _addcdiv_, _addcmul_, _check_nonnegative,
                        _add_eps, _lerp_, _step_tensor, _weight_decay)
from .. import _C

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """v = alpha * v + (1 - alpha) * g^2; centered subtracts the square of the
    running mean of g; with momentum b = momentum * b + g / (sqrt(v) + eps) and
    p -= lr * b, else p -= lr * g / (sqrt(v) + eps)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                           alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["square_avg"] = _C.zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _C.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("rmsprop", ("square_avg", "momentum_buffer", "grad_avg"),
                                     ("step",), _single_tensor_rmsprop, closure)


def _single_tensor_rmsprop(params, grads, buffers, scalars, group):
    lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
    for param, grad, square_avg, buf, grad_avg, step_t in zip(params, grads, *buffers,
                                                              *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        grad = _weight_decay(param, grad, group)
        _addcmul_(square_avg.mul_(alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = _add_eps(avg, eps)
        if momentum > 0:
            _addcdiv_(buf.mul_(momentum), grad, avg, 1)
            param.add_(buf, alpha=-lr)
        else:
            _addcdiv_(param, grad, avg, -lr)


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
            foreach=None, maximize=False, differentiable=False, capturable=False,
            has_complex=False, *, lr, alpha, eps, weight_decay, momentum, centered):
    """One RMSprop step over lists, as torch.optim.rmsprop.rmsprop (grad_avgs
    empty unless centered, momentum_buffer_list unless momentum)."""
    group = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                 centered=centered, maximize=maximize)
    _functional_step(_single_tensor_rmsprop, params, grads,
                     [square_avgs, momentum_buffer_list, grad_avgs], [state_steps], group)
