"""Derivatives of the modified Bessel functions i0, i0e, i1, i1e
(src/grad/formulas_bessel.c): gradcheck and gradgradcheck, the limit at 0,
and the identities they rest on against SciPy."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import assert_close, noncontiguous

GRADCHECKED = {"i0", "i0e", "i1", "i1e"}

POINTS = np.array([-25.0, -3.0, -0.5, 0.7, 2.0, 19.5, 21.0])


def leaf(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradcheck(name):
    fn = getattr(torch, name)
    assert gradcheck(fn, (leaf(POINTS),))
    assert gradcheck(lambda t: getattr(t, name)(), (leaf(POINTS.reshape(1, 7)),))  # method
    assert gradcheck(fn, (noncontiguous(leaf(POINTS.reshape(7, 1)).detach()).requires_grad_(),))
    assert gradcheck(fn, (leaf(1.5),))  # 0-d


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradgradcheck(name):
    assert gradgradcheck(getattr(torch, name), (leaf([-2.5, -0.4, 0.3, 1.7]),))


def test_derivatives_against_scipy():
    x = np.array([-30.0, -4.0, -0.25, 0.0, 0.5, 3.0, 25.0])
    expect = {
        "i0": sp.i1(x),
        "i1": np.where(x == 0, 0.5, sp.i0(x) - sp.i1(x) / np.where(x == 0, 1, x)),
        "i1e": np.where(x == 0, 0.5, sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1 / np.where(x == 0, 1, x))),
    }
    for name, e in expect.items():
        t = leaf(x)
        getattr(torch, name)(t).sum().backward()
        assert_close(t.grad, e, rtol=1e-12)
    nz = x[x != 0]  # i0e has a kink at 0
    t = leaf(nz)
    torch.i0e(t).sum().backward()
    assert_close(t.grad, sp.i1e(nz) - np.sign(nz) * sp.i0e(nz), rtol=1e-12)


def test_gradient_at_zero_is_finite_and_exact():
    t = leaf([0.0])
    g, = torch.autograd.grad(torch.i1(t).sum(), t, create_graph=True)
    assert_close(g.detach(), np.array([0.5]))
    gg, = torch.autograd.grad(g.sum(), t)
    assert_close(gg, np.array([0.0]))  # i1 is odd: i1''(0) = 0
