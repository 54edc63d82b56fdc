"""torchlike.jit: PyTorch's TorchScript API, run eagerly.

torchlike has no TorchScript compiler or interpreter.  ``script``,
``trace``, ``freeze`` and ``optimize_for_inference`` return objects that run
the same Python code as their input (a module's copy sharing its
parameters, or a function wrapper) and are instances of ScriptModule /
ScriptFunction; ``save``/``load`` round-trip them in torchlike.save's format;
the decorators and type markers are accepted and return what they are given.
docs/api_modules.md lists the differences."""
import contextlib
import typing
import warnings

from ..futures import Future
from ._script import (Attribute, ScriptModule, RecursiveScriptModule, TracedModule,  # noqa: F401
                      TopLevelTracedModule, ScriptFunction, script, freeze,
                      optimize_for_inference)
from ._trace import trace, trace_module, is_tracing, TracingCheckError  # noqa: F401
from ._serialization import save, load  # noqa: F401

Final = typing.Final

__all__ = ["Attribute", "Error", "Final", "Future", "ScriptFunction", "ScriptModule",
           "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule", "TracerWarning",
           "ScriptWarning", "TracingCheckError", "annotate", "enable_onednn_fusion", "export",
           "fork", "freeze", "ignore", "interface", "is_scripting", "is_tracing", "isinstance",
           "load", "onednn_fusion_enabled", "optimize_for_inference", "optimized_execution",
           "fuser", "save", "script", "script_if_tracing", "script_method",
           "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused", "wait"]


class Error(RuntimeError):
    """The exception TorchScript code raises (a RuntimeError)."""


class TracerWarning(Warning):
    """Warnings about what a trace cannot record."""


class ScriptWarning(Warning):
    """Warnings from the TorchScript compiler."""


def is_scripting():
    """False: no code runs as TorchScript here (so the eager branch of
    ``if not torch.jit.is_scripting():`` is taken, as in eager PyTorch)."""
    return False


def _decorator(fn, kwargs, marker):
    """``@d`` and ``@d(...)`` for markers that return the function."""
    if fn is None:
        return lambda f: _decorator(f, {}, marker)
    try:
        setattr(fn, "_torchscript_modifier", marker)
    except (AttributeError, TypeError):
        pass
    return fn


def ignore(drop=False, **kwargs):
    """Mark a function to be left as Python by the compiler: it is returned
    as it is (everything is Python here)."""
    if callable(drop):
        return _decorator(drop, {}, "ignore")
    return lambda fn: _decorator(fn, {}, "drop" if drop else "ignore")


def unused(fn):
    """Mark a method the compiler replaces with a raise: returned as it is."""
    return _decorator(fn, {}, "unused")


def export(fn):
    """Mark a method to compile besides forward: returned as it is."""
    return _decorator(fn, {}, "export")


def script_method(fn):
    return fn


def script_if_tracing(fn):
    return fn


def interface(obj):
    """Mark a class as a TorchScript interface: returned as it is."""
    return obj


def annotate(the_type, the_value):
    """``the_value`` (the type is for the compiler)."""
    return the_value


def isinstance(obj, target_type):
    """Python's isinstance, with typing generics (``List[int]``) checked by
    their origin class."""
    import builtins
    origin = typing.get_origin(target_type)
    return builtins.isinstance(obj, origin if origin is not None else target_type)


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` now and return a completed Future of its
    result (or of the exception it raised); ``wait`` gives the value."""
    from ._script import _deprecated
    _deprecated("fork", "use `torchlike.compile` instead")
    fut = Future()
    try:
        fut.set_result(func(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - the future carries it to wait()
        fut.set_exception(e)
    return fut


def wait(future):
    """The value of a Future from ``fork``."""
    return future.wait()


_onednn_fusion = [False]
_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]


def enable_onednn_fusion(enabled):
    """Kept and read back by ``onednn_fusion_enabled``; nothing fuses here."""
    _onednn_fusion[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn_fusion[0]


def set_fusion_strategy(strategy):
    """Kept (and the previous one returned); nothing fuses here."""
    previous = _fusion_strategy[0]
    _fusion_strategy[0] = list(strategy)
    return previous


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


@contextlib.contextmanager
def fuser(name):
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002
    yield


class strict_fusion:
    """A context in which PyTorch errors if ops do not fuse; nothing fuses
    here and nothing is checked."""

    def __enter__(self):
        warnings.warn("Only works in script mode", stacklevel=2)
        return self

    def __exit__(self, *exc):
        return False
