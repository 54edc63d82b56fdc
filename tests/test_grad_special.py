"""Derivatives of torch.special's functions (src/grad/formulas_special.c and
formulas_bessel.c): gradcheck and gradgradcheck in float64 for every
derivative PyTorch has, the derivatives against SciPy's own, and the
inputs PyTorch has no derivative for (zeta's x, gammainc's a), which raise
only when the gradient is asked for."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as torch
import torchlike.special as S
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import assert_close, noncontiguous

UNARY_POINTS = {
    "erfcx": [-2.5, -0.4, 0.3, 1.7, 12.0],
    "ndtr": [-6.0, -0.4, 0.3, 1.7, 5.0],
    "log_ndtr": [-30.0, -2.0, -0.4, 0.3, 1.7, 6.0],
    "ndtri": [1e-4, 0.02, 0.3, 0.5, 0.77, 0.999],
    "entr": [0.05, 0.3, 1.0, 1.7, 20.0],
    "bessel_j0": [-7.5, -0.4, 0.3, 1.7, 30.0],
    "bessel_j1": [-7.5, -0.4, 0.3, 1.7, 30.0],
    "bessel_y0": [0.3, 1.7, 4.5, 7.5, 30.0],
    "bessel_y1": [0.3, 1.7, 4.5, 7.5, 30.0],
    "modified_bessel_k0": [0.3, 1.7, 2.5, 7.5, 30.0],
    "modified_bessel_k1": [0.3, 1.7, 2.5, 7.5, 30.0],
}
BINARY = {  # name: (first argument, second argument, which inputs have a derivative)
    "xlog1py": ([0.3, -1.2, 2.0], [0.5, 3.0, -0.4], (0, 1)),
    "zeta": ([2.5, 3.0, 5.5], [0.7, 2.0, 11.0], (1,)),
    "igamma": ([0.5, 2.0, 7.0], [0.3, 2.5, 4.0], (1,)),
    "igammac": ([0.5, 2.0, 7.0], [0.3, 2.5, 4.0], (1,)),
}
GRADCHECKED = set(UNARY_POINTS) | set(BINARY)


def leaf(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize("name", sorted(UNARY_POINTS))
def test_gradcheck_unary(name):
    fn = getattr(S, name)
    points = np.asarray(UNARY_POINTS[name])
    assert gradcheck(fn, (leaf(points),))
    assert gradcheck(fn, (noncontiguous(leaf(points.reshape(-1, 1)).detach()).requires_grad_(),))
    assert gradcheck(fn, (leaf(points[1]),))  # 0-d


@pytest.mark.parametrize("name", sorted(UNARY_POINTS))
def test_gradgradcheck_unary(name):
    assert gradgradcheck(getattr(S, name), (leaf(UNARY_POINTS[name][1:4]),))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_gradcheck_binary(name):
    a, b, differentiable = BINARY[name]
    fn = getattr(torch, name)
    for k in differentiable:
        args = [torch.tensor(np.asarray(v, dtype=np.float64)) for v in (a, b)]
        args[k].requires_grad_()
        assert gradcheck(lambda t, k=k: fn(*[t if i == k else args[i] for i in range(2)]),
                         (args[k],))
        assert gradgradcheck(lambda t, k=k: fn(*[t if i == k else args[i] for i in range(2)]),
                             (args[k],))
    # broadcast: a row of one against a column of the other
    args = [torch.tensor(np.asarray(a, dtype=np.float64)).reshape(3, 1),
            torch.tensor(np.asarray(b, dtype=np.float64))[:2]]
    k = differentiable[-1]
    args[k].requires_grad_()
    assert gradcheck(lambda t: fn(*[t if i == k else args[i] for i in range(2)]), (args[k],))


def numeric_against(fn_tl, d_ref, x):
    t = leaf(x)
    (g,) = torch.autograd.grad(fn_tl(t).sum(), t)
    assert_close(g, d_ref(np.asarray(x, dtype=np.float64)), rtol=1e-12, atol=1e-14)


def test_unary_derivatives_against_scipy():
    x = np.array([0.2, 0.9, 3.3, 8.0, 27.0])
    numeric_against(S.bessel_j0, lambda v: sp.jvp(0, v), x)
    numeric_against(S.bessel_j1, lambda v: sp.jvp(1, v), x)
    numeric_against(S.bessel_y0, lambda v: sp.yvp(0, v), x)
    numeric_against(S.bessel_y1, lambda v: sp.yvp(1, v), x)
    numeric_against(S.modified_bessel_k0, lambda v: sp.kvp(0, v), x)
    numeric_against(S.modified_bessel_k1, lambda v: sp.kvp(1, v), x)
    numeric_against(S.ndtr, lambda v: np.exp(-v * v / 2) / np.sqrt(2 * np.pi), x - 4)
    numeric_against(S.entr, lambda v: -(1 + np.log(v)), x)
    p = np.array([1e-12, 0.1, 0.5, 0.8])
    numeric_against(S.ndtri, lambda v: np.sqrt(2 * np.pi) * np.exp(sp.ndtri(v) ** 2 / 2), p)
    y = np.array([-40.0, -5.0, 0.0, 3.0])
    numeric_against(S.log_ndtr, lambda v: np.exp(-v * v / 2 - sp.log_ndtr(v)) / np.sqrt(2 * np.pi), y)
    numeric_against(S.erfcx, lambda v: 2 * v * sp.erfcx(v) - 2 / np.sqrt(np.pi), y)


def test_gradient_of_the_bessel_j1_at_zero_is_its_limit():
    t = leaf([0.0, -0.0])
    (g,) = torch.autograd.grad(S.bessel_j1(t).sum(), t)
    assert g.tolist() == [0.5, 0.5]


def test_binary_derivatives_against_scipy():
    a = np.array([0.5, 2.0, 7.0])
    x = np.array([0.3, 2.5, 4.0])
    ta, tx = leaf(a), leaf(x)
    (g,) = torch.autograd.grad(S.gammainc(ta.detach(), tx).sum(), tx)
    assert_close(g, np.exp((a - 1) * np.log(x) - x - sp.gammaln(a)), rtol=1e-12)
    (g,) = torch.autograd.grad(S.gammaincc(ta.detach(), tx).sum(), tx)
    assert_close(g, -np.exp((a - 1) * np.log(x) - x - sp.gammaln(a)), rtol=1e-12)
    (g,) = torch.autograd.grad(S.zeta(ta.detach() + 1.5, tx).sum(), tx)
    assert_close(g, -(a + 1.5) * sp.zeta(a + 2.5, x), rtol=1e-12)


def test_xlog1py_gradient_at_x_zero_follows_pytorch():
    # x == 0: log1p(y) where y > -1, 0 where y <= -1 (PyTorch's masked_fill);
    # y's is x / (1 + y), 0/0 = NaN at y = -1 as in PyTorch
    x, y = leaf([0.0, 0.0, 0.0]), leaf([0.5, -1.0, -3.0])
    gx, gy = torch.autograd.grad(S.xlog1py(x, y).sum(), [x, y])
    assert_close(gx, np.array([np.log1p(0.5), 0.0, 0.0]))
    assert_close(gy, np.array([0.0, np.nan, -0.0]))


@pytest.mark.parametrize("name, message", [
    ("zeta", "the derivative for 'zeta' is not implemented."),
    ("gammainc", "the derivative for 'igamma: input' is not implemented."),
    ("gammaincc", "the derivative for 'igammac: input' is not implemented."),
])
def test_missing_derivatives_raise_only_when_asked(name, message):
    a, b = leaf([2.5, 3.0]), leaf([0.7, 2.0])
    y = getattr(S, name)(a, b).sum()
    (gb,) = torch.autograd.grad(y, b, retain_graph=True)  # pruned: a is not asked for
    assert bool(torch.isfinite(gb).all())
    with pytest.raises(NotImplementedError, match=message.replace("(", r"\(")):
        y.backward()
