"""``jit.script`` and the classes it returns, run eagerly.

torchlike has no TorchScript compiler: a scripted (or traced, or frozen)
module is a copy of the module whose class also derives from ScriptModule,
sharing the original's parameters and buffers (as PyTorch's does), and its
methods are the same Python code.  A scripted function is a ScriptFunction
wrapping the function.  ``code`` gives the Python source that runs.

The copy's class is made once per (kind, original class) and rebuilt by
name when unpickled (``jit.save``/``jit.load``)."""
import copy
import functools
import inspect
import warnings
from collections import namedtuple

from ..nn.modules.module import Module

Attribute = namedtuple("Attribute", ["value", "type"])
Attribute.__doc__ = """``self.x = jit.Attribute(value, type)`` in ``__init__``: in eager
code the pair itself; a scripted module holds ``value``."""


def _deprecated(name, instead="switch to `torchlike.compile` or `torchlike.export`"):
    """PyTorch's FutureWarning for its deprecated TorchScript entry points."""
    warnings.warn(f"`torchlike.jit.{name}` is deprecated. Please {instead}.", FutureWarning,
                  stacklevel=3)


class ScriptModule(Module):
    """What ``jit.script``, ``jit.trace`` and ``jit.freeze`` return for a
    module: the module's own methods, run eagerly."""
    _kind = "script"

    @property
    def code(self):
        """The Python source of ``forward`` (the code that runs)."""
        return inspect.getsource(type(self)._original_class.forward)

    @property
    def original_name(self):
        return type(self)._original_class.__name__

    def save(self, f, _extra_files=None):
        """``jit.save(self, f)``."""
        from ._serialization import save
        save(self, f, _extra_files=_extra_files)

    def extra_repr(self):
        return f"original_name={self.original_name}"

    def __reduce_ex__(self, protocol):
        state = {k: v for k, v in self.__dict__.items()}
        return _rebuild_module, (type(self)._kind, type(self)._original_class, state)


class RecursiveScriptModule(ScriptModule):
    """What ``jit.script(module)`` returns."""
    _kind = "script"


class TracedModule(ScriptModule):
    """A module (or submodule) returned by ``jit.trace``."""
    _kind = "traced"

    def _get_name(self):
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """What ``jit.trace(module, ...)`` returns."""
    _kind = "top_traced"


_KINDS = {"script": RecursiveScriptModule, "traced": TracedModule,
          "top_traced": TopLevelTracedModule}
_classes = {}


def _class_for(kind, cls):
    """The class ``kind`` (e.g. RecursiveScriptModule) mixed into ``cls``,
    so that the module's methods stay its own."""
    key = (kind, cls)
    if key not in _classes:
        base = _KINDS[kind]
        _classes[key] = type(base.__name__, (base, cls), {
            "_original_class": cls, "__module__": base.__module__,
            "__qualname__": base.__qualname__})
    return _classes[key]


def _rebuild_module(kind, cls, state):
    module = Module.__new__(_class_for(kind, cls))
    module.__dict__.update(state)
    return module


def _original_class(module):
    return type(module)._original_class if isinstance(module, ScriptModule) else type(module)


def _copy_as(module, kind, submodule_kind=None):
    """A shallow copy of ``module`` of class ``kind``: the same parameter and
    buffer tensors, its submodules copied the same way (as ``submodule_kind``)."""
    state = dict(module.__dict__)
    # the copy's own registries (parameters, buffers, submodules, hooks), same entries
    for name, value in state.items():
        if name.startswith("_") and isinstance(value, (dict, set)):
            state[name] = copy.copy(value)
    for name, value in list(state.items()):
        if isinstance(value, Attribute):
            state[name] = value.value
    for name, child in state["_modules"].items():
        if child is not None:
            state["_modules"][name] = _copy_as(child, submodule_kind or kind, submodule_kind)
    return _rebuild_module(kind, _original_class(module), state)


class ScriptFunction:
    """What ``jit.script``/``jit.trace`` return for a function: calling it
    calls the function."""

    def __init__(self, fn):
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def name(self):
        return getattr(self._fn, "__name__", type(self._fn).__name__)

    @property
    def qualified_name(self):
        return "__torch__." + self.name

    @property
    def code(self):
        """The Python source of the function (the code that runs)."""
        return inspect.getsource(self._fn)

    def save(self, f, _extra_files=None):
        from ._serialization import save
        save(self, f, _extra_files=_extra_files)

    def __reduce__(self):
        return ScriptFunction, (self._fn,)

    def __repr__(self):
        return f"<torchlike.jit.ScriptFunction {self.name}>"


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A module, function or class "compiled" for TorchScript: here, the same
    Python (see the module docstring).  A module gives a RecursiveScriptModule
    sharing its parameters; a function a ScriptFunction; a class itself."""
    _deprecated("script")
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _copy_as(obj, "script")
    if inspect.isclass(obj):
        if obj.__module__ == "builtins":
            raise RuntimeError("TorchScript classes must be new-style classes. Please inherit "
                               "from 'object'.")
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    raise TypeError(f"{type(obj)} is a built-in class" if type(obj).__module__ == "builtins"
                    else f"cannot script an object of type {type(obj).__name__}")


def _expect_script_module(mod, what):
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(f"{what} expects a ScriptModule as input. Please use "
                           "torchlike.jit.script or torchlike.jit.trace to script your "
                           "'nn.Module'.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A copy of an eval-mode ScriptModule whose parameters are constants:
    plain tensors outside autograd, so ``parameters()`` is empty (as PyTorch's
    frozen module), except the names in ``preserved_attrs``."""
    _deprecated("freeze", "use `torchlike.compile` instead")
    _expect_script_module(mod, "Freezing")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    keep = set(preserved_attrs or ())
    frozen = _copy_as(mod, type(mod)._kind)
    for module in frozen.modules():
        for name in list(module._parameters):
            p = module._parameters[name]
            if name in keep or p is None:
                continue
            del module._parameters[name]
            object.__setattr__(module, name, p.detach())
    return frozen


def optimize_for_inference(mod, other_methods=None):
    """``freeze`` (of the module in eval mode); no graph passes run here."""
    _deprecated("optimize_for_inference", "use `torchlike.compile` instead")
    _expect_script_module(mod, "optimize_for_inference")
    if mod.training:
        mod = freeze(mod.eval(), preserved_attrs=other_methods)
    return mod
