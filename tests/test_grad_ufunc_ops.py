"""Derivatives of sinc, cbrt, ldexp and frexp's mantissa, gradchecked in
float64 (second derivatives too), and PyTorch's values at the points where
the formula has a special case (sinc'(0) = 0, the mantissa's gradient 1
where the exponent is 0)."""
import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import assert_close, noncontiguous

GRADCHECKED = {"sinc", "cbrt", "ldexp", "_frexp_mantissa"}


def leaf(values, dtype=tl.float64):
    return tl.tensor(np.asarray(values), dtype=dtype).requires_grad_()


@pytest.mark.parametrize("fn", [tl.sinc, tl.cbrt, lambda t: tl.frexp(t).mantissa],
                         ids=["sinc", "cbrt", "frexp"])
def test_unary_gradcheck(fn):
    x = leaf(np.random.default_rng(0).uniform(0.2, 3.0, (2, 3)) * [[1, -1, 1], [-1, 1, -1]])
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    assert gradcheck(fn, (noncontiguous(x.detach()).requires_grad_(),))


def test_sinc_complex_gradcheck():
    # gradcheck takes real inputs: the real and imaginary parts, and a real loss
    def loss(re, im):
        s = tl.sinc(re + im * 1j)
        return tl.real(s) * 0.7 + tl.imag(s) * 1.3
    assert gradcheck(loss, (leaf([0.3, -1.2]), leaf([0.4, 0.1])))


def test_sinc_gradient_is_zero_at_zero():
    x = leaf([0.0, 0.5, -1.0])
    (g,) = tl.autograd.grad(tl.sinc(x).sum(), [x])
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x
    v = np.array([0.5, -1.0])
    assert_close(g, np.concatenate([[0.0], (np.cos(np.pi * v) - np.sinc(v)) / v]))


def test_ldexp_gradcheck_both_sides():
    x = leaf([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]])
    e = leaf([0.5, -1.25, 2.0])
    assert gradcheck(tl.ldexp, (x, e))
    assert gradgradcheck(tl.ldexp, (x, e))
    ints = tl.tensor([1, -2, 3])
    assert gradcheck(lambda t: tl.ldexp(t, ints), (x,))


def test_frexp_mantissa_gradient_is_one_where_the_exponent_is_zero():
    x = leaf([0.3, 5.0, -0.0, 0.0, float("inf")])
    (g,) = tl.autograd.grad(tl.frexp(x).mantissa.sum(), [x])
    assert_close(g, np.array([2.0, 0.125, 1.0, 1.0, 1.0]))  # PyTorch: grad / 2**exponent
