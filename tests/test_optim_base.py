"""The Optimizer base class (groups, errors, zero_grad, hooks, closures),
LBFGS against PyTorch's golden runs, and the multi-tensor binding's checks."""
import os

import numpy as np
import pytest

import torchlike
import torchlike.optim as optim
from torchlike.optim.optimizer import (register_optimizer_step_post_hook,
                                       register_optimizer_step_pre_hook)
from optim_problems import rosenbrock_loss, rosenbrock_start

LBFGS_GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "golden", "optim", "lbfgs.npz"))


def leaf(*shape, value=1.0, dtype=torchlike.float32):
    return torchlike.full(shape, value, dtype=dtype).requires_grad_()


def quadratic_grad(params):
    for p in params:
        p.grad = p.detach() * 2


# ---- construction errors --------------------------------------------------------------
def test_duplicate_parameter_in_a_group_warns_and_steps_per_appearance():
    # PyTorch warns and keeps the duplicate (old code lists tied weights
    # twice): each step updates such a tensor once per appearance
    p, q = leaf(2), leaf(1)
    with pytest.warns(UserWarning, match="duplicate parameters; in future, this will cause"):
        opt = optim.SGD([p, q, p], lr=0.1)
    quadratic_grad([p, q])
    opt.step()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.6, 0.6], rtol=1e-6)   # 1 - 2 * 0.2
    np.testing.assert_allclose(q.detach().cpu().numpy(), [0.8], rtol=1e-6)


def test_parameter_in_two_groups_raises():
    p, q = leaf(2), leaf(3)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [q, p]})
    assert len(opt.param_groups) == 1


def test_non_leaf_raises():
    p = leaf(2)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.Adam([p * 2])


@pytest.mark.parametrize("dtype", [torchlike.int64, torchlike.int32, torchlike.bool])
def test_non_float_params_are_accepted_and_left_alone(dtype):
    # PyTorch checks only that a parameter is a leaf: an integer tensor (a
    # state-dict value passed by mistake) is taken and never stepped, since
    # it cannot have a gradient (training programs, round seven)
    t = torchlike.ones(3, dtype=dtype)
    p = leaf(2)
    opt = optim.Adam([t, p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    opt.zero_grad()
    assert t.tolist() == [1, 1, 1] and t.dtype == dtype
    assert len(opt.state) == 1 and p in opt.state


@pytest.mark.parametrize("params, error, match", [
    (lambda: leaf(2), TypeError, "iterable of Tensors or dicts"),
    (lambda: [], ValueError, "empty parameter list"),
    (lambda: [leaf(2), 3.0], TypeError, "can only optimize Tensors"),
])
def test_bad_params(params, error, match):
    with pytest.raises(error, match=match):
        optim.SGD(params(), lr=0.1)


@pytest.mark.parametrize("make, match", [
    (lambda p: optim.SGD(p, lr=-1), "Invalid learning rate"),
    (lambda p: optim.SGD(p, nesterov=True), "Nesterov momentum requires"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.9)), "beta parameter at index 0"),
    (lambda p: optim.Adam(p, eps=-1), "epsilon"),
    (lambda p: optim.AdamW(p, weight_decay=-1), "weight_decay"),
    (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "eta values"),
])
def test_bad_options(make, match):
    with pytest.raises(ValueError, match=match):
        make([leaf(2)])


def test_lbfgs_refuses_another_line_search_when_it_steps():
    """As PyTorch: the constructor takes any line_search_fn and the step
    refuses it when it reaches the line search (RuntimeError); it was a
    ValueError from the constructor here (training programs, round seven)."""
    p = leaf(2)
    opt = optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(closure)


