"""interpreter.py - run a GraphModule node by node (Interpreter), or rebuild
it node by node into a new graph (Transformer).

Interpreter.run keeps an environment {node: value}; each node's op is handled
by the method of the same name (``placeholder``, ``get_attr``,
``call_function``, ``call_method``, ``call_module``, ``output``), so a
subclass overrides one kind of operation.  Values are dropped after their
last use (``garbage_collect_values``).

Transformer runs the same loop on Proxies of a new graph: each node is
recorded again, or whatever a subclass method returns instead.
"""
import contextlib
import copy
import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy
from ._symbolic_trace import Tracer

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs ``module``'s graph (or ``graph``) one node at a time."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(self.module.named_modules())
        self.graph = graph if graph is not None else self.module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if self.garbage_collect_values:
            node_to_last_use = {}
            self.user_to_last_uses = {}

            def register_last_uses(n, user):
                if n not in node_to_last_use:
                    node_to_last_use[n] = user
                    self.user_to_last_uses.setdefault(user, []).append(n)

            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    register_last_uses(n, node)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args`` (``initial_env`` pre-fills values of nodes,
        which are then not run) and return the output node's value."""
        self.env = initial_env if initial_env is not None else {}
        if enable_io_processing:
            args = self.graph._codegen.process_inputs(*args)
        self.args_iter = iter(args)
        output_val = None
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else str(msg)
                    msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    if isinstance(e.args, tuple) and e.args and isinstance(e.args[0], str):
                        e.args = (msg,) + e.args[1:]
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                output_val = self.env[node]
                return self.graph._codegen.process_outputs(output_val) \
                    if enable_io_processing else output_val
        return output_val

    def boxed_run(self, args_list):
        """Run with the arguments in a list, which is cleared first (so the
        caller's references do not keep them alive)."""
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    @contextlib.contextmanager
    def _set_current_node(self, node):
        yield

    def run_node(self, n):
        """Run one node: fetch its arguments' values, call the method for its op."""
        with self._set_current_node(n):
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            if not isinstance(args, tuple) or not isinstance(kwargs, dict):
                raise AssertionError("fetch_args_kwargs_from_env must return (tuple, dict)")
            return getattr(self, n.op)(n.target, args, kwargs)

    # ---- one method per op ----------------------------------------------------------

    def placeholder(self, target, args, kwargs):
        """The next positional argument of ``run`` (or the default, or all the
        rest for ``*args``)."""
        if not isinstance(target, str):
            raise AssertionError("placeholder target must be a str")
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but "
                               "one was not passed in!") from si

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        if isinstance(target, str):
            raise AssertionError("call_function target must be callable")
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ---- helpers ----------------------------------------------------------------------

    def fetch_attr(self, target):
        """The attribute of ``self.module`` at dotted path ``target``."""
        target_atoms = target.split(".")
        attr_itr = self.module
        for i, atom in enumerate(target_atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError("Node referenced nonexistent target "
                                   f"{'.'.join(target_atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n):
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n):
        def load_arg(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[n_arg]
        return map_arg(args, load_arg)


class _TransformerTracer(Tracer):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, _, __):
        return True


class Transformer(Interpreter):
    """Rebuilds ``module``'s graph node by node: override ``call_function``
    (etc.) to return other Proxies; ``transform()`` returns the new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(copy.deepcopy(module.graph._codegen))
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        default_value = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default_value),
                     self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def run_node(self, n):
        result = super().run_node(n)
        if isinstance(result, Proxy) and n.op != "output":
            result.node.meta = copy.copy(n.meta)
        return result

    def transform(self):
        """The new GraphModule (the module's attributes, the rebuilt graph)."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)
