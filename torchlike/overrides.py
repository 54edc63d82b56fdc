"""The ``__torch_function__`` protocol (PyTorch's ``torch.overrides``).

A call of a torchlike function, Tensor method, operator or property whose
arguments include an object whose type defines ``__torch_function__`` (a
Tensor subclass that keeps or overrides it, or any other type defining it),
or that runs under a :class:`TorchFunctionMode`, is handed to those
``__torch_function__`` implementations instead of running.

How calls get here: every entry point runs one test in C
(``src/ndcore/bindings/py_torch_function.h``) and, when it says yes, calls
:func:`_dispatch`.  The op functions and the operator slots run the test
themselves; every other public callable and Tensor property is put behind a
C wrapper that runs it, by :func:`_install` at import (``docs/bindings.md``,
"``__torch_function__``")."""
import contextlib
import functools
import threading
import types as _types

from . import _C

Tensor = _C.Tensor

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
    "handle_torch_function", "has_torch_function", "has_torch_function_unary",
    "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
    "resolve_name", "wrap_torch_function", "enable_reentrant_dispatch", "TorchFunctionMode",
]

_disabled_torch_function_impl = _C._disabled_torch_function_impl
has_torch_function = _C._has_torch_function
has_torch_function_unary = _C._has_torch_function_unary
has_torch_function_variadic = _C._has_torch_function_variadic


# ---- which arguments override, in which order -------------------------------------------

def _overrides(arg):
    t = type(arg)
    if t is Tensor:  # the plain type runs the op itself, as PyTorch's C++ does
        return False
    f = getattr(t, "__torch_function__", None)
    return f is not None and f is not _disabled_torch_function_impl


def _get_overloaded_args(relevant_args):
    """The arguments whose ``__torch_function__`` is tried, one per type:
    subclasses before their superclasses, otherwise left to right."""
    seen = set()
    out = []
    for arg in relevant_args:
        t = type(arg)
        if t in seen or not _overrides(arg):
            continue
        seen.add(t)
        index = len(out)
        for i, earlier in enumerate(out):
            if issubclass(t, type(earlier)):
                index = i
                break
        out.insert(index, arg)
    return out


def _relevant(args, kwargs):
    """The arguments and keyword values, lists and tuples opened one level
    (torch.cat's tensors), as the C test reads them."""
    for a in (*args, *kwargs.values()):
        if type(a) in (list, tuple):
            yield from a
        else:
            yield a


# ---- the mode stack (per thread) -----------------------------------------------------------

_local = threading.local()


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _push_mode(mode):
    s = _stack()
    s.append(mode)
    _C._set_torch_function_modes(len(s))


def _pop_mode():
    s = _stack()
    if not s:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = s.pop()
    _C._set_torch_function_modes(len(s))
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _get_current_function_mode():
    s = _stack()
    return s[-1] if s else None


def _get_current_function_mode_stack():
    return list(_stack())


def _is_torch_function_mode_enabled():
    return _C._is_torch_function_mode_enabled()


class TorchFunctionMode:
    """A context manager whose ``__torch_function__(func, types, args,
    kwargs)`` receives every torchlike call made in its scope (creation
    functions included).  Modes stack; while one handles a call it is off the
    stack, so calling ``func(*args, **kwargs)`` there runs the next mode down
    (or the function itself)."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


# ---- dispatch ----------------------------------------------------------------------------

def _name_of(func):
    name = resolve_name(func)
    if name is None:
        name = f"{getattr(func, '__module__', None)}.{getattr(func, '__name__', func)}"
    return name


def _call_overrides(public_api, overloaded, args, kwargs, python_level):
    types = tuple(type(a) for a in overloaded)
    if _C._is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = _name_of(public_api)
    if python_level:
        msg = (f"no implementation found for '{name}' on types that implement "
               f"__torch_function__: {[type(a) for a in overloaded]}")
        if _C._is_torch_function_mode_enabled():
            msg += f" nor in mode {_get_current_function_mode()}"
        raise TypeError(msg)
    handlers = "".join(f"  - tensor subclass {type(a)}\n" for a in overloaded)
    if _C._is_torch_function_mode_enabled():
        handlers += f"  - mode object {_get_current_function_mode()}\n"
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{handlers}\nFor more information, try "
                    f"re-running with TORCH_LOGS=not_implemented")


def _dispatch(func, args, kwargs):
    """The C entry points' hand-off: func(*args, **kwargs) had an argument
    with __torch_function__, or ran under a mode."""
    overloaded = (_get_overloaded_args(_relevant(args, kwargs))
                  if _C._is_torch_function_enabled() else [])
    wrapped = getattr(func, "__wrapped__", None)
    python_level = isinstance(wrapped, _types.FunctionType)
    return _call_overrides(func, overloaded, args, kwargs, python_level)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Run ``public_api``'s overrides: the current mode's, then those of the
    overloaded arguments among ``relevant_args`` (subclasses first)."""
    overloaded = (_get_overloaded_args(relevant_args)
                  if _C._is_torch_function_enabled() else [])
    return _call_overrides(public_api, overloaded, args, kwargs, True)


