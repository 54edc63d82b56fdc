"""The private helpers of torch.optim.optimizer that optimizers written
outside PyTorch import (copies of PyTorch's own optimizers, timm's,
schedule-free ...): the ``ParamsT`` annotation, the grad-mode decorator of
a ``step``, scalar and dtype helpers, the fused/foreach default, and the
docstring fragments such optimizers append to their docs.  Re-exported by
torchlike.optim.optimizer, where those programs import them from."""
import functools
import typing
from collections.abc import Iterable

from .. import _C
from .._C import Tensor
from .._composites import view_as_real

__all__ = ["ParamsT", "StateDict", "_use_grad_for_differentiable", "_get_value", "_to_scalar",
           "_get_scalar_dtype", "_view_as_real", "_stack_if_compiling",
           "_default_to_fused_or_foreach", "_foreach_doc", "_fused_doc", "_capturable_doc",
           "_differentiable_doc", "_maximize_doc"]

# what an optimizer's ``params`` may be: tensors, parameter groups, or
# (name, tensor) pairs (named_parameters())
ParamsT = typing.Union[Iterable[Tensor], Iterable[typing.Dict[str, typing.Any]],
                       Iterable[typing.Tuple[str, Tensor]]]

# what state_dict() returns
StateDict = typing.Dict[str, typing.Any]

# the devices whose parameters a fused step takes (torchlike's fused steps
# run on every device it has); torchlike's foreach steps are no faster than
# the loop on the CPU, so, as in PyTorch, foreach is only the default elsewhere
_FUSED_DEVICES = ("cpu", "cuda")
_FOREACH_DEVICES = ("cuda",)


def _use_grad_for_differentiable(step):
    """Decorate an optimizer's ``step``: it runs with grad mode on only when
    the optimizer was built with ``differentiable=True``, and the caller's
    grad mode is restored after."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        before = _C.is_grad_enabled()
        _C._set_grad_enabled(bool(self.defaults.get("differentiable", False)))
        try:
            return step(self, *args, **kwargs)
        finally:
            _C._set_grad_enabled(before)
    return wrapper


def _get_value(x):
    """A one-element tensor's value as a Python number; anything else as it is."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A one-element hyperparameter tensor of one or more dims as a 0-d
    tensor; a 0-d tensor or a Python number as it is."""
    return x.squeeze() if isinstance(x, Tensor) and x.dim() != 0 else x


def _get_scalar_dtype(is_fused=None):
    """The dtype of a step counter: float32 for a fused step, else float64
    when that is the default dtype, float32 otherwise."""
    if is_fused:
        return _C.float32
    return _C.float64 if _C.get_default_dtype() == _C.float64 else _C.float32


def _view_as_real(params, *state_and_grads):
    """Replace each complex parameter in ``params``, and the entries at the
    same place in the other lists, by its real view (in place in the lists)."""
    for i, p in enumerate(params):
        if p.is_complex():
            params[i] = view_as_real(p)
            for values in state_and_grads:
                values[i] = view_as_real(values[i])


def _stack_if_compiling(x):
    """``x`` as it is: nothing is compiled here, so nothing needs stacking."""
    return x


def _default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """(fused, foreach) when the user chose neither: fused if asked for and
    every parameter is a floating tensor on a device with fused steps;
    otherwise foreach when every parameter is on a device where it is the
    faster path; neither for a differentiable optimizer."""
    if differentiable:
        return False, False
    fused = use_fused and all(p is None or (type(p) in (Tensor, _parameter_type())
                                            and p.device.type in _FUSED_DEVICES
                                            and p.is_floating_point()) for p in params)
    foreach = not fused and all(p is None or (type(p) in (Tensor, _parameter_type())
                                              and p.device.type in _FOREACH_DEVICES)
                                for p in params)
    return fused, foreach


def _parameter_type():
    from ..nn.parameter import Parameter   # here: nn imports optim's users lazily
    return Parameter


_foreach_doc = """foreach (bool, optional): whether the foreach (multi-tensor) implementation
            is used; None chooses it where it is the faster path (default: None)"""
_fused_doc = """fused (bool, optional): whether the fused implementation is used, for
            float64, float32, float16 and bfloat16 parameters (default: None)"""
_capturable_doc = """capturable (bool, optional): whether the step may be captured in a
            graph (its step counters kept as tensors on the parameters' device)
            (default: False)"""
_differentiable_doc = """differentiable (bool, optional): whether autograd records the step,
            so that it can be differentiated (default: False)"""
_maximize_doc = """maximize (bool, optional): maximize the objective with respect to the
            params, instead of minimizing (default: False)"""
