"""proxy.py - Proxy: the stand-in value symbolic tracing runs user code on.

Every operation on a Proxy records a Node in its tracer's graph and returns a
new Proxy for the result: Python operators (``operator.add`` ...), attribute
reads (``getattr``), method calls (``call_method``), and torchlike functions,
which reach ``Proxy.__torch_function__`` through torchlike's
``__torch_function__`` protocol (docs/subclassing.md).  Using a Proxy's value
(``bool``, ``len``, iteration outside an unpacking) cannot be recorded and
raises, as PyTorch's does.
"""
import collections
import dis
import inspect
import operator
import os
import traceback

from .node import Node, map_aggregate

__all__ = ["TraceError", "TracerBase", "GraphAppendingTracer", "Proxy", "Attribute",
           "ParameterProxy"]


class TraceError(ValueError):
    """Tracing met something a graph cannot record (control flow on a traced value)."""


class TracerBase:
    """Node and Proxy creation shared by every tracer (Tracer adds ``trace``)."""

    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None
    module_stack = None
    node_name_to_scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Add a node to ``self.graph`` (hook for subclasses)."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self.record_stack_traces and not node.stack_trace:
            node.stack_trace = self._user_stack_trace()
        if self.module_stack:
            # {path: (path, class)} of the modules being traced through, innermost last
            node.meta["nn_module_stack"] = collections.OrderedDict(self.module_stack)
        return node

    def _user_stack_trace(self):
        """The user frames that led to the node being made: from the first
        frame of the traced function (``traced_func_name``) on, without
        torchlike.fx's own frames; None outside such a function."""
        frames = traceback.extract_stack()
        start = next((i for i, f in enumerate(frames) if f.name == self.traced_func_name), None)
        if start is None:
            return None
        here = os.path.dirname(os.path.abspath(__file__))
        user = [f for f in frames[start:] if not os.path.abspath(f.filename).startswith(here)]
        return "".join(traceback.format_list(user)).strip() or None

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        """Record ``kind(target)(*args, **kwargs)`` and return its Proxy;
        Proxies among the arguments become their nodes (``create_arg``)."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """The node-argument form of ``a``: Proxies become their nodes;
        tuples, lists, dicts and slices are walked; other values are kept when
        they are plain constants, else NotImplementedError names the type."""
        import enum
        import torchlike
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*[self.create_arg(e) for e in a])
            return tuple(self.create_arg(e) for e in a)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError("Keys for dictionaries used as an argument cannot "
                                       f"contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, Node):
            return a
        if a is None or a is Ellipsis or isinstance(
                a, (str, int, float, bool, complex, torchlike.dtype, torchlike.device,
                    torchlike.memory_format, torchlike.layout, enum.Enum)):
            return a
        if isinstance(a, (torchlike.Size,)):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function argument. "
                         "See the torchlike.fx docs on pytorch.org for a more detailed "
                         "explanation of what types of control flow can be traced, and check "
                         "out the Proxy docstring for help troubleshooting Proxy iteration "
                         "errors")

    def keys(self, obj):
        """``**proxy``: recorded as a ``keys()`` method call."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to an existing graph (for Proxies made by hand)."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Proxy:
    """A traced value: ``proxy.node`` is the Node that computes it.  Operators,
    methods and torchlike functions applied to it are recorded."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)  # copy, pickle and friends probe these
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        import copy
        new = Proxy.__new__(Proxy)
        memo[id(self)] = new
        new.__dict__.update({k: (copy.deepcopy(v, memo) if k != "tracer" else v)
                             for k, v in self.__dict__.items()})
        return new

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # ``a, b = proxy`` is allowed: the caller's next instruction says how
        # many values it unpacks, so that many getitems are recorded.
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        if caller is not None:
            for inst in dis.get_instructions(caller.f_code):
                if inst.offset == caller.f_lasti:
                    if inst.opname == "UNPACK_SEQUENCE":
                        return (self[i] for i in range(inst.argval))
                    break
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torchlike.fx.wrap('len') at "
                           "module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while "
                               f"trying to trace operations {orig_method}")
        tracer = next(iter(tracers))
        name = _tensor_method_name(orig_method)
        if name is not None:
            return tracer.create_proxy("call_method", name, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method))


# Proxies are dict keys (memo tables); comparison operators build nodes.
Proxy.__hash__ = object.__hash__


def _tensor_method_name(func):
    """The method name when ``func`` is a Tensor method or property getter
    that is not also a torchlike function (then it is recorded as a call_method)."""
    from .graph import _torchlike_names
    from torchlike.overrides import is_tensor_method_or_property, resolve_name
    if _torchlike_names(func):
        return None  # torchlike.add is Tensor.add: a function call is what reached us
    try:
        if not is_tensor_method_or_property(func):
            return None
    except Exception:  # noqa: BLE001 - an unnamed callable is no method
        return None
    return resolve_name(func).rsplit(".", 1)[1]


class Attribute(Proxy):
    """``proxy.name``: recorded as ``getattr`` when used as a value, or as a
    ``call_method`` when called."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A Proxy for a parameter read as a module attribute: its shape, size,
    dim and ndim are the parameter's own (not recorded)."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_REFLECTABLE = ["add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift",
                "rshift", "and_", "or_", "xor", "matmul"]
_MAGIC = _REFLECTABLE + ["eq", "ne", "lt", "gt", "le", "ge", "pos", "neg", "invert",
                         "getitem"]


def _install_magic():
    for method in _MAGIC:
        def make(method):
            fn = getattr(operator, method)

            def impl(*args, **kwargs):
                tracer = args[0].tracer
                return tracer.create_proxy("call_function", fn, args, kwargs)
            impl.__name__ = f"__{method.strip('_')}__"
            return impl
        setattr(Proxy, f"__{method.strip('_')}__", make(method))
    for method in _REFLECTABLE:
        def make_r(method):
            fn = getattr(operator, method)

            def impl(self, rhs):
                return self.tracer.create_proxy("call_function", fn, (rhs, self), {})
            impl.__name__ = f"__r{method.strip('_')}__"
            return impl
        setattr(Proxy, f"__r{method.strip('_')}__", make_r(method))


_install_magic()
