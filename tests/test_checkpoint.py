"""torchlike.utils.checkpoint: gradients with checkpointing equal those
without (float64, compared with NumPy), both variants; random ops draw the
same in the rerun; the forward keeps fewer saved tensors."""
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
from torchlike.utils.checkpoint import (checkpoint, checkpoint_sequential, CheckpointError,
                                        set_checkpoint_early_stop)

VARIANTS = [True, False]


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    w1 = torch.tensor(rng.standard_normal((5, 4)) * 0.5, requires_grad=True)
    b1 = torch.tensor(rng.standard_normal(5) * 0.1, requires_grad=True)
    w2 = torch.tensor(rng.standard_normal((3, 5)) * 0.5, requires_grad=True)
    return w1, b1, w2


def block(x, w1, b1, w2):
    return (torch.tanh(x @ w1.T + b1) @ w2.T).sin()


def numpy_block_grads(xn, w1n, b1n, w2n):
    """d sum(block) / d (x, w1, b1, w2), by hand in NumPy."""
    a = xn @ w1n.T + b1n
    h = np.tanh(a)
    o = h @ w2n.T
    go = np.cos(o)                       # d sum(sin(o)) / do
    gw2 = go.T @ h
    gh = go @ w2n
    ga = gh * (1 - h * h)
    return ga @ w1n, ga.T @ xn, ga.sum(0), gw2


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradients_equal_those_without_checkpointing(reentrant):
    params = mlp_params()
    xn = np.random.default_rng(1).standard_normal((6, 4))
    x = torch.tensor(xn, requires_grad=True)
    y = checkpoint(block, x, *params, use_reentrant=reentrant)
    y.sum().backward()
    want = numpy_block_grads(xn, *(p.detach().numpy() for p in params))
    got = (x.grad,) + tuple(p.grad for p in params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_the_forward_keeps_no_saved_tensor_of_the_block(reentrant):
    params = mlp_params()
    x = torch.tensor(np.ones((2, 4)), requires_grad=True)

    def saved_count(t):
        seen, todo, n = set(), [t.grad_fn], 0
        while todo:
            node = todo.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            n += len(node._saved_tensors)
            todo.extend(f for f, _ in node.next_functions)
        return n

    plain = saved_count(block(x, *params))
    ck = checkpoint(block, x, *params, use_reentrant=reentrant)
    assert plain >= 4
    # non-reentrant: nothing; reentrant: the custom node's alias of its output
    # (its ctx keeps the block's inputs, which the caller holds anyway)
    assert saved_count(ck) == (1 if reentrant else 0)


FAKE_MEMORY = """
import numpy as np
import torchlike as torch
from torchlike.utils.checkpoint import checkpoint
torch._C._fake_enable()
torch._C._fake_emulate_device()
rng = np.random.default_rng(2)
ws = [torch.tensor(rng.standard_normal((64, 64)) * 0.1).to("fake").requires_grad_()
      for _ in range(4)]


def deep(x, *ws):
    for w in ws:
        x = torch.tanh(x @ w)
    return x


x = torch.tensor(rng.standard_normal((256, 64))).to("fake").requires_grad_()


def held(fn):
    base = torch._C._memory_stats("fake")["allocated_bytes.all.current"]
    y = fn()
    return torch._C._memory_stats("fake")["allocated_bytes.all.current"] - base, y


plain, y1 = held(lambda: deep(x, *ws).sum())
ck, y2 = held(lambda: checkpoint(deep, x, *ws, use_reentrant=False).sum())
# the plain forward keeps 4 tanh results (and matmul inputs); the checkpointed
# one only its output
assert plain >= 4 * 256 * 64 * 8 and ck < plain / 3, (plain, ck)
y2.backward()
g_ck = x.grad.cpu().numpy().copy()
x.grad = None
y1.backward()
np.testing.assert_allclose(g_ck, x.grad.cpu().numpy(), rtol=1e-13)
print("ok")
"""


def test_emulated_device_memory_is_lower_with_checkpointing():
    from test_saved_tensor_hooks import run_emulated_code
    run_emulated_code(FAKE_MEMORY)


def dropout_block(x, w):
    return torch.nn.functional.dropout(torch.tanh(x @ w), p=0.5, training=True).sum(1)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_dropout_mask_is_the_same_in_the_rerun(reentrant):
    rng = np.random.default_rng(3)
    wn = rng.standard_normal((4, 8))
    xn = rng.standard_normal((16, 4))

    def grads(ck, preserve=True):
        w = torch.tensor(wn, requires_grad=True)
        x = torch.tensor(xn, requires_grad=True)
        torch.manual_seed(7)
        if ck:
            y = checkpoint(dropout_block, x, w, use_reentrant=reentrant,
                           preserve_rng_state=preserve)
        else:
            y = dropout_block(x, w)
        torch.randn(3)  # the draws after the forward must not matter
        y.sum().backward()
        return x.grad.numpy(), w.grad.numpy()

    ref = grads(False)
    same = grads(True)
    for a, b in zip(same, ref):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    other = grads(True, preserve=False)
    assert not np.allclose(other[1], ref[1])


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_kwargs_and_non_tensor_arguments_and_outputs(reentrant):
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)

    def fn(a, scale, name, shift=0.0):
        return a.exp() * scale + shift, name.upper()

    if reentrant:
        y, name = checkpoint(fn, x, 3.0, "ok", use_reentrant=True)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: shift"):
            checkpoint(fn, x, 3.0, "ok", use_reentrant=True, shift=1.0)
    else:
        y, name = checkpoint(fn, x, 3.0, "ok", use_reentrant=False, shift=1.0)
    assert name == "OK"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp([0.5, -1.0, 2.0]), rtol=1e-14)


