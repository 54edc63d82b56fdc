"""SparseAdam: Adam that touches only the entries a gradient carries, as
torch.optim.SparseAdam.

A sparse gradient (nn.Embedding(sparse=True)) is stepped as PyTorch does:
coalesced, then only its stored entries' moments and parameters move.  A
dense gradient (which PyTorch refuses) is also accepted: its nonzero entries
play the part of the stored ones, so an entry whose gradient is exactly zero
keeps its parameter and moments."""
import math

from .optimizer import Optimizer
from .adam import _check_adam_args
from .. import _C, _sparse
from ..autograd.grad_mode import no_grad

__all__ = ["SparseAdam", "sparse_adam"]


class SparseAdam(Optimizer):
    """The Adam step (without weight decay) on the entries the gradient
    carries.  The step counter is a Python int, as PyTorch keeps it here."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check_adam_args(lr, betas, eps, 0.0)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_at = [[g, i] for g, group in enumerate(self.param_groups)
                      for i, p in enumerate(group["params"]) if p.is_complex()]
        if complex_at:
            raise ValueError(f"Complex params at indices {complex_at}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        loss = self._call_closure(closure)
        with no_grad():
            for group in self.param_groups:
                lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
                for param in self._params_with_grad(group):
                    state = self.state[param]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = _C.zeros_like(param)
                        state["exp_avg_sq"] = _C.zeros_like(param)
                    state["step"] += 1
                    grad = -param.grad if group["maximize"] else param.grad
                    if grad.is_sparse:
                        _sparse_step(param, grad, state, lr, beta1, beta2, eps)
                        continue
                    mask = grad != 0
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    # The moments' updates on the carried entries (zero elsewhere).
                    avg_update = _C.where(mask, grad.sub(exp_avg).mul_(1 - beta1), 0.0)
                    sq_update = _C.where(mask, (grad * grad).sub_(exp_avg_sq).mul_(1 - beta2),
                                         0.0)
                    exp_avg.add_(avg_update)
                    exp_avg_sq.add_(sq_update)
                    bias_correction1 = 1 - beta1 ** state["step"]
                    bias_correction2 = 1 - beta2 ** state["step"]
                    step_size = lr * math.sqrt(bias_correction2) / bias_correction1
                    denom = exp_avg_sq.sqrt().add_(eps)
                    update = (exp_avg / denom).mul_(-step_size)
                    param.add_(_C.where(mask, update, 0.0))
        return loss


def _sparse_step(param, grad, state, lr, beta1, beta2, eps):
    """PyTorch's SparseAdam step on a sparse gradient's stored entries."""
    grad = grad.coalesce()
    values = grad._values()
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    old_avg = exp_avg.sparse_mask(grad)._values()
    avg_update = values.sub(old_avg).mul_(1 - beta1)
    exp_avg.add_(_sparse._like(grad, avg_update))
    old_sq = exp_avg_sq.sparse_mask(grad)._values()
    sq_update = values.pow(2).sub_(old_sq).mul_(1 - beta2)
    exp_avg_sq.add_(_sparse._like(grad, sq_update))
    numer = avg_update.add_(old_avg)
    denom = sq_update.add_(old_sq).sqrt_().add_(eps)
    bias_correction1 = 1 - beta1 ** state["step"]
    bias_correction2 = 1 - beta2 ** state["step"]
    step_size = lr * math.sqrt(bias_correction2) / bias_correction1
    param.add_(_sparse._like(grad, numer.div_(denom).mul_(-step_size)))


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr,
                maximize):
    """One SparseAdam step over lists of sparse gradients, as
    torch.optim._functional.sparse_adam: state_steps are the step numbers
    (ints) this step is, which the caller advances."""
    for param, grad, exp_avg, exp_avg_sq, step in zip(params, grads, exp_avgs, exp_avg_sqs,
                                                      state_steps):
        grad = -grad if maximize else grad
        if not grad.is_sparse:
            raise RuntimeError("coalesce expected sparse coordinate tensor layout but got "
                               "Strided")
        _sparse_step(param, grad, {"step": step, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq},
                     lr, beta1, beta2, eps)
