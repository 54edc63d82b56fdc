"""Smaller autograd features PyTorch code relies on: the legacy Variable,
is_tensor_like, the engine switches (set_multithreading_enabled, view replay),
Node.register_prehook, and selective activation checkpointing
(create_selective_checkpoint_contexts with CheckpointPolicy).  Messages are
PyTorch 2.15's; gradients are compared with the tape's own without
checkpointing (gradchecked elsewhere) and with NumPy."""
import functools
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn.functional as F
from torchlike.autograd import Variable
from torchlike.utils import checkpoint as cp
from torchlike.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                        create_selective_checkpoint_contexts)


def rand(*shape, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad)


# ---- Variable, is_tensor_like ----------------------------------------------------------

def test_variable_returns_a_new_leaf_sharing_data():
    t = torch.ones(2)
    v = Variable(t, requires_grad=True)
    assert type(v) is torch.Tensor and v is not t and v.is_leaf and v.requires_grad
    assert not t.requires_grad and v.data_ptr() == t.data_ptr()
    y = (t * 2).requires_grad_() * 3  # a tensor with history: Variable cuts it
    w = Variable(y)
    assert w.grad_fn is None and not w.requires_grad
    assert Variable().shape == (0,)
    assert isinstance(t, Variable) and isinstance(torch.nn.Parameter(t), Variable)
    assert not isinstance(3, Variable) and not issubclass(torch.Tensor, Variable)


def test_variable_errors_and_volatile():
    with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got int$"):
        Variable(3)
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        v = Variable(torch.ones(2), volatile=True)
    np.testing.assert_array_equal(v.numpy(), [1, 1])


def test_is_tensor_like():
    class TF:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    is_tensor_like = torch.autograd.is_tensor_like
    assert is_tensor_like(torch.ones(1)) and is_tensor_like(torch.nn.Parameter(torch.ones(1)))
    assert is_tensor_like(TF()) and not is_tensor_like(3) and not is_tensor_like([1.0])


# ---- switches ----------------------------------------------------------------------------

def test_multithreading_switch():
    gm = torch.autograd.grad_mode
    assert gm._is_multithreading_enabled()
    with torch.autograd.set_multithreading_enabled(False):
        assert not gm._is_multithreading_enabled()
        x = rand(3)
        (x * x).sum().backward()  # the engine runs as before
        np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())
    assert gm._is_multithreading_enabled()
    with pytest.raises(TypeError, match=r"^set_multithreading_enabled\(\): argument 'enabled' "
                                        r"\(position 1\) must be bool, not int$"):
        torch.autograd.set_multithreading_enabled(3)


def test_view_replay_switch():
    assert not torch.autograd.is_view_replay_enabled()
    with torch.autograd._force_original_view_tracking(True):
        assert torch.autograd.is_view_replay_enabled()

    @torch.autograd._force_original_view_tracking(True)
    def inside():
        return torch.autograd.is_view_replay_enabled()
    torch.autograd._force_original_view_tracking(False)
    assert inside() is True
    torch.autograd._force_original_view_tracking(False)
    assert not torch.autograd.is_view_replay_enabled()
    with pytest.raises(TypeError, match=r"^set_view_replay_enabled\(\): argument 'enabled'"):
        torch.autograd._force_original_view_tracking(3)


# ---- Node.register_prehook ---------------------------------------------------------------

