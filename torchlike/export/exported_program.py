"""exported_program.py - ExportedProgram: a traced graph with its state lifted.

``graph_module`` runs ``(*parameters, *buffers, *constants, *user inputs)``
and returns a flat tuple; ``graph_signature`` says which placeholder is
which.  ``module()`` builds the callable form: parameters, buffers and
constants become attributes (``get_attr`` nodes) and the forward takes the
user's arguments, checked against the exported structure and shapes first
(a forward pre-hook: ValueError for another structure, AssertionError
"Guard failed: ..." for a size outside what was exported)."""
import copy
import math

import torchlike
from torchlike.fx import Graph, GraphModule
from torchlike.fx.graph import _PyTreeCodeGen, _PyTreeInfo
from torchlike.utils import _pytree as pytree

from .graph_signature import InputKind, OutputKind, TensorArgument
from ._trace import force_name

__all__ = ["ExportedProgram"]


class _InputGuard:
    """What a user input leaf must be: a tensor of ``ndim`` dims whose dims
    are ``(size, None)`` (static) or ``(lo, hi)`` (dynamic), or a constant."""

    def __init__(self, name, dims=None, constant=None, is_tensor=True):
        self.name = name
        self.dims = dims
        self.constant = constant
        self.is_tensor = is_tensor

    def check(self, value):
        if not self.is_tensor:
            if value != self.constant:
                raise AssertionError(f"Guard failed: {self.name} == {self.constant!r}")
            return
        if not isinstance(value, torchlike.Tensor):
            raise AssertionError(f"Guard failed: {self.name} is a Tensor, got "
                                 f"{type(value).__name__}")
        shape = value.shape
        for d, (a, b) in enumerate(self.dims):
            if d >= len(shape):
                break
            n = int(shape[d])
            if b is None:
                if n != a:
                    raise AssertionError(f"Guard failed: {self.name}.size()[{d}] == {a}")
                continue
            if a > 2 and n < a:
                raise AssertionError(f"Guard failed: {self.name}.size()[{d}] >= {a}")
            if b != math.inf and n > b:
                raise AssertionError(f"Guard failed: {self.name}.size()[{d}] <= {b}")
        if len(shape) != len(self.dims):
            raise RuntimeError(f"torchlike.export: input {self.name} was exported with "
                               f"{len(self.dims)} dimensions, got shape {tuple(shape)}")

    def to_data(self):
        return [self.name, self.is_tensor, self.constant,
                None if self.dims is None else [list(d) for d in self.dims]]

    @classmethod
    def from_data(cls, data):
        name, is_tensor, constant, dims = data
        return cls(name, None if dims is None else [tuple(d) for d in dims], constant,
                   is_tensor)


class ValueRanges:
    """The range [lower, upper] of a dynamic dimension (upper may be inf)."""

    def __init__(self, lower, upper):
        self.lower = lower
        self.upper = upper

    def __eq__(self, other):
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == \
            (other.lower, other.upper)

    def __repr__(self):
        upper = "int_oo" if self.upper == math.inf else self.upper
        return f"VR[{self.lower}, {upper}]"