# the reentrant outer forward runs under no_grad, so the inner checkpoint's
# input needs no grad and PyTorch's warning says so
@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad")
@pytest.mark.parametrize("reentrant", VARIANTS)
def test_nested_checkpoints(reentrant):
    x = torch.tensor([0.2, 0.4, -0.3], dtype=torch.float64, requires_grad=True)
    calls = {"inner": 0, "outer": 0}

    def inner(a):
        calls["inner"] += 1
        return a.sin() * a

    def outer(a):
        calls["outer"] += 1
        return checkpoint(inner, a.exp(), use_reentrant=reentrant).cos()

    y = checkpoint(outer, x, use_reentrant=reentrant)
    y.sum().backward()
    xn = np.array([0.2, 0.4, -0.3])
    e = np.exp(xn)
    u = np.sin(e) * e
    want = -np.sin(u) * (np.cos(e) * e + np.sin(e)) * e
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-13)
    assert calls["outer"] == 2 and calls["inner"] >= 2


def test_autograd_grad_non_reentrant_and_reentrant_refusal():
    x = torch.tensor([0.2, 0.4], dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(checkpoint(lambda a: a.exp(), x, use_reentrant=False).sum(), x)
    np.testing.assert_allclose(g.numpy(), np.exp([0.2, 0.4]), rtol=1e-14)
    y = checkpoint(lambda a: a.exp(), x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match="When use_reentrant=True, torch.utils.checkpoint is "
                                           "incompatible with .grad()"):
        torch.autograd.grad(y, x)


def test_double_backward_non_reentrant():
    x = torch.tensor([0.2, 0.4], dtype=torch.float64, requires_grad=True)
    y = checkpoint(lambda a: (a * a * a).sum(), x, use_reentrant=False)
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * np.array([0.2, 0.4]), rtol=1e-14)


def test_reentrant_without_inputs_requiring_grad_warns():
    x = torch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(lambda a: a * 2, x, use_reentrant=True)
    assert not y.requires_grad


def test_use_reentrant_omitted_warns_and_is_reentrant():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                         "explicitly"):
        y = checkpoint(lambda a: a.exp(), x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"


def test_determinism_check_catches_a_different_rerun():
    x = torch.tensor([0.2, 0.4], dtype=torch.float64, requires_grad=True)
    runs = []

    def changing(a):
        runs.append(1)
        return a.exp() if len(runs) == 1 else a.reshape(2, 1).exp()

    y = checkpoint(changing, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="different metadata"):
        y.sum().backward()


@pytest.mark.parametrize("early", [True, False])
def test_early_stop_stops_the_rerun(early):
    x = torch.tensor([0.2, 0.4], dtype=torch.float64, requires_grad=True)
    after = []

    def fn(a):
        y = a.exp()
        after.append(1)   # runs after the last saved tensor of the rerun
        return y

    with set_checkpoint_early_stop(early):
        y = checkpoint(fn, x, use_reentrant=False)
    y.sum().backward()
    assert len(after) == (1 if early else 2)
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.2, 0.4]), rtol=1e-14)


@pytest.mark.parametrize("reentrant", VARIANTS)
@pytest.mark.parametrize("segments", [1, 2, 3, 5])
def test_checkpoint_sequential(reentrant, segments):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 6), nn.Sigmoid(),
                          nn.Linear(6, 3)).double()
    xn = np.random.default_rng(4).standard_normal((5, 4))
    x = torch.tensor(xn, requires_grad=True)
    model(x).pow(2).sum().backward()
    ref = [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]
    model.zero_grad()
    x.grad = None
    out = checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
    out.pow(2).sum().backward()
    got = [p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()]
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
