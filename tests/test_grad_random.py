"""Autograd of calls that are not differentiable functions, against PyTorch's
recorded behaviour (tests/golden/random_grad.json, scripts/golden_random_grad.py):
random draws from parameters that require grad and in-place draws into a
tensor in a graph get PyTorch's nodes and zero gradients (NormalBackward3,
BernoulliBackward1 ...), the draws PyTorch has no derivative for and ops like
geqrf, heaviside, bincount, unique, linalg.ldl_* get a node whose backward
raises PyTorch's error, and bool negation raises a class both NumPy code
(TypeError) and PyTorch code (NotImplementedError) catch.  The one real
gradient, _standard_gamma's, is checked by finite differences."""
import builtins
import json
import os
import sys
import warnings

import pytest

import torchlike as T
from oracle import TEST_DEVICE

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
from golden_random_grad import (CALLS, GAMMA_ALPHA, GAMMA_X, describe_with, inputs,  # noqa: E402
                                kink_grads)

with open(os.path.join(HERE, "golden", "random_grad.json")) as f:
    _DATA = json.load(f)
GOLDEN = _DATA["calls"]

GRADCHECKED = ["_standard_gamma"]

_describe = describe_with(T)


def run(call):
    _describe.env = inputs(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _describe(eval(call, _describe.env))


def test_golden_covers_every_call():
    assert [c for c, _ in GOLDEN] == CALLS


# LDL (LAPACK's sytrf/sytrs) has no device kernel (docs/gpu.md): on a test
# device these calls refuse, naming the op and the device.
NO_DEVICE_KERNEL = ("ldl_factor", "ldl_solve")


@pytest.mark.parametrize("call,want", GOLDEN, ids=[c for c, _ in GOLDEN])
def test_as_pytorch(call, want):
    if TEST_DEVICE and any(name in call for name in NO_DEVICE_KERNEL):
        with pytest.raises(NotImplementedError, match=r"\(\): no kernel for device "):
            run(call)
        return
    if want[0] == "raises":
        cls = getattr(builtins, want[1])
        with pytest.raises(cls) as e:
            run(call)
        if "bool tensor" in want[2]:
            # one class for NumPy's except clauses and PyTorch's; our words
            assert type(e.value) is T.DtypeError and isinstance(e.value, TypeError)
            assert "with bool tensors is not supported" in str(e.value)
        else:
            assert str(e.value) == want[2]
        return
    got = run(call)
    assert got[1] == want[1], f"{call}: outputs (requires_grad, node)"
    if want[2] and want[2][0] == "raises":
        assert got[2][:2] == want[2][:2] and got[2][2] == want[2][2]
    else:
        assert got[2] == want[2], f"{call}: gradients"


# ---- values of the gradients ----------------------------------------------------------

def _leaf(values):
    return T.tensor(values, dtype=T.float64, requires_grad=True)


@pytest.mark.parametrize("draw", [
    lambda y: y.normal_(), lambda y: y.uniform_(-1, 1), lambda y: y.bernoulli_(0.5),
    lambda y: y.exponential_(), lambda y: y.cauchy_(), lambda y: y.log_normal_(),
    lambda y: y.geometric_(0.3), lambda y: y.random_(0, 4)])
def test_inplace_draw_cuts_the_history_it_overwrites(draw):
    """The draw's result does not depend on what it overwrote: d/ds of
    (draw into s * 2) * w + s is 1 (only the second term), never 2 w + 1."""
    s = _leaf([0.5, 1.5, -2.0])
    w = T.tensor([3.0, -1.0, 2.0], dtype=T.float64)
    y = draw(s * 2)
    (y * w + s).sum().backward()
    assert s.grad.tolist() == [1.0, 1.0, 1.0]


def test_draw_through_a_view_keeps_the_rest_of_the_base():
    s = _leaf([0.5, 1.5, -2.0, 4.0])
    y = s * 3
    y[1:3].normal_()
    (y * T.arange(1, 5, dtype=T.float64)).sum().backward()
    assert s.grad.tolist() == [3.0, 0.0, 0.0, 12.0]
    assert type(y.grad_fn).__name__ == "CopySlices"


def test_draws_give_zero_gradients_to_their_parameters():
    m, s, p = _leaf([0.5, -1.0]), _leaf([1.5, 0.2]), _leaf([0.3, 0.9])
    for out, params in ((T.normal(m, s), (m, s)), (T.poisson(s), (s,)), (T.bernoulli(p), (p,)),
                        (T.zeros(2, dtype=T.float64).bernoulli_(p), (p,))):
        grads = T.autograd.grad((out * 5).sum(), params)
        assert [g.tolist() for g in grads] == [[0.0, 0.0]] * len(params)


def test_bernoulli_into_a_mask_from_probabilities_that_require_grad():
    """The draw is made; PyTorch records it and has the bool tensor require
    grad, which no bool tensor can here: torchlike records nothing."""
    p = _leaf([0.0, 1.0, 1.0, 0.0])
    for dtype in (T.bool, T.int64, T.uint8):
        mask = T.zeros(4, dtype=dtype).bernoulli_(p)
        assert mask.tolist() == [0, 1, 1, 0] and not mask.requires_grad
    with pytest.raises(RuntimeError, match="cannot require grad"):  # other writes still refuse
        T.zeros(2, dtype=T.int64).copy_(p[:2])


def test_draws_still_draw_the_same_numbers():
    """Recording does not consume or change the stream: the same seed gives
    the same draws with and without parameters that require grad."""
    m, s = [0.5, -1.0, 2.0], [1.5, 0.2, 3.0]
    for f in (lambda a, b: T.normal(a, b), lambda a, b: T.poisson(b),
              lambda a, b: (b * 1).normal_(), lambda a, b: T._standard_gamma(b)):
        T.manual_seed(7)
        plain = f(T.tensor(m, dtype=T.float64), T.tensor(s, dtype=T.float64))
        T.manual_seed(7)
        recorded = f(_leaf(m), _leaf(s))
        assert recorded.requires_grad
        assert recorded.detach().tolist() == plain.tolist()


# ---- _standard_gamma: the implicit reparameterisation gradient --------------------------

def test_standard_gamma_grad_matches_pytorch():
    a = T.tensor(GAMMA_ALPHA, dtype=T.float64)
    x = T.tensor(GAMMA_X, dtype=T.float64)
    got = T._standard_gamma_grad(a, x)
    # PyTorch's is an approximation (series and asymptotic fits); ours the
    # exact derivative: they agree to a few parts in 10^5 at these points
    assert got.dtype == T.float64 and got.shape == (6,)
    for g, w in zip(got.tolist(), _DATA["gamma_grad"]):
        assert g == pytest.approx(w, rel=2e-4)


def test_standard_gamma_grad_by_finite_differences():
    """x(alpha) solves P(alpha, x) = u for the fixed uniform u of the draw, so
    dx/dalpha = -(dP/dalpha) / (dP/dx), both by central differences of the
    regularised incomplete gamma P (torchlike.special.gammainc)."""
    a = T.tensor(GAMMA_ALPHA[:4], dtype=T.float64)
    x = T.tensor(GAMMA_X[:4], dtype=T.float64)
    h = 1e-6
    P = T.special.gammainc
    dp_da = (P(a + h, x) - P(a - h, x)) / (2 * h)
    dp_dx = (P(a, x + h) - P(a, x - h)) / (2 * h)
    want = (-dp_da / dp_dx).tolist()
    got = T._standard_gamma_grad(a, x).tolist()
    assert got == pytest.approx(want, rel=1e-6)


def test_standard_gamma_backward_is_g_times_its_grad():
    alpha = _leaf([0.4, 1.0, 3.0, 12.0])
    T.manual_seed(3)
    x = T._standard_gamma(alpha)
    assert type(x.grad_fn).__name__ == "StandardGammaBackward0"
    w = T.tensor([1.0, -2.0, 0.5, 3.0], dtype=T.float64)
    (g,) = T.autograd.grad((x * w).sum(), alpha)
    want = w * T._standard_gamma_grad(alpha.detach(), x.detach())
    assert g.tolist() == pytest.approx(want.tolist(), rel=1e-12)
    # float32 parameters get a float32 gradient
    a32 = T.tensor([0.7, 2.0], requires_grad=True)
    (g32,) = T.autograd.grad(T._standard_gamma(a32).sum(), a32)
    assert g32.dtype == T.float32 and bool((g32 > 0).all())


def test_standard_gamma_second_derivative_raises_as_pytorch():
    alpha = _leaf([0.5, 2.0])
    (g,) = T.autograd.grad(T._standard_gamma(alpha).sum(), alpha, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0"
    with pytest.raises(NotImplementedError, match="^the derivative for '_standard_gamma_grad' "
                                                  "is not implemented.$"):
        T.autograd.grad(g.sum(), alpha)


def test_gamma_rsample_gradient_reaches_concentration_and_rate():
    c, r = _leaf([0.8, 2.5]), _leaf([1.5, 0.5])
    T.manual_seed(11)
    v = T.distributions.Gamma(c, r).rsample()
    gc, gr = T.autograd.grad(v.sum(), (c, r))
    T.manual_seed(11)
    x = T._standard_gamma(c.detach())
    assert gc.tolist() == pytest.approx((T._standard_gamma_grad(c.detach(), x) / r.detach()).tolist())
    assert gr.tolist() == pytest.approx((-x / r.detach() ** 2).tolist())


# ---- in-place activations: PyTorch's node, and gradients by finite differences ----------

INPLACE_ACTIVATIONS = {
    "relu": lambda y: T.nn.functional.relu(y, inplace=True),
    "relu_": lambda y: y.relu_(),
    "elu": lambda y: T.nn.functional.elu_(y, 0.7),
    "selu": lambda y: T.nn.functional.selu(y, inplace=True),
    "celu": lambda y: T.nn.functional.celu(y, 1.3, inplace=True),
    "leaky_relu": lambda y: T.nn.functional.leaky_relu_(y, 0.2),
    "hardtanh": lambda y: T.nn.functional.hardtanh(y, -0.5, 0.8, inplace=True),
    "relu6": lambda y: T.nn.functional.relu6(y, inplace=True),
    "threshold": lambda y: T.nn.functional.threshold_(y, 0.3, -1.0),
    "silu": lambda y: T.nn.functional.silu(y, inplace=True),
    "mish": lambda y: T.nn.functional.mish(y, inplace=True),
    "hardswish": lambda y: T.nn.functional.hardswish(y, inplace=True),
    "hardsigmoid": lambda y: T.nn.functional.hardsigmoid(y, inplace=True),
    "module": lambda y: T.nn.ReLU(inplace=True)(y),
}


@pytest.mark.parametrize("name", sorted(INPLACE_ACTIVATIONS))
def test_inplace_activation_gradcheck(name):
    act = INPLACE_ACTIVATIONS[name]
    # away from the kinks (|x - k| > 0.05 for every activation's k)
    x = T.tensor([[-3.7, -1.2, -0.41], [0.13, 0.55, 1.7], [2.2, 4.1, 7.3]], dtype=T.float64,
                 requires_grad=True)

    def f(t):
        y = t * 1.0
        out = act(y)
        assert out is y and out._version > 0
        return out * 2.0
    assert T.autograd.gradcheck(f, (x,))
    assert T.autograd.gradgradcheck(f, (x,))


def test_inplace_activation_reads_the_old_value():
    """silu's derivative reads x: the written tensor holds silu(x), the node
    the old x (a saved copy), so the gradient is silu'(x), as out of place."""
    x = _leaf([-1.0, 0.5, 2.0])
    (g_out,) = T.autograd.grad(T.nn.functional.silu(x * 1).sum(), x)
    (g_in,) = T.autograd.grad(T.nn.functional.silu(x * 1, inplace=True).sum(), x)
    assert g_in.tolist() == g_out.tolist()


def test_inplace_activation_refuses_a_leaf_and_counts_versions():
    x = _leaf([1.0, -1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        T.nn.functional.relu(x, inplace=True)
    with T.no_grad():
        assert T.nn.functional.relu(x, inplace=True) is x
    assert x.tolist() == [1.0, 0.0]
    y = x * 1
    e = y.sin()  # keeps y for its derivative
    T.nn.functional.relu_(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()


@pytest.mark.parametrize("name", sorted(_DATA["kinks"]))
def test_activation_gradient_at_kinks_as_pytorch(name):
    """At the kinks (relu at 0, hardswish at +-3, relu6 at 6 ...) the
    gradient is PyTorch's, out of place and in place alike.  (PyTorch's
    hardsigmoid slope is float32's 1/6 even in float64: hence rel=1e-7.)"""
    got = kink_grads(T)[name]
    assert got == pytest.approx(_DATA["kinks"][name], rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("name", sorted(INPLACE_ACTIVATIONS))
def test_inplace_activation_under_vmap(name):
    """Under vmap the in-place activation writes the whole batch in one
    recorded call (no per-element loop, whose writes would outdate each
    other's saved outputs); values and gradients as out of place."""
    from torchlike.func import _batched, vmap
    act = INPLACE_ACTIVATIONS[name]
    x = T.tensor([[-3.7, -0.41, 0.55], [0.13, 1.7, 7.3]], dtype=T.float64, requires_grad=True)

    def f(r):
        y = r * 1.5
        act(y)
        return y * r
    loops = dict(_batched.stats["op_loops"])
    out = vmap(f)(x)
    assert _batched.stats["op_loops"] == loops
    (g,) = T.autograd.grad(out.sum(), x)
    x2 = x.detach().requires_grad_()
    want = T.stack([f(x2[i]) for i in range(2)])
    (g2,) = T.autograd.grad(want.sum(), x2)
    assert out.flatten().tolist() == pytest.approx(want.flatten().tolist(), rel=1e-12)
    assert g.flatten().tolist() == pytest.approx(g2.flatten().tolist(), rel=1e-12)
