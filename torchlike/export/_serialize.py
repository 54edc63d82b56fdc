"""_serialize.py - save/load of an ExportedProgram through torchlike.save/load.

The program is written as plain data - strings, numbers, lists, dicts and
tensors - so ``load`` reads it with ``torchlike.load(weights_only=True)``:
a file cannot make it import or call anything.  Call targets are written by
name and resolved on load only inside an allowlist (torchlike's public
function namespaces, ``operator``, ``getattr``, export's ``sym_size``);
``call_method`` targets must be public Tensor methods."""
import math
import operator

import torchlike
from torchlike.fx import Graph, GraphModule
from torchlike.fx.node import Node
from torchlike.utils import _pytree as pytree

from ._trace import force_name

__all__ = ["save", "load"]

_FORMAT = "torchlike.export"
_VERSION = 1


# operator's functions a graph may call: arithmetic, comparisons, indexing
# (not operator.call, methodcaller, attrgetter ..., which would call anything)
_OPERATOR_NAMES = frozenset("""
    add sub mul truediv floordiv mod pow matmul neg pos abs invert and_ or_ xor lshift
    rshift eq ne lt le gt ge getitem setitem not_ truth index
""".split())


def _namespaces():
    import torchlike.nn.functional as F
    from ._trace import sym_size
    import builtins
    return {"torchlike": torchlike, "torchlike.nn.functional": F,
            "torchlike.linalg": torchlike.linalg, "torchlike.fft": torchlike.fft,
            "torchlike.special": torchlike.special,
            "operator": {n: getattr(operator, n) for n in _OPERATOR_NAMES},
            "builtins": {"getattr": builtins.getattr, "len": builtins.len},
            "math": {n: v for n, v in vars(math).items()
                     if not n.startswith("_") and callable(v)},
            "torchlike.export": {"sym_size": sym_size}}


def _allowed_name(module, attr):
    """Public ops only: torchlike's configuration, file and seeding functions
    (save, load, from_file, manual_seed ...) are not ops and are refused."""
    from torchlike.overrides import _not_op
    if attr.startswith("_"):
        return False
    if module.startswith("torchlike") and module != "torchlike.export":
        return not _not_op(attr, module) and "file" not in attr
    return True


def _target_name(target):
    from torchlike.fx.graph import _qualified_name
    from ._trace import sym_size
    if target is sym_size:
        return "torchlike.export.sym_size"
    if getattr(target, "__module__", None) == "_operator":
        return f"operator.{target.__name__}"
    name = _qualified_name(target)
    if _resolve_target(name) is not target:
        raise RuntimeError(f"torchlike.export.save: cannot save a call of {target!r} "
                           "(only torchlike's public functions, operator and math are "
                           "saved by name)")
    return name


def _resolve_target(name):
    module, _, attr = name.rpartition(".")
    ns = _namespaces().get(module)
    if ns is None or not _allowed_name(module, attr):
        raise RuntimeError(f"torchlike.export.load: refusing call target {name!r}")
    value = ns.get(attr) if isinstance(ns, dict) else getattr(ns, attr, None)
    if value is None or not callable(value) or isinstance(value, type):
        raise RuntimeError(f"torchlike.export.load: unknown call target {name!r}")
    return value


# Tensor methods that write files, run callables or touch autograd hooks:
# never a step of an exported computation
_REFUSED_METHODS = frozenset("""
    tofile dump dumps apply_ map_ map2_ register_hook register_post_accumulate_grad_hook
    backward module_load share_memory_ retain_grad
""".split())


def _allowed_method(name):
    from torchlike.overrides import _not_op
    return not name.startswith("_") and name not in _REFUSED_METHODS and \
        not _not_op(name, "torchlike.Tensor")


def _public_attr(args):
    """Is an encoded ``(obj, name)`` argument tuple's name a public string?"""
    items = args.get("tuple")
    return isinstance(items, list) and len(items) == 2 and isinstance(items[1], str) \
        and not items[1].startswith("_")


