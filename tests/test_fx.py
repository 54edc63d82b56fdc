"""torchlike.fx against PyTorch's torch.fx (tests/golden/fx.json, recorded by
scripts/golden_fx.py from tests/fx_cases.py) and against NumPy values.

PyTorch's texts name ``torch.``; ours name ``torchlike.`` (and PyTorch's
``F.gelu`` is ``torch._C._nn.gelu``, ours ``torchlike.nn.functional.gelu``):
``_ours`` maps one to the other before comparing."""
import copy
import io
import json
import math
import operator
import os
import pickle
import re
import sys
import contextlib

import numpy as np
import pytest

import torchlike as torch
import torchlike.fx as fx
import torchlike.nn as nn
from torchlike.fx.passes.shape_prop import ShapeProp, TensorMetadata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fx_cases  # noqa: E402

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "fx.json")) as _f:
    GOLDEN = json.load(_f)

OURS = fx_cases.record(torch)


def _ours(obj):
    """PyTorch's answer with its names spelled as torchlike spells them."""
    if isinstance(obj, str):
        s = obj.replace("torch._C._nn.", "torchlike.nn.functional.")
        return re.sub(r"\btorch\.", "torchlike.", s)
    if isinstance(obj, list):
        return [_ours(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _ours(v) for k, v in obj.items()}
    return obj


def _np(t):
    return t.detach().cpu().numpy()


# ---- tracing: the same graphs and code as PyTorch ---------------------------------------

@pytest.mark.parametrize("name", sorted(GOLDEN["models"]))
def test_trace_matches_pytorch(name):
    want, got = _ours(GOLDEN["models"][name]), OURS["models"][name]
    assert got["nodes"] == want["nodes"]
    assert got["graph"] == want["graph"]
    assert got["code"] == want["code"]
    assert got["class"] == want["class"]
    assert got["modules"] == want["modules"]
    assert got["stacks"] == want["stacks"]


@pytest.mark.parametrize("name", sorted(GOLDEN["models"]))
@pytest.mark.parametrize("train", [False, True])
def test_traced_module_computes_the_same(name, train):
    model, shapes = fx_cases.models(torch)[name]
    if isinstance(model, nn.Module):
        model.train(train)
    gm = fx.symbolic_trace(model)
    torch.manual_seed(3)
    inputs = [torch.randn(*s) for s in shapes]
    want, got = model(*inputs), gm(*inputs)
    flat_want = want if isinstance(want, tuple) else \
        list(want.values()) if isinstance(want, dict) else [want]
    flat_got = got if isinstance(got, tuple) else \
        list(got.values()) if isinstance(got, dict) else [got]
    assert type(got) is type(want)
    for w, g in zip(flat_want, flat_got):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-6, atol=1e-6)


def test_attention_block_traces_and_computes_the_same():
    F = torch.nn.functional

    class Attention(nn.Module):
        def __init__(self, d=8, heads=2):
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.norm = nn.LayerNorm(d)
            self.heads = heads

        def forward(self, x, mask):
            b, t, d = x.shape
            q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
            q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
            att = F.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
            y2 = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.bool())
            return x + self.proj(y), y2

    model = Attention()
    gm = fx.symbolic_trace(model)
    ops = {n.target for n in gm.graph.nodes if n.op == "call_method"}
    assert {"chunk", "view", "transpose", "masked_fill", "contiguous"} <= ops
    torch.manual_seed(5)
    x = torch.randn(2, 4, 8)
    mask = torch.tril(torch.ones(4, 4))
    for got, want in zip(gm(x, mask), model(x, mask)):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-6)


@pytest.mark.host_only  # edits or reprs host memory (NumPy views, device-free reprs)
def test_gradients_flow_through_graph_module():
    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2).double()
            self.w = nn.Parameter(torch.tensor([0.5, -1.5], dtype=torch.float64))

        def forward(self, x):
            h = torch.tanh(self.fc(x)) * self.w
            return (h.sum(-1) ** 2 + torch.sigmoid(x).mean()).sum()

    gm = fx.symbolic_trace(Small())
    torch.manual_seed(1)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    gm(x).backward()
    params = [x, gm.fc.weight, gm.w]
    grads = [_np(p.grad).copy() for p in params]
    eps = 1e-6
    for p, g in zip(params, grads):
        base = _np(p)  # shares memory with p: edited in place below
        numeric = np.zeros_like(base)
        with torch.no_grad():
            for idx in np.ndindex(base.shape):
                old = base[idx]
                base[idx] = old + eps
                up = gm(x).item()
                base[idx] = old - eps
                down = gm(x).item()
                base[idx] = old
                numeric[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7)


