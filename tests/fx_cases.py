"""Models and graph operations for tests/test_fx.py, written against a
library passed in (PyTorch in scripts/golden_fx.py, torchlike in the test),
so both record the same programs.

``models(torch)`` -> {name: (module or function, [input shapes])}.
``record(torch)`` -> the JSON-able answers the golden file holds: per model
the graph text, generated code and node list; the results of fixed graph
edits, a Transformer, replace_pattern, concrete_args, ShapeProp; the errors
of untraceable code.  Names are the library's own (``torch.`` or
``torchlike.``); the test maps PyTorch's to ours."""
import importlib
import operator


def models(torch):
    nn = torch.nn
    F = torch.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x))).softmax(-1)

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(4 * 2 * 2, 5)

        def forward(self, x):
            x = self.pool(self.bn(self.conv1(x)).relu())
            x = torch.flatten(x, 1)
            return F.gelu(self.fc(x))

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.BatchNorm2d(3),
                                      nn.ReLU(), nn.Conv2d(3, 3, 1))
            self.scale = nn.Parameter(torch.full((1, 3, 1, 1), 0.5))
            self.register_buffer("shift", torch.ones(3, 1, 1) * 0.1)

        def forward(self, x):
            b, c, h, w = x.shape
            y = self.body(x) * self.scale + x
            z = torch.cat([y, x - self.shift], 1)[:, :c]
            out = torch.sigmoid(z).mean(dim=(2, 3))
            return {"pooled": out.view(b, -1) + x.size(1), "map": z.permute(0, 2, 3, 1)}

    def free_function(x, y):
        a = torch.matmul(x, y.transpose(0, 1)) + 2 * x.sum()
        return F.linear(a, y.t()) - x.mean(-1, keepdim=True) / 3, -a

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.mask = torch.tensor([1.0, 0.0, 2.0])  # a plain tensor attribute

        def forward(self, x):
            return x * self.mask

    class TensorAttrs(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.table = torch.arange(3.0)

        def forward(self, x):
            return self.inner(x) + self.table + torch.tensor(2.0)

    def constant_left(x):
        return torch.ones(3) * x + torch.arange(3.0).add(x) - 2 ** x

    return {"mlp": (MLP(), [(2, 4)]), "constant_left": (constant_left, [(2, 3)]),
            "tensor_attrs": (TensorAttrs(), [(2, 3)]), "convnet": (ConvNet(), [(2, 3, 4, 4)]),
            "residual": (Residual(), [(2, 3, 5, 5)]),
            "free_function": (free_function, [(2, 3), (4, 3)])}


def node_list(graph, torch):
    """[(op, name, target, args, kwargs)] with nodes as '%name' and callables
    by qualified name."""
    def show(a):
        if isinstance(a, torch.fx.Node):
            return "%" + a.name
        if isinstance(a, (tuple, list)):
            return [show(e) for e in a]
        if isinstance(a, dict):
            return {str(k): show(v) for k, v in a.items()}
        if isinstance(a, slice):
            return ["slice", show(a.start), show(a.stop), show(a.step)]
        if a is None or isinstance(a, (bool, int, str)):
            return a
        if isinstance(a, float):
            return repr(a)
        return str(a)

    return [[n.op, n.name, n._pretty_print_target(n.target), show(n.args), show(n.kwargs)]
            for n in graph.nodes]


def _trace(torch, name):
    model, _ = models(torch)[name]
    return torch.fx.symbolic_trace(model)


def record(torch):
    fx = torch.fx
    out = {"models": {}}
    for name in models(torch):
        gm = _trace(torch, name)
        stacks = {n.name: [[k, v[0], v[1].__name__] for k, v in
                           n.meta.get("nn_module_stack", {}).items()] for n in gm.graph.nodes}
        out["models"][name] = {"graph": str(gm.graph), "code": gm.code, "stacks": stacks,
                               "nodes": node_list(gm.graph, torch),
                               "class": type(gm).__name__,
                               "modules": [n for n, _ in gm.named_modules()]}

    # edit: the ReLU module becomes torch.sigmoid, inserted after it
    gm = _trace(torch, "mlp")
    act = next(n for n in gm.graph.nodes if n.op == "call_module" and n.target == "act")
    with gm.graph.inserting_after(act):
        sig = gm.graph.call_function(torch.sigmoid, (act.args[0],))
    act.replace_all_uses_with(sig)
    gm.graph.erase_node(act)
    gm.delete_all_unused_submodules()
    gm.recompile()
    out["edit_replace"] = {"code": gm.code, "modules": [n for n, _ in gm.named_modules()]}

    # edit: an unused node, then dead code elimination
    gm = _trace(torch, "convnet")
    flat = next(n for n in gm.graph.nodes if n.name == "flatten")
    with gm.graph.inserting_before(flat):
        dead = gm.graph.call_method("neg", (flat.args[0],))
        dead2 = gm.graph.call_function(operator.mul, (dead, 2))
    names = [dead.name, dead2.name]
    code_with = gm.graph.python_code("self").src
    changed = gm.graph.eliminate_dead_code()
    gm.recompile()
    out["edit_dce"] = {"names": names, "code_with": code_with, "changed": changed,
                       "code": gm.code, "again": gm.graph.eliminate_dead_code()}

    # dead code elimination drops unused in-place calls too (PyTorch's rule)
    def inplace(x):
        y = x.clone()
        y.add_(1)
        torch.relu_(y)
        x * 2
        return y
    gm = fx.symbolic_trace(inplace)
    out["edit_dce"]["inplace"] = [gm.graph.eliminate_dead_code(), str(gm.graph)]

    # edit: prepend/append moves and replace_input_with
    gm = _trace(torch, "free_function")
    nodes = list(gm.graph.nodes)
    neg = next(n for n in nodes if n.name == "neg")
    sub = next(n for n in nodes if n.name == "sub")
    sub.prepend(neg)
    x = nodes[0]
    add = next(n for n in nodes if n.name == "add")
    mm = next(n for n in nodes if n.name == "matmul")
    add.replace_input_with(mm, x)
    gm.graph.lint()
    out["edit_move"] = {"order": [n.name for n in gm.graph.nodes],
                        "users": {n.name: [u.name for u in n.users] for n in gm.graph.nodes},
                        "inputs": {n.name: [u.name for u in n.all_input_nodes]
                                   for n in gm.graph.nodes}}

    # names: repeated targets, builtins, keywords, names with digits
    g = fx.Graph()
    a = g.placeholder("input")
    b = g.placeholder("x_1")
    c = g.call_function(operator.add, (a, b))
    d = g.call_function(operator.add, (c, b))
    e = g.call_method("sum", (d,))
    f = g.create_node("call_function", operator.mul, (e, 2), name="add_1")
    h = g.create_node("call_function", operator.mul, (f, 2), name="if")
    k = g.call_function(getattr, (h, "shape"))
    g.output((h, k))
    out["names"] = {"names": [n.name for n in g.nodes], "graph": str(g),
                    "code": g.python_code("self").src}
    g = fx.Graph()
    for cand in ["1abc", "a.b", "foo_01", "foo_1", "foo", "foo", "_", "class", "print",
                 "device", "inf", "torch", "Tensor", "x__2", "CamelCase"]:
        g.create_node("call_function", operator.add, (1, 2), name=cand)
    for t in [operator.add, torch.nn.functional.softmax, len, getattr, abs]:
        g.call_function(t, (1,))
    for t in ["MyMethod", "__add__", "fooBar2Baz"]:
        g.call_method(t, (1,))
    out["names"]["more"] = [n.name for n in g.nodes]

    # insertion points: inserting_after puts each new node right after the
    # point (so two come out in reverse order); no node means the end / start
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(x)
    with g.inserting_after(x):
        b = g.call_method("neg", (x,))
        g.call_method("abs", (b,))
    with g.inserting_after():
        g.call_method("cos", (x,))
    with g.inserting_before():
        g.placeholder("y")
    out["insert_order"] = [n.name for n in g.nodes]

    # annotations, retracing a GraphModule, a module under two names, constant
    # parameter shapes
    import typing

    def annotated(x: torch.Tensor, n: int = 3) -> torch.Tensor:
        return x * n
    gm = fx.symbolic_trace(annotated)
    g = fx.Graph()
    g.output(g.placeholder("x", type_expr=torch.Tensor), type_expr=typing.List[torch.Tensor])

    class Shared(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.lin2 = self.lin

        def forward(self, x):
            return self.lin2(x) + self.lin.weight.t().sum() + self.lin.weight.shape[0]
    tracer = fx.Tracer(param_shapes_constant=True)
    out["misc"] = {"annotated_graph": str(gm.graph), "annotated_code": gm.code,
                   "typed_graph": str(g), "typed_code": g.python_code("self").src,
                   "retraced": fx.symbolic_trace(gm).code,
                   "shared": fx.symbolic_trace(Shared()).code,
                   "param_shapes_constant": str(tracer.trace(Shared()))}

    # print_readable (a GraphModule child nests as a class), more operators
    class Doubles(torch.nn.Module):
        def forward(self, x):
            return x * 2
    outer = torch.nn.Module()
    outer.sub = fx.symbolic_trace(Doubles())
    g = fx.Graph()
    g.output(g.call_module("sub", (g.placeholder("x"),)))

    def operators(x):
        return abs(x), x.T, ~(x > 0), x @ x, 1 - x, 2 / x, x // 3, x % 2, -x, +x
    out["readable"] = {"flat": _trace(torch, "mlp").print_readable(print_output=False),
                       "nested": fx.GraphModule(outer, g).print_readable(print_output=False),
                       "operators": fx.symbolic_trace(operators).code,
                       "renamed_input": fx.symbolic_trace(torch.nn.Sequential(
                           torch.nn.ReLU())).print_readable(print_output=False)}
    g = fx.Graph()
    g.output(g.placeholder("x"))
    out["readable"]["empty"] = fx.GraphModule({}, g).print_readable(print_output=False)

    # Transformer: every operator.add becomes operator.mul
    class AddToMul(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is operator.add:
                target = operator.mul
            return super().call_function(target, args, kwargs)
    gm = AddToMul(_trace(torch, "residual")).transform()
    out["transformer"] = {"code": gm.code, "nodes": node_list(gm.graph, torch)}

    # replace_pattern
    def program(x, y):
        a = (x + y).relu()
        b = (a + x).relu()
        return b * 2 + (y + y)

    def pattern(u, v):
        return (u + v).relu()

    def replacement(u, v):
        return torch.sigmoid(u - v)
    gm = fx.symbolic_trace(program)
    matches = fx.replace_pattern(gm, pattern, replacement)
    out["replace_pattern"] = {"count": len(matches), "code": gm.code,
                              "anchors": [m.anchor.name for m in matches]}

    # a pattern returning two values
    def two_pattern(u, v):
        s = u + v
        return s.relu(), s.sigmoid()

    def two_replacement(u, v):
        m = u * v
        return m.tanh(), m.exp()

    def two_program(x, y):
        s = x + y
        a, b = s.relu(), s.sigmoid()
        return a - b + (y + x).relu()
    gm = fx.symbolic_trace(two_program)
    matches = fx.replace_pattern(gm, two_pattern, two_replacement)
    out["replace_pattern"]["two_outputs"] = [len(matches), gm.code,
                                             [m.anchor.name for m in matches]]

    # one-to-one matching, and intermediate values read elsewhere block a match
    def escapes(x, y):
        a = x + y
        return a.relu(), a

    def repeated(x, y):
        return (x + x).relu() + (y + 1).relu()
    for fn in (escapes, repeated):
        gm = fx.symbolic_trace(fn)
        matches = fx.replace_pattern(gm, pattern, replacement)
        out["replace_pattern"][fn.__name__] = [
            gm.code, [sorted([k.name, getattr(v, "name", v)] for k, v in m.nodes_map.items())
                      for m in matches]]

    # annotate
    annotate = importlib.import_module(torch.__name__ + ".fx.annotate").annotate

    def annotated_value(x):
        a = annotate(x + 1, torch.Tensor)
        try:
            annotate(a, int)
        except RuntimeError as err:
            out["annotate_error"] = str(err)
        return a
    gm = fx.symbolic_trace(annotated_value)
    out["annotate"] = [gm.code, str(gm.graph), out.pop("annotate_error")]

    # concrete_args
    def with_flag(x, flag=True, scale=None):
        if flag:
            return x + 1
        return x - 1
    gm = fx.symbolic_trace(with_flag, concrete_args={"flag": True, "scale": None})
    out["concrete_args"] = {"code": gm.code, "graph": str(gm.graph)}

    def two_args(x, y):
        z = x + 1
        return z * y
    out["concrete_args"]["tuple"] = fx.symbolic_trace(two_args, concrete_args=(fx.PH, 3)).code
    try:
        fx.symbolic_trace(two_args, concrete_args=(fx.PH,))
    except RuntimeError as err:
        out["concrete_args"]["tuple_error"] = str(err)

    # containers in concrete_args: placeholders are the leaves, forward flattens
    def from_dict(x, d):
        return x + d["a"] * d["b"]

    def from_pair(x, pair):
        a, b = pair
        return {"s": a + b + x, "l": [a]}
    gm_d = fx.symbolic_trace(from_dict, concrete_args={"d": {"a": fx.PH, "b": 2}})
    gm_p = fx.symbolic_trace(from_pair, concrete_args={"pair": (fx.PH, fx.PH)})
    one = torch.ones(2)
    out["pytree_args"] = {
        "dict": [gm_d.code, str(gm_d.graph),
                 gm_d(one, {"b": 2, "a": one * 3}).tolist(),
                 fx.Interpreter(gm_d).run(one, {"a": one * 3, "b": 2}).tolist()],
        "pair": [gm_p.code, {k: str(v) for k, v in gm_p(one, (one, one * 2)).items()}]}

    # ShapeProp
    gm = _trace(torch, "convnet")
    torch.manual_seed(0)
    fx.passes.shape_prop.ShapeProp(gm).propagate(torch.randn(2, 3, 4, 4))
    out["shape_prop"] = [[n.name, list(n.meta["tensor_meta"].shape),
                          str(n.meta["tensor_meta"].dtype), list(n.meta["tensor_meta"].stride),
                          n.meta["tensor_meta"].requires_grad, n.meta["type"].__name__,
                          str(n.meta["tensor_meta"].memory_format)]
                         for n in gm.graph.nodes if "tensor_meta" in n.meta]
    gm = _trace(torch, "residual")
    fx.passes.shape_prop.ShapeProp(gm).propagate(torch.randn(2, 3, 5, 5))
    out["shape_prop_containers"] = {
        n.name: str(n.meta.get("tensor_meta")) for n in gm.graph.nodes
        if n.name in ("output", "permute", "getitem", "getattr_1", "view")}

    # errors
    def control_flow(x):
        if x.sum() > 0:
            return x
        return -x

    def uses_len(x):
        return len(x)

    def loops(x):
        return [v for v in x]

    def unpacks(x):
        a, b = x
        return a - b
    errors = {}
    for fn in (control_flow, uses_len, loops):
        try:
            fx.symbolic_trace(fn)
            errors[fn.__name__] = None
        except Exception as err:  # noqa: BLE001 - the type and message are the answer
            errors[fn.__name__] = [type(err).__name__, type(err).__mro__[1].__name__, str(err)]
    errors["unpacks"] = fx.symbolic_trace(unpacks).code
    g = fx.Graph()
    p = g.placeholder("x")
    q = g.call_method("neg", (p,))
    g.output(q)
    try:
        g.erase_node(p)
    except Exception as err:  # noqa: BLE001
        errors["erase_used"] = [type(err).__name__, str(err)]
    # Interpreter errors name the node that failed
    def matmul_plus(x, y):
        return torch.matmul(x, y) + 1
    gm = fx.symbolic_trace(matmul_plus)
    g = fx.Graph()
    g.placeholder("x")
    g.output(g.get_attr("foo.bar"))
    attr_gm = fx.GraphModule({"foo.bar": torch.ones(1)}, g)
    attempts = {
        "missing_argument": lambda: fx.Interpreter(gm).run(torch.ones(2, 3)),
        "missing_attr": lambda: fx.Interpreter(attr_gm).fetch_attr("foo.baz"),
        "bad_op": lambda: g.create_node("bad", "x"),
        "bad_target": lambda: g.call_function("notcallable"),
        "root_lacks_target": lambda: fx.GraphModule({}, g),
        "bad_root": lambda: fx.GraphModule(3, g),
    }
    for key, attempt in attempts.items():
        try:
            attempt()
            errors[key] = None
        except Exception as err:  # noqa: BLE001
            # PyTorch adds a pointer to its log parser: not part of the answer
            lines = [line for line in str(err).splitlines()
                     if not line.startswith("Use tlparse")]
            errors[key] = [type(err).__name__, "\n".join(lines)]
    out["errors"] = errors
    return out
