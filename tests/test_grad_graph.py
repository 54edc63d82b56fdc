"""The shape of the autograd graph against PyTorch's (tests/golden/grad_graph.json,
recorded by scripts/golden_grad_graph.py): each result's node name and its
next_functions two levels down, as graph-walking tools see them (graph
drawings, hooks on grad_fn nodes, next_functions[i][0] navigation).

DIFFERENT holds the calls whose graph is known to differ, each with the
reason (docs/autograd.md, "Graph shape"); each is asserted to still differ,
so the list shrinks as differences are fixed."""
import json
import os
import sys
import warnings

import pytest

import torchlike as T

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
from golden_grad_graph import describe, hooked, inputs  # noqa: E402

with open(os.path.join(HERE, "golden", "grad_graph.json")) as f:
    GOLDEN = json.load(f)["calls"]
with open(os.path.join(HERE, "golden", "grad_graph_hooks.json")) as f:
    HOOKS = json.load(f)["calls"]

COMPOSITE = ("PyTorch builds the op from others (its graph has their nodes); "
             "torchlike records one node")
COPY_SLICES = ("a write through a view: PyTorch's CopySlices takes over the edges of the op it "
               "wraps; torchlike's keeps the base's old history and the op's node on the view")
SETITEM = ("__setitem__ with a basic index: PyTorch copies into a view (CopySlices); "
           "torchlike records index_put")
MATMUL_3D = ("matmul of a batched and a 2-d operand: PyTorch folds the batch into an mm "
             "(view, mm, unsafe view)")
TWICE = ("the same tensor twice: PyTorch shows two edges to its node; torchlike saves one "
         "input (the gradients add up)")
DROPOUT = ("dropout in training on CPU: PyTorch multiplies by a scaled mask (MulBackward0, "
           "a None edge for the mask); torchlike records its fused kernel (FusedDropoutBackward0)")
RECIPROCAL = "2 / a: PyTorch records reciprocal(a) * 2; torchlike one DivBackward0"

DIFFERENT = {
    "a * a": TWICE,
    "F.layer_norm(a, (4,), v, v)": TWICE,
    "v @ v": TWICE,
    "T.dot(v, v)": TWICE,
    "2 / a": RECIPROCAL,
    "a.lerp(b, 0.3)": COMPOSITE,
    "a[None] @ m": MATMUL_3D,
    "T.einsum('ij,jk->ik', a, m)": COMPOSITE,
    "F.linear(a[None], m, v)": MATMUL_3D,
    "F.cross_entropy(a, k)": COMPOSITE,
    "F.dropout(a, 0.5)": DROPOUT,
    "(n[0].mul_(2), n)[1]": COPY_SLICES,
    "(n[:, 1].zero_(), n)[1]": COPY_SLICES,
    "(n.t().add_(1), n)[1]": COPY_SLICES,
    "n.__setitem__(0, 1.0) or n": SETITEM,
    "n.__setitem__((slice(None), 1), b[:, 0]) or n": SETITEM,
}


def run(call, how=describe):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return how(eval(call, inputs(T)))


CASES = [c for c in GOLDEN if c[1] is None or c[1][0] != "raises"]


@pytest.mark.parametrize("call,want", CASES, ids=[c[0] for c in CASES])
def test_graph_as_pytorch(call, want):
    got = run(call)
    if call in DIFFERENT:
        assert got != want, f"{call} now matches PyTorch: drop it from DIFFERENT"
    else:
        assert got == want, f"{call}\n  PyTorch:   {want}\n  torchlike: {got}"


def test_every_listed_call_is_recorded():
    assert set(DIFFERENT) <= {c for c, _ in GOLDEN}


@pytest.mark.parametrize("call,want", HOOKS, ids=[c[0] for c in HOOKS])
def test_node_hook_grad_inputs_as_pytorch(call, want):
    """A hook on a node sees one gradient per next_functions entry, None for
    a (None, 0) edge (a wrapped number, an absent optional tensor)."""
    assert run(call, hooked) == want


def test_node_hook_replaces_through_layout():
    """A tuple a node hook returns is laid out as next_functions: its None
    slot for the wrapped number is ignored, the tensor slot replaces."""
    a = T.ones(3, requires_grad=True)
    y = a * 2
    assert [f is None for f, _ in y.grad_fn.next_functions] == [False, True]
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 10, None))
    y.sum().backward()
    assert a.grad.tolist() == [20.0, 20.0, 20.0]
    b = T.ones(3, requires_grad=True)
    z = b * 2
    z.grad_fn.register_hook(lambda gin, gout: (gin[0],))
    with pytest.raises(RuntimeError, match="expected None or a tuple of 2 gradients"):
        z.sum().backward()


def test_layout_survives_backward():
    """next_functions keep their layout after a backward frees the saved call."""
    a = T.ones(3, requires_grad=True)
    y = T.where(a > 0, a, 0.0) * 3
    before = [(None if f is None else f.name(), nr) for f, nr in y.grad_fn.next_functions]
    y.sum().backward()
    after = [(None if f is None else f.name(), nr) for f, nr in y.grad_fn.next_functions]
    assert before == after == [("WhereBackward0", 0), (None, 0)]
    inner = y.grad_fn.next_functions[0][0].next_functions
    assert [(None if f is None else f.name(), nr) for f, nr in inner] == [
        ("torch::autograd::AccumulateGrad", 0), (None, 0)]
