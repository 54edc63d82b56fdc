"""torchlike.func: PyTorch's ``torch.func`` spellings that the tape supports.

``functional_call`` runs a module with substituted parameters and buffers
(``nn.utils.stateless.functional_call``).  The function transforms
(``vmap``, ``grad``, ``jacrev`` ...) are not provided: gradients come from
``torchlike.autograd``."""
from ..nn.utils.stateless import _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers taken from
    a dict (or a sequence of dicts with distinct keys) of dotted names to
    tensors; the rest stay."""
    return _functional_call(module, parameter_and_buffer_dicts, args, kwargs, tie_weights,
                            strict)
