"""torch.optim.adamw's names: the AdamW class (torchlike.optim.adam holds it)
and the functional adamw, Adam's functional step with decoupled weight
decay."""
from .adam import AdamW, adam

__all__ = ["AdamW", "adamw"]


def adamw(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
          capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
          has_complex=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """One AdamW step over lists, as torch.optim.adamw.adamw."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach,
         capturable, differentiable, fused, grad_scale, found_inf, has_complex,
         decoupled_weight_decay=True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize)
