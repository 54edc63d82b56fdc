"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum
and L2 weight decay, as torch.optim.SGD."""
from .optimizer import (Optimizer, _check_nonnegative, _multi_tensor_step, _real_view,
                        _refuse_fused_scaling)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """g = grad (+ weight_decay * p); with momentum, b = momentum * b + (1 - dampening) * g
    (b = g on the first step) and g = b, or g + momentum * b when nesterov;
    then p -= lr * g.  maximize ascends instead."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._call_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                params = self._params_with_grad(group)
                grads = [p.grad for p in params]
                momentum = group["momentum"]
                bufs = [self.state[p].get("momentum_buffer") if momentum != 0 else None
                        for p in params]
                fresh = [b is None for b in bufs]
                if momentum != 0:
                    # The kernel fills a new buffer with the step's gradient.
                    bufs = [p.new_zeros(p.shape) if b is None else b for p, b in zip(params, bufs)]
                reals = [[_real_view(t) for t in ts] for ts in (params, grads, bufs)]
                if not _multi_tensor_step("sgd", group, *reals[:2], reals[2:], [], fresh):
                    _single_tensor_sgd(*reals, fresh, group)
                if momentum != 0:
                    for p, b in zip(params, bufs):
                        self.state[p]["momentum_buffer"] = b
        return loss


def _single_tensor_sgd(params, grads, bufs, fresh, group):
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
    for param, grad, buf, new in zip(params, grads, bufs, fresh):
        if maximize:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            if new:
                buf.copy_(grad.detach())  # as PyTorch's clone(grad).detach()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            if nesterov:
                # a sparse gradient meets the (dense) buffer on the dense side
                grad = (buf * momentum).add_(grad) if grad.is_sparse else \
                    grad.add(buf, alpha=momentum)
            else:
                grad = buf
        param.add_(grad, alpha=-lr)


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None, fused=None,
        grad_scale=None, found_inf=None, *, weight_decay, momentum, lr, dampening, nesterov,
        maximize):
    """One SGD step over lists, as torch.optim.sgd.sgd (the functional API):
    the caller keeps the momentum buffers; a None entry of
    momentum_buffer_list gets its new buffer in place, as in PyTorch.  Like
    PyTorch's, it updates leaves in place, so call it under no_grad."""
    _refuse_fused_scaling(grad_scale, found_inf)
    group = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                 nesterov=nesterov, maximize=maximize)
    fresh = [b is None for b in momentum_buffer_list]
    bufs = list(momentum_buffer_list)
    if momentum != 0:
        bufs = [p.new_zeros(p.shape) if b is None else b for p, b in zip(params, bufs)]
    _single_tensor_sgd([_real_view(t) for t in params], [_real_view(t) for t in d_p_list],
                       [_real_view(t) for t in bufs], fresh, group)
    if momentum != 0:
        for i, new in enumerate(fresh):
            if new:
                momentum_buffer_list[i] = bufs[i]
