"""convert_fx's graph pass, in PyTorch's two steps.  First every observer
becomes quantize_per_tensor (or quantize_per_channel for a weight) and
dequantize, its scale and zero point buffers named as PyTorch names them
(<module path>[_input]_scale_<i>).  Then each quantized pattern between a
dequantize and a quantize is lowered: modules to their quantized modules,
F.linear to quantized::linear with a packed weight, add/mul to
quantized::add/mul, ops that share qparams run on the quantized tensor.
What stays float keeps its dequantize."""
import torchlike as _t
from .... import _C
from ....fx import Node, GraphModule
from ...._quantized.script_object import ScriptObject, pack_linear
from ...nn.quantized.modules import _quantize_weight
from .prepare import OBSERVER_PREFIX
from .patterns import static_module_mapping, BINARY

PACKED_PREFIX = "_packed_weight_"
_PER_CHANNEL = ("per_channel_affine", "per_channel_symmetric")


class _Names:
    """PyTorch's attribute and node names: the first free <prefix><i> (the
    names it made for quantize nodes it removed again stay taken)."""

    def __init__(self, gm):
        self.gm, self.taken, self.counts = gm, set(), {}

    def attr(self, prefix):
        prefix = prefix.replace(".", "_")
        i = 0
        while hasattr(self.gm, f"{prefix}{i}") or f"{prefix}{i}" in self.taken:
            i += 1
        self.taken.add(f"{prefix}{i}")
        return f"{prefix}{i}"

    def node(self, base):
        k = self.counts.get(base, 0)
        self.counts[base] = k + 1
        return base if k == 0 else f"{base}_{k}"


def _path_and_prefix(obs_node, qconfigs, scopes):
    observed = obs_node.args[0]
    if qconfigs.get(observed.name) is None:  # observed only as the next op's input
        users = list(obs_node.users)
        first = next((u for u in users if u.op == "call_function" and
                      u.target is _t.nn.functional.linear), users[0] if users else None)
        prefix = "_input"
    else:
        first, prefix = observed, ""
    path = scopes.get(first.name, ("", None))[0] if first is not None else ""
    return path, prefix


def _observers_to_quantize(gm, info, names):
    """Step one; returns {quantize node: (scale, zero point, observer)}."""
    graph = gm.graph
    qinfo = {}
    for node in list(graph.nodes):
        if not (node.op == "call_module" and node.target.startswith(OBSERVER_PREFIX)):
            continue
        obs = gm.get_submodule(node.target)
        observed = node.args[0]
        path, prefix = _path_and_prefix(node, info["qconfigs"], info["scopes"])
        scale, zero_point = obs.calculate_qparams()
        per_channel = obs.qscheme.name in _PER_CHANNEL
        if per_channel:
            values = (scale.float().clone(), zero_point.long().clone())
        else:
            values = (_C.tensor(float(scale)), _C.tensor(int(zero_point)))
        s_name, z_name = names.attr(path + prefix + "_scale_"), \
            names.attr(path + prefix + "_zero_point_")
        gm.register_buffer(s_name, values[0])
        gm.register_buffer(z_name, values[1])
        with graph.inserting_before(node):
            s_node = graph.create_node("get_attr", s_name)
            z_node = graph.create_node("get_attr", z_name)
            if per_channel:
                q = graph.create_node("call_function", _t.quantize_per_channel,
                                      (observed, s_node, z_node, obs.ch_axis, obs.dtype), {},
                                      name=names.node("quantize_per_channel"))
            else:
                q = graph.create_node("call_function", _t.quantize_per_tensor,
                                      (observed, s_node, z_node, obs.dtype), {},
                                      name=names.node("quantize_per_tensor"))
            dq = graph.create_node("call_method", "dequantize", (q,), {},
                                   name=names.node("dequantize"))
        node.replace_all_uses_with(dq)
        graph.erase_node(node)
        qinfo[q] = (values[0], values[1], obs)
    return qinfo


def _is_dq(node, qinfo):
    """A dequantize of a quantize node, or of an op lowered to quantized."""
    return isinstance(node, Node) and node.op == "call_method" and \
        node.target == "dequantize" and (node.args[0] in qinfo or
                                         node.args[0].meta.get("_fx_quantized", False))


def _q_user(node, qinfo):
    users = list(node.users)
    return users[0] if len(users) == 1 and users[0] in qinfo else None


