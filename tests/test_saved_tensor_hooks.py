"""Saved-tensor hooks (torchlike.autograd.graph): which tensors are packed,
when they are unpacked, and that the gradients stay right.  The order and
count of hook calls are PyTorch's (tests/golden/saved_hooks.json, recorded by
scripts/golden_saved_hooks.py)."""
import gc
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd.graph import (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
                                      Node, register_multi_grad_hook, get_gradient_edge,
                                      increment_version)
from oracle import UNDER_ASAN, rss_bytes

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "saved_hooks.json")))
# Cases whose pack/unpack calls are PyTorch's exactly (count, order, shapes).
ORDERED = {"mul_square", "exp_saves_output", "add_saves_nothing", "sin_then_exp", "matmul",
           "mul_constant", "unused_branch", "stack_list"}
# Cases where a node packs the same tensors in another order than PyTorch's
# codegen (its div packs `other` before `self`): same multiset of calls.
SAME_CALLS = {"div_plain"}
# Cases where torchlike's tape saves more than PyTorch's: indexing (w[0])
# keeps its base, where PyTorch's select keeps only sizes, and pow keeps its
# result too.  What PyTorch packs is packed here as well.
SAVES_MORE = {"div", "pow_mixed"}


def leaves():
    x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[0.2, 0.5, -0.4], [1.0, -0.3, 0.8], [0.6, 0.1, -0.9]],
                     dtype=torch.float64, requires_grad=True)
    return x, w


def run_case(code, hooks=True):
    x, w = leaves()
    log = []

    def pack(t):
        log.append(["pack", list(t.shape), bool(t.requires_grad), t.grad_fn is not None])
        return t

    def unpack(t):
        log.append(["unpack", list(t.shape)])
        return t

    scope = {"torch": torch, "x": x, "w": w}
    if hooks:
        with saved_tensors_hooks(pack, unpack):
            exec(code, scope)
    else:
        exec(code, scope)
    n = len(log)
    scope["loss"].backward()
    return log[:n], log[n:], x.grad.numpy().copy(), w.grad.numpy().copy() if w.grad is not None else None


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_pack_unpack_calls_match_pytorch(name):
    case = GOLDEN[name]
    fwd, bwd, gx, gw = run_case(case["code"])
    if name in ORDERED:
        assert fwd == case["forward"]
        assert bwd == case["backward"]
    elif name in SAME_CALLS:
        assert sorted(map(str, fwd)) == sorted(map(str, case["forward"]))
        assert sorted(map(str, bwd)) == sorted(map(str, case["backward"]))
    else:
        assert name in SAVES_MORE
        for ours, theirs in ((fwd, case["forward"]), (bwd, case["backward"])):
            rest = list(map(str, ours))
            for e in map(str, theirs):
                rest.remove(e)  # ValueError: a call PyTorch makes is missing
            assert rest, "saves no more than PyTorch: move the case to ORDERED"
    # identity hooks change no gradient
    _, _, hx, hw = run_case(case["code"], hooks=False)
    np.testing.assert_array_equal(gx, hx)
    if hw is not None:
        np.testing.assert_array_equal(gw, hw)


def test_what_pack_returns_is_what_unpack_gets_and_the_node_keeps_no_tensor():
    x, _ = leaves()
    packed = []

    def pack(t):
        key = ("box", len(packed))
        packed.append(t.detach().numpy().copy())
        return key

    def unpack(key):
        return torch.tensor(packed[key[1]])

    with saved_tensors_hooks(pack, unpack):
        y = x.sin().exp()
    assert y.grad_fn._saved_tensors == ()                # an ExpBackward0 keeps no data
    assert y.grad_fn.next_functions[0][0]._saved_tensors == ()
    y.sum().backward()
    xn = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.sin(xn)) * np.cos(xn), rtol=1e-14)


def test_unpack_runs_at_every_backward_of_a_retained_graph():
    x, _ = leaves()
    calls = []
    with saved_tensors_hooks(lambda t: t, lambda t: calls.append(1) or t):
        y = (x * 2.0).exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.exp(2 * x.detach().numpy()), rtol=1e-14)


def test_only_the_innermost_hooks_apply_and_the_stack_unwinds():
    x, _ = leaves()
    log = []
    outer = saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t)
    inner = saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t)
    with outer:
        with inner:
            x.exp()
        x.exp()
    x.exp()
    assert log == ["inner", "outer"]


def test_disable_saved_tensors_hooks_messages():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after
        with pytest.raises(RuntimeError, match="^busy$"):
            with disable_saved_tensors_hooks("busy"):
                pass


def test_unpack_must_return_a_tensor():
    x, _ = leaves()
    with saved_tensors_hooks(lambda t: t, lambda t: "nope"):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result "
                                        "of type str"):
        y.backward()


def test_pack_error_propagates_and_leaves_no_graph():
    x, _ = leaves()

    def pack(t):
        raise ValueError("pack failed")

    with saved_tensors_hooks(pack, lambda t: t):
        with pytest.raises(ValueError, match="pack failed"):
            x.exp()