def test_prehook_sees_and_replaces_grad_outputs_after_tensor_hooks():
    x = rand(2)
    y = x * 3
    order = []
    y.register_hook(lambda g: order.append("tensor"))

    def pre(grad_outputs):
        order.append(("node", type(grad_outputs), len(grad_outputs)))
        return (grad_outputs[0] * 10,)
    handle = y.grad_fn.register_prehook(pre)
    y.sum().backward()
    assert order == ["tensor", ("node", tuple, 1)]
    np.testing.assert_allclose(x.grad.numpy(), [30.0, 30.0])
    handle.remove()
    x.grad = None
    y = x * 3
    y.grad_fn.register_prehook(lambda go: None)  # None keeps the gradients
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_prehook_on_a_multi_output_node_and_removed():
    x = rand(4)
    a, b = x.split(2)
    seen = []

    def pre(go):
        seen.append([g is None for g in go])
        return (go[0], None if go[1] is None else go[1] * 0)
    handle = a.grad_fn.register_prehook(pre)
    (a.sum() + 2 * b.sum()).backward()
    assert seen == [[False, False]]
    np.testing.assert_allclose(x.grad.numpy(), [1, 1, 0, 0])
    handle.remove()
    x.grad = None
    a, b = x.split(2)
    (a.sum() + 2 * b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 1, 2, 2])
    assert len(seen) == 1


def test_prehook_on_accumulate_grad():
    x = rand(2)
    acc = (x * 1).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: (go[0] + 100,))
    (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [101.0, 101.0])


@pytest.mark.parametrize("hook, error, message", [
    # PyTorch's words for a tensor hook's bad replacement
    (lambda g: 3, TypeError, r"^expected Variable, but hook returned 'int'$"),
    (lambda g: g[:1], RuntimeError, r"^hook '<lambda>' has changed the size of value$"),
    (lambda g: g.float(), RuntimeError, r"^hook '<lambda>' has changed the type of value \(was "
                                        r"torchlike\.DoubleTensor got torchlike\.FloatTensor\)$"),
])
def test_tensor_hook_bad_results(hook, error, message):
    x = rand(2)
    x.register_hook(hook)
    with pytest.raises(error, match=message):
        (x * 3).sum().backward()


@pytest.mark.parametrize("hook, error, message", [
    (lambda go: (go[0], go[0]), RuntimeError,
     r"^hook '<lambda>' has returned an incorrect number of values \(got 2, but expected 1\)$"),
    (lambda go: 5, TypeError, r"^expected tuple, but hook returned 'int'$"),
    (lambda go: [go[0]], TypeError, r"^expected tuple, but hook returned 'list'$"),
    (lambda go: (go[0][:1],), RuntimeError, r"^hook '<lambda>' has changed the size of value"),
    (lambda go: ("a",), TypeError, r"^expected Tensor or None, but hook returned 'str'$"),
])
def test_prehook_bad_results(hook, error, message):
    x = rand(2)
    y = x * 3
    y.grad_fn.register_prehook(hook)
    with pytest.raises(error, match=message):
        y.sum().backward()


# ---- selective activation checkpointing ------------------------------------------------

@pytest.fixture
def op_runs(monkeypatch):
    """How many times each op really ran under a selective checkpoint's
    contexts (forward and recomputation), counted at the policy's seam."""
    runs = {}
    orig = cp._PolicyContext._call

    def counting(self, name, impl, args, kwargs):
        def run(*a, **k):
            runs[name] = runs.get(name, 0) + 1
            return impl(*a, **k)
        return orig(self, name, run, args, kwargs)
    monkeypatch.setattr(cp._PolicyContext, "_call", counting)
    return runs


def _model(x, w1, w2):
    h = torch.mm(x, w1).tanh()
    return torch.mm(h, w2).sin().sum()


def _grads(fn, *args):
    return [g.numpy() for g in torch.autograd.grad(fn(*args), args)]


