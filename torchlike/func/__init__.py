"""torchlike.func: PyTorch's ``torch.func`` on the autograd tape.

``functional_call`` runs a module with substituted parameters and buffers
(``nn.utils.stateless.functional_call``); ``stack_module_state`` stacks an
ensemble's.  The function transforms: ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian`` (recorded on the
tape, jvp by the double-vjp trick: _eager_transforms.py) and ``vmap`` (one call
of the function per batch element: _vmap.py).  docs/autograd.md says how they
map onto the tape and what per-element vmap costs.  ``functionalize`` and
``replace_all_batch_norm_modules_``: _functionalize.py."""
from ..nn.utils.stateless import _functional_call
from ._eager_transforms import (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd,
                                hessian)
from ._vmap import vmap
from ._module_state import stack_module_state
from ._functionalize import functionalize, replace_all_batch_norm_modules_
from . import _batched
from .. import _C

__all__ = ["debug_unwrap", "functional_call", "grad", "grad_and_value", "vjp", "jvp", "linearize",
           "jacrev", "jacfwd", "hessian", "vmap", "stack_module_state", "functionalize",
           "replace_all_batch_norm_modules_"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers taken from
    a dict (or a sequence of dicts with distinct keys) of dotted names to
    tensors; the rest stay."""
    return _functional_call(module, parameter_and_buffer_dicts, args, kwargs, tie_weights,
                            strict)


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under vmap's batching of ``tensor``, for looking at while
    debugging: with ``recurse`` the plain tensor holding every level's batch
    (batch dims first, outermost level first), else the tensor batched at
    the enclosing levels only (the innermost batch dim becomes its first
    dim).  Anything else, including the tensors grad's transforms see (plain
    tensors here, not wrappers), is returned as it is.  Using the result
    inside the transformed function gives undefined results, as in PyTorch."""
    if type(tensor) is not _batched.BatchedTensor:
        return tensor
    levels = tensor._levels
    with _C.DisableTorchFunction():
        plain = _C.Tensor.as_subclass(tensor.view_as(tensor), _C.Tensor)
    if recurse:
        return plain
    return _batched.wrap(plain, levels[:-1])
