"""torchlike.export: PyTorch's torch.export - trace a module with example
inputs into an ExportedProgram (a graph with the parameters and buffers
lifted to inputs), run it through ``.module()``, save and load it.

    ep = torchlike.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("b")}})
    ep.module()(x2)

See docs/export.md for what exists and what does not."""
import inspect
import math

import torchlike
from torchlike.fx import GraphModule
from torchlike.utils import _pytree as pytree

from .dynamic_shapes import Dim, DimHint, dims, _resolve
from .errors import UserError, ConstraintViolationError, GuardOnDataDependentSymNode
from .exported_program import ExportedProgram, ValueRanges, _InputGuard, _signature_outputs
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind,
                              OutputSpec, TensorArgument, ConstantArgument)
from ._trace import trace_module, _Specialize, sym_size, type_text
from ._serialize import save, load

__all__ = ["export", "save", "load", "sym_size", "Dim", "DimHint", "dims", "ExportedProgram",
           "ExportGraphSignature", "InputKind", "InputSpec", "OutputKind", "OutputSpec",
           "TensorArgument", "ConstantArgument", "UserError", "ConstraintViolationError",
           "GuardOnDataDependentSymNode"]


def _leaf_names(arg_names, values):
    """A placeholder name per leaf: the argument's name, with ``_<index>`` /
    ``_<key>`` for leaves inside containers (``xs_0``, ``d_a``)."""
    names = []

    def walk(prefix, spec):
        if spec.is_leaf():
            names.append(prefix)
            return
        keys = spec.context if spec.type is dict else range(len(spec.children_specs))
        for k, child in zip(keys, spec.children_specs):
            walk(f"{prefix}_{k}", child)
    for n, v in zip(arg_names, values):
        walk(n, pytree.tree_structure(v))
    return names


