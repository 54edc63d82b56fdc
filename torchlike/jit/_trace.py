"""``jit.trace`` and ``jit.trace_module``, run eagerly.

Tracing runs the function (or module methods) once on the example inputs,
with ``is_tracing()`` True, and checks that the outputs are what a trace
can return (tensors, and tuples, lists and dicts of them).  The result then
runs the same Python on every call: unlike a PyTorch trace, control flow
that depends on the inputs follows the new inputs instead of being frozen
at the example's path."""
import threading

from .. import _C
from ..nn.modules.module import Module
from ._script import ScriptFunction, ScriptModule, _copy_as, _deprecated

_state = threading.local()


def is_tracing():
    """True while ``trace`` runs its example inputs (in this thread)."""
    return getattr(_state, "depth", 0) > 0


class TracingCheckError(Exception):
    """A traced function's check inputs did not run as the trace did."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        for part in (graph_diff_error, tensor_compare_error):
            if part is not None:
                self.message += part + "\n"
        super().__init__(self.message)


_BAD_OUTPUT = ("Only tensors, lists, tuples of tensors, or dictionary of tensors can be output "
               "from traced functions")


def _type_name(value):
    """TorchScript's name for an output's type (for the tracer's messages)."""
    if isinstance(value, _C.Tensor):
        return "Tensor"
    if isinstance(value, tuple):
        return "Tuple[" + ", ".join(_type_name(v) for v in value) + "]"
    if isinstance(value, list):
        return "List[" + (_type_name(value[0]) if value else "Tensor") + "]"
    if isinstance(value, dict):
        first = next(iter(value.items()), ("", None))
        key = type(first[0]).__name__
        return f"Dict[{key}, " + (_type_name(first[1]) if value else "Tensor") + "]"
    return type(value).__name__


def _check_output(value, whole):
    if isinstance(value, _C.Tensor):
        return
    if isinstance(value, (tuple, list)):
        if isinstance(value, list):
            kinds = {_type_name(v) for v in value}
            if len(kinds) > 1:
                found = " and ".join(dict.fromkeys(_type_name(v) for v in value))
                raise RuntimeError(f"Tracer cannot infer type of {whole}\n:List inputs to traced "
                                   f"functions must have consistent element type. Found "
                                   f"{found}")
        for v in value:
            _check_output(v, whole)
        return
    if isinstance(value, dict):
        found = list(dict.fromkeys(_type_name(v) for v in value.values()))
        if len(found) > 1:
            raise RuntimeError(f"Tracer cannot infer type of {whole}\n:Dictionary inputs to "
                               f"traced functions must have consistent type. Found "
                               f"{' and '.join(found)}")
        for v in value.values():
            _check_output(v, whole)
        return
    raise RuntimeError(_BAD_OUTPUT)


def _check_input(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            _check_input(v)
    elif isinstance(value, dict):
        for v in value.values():
            _check_input(v)
    elif not isinstance(value, _C.Tensor):
        raise ValueError(f"Auto nesting doesn't know how to process an input object of type "
                         f"{type(value).__name__}. Accepted types: tensors, or lists/tuples of "
                         f"them")


def _as_args(example_inputs):
    if isinstance(example_inputs, _C.Tensor):
        return (example_inputs,)
    args = tuple(example_inputs)
    _check_input(args)
    return args


def _run(fn, args, kwargs):
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        out = fn(*args, **kwargs)
    finally:
        _state.depth -= 1
    _check_output(out, out)
    return out


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Run ``func`` on ``example_inputs`` (a tensor or a tuple of arguments;
    or ``example_kwarg_inputs``, a dict) and return a callable that runs the
    same code: a TopLevelTracedModule for a module (its forward), a
    ScriptFunction for a function.  ``check_inputs`` (a list of argument
    tuples) are run too when ``check_trace``."""
    if isinstance(func, (ScriptModule, ScriptFunction)):
        return func
    _deprecated("trace")
    if isinstance(func, Module):
        if example_inputs is None and not isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        inputs = example_kwarg_inputs if example_kwarg_inputs is not None else example_inputs
        return trace_module(func, {"forward": inputs}, check_trace=check_trace,
                            check_inputs=[{"forward": c} for c in check_inputs or ()],
                            _kwargs=example_kwarg_inputs is not None)
    if example_kwarg_inputs is not None:
        _run(func, (), dict(example_kwarg_inputs))
    else:
        _run(func, _as_args(example_inputs), {})
    if check_trace:
        for args in check_inputs or ():
            _run(func, _as_args(args), {})
    return ScriptFunction(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False, _store_inputs=True,
                 _kwargs=False):
    """Trace the methods of ``mod`` named by the keys of ``inputs`` (a dict
    {method name: example inputs}); a TopLevelTracedModule sharing mod's
    parameters."""
    if not _kwargs:
        _deprecated("trace_method")
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    kwargs = _kwargs or example_inputs_is_kwarg
    for checks in [inputs] + list(check_inputs or () if check_trace else ()):
        for name, example in checks.items():
            method = mod if name == "forward" else getattr(mod, name)
            if kwargs:
                _run(method, (), dict(example))
            else:
                _run(method, _as_args(example), {})
    return _copy_as(mod, "top_traced", "traced")
