"""_symbolic_trace.py - Tracer and symbolic_trace: run Python code on Proxies.

``Tracer.trace(root)`` makes one placeholder per argument of ``root``'s
forward (or of the function), calls it with Proxies and records what happens:

- ``Module.__call__`` is patched for the duration: a leaf module (by default
  torchlike.nn's own modules, except Sequential) becomes one ``call_module``
  node named by its path in ``root.named_modules()``; other modules are traced
  through.
- ``Module.__getattr__`` is patched so that a parameter read as an attribute
  becomes a ``get_attr`` node (buffers and other tensors become ``get_attr``
  nodes when used as arguments; tensors that are no attribute of the root are
  stored on it as ``_tensor_constant<N>``).
- functions named with ``wrap()`` and the public functions of ``math`` are
  patched where the traced code's globals (and the math module) hold them, so
  calls with Proxies become ``call_function`` nodes.

Every patch is undone when tracing ends, also when it raises.
"""
import builtins
import collections
import functools
import inspect
import math
import warnings

from torchlike.utils import _pytree as pytree

from .graph import Graph
from .node import map_aggregate
from .proxy import Proxy, ParameterProxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "ProxyableClassMeta"]


class PHBase:
    """Marks a concrete_args entry that stays a placeholder."""

    def __repr__(self):
        return "PH"


PH = PHBase()


class ProxyableClassMeta(type):
    """A metaclass whose classes are constructed as call_function nodes when
    built from Proxies."""

    def __call__(cls, *args, **kwargs):
        found = []
        map_aggregate((args, kwargs), lambda a: found.append(a) if isinstance(a, Proxy) else a)
        if found:
            return found[0].tracer.create_proxy("call_function", cls, args, kwargs)
        return super().__call__(*args, **kwargs)


# (globals dict, name) pairs registered by wrap()
_wrapped_fns_to_patch = []


