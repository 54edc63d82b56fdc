"""graph.py - an FX Graph: a list of Nodes, its editing, printing and Python code.

A Graph owns a ring of Nodes (through a sentinel root node) in topological
order, the set of names they use (one ``_Namespace``: a name is never given
twice, and names PyTorch's code generator would shadow - keywords, builtins,
``inf``, ``torchlike`` ... - get a ``_1`` suffix as PyTorch's do), and the
insertion point where ``create_node`` puts new nodes.

``python_code`` turns the graph into the source of a ``forward`` function and
the globals it needs; GraphModule compiles that source.
"""
import builtins
import collections
import contextlib
import copy
import functools
import inspect
import keyword
import math
import operator
import re
import types

from .node import Node, map_arg, map_aggregate, _type_repr

__all__ = ["Graph", "PythonCode", "CodeGen"]


# ---- naming ------------------------------------------------------------------------------

def _torchlike_namespaces():
    import torchlike
    from torchlike import linalg, fft, special
    from torchlike.nn import functional
    return [("torchlike", torchlike), ("torchlike.nn.functional", functional),
            ("torchlike.linalg", linalg), ("torchlike.fft", fft),
            ("torchlike.special", special)]


_name_table = None


def _torchlike_names(obj):
    """[(module path, name)] under which torchlike's public namespaces hold obj."""
    global _name_table
    if _name_table is None:
        table = collections.defaultdict(list)
        for prefix, ns in _torchlike_namespaces():
            for name, value in vars(ns).items():
                if not name.startswith("__") and callable(value) \
                        and not isinstance(value, (type, types.ModuleType)):
                    table[id(value)].append((prefix, name, value))
        _name_table = table
    return [(p, n) for p, n, v in _name_table.get(id(obj), ()) if v is obj]


def _qualified_name(func):
    """'module.name' for a call_function target: how graphs print it and the
    expression generated code calls it by.  Functions torchlike holds under
    several names (``torchlike.relu`` is ``nn.functional.relu``) take the name
    their own ``__module__``/``__name__`` give, else the top-level one."""
    name = getattr(func, "__name__", None)
    if name is not None and getattr(builtins, name, None) is func:
        return f"builtins.{name}"
    found = _torchlike_names(func)
    if found:
        module = getattr(func, "__module__", None)
        for prefix, n in found:
            if prefix == module and n == name:
                return f"{prefix}.{n}"
        for prefix, n in found:
            if n == name:
                return f"{prefix}.{n}"
        for prefix, n in found:
            if prefix == "torchlike":
                return f"{prefix}.{n}"
        return f"{found[0][0]}.{found[0][1]}"
    import torchlike
    if isinstance(func, (types.MethodDescriptorType, types.WrapperDescriptorType)) and \
            getattr(torchlike.Tensor, name or "", None) is func:
        return f"torchlike.Tensor.{name}"
    if name == "<lambda>":
        raise RuntimeError("Unable to represent lambda")
    if name is None:
        raise RuntimeError(f"Unable to represent {func!r}: it has no __name__")
    module = getattr(func, "__module__", None)
    if module is None and getattr(func, "__self__", None) is not None:
        module = getattr(func.__self__, "__module__", None) if not isinstance(
            func.__self__, types.ModuleType) else func.__self__.__name__
    if module is None:
        module = "builtins"
    return f"{module}.{name}"


def _pretty_print_target(target):
    """How graph printing names a target: builtins and operator functions by
    their public modules, the rest by qualified name."""
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name is not None and module == "builtins":
        return f"builtins.{name}"
    if name is not None and module == "_operator":
        return f"operator.{name}"
    return _qualified_name(target)


def _callable_name(target):
    """The short name a call_function node is named after."""
    found = _torchlike_names(target)
    if found:
        return _qualified_name(target).rsplit(".", 1)[1]
    return getattr(target, "__name__", None) or type(target).__name__


_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])")


def _snake_case(s):
    """``CamelCase`` -> ``camel_case`` (node names from class-like targets)."""
    return _snake_case_sub.sub(r"_\1", s).lower()


