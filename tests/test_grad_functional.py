"""gradcheck / gradgradcheck themselves (they must catch wrong gradients and
say where), and torchlike.autograd.functional against analytic results."""
import numpy as np
import pytest

import torchlike as torch
from torchlike.autograd import Function, gradcheck, gradgradcheck
from torchlike.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from torchlike.autograd.gradcheck import GradcheckError
from oracle import assert_close, noncontiguous


def rand(*shape, seed=0, grad=True):
    t = torch.tensor(np.random.default_rng(seed).standard_normal(shape))
    return t.requires_grad_() if grad else t


class WrongGrad(Function):
    """x * x with a backward that is off by a factor."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x * 3  # should be 2


class WrongSecondOrder(Function):
    """x^3 whose backward is right numerically but not differentiable the
    right way: the gradient is computed outside the tape."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * torch.from_numpy(3 * x.detach().cpu().numpy() ** 2).to(x.device)


# ---- gradcheck ------------------------------------------------------------------------------

def test_gradcheck_passes_on_correct_gradients():
    assert gradcheck(lambda a, b: (a * b).exp(), (rand(3), rand(3, seed=1)))
    assert gradcheck(lambda a: (a * a).sum(), rand(2, 3))  # a bare tensor as inputs


def test_gradcheck_catches_a_wrong_gradient_and_names_it():
    with pytest.raises(GradcheckError, match=r"Jacobian mismatch for output 0 with respect to "
                                             r"input 0"):
        gradcheck(WrongGrad.apply, (rand(3),))


def test_gradcheck_raise_exception_false():
    assert gradcheck(WrongGrad.apply, (rand(3),), raise_exception=False) is False
    assert gradcheck(lambda a: a * 2, (rand(3),), raise_exception=False) is True


def test_gradcheck_names_the_output_and_input():
    def f(a, b):
        return a * 2, WrongGrad.apply(b)
    with pytest.raises(GradcheckError, match="output 1 with respect to input 1"):
        gradcheck(f, (rand(2), rand(2, seed=1)))


def test_gradcheck_non_contiguous_inputs():
    x = noncontiguous(rand(3, 4, grad=False)).requires_grad_()
    assert not x.is_contiguous()
    assert gradcheck(lambda a: a * a * a, (x,))
    xt = rand(4, 3).detach().t().requires_grad_()
    assert gradcheck(lambda a: (a * a).exp(), (xt,))
    assert gradgradcheck(lambda a: a * a * a, (xt,))
    # and it still catches a wrong gradient there
    assert not gradcheck(WrongGrad.apply, (xt,), raise_exception=False)


def test_gradcheck_refuses_overlapping_inputs():
    x = torch.zeros(3, 1, dtype=torch.float64).expand(3, 2).requires_grad_()
    with pytest.raises(RuntimeError, match="stride 0"):
        gradcheck(lambda a: a * 2, (x,))


def test_gradcheck_multiple_outputs():
    def f(a, b):
        return a * b, a + b, (a * a).sum()
    assert gradcheck(f, (rand(2, 2), rand(2, 2, seed=1)))


def test_gradcheck_output_not_depending_on_an_input():
    def f(a, b):
        return a * 3, a * a
    assert gradcheck(f, (rand(3), rand(3, seed=1)))


def test_gradcheck_non_tensor_and_no_grad_inputs():
    c = rand(3, seed=4, grad=False)
    assert gradcheck(lambda a, k, c: a * k + c, (rand(3), 2.5, c))


def test_gradcheck_output_without_history_that_changes_is_caught():
    # an output computed off the tape: its numerical Jacobian is not zero
    def f(a):
        return torch.from_numpy(a.detach().cpu().numpy() * 2)
    with pytest.raises(GradcheckError, match="should be zero"):
        gradcheck(f, (rand(3),))


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (rand(3, grad=False),))


