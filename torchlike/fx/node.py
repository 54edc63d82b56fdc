"""node.py - one operation of an FX graph, and walking the values it refers to.

A Node is one of six ops (``placeholder``, ``get_attr``, ``call_function``,
``call_method``, ``call_module``, ``output``) with a ``target``, ``args`` and
``kwargs``.  Invariants kept here:

- ``args``/``kwargs`` are only set through their setters, which keep both
  directions of the use graph up to date: ``node._input_nodes`` (the nodes it
  reads, in order of first appearance) and ``other.users`` (the nodes reading
  ``other``, dict used as an ordered set).
- Nodes of a graph form a doubly linked ring through a sentinel ``root`` node
  owned by the graph; ``prepend``/``append`` move a node within that ring.
"""
import types

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect", "Argument", "Target"]

Argument = object  # what node args may hold (documentation alias, as torch.fx.node)
Target = object

_side_effectful_functions = set()


def has_side_effect(fn):
    """Mark ``fn``: a call_function node of it is never removed by dead code
    elimination.  Returns ``fn`` (so it may decorate)."""
    _side_effectful_functions.add(fn)
    return fn


def _side_effectful_builtins():
    """The functions whose calls are never dead code, besides has_side_effect's:
    assertions (concrete_args guards) and item assignment."""
    import operator
    import torchlike
    from ._symbolic_trace import _assert_is_none
    out = {operator.setitem, _assert_is_none}
    for name in ("_assert", "_assert_async"):
        f = getattr(torchlike, name, None)
        if f is not None:
            out.add(f)
    return out


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of ``a``: tuples (named ones keep their
    class), lists, dicts and slices are walked, everything else is a leaf."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(e, fn) for e in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return type(a)((k, map_aggregate(v, fn)) for k, v in a.items()) \
            if type(a) is not dict else {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every Node inside ``a`` (other leaves are kept)."""
    if not callable(fn):
        raise AssertionError("torchlike.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_arg(arg, max_list_len=float("inf")):
    """An argument as graph printing shows it: nodes as ``%name``."""
    if isinstance(arg, tuple) and hasattr(arg, "_fields"):
        return repr(map_arg(arg, lambda n: f"%{n}"))
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"[{items}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        maybe_comma = "," if len(arg) == 1 else ""
        return f"({items}{maybe_comma})"
    if isinstance(arg, dict):
        items = ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items())
        return f"{{{items}}}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


def _type_repr(obj):
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return repr(obj)


class Node:
    """One operation of a Graph (see the module docstring for the ops)."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in ("placeholder", "call_method", "call_module", "call_function",
                      "get_attr", "output", "root"):
            raise ValueError(f"Node op must be one of placeholder, call_method, call_module, "
                             f"call_function, get_attr, output (got {op!r})")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target).__name__} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr", "output") \
                and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target).__name__} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self._args = ()
        self._kwargs = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta = {}
        self.__update_args_kwargs(tuple(args) if args is not None else (),
                                  dict(kwargs) if kwargs is not None else {})

    # ---- position in the graph -------------------------------------------------------

    @property
    def next(self):
        """The node after this one (the graph's root sentinel after the last)."""
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Move ``x`` to just before this node (``x`` may be anywhere in the graph)."""
        if x is self:
            raise AssertionError("Cannot prepend self")
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Move ``x`` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ---- arguments -------------------------------------------------------------------

    @property
    def args(self):
        """The positional arguments (a tuple; nodes inside are this node's inputs)."""
        return self._args

    @args.setter
    def args(self, a):
        self.__update_args_kwargs(tuple(a), self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self.__update_args_kwargs(self._args, dict(k))

    @property
    def all_input_nodes(self):
        """The nodes this node reads, each once, in order of first appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        kwargs = dict(self.kwargs)
        kwargs[key] = arg
        self.kwargs = kwargs

    def __update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}

        def collect(n):
            if n.graph is not self.graph and self.graph is not None and n.graph is not None:
                raise RuntimeError(f"Argument '{n}' of Node '{self}' was used before it has "
                                   "been defined! Please check that Nodes in the graph are "
                                   "topologically ordered")
            self._input_nodes.setdefault(n)
            return n

        self._args = map_arg(new_args, collect)
        self._kwargs = map_arg(new_kwargs, collect)
        for n in self._input_nodes:
            n.users.setdefault(self)

    # ---- rewriting uses --------------------------------------------------------------

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node read ``replace_with`` instead (those for
        which ``delete_user_cb(user)`` is true); returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has "
                                     ".meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if not delete_user_cb(user):
                continue
            user.replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Read ``new_input`` wherever this node read ``old_input``."""
        def swap(n):
            return new_input if n is old_input else n
        self.__update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ---- properties ------------------------------------------------------------------

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self):
        """Would removing this node change what the program does, even unused?"""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions or \
                self.target in _side_effectful_builtins()
        if self.op == "call_method":
            # as in PyTorch: an unused in-place method call (x.add_(1)) is dead
            # code too; eliminate_dead_code(is_impure_node=...) can keep it
            return False
        if self.op == "call_module":
            owner = self.graph.owning_module
            if owner is None:
                return False
            try:
                mod = owner.get_submodule(self.target)
            except AttributeError:
                return False
            return bool(getattr(mod, "_is_impure", False))
        return False

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """This node as one line of ``str(graph)``; the output node as ``return ...``."""
        maybe_type = f"{_type_repr(self.type)} " if self.type else ""
        head = f"%{self.name} : {maybe_type}[num_users={len(self.users)}] = "
        if self.op == "placeholder":
            arg_str = self.target
            if self.args:
                arg_str += f" = {self.args[0]!r}"
            if placeholder_names is not None:
                placeholder_names.append(arg_str)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"{head}{self.op}[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"{head}{self.op}[target={self._pretty_target()}]"
        if self.op == "output":
            if self.type and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"{head}{self.op}[target={self._pretty_target()}](args = "
                f"{_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def _pretty_print_target(self, target):
        """How graph printing names ``target``."""
        from .graph import _pretty_print_target
        return _pretty_print_target(target)

    def _pretty_target(self):
        return self._pretty_print_target(self.target)

    def __repr__(self):
        return self.name

    def __getstate__(self):
        raise TypeError("a torchlike.fx Node is pickled with its Graph, not alone")


# Nodes are hashed by identity: users/_input_nodes use them as dict keys.
Node.__hash__ = object.__hash__