# ---- editing ----------------------------------------------------------------------------

def test_replace_a_module_call_by_a_function():
    assert OURS["edit_replace"] == _ours(GOLDEN["edit_replace"])


def test_dead_code_elimination():
    assert OURS["edit_dce"] == _ours(GOLDEN["edit_dce"])


def test_move_and_replace_input():
    assert OURS["edit_move"] == GOLDEN["edit_move"]


def test_print_readable_and_operators():
    assert OURS["readable"] == _ours(GOLDEN["readable"])


def test_annotations_retracing_shared_modules():
    assert OURS["misc"] == _ours(GOLDEN["misc"])


def test_insertion_points():
    assert OURS["insert_order"] == GOLDEN["insert_order"]


def test_names_are_made_unique_as_pytorch_does():
    assert OURS["names"] == _ours(GOLDEN["names"])


def test_edited_graph_runs():
    model, shapes = fx_cases.models(torch)["mlp"]
    gm = fx.symbolic_trace(model)
    act = next(n for n in gm.graph.nodes if n.target == "act")
    with gm.graph.inserting_after(act):
        sig = gm.graph.call_function(torch.sigmoid, (act.args[0],))
    act.replace_all_uses_with(sig)
    gm.graph.erase_node(act)
    gm.recompile()
    x = torch.randn(2, 4)
    h = model.fc1(x)
    want = model.fc2(1 / (1 + torch.exp(-h))).softmax(-1)
    np.testing.assert_allclose(_np(gm(x)), _np(want), rtol=1e-6, atol=1e-7)


def test_feature_extraction_by_rewriting_the_output():
    model, shapes = fx_cases.models(torch)["convnet"]
    model.eval()
    gm = fx.symbolic_trace(model)
    nodes = {n.name: n for n in gm.graph.nodes}
    old_out = nodes["output"]
    with gm.graph.inserting_before(old_out):
        gm.graph.output({"relu": nodes["relu"], "pool": nodes["pool"]})
    gm.graph.erase_node(old_out)
    assert gm.graph.eliminate_dead_code()
    gm.delete_all_unused_submodules()
    gm.recompile()
    assert [n for n, _ in gm.named_modules()] == ["", "conv1", "bn", "pool"]
    x = torch.randn(*shapes[0])
    feats = gm(x)
    relu = model.bn(model.conv1(x)).relu()
    np.testing.assert_allclose(_np(feats["relu"]), _np(relu), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(feats["pool"]), _np(model.pool(relu)), rtol=1e-6, atol=1e-7)


def test_graph_built_by_hand_and_copied():
    g = fx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("w")
    mm = g.call_function(torch.matmul, (x, w))
    s = g.call_method("sum", (mm,), {"dim": 1})
    g.output({"out": s, "mm": mm})
    g.lint()
    root = {"w": torch.ones(3, 2)}
    gm = fx.GraphModule(root, g, "ByHand")
    assert type(gm).__name__ == "ByHand"
    xv = torch.arange(6.0).reshape(2, 3)
    out = gm(xv)
    np.testing.assert_allclose(_np(out["out"]), _np(xv).sum(1) * 2)
    g2 = fx.Graph()
    val_map = {}
    ret = g2.graph_copy(g, val_map)
    g2.output(ret)
    assert str(g2) == str(g)
    assert [n.name for n in g2.nodes] == [n.name for n in g.nodes]
    assert all(val_map[n].graph is g2 for n in g.nodes if n.op != "output")
    with pytest.raises(RuntimeError, match="referenced target missing"):
        g3 = fx.Graph()
        g3.output(g3.get_attr("missing"))
        fx.GraphModule({}, g3)


def test_lint_finds_broken_graphs():
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.call_method("neg", (x,))
    g.output(y)
    x.prepend(y)  # y now comes before its input
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g.lint()
    gm_graph = fx.Graph()
    a = gm_graph.placeholder("a")
    gm_graph.output(gm_graph.call_module("nothere", (a,)))
    holder = nn.Module()
    gm_graph.owning_module = holder
    with pytest.raises(RuntimeError, match="nonexistent attribute nothere"):
        gm_graph.lint()