def _drop_dead_size_arithmetic(graph):
    """Size reads and comparisons whose results Python consumed (guards)
    leave unused nodes: drop them (unused tensor ops, which may be in-place,
    are kept)."""
    import operator
    from ._trace import sym_size
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and not node.users and \
                node.target is not operator.setitem and \
                not isinstance(node.meta.get("val"), torchlike.Tensor) and \
                (node.target is sym_size or node.target is getattr or
                 getattr(node.target, "__module__", None) in ("_operator", "math")):
            graph.erase_node(node)


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=()):
    """Trace ``mod`` on ``args``/``kwargs`` into an ExportedProgram.

    Python control flow on shapes is specialised to the example's shapes
    (except dimensions marked dynamic by ``dynamic_shapes``); control flow
    on tensor values raises GuardOnDataDependentSymNode."""
    from torchlike.nn import Module
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got "
                         f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got "
                        f"{type(args)}")
    kwargs = dict(kwargs or {})
    sig = inspect.signature(type(mod).forward)
    try:
        sig.bind(mod, *args, **kwargs)
    except TypeError as e:
        raise UserError(f"export: the example inputs do not fit {type(mod).__name__}."
                        f"forward{sig}: {e}") from None
    params = list(sig.parameters.values())[1:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise NotImplementedError("torchlike.export: forward with *args or **kwargs is not "
                                  "supported; give it named parameters")
    positional = [p.name for p in params][:len(args)]
    keywords = list(kwargs)
    arg_names = positional + keywords
    values = list(args) + [kwargs[k] for k in keywords]
    leaf_names = _leaf_names(arg_names, values)
    flat, in_spec = pytree.tree_flatten((tuple(args), kwargs))
    leaf_dims, symbols = _resolve(dynamic_shapes, arg_names, values, leaf_names, flat)

    while True:
        try:
            graph, tracer = trace_module(mod, flat, leaf_names, in_spec, leaf_dims, symbols)
            break
        except TypeError as e:
            if "Proxy" not in str(e):
                raise
            raise TypeError(
                f"torchlike.export: {e}. A traced value reached code that needs a real "
                "Tensor: code calling torchlike._C directly (nn.RNN, nn.LSTM, nn.GRU) does "
                "not dispatch __torch_function__ and cannot be exported") from e
        except _Specialize as e:  # Dim.AUTO specialised: retrace with it static
            symbols = [s for s in symbols if s is not e.symbol]
            leaf_dims = {i: {d: s for d, s in dims.items() if s is not e.symbol}
                         for i, dims in leaf_dims.items()}

    # flat output, as PyTorch's graphs return
    out_node = next(n for n in graph.nodes if n.op == "output")
    out_leaves, out_spec = pytree.tree_flatten(out_node.args[0])
    out_node.args = (tuple(out_leaves),)

    # tensor constants (get_attr nodes) are lifted to placeholders as PyTorch does
    constants = {}
    user_nodes = tracer.user_nodes
    first_user = user_nodes[0] if user_nodes else \
        next(n for n in graph.nodes if n.op != "placeholder")
    const_specs = []
    n_lifted = 0
    lifted_by_target = {}
    for node in list(graph.nodes):
        if node.op == "get_attr" and node.target in lifted_by_target:
            node.replace_all_uses_with(lifted_by_target[node.target])  # one input per tensor
            graph.erase_node(node)
        elif node.op == "get_attr":
            value = node.meta["val"]
            target = node.target
            if target in tracer.parked:  # a tensor made during forward: PyTorch's name
                target = f"lifted_tensor_{n_lifted}"
                n_lifted += 1
            constants[target] = value
            name = "c_" + target.replace(".", "_")
            with graph.inserting_before(first_user):
                ph = graph.placeholder(name)
            ph.meta = dict(node.meta)
            lifted_by_target[node.target] = ph
            node.replace_all_uses_with(ph)
            graph.erase_node(node)
            const_specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(ph.name),
                                         target))

    state_dict = {}
    lifted_params = dict(mod.named_parameters())
    lifted_buffers = dict(mod.named_buffers())
    input_specs = []
    for kind, name, target, persistent in tracer.lifted:
        if kind == "PARAMETER":
            input_specs.append(InputSpec(InputKind.PARAMETER, TensorArgument(name), target))
            state_dict[target] = lifted_params[target]
        else:
            input_specs.append(InputSpec(InputKind.BUFFER, TensorArgument(name), target,
                                         persistent))
            if persistent:
                state_dict[target] = lifted_buffers[target]
            else:
                constants[target] = lifted_buffers[target]
    input_specs += const_specs
    guards = []
    for i, (leaf, node) in enumerate(zip(flat, user_nodes)):
        pname = node.name
        if isinstance(leaf, torchlike.Tensor):
            dims = []
            for d, n in enumerate(leaf.shape):
                sym = leaf_dims.get(i, {}).get(d)
                dims.append((int(n), None) if sym is None else (sym.lo, sym.hi))
            guards.append(_InputGuard(pname, dims))
            input_specs.append(InputSpec(InputKind.USER_INPUT, TensorArgument(pname), None))
        else:
            guards.append(_InputGuard(pname, None, leaf, is_tensor=False))
            input_specs.append(InputSpec(InputKind.USER_INPUT, ConstantArgument(pname, leaf),
                                         None))
    _drop_dead_size_arithmetic(graph)
    keys = {sym: f"s{k}" for k, sym in enumerate(symbols)}
    for node in graph.nodes:
        if node.op != "output":
            text = type_text(tracer, node, keys)
            if text is not None:
                node.meta["export_type"] = text  # str(ep) annotates with it
    for node in graph.nodes:
        for key in ("shadows", "dd", "syms", "requires_grad"):
            node.meta.pop(key, None)
    graph.lint()
    signature = ExportGraphSignature(input_specs, _signature_outputs(out_node))
    gm = GraphModule({}, graph, "GraphModule")
    ranges = {f"s{k}": ValueRanges(s.range_lo, s.hi) for k, s in enumerate(symbols)}
    example_inputs = (tuple(args), kwargs)
    return ExportedProgram(gm, signature, state_dict, ranges, example_inputs, in_spec,
                           out_spec, (positional, keywords), guards, constants)