def _is_magic(x):
    return x.startswith("__") and x.endswith("__")


class _CustomBuiltin:
    def __init__(self, import_str, obj):
        self.import_str = import_str
        self.obj = obj


@functools.lru_cache(None)
def _custom_builtins():
    import torchlike
    from torchlike.utils import _pytree as pytree
    from . import _pytree as fx_pytree
    return {
        "inf": _CustomBuiltin("from math import inf", math.inf),
        "nan": _CustomBuiltin("from math import nan", math.nan),
        "NoneType": _CustomBuiltin("NoneType = type(None)", type(None)),
        "torchlike": _CustomBuiltin("import torchlike", torchlike),
        "device": _CustomBuiltin("from torchlike import device", torchlike.device),
        "fx_pytree": _CustomBuiltin("import torchlike.fx._pytree as fx_pytree", fx_pytree),
        "pytree": _CustomBuiltin("import torchlike.utils._pytree as pytree", pytree),
    }


class _Namespace:
    """Names in use in one scope.  ``create_name(candidate, obj)`` returns an
    unused, legal identifier for ``obj``: ``candidate`` sanitised, and if it is
    taken (or shadows a keyword, builtin or custom global) the next ``_N``."""

    def __init__(self):
        self._obj_to_name = {}
        self._used_names = set()
        self._base_count = collections.defaultdict(int)

    def create_name(self, candidate, obj):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate)
        if not candidate:
            candidate = "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = re.match(r"(.*)_(\d+)$", candidate)
        if match and str(int(match.group(2))) == match.group(2):  # foo_01 is a name, not foo #1
            base, num = match.group(1), int(match.group(2))
        else:
            base, num = candidate, None
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[id(obj)] = name

    def _rename_object(self, obj, name):
        self._obj_to_name[id(obj)] = name

    def _is_illegal_name(self, name, obj):
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        customs = _custom_builtins()
        if name in customs:
            return obj is not customs[name].obj
        # PyTorch's generated code reads a global ``torch``: its graphs never
        # name a node so, and ours keep that (names stay PyTorch's)
        return name == "torch"


# ---- code generation ---------------------------------------------------------------------

class PythonCode:
    """What ``Graph.python_code`` returns: ``src`` (the module-level source
    defining ``forward``), ``globals`` (the names it reads) and
    ``_lineno_map``."""

    def __init__(self, src, globals, _lineno_map=None):
        self.src = src
        self.globals = globals
        self._lineno_map = _lineno_map


_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*",
           operator.truediv: "/", operator.floordiv: "//", operator.mod: "%",
           operator.pow: "**", operator.lshift: "<<", operator.rshift: ">>",
           operator.and_: "&", operator.or_: "|", operator.xor: "^",
           operator.matmul: "@", operator.eq: "==", operator.ne: "!=",
           operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _origin_types():
    import typing
    return {list: typing.List, dict: typing.Dict, set: typing.Set,
            frozenset: typing.FrozenSet, tuple: typing.Tuple}


_ORIGIN_TYPES = _origin_types()


def _format_target(base, target):
    """``self.a.b`` for module path ``a.b``, with ``getattr`` for path parts
    that are not identifiers (``getattr(self, "0")``)."""
    r = base
    for elem in target.split("."):
        r = f"{r}.{elem}" if elem.isidentifier() else f'getattr({r}, "{elem}")'
    return r