@pytest.mark.parametrize("make", [optim.SGD, optim.Adam, optim.AdamW, optim.Adagrad])
def test_fused_refuses_foreach_and_differentiable(make):
    # PyTorch's refusals once the groups exist; accepted silently before
    # (training programs, round seven)
    with pytest.raises(RuntimeError, match="^`fused` and `foreach` cannot be `True` together.$"):
        make([leaf(2)], lr=0.1, fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="^`fused` does not support `differentiable`$"):
        make([leaf(2)], lr=0.1, fused=True, differentiable=True)
    make([leaf(2)], lr=0.1, fused=True, foreach=False)


def test_a_set_of_parameters_is_refused():
    opt = optim.SGD([leaf(2)], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {leaf(3)}})


def test_lbfgs_refuses_groups():
    with pytest.raises(ValueError, match="per-parameter options"):
        optim.LBFGS([{"params": [leaf(2)]}, {"params": [leaf(3)], "lr": 0.1}])


# ---- groups -----------------------------------------------------------------------------
def test_per_group_options_and_defaults():
    a, b = leaf(2), leaf(3)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert [g["momentum"] for g in opt.param_groups] == [0, 0.9]
    assert opt.param_groups[1]["params"] == [b] or opt.param_groups[1]["params"][0] is b
    quadratic_grad([a, b])
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach().cpu()), 1 - 0.1 * 2)
    np.testing.assert_allclose(np.asarray(b.detach().cpu()), 1 - 0.5 * 2)
    c = leaf(1)
    opt.add_param_group({"params": [c], "lr": 0.25})
    assert opt.param_groups[2]["momentum"] == 0 and opt.param_groups[2]["lr"] == 0.25


def test_named_parameters_are_kept():
    a, b = leaf(2), leaf(3)
    opt = optim.Adam([("layer.weight", a), ("layer.bias", b)])
    assert opt.param_groups[0]["param_names"] == ["layer.weight", "layer.bias"]
    assert opt.param_groups[0]["params"][0] is a
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["layer.weight", "layer.bias"]
    with pytest.raises(ValueError, match="with/without names"):
        opt.add_param_group({"params": [leaf(1)]})


def test_required_option():
    class Custom(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": optim.optimizer.required})
    with pytest.raises(ValueError, match="didn't specify a value of required .* lr"):
        Custom([leaf(2)])


def test_state_dict_numbers_parameters_across_groups():
    a, b, c = leaf(2), leaf(3), leaf(1)
    opt = optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.5}])
    quadratic_grad([a, c])  # b has no gradient: no state
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sorted(sd["state"]) == [0, 2]
    step = sd["state"][0]["step"]
    assert isinstance(step, torchlike.Tensor) and step.dtype == torchlike.float32
    assert step.ndim == 0 and step.item() == 1.0
    assert sd["param_groups"][1]["lr"] == 0.5


