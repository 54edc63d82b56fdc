"""graph_module.py - GraphModule: a Module whose forward is generated from a Graph.

Each GraphModule instance gets a class of its own (a subclass of
GraphModule, named after the traced class), because ``recompile`` sets the
generated ``forward`` on the class.  The submodules and attributes the graph's
``call_module``/``get_attr`` nodes name are copied from the root by reference
(the same Module and tensor objects), with empty Modules for the paths between.

Pickling and deepcopy keep the module tree (parameters, buffers, submodules)
and the graph itself (``Graph.__getstate__``: a flat node list); the code is
generated again on load.
"""
import copy
import itertools
import linecache

from torchlike.nn import Module

from .graph import Graph

__all__ = ["GraphModule"]

_fx_counter = itertools.count()


def _exec_with_source(src, globals_):
    """Compile ``src`` under a unique fake file name registered in linecache,
    so tracebacks and ``inspect.getsource`` show the generated code."""
    key = f"<eval_with_key>.{next(_fx_counter)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    exec(compile(src, key, "exec", dont_inherit=True), globals_)


def _forward_from_src(src, globals_):
    globals_copy = dict(globals_)
    _exec_with_source(src, globals_copy)
    forward = globals_copy["forward"]
    del globals_copy["forward"]
    return forward


def _copy_attr(from_module, to_module, target):
    """Put ``from_module``'s attribute at dotted path ``target`` on ``to_module``
    at the same path; modules on the way that ``to_module`` lacks are created
    empty.  Tensors that are not parameters become buffers."""
    import torchlike
    from torchlike.nn import Parameter
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # the whole module is installed already
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, torchlike.Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    import torchlike
    from torchlike.nn import Parameter
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, torchlike.Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _rebuild_graph_module(cls_name, body, graph):
    """Unpickling: an empty GraphModule of a fresh class, its saved state, then
    the graph (which regenerates forward)."""
    gm = GraphModule.__new__(GraphModule)
    Module.__init__(gm)
    type(gm).__name__ = cls_name
    gm.__dict__.update(body)
    gm._graph = None
    gm.graph = graph
    return gm


class GraphModule(Module):
    """A Module made of ``root`` (a Module or a dict of attributes) and a Graph.

    ``gm.graph`` is the graph; ``gm.code`` the generated Python source of its
    forward; edit the graph then call ``gm.recompile()``."""

    def __new__(cls, *args, **kwargs):
        # each instance a class of its own: forward is set on the class
        for t in cls.__mro__:
            c = t.__qualname__.split(".")[-1]
            if c != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets_to_copy = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but "
                                           "that target was not provided in ``root``!")
                    targets_to_copy.append(node.target)
            targets_to_copy.sort(key=lambda t: t.count("."))
            for target in targets_to_copy:
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        self.meta = {}
        self._tracer_cls = graph._tracer_cls

    @property
    def graph(self):
        """The Graph this module runs; setting it recompiles forward."""
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def _in_spec(self):
        """The input structure generated code flattens by (pytree graphs)."""
        return self._graph._codegen.pytree_info.in_spec

    @property
    def _out_spec(self):
        return self._graph._codegen.pytree_info.out_spec

    @property
    def code(self):
        """The Python source of the generated forward."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to torchlike")
        return self._code

    def recompile(self):
        """Generate forward from ``self.graph`` again (after editing it)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        self._lineno_map = python_code._lineno_map
        cls = type(self)
        cls.forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False):
        """The module as a class definition, GraphModule children nested as
        classes inside it (as PyTorch prints it)."""
        output = "\n".join(self._readable_lines(self._get_name())) + "\n"
        if print_output:
            print(output)
        return output

    def _readable_lines(self, name):
        src = self._graph.python_code(root_module="self", verbose=True).src
        body = [line.rstrip() for line in src.strip("\n").rstrip().split("\n")]
        lines = [f"class {name}(torchlike.nn.Module):"]
        lines += ["    " + line if line else line for line in body]
        for child_name, mod in self.named_children():
            if isinstance(mod, GraphModule):
                lines.append("")
                lines += ["    " + line if line else line
                          for line in mod._readable_lines(child_name)]
        return lines

    def __str__(self):
        orig_str = super().__str__()
        print_readable_reminder = ("# To see more debug info, please use "
                                   "`graph_module.print_readable()`")
        return "\n".join([orig_str, self._code, print_readable_reminder])

    def _get_name(self):
        return type(self).__name__

    # ---- editing submodules ----------------------------------------------------------

    def add_submodule(self, target, m):
        """Install ``m`` at dotted path ``target``, creating empty Modules on the
        way; False when a non-Module attribute is in the way."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Remove the submodule at dotted path ``target``; False when there is none."""
        atoms = target.split(".")
        path, target_submod = atoms[:-1], atoms[-1]
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, target_submod):
            return False
        if not isinstance(getattr(mod, target_submod), Module):
            return False
        delattr(mod, target_submod)
        return True

    def delete_all_unused_submodules(self):
        """Remove every submodule no call_module or get_attr node uses (the
        modules on the path to a used one are kept)."""
        used = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                fullpath = node.target.split(".")
                for i in range(1, len(fullpath) + 1):
                    used.append(".".join(fullpath[:i]))
                if node.op == "call_module":
                    try:
                        submod = self.get_submodule(node.target)
                        for submod_name, _ in submod.named_modules():
                            if submod_name:
                                used.append(".".join([node.target, submod_name]))
                    except AttributeError:
                        pass
        used = set(used)
        to_delete = [name for name, _ in self.named_modules() if name and name not in used]
        for name in to_delete:
            self.delete_submodule(name)

    # ---- copies ------------------------------------------------------------------------

    def __reduce__(self):
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code",
                                                                    "_lineno_map")}
        return (_rebuild_graph_module, (type(self).__name__, body, self._graph))

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))  # a fresh class under the same user class
        memo[id(self)] = res
        Module.__init__(res)
        type(res).__name__ = type(self).__name__
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code",
                                                                    "_lineno_map")}
        res.__dict__.update(copy.deepcopy(body, memo))
        res._graph = None
        res.graph = copy.deepcopy(self._graph)
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph, type(self).__name__)
        res.meta = getattr(self, "meta", {}).copy()
        return res