def test_no_version_check_through_hooks_but_still_without():
    # PyTorch checks no version on what unpack returns; without hooks the
    # in-place write is still caught
    x, _ = leaves()
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = x * 2.0
        z = y * y
    y.add_(1.0)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.detach().numpy(), rtol=1e-14)  # old y
    y = x * 2.0
    z = y * y
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_custom_function_saved_tensors_go_through_the_hooks():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, a * a)
            return a * a * a

        @staticmethod
        def backward(ctx, g):
            a, a2 = ctx.saved_tensors
            assert a.requires_grad and not a2.requires_grad  # PyTorch's flags
            return g * 3 * a2

    x, _ = leaves()
    log = []
    with saved_tensors_hooks(lambda t: log.append("p") or t.detach().numpy().copy(),
                             lambda a: log.append("u") or torch.tensor(a)):
        y = Cube.apply(x)
    assert log == ["p", "p"]
    y.sum().backward()
    assert log == ["p", "p", "u", "u"]
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2, rtol=1e-14)


def test_double_backward_through_hooks():
    x, _ = leaves()
    log = []
    with saved_tensors_hooks(lambda t: log.append("p") or t.detach().clone(),
                             lambda t: log.append("u") or t):
        y = (x * x * x).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * x.detach().numpy() ** 2, rtol=1e-14)
    h, = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.detach().numpy(), rtol=1e-14)
    assert log.count("u") >= 4 and log.count("p") >= 4


def test_hooks_are_per_thread():
    x, _ = leaves()
    log = []
    seen_in_thread = []

    def worker():
        x.exp()                       # the main thread's hooks do not apply here
        seen_in_thread.append(len(log))

    with saved_tensors_hooks(lambda t: log.append("p") or t, lambda t: t):
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        x.exp()
    assert seen_in_thread == [0] and log == ["p"]


SAVE_ON_CPU = """
import numpy as np
import torchlike as torch
from torchlike.autograd.graph import saved_tensors_hooks, save_on_cpu
torch._C._fake_enable()
torch._C._fake_emulate_device()
xn = np.linspace(-1, 1, 6)
x = torch.tensor(xn, dtype=torch.float64).to("fake").requires_grad_()
seen = []
base = save_on_cpu()
with saved_tensors_hooks(lambda t: seen.append(t.device.type) or base.pack_hook(t),
                         lambda p: seen.append(p[1].device.type) or base.unpack_hook(p)):
    y = x.sin().exp()
assert seen == ["fake", "fake"], seen
assert y.grad_fn._saved_tensors == ()
y.sum().backward()
assert seen[2:] == ["cpu", "cpu"], seen
assert x.grad.device.type == "fake"
want = np.exp(np.sin(xn)) * np.cos(xn)
np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-14)
with save_on_cpu(pin_memory=True):
    z = (x * x).sum()
z.backward()
np.testing.assert_allclose(x.grad.cpu().numpy(), want + 2 * xn, rtol=1e-14)
print("ok")
"""


def run_emulated_code(code):
    """Run code in a process whose fake device has the CPU's kernels."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(here), here]))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-2000:] + r.stderr[-4000:]


def test_save_on_cpu_on_the_emulated_device():
    run_emulated_code(SAVE_ON_CPU)


def test_node_class_and_gradient_edge():
    x, _ = leaves()
    y = x.exp()
    assert isinstance(y.grad_fn, Node)
    edge = get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.output_nr == 0
    leaf_edge = get_gradient_edge(x)
    assert leaf_edge.node.name() == "torch::autograd::AccumulateGrad" and leaf_edge.node.variable is x
    with pytest.raises(RuntimeError, match="does not require gradients"):
        get_gradient_edge(torch.ones(2))
    v = x.detach()
    before = v._version
    increment_version(v)
    assert v._version == before + 1


def test_node_register_hook_sees_and_replaces_gradients():
    x, _ = leaves()
    y = x * 3.0
    seen = []

    def hook(gin, gout):
        # one gradient per next_functions entry: None for the wrapped 3.0 (PyTorch)
        assert len(gin) == 2 and gin[1] is None
        seen.append((gin[0].numpy().copy(), gout[0].numpy().copy()))
        return (gin[0] * 2, None)

    h = y.grad_fn.register_hook(hook)
    y.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(seen[0][0], np.full(3, 3.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 6.0))
    h.remove()
    x.grad = None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 3.0))


def test_multi_grad_hook_all_and_any():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0], requires_grad=True)
    got = []
    h = register_multi_grad_hook((a, b), lambda grads: got.append([g is not None for g in grads]))
    (a.sum() * 2 + b.sum()).backward()
    assert got == [[True, True]]
    # a backward reaching only a (PyTorch: once, b's gradient None), then
    # both again: nothing left over from the partial one
    (a.sum() * 2 + b.sum()).backward(inputs=[a])
    a.sum().backward()
    (a.sum() + b.sum()).backward()
    assert got == [[True, True], [True, False], [True, False], [True, True]]
    h.remove()
    first = []
    register_multi_grad_hook((a, b), lambda g: first.append(g.shape), mode="any")
    (a.sum() + b.sum()).backward()
    (a.sum() + b.sum()).backward()
    assert len(first) == 2
    with pytest.raises(ValueError, match="Expects mode"):
        register_multi_grad_hook((a,), print, mode="some")


@pytest.mark.skipif(UNDER_ASAN, reason="resident size under ASan is the sanitizer's")
def test_repeated_backward_with_hooks_does_not_leak():
    x = torch.tensor(np.linspace(0, 1, 256), requires_grad=True)

    def step():
        with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            y = (x.sin() * x).exp().sum()
        y.backward()

    for _ in range(200):
        step()
    gc.collect()
    ref = torch._C.Tensor
    count0 = len(gc.get_objects())
    rss0 = rss_bytes()
    for _ in range(2000):
        step()
    gc.collect()
    assert len(gc.get_objects()) - count0 < 50
    assert rss_bytes() - rss0 < (2 << 20)
    assert ref is torch._C.Tensor