def wrap(fn_or_name):
    """Record calls of this free function as ``call_function`` nodes instead of
    tracing through it.  Call at module scope, with the function or its name
    (for a builtin like ``len``); returns its argument (usable as a decorator)."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable "
                           "or string name")
    if callable(fn_or_name):
        if isinstance(fn_or_name, str):
            raise AssertionError
        fn_name = fn_or_name.__name__
    else:
        fn_name = fn_or_name
    frame = inspect.currentframe()
    caller = frame.f_back if frame is not None else None
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch.append((caller.f_globals, fn_name))
    return fn_or_name


def _assert_is_none(value, msg):
    assert value is None, msg


class _Patcher:
    """Attribute and dict patches, undone in reverse order by ``restore``."""

    def __init__(self):
        self._undo = []
        self._visited = set()

    def patch(self, frame_dict, name, new_fn):
        if name in frame_dict:
            old = frame_dict[name]
            self._undo.append(lambda: frame_dict.__setitem__(name, old))
        else:
            self._undo.append(lambda: frame_dict.pop(name, None))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name, new_fn):
        old = getattr(cls, name)
        self._undo.append(lambda: setattr(cls, name, old))
        setattr(cls, name, new_fn)

    def visit_once(self, thing):
        key = id(thing)
        if key in self._visited:
            return False
        self._visited.add(key)
        return True

    def restore(self):
        while self._undo:
            self._undo.pop()()


def _find_proxy(*objects):
    found = []
    map_aggregate(objects, lambda a: found.append(a) if isinstance(a, Proxy) else a)
    return found[0] if found else None


def _make_wrapped(orig):
    @functools.wraps(orig)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            out = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
            out.node.meta["is_wrapped"] = True  # code generation repeats the wrap()
            return out
        return orig(*args, **kwargs)
    wrapped.__fx_original__ = orig
    return wrapped


class Tracer(TracerBase):
    """Turns a module or function into a Graph (``trace``).  Override
    ``is_leaf_module`` to choose which modules stay single nodes."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for m in autowrap_modules for name, value in vars(m).items()
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self._autowrap_search = list(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root = None
        self.graph = None
        self.tensor_attrs = {}
        self._names_cache = None
        self._pytree_in = False
        self.scope = None
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}

    # ---- decisions -------------------------------------------------------------------

    def is_leaf_module(self, m, module_qualified_name):
        """torchlike.nn's own module classes are leaves (except Sequential)."""
        from torchlike.nn import Sequential
        return (m.__module__.startswith("torchlike.nn") and not isinstance(m, Sequential))

    def path_of_module(self, mod):
        """The qualified name of ``mod`` in the root (``root.named_modules()``)."""
        if self.submodule_paths:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A leaf module becomes a call_module node; others run ``forward``
        (which traces their body)."""
        module_qualified_name = self.path_of_module(m)
        pushed = module_qualified_name not in self.module_stack
        if pushed:
            self.module_stack[module_qualified_name] = (module_qualified_name, type(m))
        try:
            if not self.is_leaf_module(m, module_qualified_name):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualified_name, args, kwargs)
        finally:
            if pushed:
                del self.module_stack[module_qualified_name]

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A parameter read as a module attribute becomes a get_attr Proxy (one
        per parameter); other attributes are returned as they are."""
        from torchlike.nn import Parameter
        if isinstance(attr_val, Parameter):
            n = self._param_names().get(id(attr_val))
            if n is not None:
                if n not in parameter_proxy_cache:
                    if self.param_shapes_constant:
                        node = self.create_node("get_attr", n, (), {})
                        parameter_proxy_cache[n] = ParameterProxy(self, node, n, attr_val)
                    else:
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {})
                return parameter_proxy_cache[n]
        return attr_val

    def create_arg(self, a):
        """As TracerBase.create_arg, and: parameters and buffers of the root
        become get_attr nodes, other tensors are stored on the root as
        ``_tensor_constant<N>``; a module argument is an error."""
        import torchlike
        from torchlike.nn import Module, Parameter
        if isinstance(a, Parameter):
            n = self._param_names().get(id(a))
            if n is not None:
                return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, torchlike.Tensor):
            n_ = self._buffer_names().get(id(a))
            if n_ is not None:
                return self.create_node("get_attr", n_, (), {})
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while True:
                    qualname = f"_tensor_constant{i}"
                    if not hasattr(self.root, qualname):
                        break
                    i += 1
                self.tensor_attrs[id(a)] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, Module):
            raise NotImplementedError(f"argument of type: {type(a)}")
        return super().create_arg(a)

    def _param_names(self):
        """{id(parameter): its qualified name in the root}, made once per trace."""
        if self._names_cache is None or self._names_cache[0] is not self.root:
            params = {}
            for n, p in self.root.named_parameters():
                params.setdefault(id(p), n)
            buffers = {}
            for n, b in self.root.named_buffers():
                buffers.setdefault(id(b), n)
            self._names_cache = (self.root, params, buffers)
        return self._names_cache[1]

    def _buffer_names(self):
        self._param_names()
        return self._names_cache[2]

    # ---- arguments of the root -------------------------------------------------------

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Placeholders for root_fn's parameters; returns (fn, args to call it with)."""
        fn_for_analysis = inspect.unwrap(root_fn)
        co = fn_for_analysis.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        orig_args = list(co.co_varnames)
        names_iter = iter(co.co_varnames)
        args = []
        skip_arg_idx = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip_arg_idx = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn_for_analysis)
        if isinstance(concrete_args, tuple):
            names = orig_args[skip_arg_idx:total_args]
            if len(concrete_args) != len(names):
                raise RuntimeError(f"Tracing expected {len(names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(names, concrete_args))
        concrete_args = concrete_args or {}

        # containers holding PH make the placeholders the leaves of the inputs:
        # forward then flattens its arguments (_PyTreeCodeGen), as in PyTorch
        self._pytree_in = any(isinstance(v, (dict, list, tuple)) and _holds_ph(v)
                              for v in concrete_args.values())

        def proxy_placeholder(name):
            if name in concrete_args:
                cnt = 0

                def replace_ph(x):
                    nonlocal cnt
                    cnt += 1
                    param = sig.parameters[name]
                    default = () if param.default is inspect.Parameter.empty \
                        or self._pytree_in else (param.default,)
                    out = self.create_proxy("placeholder", f"{name}_{cnt}", default, {})
                    if isinstance(x, PHBase):
                        return out
                    if type(x) in (bool, int, float, str, complex):
                        self.create_proxy("call_function", _torchlike_assert(),
                                          (out == x, f"{name} has been specialized to have "
                                           f"value {x} but got another value"), {})
                    elif x is None:
                        self.create_proxy("call_function", _assert_is_none,
                                          (out, f"{name} has been specialized to have value "
                                           "None but got another value"), {})
                    else:
                        warnings.warn(f"Was not able to add assertion to guarantee correct "
                                      f"input {name} to specialized function. It is up to "
                                      "the user to make sure that your inputs match the "
                                      "inputs you specialized the function with.")
                    return x
                value = concrete_args[name]
                if self._pytree_in:
                    leaves, spec = pytree.tree_flatten(value)
                    return pytree.tree_unflatten([replace_ph(leaf) for leaf in leaves], spec)
                return replace_ph(value)
            if name[0] == "*":
                default = ()
            else:
                param = sig.parameters[name]
                default = () if param.default is inspect.Parameter.empty else (param.default,)
            return self.create_proxy("placeholder", name, default, {},
                                     type_expr=fn_for_analysis.__annotations__.get(name, None))

        arg_names = [next(names_iter) for _ in range(skip_arg_idx, total_args)]
        placeholders = [proxy_placeholder(name) for name in arg_names]
        # *args and **kwargs get placeholders of their own (``*args``), but
        # the traced call passes them nothing: they stay unused, as in PyTorch.
        if co.co_flags & inspect.CO_VARARGS:
            proxy_placeholder("*" + next(names_iter))
        if co.co_flags & inspect.CO_VARKEYWORDS:
            proxy_placeholder("**" + next(names_iter))
        n_positional = co.co_argcount - skip_arg_idx
        if self._pytree_in:
            if co.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or \
                    n_positional != len(arg_names):
                raise NotImplementedError("torchlike.fx: containers in concrete_args need a "
                                          "function of positional parameters only")
            self._in_structure = (arg_names, pytree.tree_structure(
                [concrete_args[n] if n in concrete_args else PH for n in arg_names]))
        args.extend(placeholders[:n_positional])
        kw_values = dict(zip(arg_names[n_positional:], placeholders[n_positional:]))
        if kw_values:
            def flat_fn(*a):
                return root_fn(*a, **kw_values)
            flat_fn.__annotations__ = getattr(root_fn, "__annotations__", {})
            return flat_fn, args
        return root_fn, args

    # ---- tracing ---------------------------------------------------------------------

    def trace(self, root, concrete_args=None):
        """Trace ``root`` (a Module: its forward; or a function) into a new Graph."""
        from torchlike.nn import Module
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            self.traced_func_name = "forward"
        else:
            self.root = Module()
            fn = root
            self.traced_func_name = getattr(root, "__name__", "forward")
        tracer_cls = getattr(self, "__class__", None)
        self.graph = Graph(tracer_cls=tracer_cls)
        self.tensor_attrs = {}
        self._names_cache = None
        self._collect_tensor_attrs(self.root, [])
        self.submodule_paths = {id(mod): name for name, mod in self.root.named_modules()}

        fn_globals = getattr(inspect.unwrap(fn), "__globals__", {})
        fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)

        parameter_proxy_cache = {}
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__
        tracer = self

        @functools.wraps(orig_getattr)
        def module_getattr_wrapper(mod, attr):
            attr_val = orig_getattr(mod, attr)
            return tracer.getattr(attr, attr_val, parameter_proxy_cache)

        @functools.wraps(orig_call)
        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            return tracer.call_module(mod, forward, args, kwargs)

        patcher = _Patcher()
        try:
            patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
            patcher.patch_method(Module, "__call__", module_call_wrapper)
            self._patch_wrapped_functions(patcher)
            self._autowrap_check(patcher, fn_globals)
            for module in self._autowrap_modules:
                self._autowrap_check(patcher, vars(module))
            result = fn(*args)
            out_spec = None
            if self._pytree_in:
                result, out_spec = pytree.tree_flatten(result)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=fn.__annotations__.get("return", None)
                             if hasattr(fn, "__annotations__") else None)
            if self._pytree_in:
                from .graph import _PyTreeCodeGen, _PyTreeInfo
                orig_args, in_spec = self._in_structure
                self.graph.set_codegen(_PyTreeCodeGen(_PyTreeInfo(orig_args, in_spec,
                                                                  out_spec)))
        finally:
            patcher.restore()
            self.submodule_paths = None
        return self.graph

    def _collect_tensor_attrs(self, m, prefix_atoms):
        """Tensors held as plain attributes of the root's modules (not
        parameters or buffers): used as arguments, they become get_attr nodes
        of their own path rather than ``_tensor_constant<N>``."""
        import torchlike
        for k, v in vars(m).items():
            if isinstance(v, torchlike.Tensor):
                self.tensor_attrs.setdefault(id(v), ".".join(prefix_atoms + [k]))
        for k, child in m.named_children():
            self._collect_tensor_attrs(child, prefix_atoms + [k])

    def _patch_wrapped_functions(self, patcher):
        for frame_dict, name in _wrapped_fns_to_patch:
            if name not in frame_dict and hasattr(builtins, name):
                orig = getattr(builtins, name)
            else:
                orig = frame_dict[name]
            patcher.patch(frame_dict, name, _make_wrapped(orig))

    def _autowrap_check(self, patcher, frame_dict):
        if not patcher.visit_once(frame_dict):
            return
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and \
                    id(value) in self._autowrap_function_ids:
                patcher.patch(frame_dict, name, _make_wrapped(value))


def _holds_ph(value):
    found = []
    map_aggregate(value, lambda a: found.append(a) if isinstance(a, PHBase) else a)
    return bool(found)


def _torchlike_assert():
    import torchlike
    return torchlike._assert


def symbolic_trace(root, concrete_args=None):
    """Trace ``root`` (a Module or function) into a GraphModule."""
    from torchlike.nn import Module
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

