"""prepare_fx's graph pass: each node gets its qconfig from the
QConfigMapping (PyTorch's precedence), quantizable patterns (patterns.py)
get observers on their inputs (activations and F.linear's weight) and
outputs, named activation_post_process_<i> in the order PyTorch creates
them; ops that keep their input's qparams share their input's observer."""
from .... import _C
from ..observer import ReuseInputObserver
from .tracer import modules_of
from .patterns import kind_of, is_relu, static_module_mapping, fixed_qparams

OBSERVER_PREFIX = "activation_post_process_"


def _parent(target):
    parent, _, leaf = target.rpartition(".")
    return parent, leaf


def node_qconfigs(gm, mapping, scopes):
    """node name -> qconfig (or None), as PyTorch's _generate_node_name_to_qconfig."""
    modules = modules_of(gm)
    glob = mapping.global_qconfig
    counts = {}
    out = {}
    for node in gm.graph.nodes:
        qconfig = None
        if node.op == "get_attr":
            parent, _ = _parent(node.target)
            owner = gm.get_submodule(parent) if parent else gm
            qconfig = mapping._for_type_or_name(type(owner), parent, glob)
        elif node.op == "call_function":
            path, mtype = scopes.get(node.name, ("", None))
            qconfig = mapping.object_type_qconfigs.get(node.target, glob)
            qconfig = mapping._for_type_or_name(mtype, path, qconfig)
            index = counts.setdefault(path, {}).get(node.target, 0)
            counts[path][node.target] = index + 1
            qconfig = mapping._for_order(path, node.target, index, qconfig)
        elif node.op == "call_method":
            path, mtype = scopes.get(node.name, ("", None))
            qconfig = mapping._for_type_or_name(node.target, path, glob)
            qconfig = mapping._for_type_or_name(mtype, path, qconfig)
        elif node.op == "call_module":
            mtype = type(modules[node.target])
            qconfig = mapping._for_type_or_name(mtype, node.target, glob)
            parent, _ = _parent(node.target)
            index = counts.setdefault(parent, {}).get(mtype, 0)
            counts[parent][mtype] = index + 1
            qconfig = mapping._for_order(parent, mtype, index, qconfig)
            modules[node.target].qconfig = qconfig
        _check_static(qconfig, node)
        out[node.name] = qconfig
    return out


def _check_static(qconfig, node):
    if qconfig is None:
        return
    act = qconfig.activation()
    if getattr(act, "is_dynamic", False) or getattr(act, "dtype", None) not in (
            _C.quint8, _C.qint8):
        if isinstance(act, ReuseInputObserver):
            return
        raise NotImplementedError(
            f"FX graph mode quantization in torchlike is static int8 only; node {node.name!r} "
            f"got a qconfig whose activation is {type(act).__name__} of dtype "
            f"{getattr(act, 'dtype', None)} (dynamic={getattr(act, 'is_dynamic', False)}): use "
            f"quantize_dynamic for dynamic or float16 quantization")


def _new_observer(gm, graph, after, observer):
    i = 0
    while hasattr(gm, f"{OBSERVER_PREFIX}{i}"):
        i += 1
    name = f"{OBSERVER_PREFIX}{i}"
    gm.add_module(name, observer)
    with graph.inserting_after(after):
        return graph.create_node("call_module", name, (after,), {})


def _is_observer_node(node, modules):
    return node.op == "call_module" and node.target.startswith(OBSERVER_PREFIX) and \
        node.target in modules


def _observe_input(gm, graph, arg, make, modules):
    """arg, or the observer node it gets (an existing one of the same kind if any)."""
    if _is_observer_node(arg, modules):
        return arg
    observer = make()
    for user in arg.users:
        if _is_observer_node(user, modules):
            existing = modules[user.target]
            if type(existing) is type(observer) and existing.dtype == observer.dtype:
                return user
    node = _new_observer(gm, graph, arg, observer)
    modules[node.target] = observer
    return node


def _share_observers(gm, node, out_obs, modules):
    """Make node's inputs and output use its first input's observer (PyTorch's
    _maybe_make_input_output_share_observers); False when there is none."""
    from ....fx import Node
    first = next((a for a in node.args if isinstance(a, (Node, list, tuple))), None)
    if first is None:
        return False
    arg = first[0] if isinstance(first, (list, tuple)) else first
    while not _is_observer_node(arg, modules):
        if not isinstance(arg, Node) or arg.op == "placeholder":
            return False
        arg = next((a for a in arg.args if isinstance(a, Node)), None)
        if arg is None:
            return False
    shared = modules[arg.target]
    others = list(first[1:]) if isinstance(first, (list, tuple)) else []
    for other in others:
        while not _is_observer_node(other, modules):
            if not isinstance(other, Node) or not other.args:
                return False
            other = other.args[0]
        setattr(gm, other.target, shared)
        modules[other.target] = shared
    setattr(gm, out_obs.target, shared)
    modules[out_obs.target] = shared
    return True


def insert_observers(gm, qconfigs):
    """Adds observers to gm in place; returns {node name: pattern kind} of
    the quantized patterns (their last node)."""
    graph = gm.graph
    modules = modules_of(gm)
    mapping = static_module_mapping()
    patterns = {}
    skip = set()
    for node in list(graph.nodes):
        if node in skip or _is_observer_node(node, modules):
            continue
        kind = kind_of(node, modules, mapping)
        qconfig = qconfigs.get(node.name)
        if kind is None or qconfig is None:
            continue
        reuse = isinstance(qconfig.activation(), ReuseInputObserver)
        if reuse and kind != "share":
            continue
        if kind == "fixed" and fixed_qparams(qconfig.activation()) is None:
            continue  # PyTorch's backend quantizes these with fixed qparams only
        last = node
        if kind in ("linear", "binary"):
            users = list(node.users)
            if len(users) == 1 and is_relu(users[0], modules) and users[0].args[0] is node:
                last = users[0]
                skip.add(last)
        # inputs: the activations (and F.linear's weight) in argument order
        def observed(arg, index):
            from ....fx import Node
            if isinstance(arg, (list, tuple)) and kind == "share":
                return type(arg)(observed(a, index) for a in arg)
            if not isinstance(arg, Node):
                return arg
            if kind == "linear" and index == 2:
                return arg  # the bias stays float
            make = qconfig.weight if kind == "linear" and index == 1 else qconfig.activation
            if reuse:  # a reshape's qconfig: it takes its input as it comes
                return arg
            return _observe_input(gm, graph, arg, make, modules)
        n_inputs = {"module": 1, "linear": 3, "binary": 2, "share": 1, "fixed": 1,
                    "scalar": 1, "observed": 1}[kind]
        node.args = tuple(observed(a, i) if i < n_inputs else a
                          for i, a in enumerate(node.args))
        # the output
        out_obs = _new_observer(gm, graph, last, qconfig.activation())
        modules[out_obs.target] = gm.get_submodule(out_obs.target)
        for user in list(last.users):
            if user is not out_obs:
                user.replace_input_with(last, out_obs)
        if kind in ("share", "scalar") and not _share_observers(gm, node, out_obs, modules):
            out_obs.replace_all_uses_with(last)
            graph.erase_node(out_obs)
            delattr(gm, out_obs.target)
            continue
        patterns[last.name] = kind
        if last is not node:
            patterns[node.name] = "fused_into:" + last.name
    graph.lint()
    gm.recompile()
    return patterns

