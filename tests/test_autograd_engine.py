"""The autograd engine seen from Python: accumulation into leaves, backward
and autograd.grad options, PyTorch's errors for bad use, tensor attributes
and hooks, grad modes, in-place rules, and no leaks."""
import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd import grad
from oracle import assert_close, assert_rss_flat, rss_bytes


def leaf(values):
    return torch.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def np_of(t):
    return t.detach().cpu().numpy()


# ---- accumulation into leaves ----------------------------------------------------------------

def test_leaves_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    assert_close(x.grad, 2 * np_of(x))
    (x * 3).sum().backward()
    assert_close(x.grad, 2 * np_of(x) + 3)


def test_grad_set_to_none_then_backward():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    x.grad = None
    (x * 5).sum().backward()
    assert_close(x.grad, np.full(2, 5.0))


def test_grad_zeroed_in_place_then_backward():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    g = x.grad
    g.zero_()
    (x * 5).sum().backward()
    assert x.grad is g  # accumulated in place into the same tensor
    assert_close(g, np.full(2, 5.0))


def test_grad_is_not_the_callers_gradient_object():
    x = leaf([1.0, 2.0])
    v = torch.tensor([1.0, 1.0], dtype=torch.float64)
    (x * 1).backward(v)
    (x * 1).backward(v)
    assert_close(v, np.ones(2))  # the caller's tensor was not accumulated into
    assert_close(x.grad, np.full(2, 2.0))


def test_same_leaf_used_twice_sums():
    x = leaf([2.0])
    (x * x * x + x).sum().backward()
    assert_close(x.grad, np.array([3 * 4.0 + 1]))


def test_grad_only_for_leaves():
    x = leaf([1.0])
    y = x * 2
    (y * y).sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert y.grad is None
    assert not y.is_leaf
    assert_close(x.grad, np.array([8.0]))


# ---- backward(inputs=...) and autograd.grad --------------------------------------------------

def test_backward_inputs_accumulates_only_those():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None
    assert_close(w.grad, np_of(x))
    (x * w).sum().backward(inputs=x)
    assert_close(x.grad, np_of(w))


def test_backward_inputs_non_leaf():
    x = leaf([1.0, 2.0])
    h = x * 3
    (h * h).sum().backward(inputs=[h])
    assert_close(h.grad, 2 * np_of(h))
    assert x.grad is None


def test_grad_returns_without_accumulating():
    x = leaf([1.0, 2.0])
    g, = grad((x * x).sum(), x)
    assert_close(g, 2 * np_of(x))
    assert x.grad is None
    assert not g.requires_grad


def test_grad_allow_unused_and_materialize():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 2).sum()
    # PyTorch's words name the first unused input by its index
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 1 appears to "
                                           "not have been used in the graph"):
        grad(y, (x, z), retain_graph=True)
    gx, gz = grad(y, (x, z), allow_unused=True, retain_graph=True)
    assert gz is None
    assert_close(gx, np.array([2.0]))
    gx, gz = grad(y, (x, z), materialize_grads=True)
    assert_close(gz, np.zeros(1))
    with pytest.raises(ValueError, match="allow_unused"):
        grad((x * 2).sum(), (x, z), allow_unused=False, materialize_grads=True)


def test_grad_outputs():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    v = torch.tensor([1.0, 0.5, -1.0], dtype=torch.float64)
    g, = grad(y, x, grad_outputs=v)
    assert_close(g, 2 * np_of(x) * np.array([1.0, 0.5, -1.0]))


def test_grad_of_several_outputs():
    x = leaf([1.0, 2.0])
    a, b = (x * x).sum(), (x * 3).sum()
    g, = grad((a, b), x)
    assert_close(g, 2 * np_of(x) + 3)


def test_grad_of_grad():
    x = leaf([0.5, -1.5])
    y = (x * x * x).sum()
    g, = grad(y, x, create_graph=True)
    assert g.requires_grad
    assert_close(g.detach(), 3 * np_of(x) ** 2)
    gg, = grad(g.sum(), x, create_graph=True)
    assert_close(gg.detach(), 6 * np_of(x))
    ggg, = grad(gg.sum(), x)
    assert_close(ggg, np.full(2, 6.0))


def test_hessian_vector_product():
    # f = x^2 y elementwise: grad = (2xy, x^2), Hessian per element [[2y, 2x], [2x, 0]]
    x, y = leaf([1.0, 2.0, -1.0]), leaf([0.5, -3.0, 2.0])
    f = x * x * y
    ones = torch.ones(3, dtype=torch.float64)
    gx, gy = grad(f, (x, y), grad_outputs=ones, create_graph=True)
    assert gx.requires_grad and gy.requires_grad
    vx = torch.tensor([1.0, -1.0, 2.0], dtype=torch.float64)
    vy = torch.tensor([0.5, 0.25, -1.0], dtype=torch.float64)
    hx, hy = grad((gx * vx + gy * vy), (x, y), grad_outputs=ones)
    xv, yv, a, b = np_of(x), np_of(y), np_of(vx), np_of(vy)
    assert_close(hx, 2 * yv * a + 2 * xv * b)
    assert_close(hy, 2 * xv * a)