def test_submodule_edits():
    model, _ = fx_cases.models(torch)["residual"]
    gm = fx.symbolic_trace(model)
    assert gm.add_submodule("extra.inner", nn.ReLU())
    assert isinstance(gm.get_submodule("extra.inner"), nn.ReLU)
    assert gm.delete_submodule("extra.inner")
    assert not gm.delete_submodule("extra.inner")
    assert not gm.delete_submodule("nope.deeper")
    gm.add_submodule("unused", nn.Linear(2, 2))
    gm.delete_all_unused_submodules()
    names = [n for n, _ in gm.named_modules()]
    assert "unused" not in names and "extra" not in names
    assert "body.0" in names and "body.3" in names


# ---- Interpreter and Transformer ----------------------------------------------------------

def test_interpreter_runs_node_by_node():
    model, shapes = fx_cases.models(torch)["residual"]
    model.eval()
    gm = fx.symbolic_trace(model)
    x = torch.randn(*shapes[0])
    seen = []

    class Counting(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            seen.append(target)
            return super().call_function(target, args, kwargs)

    interp = Counting(gm)
    out = interp.run(x)
    want = gm(x)
    for k in want:
        np.testing.assert_allclose(_np(out[k]), _np(want[k]), rtol=1e-6)
    assert seen == [n.target for n in gm.graph.nodes if n.op == "call_function"]
    # values are dropped after their last use: the output and the unused
    # shape entries (nothing reads them) are what is left, as in PyTorch
    assert sorted(n.name for n in interp.env) == ["getitem_2", "getitem_3", "output"]
    args = [x]
    boxed = fx.Interpreter(gm).boxed_run(args)
    assert args == []
    np.testing.assert_allclose(_np(boxed["map"]), _np(want["map"]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        fx.Interpreter(gm).run()


def test_transformer_rewrites_and_keeps_meaning():
    assert OURS["transformer"] == _ours(GOLDEN["transformer"])

    class AddToMul(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is operator.add:
                target = operator.mul
            return super().call_function(target, args, kwargs)

    def f(x, y):
        return (x + y) * 2 + torch.exp(x)
    new = AddToMul(fx.symbolic_trace(f)).transform()
    x, y = torch.randn(3), torch.randn(3)
    np.testing.assert_allclose(_np(new(x, y)), _np(x * y * 2 * torch.exp(x)), rtol=1e-6)


def test_replace_pattern():
    assert OURS["replace_pattern"] == _ours(GOLDEN["replace_pattern"])

    def program(x, y):
        return ((x + y).relu() + x).relu() * 2 + (y + y)

    def pattern(u, v):
        return (u + v).relu()

    def replacement(u, v):
        return torch.sigmoid(u - v)
    gm = fx.symbolic_trace(program)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert all(isinstance(m.nodes_map, dict) for m in matches)
    x, y = torch.randn(4), torch.randn(4)
    sig = torch.sigmoid
    np.testing.assert_allclose(_np(gm(x, y)), _np(sig(sig(x - y) - x) * 2 + (y + y)),
                               rtol=1e-6)


def test_annotate():
    assert OURS["annotate"] == _ours(GOLDEN["annotate"])


def test_concrete_args():
    assert OURS["concrete_args"] == _ours(GOLDEN["concrete_args"])

    def with_flag(x, flag=True, scale=None):
        return x + 1 if flag else x - 1
    gm = fx.symbolic_trace(with_flag, concrete_args={"flag": True, "scale": None})
    np.testing.assert_allclose(_np(gm(torch.zeros(2))), [1.0, 1.0])
    with pytest.raises(AssertionError, match="flag has been specialized"):
        gm(torch.zeros(2), False)


@pytest.mark.host_only  # edits or reprs host memory (NumPy views, device-free reprs)
def test_containers_in_concrete_args():
    assert OURS["pytree_args"] == _ours(GOLDEN["pytree_args"])

    def from_dict(x, d):
        return x + d["a"] * d["b"]
    gm = fx.symbolic_trace(from_dict, concrete_args={"d": {"a": fx.PH, "b": 2}})
    one = torch.ones(2)
    for copied in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert copied.code == gm.code
        np.testing.assert_allclose(_np(copied(one, {"a": one, "b": 2})), [3.0, 3.0])
    with pytest.raises(AssertionError, match="d has been specialized to have value 2"):
        gm(one, {"a": one, "b": 5})


def test_shape_prop():
    assert OURS["shape_prop"] == _ours(GOLDEN["shape_prop"])
    assert OURS["shape_prop_containers"] == _ours(GOLDEN["shape_prop_containers"])
    gm = fx.symbolic_trace(fx_cases.models(torch)["residual"][0])
    ShapeProp(gm).propagate(torch.randn(2, 3, 5, 5))
    nodes = {n.name: n for n in gm.graph.nodes}
    meta = nodes["output"].meta["tensor_meta"]
    assert isinstance(meta, dict) and isinstance(meta["map"], TensorMetadata)
    assert list(meta["map"].shape) == [2, 5, 5, 3]
    assert meta["map"].memory_format is None  # a permuted view is no standard layout
    assert "tensor_meta" not in nodes["getattr_1"].meta
    assert nodes["getitem"].meta["type"] is int


# ---- errors -------------------------------------------------------------------------------

def test_untraceable_code_raises_as_pytorch():
    want = _ours(GOLDEN["errors"])
    got = OURS["errors"]
    assert got == want
    assert issubclass(fx.TraceError, ValueError)


def test_argument_types():
    class HoldsModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return torch.add(x, self.lin)
    call, getattr_ = nn.Module.__call__, nn.Module.__getattr__
    with pytest.raises(NotImplementedError, match="argument of type"):
        fx.symbolic_trace(HoldsModule())
    # the patches made for tracing are undone when it fails
    assert nn.Module.__call__ is call and nn.Module.__getattr__ is getattr_
    m = HoldsModule()
    assert isinstance(m.lin.weight, nn.Parameter)


# ---- function coverage: torch-level and functional calls record themselves ----------------

_CALLS = [
    (torch.add, lambda f, x: f(x, 1)), (torch.cat, lambda f, x: f([x, x], 0)),
    (torch.stack, lambda f, x: f([x, x])), (torch.where, lambda f, x: f(x > 0, x, -x)),
    (torch.flatten, lambda f, x: f(x)), (torch.transpose, lambda f, x: f(x, 0, 1)),
    (torch.einsum, lambda f, x: f("ij->ji", x)), (torch.exp, lambda f, x: f(x)),
    (torch.nn.functional.softmax, lambda f, x: f(x, -1)),
    (torch.nn.functional.layer_norm, lambda f, x: f(x, (3,))),
    (torch.nn.functional.dropout, lambda f, x: f(x, 0.0)),
    (torch.nn.functional.linear, lambda f, x: f(x, torch.ones(2, 3))),
    (torch.linalg.norm, lambda f, x: f(x)), (torch.special.erf, lambda f, x: f(x)),
    (torch.fft.rfft, lambda f, x: f(x)), (torch.get_device, lambda f, x: f(x)),
    (torch.linalg.cond, lambda f, x: f(x[:, :2])),
]


@pytest.mark.parametrize("fn, call", _CALLS, ids=lambda v: getattr(v, "__name__", ""))
def test_torchlike_functions_become_call_function_nodes(fn, call):
    gm = fx.symbolic_trace(lambda x: call(fn, x))
    nodes = [n for n in gm.graph.nodes if n.op == "call_function" and n.target is fn]
    assert len(nodes) == 1
    x = torch.randn(2, 3)
    want, got = call(fn, x), gm(x)
    if isinstance(want, torch.Tensor):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)
    else:
        assert got == want


# ---- wrap, autowrap, leaves ---------------------------------------------------------------

def _scaled(x, k):
    return x * k


fx.wrap("_scaled")
fx.wrap("len")


def test_wrap_records_free_functions():
    def f(x):
        return _scaled(x, 3) + len(x) + math.sqrt(4)

    gm = fx.symbolic_trace(f)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert _scaled in targets and len in targets
    assert 'torchlike.fx._symbolic_trace.wrap("len")' in gm.code
    assert _scaled(1, 2) == 2  # patched only while tracing
    x = torch.ones(5)
    np.testing.assert_allclose(_np(gm(x)), [10.0] * 5)

    def g(x):
        return math.sqrt(x.shape[0]) * x
    gm = fx.symbolic_trace(g)
    assert math.sqrt in [n.target for n in gm.graph.nodes]
    np.testing.assert_allclose(_np(gm(torch.ones(4))), [2.0] * 4)


def test_custom_leaf_modules_and_module_root():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x).relu()

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    gm = fx.symbolic_trace(Outer())
    assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == \
        ["blocks.0.lin", "blocks.1.lin"]

    class BlocksAreLeaves(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, Block) or super().is_leaf_module(m, qualname)
    outer = Outer()
    graph = BlocksAreLeaves().trace(outer)
    assert [n.target for n in graph.nodes if n.op == "call_module"] == ["blocks.0", "blocks.1"]
    gm2 = fx.GraphModule(outer, graph)
    x = torch.randn(2, 3)
    np.testing.assert_allclose(_np(gm2(x)), _np(outer(x)), rtol=1e-6)


def test_stack_traces_point_at_user_code():
    class Recording(fx.Tracer):
        record_stack_traces = True

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            y = self.lin(x)
            return y.relu() + 1

    first = M.forward.__code__.co_firstlineno
    graph = Recording().trace(M())
    traces = {n.name: n.stack_trace for n in graph.nodes}
    assert traces["x"] is None and traces["output"] is None
    assert traces["lin"].startswith('File "') and f"line {first + 1}, in forward" in traces["lin"]
    assert traces["lin"].endswith("y = self.lin(x)")
    assert f"line {first + 2}, in forward" in traces["add"]
    assert "torchlike/fx" not in traces["relu"].replace("\\", "/")
    text = fx.GraphModule(M(), graph).print_readable(print_output=False)
    assert f"test_fx.py:{first + 1} in forward, code: y = self.lin(x)" in text
    assert text.count("# File:") == 2  # relu and add share a line: one comment


# ---- copies, pickling, printing -----------------------------------------------------------

def test_deepcopy_pickle_and_save():
    model, shapes = fx_cases.models(torch)["convnet"]
    model.eval()
    gm = fx.symbolic_trace(model)
    x = torch.randn(*shapes[0])
    want = _np(gm(x))
    dc = copy.deepcopy(gm)
    assert dc.code == gm.code and str(dc.graph) == str(gm.graph)
    assert type(dc) is not type(gm) and type(dc).__name__ == "ConvNet"
    assert dc.fc.weight is not gm.fc.weight
    np.testing.assert_allclose(_np(dc(x)), want, rtol=1e-6)
    with torch.no_grad():
        dc.fc.weight.add_(1.0)
    np.testing.assert_allclose(_np(gm(x)), want, rtol=1e-6)  # the copy is independent

    class Dual(fx.GraphModule):
        """A subclass (as torchvision's feature extractor makes one)."""
    sub = Dual(gm, gm.graph, "Dual")
    dsub = copy.deepcopy(sub)
    assert isinstance(dsub, Dual) and type(dsub) is not type(sub)
    np.testing.assert_allclose(_np(dsub(x)), want, rtol=1e-6)

    nodes = list(gm.graph.nodes)
    nodes[1].meta["unpicklable"] = lambda: 1  # left out of the pickle, not an error
    pk = pickle.loads(pickle.dumps(gm))
    assert pk.code == gm.code and type(pk).__name__ == "ConvNet"
    assert [n.name for n in pk.graph.nodes] == [n.name for n in nodes]
    assert "unpicklable" not in list(pk.graph.nodes)[1].meta
    assert list(pk.graph.nodes)[1].meta["nn_module_stack"] == nodes[1].meta["nn_module_stack"]
    np.testing.assert_allclose(_np(pk(x)), want, rtol=1e-6)

    buf = io.BytesIO()
    torch.save(gm, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    np.testing.assert_allclose(_np(loaded(x)), want, rtol=1e-6)
    assert set(loaded.state_dict()) == set(gm.state_dict())


def test_printing():
    model, _ = fx_cases.models(torch)["mlp"]
    gm = fx.symbolic_trace(model)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gm.graph.print_tabular()
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    rows = [line.split() for line in lines[2:]]
    assert [r[:3] for r in rows] == [[n.op, n.name, str(n.target)] for n in gm.graph.nodes]
    readable = gm.print_readable(print_output=False)
    assert readable.startswith("class MLP(torchlike.nn.Module):\n    def forward(self, x):")
    assert "# No stacktrace found for following nodes" in readable
    text = str(gm)
    assert text.startswith("MLP(") and gm.code in text
    assert repr(next(iter(gm.graph.nodes))) == "x"