def wrap_torch_function(dispatcher):
    """Decorator: ``dispatcher(*args, **kwargs)`` returns the relevant
    arguments of the decorated function, which then honours
    ``__torch_function__`` on them."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """PyTorch re-enables __torch_dispatch__ in its scope; torchlike has no
    __torch_dispatch__ layer, so this changes nothing."""
    yield


def is_tensor_like(inp):
    """A Tensor, or an object (or type) whose type defines __torch_function__."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


# ---- Tensor's default __torch_function__ ----------------------------------------------------

@functools.lru_cache(None)
def get_default_nowrap_functions():
    """Functions whose results Tensor.__torch_function__ leaves as they are
    (a subclass's .grad is whatever backward stored)."""
    return {Tensor._base.__get__, Tensor.grad.__get__}


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):  # also return_types.sort ... (built from an iterable)
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Run func with subclasses' __torch_function__ off, and give results of
    the base Tensor type the class ``cls``."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _C.DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)


_tensor_torch_function.__name__ = "__torch_function__"
_tensor_torch_function.__qualname__ = "Tensor.__torch_function__"


# ---- names ---------------------------------------------------------------------------------

def short_name(func):
    """The name a subclass's __torch_function__ dispatches on: the function's
    own name, or "get:attr" / "set:attr" for a property's getter and setter."""
    name = getattr(func, "__name__", "")
    if name not in ("__get__", "__set__"):
        return name
    attr = getattr(getattr(func, "__self__", None), "__name__", None)
    if attr is None:
        attr = (resolve_name(func) or "").rsplit(".", 2)[-2]
    return ("get:" if name == "__get__" else "set:") + attr


def resolve_name(f):
    """The public name of a torchlike function, method or property getter
    ("torchlike.Tensor.add", "torchlike.Tensor.shape.__get__"), or None."""
    if isinstance(f, _types.MethodWrapperType):  # Tensor.shape.__get__
        owner = getattr(f.__self__, "_tf_name", None)
        return f"{owner}.{f.__name__}" if owner else None
    name = getattr(f, "_tf_name", None)
    if isinstance(name, str):
        return name
    if getattr(f, "__objclass__", None) is Tensor:  # an operator slot: Tensor.__rsub__
        return f"torchlike.Tensor.{f.__name__}"
    return None


def _public(name):
    """The object a public name names (how wrappers pickle)."""
    import importlib
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


# ---- which callables are wrapped -------------------------------------------------------------

# Namespaces whose public callables reach __torch_function__, with the
# prefix of their names.
def _namespaces():
    import torchlike
    from . import linalg, fft, special, sparse
    from .nn import functional
    # an object held by two namespaces is named by the first (one wrapper)
    return [("torchlike.Tensor", Tensor), ("torchlike.nn.functional", functional),
            ("torchlike.linalg", linalg), ("torchlike.fft", fft),
            ("torchlike.special", special), ("torchlike.sparse", sparse),
            ("torchlike", torchlike)]


# Public callables that are not ops on tensors: configuration, seeding, files,
# transforms of functions; PyTorch does not dispatch them either.
_NOT_OPS = frozenset("""
    save load compile vmap cond while_loop typename is_tensor is_storage manual_seed seed
    initial_seed is_grad_enabled is_inference_mode_enabled is_autocast_enabled
    is_autocast_cpu_enabled is_autocast_cache_enabled clear_autocast_cache get_autocast_dtype
    get_autocast_cpu_dtype get_autocast_gpu_dtype set_autocast_enabled set_autocast_dtype
    set_autocast_cache_enabled set_autocast_cpu_enabled set_autocast_cpu_dtype
    set_autocast_gpu_dtype autocast_increment_nesting autocast_decrement_nesting
    is_anomaly_enabled is_anomaly_check_nan_enabled are_deterministic_algorithms_enabled
    is_deterministic_algorithms_warn_only_enabled use_deterministic_algorithms
    promote_types can_cast from_dlpack to_dlpack device finfo iinfo
    as_subclass _make_subclass
    __new__ __init__ __init_subclass__ __subclasshook__ __torch_function__ __class__
    __class_getitem__ __dict__ __weakref__ __hash__ __dir__ __iter__ __array_priority__
    __array_function__ __array_ufunc__ __array_namespace__ __array_interface__
    __cuda_array_interface__ __reduce__ __reduce_ex__ __getstate__ __setstate__
    __deepcopy__ __copy__ __doc__ __module__ __getattribute__ __setattr__ __delattr__
    __dlpack__ __dlpack_device__ __getattr__
""".split())