def test_load_state_dict_mismatch_raises():
    opt = optim.SGD([leaf(2), leaf(3)], lr=0.1)
    other = optim.SGD([leaf(2)], lr=0.1)
    # PyTorch's words, whole
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group$"):
        other.load_state_dict(opt.state_dict())
    two = optim.SGD([{"params": [leaf(2)]}, {"params": [leaf(2)]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict has a different number of parameter "
                                         "groups$"):
        other.load_state_dict(two.state_dict())


def test_load_state_dict_casts_state_and_shares_what_needs_no_cast():
    a = leaf(3)
    opt = optim.Adam([a])
    quadratic_grad([a])
    opt.step()
    sd = opt.state_dict()
    b = leaf(3, dtype=torchlike.float64)
    opt2 = optim.Adam([b])
    opt2.load_state_dict(sd)
    state = opt2.state[b]
    assert state["exp_avg"].dtype == torchlike.float64      # follows the parameter
    assert state["step"].dtype == torchlike.float32         # the counter keeps its dtype
    np.testing.assert_allclose(np.asarray(state["exp_avg"].cpu()), np.asarray(sd["state"][0]["exp_avg"].cpu()))
    assert state["exp_avg"] is not sd["state"][0]["exp_avg"]   # a cast makes a new tensor
    # What needs no cast is taken as it is, as PyTorch does: the step counter,
    # and every tensor for a parameter of the same dtype, so the two
    # optimizers share them (an in-place step of one shows in the other)
    assert state["step"] is sd["state"][0]["step"]
    c = leaf(3)
    opt3 = optim.Adam([c])
    opt3.load_state_dict(sd)
    assert opt3.state[c]["exp_avg"] is opt.state[a]["exp_avg"]
    quadratic_grad([b])
    opt2.step()
    assert opt.state[a]["step"].item() == 2.0 == opt3.state[c]["step"].item()


# ---- zero_grad, closure, hooks ----------------------------------------------------------
def test_zero_grad():
    a = leaf(3)
    opt = optim.SGD([a], lr=0.1)
    quadratic_grad([a])
    opt.zero_grad(set_to_none=False)
    assert a.grad is not None and not np.asarray(a.grad.cpu()).any()
    opt.zero_grad()
    assert a.grad is None


def test_closure_is_called_with_grad_enabled_and_its_loss_returned():
    a = leaf(3, value=2.0)
    opt = optim.Adam([a], lr=0.1)
    seen = []

    def closure():
        seen.append(torchlike.is_grad_enabled())
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss
    with torchlike.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert loss.item() == 12.0
    assert np.all(np.asarray(a.detach().cpu()) < 2.0)


def test_step_hooks():
    a = leaf(2)
    opt = optim.SGD([a], lr=0.1)
    calls = []

    def pre(o, args, kwargs):
        calls.append(("pre", o is opt))
        return (), {"closure": None}

    def post(o, args, kwargs):
        calls.append(("post", kwargs))
    h1 = opt.register_step_pre_hook(pre)
    h2 = opt.register_step_post_hook(post)
    g1 = register_optimizer_step_pre_hook(lambda o, a_, k: calls.append("global-pre"))
    g2 = register_optimizer_step_post_hook(lambda o, a_, k: calls.append("global-post"))
    try:
        quadratic_grad([a])
        opt.step()
    finally:
        g1.remove()
        g2.remove()
    assert calls == ["global-pre", ("pre", True), ("post", {"closure": None}), "global-post"]
    h1.remove()
    h2.remove()
    calls.clear()
    opt.step()
    assert calls == []


def test_pre_hook_bad_return_raises():
    opt = optim.SGD([leaf(2)], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()


# ---- the multi-tensor path ---------------------------------------------------------------
@pytest.mark.host_only  # the multi-tensor kernel is the CPU's
def test_non_contiguous_parameters_take_the_per_parameter_path(monkeypatch):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    called = []
    kernel = torchlike._C._optim_step
    monkeypatch.setattr(torchlike._C, "_optim_step",
                        lambda *a: called.append(1) or kernel(*a))
    p = torchlike.tensor(base.T.copy()).requires_grad_()
    q = torchlike.tensor(base).T.detach().requires_grad_()  # a transposed view
    assert not q.is_contiguous()
    results = []
    for t in (p, q):
        opt = optim.Adam([t], lr=0.1)
        for _ in range(3):
            t.grad = t.detach() * 2
            opt.step()
        results.append(np.asarray(t.detach().cpu()))
    assert len(called) == 3  # only the contiguous one used the kernel
    assert np.array_equal(results[0], results[1])


def test_mixed_dtypes_in_a_group_fall_back():
    a, b = leaf(3), leaf(3, dtype=torchlike.float64)
    opt = optim.Adam([a, b], lr=0.1)
    quadratic_grad([a, b])
    opt.step()
    np.testing.assert_allclose(np.asarray(a.detach().cpu()), np.asarray(b.detach().cpu()), rtol=1e-6)


@pytest.mark.host_only  # the multi-tensor kernel is the CPU's
def test_kernel_checks_its_inputs():
    p = leaf(3)
    p.grad = torchlike.ones(3)
    group = {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0}
    with pytest.raises(ValueError, match="unknown optimizer"):
        torchlike._C._optim_step("adamz", group, [p], [p.grad], [], [], None)
    with pytest.raises(ValueError, match="takes 3 buffer lists"):
        torchlike._C._optim_step("adam", group, [p], [p.grad], [], [], None)
    with pytest.raises(ValueError, match="grad 0 must be a contiguous CPU tensor of 3"):
        torchlike._C._optim_step("adam", group, [p], [torchlike.ones(4)],
                                 [[torchlike.zeros(3)], [torchlike.zeros(3)], [None]],
                                 [[torchlike.tensor(0.0)]], None)
    with pytest.raises(ValueError, match="needs state buffer 1"):
        torchlike._C._optim_step("adam", group, [p], [p.grad],
                                 [[torchlike.zeros(3)], [None], [None]],
                                 [[torchlike.tensor(0.0)]], None)
    with pytest.raises(ValueError, match="state scalar 0"):
        torchlike._C._optim_step("adam", group, [p], [p.grad],
                                 [[torchlike.zeros(3)], [torchlike.zeros(3)], [None]],
                                 [[torchlike.tensor(0.0, dtype=torchlike.float64)]], None)


def test_in_place_step_is_seen_by_autograd():
    a = leaf(3)
    y = a * a  # saves a
    opt = optim.SGD([a], lr=0.1)
    a.grad = torchlike.ones(3)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation|version"):
        y.sum().backward()


# ---- LBFGS --------------------------------------------------------------------------------
@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("line_search", ["strong_wolfe", None])
def test_lbfgs_matches_pytorch(line_search, complex_):
    """complex_: the same four reals held by a complex parameter of two
    elements, which LBFGS steps as its pairs of reals (as PyTorch does), so
    the trajectory is the real one."""
    golden = LBFGS_GOLDEN[str(line_search)]
    x = torchlike.tensor(rosenbrock_start(), dtype=torchlike.float64)
    if complex_:
        x = torchlike.view_as_complex(x.reshape(2, 2)).clone()
    x.requires_grad_()
    reals = (lambda: torchlike.view_as_real(x).reshape(-1)) if complex_ else (lambda: x)
    opt = optim.LBFGS([x], lr=1 if line_search else 0.05, max_iter=10, history_size=5,
                      line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = rosenbrock_loss(reals())
        loss.backward()
        return loss
    rows = [np.array(reals().detach().cpu())]
    for _ in range(6):
        opt.step(closure)
        rows.append(np.array(reals().detach().cpu()))
    # Dot products sum in another order than PyTorch's, and the line search
    # amplifies that near the minimum: agreement is to about 1e-9.
    np.testing.assert_allclose(np.stack(rows), golden, rtol=1e-7, atol=1e-10)
    assert opt.state[x]["func_evals"] == LBFGS_GOLDEN[f"{line_search}/func_evals"]
    assert opt.state[x]["n_iter"] == LBFGS_GOLDEN[f"{line_search}/n_iter"]


@pytest.mark.parametrize("dtype", [torchlike.float64, torchlike.float32])
def test_lbfgs_strong_wolfe_minimises_rosenbrock(dtype):
    x = torchlike.tensor(rosenbrock_start(), dtype=dtype, requires_grad=True)
    y = torchlike.tensor([0.5], dtype=dtype, requires_grad=True)  # a second parameter
    opt = optim.LBFGS([x, y], line_search_fn="strong_wolfe", max_iter=50, history_size=10,
                      tolerance_grad=1e-12, tolerance_change=1e-15)

    def closure():
        opt.zero_grad()
        loss = rosenbrock_loss(x) + ((y - 3) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(10):
        opt.step(closure)
    assert float(closure()) < 1e-8
    np.testing.assert_allclose(np.asarray(x.detach().cpu()), 1.0, atol=1e-4)


def test_lbfgs_needs_a_closure():
    # a required argument, as in PyTorch: step() is Python's own TypeError
    with pytest.raises(TypeError, match=r"^LBFGS\.step\(\) missing 1 required positional "
                                        r"argument: 'closure'$"):
        optim.LBFGS([leaf(2)]).step()
    with pytest.raises(RuntimeError, match="closure"):
        optim.LBFGS([leaf(2)]).step(None)


def test_lbfgs_state_dict_round_trip_resumes():
    def make(values):
        x = torchlike.tensor(values, dtype=torchlike.float64, requires_grad=True)
        opt = optim.LBFGS([x], max_iter=4, history_size=3, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = rosenbrock_loss(x)
            loss.backward()
            return loss
        return x, opt, closure
    x, opt, closure = make(rosenbrock_start())
    for _ in range(2):
        opt.step(closure)
    from torchlike.optim.optimizer import _copy_state_value
    saved = _copy_state_value(opt.state_dict())
    x2, opt2, closure2 = make(np.asarray(x.detach().cpu()).tolist())
    opt2.load_state_dict(saved)
    for _ in range(2):
        opt.step(closure)
        opt2.step(closure2)
    assert np.array_equal(np.asarray(x.detach().cpu()), np.asarray(x2.detach().cpu()))


@pytest.mark.parametrize("cls, kwargs", [
    (optim.SGD, {"lr": 0.1, "momentum": 0.9}), (optim.Adam, {"amsgrad": True}),
    (optim.RMSprop, {"centered": True}), (optim.Rprop, {}), (optim.ASGD, {"t0": 1}),
])
def test_scalar_empty_and_gradless_parameters(cls, kwargs):
    results = []
    for foreach in (None, False):
        scalar = torchlike.tensor(1.5).requires_grad_()
        empty = torchlike.zeros((0, 3)).requires_grad_()
        unused = leaf(2)
        opt = cls([scalar, empty, unused], foreach=foreach, **kwargs)
        for _ in range(3):
            opt.zero_grad()
            ((scalar - 4) ** 2 + empty.sum()).backward()
            opt.step()
        assert unused.grad is None and unused not in opt.state
        assert empty.shape == (0, 3) and scalar.ndim == 0
        results.append(scalar.item())
    assert results[0] == results[1] and results[0] != 1.5


def test_threads_do_not_change_the_result():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((3, 200_000)).astype(np.float32)
    grads = rng.standard_normal((3, 200_000)).astype(np.float32)
    out = []
    before = torchlike.get_num_threads()
    try:
        for threads in (1, 2):
            torchlike.set_num_threads(threads)
            params = [torchlike.tensor(v).requires_grad_() for v in values]
            opt = optim.NAdam(params, weight_decay=0.1)
            for _ in range(2):
                for p, g in zip(params, grads):
                    p.grad = torchlike.tensor(g)
                opt.step()
            out.append(np.stack([np.asarray(p.detach().cpu()) for p in params]))
    finally:
        torchlike.set_num_threads(before)
    assert np.array_equal(out[0], out[1])


def test_lbfgs_line_search_is_bounded_by_max_eval():
    """PyTorch gives the strong-Wolfe search only the evaluations max_eval
    leaves (max_eval - those so far); it had its own 25 here, so a step of a
    hard problem evaluated the closure more often than PyTorch's (training
    programs, round seven).  A step may take one more than max_eval (the
    search's first evaluation is unconditional)."""
    x = torchlike.tensor(rosenbrock_start(), dtype=torchlike.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", lr=50.0, max_iter=3, max_eval=3)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = rosenbrock_loss(x)
        loss.backward()
        return loss
    for _ in range(4):
        before = len(calls)
        opt.step(closure)
        assert len(calls) - before <= 4
    assert opt.state[x]["func_evals"] == len(calls)


def test_lbfgs_state_holds_pytorchs_kinds_of_value():
    """As PyTorch stores them: H_diag, ro and the two-loop coefficients al
    (history_size slots, kept in the state) are 0-d tensors of the
    parameters' dtype, the first step length a 0-d tensor when 1/|g|_1 is
    below 1; a checkpoint of the state then holds what PyTorch's holds."""
    x = torchlike.tensor([3.0, -2.0], requires_grad=True)
    opt = optim.LBFGS([x], max_iter=3, history_size=4, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (x ** 4).sum() + (x[0] * x[1]) ** 2
        loss.backward()
        return loss
    opt.step(closure)
    st = opt.state[x]
    assert isinstance(st["H_diag"], torchlike.Tensor) and st["H_diag"].dim() == 0
    assert st["H_diag"].dtype == torchlike.float32
    assert all(isinstance(r, torchlike.Tensor) and r.dim() == 0 for r in st["ro"])
    assert len(st["al"]) == 4 and isinstance(st["al"][0], torchlike.Tensor)
    assert st["al"][3] is None    # slots past the pairs kept so far
    assert isinstance(st["prev_loss"], float)


def test_load_state_dict_fills_only_the_switches():
    """PyTorch's optimizers fill in a loaded group's missing switches (bool
    or None options: maximize, nesterov, foreach ...) but not its
    hyperparameters: SGD given Adam's state dict has no momentum and its
    step raises KeyError, where it took its constructor's value here
    before (training programs, round seven)."""
    a = leaf(3)
    adam = optim.Adam([a], lr=0.01)
    quadratic_grad([a])
    adam.step()
    sgd = optim.SGD([a], lr=0.1, momentum=0.9)
    sgd.load_state_dict(adam.state_dict())
    group = sgd.param_groups[0]
    assert "momentum" not in group and "dampening" not in group
    assert group["nesterov"] is False and group["lr"] == 0.01
    with pytest.raises(KeyError, match="momentum"):
        sgd.step()
    sd = optim.SGD([a], lr=0.1).state_dict()
    del sd["param_groups"][0]["maximize"]     # saved before the switch existed
    fresh = optim.SGD([a], lr=0.1)
    fresh.load_state_dict(sd)
    assert fresh.param_groups[0]["maximize"] is False


def test_integer_parameter_is_refused_in_pytorchs_words():
    # nn.Parameter(int tensor) said "only Tensors ..." in lower case; PyTorch's
    # sentence starts "Only", as torchlike's factories already did
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        torchlike.nn.Parameter(torchlike.arange(3))


@pytest.mark.parametrize("make, message", [
    (lambda ps: optim.Adam(ps), "Adam does not support sparse gradients, please consider "
                                "SparseAdam instead"),
    (lambda ps: optim.AdamW(ps), "Adam does not support sparse gradients, please consider "
                                 "SparseAdam instead"),
    (lambda ps: optim.RMSprop(ps), "RMSprop does not support sparse gradients"),
    (lambda ps: optim.NAdam(ps), "NAdam does not support sparse gradients"),
])
def test_sparse_gradients_refused_in_pytorchs_words(make, message):
    """An Embedding(sparse=True) given to an optimizer without a sparse
    path: PyTorch's sentence, where a subtraction deep in the step raised
    before (training programs, round seven); Adagrad takes it."""
    emb = torchlike.nn.Embedding(5, 3, sparse=True)
    emb(torchlike.tensor([1, 3])).sum().backward()
    with pytest.raises(RuntimeError, match="^" + message + "$"):
        make(emb.parameters()).step()
    optim.Adagrad(emb.parameters(), lr=0.1).step()


def test_state_of_a_replaced_parameter_is_refused_as_pytorchs_step_does():
    """p.data swapped for another shape after a step: PyTorch's step fails
    broadcasting the old state against the new gradient, a RuntimeError
    naming the sizes (the C kernel's ValueError before; training programs,
    round seven)."""
    p = leaf(2, 3)
    opt = optim.Adam([p], lr=0.1)
    quadratic_grad([p])
    opt.step()
    p.data = torchlike.zeros(4)
    p.grad = torchlike.ones(4)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1$"):
        opt.step()