# ---- arguments -------------------------------------------------------------------------

def _enc(a):
    if isinstance(a, Node):
        return {"node": a.name}
    if isinstance(a, tuple):
        return {"tuple": [_enc(x) for x in a]}
    if isinstance(a, list):
        return [_enc(x) for x in a]
    if isinstance(a, dict):
        return {"dict": [[k, _enc(v)] for k, v in a.items()]}
    if isinstance(a, slice):
        return {"slice": [_enc(a.start), _enc(a.stop), _enc(a.step)]}
    if a is Ellipsis:
        return {"ellipsis": None}
    if isinstance(a, torchlike.dtype):
        return {"dtype": str(a).rpartition(".")[2]}
    if isinstance(a, torchlike.device):
        return {"device": str(a)}
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    if isinstance(a, complex):
        return {"complex": [a.real, a.imag]}
    raise RuntimeError(f"torchlike.export.save: cannot save an argument of type "
                       f"{type(a).__name__}")


def _dec(a, env):
    if isinstance(a, list):
        return [_dec(x, env) for x in a]
    if not isinstance(a, dict):
        return a
    if len(a) != 1:
        raise RuntimeError("torchlike.export.load: malformed argument")
    (k, v), = a.items()
    if k == "node":
        return env[v]
    if k == "tuple":
        return tuple(_dec(x, env) for x in v)
    if k == "dict":
        return {kk: _dec(vv, env) for kk, vv in v}
    if k == "slice":
        return slice(*[_dec(x, env) for x in v])
    if k == "ellipsis":
        return Ellipsis
    if k == "dtype":
        dt = getattr(torchlike, v, None)
        if not isinstance(dt, torchlike.dtype):
            raise RuntimeError(f"torchlike.export.load: unknown dtype {v!r}")
        return dt
    if k == "device":
        return torchlike.device(v)
    if k == "complex":
        return complex(*v)
    raise RuntimeError(f"torchlike.export.load: unknown argument tag {k!r}")


# ---- tree specs ------------------------------------------------------------------------

def _spec_enc(spec):
    if spec.is_leaf():
        return None
    kinds = {tuple: "tuple", list: "list", dict: "dict"}
    if spec.type not in kinds:
        raise RuntimeError(f"torchlike.export.save: cannot save a tree of {spec.type}")
    return [kinds[spec.type], list(spec.context) if spec.type is dict else None,
            [_spec_enc(c) for c in spec.children_specs]]


def _spec_dec(data):
    """The TreeSpec ``_spec_enc`` wrote: the structure of a sample tree whose
    leaves are markers."""
    def sample(d):
        if d is None:
            return _Leaf()
        kind, context, children = d
        kids = [sample(c) for c in children]
        if kind == "dict":
            return dict(zip(context, kids))
        if kind == "tuple":
            return tuple(kids)
        if kind == "list":
            return kids
        raise RuntimeError(f"torchlike.export.load: unknown tree kind {kind!r}")
    return pytree.tree_structure(sample(data))


class _Leaf:
    pass


# ---- save / load -----------------------------------------------------------------------