class CodeGen:
    """Writes the Python source of a graph.  Subclasses may change how the
    arguments come in and go out (``gen_fn_def``, ``generate_output``)."""

    def __init__(self):
        self._body_transformer = None

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_arg=None):
        """The return statement (``repr_arg`` writes one argument)."""
        if repr_arg is None:
            return f"return {_repr_arg(output_args, None)}"
        return f"return {repr_arg(output_args)}"

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def _gen_python_code(self, nodes, root_module, namespace, *, verbose=False):
        free_vars = []
        body = []
        globals_ = {}
        wrapped_fns = {}
        maybe_return_annotation = [""]
        customs = _custom_builtins()

        def add_global(name_hint, obj):
            """A name generated code can refer to obj by, registered in globals_."""
            if _is_torchlike_public(obj) or _importable_from_torchlike(obj):
                globals_["torchlike"] = customs["torchlike"].obj
                return _qualified_name(obj)
            short = getattr(obj, "__name__", name_hint)
            if getattr(builtins, short, None) is obj:
                globals_[short] = obj
                return short
            for cname, cb in customs.items():
                if cb.obj is obj:
                    globals_[cname] = obj
                    return cname
            name = namespace.create_name(name_hint, obj)
            globals_[name] = obj
            return name

        for cname in ("inf", "nan", "NoneType", "device", "fx_pytree", "pytree"):
            globals_[cname] = customs[cname].obj
        globals_["torchlike"] = customs["torchlike"].obj

        def type_repr(o):
            """A type annotation as source: classes by (global) name, typing
            generics as origin[args] (``List[int]`` -> ``typing_List[int]``)."""
            if o == ():
                return "()"
            if o is type(None):
                return "None"
            origin = getattr(o, "__origin__", None)
            if origin is not None:
                origin = _ORIGIN_TYPES.get(origin, origin)
                name = add_global(_type_repr(origin), origin)
                args = getattr(o, "__args__", None)
                if args:
                    return f"{name}[{','.join(type_repr(a) for a in args)}]"
                return name
            if isinstance(o, type):
                if o.__module__ == "builtins":
                    return o.__qualname__
                return add_global(_type_repr(o), o)
            return repr(o)

        def repr_arg(a):
            return _repr_arg(a, add_global)

        node_to_last_use = {}
        user_to_last_uses = collections.defaultdict(list)

        def register_last_uses(n, user):
            if n not in node_to_last_use:
                node_to_last_use[n] = user
                user_to_last_uses[user].append(n)

        for node in reversed(nodes):
            map_arg(node.args, lambda n: register_last_uses(n, node))
            map_arg(node.kwargs, lambda n: register_last_uses(n, node))

        def delete_unused_values(user):
            if user.op == "placeholder":
                return
            if user.op == "output":
                body.append("\n")
                return
            to_delete = list(user_to_last_uses.get(user, []))
            if len(user.users) == 0:
                to_delete.append(user)
            if to_delete:
                body.append(f";  {' = '.join([repr(n) for n in to_delete] + ['None'])}\n")
            else:
                body.append("\n")

        def emit_node(node):
            maybe_type = "" if node.type is None else f" : {type_repr(node.type)}"
            if node.op == "placeholder":
                maybe_default = "" if not node.args else f" = {repr_arg(node.args[0])}"
                free_vars.append(f"{node.target}{maybe_type}{maybe_default}")
                raw_name = node.target.replace("*", "")
                if raw_name != repr(node):
                    body.append(f"{repr(node)} = {raw_name}\n")
                return
            if node.op == "call_method":
                body.append(f"{repr(node)}{maybe_type} = "
                            f"{_format_target(repr_arg(node.args[0]), node.target)}"
                            f"({_format_args(node.args[1:], node.kwargs, repr_arg)})")
                return
            if node.op == "call_function":
                t = node.target
                if t in _BINARY and len(node.args) == 2 and not node.kwargs:
                    body.append(f"{repr(node)}{maybe_type} = {repr_arg(node.args[0])} "
                                f"{_BINARY[t]} {repr_arg(node.args[1])}")
                    return
                if t in _UNARY and len(node.args) == 1 and not node.kwargs:
                    body.append(f"{repr(node)}{maybe_type} = {_UNARY[t]}{repr_arg(node.args[0])}")
                    return
                if t is getattr and len(node.args) == 2 and isinstance(node.args[1], str) \
                        and node.args[1].isidentifier() and not node.kwargs:
                    body.append(f"{repr(node)}{maybe_type} = "
                                f"{_format_target(repr_arg(node.args[0]), node.args[1])}")
                    return
                if t is operator.getitem and len(node.args) == 2 and not node.kwargs:
                    body.append(f"{repr(node)}{maybe_type} = {repr_arg(node.args[0])}"
                                f"[{repr_arg(node.args[1])}]")
                    return
                qualified = _qualified_name(t)
                global_name = add_global(qualified, t)
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(global_name)
                body.append(f"{repr(node)}{maybe_type} = {global_name}"
                            f"({_format_args(node.args, node.kwargs, repr_arg)})")
                return
            if node.op == "call_module":
                body.append(f"{repr(node)}{maybe_type} = {_format_target(root_module, node.target)}"
                            f"({_format_args(node.args, node.kwargs, repr_arg)})")
                return
            if node.op == "get_attr":
                attr = _format_target(root_module, node.target)
                body.append(f"{repr(node)}{maybe_type} = {attr}")
                return
            if node.op == "output":
                if node.type is not None:
                    maybe_return_annotation[0] = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], repr_arg))
                return
            raise NotImplementedError(f"node: {node.op} {node.target}")

        first = True
        prev_summary = None
        for node in nodes:
            if verbose and node.op not in ("placeholder", "output"):
                # a comment where the user code a run of nodes came from changes
                summary = _stack_summary(node.stack_trace)
                if first or summary != prev_summary:
                    body.append(f"\n# {summary}\n" if summary else
                                "\n# No stacktrace found for following nodes\n")
                first, prev_summary = False, summary
            emit_node(node)
            delete_unused_values(node)

        if len(body) == 0:
            body.append("pass\n")

        if self._body_transformer:
            body = self._body_transformer(body)

        prologue = self.gen_fn_def(free_vars, maybe_return_annotation[0])
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        wrap_stmts = "\n".join(f'torchlike.fx._symbolic_trace.wrap("{name}")'
                               for name in wrapped_fns)
        fn_code = f"\n{wrap_stmts}\n\n{prologue}\n{code}"
        return PythonCode(fn_code, globals_)


