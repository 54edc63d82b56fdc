"""Models and export calls for tests/test_export.py, written against a
library passed in (PyTorch in scripts/golden_export.py, torchlike in the
test), so both record the same programs.

``models(torch)`` -> {name: (module, args, kwargs, dynamic_shapes)}.
``record(torch)`` -> the JSON-able answers the golden file holds: per model
the graph signature (kind, placeholder name, target, persistent), the
placeholder names, the output kinds, the state_dict keys, the constants'
keys, the range constraints' bounds and the start of ``str(ep)``; the errors
(exception class and message) of calling the program, of calling
``.module()`` with other inputs, of untraceable code and of bad
``dynamic_shapes``."""
import math
import re


def _dims(torch):
    return torch.export.Dim


def models(torch):
    nn = torch.nn
    Dim = _dims(torch)

    class TwoInputs(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.bn = nn.BatchNorm1d(4)
            self.unused = nn.Linear(2, 2)

        def forward(self, x, y):
            h = self.bn(self.fc(x)).relu()
            return h + y.view(y.shape[0], -1)[:, :4], h.sum()

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4),
                                          nn.ReLU(), nn.MaxPool2d(2))
            self.head = nn.Linear(4 * 2 * 2, 5)

        def forward(self, img):
            h = self.features(img)
            return {"logits": self.head(torch.flatten(h, 1)), "map": h}

    class Buffers(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4, bias=False)
            self.register_buffer("mask", torch.tensor([1.0, 0.0, 1.0, 1.0]), persistent=False)
            self.register_buffer("offset", torch.tensor([0.5, -0.5, 0.25, 0.0]))

        def forward(self, x, scale=None):
            out = self.lin(x) * self.mask + self.offset
            return out * scale if scale is not None else out

    class Containers(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(3))

        def forward(self, xs, d):
            return xs[0] * self.w + xs[1], d["b"] - d["a"]

    class Dynamic(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)

        def forward(self, x):
            return self.fc(x).relu().view(x.shape[0], 2, 2)

    class Constant(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.tensor([2.0, 3.0])  # a plain tensor attribute

        def forward(self, x):
            return x * self.scale

    class NestedDynamic(nn.Module):
        def forward(self, xs, n):
            return xs[0].repeat(n, 1) + xs[1].sum(0)

    class MadeInForward(nn.Module):
        def forward(self, x):
            return x * torch.tensor([1.0, 2.0])

    return {
        "made_in_forward": (MadeInForward(), (torch.randn(3, 2),), None, None),
        "nested_dynamic": (NestedDynamic(), ([torch.randn(3, 2), torch.randn(4, 2)], 2), None,
                           {"xs": [{0: Dim("a")}, {0: Dim("c")}], "n": None}),
        "constant": (Constant(), (torch.randn(3, 2),), None, None),
        "two_inputs": (TwoInputs().eval(), (torch.randn(2, 3), torch.randn(2, 4)), None, None),
        "convnet": (ConvNet().eval(), (torch.randn(2, 3, 4, 4),), None, None),
        "buffers": (Buffers(), (torch.randn(3, 4),), {"scale": torch.randn(3, 4)}, None),
        "containers": (Containers(), ([torch.randn(3), torch.randn(3)],
                                      {"a": torch.randn(2), "b": torch.randn(2)}), None, None),
        "dynamic": (Dynamic(), (torch.randn(4, 3),), None,
                    {"x": {0: Dim("batch", min=2, max=10)}}),
    }


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        # no machine paths in golden files: the code locations are dropped
        return [type(e).__name__, re.sub(r'File "[^"]*"', 'File "<file>"', str(e))]
    return None


def _bound(v):
    return None if v == math.inf or str(v) == "int_oo" else int(v)


def record(torch):
    nn = torch.nn
    Dim = _dims(torch)
    out = {"programs": {}, "errors": {}}
    for name, (m, args, kwargs, ds) in models(torch).items():
        ep = torch.export.export(m, args, kwargs, dynamic_shapes=ds)
        sig = ep.graph_signature
        out["programs"][name] = {
            "inputs": [[s.kind.name, s.arg.name, s.target, s.persistent]
                       for s in sig.input_specs],
            "outputs": [s.kind.name for s in sig.output_specs],
            "placeholders": [n.name for n in ep.graph.nodes if n.op == "placeholder"],
            "state_dict": list(ep.state_dict),
            "constants": sorted(ep.constants),
            "ranges": sorted([_bound(r.lower), _bound(r.upper)]
                             for r in ep.range_constraints.values()),
            "str_head": str(ep).split("\n")[:2],
            # the placeholders' annotations, and the ranges; symbols renamed s# (ours
            # count from s0, PyTorch's are hashed)
            "str_def": re.sub(r"\bs\d+\b", "s#", next(
                line.strip() for line in str(ep).split("\n") if "def forward(" in line)),
            "str_ranges": re.sub(r"\bs\d+\b", "s#", str(ep).rstrip("\n").split("\n")[-1]),
            "str_signature": str(ep).split("Graph signature:")[1].split("Range")[0].strip(),
            "user_inputs": list(sig.user_inputs),
            "parameters": list(sig.parameters),
            "buffers": list(sig.buffers),
        }
    errors = out["errors"]
    m, args, _, _ = models(torch)["two_inputs"]
    ep = torch.export.export(m, args)
    mod = ep.module()
    errors["call_program"] = _error(lambda: ep(*args))
    errors["module_train"] = _error(lambda: mod.train())
    errors["module_eval"] = _error(lambda: mod.eval())
    errors["too_few"] = _error(lambda: mod(args[0]))
    errors["too_many"] = _error(lambda: mod(*args, args[0]))
    errors["static_dim"] = _error(lambda: mod(torch.randn(3, 3), torch.randn(3, 4)))
    errors["static_dim_1"] = _error(lambda: mod(torch.randn(2, 5), torch.randn(2, 4)))
    m, args, kwargs, _ = models(torch)["buffers"]
    kmod = torch.export.export(m, args, kwargs).module()
    errors["kwargs_reordered"] = _error(lambda: kmod(scale=kwargs["scale"], x=args[0]))
    errors["kwarg_missing"] = _error(lambda: kmod(*args))
    errors["kwarg_extra"] = _error(lambda: kmod(*args, scale=kwargs["scale"], other=1))
    errors["kwarg_given_positionally"] = _error(lambda: kmod(*args, kwargs["scale"]))
    m, args, _, ds = models(torch)["nested_dynamic"]
    nmod = torch.export.export(m, args, dynamic_shapes=ds).module()
    errors["constant_input_changed"] = _error(lambda: nmod(args[0], 3))
    errors["nested_other_sizes"] = _error(lambda: nmod([torch.randn(5, 2),
                                                        torch.randn(7, 2)], 2))
    m, args, _, ds = models(torch)["dynamic"]
    dmod = torch.export.export(m, args, dynamic_shapes=ds).module()
    errors["dynamic_ok"] = _error(lambda: dmod(torch.randn(7, 3)))
    errors["dynamic_over"] = _error(lambda: dmod(torch.randn(11, 3)))
    errors["dynamic_static_dim"] = _error(lambda: dmod(torch.randn(5, 4)))
    dmin = torch.export.export(m, (torch.randn(6, 3),),
                               dynamic_shapes={"x": {0: Dim("b", min=5)}}).module()
    errors["dynamic_under_min"] = _error(lambda: dmin(torch.randn(4, 3)))

    class DataDependent(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x + 1
            return x - 1

    class ShapeBranch(nn.Module):
        def forward(self, x):
            if x.shape[0] > 3:
                return x + 1
            return x - 1

    x = torch.randn(4, 3)
    errors["data_dependent"] = _error(lambda: torch.export.export(DataDependent(), (x,)))
    errors["shape_branch_dynamic"] = _error(lambda: torch.export.export(
        ShapeBranch(), (x,), dynamic_shapes={"x": {0: Dim("b")}}))
    errors["specialised_dim"] = _error(lambda: torch.export.export(
        m, (x,), dynamic_shapes={"x": {1: Dim("b")}}))
    errors["size_one_dynamic"] = _error(lambda: torch.export.export(
        m, (torch.randn(1, 3),), dynamic_shapes={"x": {0: Dim("b")}}))
    errors["bad_keys"] = _error(lambda: torch.export.export(
        m, (x,), dynamic_shapes={"y": {0: Dim("b")}}))
    errors["out_of_range"] = _error(lambda: torch.export.export(
        m, (x,), dynamic_shapes={"x": {0: Dim("b", min=5)}}))
    errors["dim_inconsistent"] = _error(lambda: Dim("q", min=5, max=2))
    errors["shape_branch_static"] = _error(lambda: torch.export.export(ShapeBranch(), (x,)))
    out["dim_repr"] = [repr(Dim("d")), repr(Dim("e", min=3, max=9))] + \
        [repr(d) for d in torch.export.dims("h", "w", min=2, max=8)]
    return out