def _not_op(name, prefix="torchlike"):
    # _NOT_OPS names top-level functions and Tensor's protocol methods: in
    # the other namespaces the same name is an op (linalg.cond is no torch.cond).
    # get_/set_ names are configuration, unless Tensor has a method of that
    # name (get_device, set_): then they are ops on tensors, as in PyTorch.
    listed = name in _NOT_OPS and prefix in ("torchlike", "torchlike.Tensor")
    configuration = name.startswith(("set_", "get_")) and not hasattr(Tensor, name)
    return (listed or configuration or name.startswith(("_set", "_get"))
            or (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))))


# the kinds of callables that are functions (not dtypes, legacy tensor types ...)
_FUNCTION_TYPES = (_types.FunctionType, _types.BuiltinFunctionType, _types.MethodDescriptorType,
                   type(_C.add), type(_C.cat), _C._Spelled)


def _wrappable(obj, tensor_dict):
    if tensor_dict:
        d = type(obj)
        if getattr(d, "__set__", None) is not None and getattr(d, "__get__", None) is not None:
            return True  # a property (C getset or member, or Python property)
    return isinstance(obj, _FUNCTION_TYPES)


def _defined_here(obj):
    """A torchlike function, not one a namespace imported (math.prod, NumPy's)."""
    if isinstance(obj, _FUNCTION_TYPES[:3]):
        return str(getattr(obj, "__module__", None)).startswith("torchlike")
    return True  # op functions, recorded and spelled callables are torchlike's


_WRAPPERS = set()
_wrapped = {}  # id(original) -> its wrapper, shared by every namespace that holds it


def _wrap(obj, name):
    if type(obj) in _WRAPPERS or hasattr(obj, "_tf_name"):
        return obj  # wrapped already, or an op function (it runs the test itself)
    w = _wrapped.get(id(obj))
    if w is None or w.__wrapped__ is not obj:
        # one wrapper per object, named where it is first found: the same
        # function under two names stays one object (special.gammainc is igamma)
        w = _wrapped[id(obj)] = _C._tf_wrap(obj, name)
        _WRAPPERS.add(type(w))
    return w


def _install():
    """Put every public callable and Tensor property of the namespaces behind
    the __torch_function__ test, and give Tensor its default."""
    Tensor.__torch_function__ = classmethod(_tensor_torch_function)
    _C._set_torch_function_hooks(_dispatch, _public)
    for prefix, ns in _namespaces():
        tensor_dict = ns is Tensor
        items = list(vars(ns).items())
        for name, obj in items:
            if _not_op(name, prefix) or not _wrappable(obj, tensor_dict):
                continue
            if not tensor_dict and not _defined_here(obj):
                continue  # imported helpers (math, NumPy ...)
            w = _wrap(obj, f"{prefix}.{name}")
            if w is not obj:
                setattr(ns, name, w)


# ---- listings ------------------------------------------------------------------------------

@functools.lru_cache(None)
def get_ignored_functions():
    """Public callables that never reach __torch_function__."""
    out = set()
    for prefix, ns in _namespaces():
        for name, obj in vars(ns).items():
            if _not_op(name, prefix) and not name.startswith("_") and callable(obj) \
                    and not isinstance(obj, type):
                out.add(obj)
    return out


@functools.lru_cache(None)
def _overridable():
    out = {}
    for prefix, ns in _namespaces():
        for name, obj in vars(ns).items():
            if resolve_name(obj) == f"{prefix}.{name}":
                if not callable(obj):  # a property: its getter is what dispatches
                    obj = obj.__get__
                out.setdefault(ns, []).append(obj)
    return out


def get_overridable_functions():
    """{namespace: [functions that reach __torch_function__]}."""
    return {ns: list(fs) for ns, fs in _overridable().items()}


def get_testing_overrides():
    """{overridable function: a dummy taking any arguments and returning -1}."""
    return {f: (lambda *args, **kwargs: -1) for fs in _overridable().values() for f in fs}


def is_tensor_method_or_property(func):
    """Is func a Tensor method or property getter (its first argument is self)?"""
    name = resolve_name(func)
    return bool(name) and name.startswith("torchlike.Tensor.")