def _is_torchlike_public(obj):
    """Is obj reachable as ``torchlike.<...>.<name>`` (so code can say so)?"""
    import torchlike
    if isinstance(obj, (torchlike.dtype,)) or obj is torchlike.Tensor:
        return True
    try:
        return bool(_torchlike_names(obj))
    except TypeError:
        return False


_FRAME = re.compile(r'File "(.+)", line (\d+), in (.+)\n\s+(.+)')


def _stack_summary(stack_trace):
    """``File: path:line in function, code: source`` of a node's innermost frame."""
    if not stack_trace:
        return None
    frames = _FRAME.findall(stack_trace)
    if not frames:
        return None
    file, line, name, code = frames[-1]
    return f"File: {file}:{line} in {name}, code: {code.strip()}"


class _PyTreeInfo:
    """The original argument names and the input/output structures of a
    graph whose placeholders are the leaves of its inputs."""

    def __init__(self, orig_args, in_spec, out_spec):
        self.orig_args = orig_args
        self.in_spec = in_spec
        self.out_spec = out_spec


class _PyTreeCodeGen(CodeGen):
    """forward takes the original arguments and flattens them by
    ``self._in_spec`` (the placeholders are the leaves); the graph returns a
    flat list, rebuilt by ``self._out_spec``."""

    def __init__(self, pytree_info):
        super().__init__()
        self.pytree_info = pytree_info

    def process_inputs(self, *inputs):
        from ._pytree import tree_flatten_spec
        return tree_flatten_spec(list(inputs), self.pytree_info.in_spec)

    def process_outputs(self, out):
        from torchlike.utils import _pytree as pytree
        if self.pytree_info.out_spec is None:
            return out
        return pytree.tree_unflatten(out, self.pytree_info.out_spec)

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        fn_args = list(self.pytree_info.orig_args)
        fn_definition = super().gen_fn_def(list(fn_args), maybe_return_annotation)
        leaves = [v for v in free_vars if v != "self"]
        if leaves:
            fn_definition += (f"\n    {', '.join(leaves)}, = fx_pytree.tree_flatten_spec("
                              f"[{', '.join(fn_args)}], self._in_spec)")
        return fn_definition

    def generate_output(self, output_args, repr_arg=None):
        if self.pytree_info.out_spec is None:
            return super().generate_output(output_args, repr_arg)
        text = repr_arg(output_args) if repr_arg else _repr_arg(output_args, None)
        return f"return pytree.tree_unflatten({text}, self._out_spec)"


