"""Stochastic weight averaging and exponential moving averages of a model,
as torch.optim.swa_utils: AveragedModel, SWALR, update_bn and the averaging
functions.

AveragedModel is an nn.Module when torchlike.nn provides Module; update_bn
works on any model with PyTorch's Module interface (modules(), train(),
training, and batch-norm layers that have reset_running_stats and momentum)."""
import itertools
import math

from .. import _C
from ..autograd.grad_mode import no_grad
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists: ema += (1 - decay) * (current - ema)."""

    @no_grad()
    def ema_update(ema_params, current_params, num_averaged):
        for ema, current in zip(ema_params, current_params):
            if ema.is_floating_point():
                ema.add_(current.sub(ema), alpha=1 - decay)
            else:
                ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running mean over lists: avg += (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_params, current_params, num_averaged):
        n = num_averaged.item() if isinstance(num_averaged, _C.Tensor) else num_averaged
        for averaged, current in zip(averaged_params, current_params):
            averaged.add_(current.sub(averaged), alpha=1.0 / (n + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA as a function of one parameter: returns the new average."""

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean as a function of one parameter: returns the new average."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _module_base():
    from .. import nn
    return getattr(nn, "Module", object)


class AveragedModel(_module_base()):
    """A copy of `model` whose parameters (and buffers, with use_buffers)
    are the running average of the model's over update_parameters() calls:
    the plain mean by default, or what avg_fn (one tensor at a time) or
    multi_avg_fn (lists of tensors, in place) computes, e.g.
    get_ema_multi_avg_fn(0.999) for an EMA.  n_averaged counts the updates."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        import copy
        if _module_base() is not object:
            super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        n_averaged = _C.tensor(0, dtype=_C.int64, device=device)
        if hasattr(self, "register_buffer"):
            self.register_buffer("n_averaged", n_averaged)
        else:
            self.n_averaged = n_averaged
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    if _module_base() is object:  # without nn.Module: the Module calls it uses
        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)

        def parameters(self):
            return self.module.parameters()

    def _tensors(self, model):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    @no_grad()
    def update_parameters(self, model):
        """Fold the model's current parameters into the average."""
        averaged = [p.detach() for p in self._tensors(self.module)]
        current = [p.detach().to(device=a.device) for p, a in zip(self._tensors(model),
                                                                   averaged)]
        n = int(self.n_averaged.item())
        if n == 0:
            for a, c in zip(averaged, current):
                a.copy_(c)
        elif self.avg_fn is not None:
            for a, c in zip(averaged, current):
                a.copy_(self.avg_fn(a, c, self.n_averaged.to(device=a.device)))
        elif self.multi_avg_fn is not None:
            self.multi_avg_fn(averaged, current, self.n_averaged)
        else:
            # PyTorch's running mean off CUDA: one tensor at a time, dividing
            # by n + 1 (an integer buffer such as num_batches_tracked under
            # use_buffers takes the mean truncated, as copy_ casts it)
            swa = get_swa_avg_fn()
            for a, c in zip(averaged, current):
                a.copy_(swa(a, c, self.n_averaged.to(device=a.device)))
        if not self.use_buffers:
            # Buffers (batch-norm statistics) are copied, not averaged.
            for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                b_avg.detach().copy_(b_model.detach().to(device=b_avg.device))
        self.n_averaged += 1


def _is_batchnorm(module):
    from ..nn.modules.batchnorm import _BatchNorm
    return isinstance(module, _BatchNorm)


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute every batch-norm layer's running statistics with one pass
    over `loader` (the cumulative average: momentum None), as needed after
    averaging weights.  A batch that is a list or tuple contributes its first
    element."""
    momenta = {}
    for module in model.modules():
        if _is_batchnorm(module):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's rate from its current value to swa_lr over
    anneal_epochs epochs (cosine or linear), then hold swa_lr."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = self._format_param(optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """As PyTorch's: the strategy's name, not its function (which a
        weights_only load could not rebuild)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        state_dict = {k: v for k, v in state_dict.items() if k != "anneal_func"}
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

    @staticmethod
    def _format_param(optimizer, swa_lrs):
        if isinstance(swa_lrs, (list, tuple)):
            if len(swa_lrs) != len(optimizer.param_groups):
                raise ValueError("swa_lr must have the same length as optimizer.param_groups. "
                                 f"swa_lr has {len(swa_lrs)} values, param_groups has "
                                 f"{len(optimizer.param_groups)}.")
            return list(swa_lrs)
        return [swa_lrs] * len(optimizer.param_groups)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_get_lr()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
