"""errors.py - the exceptions export raises, named as PyTorch's are.

PyTorch raises them from torch._dynamo.exc and
torch.fx.experimental.symbolic_shapes; torchlike has them here.  All are
RuntimeErrors, as PyTorch's are."""

__all__ = ["UserError", "ConstraintViolationError", "GuardOnDataDependentSymNode"]


class UserError(RuntimeError):
    """Export cannot honour what the user asked (a dynamic dimension the code
    specialises, a malformed ``dynamic_shapes``)."""


class ConstraintViolationError(RuntimeError):
    """An example input lies outside the range its ``Dim`` allows."""


class GuardOnDataDependentSymNode(RuntimeError):
    """Python control flow on a value computed from tensor data."""