def _importable_from_torchlike(obj):
    """Is obj a torchlike function that ``torchlike.<module>.<name>`` reaches?"""
    import sys
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__name__", None)
    if not isinstance(module, str) or not module.startswith("torchlike.") or not name:
        return False
    return getattr(sys.modules.get(module), name, None) is obj


def _repr_arg(arg, add_global):
    """Python source for a node argument."""
    import torchlike
    if isinstance(arg, Node):
        return repr(arg)
    if isinstance(arg, tuple) and hasattr(arg, "_fields"):
        qn = add_global(f"{type(arg).__module__}_{type(arg).__qualname__}", type(arg)) \
            if add_global else type(arg).__qualname__
        return f"{qn}({_format_args(arg, {}, lambda a: _repr_arg(a, add_global))})"
    if isinstance(arg, tuple):
        if len(arg) == 1:
            return f"({_repr_arg(arg[0], add_global)},)"
        return f"({', '.join(_repr_arg(a, add_global) for a in arg)})"
    if isinstance(arg, list):
        return f"[{', '.join(_repr_arg(a, add_global) for a in arg)}]"
    if isinstance(arg, dict):
        items = ", ".join(f"{_repr_arg(k, add_global)}: {_repr_arg(v, add_global)}"
                          for k, v in arg.items())
        return f"{{{items}}}"
    if isinstance(arg, slice):
        return (f"slice({_repr_arg(arg.start, add_global)}, {_repr_arg(arg.stop, add_global)}, "
                f"{_repr_arg(arg.step, add_global)})")
    if isinstance(arg, float) and (math.isinf(arg) or math.isnan(arg)):
        if math.isnan(arg):
            return "nan"
        return "inf" if arg > 0 else "-inf"
    if isinstance(arg, torchlike.dtype):
        if add_global:
            add_global("torchlike", torchlike)
        return repr(arg)
    if isinstance(arg, torchlike.device):
        if add_global:
            add_global("device", torchlike.device)
        return repr(arg)
    if arg is Ellipsis:
        return "Ellipsis"
    if isinstance(arg, (type, types.FunctionType, types.BuiltinFunctionType)) or (
            callable(arg) and _is_torchlike_public(arg)):
        if add_global is None:
            return _qualified_name(arg) if not isinstance(arg, type) else _type_repr(arg)
        if isinstance(arg, type):
            if arg.__module__ == "builtins":
                return add_global(arg.__qualname__, arg)
            return add_global(_type_repr(arg), arg)
        return add_global(_qualified_name(arg), arg)
    import enum
    if isinstance(arg, enum.Enum):
        cls = type(arg)
        name = add_global(_type_repr(cls), cls) if add_global else cls.__qualname__
        return f"{name}.{arg.name}"
    return repr(arg)


def _format_args(args, kwargs, repr_arg):
    parts = [repr_arg(a) for a in args]
    parts += [f"{k} = {repr_arg(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


# ---- the node list -----------------------------------------------------------------------

class _NodeList:
    """``graph.nodes``: iterates the ring (forwards or reversed); nodes erased
    while iterating are skipped."""

    def __init__(self, graph, direction="_next"):
        self._graph = graph
        self._direction = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = getattr(root, self._direction)
        while cur is not root:
            nxt = getattr(cur, self._direction)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._direction == "_next" else "_next")

    def __repr__(self):
        return repr(list(self))


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, type, value, tb):
        self.graph._insert = self.orig_insert