def _drop_q(q_out, replacement, graph):
    replacement.meta["_fx_quantized"] = True
    q_out.replace_all_uses_with(replacement)
    graph.erase_node(q_out)


def _get_attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _op_name(target):
    return BINARY[[k for k in BINARY if k is target][0]]


def _lower_module(gm, first, last, q_out, qinfo, info, names):
    """dq -> module -> q: the module's quantized counterpart on the quantized input."""
    x = first.args[0]
    if not _is_dq(x, qinfo):
        return
    mod = gm.get_submodule(first.target)
    mod.activation_post_process = qinfo[q_out][2]
    mod.qconfig = info["qconfigs"][first.name]
    qmod = static_module_mapping()[type(mod)].from_float(mod)
    if "scale" in qmod._buffers:  # PyTorch's from_reference: the 0-d qparams buffers
        qmod.scale = qinfo[q_out][0].clone()
        qmod.zero_point = qinfo[q_out][1].clone()
    parent, _, leaf = first.target.rpartition(".")
    setattr(gm.get_submodule(parent) if parent else gm, leaf, qmod)
    first.args = (x.args[0],) + tuple(first.args[1:])
    _drop_q(q_out, first, gm.graph)


def _lower_linear(gm, first, last, q_out, qinfo, info, names):
    """F.linear (+ relu) -> quantized::linear(_relu) with a packed weight attribute."""
    graph = gm.graph
    x, w = first.args[0], first.args[1]
    b = first.args[2] if len(first.args) > 2 else None
    if not (_is_dq(x, qinfo) and _is_dq(w, qinfo)):
        return
    w_q = w.args[0]
    weight = _get_attr(gm, w_q.args[0].target).detach()
    qweight = _quantize_weight(weight, qinfo[w_q][2])
    bias = _get_attr(gm, b.target).detach() if isinstance(b, Node) else b
    path = info["scopes"].get(first.name, ("", None))[0]
    packed_name = names.attr(path + PACKED_PREFIX)
    setattr(gm, packed_name, pack_linear(qweight, bias))
    with graph.inserting_before(first):
        packed = graph.create_node("get_attr", packed_name)
    op = "linear_relu" if last is not first else "linear"
    first.target = getattr(_t.ops.quantized, op)
    first.args, first.kwargs = (x.args[0], packed, q_out.args[1], q_out.args[2]), {}
    _drop_q(q_out, first, graph)
    if last is not first:
        graph.erase_node(last)
    first.args[3].append(first)  # after its zero point, as PyTorch orders it


def _lower_binary(gm, first, last, q_out, qinfo, info, names):
    """a + b, a * b (+ relu) -> quantized::add / mul (_relu) at the output's qparams."""
    a, b = first.args[0], first.args[1]
    if not (_is_dq(a, qinfo) and _is_dq(b, qinfo)):
        return
    op = _op_name(first.target) + ("_relu" if last is not first else "")
    _replace_with_op(gm.graph, first, last, q_out, op,
                     (a.args[0], b.args[0], q_out.args[1], q_out.args[2]))


def _lower_scalar(gm, first, last, q_out, qinfo, info, names):
    """a + c, a * c -> quantized::add / mul's Scalar forms."""
    a = first.args[0]
    if _is_dq(a, qinfo):
        op = _op_name(first.target)
        _replace_with_op(gm.graph, first, last, q_out, op, (a.args[0], first.args[1]))


def _replace_with_op(graph, first, last, q_out, op, args):
    with graph.inserting_before(q_out):  # where PyTorch puts it: after the qparams
        new = graph.create_node("call_function", getattr(_t.ops.quantized, op), args, {},
                                name=op)
    _drop_q(q_out, new, graph)
    if last is not first:
        graph.erase_node(last)
    graph.erase_node(first)


def _lower_share(gm, first, last, q_out, qinfo, info, names):
    """dq -> op -> q of an op that keeps (or fixes) qparams: the op on the quantized
    tensor (cat: on each of its inputs)."""
    lead = first.args[0] if first.args else None
    inputs = [a for a in (lead if isinstance(lead, (list, tuple)) else [lead])
              if isinstance(a, Node)]
    if not inputs or not all(_is_dq(a, qinfo) for a in inputs):
        return
    for dq in dict.fromkeys(inputs):
        first.replace_input_with(dq, dq.args[0])
    _drop_q(q_out, first, gm.graph)