def test_create_graph_backward_accumulates_differentiable_grad():
    x = leaf([2.0])
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    g = x.grad
    x.grad = None
    g.sum().backward()
    assert_close(x.grad, np.array([12.0]))


# ---- retain_graph ----------------------------------------------------------------------------

def test_second_backward_raises_without_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"Trying to backward through the graph a second time"
                                           r".*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, 4 * np_of(x))


def test_grad_frees_the_graph_too():
    x = leaf([1.0])
    y = (x * x).sum()
    grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        grad(y, x)


# ---- errors -------------------------------------------------------------------------------------

def test_backward_non_scalar_without_gradient():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar "
                                           "outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        grad(x * 2, x)


def test_backward_gradient_of_wrong_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r".*\[3\].* and output\[0\] has a shape of .*\[2\]"):
        (x * 2).backward(torch.ones(3, dtype=torch.float64))


def test_backward_on_tensor_without_grad():
    t = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does "
                                           "not have a grad_fn"):
        t.sum().backward()
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad(t.sum(), x)


def test_grad_with_respect_to_tensor_not_requiring_grad():
    x = leaf([1.0])
    c = torch.tensor([2.0], dtype=torch.float64)
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad((x * c).sum(), c)


def test_grad_requires_inputs():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `grad\(\)` cannot be empty\.$"):
        grad((x * 2).sum(), ())


# ---- tensor attributes -----------------------------------------------------------------------------

def test_requires_grad_and_is_leaf():
    t = torch.tensor([1.0, 2.0])
    assert not t.requires_grad and t.is_leaf
    assert t.requires_grad_() is t
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    t.requires_grad_(False)
    assert not t.requires_grad
    y = leaf([1.0]) * 2
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2]).requires_grad_()


def test_detach_shares_memory_and_has_no_history():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 10.0  # shares memory with y
    assert_close(y.detach(), np.array([10.0, 4.0]))


def test_detach_in_place():
    x = leaf([1.0, 2.0])
    y = x * 2
    assert y.detach_() is y
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf


def test_grad_fn_names_and_next_functions():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * w + x).exp().sum()
    assert y.grad_fn.name() == "SumBackward0"
    assert "SumBackward0" in repr(y.grad_fn)
    (e, _), = y.grad_fn.next_functions
    assert e.name() == "ExpBackward0"
    (a, _), = e.next_functions
    assert a.name() == "AddBackward0"
    (m, _), (acc_x, _) = a.next_functions
    assert m.name() == "MulBackward0"
    assert acc_x.name() == "torch::autograd::AccumulateGrad" and acc_x.variable is x
    (acc_x2, _), (acc_w, _) = m.next_functions
    assert acc_x2 is acc_x and acc_w.variable is w
    c = torch.tensor([1.0], dtype=torch.float64)
    z = x * c
    (_, _), (none, nr) = z.grad_fn.next_functions
    assert none is None and nr == 0


def test_repr_shows_grad_fn_or_requires_grad():
    x = leaf([1.0])
    assert "requires_grad=True" in repr(x)
    assert "grad_fn=<MulBackward0>" in repr(x * 2)


def test_retain_grad():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    (h * h).sum().backward()
    assert_close(h.grad, 2 * np_of(h))
    x.retain_grad()  # a no-op on a leaf
    with pytest.raises(RuntimeError, match="retain_grad"):
        torch.tensor([1.0]).retain_grad()


def test_register_hook_sees_and_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    h = x * 2
    h.register_hook(lambda g: seen.append(np_of(g).copy()))
    h.register_hook(lambda g: g * 10)  # replaces the gradient flowing on
    (h * h).sum().backward()
    assert_close(torch.tensor(seen[0]), 2 * np_of(h))
    assert_close(x.grad, 2 * np_of(h) * 10 * 2)


def test_hook_on_leaf_changes_what_accumulates():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 0.5)
    (x * 4).sum().backward()
    assert_close(x.grad, np.full(2, 2.0))


def test_hook_handle_remove():
    x = leaf([1.0])
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    (x * 2).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    assert calls == [1]
    handle.remove()  # twice is harmless


def test_hook_returning_a_non_tensor_is_refused():
    x = leaf([1.0])
    x.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="hook"):
        (x * 2).sum().backward()


def test_hook_on_tensor_without_grad_refused():
    with pytest.raises(RuntimeError, match="doesn't require grad|does not require grad"):
        torch.tensor([1.0]).register_hook(lambda g: g)


# ---- grad modes ----------------------------------------------------------------------------------

def test_no_grad_context():
    x = leaf([1.0])
    with torch.no_grad():
        y = x * 2
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_set_grad_enabled_function_and_context():
    x = leaf([1.0])
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        torch.set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_inference_mode():
    x = leaf([1.0])
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode(False):
        assert (x * 2).requires_grad


