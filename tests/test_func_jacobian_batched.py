"""Jacobians from one batched reverse pass: torchlike.func.jacrev / jacfwd /
hessian and autograd.functional.jacobian / hessian(vectorize=True)
(torchlike/func/_eager_transforms.py, _batched_rows).

The batched path records f a second time under a vmap level of one element
per Jacobian row and backpropagates the one-hot basis as a batched
cotangent; the reference is the loop of one vjp per row on the first graph
(``_batched.enabled = False``).  Checked here: PyTorch's recorded results
(tests/golden/func.json) with every Jacobian of two rows or more sent down
the batched path, which path ran, equality with the loop (values, dtypes,
pytrees, argnums, has_aux, chunk_size), central differences, and the cases
that must fall back to the loop: a random draw, an in-place write, a
value-dependent call, an op without a batching rule (batched, per element
inside the run)."""
import json
import os
import sys

import numpy as np
import pytest

import torchlike as T
from torchlike import func
from torchlike.autograd import functional as AF
from torchlike.func import _batched, _eager_transforms
from torchlike.func._pytree import tree_flatten

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from golden_func import leaves, run_case, structure  # noqa: E402
from test_func_transforms import _fd_jacobian as _fd  # noqa: E402

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "func.json")) as _f:
    GOLDEN = json.load(_f)
INPUTS = {k: np.asarray(v) for k, v in GOLDEN["inputs"].items()}
JACOBIAN_CASES = [c for c in GOLDEN["cases"]
                  if any(w in c[1] for w in ("jacrev", "jacfwd", "hessian", "jacobian"))]
# cases with no Jacobian of two rows or more (or chunk_size=1): the loop runs
LOOP_ONLY = {"jacrev_empty_out", "jacrev_scalar_out",
             "jacrev_rows10_chunk1", "jacrev_item"}


def _host(t):
    return t.detach().cpu().numpy()


@pytest.fixture
def small_batches(monkeypatch):
    """Every Jacobian of two rows or more on the batched path."""
    monkeypatch.setattr(_eager_transforms, "min_batched_rows", 2)


def _counts():
    return _batched.stats["jacobian_batched"], _batched.stats["jacobian_gave_up"]


@pytest.mark.parametrize("name,code,shape,want", JACOBIAN_CASES,
                         ids=[c[0] for c in JACOBIAN_CASES])
def test_batched_rows_match_pytorch(small_batches, name, code, shape, want):
    batched, gave_up = _counts()
    result = run_case(T, code, INPUTS)
    batched, gave_up = _counts()[0] - batched, _counts()[1] - gave_up
    if name == "jacrev_item":  # .item() inside: the batched run gives up, the loop answers
        assert (batched, gave_up) == (0, 1)
    elif name in LOOP_ONLY:
        assert (batched, gave_up) == (0, 0)
    else:
        assert batched > 0 and gave_up == 0, (batched, gave_up)
    assert structure(result, T.Tensor) == shape
    got = leaves(result)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, list) and len(w) == 2 and isinstance(w[0], list):
            assert list(g.shape) == w[0]
            np.testing.assert_allclose(_host(g), np.asarray(w[1], dtype=np.float64).reshape(w[0]),
                                       rtol=1e-10, atol=1e-12)
        else:
            assert g == w


# ---- the batched path against the loop -----------------------------------------------------

def _both(fn, *args):
    """fn(*args) on the batched path (asserted to have run) and on the loop."""
    batched = _counts()[0]
    got = fn(*args)
    assert _counts()[0] == batched + 1
    _batched.enabled = False
    try:
        want = fn(*args)
    finally:
        _batched.enabled = True
    return got, want


def _assert_same_tree(got, want):
    g, gs = tree_flatten(got)
    w, ws = tree_flatten(want)
    assert gs == ws
    for a, b in zip(g, w):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_allclose(_host(a), _host(b), rtol=1e-12, atol=1e-13)


_rng = np.random.default_rng(11)


def _t(*shape, dtype=T.float64):
    return T.tensor(_rng.standard_normal(shape).tolist(), dtype=dtype)