class ExportedProgram:
    """The result of ``torchlike.export.export``."""

    def __init__(self, graph_module, graph_signature, state_dict, range_constraints,
                 example_inputs, in_spec, out_spec, arg_names, input_guards,
                 constants=None):
        self._graph_module = graph_module
        self._graph_signature = graph_signature
        self._state_dict = state_dict
        self._range_constraints = range_constraints
        self._example_inputs = example_inputs
        self._in_spec = in_spec          # structure of (args, kwargs)
        self._out_spec = out_spec
        self._arg_names = arg_names      # (positional names, keyword names)
        self._input_guards = input_guards
        self._constants = constants or {}

    # ---- the pieces --------------------------------------------------------------------

    @property
    def graph_module(self):
        return self._graph_module

    @property
    def graph(self):
        return self._graph_module.graph

    @property
    def graph_signature(self):
        return self._graph_signature

    @property
    def state_dict(self):
        return self._state_dict

    @property
    def constants(self):
        return self._constants

    @property
    def range_constraints(self):
        return self._range_constraints

    @property
    def example_inputs(self):
        return self._example_inputs

    @property
    def call_spec(self):
        return (self._in_spec, self._out_spec)

    def parameters(self):
        for name in self._graph_signature.parameters:
            yield self._state_dict[name]

    def named_parameters(self):
        for name in self._graph_signature.parameters:
            yield name, self._state_dict[name]

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    def named_buffers(self):
        for name in self._graph_signature.buffers:
            if name in self._state_dict:
                yield name, self._state_dict[name]
            else:
                yield name, self._constants[name]

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """torchlike's graphs hold its public functions, which have no
        decomposition table below them: a new ExportedProgram with a copy of
        the same graph."""
        gm = GraphModule({}, copy.deepcopy(self.graph), "GraphModule")
        _copy_constants(self, gm)
        return ExportedProgram(gm, self._graph_signature, self._state_dict,
                               dict(self._range_constraints), self._example_inputs,
                               self._in_spec, self._out_spec, self._arg_names,
                               self._input_guards, self._constants)

    def validate(self):
        self.graph.lint()

    # ---- the callable module -----------------------------------------------------------

    def module(self):
        """A GraphModule that takes the user inputs, holds the parameters,
        buffers and constants as attributes, and checks its inputs."""
        graph = Graph()
        env = {}
        root = {}
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        for spec, node in zip(self._graph_signature.input_specs, placeholders):
            if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                value = self._state_dict.get(spec.target)
                if value is None:
                    value = self._constants[spec.target]
                root[spec.target] = value
                env[node] = graph.get_attr(spec.target)
        for spec, node in zip(self._graph_signature.input_specs, placeholders):
            if spec.kind is InputKind.USER_INPUT:
                env[node] = force_name(graph, graph.placeholder(node.name), node.name)
                env[node].meta = dict(node.meta)
        for node in self.graph.nodes:
            if node.op in ("placeholder",):
                continue
            if node.op == "get_attr":
                root[node.target] = _fetch(self._graph_module, node.target)
            env[node] = graph.node_copy(node, lambda n: env[n])
        positional, keywords = self._arg_names
        names = list(positional) + list(keywords)
        args, kwargs = pytree.tree_unflatten([None] * len(self._input_guards), self._in_spec)
        structure = pytree.tree_structure(list(args) + [kwargs[k] for k in keywords])
        graph.set_codegen(_PyTreeCodeGen(_PyTreeInfo(names, structure, self._out_spec)))
        gm = GraphModule(root, graph, "GraphModule")
        gm.register_forward_pre_hook(_make_input_check(self), with_kwargs=True)
        # the graph is specialised to one mode (dropout, BatchNorm): as in
        # PyTorch, switching modes is refused (each instance has its own class)
        type(gm).train = _refuse_mode_switch("train")
        type(gm).eval = _refuse_mode_switch("eval")
        return gm

    # ---- printing ----------------------------------------------------------------------

    def _annotated_readable(self):
        """print_readable's text with PyTorch's value annotations
        (``x: "f32[s0, 3]"``) on the parameters and assignments."""
        types = {n.name: n.meta["export_type"] for n in self.graph.nodes
                 if "export_type" in n.meta}
        lines = self._graph_module.print_readable(print_output=False).split("\n")
        out = []
        for line in lines:
            stripped = line.lstrip()
            indent = line[:len(line) - len(stripped)]
            if stripped.startswith("def forward(self, ") and stripped.endswith("):"):
                names = stripped[len("def forward(self, "):-2].split(", ")
                params = [f'{n}: "{types[n]}"' if n in types else n for n in names]
                line = f"{indent}def forward(self, {', '.join(params)}):"
            else:
                name, sep, rest = stripped.partition(" = ")
                if sep and name.isidentifier() and name in types:
                    line = f'{indent}{name}: "{types[name]}" = {rest}'
            out.append(line)
        return "\n".join(out)

    def __str__(self):
        readable = self._annotated_readable()
        body = "\n".join("    " + line if line else line for line in readable.split("\n"))
        sig_lines = str(self._graph_signature).split("\n")[1:]  # from "# inputs"
        sig = "\n".join("    " + line for line in sig_lines)
        ranges = ", ".join(f"{k}: {r!r}" for k, r in self._range_constraints.items())
        return (f"ExportedProgram:\n{body}\nGraph signature:\n{sig}\n"
                f"Range constraints: {{{ranges}}}\n")

    def __repr__(self):
        return str(self)


def _refuse_mode_switch(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"Calling {name}() is not supported yet.")
    refuse.__name__ = name
    return refuse


def _fetch(mod, target):
    for atom in target.split("."):
        mod = getattr(mod, atom)
    return mod


def _copy_constants(ep, gm):
    from torchlike.fx.graph_module import _assign_attr
    for node in ep.graph.nodes:
        if node.op == "get_attr":
            _assign_attr(_fetch(ep.graph_module, node.target), gm, node.target)


def _make_input_check(ep):
    positional, keywords = ep._arg_names

    def check(module, args, kwargs):
        if set(kwargs) != set(keywords):
            raise ValueError(f"Ran into a kwarg keyword mismatch: Got the following keywords "
                             f"{list(kwargs)} but expected {list(keywords)}")
        kwargs = {k: kwargs[k] for k in keywords}  # the exported order
        got = pytree.tree_structure((tuple(args), dict(kwargs)))
        if got != ep._in_spec:
            raise ValueError(
                "Trying to flatten user inputs with exported input tree spec: \n"
                f"{ep._in_spec}\nbut actually got inputs with tree spec of: \n{got}.\n"
                "Please check that the inputs have the same number and type of args and "
                "kwargs as the ones you used when tracing.")
        leaves = pytree.tree_flatten((tuple(args), dict(kwargs)))[0]
        for guard, leaf in zip(ep._input_guards, leaves):
            guard.check(leaf)
        return tuple(args) + tuple(kwargs[k] for k in keywords), {}
    return check


def _signature_outputs(out_node):
    from .graph_signature import OutputSpec, ConstantArgument
    from torchlike.fx.node import Node
    specs = []
    for a in out_node.args[0]:
        if isinstance(a, Node):
            specs.append(OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(a.name), None))
        else:
            specs.append(OutputSpec(OutputKind.USER_OUTPUT, ConstantArgument("", a), None))
    return specs