def test_gradcheck_warns_for_float32():
    x = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_gradgradcheck_passes_and_catches():
    assert gradgradcheck(lambda a, b: a * a * b, (rand(3), rand(3, seed=1)))
    assert gradgradcheck(lambda a: (a * a).exp(), (rand(2, 2),), gen_non_contig_grad_outputs=True)
    with pytest.raises(GradcheckError):
        gradgradcheck(WrongSecondOrder.apply, (rand(3),))
    assert gradgradcheck(WrongSecondOrder.apply, (rand(3),), raise_exception=False) is False


def test_gradgradcheck_with_given_grad_outputs():
    go = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a * a * a, (rand(3),), (go,))


# ---- functional ----------------------------------------------------------------------------------

def cube_sum(x):
    return (x * x * x).sum()


def test_jacobian_single():
    x = rand(3, grad=False)
    j = jacobian(lambda a: a * a, x)
    assert_close(j, np.diag(2 * x.cpu().numpy()))
    assert not j.requires_grad


def test_jacobian_shapes_and_tuples():
    x, w = rand(2, 3, grad=False), rand(3, seed=1, grad=False)
    jx, jw = jacobian(lambda a, b: a * b, (x, w))
    assert tuple(jx.shape) == (2, 3, 2, 3) and tuple(jw.shape) == (2, 3, 3)
    xv, wv = x.cpu().numpy(), w.cpu().numpy()
    expect_x = np.einsum("ik,jl->ijkl", np.eye(2), np.diag(wv))
    expect_w = np.einsum("ij,jk->ijk", xv, np.eye(3))
    assert_close(jx, expect_x)
    assert_close(jw, expect_w)
    (a_x, a_w), (b_x, b_w) = jacobian(lambda a, b: (a * 2, (a * b).sum()), (x, w))
    assert tuple(a_x.shape) == (2, 3, 2, 3) and tuple(a_w.shape) == (2, 3, 3)
    assert tuple(b_x.shape) == (2, 3) and tuple(b_w.shape) == (3,)
    assert_close(a_w, np.zeros((2, 3, 3)))  # independent: zeros
    assert_close(b_w, xv.sum(0))


def test_jacobian_strict():
    x, y = rand(2, grad=False), rand(2, seed=1, grad=False)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_jacobian_does_not_touch_callers_tensors():
    x = rand(3)
    jacobian(lambda a: a * a, x)
    assert x.grad is None


def test_jacobian_create_graph():
    x = rand(3)
    j = jacobian(lambda a: a * a * a, x, create_graph=True)
    assert j.requires_grad
    # d/dx of the diagonal 3x^2 summed: 6x
    g, = torch.autograd.grad(j.sum(), x)
    assert_close(g, 6 * x.detach().cpu().numpy())


def test_hessian():
    x = rand(4, grad=False)
    h = hessian(cube_sum, x)
    assert_close(h, np.diag(6 * x.cpu().numpy()))
    a, b = rand(3, grad=False), rand(3, seed=1, grad=False)
    (haa, hab), (hba, hbb) = hessian(lambda p, q: (p * p * q).sum(), (a, b))
    av, bv = a.cpu().numpy(), b.cpu().numpy()
    assert_close(haa, np.diag(2 * bv))
    assert_close(hab, np.diag(2 * av))
    assert_close(hba, np.diag(2 * av))
    assert_close(hbb, np.zeros((3, 3)))


def test_hessian_requires_a_scalar_function():
    with pytest.raises(RuntimeError, match="single element"):
        hessian(lambda a: a * a, rand(3, grad=False))


def test_vjp():
    x = rand(3, grad=False)
    v = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    out, g = vjp(lambda a: a * a * a, x, v)
    assert_close(out, x.cpu().numpy() ** 3)
    assert_close(g, 3 * x.cpu().numpy() ** 2 * v.cpu().numpy())
    out, g = vjp(cube_sum, x)  # v may be omitted for a single-element output
    assert_close(g, 3 * x.cpu().numpy() ** 2)
    with pytest.raises(RuntimeError, match="v can only be None"):
        vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="shape"):
        vjp(lambda a: a * 2, x, torch.ones(4, dtype=torch.float64))


def test_vjp_strict_and_independent_inputs():
    x, y = rand(2, grad=False), rand(2, seed=1, grad=False)
    _, (gx, gy) = vjp(lambda a, b: (a * 2).sum(), (x, y))
    assert_close(gy, np.zeros(2))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        vjp(lambda a, b: (a * 2).sum(), (x, y), strict=True)


