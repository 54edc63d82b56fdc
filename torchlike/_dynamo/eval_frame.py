"""torch._dynamo.eval_frame's OptimizedModule: what ``compile(module)`` returns.

torchlike compiles nothing, but the wrapper is part of what a PyTorch
program sees after ``model = torch.compile(model)``: the original module
is its only child, ``_orig_mod``, so parameter names and state-dict keys
carry the ``_orig_mod.`` prefix (checkpoints of compiled models are saved
and loaded with it, or stripped of it by hand), while attribute reads and
writes, ``training`` and ``len`` pass through to the original.  Calling
it runs the original module eagerly (its hooks included), after the
wrapper's own hooks."""
from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module wrapping ``_orig_mod``; see the module docstring."""

    def __init__(self, mod):
        super().__init__()
        self._modules["_orig_mod"] = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    @property
    def training(self):
        mod = self.__dict__.get("_modules", {}).get("_orig_mod")
        return True if mod is None else mod.training

    @training.setter
    def training(self, value):
        # Module.__init__ writes its default into __dict__ (the property wins
        # over it); afterwards the flag is the original module's
        mod = self.__dict__.get("_modules", {}).get("_orig_mod")
        if mod is not None:
            mod.training = value

    def __len__(self):
        if not hasattr(type(self._orig_mod), "__len__"):
            raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")
        return len(self._orig_mod)

    def __getattr__(self, name):
        # looked up in __dict__ directly: copy and pickle probe attributes
        # before the instance has any state, and must get AttributeError
        mod = self.__dict__.get("_modules", {}).get("_orig_mod")
        if mod is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if name == "_orig_mod":
            return mod
        return getattr(mod, name)

    def _is_own(self, name):
        """The wrapper's own names: its class's, and its Module state."""
        return name == "_orig_mod" or hasattr(type(self), name) or name in self.__dict__

    def __setattr__(self, name, value):
        if self._is_own(name):
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if self._is_own(name):
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __dir__(self):
        own = super().__dir__()
        return sorted(set(own) | set(dir(self._orig_mod)))