class Graph:
    """A list of Nodes in topological order (see the module docstring)."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        """The nodes in order; ``len(graph.nodes)`` counts them."""
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        """Nodes with this op (and target, when given), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- building ----------------------------------------------------------------------

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Insert a new node at the insertion point (the end, unless inside
        ``inserting_before``/``inserting_after``) and return it."""
        if op not in ("call_function", "call_method", "get_attr", "call_module",
                      "placeholder", "output"):
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def _target_to_str(self, target):
        if callable(target):
            op = _callable_name(target)
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input named ``name`` (``default_value`` when the caller omits it)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Read the attribute at dotted path ``qualified_name`` of the owning module."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        return self.create_node("call_function", the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The node returning ``result`` (nodes, or containers of nodes)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n=None):
        """``with graph.inserting_before(n):`` new nodes go just before ``n``
        (the start of the graph when ``n`` is None)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """``with graph.inserting_after(n):`` new nodes go just after ``n`` (each
        after the previous one; the end of the graph when ``n`` is None)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase):
        """Remove a node no one reads."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            import warnings
            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase.args = ()
        to_erase.kwargs = {}

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of ``node`` (from any graph) in this one; its node arguments
        are mapped through ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy every node of ``g`` into this graph.  ``val_map`` maps g's nodes
        to this graph's (filled in; pre-filled entries are used as they are).
        Returns the value g's output node returns, in this graph's nodes."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return rv if not return_output_node else (rv, node)
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if output_vals is not None:
            output_val, old_output = output_vals
            new_output = g.output(output_val, type_expr=getattr(old_output, "type", None))
            new_output.meta = copy.copy(old_output.meta)
        return g

    def set_codegen(self, codegen):
        self._codegen = codegen

    # ---- checking and cleaning ---------------------------------------------------------

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes nothing reads and that have no side effect (from the
        end backwards, so chains go at once).  Returns whether anything changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Check the invariants: users and inputs agree, every input is defined
        before its user and in this graph, names are unique, at most one output,
        and get_attr/call_module targets exist on the owning module."""
        def check_arg(arg, n=None):
            context = f" of Node '{n}' " if n else " "
            if arg.graph is not self:
                raise RuntimeError(f"Argument '{arg}'{context}does not belong to this Graph, "
                                   "but was used as an argument! If you are copying nodes "
                                   "from another graph, make sure to use ``arg_transform`` on "
                                   "node_copy() to remap values\n{self}")
            if arg not in seen_values:
                raise RuntimeError(f"Argument '{arg}'{context}was used before it has been "
                                   "defined! Please check that Nodes in the graph are "
                                   "topologically ordered\n{self}")

        seen_names = set()
        seen_values = set()
        for node in self.nodes:
            if node.op not in ("placeholder", "call_method", "call_module", "call_function",
                               "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                check_arg(arg, node)
                if node not in arg.users:
                    raise RuntimeError(f"Node '{node}' reads '{arg}' but is not among its users")
            for user in node.users:
                if node not in user._input_nodes:
                    raise RuntimeError(f"Node '{user}' is a user of '{node}' but does not read it")
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        outputs = [n for n in self.nodes if n.op == "output"]
        if len(outputs) > 1:
            raise RuntimeError(f"Graph has {len(outputs)} output nodes; one is allowed")

        if self.owning_module:
            for node in self.nodes:
                if node.op == "call_function":
                    if not callable(node.target):
                        raise ValueError(f"Node {node} target {node.target} has type "
                                         f"{type(node.target)} but a Callable is expected")
                elif not isinstance(node.target, str):
                    raise ValueError(f"Node {node} target {node.target} has type "
                                     f"{type(node.target)} but a str is expected")
                if node.op in ("get_attr", "call_module"):
                    target_atoms = node.target.split(".")
                    m_itr = self.owning_module
                    for i, atom in enumerate(target_atoms):
                        new_m_itr = getattr(m_itr, atom, None)
                        seen_qualname = ".".join(target_atoms[:i])
                        if new_m_itr is None:
                            raise RuntimeError(f"Node {node} target {node.target} references "
                                               f"nonexistent attribute {atom} of "
                                               f"{seen_qualname}")
                        if node.op == "call_module" and not _is_module(new_m_itr):
                            raise RuntimeError(f"Node {node} target {node.target} {atom} of "
                                               f"{seen_qualname} does not reference an nn.Module")
                        m_itr = new_m_itr

    # ---- printing ----------------------------------------------------------------------

    def __str__(self):
        node_strs = [node.format_node() for node in self.nodes]
        s = "graph():"
        for node_str in node_strs:
            if node_str:
                s += "\n    " + node_str
        return s

    def print_tabular(self):
        """Print the nodes as a table (opcode, name, target, args, kwargs).
        Uses the ``tabulate`` package when it is installed; otherwise a plain
        text table in tabulate's default layout (PyTorch raises instead)."""
        rows = [[n.op, n.name, _pretty_print_target(n.target), _tabular_repr(n.args),
                 _tabular_repr(n.kwargs)] for n in self.nodes]
        headers = ["opcode", "name", "target", "args", "kwargs"]
        try:
            from tabulate import tabulate
        except ImportError:
            print(_plain_table(rows, headers))
        else:
            print(tabulate(rows, headers=headers))

    def python_code(self, root_module, *, verbose=False, include_stride=False,
                    include_device=False, colored=False):
        """The source of ``forward`` (``.src``) and the globals it needs, with
        ``root_module`` the name of the module the code reads attributes from."""
        namespace = _Namespace()
        for node in self.nodes:
            namespace._used_names.add(node.name)
            namespace._obj_to_name[id(node)] = node.name
        return self._codegen._gen_python_code(list(self.nodes), root_module, namespace,
                                              verbose=verbose)

    def on_generate_code(self, make_transformer):
        """``with graph.on_generate_code(lambda current: transformer):`` - a
        body transformer (list of lines -> list of lines) used while inside."""
        @contextlib.contextmanager
        def ctx():
            old = self._codegen._body_transformer
            self._codegen._body_transformer = make_transformer(old)
            try:
                yield
            finally:
                self._codegen._body_transformer = old
        return ctx()

    # ---- pickling ----------------------------------------------------------------------

    def __getstate__(self):
        """Nodes as (name, op, target, args, kwargs, type, meta) with node
        references replaced by names: no deep recursion through the node ring."""
        specs = []
        for n in self.nodes:
            specs.append((n.name, n.op, n.target, map_arg(n.args, _NodeRef),
                          map_arg(n.kwargs, _NodeRef), n.type, _picklable_meta(n.meta)))
        return {"nodes": specs, "codegen": self._codegen, "tracer_cls": self._tracer_cls}

    def __setstate__(self, state):
        self.__init__(tracer_cls=state.get("tracer_cls"))
        self._codegen = state.get("codegen") or CodeGen()
        env = {}
        for name, op, target, args, kwargs, type_expr, meta in state["nodes"]:
            def resolve(a):
                return env[a.name] if isinstance(a, _NodeRef) else a
            n = self.create_node(op, target, map_aggregate(args, resolve),
                                 map_aggregate(kwargs, resolve), name, type_expr)
            n.meta = meta
            env[name] = n


def _picklable_meta(meta):
    """The entries of a node's meta that pickle (others - a class defined in
    a function, a live object - are left out rather than failing the save)."""
    import pickle
    out = {}
    for k, v in meta.items():
        try:
            pickle.dumps(v)
        except Exception:  # noqa: BLE001 - anything unpicklable is dropped
            continue
        out[k] = v
    return out


class _NodeRef:
    """A node named in a pickled graph."""

    def __init__(self, node):
        self.name = node.name

    def __repr__(self):
        return f"_NodeRef({self.name})"


def _is_module(obj):
    from torchlike.nn import Module
    return isinstance(obj, Module)


def _tabular_repr(a):
    return str(map_arg(a, lambda n: _NodeRepr(n.name)))


class _NodeRepr:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def _plain_table(rows, headers):
    """tabulate's default ("simple") layout: left-aligned columns two spaces
    apart, a dashed rule under the headers."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    def line(cols):
        return "  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()
    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)

