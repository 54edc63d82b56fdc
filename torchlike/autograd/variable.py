"""torchlike.autograd.Variable: the pre-0.4 wrapper, kept for old code.

``Variable(tensor, requires_grad=False)`` returns a new tensor sharing
tensor's data, with no history (a leaf) and the given ``requires_grad``;
``isinstance(t, Variable)`` is true for every tensor, as in PyTorch, and
``Variable._execution_engine`` is the engine (``queue_callback``,
``run_backward``)."""
import warnings

from .. import _C
from .graph import _ImperativeEngine

__all__ = ["Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=VariableMeta):
    _execution_engine = _ImperativeEngine()  # queue_callback, run_backward

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", stacklevel=2)
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
