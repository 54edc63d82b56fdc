"""torchlike.func: PyTorch's ``torch.func`` spellings that the tape supports.

``functional_call`` runs a module with substituted parameters and buffers
(``nn.utils.stateless.functional_call``).  The function transforms
(``vmap``, ``grad``, ``jacrev`` ...) are not provided: gradients come from
``torchlike.autograd``."""
from ..nn.utils.stateless import functional_call

__all__ = ["functional_call"]