def test_integer_inputs_are_refused_as_requires_grad_refuses_them():
    # PyTorch's functional API makes every input require grad: an integer one
    # is an error, not a zero row of the jacobian
    for call in (lambda: jacobian(lambda a: a * 2, torch.ones(2, dtype=torch.int64)),
                 lambda: vjp(lambda a, b: a * b, (torch.ones(2), torch.ones(2, dtype=torch.int64)),
                             torch.ones(2)),
                 lambda: hessian(lambda a: a.sum(), torch.ones(2, dtype=torch.int64))):
        with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require "
                                               "gradients"):
            call()


def test_strict_names_the_output_without_a_graph():
    # PyTorch's words: the first output that does not require grad, by index
    x = rand(2, grad=False)
    with pytest.raises(RuntimeError, match=r"^Output 1 of the user-provided function does not "
                                           r"require gradients\. The outputs must be computed in "
                                           r"a differentiable manner from the input when running "
                                           r"in strict mode\.$"):
        vjp(lambda a: (a * 2, torch.ones(2)), x, (torch.ones(2), torch.ones(2)), strict=True)
    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided"):
        jvp(lambda a: torch.ones(2), x, torch.ones(2), strict=True)


def test_jvp():
    x = rand(3, grad=False)
    v = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64)
    out, jv = jvp(lambda a: a * a * a, x, v)
    assert_close(out, x.cpu().numpy() ** 3)
    assert_close(jv, 3 * x.cpu().numpy() ** 2 * v.cpu().numpy())
    a, b = rand(2, 2, grad=False), rand(2, 2, seed=1, grad=False)
    va, vb = rand(2, 2, seed=2, grad=False), rand(2, 2, seed=3, grad=False)
    (p, s), (jp, js) = jvp(lambda a, b: (a * b, a + b), (a, b), (va, vb))
    assert_close(jp, va.cpu().numpy() * b.cpu().numpy() + a.cpu().numpy() * vb.cpu().numpy())
    assert_close(js, va.cpu().numpy() + vb.cpu().numpy())


def test_hvp_and_vhp():
    x = rand(4, grad=False)
    v = rand(4, seed=5, grad=False)
    out, hv = hvp(cube_sum, x, v)
    assert_close(out, (x.cpu().numpy() ** 3).sum())
    assert_close(hv, 6 * x.cpu().numpy() * v.cpu().numpy())
    _, vh = vhp(cube_sum, x, v)
    assert_close(vh, 6 * x.cpu().numpy() * v.cpu().numpy())
    a, b = rand(3, grad=False), rand(3, seed=1, grad=False)
    va, vb = rand(3, seed=2, grad=False), rand(3, seed=3, grad=False)
    _, (ha, hb) = hvp(lambda p, q: (p * p * q).sum(), (a, b), (va, vb))
    assert_close(ha, 2 * b.cpu().numpy() * va.cpu().numpy() + 2 * a.cpu().numpy() * vb.cpu().numpy())
    assert_close(hb, 2 * a.cpu().numpy() * va.cpu().numpy())


def test_hvp_errors():
    x = rand(3, grad=False)
    with pytest.raises(RuntimeError, match="single element"):
        hvp(lambda a: a * a, x, x)
    with pytest.raises(RuntimeError, match="single Tensor"):
        hvp(lambda a: (a.sum(), a.sum()), x, x)
    with pytest.raises(RuntimeError, match="independent of input 0"):
        hvp(lambda a: (a * 2).sum(), x, x, strict=True)
    _, hv = hvp(lambda a: (a * 2).sum(), x, x)  # linear: zero Hessian
    assert_close(hv, np.zeros(3))


def test_functional_under_no_grad():
    x = rand(3, grad=False)
    with torch.no_grad():
        _, g = vjp(cube_sum, x)
    assert_close(g, 3 * x.cpu().numpy() ** 2)


def test_functional_input_type_errors():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        jacobian(lambda a: a, [1.0, 2.0])