@pytest.mark.parametrize("policy", ["list", "fn", "bool"])
def test_saved_ops_are_not_recomputed(op_runs, policy):
    x, w1, w2 = rand(4, 3), rand(3, 5, seed=1), rand(5, 2, seed=2)
    ref = _grads(_model, x, w1, w2)
    calls = []

    def policy_fn(ctx, op, *args, **kwargs):
        calls.append((ctx.is_recompute, str(op)))
        if policy == "bool":
            return op == "mm"
        return CheckpointPolicy.MUST_SAVE if op == torch.mm else CheckpointPolicy.PREFER_RECOMPUTE
    spec = ["aten.mm.default"] if policy == "list" else policy_fn
    context_fn = functools.partial(create_selective_checkpoint_contexts, spec)
    got = _grads(lambda *a: checkpoint(_model, *a, use_reentrant=False, context_fn=context_fn),
                 x, w1, w2)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    # forward ran each op once; the recomputation ran tanh and sin again, not mm
    assert op_runs["mm"] == 2 and op_runs["tanh"] == 2 and op_runs["sin"] == 2
    if policy != "list":
        assert calls == [(False, "aten.mm.default"), (False, "aten.tanh.default"),
                         (False, "aten.mm.default"), (False, "aten.sin.default"),
                         (False, "aten.sum.default")]


def test_recompute_everything_policy_runs_ops_twice(op_runs):
    x, w1, w2 = rand(4, 3), rand(3, 5, seed=1), rand(5, 2, seed=2)
    ref = _grads(_model, x, w1, w2)
    context_fn = functools.partial(create_selective_checkpoint_contexts,
                                   lambda ctx, op, *a, **k: CheckpointPolicy.MUST_RECOMPUTE)
    got = _grads(lambda *a: checkpoint(_model, *a, use_reentrant=False, context_fn=context_fn),
                 x, w1, w2)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    assert op_runs["mm"] == 4 and op_runs["tanh"] == 2 and op_runs["sin"] == 2


def test_saved_random_op_keeps_its_draw():
    # without the RNG state restored, a recomputed dropout draws a new mask;
    # saving it (the policy) keeps the forward's, so gradients match
    x = rand(200)

    def f(x):
        return (F.dropout(x.sin(), 0.5, training=True) * x).sum()

    torch.manual_seed(0)
    ref = torch.autograd.grad(f(x), x)[0].numpy()
    policy = functools.partial(
        create_selective_checkpoint_contexts,
        lambda ctx, op, *a, **k: (CheckpointPolicy.PREFER_SAVE if "dropout" in str(op)
                                  else CheckpointPolicy.PREFER_RECOMPUTE))
    torch.manual_seed(0)
    out = checkpoint(f, x, use_reentrant=False, preserve_rng_state=False, context_fn=policy)
    np.testing.assert_array_equal(torch.autograd.grad(out, x)[0].numpy(), ref)
    torch.manual_seed(0)
    out = checkpoint(f, x, use_reentrant=False, preserve_rng_state=False)
    assert not np.array_equal(torch.autograd.grad(out, x)[0].numpy(), ref)


def test_selective_checkpoint_twice_through_a_retained_graph(op_runs):
    x, w1, w2 = rand(4, 3), rand(3, 5, seed=1), rand(5, 2, seed=2)
    ref = _grads(_model, x, w1, w2)
    context_fn = functools.partial(create_selective_checkpoint_contexts, [torch.mm])
    out = checkpoint(_model, x, w1, w2, use_reentrant=False, context_fn=context_fn)
    for _ in range(2):
        got = torch.autograd.grad(out, (x, w1, w2), retain_graph=True)
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a.numpy(), b, rtol=1e-13, atol=1e-15)
    assert op_runs["mm"] == 2 and op_runs["tanh"] == 3


def test_selective_checkpoint_errors():
    with pytest.raises(TypeError, match="^policy_fn_or_list must be either a function or a "
                                        "list of ops.$"):
        create_selective_checkpoint_contexts(3)
    with pytest.raises(ValueError, match=r"^Expected op in `op_list` to be an OpOverload but "
                                         r"got: 3 of type <class 'int'>. $"):
        create_selective_checkpoint_contexts([3])
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            checkpoint(_model, rand(1, 3), rand(3, 5), rand(5, 2), use_reentrant=True,
                       context_fn=functools.partial(create_selective_checkpoint_contexts, []))