@pytest.mark.parametrize("case", ["float32", "noncontiguous", "0d_input", "int_output_mixed",
                                  "two_outputs_chunks", "matrix"])
def test_batched_rows_equal_the_loop(case):
    if case == "float32":
        fn, args = func.jacrev(lambda v: (v.sin() * v.sum()).double()), (_t(9, dtype=T.float32),)
    elif case == "noncontiguous":
        fn, args = func.jacrev(lambda A: A.exp() * A[0]), (_t(4, 3).t(),)
    elif case == "0d_input":
        fn, args = func.jacrev(lambda s: T.stack([s * k for k in range(9)]).cos()), (_t(),)
    elif case == "int_output_mixed":
        # an output without grad (from the tape's view) gives zeros
        fn = func.jacrev(lambda v: (v.exp(), (v > 0).double(), v[:3].sum()))
        args = (_t(8),)
    elif case == "two_outputs_chunks":
        fn = func.jacrev(lambda a, b: ((a[:, None] * b).tanh(), a.sum() * b), argnums=(0, 1),
                         chunk_size=5)
        args = (_t(3), _t(4))
    else:
        fn, args = func.jacfwd(lambda A: T.softmax(A @ A.t(), 1)), (_t(3, 3),)
    got, want = _both(fn, *args)
    _assert_same_tree(got, want)