_LOWER = {"module": _lower_module, "linear": _lower_linear, "binary": _lower_binary,
          "scalar": _lower_scalar, "share": _lower_share, "fixed": _lower_share}


def _lower(gm, info, qinfo, names):
    """Step two: each pattern found between a dequantize and a quantize, lowered."""
    patterns = info["patterns"]
    fused_into = {v.split(":", 1)[1]: k for k, v in patterns.items()
                  if v.startswith("fused_into:")}
    by_name = {n.name: n for n in gm.graph.nodes}
    for last_name, kind in list(patterns.items()):
        last = by_name.get(last_name)
        if last is None or kind not in _LOWER:  # ("observed" ops stay float)
            continue
        first = by_name[fused_into[last_name]] if last_name in fused_into else last
        q_out = _q_user(last, qinfo)
        if q_out is not None:
            _LOWER[kind](gm, first, last, q_out, qinfo, info, names)
    _skip_dq_for_shape(gm.graph, qinfo)


def _skip_dq_for_shape(graph, qinfo):
    """x.size() and x.shape read the quantized tensor, not its dequantized copy
    (PyTorch's _lower_get_tensor_info_op / _lower_getattr_tensor_metadta_op)."""
    for node in graph.nodes:
        info = (node.op == "call_method" and node.target == "size") or \
            (node.op == "call_function" and node.target is getattr and
             len(node.args) > 1 and node.args[1] == "shape")
        if info and _is_dq(node.args[0], qinfo):
            node.replace_input_with(node.args[0], node.args[0].args[0])


# The packed F.linear weights are plain attributes (ScriptObjects, not
# tensors); PyTorch's state dict holds them after the buffers.
def _save_packed(module, state_dict, prefix, local_metadata):
    for name in module._fx_packed_weights:
        state_dict[prefix + name] = getattr(module, name)


def _load_packed(module, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
    for name in module._fx_packed_weights:
        value, key = getattr(module, name), prefix + name
        if key in state_dict:
            new = state_dict.pop(key)
            if not isinstance(new, ScriptObject) or \
                    new._qualified_name != value._qualified_name:
                error_msgs.append(f"{key}: expected a torch.ScriptObject of "
                                  f"{value._qualified_name}, got {type(new).__name__}")
            else:
                setattr(module, name, new)
        elif strict:
            missing_keys.append(key)


def _to_reference(gm, info, qinfo):
    """convert_to_reference_fx's step two: weighted modules (alone or inside a
    fused module) become reference modules; everything stays between its
    quantize / dequantize nodes."""
    from ..quantize import get_default_static_quant_reference_module_mappings, to_reference
    from ...nn.intrinsic import _FusedModule
    mapping = get_default_static_quant_reference_module_mappings()
    for node in gm.graph.nodes:
        if node.op != "call_module" or info["patterns"].get(node.name) != "module":
            continue
        mod = gm.get_submodule(node.target)
        inner = mod[0] if isinstance(mod, _FusedModule) else mod
        if type(inner) not in mapping:
            continue
        inner.qconfig = info["qconfigs"][node.name]
        ref = to_reference(inner, mapping[type(inner)])
        if inner is mod:
            parent, _, leaf = node.target.rpartition(".")
            setattr(gm.get_submodule(parent) if parent else gm, leaf, ref)
        else:
            mod[0] = ref


def convert_graph(gm, is_reference=False):
    """The quantized GraphModule of a prepared (and calibrated) one (its
    reference form: quantize / dequantize around float ops, reference
    modules, when is_reference)."""
    info = getattr(gm, "_fx_quantization", None)
    if info is None:  # PyTorch's words
        raise AssertionError("incoming model must be produced by prepare_fx")
    names = _Names(gm)
    qinfo = _observers_to_quantize(gm, info, names)
    if is_reference:
        _to_reference(gm, info, qinfo)
    else:
        _lower(gm, info, qinfo, names)
    gm.graph.eliminate_dead_code()
    gm.graph.lint()
    out = GraphModule(gm, gm.graph)
    out._fx_packed_weights = [n.target for n in gm.graph.nodes if n.op == "get_attr" and
                              isinstance(getattr(out, n.target, None), ScriptObject)]
    out._register_state_dict_hook(_save_packed)
    out._register_load_state_dict_pre_hook(_load_packed, with_module=True)
    out.recompile()
    return out

