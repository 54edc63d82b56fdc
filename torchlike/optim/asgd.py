"""Averaged SGD (Polyak & Juditsky 1992), as torch.optim.ASGD."""
from .optimizer import _functional_step, Optimizer, _check_nonnegative, _step_tensor, _weight_decay
from .. import _C

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """p = p * (1 - lambd * eta) - eta * g; ax averages p from step t0 on;
    eta = lr / (1 + lambd * lr * t)^alpha and mu = 1 / max(1, t - t0) are kept
    per parameter as 0-d float32 tensors, as PyTorch keeps them."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = _step_tensor()
        state["eta"] = _step_tensor(group["lr"])
        state["mu"] = _step_tensor(1.0)
        state["ax"] = _C.zeros_like(p)

    def step(self, closure=None):
        return self._multi_or_single("asgd", ("ax",), ("step", "eta", "mu"),
                                     _single_tensor_asgd, closure)


def _single_tensor_asgd(params, grads, buffers, scalars, group):
    lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
    for param, grad, ax, step_t, eta, mu in zip(params, grads, *buffers, *scalars):
        if group["maximize"]:
            grad = -grad
        step_t += 1
        step = step_t.item()
        grad = _weight_decay(param, grad, group)
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        mu_value = mu.item()
        if mu_value != 1:
            ax.add_(param.sub(ax).mul_(mu_value))
        else:
            ax.copy_(param)
        eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
        mu.fill_(1 / max(1, step - t0))


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False,
         differentiable=False, capturable=False, has_complex=False, *, lambd, lr, t0, alpha,
         weight_decay):
    """One ASGD step over lists, as torch.optim.asgd.asgd (mus and etas 0-d
    tensors, updated in place)."""
    group = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                 maximize=maximize)
    _functional_step(_single_tensor_asgd, params, grads, [axs], [state_steps, etas, mus], group,
                     check_steps=False)