def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write ``ep`` to ``f`` (a path or a binary file) in torchlike's checkpoint format."""
    from .exported_program import ExportedProgram
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got "
                        f"'{type(ep).__name__}' instead.")
    nodes = []
    for n in ep.graph.nodes:
        if n.op in ("call_function",):
            target = _target_name(n.target)
        else:
            target = n.target
        nodes.append([n.op, n.name, target, _enc(n.args), _enc(n.kwargs),
                      n.meta.get("export_type"), n.stack_trace])
    sig = ep.graph_signature
    data = {
        "format": _FORMAT, "version": _VERSION, "nodes": nodes,
        "input_specs": [[s.kind.name, s.arg.name, s.target, s.persistent,
                         _enc(getattr(s.arg, "value", None)),
                         type(s.arg).__name__] for s in sig.input_specs],
        "output_specs": [[s.kind.name, s.arg.name, s.target,
                          _enc(getattr(s.arg, "value", None)), type(s.arg).__name__]
                         for s in sig.output_specs],
        "state_dict": dict(ep.state_dict),
        "parameters": list(sig.parameters),
        "constants": dict(ep.constants),
        "range_constraints": [[k, r.lower, r.upper] for k, r in ep.range_constraints.items()],
        "example_inputs": ep.example_inputs,
        "in_spec": _spec_enc(ep._in_spec), "out_spec": _spec_enc(ep._out_spec),
        "arg_names": [list(ep._arg_names[0]), list(ep._arg_names[1])],
        "input_guards": [g.to_data() for g in ep._input_guards],
    }
    torchlike.save(data, f, pickle_protocol=pickle_protocol)


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an ExportedProgram written by ``save`` (never runs code from the file)."""
    data = torchlike.load(f, weights_only=True)
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise RuntimeError("torchlike.export.load: not a saved ExportedProgram")
    if data.get("version") != _VERSION:
        raise RuntimeError(f"torchlike.export.load: unsupported version {data.get('version')}")
    try:
        return _program_from_data(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise RuntimeError(f"torchlike.export.load: malformed program "
                           f"({type(e).__name__}: {e})") from None


def _program_from_data(data):
    from .exported_program import ExportedProgram, ValueRanges, _InputGuard
    from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind,
                                  OutputSpec, TensorArgument, ConstantArgument)
    graph = Graph()
    env = {}
    tensor_methods = set(n for n in dir(torchlike.Tensor) if _allowed_method(n))
    for op, name, target, args, kwargs, type_text, stack_trace in data["nodes"]:
        if op == "call_function":
            target = _resolve_target(target)
            if target is getattr and not (isinstance(args, dict) and _public_attr(args)):
                raise RuntimeError("torchlike.export.load: refusing getattr of a private "
                                   "or computed attribute name")
        elif op == "call_method":
            if target not in tensor_methods:
                raise RuntimeError(f"torchlike.export.load: refusing method {target!r}")
        elif op not in ("placeholder", "output"):
            raise RuntimeError(f"torchlike.export.load: refusing node op {op!r}")
        node = graph.create_node(op, target, _dec(args, env), _dec(kwargs, env), name=name)
        if op == "placeholder":
            force_name(graph, node, name)
        if node.name != name:
            raise RuntimeError(f"torchlike.export.load: duplicate node name {name!r}")
        if isinstance(type_text, str):
            node.meta["export_type"] = type_text
        if isinstance(stack_trace, str):
            node.stack_trace = stack_trace
        env[name] = node
    graph.lint()
    params = set(data["parameters"])
    state_dict = {}
    for k, v in data["state_dict"].items():
        if k in params and not isinstance(v, torchlike.nn.Parameter):
            v = torchlike.nn.Parameter(v, requires_grad=v.requires_grad)
        state_dict[k] = v

    def arg(name, value, cls):
        return ConstantArgument(name, _dec(value, {})) if cls == "ConstantArgument" \
            else TensorArgument(name)
    inputs = [InputSpec(InputKind[kind], arg(name, value, cls), target, persistent)
              for kind, name, target, persistent, value, cls in data["input_specs"]]
    outputs = [OutputSpec(OutputKind[kind], arg(name, value, cls), target)
               for kind, name, target, value, cls in data["output_specs"]]
    gm = GraphModule({}, graph, "GraphModule")
    return ExportedProgram(
        gm, ExportGraphSignature(inputs, outputs), state_dict,
        {k: ValueRanges(lo, hi) for k, lo, hi in data["range_constraints"]},
        data["example_inputs"], _spec_dec(data["in_spec"]), _spec_dec(data["out_spec"]),
        (data["arg_names"][0], data["arg_names"][1]),
        [_InputGuard.from_data(g) for g in data["input_guards"]], data["constants"])
