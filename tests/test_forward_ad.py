"""Forward-mode AD (torchlike.autograd.forward_ad): tangents against PyTorch's
(tests/golden/autograd_extra.json, recorded by scripts/golden_autograd_extra.py
from the cases in tests/autograd_extra_cases.py) and against central finite
differences in NumPy; PyTorch's errors; custom Functions' jvp."""
import json
import os

import numpy as np
import pytest

import torchlike as torch
import torchlike.autograd.forward_ad as fwAD
import autograd_extra_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "golden", "autograd_extra.json")) as f:
    GOLDEN = json.load(f)["forward_ad"]


def _close(got, want):
    if want is None or got is None:
        assert got is want
        return
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(cases.FORWARD_AD_SHAPES))
def test_tangents_match_pytorch(name):
    primals, tangents = cases.run_forward_ad(torch, name)
    want_p, want_t = GOLDEN["results"][name]
    assert len(tangents) == len(want_t)
    for a, b in zip(primals, want_p):
        _close(a, b)
    for a, b in zip(tangents, want_t):
        _close(a, b)


def _plain(name, arrays):
    """The case's outputs without forward AD, at NumPy primals (a copy each:
    the in-place cases write their inputs)."""
    ts = [torch.tensor(a.copy(), dtype=torch.float64) for a in arrays]
    out = getattr(cases, name)(torch, *ts)
    return [o.numpy().astype(np.float64) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", sorted(cases.FORWARD_AD_SHAPES))
def test_tangents_match_finite_differences(name):
    primals, tangents = cases.forward_ad_inputs(torch, name)
    ps = [p.numpy() for p in primals]
    ts = [t.numpy() for t in tangents]
    eps = 1e-6
    hi = _plain(name, [p + eps * t for p, t in zip(ps, ts)])
    lo = _plain(name, [p - eps * t for p, t in zip(ps, ts)])
    _, got = cases.run_forward_ad(torch, name)
    for g, h, l in zip(got, hi, lo):
        if h.shape != l.shape:  # x[x > 0]: the mask may move under the step
            continue
        np.testing.assert_allclose(np.asarray(g), (h - l) / (2 * eps), rtol=1e-5, atol=1e-6)


def test_agrees_with_func_jvp():
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((3, 4)))
    t = torch.tensor(rng.standard_normal((3, 4)))

    def f(x):
        return (x @ x.t()).sin().sum(0) * x[:, 0]
    _, want = torch.func.jvp(f, (x,), (t,))
    with fwAD.dual_level():
        got = fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


def test_errors_match_pytorch():
    assert cases.forward_ad_errors(torch) == GOLDEN["errors"]


def test_custom_function_jvp_is_called():
    got = cases.forward_ad_custom_jvp(torch)
    assert got == GOLDEN["custom_jvp"]
    # the tangent came from jvp (10x the derivative: 60 = 10 * 3 * 1 * 2 * 1)
    assert got["tangents"][0] == [60.0, -240.0]


def test_custom_function_jvp_and_reverse_mode_together():
    # the jvp seeds its output for tangents; backward still runs for gradients
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, tx):
            x, = ctx.saved_tensors
            return 2 * x * tx

    p = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0.5, 1.0, -1.0], dtype=torch.float64)
    with fwAD.dual_level():
        y = Square.apply(fwAD.make_dual(p, t)).exp()
        primal, tangent = fwAD.unpack_dual(y)
        pn, tn = p.detach().numpy(), t.numpy()
        np.testing.assert_allclose(tangent.numpy(), np.exp(pn ** 2) * 2 * pn * tn)
        g, = torch.autograd.grad(primal.sum(), p)
    np.testing.assert_allclose(g.numpy(), np.exp(pn ** 2) * 2 * pn)


def test_dual_is_a_view_and_keeps_its_tangent_object():
    p = torch.zeros(3, dtype=torch.float64)
    t = torch.ones(3, dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(p, t)
        u = fwAD.unpack_dual(d)
        assert u.tangent is t and isinstance(u, fwAD.UnpackedDualTensor)
        d.add_(1)  # writes the primal's memory, as PyTorch's view does
        np.testing.assert_array_equal(p.numpy(), [1, 1, 1])
        np.testing.assert_array_equal(fwAD.unpack_dual(d).tangent.numpy(), [1, 1, 1])
        d.mul_(3)
        np.testing.assert_array_equal(fwAD.unpack_dual(d).tangent.numpy(), [3, 3, 3])
        unrelated = torch.ones(2, dtype=torch.float64) * 2
        assert fwAD.unpack_dual(unrelated).tangent is None
    # the level is gone: no tangent any more
    assert fwAD.unpack_dual(d).tangent is None


def test_tangent_that_requires_grad_is_differentiable():
    p = torch.tensor([0.3, 0.7], dtype=torch.float64)
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with fwAD.dual_level():
        y = fwAD.make_dual(p, t).sin()
        tangent = fwAD.unpack_dual(y).tangent
    assert tangent.requires_grad
    g, = torch.autograd.grad(tangent.sum(), t)
    np.testing.assert_allclose(g.numpy(), np.cos(p.numpy()))


def test_several_duals_and_decorator_use():
    @fwAD.dual_level()
    def directional(x, y, tx, ty):
        out = (fwAD.make_dual(x, tx) * fwAD.make_dual(y, ty)).sum()
        return fwAD.unpack_dual(out).tangent

    x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    got = directional(x, y, torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]))
    assert got.item() == pytest.approx(3.0 * 1 + 2.0 * 1)
    assert fwAD._current() is None


def test_enter_exit_by_hand():
    level = fwAD.enter_dual_level()
    try:
        d = fwAD.make_dual(torch.ones(2), torch.full((2,), 2.0), level=level)
        np.testing.assert_array_equal(fwAD.unpack_dual(d * 3, level=level).tangent.numpy(),
                                      [6, 6])
    finally:
        fwAD.exit_dual_level(level=level)
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(torch.ones(2), torch.ones(2))