def test_modes_restore_on_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()


def test_modes_as_decorators():
    x = leaf([1.0])

    @torch.no_grad()
    def f1(t):
        return t * 2

    @torch.no_grad
    def f2(t):
        return t * 2

    @torch.enable_grad()
    def f3(t):
        return t * 2

    @torch.inference_mode()
    def f4(t):
        return t * 2

    @torch.set_grad_enabled(False)
    def f5(t):
        return t * 2
    # as PyTorch's: the mode set when the decorator was built is undone at
    # once, and holds only inside each call
    assert torch.is_grad_enabled()
    assert repr(torch.set_grad_enabled(True)).endswith("grad_mode.set_grad_enabled(mode=True)")

    assert not f1(x).requires_grad and not f2(x).requires_grad
    assert not f4(x).requires_grad and not f5(x).requires_grad
    with torch.no_grad():
        assert f3(x).requires_grad
    assert f1.__name__ == "f1"
    assert torch.is_grad_enabled()


def test_decorated_generator_keeps_the_mode_per_step():
    x = leaf([1.0])

    @torch.no_grad()
    def gen():
        for _ in range(3):
            yield (x * 2).requires_grad, torch.is_grad_enabled()

    it = gen()
    first = next(it)
    assert torch.is_grad_enabled()  # the caller's mode between steps
    rest = list(it)
    assert [first] + rest == [(False, False)] * 3
    assert torch.is_grad_enabled()


def test_decorated_generator_return_value_and_throw():
    @torch.no_grad()
    def gen():
        try:
            received = yield 1
            yield received * 2
        except KeyError:
            yield torch.is_grad_enabled()
        return "done"

    it = gen()
    assert next(it) == 1
    assert it.send(5) == 10
    with pytest.raises(StopIteration) as stop:
        next(it)
    assert stop.value.value == "done"
    it = gen()
    next(it)
    assert it.throw(KeyError) is False  # the handler ran in no_grad
    it.close()
    assert torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    results = {}
    ready, done = threading.Event(), threading.Event()

    def worker():
        ready.wait()
        results["worker"] = torch.is_grad_enabled()
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    with torch.no_grad():
        ready.set()
        done.wait()
        results["main"] = torch.is_grad_enabled()
    t.join()
    assert results == {"worker": True, "main": False}


# ---- in-place rules ----------------------------------------------------------------------------------

def test_in_place_on_leaf_requiring_grad_refused():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.mul_(2)
    with torch.no_grad():
        x.add_(1)  # allowed: an update of the parameter
    assert_close(x.detach(), np.array([2.0, 3.0]))


def test_version_counter_error_message():
    x = leaf([1.0, 2.0])
    h = x * 1
    y = h * h  # saves h
    assert h._version == 0
    h.add_(1)
    assert h._version == 1
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation "
                                           r"has been modified by an inplace operation: .*\[2\].*"
                                           r"float64.*MulBackward0, is at version 1; expected "
                                           r"version 0 instead"):
        y.sum().backward()


def test_in_place_on_non_leaf_is_recorded():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.mul_(3)
    assert h.grad_fn.name() == "MulBackward0"
    h.sum().backward()
    assert_close(x.grad, np.full(2, 6.0))


# ---- lifetime: no leaks --------------------------------------------------------------------------------

def test_graph_discarded_in_a_loop_keeps_memory_flat():
    x = leaf(np.ones(100_000))
    for _ in range(5):  # warm the allocator
        ((x * 2 + 1).exp() * x).sum().backward()
    before = rss_bytes()
    for _ in range(100):
        y = ((x * 2 + 1) * x).sum()
        y.backward()
        z = (x * x).exp()  # built and dropped without backward
        del y, z
    x.grad = None
    assert_rss_flat(before, slack=8 << 20, label="graphs in a loop")


def test_refcounts_return_to_baseline():
    x = leaf(np.ones(10))
    w = leaf(np.ones(10))
    bx, bw = sys.getrefcount(x), sys.getrefcount(w)
    gc.disable()
    try:
        for _ in range(20):
            y = ((x * w).exp() + x).sum()
            g = grad(y, (x, w), create_graph=True)
            del y, g
            z = (x * w).sum()
            z.backward()
            del z
        assert (sys.getrefcount(x), sys.getrefcount(w)) == (bx, bw)
    finally:
        gc.enable()


def test_graph_with_hooks_referencing_tensors_is_collected():
    x = leaf(np.ones(10))
    h = x * 2
    h.register_hook(lambda g: g * h.detach())  # h -> node -> hook -> h: a cycle
    probe = weakref.ref(h)
    node = weakref.ref(h) and h.grad_fn
    del h
    del node
    gc.collect()
    assert probe() is None


def test_retained_and_hooked_tensors_do_not_keep_graphs_alive():
    x = leaf(np.ones(10))
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    probe = weakref.ref(h)
    del h
    gc.collect()
    assert probe() is None


def test_backward_with_empty_inputs_raises():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).sum().backward(inputs=[])
