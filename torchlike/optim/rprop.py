"""Rprop (resilient backpropagation), as torch.optim.Rprop."""
from .optimizer import _functional_step, Optimizer, _check_nonnegative, _fill_value, _step_tensor
from .. import _C

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Per element, the step size grows by etaplus while the gradient keeps its
    sign and shrinks by etaminus when it flips (then that element skips the
    step), clamped to step_sizes; p -= sign(g) * step_size."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_nonnegative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["prev"] = _C.zeros_like(p)
        state["step_size"] = _C.full_like(p, _fill_value(p, group["lr"]))

    def step(self, closure=None):
        return self._multi_or_single("rprop", ("prev", "step_size"), ("step",),
                                     _single_tensor_rprop, closure)


def _single_tensor_rprop(params, grads, buffers, scalars, group):
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]
    for param, grad, prev, step_size, step_t in zip(params, grads, *buffers, *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        # prev is overwritten below: a recorded step multiplies a copy of it
        sign = grad.mul(prev.clone() if grad.requires_grad else prev).sign()
        factor = _C.where(sign > 0, etaplus, _C.where(sign < 0, etaminus,
                                                      _C.where(sign == 0, 1.0, sign)))
        factor = factor.to(dtype=grad.dtype)
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = _C.where(factor == etaminus, 0.0, grad).to(dtype=grad.dtype)
        param.sub_(grad.sign().mul_(step_size))
        prev.copy_(grad)


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False,
          maximize=False, differentiable=False, has_complex=False, *, step_size_min,
          step_size_max, etaminus, etaplus):
    """One Rprop step over lists, as torch.optim.rprop.rprop."""
    group = dict(etas=(etaminus, etaplus), step_sizes=(step_size_min, step_size_max),
                 maximize=maximize)
    _functional_step(_single_tensor_rprop, params, grads, [prevs, step_sizes], [state_steps],
                     group)