@pytest.mark.parametrize("chunk", [None, 1, 2, 3, 7, 100])
def test_chunk_size_splits_the_basis(chunk):
    calls = []

    def f(v):
        calls.append(1)
        return v.sin() * v.sum()
    x = _t(10)
    got = func.jacrev(f, chunk_size=chunk)(x)
    want = np.diag(np.cos(_host(x)) * _host(x).sum()) + np.sin(_host(x))[:, None]
    np.testing.assert_allclose(_host(got), want, rtol=1e-12, atol=1e-13)
    # the first recording, then one batched recording per chunk (none for chunk_size 1)
    runs = 0 if chunk == 1 else -(-10 // min(chunk or 10, 10))
    assert len(calls) == 1 + runs


# ---- central differences -----------------------------------------------------------------



def test_jacobians_and_hessians_match_central_differences():
    x = _t(10)

    def f(v):
        return (v.reshape(2, 5) @ v[:5].exp()).tanh().repeat(5) * v.softmax(0)

    def scalar(v):
        return (f(v) ** 2).sum() + v.norm()
    batched = _counts()[0]
    want = _fd(f, x)
    for J in (func.jacrev(f)(x), func.jacfwd(f)(x), AF.jacobian(f, x, vectorize=True)):
        np.testing.assert_allclose(_host(J), want, rtol=1e-6, atol=1e-8)
    want = _fd(func.grad(scalar), x, eps=1e-5)
    for H in (func.hessian(scalar)(x), AF.hessian(scalar, x, vectorize=True)):
        np.testing.assert_allclose(_host(H), want, rtol=1e-5, atol=1e-7)
    assert _counts()[0] == batched + 5


def test_batched_jacobian_is_differentiable():
    # inside grad the rows are taken with create_graph: d/dx sum(J) by central differences
    x = _t(9)

    def total(v):
        return func.jacrev(lambda u: u.sin() * u.prod())(v).sum()
    np.testing.assert_allclose(_host(func.grad(total)(x)), _fd(total, x), rtol=1e-6, atol=1e-8)
    J = AF.jacobian(lambda a: a.exp() * a.sum(), x, vectorize=True, create_graph=True)
    assert J.requires_grad
    xg = x.clone().requires_grad_()
    g, = T.autograd.grad(AF.jacobian(lambda a: a.exp() * a.sum(), xg, vectorize=True,
                                     create_graph=True).sum(), xg)
    np.testing.assert_allclose(_host(g), _fd(lambda a: AF.jacobian(
        lambda b: b.exp() * b.sum(), a).sum(), x), rtol=1e-6, atol=1e-8)


# ---- what must not take the batched path -------------------------------------------------

def test_random_draw_falls_back_to_the_loop():
    # PyTorch's jacrev runs f once: the noise of that run is the one differentiated
    x = _t(9)
    T.manual_seed(3)
    batched, gave_up = _counts()
    J, noise = func.jacrev(lambda v: (v * (n := T.randn(9, dtype=T.float64)), n), has_aux=True)(x)
    assert _counts() == (batched, gave_up)
    np.testing.assert_array_equal(_host(J), np.diag(_host(noise)))
    T.manual_seed(3)
    np.testing.assert_array_equal(_host(noise), _host(T.randn(9, dtype=T.float64)))
    after_one_draw = T.get_rng_state()
    T.manual_seed(3)
    func.jacrev(lambda v: v * T.randn(9, dtype=T.float64))(x)
    assert T.equal(T.get_rng_state(), after_one_draw)  # f ran once


def test_in_place_write_falls_back_to_the_loop():
    seen = T.zeros(())
    x = _t(9)

    def f(v):
        seen.add_(1)
        return v.exp() * v[0]
    batched = _counts()[0]
    J = func.jacrev(f)(x)
    assert _counts()[0] == batched and seen.item() == 1
    want = np.diag(np.exp(_host(x)) * _host(x)[0])
    want[:, 0] += np.exp(_host(x))
    np.testing.assert_allclose(_host(J), want, rtol=1e-12)


def test_op_without_batching_rule_runs_per_element_inside_the_batched_run():
    A = _t(3, 3)
    loops = dict(_batched.stats["op_loops"])
    got, want = _both(func.jacrev(lambda M: M * T.diag(M).prod() + T.linalg.det(M)), A)
    _assert_same_tree(got, want)
    assert sum(_batched.stats["op_loops"].values()) > sum(loops.values())


def test_jacfwd_randomness_error_still_raises_and_same_uses_the_loop():
    x = _t(9)
    with pytest.raises(RuntimeError, match="randomness"):
        func.jacfwd(lambda v: v * T.rand(9, dtype=T.float64))(x)
    batched = _counts()[0]
    J = func.jacfwd(lambda v: v + T.rand(9, dtype=T.float64), randomness="same")(x)
    assert _counts()[0] == batched
    np.testing.assert_array_equal(_host(J), np.eye(9))


def test_vectorize_matches_the_loop_with_tuples():
    a, b = _t(4), _t(5)

    def f(p, q):
        return (p[:, None] * q).sin(), q.cumsum(0) * p.sum()
    got = AF.jacobian(f, (a, b), vectorize=True)
    want = AF.jacobian(f, (a, b))
    _assert_same_tree(got, want)
    got = AF.jacobian(f, (a, b), vectorize=True, strategy="forward-mode")
    assert isinstance(got, list) and all(isinstance(r, list) for r in got)
    _assert_same_tree(tuple(tuple(r) for r in got), want)
    H = AF.hessian(lambda p, q: (p.exp().sum() * q.sin()).sum(), (a, b), vectorize=True)
    Hl = AF.hessian(lambda p, q: (p.exp().sum() * q.sin()).sum(), (a, b))
    _assert_same_tree(H, Hl)


@pytest.mark.parametrize("how", ["module", "closure", "functional_call", "argument"])
def test_module_state_updated_by_f_falls_back_to_the_loop(how):
    # a BatchNorm in training mode updates its running statistics once, as f runs once in PyTorch
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(4, 6), T.nn.BatchNorm1d(6)).double()
    x = _t(3, 4)
    if how == "module":
        fn, args = func.jacrev(m), (x,)
    elif how == "closure":
        fn, args = func.jacrev(lambda v: m(v).tanh()), (x,)
    elif how == "argument":
        fn, args = func.jacrev(lambda mod, v: mod(v), argnums=1), (m, x)
    else:
        p = {k: v.detach() for k, v in m.named_parameters()}
        fn, args = func.jacrev(lambda q, v: func.functional_call(m, q, (v,)), argnums=1), (p, x)
    batched = _counts()[0]
    J = fn(*args)
    assert _counts()[0] == batched
    assert m[1].num_batches_tracked.item() == 1 and J.shape == (3, 6, 3, 4)
    # one update of the running mean (momentum 0.1 from zeros)
    np.testing.assert_allclose(_host(m[1].running_mean), 0.1 * _host(m[0](x)).mean(0),
                               rtol=1e-12, atol=1e-14)
