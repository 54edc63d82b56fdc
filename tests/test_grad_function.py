"""Custom autograd.Function: forward/backward by hand, the ctx API, the
errors PyTorch gives for bad backward results, double backward, and a layer
written with scipy.signal on zero-copy ndarrays, checked with gradcheck."""
import gc
import sys

import numpy as np
import pytest
import scipy.signal

import torchlike as torch
from torchlike.autograd import Function, gradcheck, gradgradcheck, once_differentiable
from oracle import assert_close


def leaf(values, dtype=torch.float64):
    return torch.tensor(np.asarray(values, dtype=np.float64), dtype=dtype, requires_grad=True)


def rand(*shape, seed=0):
    return leaf(np.random.default_rng(seed).standard_normal(shape))


# ---- functions used below ------------------------------------------------------------

class Cube(Function):
    """x**3, backward written with torchlike ops (so it is differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x * x


class Exp(Function):
    """Saves its output: double backward must see the output's own history."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y


class ScaleShift(Function):
    """Non-tensor arguments: a Python float and a string flag."""

    @staticmethod
    def forward(ctx, x, scale, mode, shift):
        ctx.scale = scale
        ctx.mode = mode
        return x * scale + shift if mode == "affine" else x * scale

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None, None, (g if ctx.needs_input_grad[3] else None)


class SplitProduct(Function):
    """Two outputs: (x*y, x+y)."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, x + y

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        x, y = ctx.saved_tensors
        return g_prod * y + g_sum, g_prod * x + g_sum


# ---- forward / backward ----------------------------------------------------------------

def test_forward_backward_values():
    x = leaf([1.0, -2.0, 0.5])
    y = Cube.apply(x)
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "CubeBackward"
    assert_close(y.detach(), np.array([1.0, -8.0, 0.125]))
    y.sum().backward()
    assert_close(x.grad, 3 * np.array([1.0, -2.0, 0.5]) ** 2)


def test_next_functions_point_at_inputs():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    p, s = SplitProduct.apply(x * 2, w)
    assert p.grad_fn is s.grad_fn
    (a, _), (b, _) = p.grad_fn.next_functions
    assert a.name() == "MulBackward0"
    assert b.name() == "torch::autograd::AccumulateGrad" and b.variable is w


def test_gradcheck_cube_and_exp():
    assert gradcheck(Cube.apply, (rand(4),))
    assert gradcheck(Exp.apply, (rand(2, 3),))


def test_no_record_without_grad():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    y = Cube.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    with torch.no_grad():
        y = Cube.apply(leaf([1.0]))
    assert not y.requires_grad and y.grad_fn is None


def test_needs_input_grad():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return None, g * 2, None

    a = torch.ones(2, dtype=torch.float64)
    b = leaf([1.0, 2.0])
    Probe.apply(a, b, 3).sum().backward()
    assert seen == [(False, True, False), (False, True, False)]
    assert_close(b.grad, np.array([2.0, 2.0]))


def test_non_tensor_args():
    x = leaf([1.0, 2.0, 3.0])
    s = leaf([0.5, 0.5, 0.5])
    y = ScaleShift.apply(x, 2.5, "affine", s)
    assert_close(y.detach(), np.array([3.0, 5.5, 8.0]))
    y.sum().backward()
    assert_close(x.grad, np.full(3, 2.5))
    assert_close(s.grad, np.ones(3))
    assert gradcheck(lambda x, s: ScaleShift.apply(x, -1.5, "affine", s), (rand(3), rand(3, seed=1)))


def test_multiple_outputs():
    x, y = rand(3), rand(3, seed=1)
    p, s = SplitProduct.apply(x, y)
    (p * 2 + s * 3).sum().backward()
    xv, yv = x.detach().cpu().numpy(), y.detach().cpu().numpy()
    assert_close(x.grad, 2 * yv + 3)
    assert_close(y.grad, 2 * xv + 3)
    assert gradcheck(SplitProduct.apply, (rand(2, 2), rand(2, 2, seed=3)))


def test_unused_output_gets_zero_gradient():
    got = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            got.append((g0, g1))
            return g0 * 2 + g1 * 3

    x = leaf([1.0, 2.0])
    a, _ = Two.apply(x)
    a.sum().backward()
    g0, g1 = got[0]
    assert_close(g0, np.ones(2))
    assert_close(g1, np.zeros(2))  # materialized
    assert_close(x.grad, np.full(2, 2.0))


def test_set_materialize_grads_false_passes_none():
    got = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            got.append((g0, g1))
            grad = None
            if g0 is not None:
                grad = g0 * 2
            if g1 is not None:
                grad = g1 * 3 if grad is None else grad + g1 * 3
            return grad

    x = leaf([1.0, 2.0])
    _, b = Two.apply(x)
    b.sum().backward()
    assert got[0][0] is None
    assert_close(got[0][1], np.ones(2))
    assert_close(x.grad, np.full(2, 3.0))


def test_setup_context_style():
    class Mul(Function):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x, y)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    x, y = rand(3), rand(3, seed=1)
    out = Mul.apply(x, y)
    assert out.grad_fn.name() == "MulBackward"
    out.sum().backward()
    assert_close(x.grad, y.detach().cpu().numpy())
    assert gradcheck(Mul.apply, (rand(2), rand(2, seed=2)))


def test_input_returned_unchanged_is_a_new_tensor_with_history():
    class Ident(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf([1.0, 2.0])
    y = Ident.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None
    assert y.grad_fn.name() == "IdentBackward"
    y.sum().backward()
    assert_close(x.grad, np.full(2, 5.0))


# ---- saved tensors -----------------------------------------------------------------------

def test_saved_tensor_modified_in_place_raises_version_error():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = Cube.apply(h)
    h.mul_(2)  # h was saved by Cube
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*CubeBackward"
                                           r".*is at version 1; expected version 0"):
        y.sum().backward()


def test_saved_output_modified_in_place_raises():
    x = leaf([1.0, 2.0])
    y = Exp.apply(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of ExpBackward"):
        y.sum().backward()


def test_save_for_backward_refuses_non_tensors():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="argument 1 is of type int"):
        Bad.apply(leaf([1.0]))


def test_save_for_backward_accepts_none():
    class WithNone(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            none, x = ctx.saved_tensors
            assert none is None
            return g * 2

    x = leaf([1.0])
    WithNone.apply(x).sum().backward()
    assert_close(x.grad, np.array([2.0]))


def test_second_backward_through_freed_function_raises():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = Cube.apply(x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert_close(x.grad, 3 * 3 * np.array([1.0, 4.0]))


# ---- mark_dirty / mark_non_differentiable ------------------------------------------------------

class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 1


def test_mark_dirty_in_place_custom_op():
    a = leaf([1.0, 2.0])
    h = a * 3
    out = AddOneInPlace.apply(h)
    assert out is h  # the same object, now the output of the custom node
    assert h.grad_fn.name() == "AddOneInPlaceBackward"
    assert h.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert_close(h.detach(), np.array([4.0, 7.0]))
    (h * h).sum().backward()
    assert_close(a.grad, 2 * np.array([4.0, 7.0]) * 3)


def test_mark_dirty_on_leaf_requiring_grad_refused():
    # PyTorch's words for a Function ("has been used"), not an in-place op's
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used "
                                           "in an in-place operation.$"):
        AddOneInPlace.apply(leaf([1.0]))


def test_mark_dirty_on_view_of_leaf_requiring_grad_refused():
    """A view of a leaf is refused as PyTorch refuses it (the leaf was
    changed in place behind autograd); a view of a non-leaf is recorded."""
    for view in (lambda a: a.view(2), lambda a: a[:1]):
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad "
                                               "is being used in an in-place operation.$"):
            AddOneInPlace.apply(view(leaf([1.0, 2.0])))
    a = leaf([1.0, 2.0, 3.0])
    h = a * 1
    out = AddOneInPlace.apply(h[1:])
    (out * out).sum().backward()
    assert_close(a.grad, np.array([0.0, 6.0, 8.0]))


def test_mark_dirty_tensor_not_returned_refused():
    class Forgot(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(RuntimeError, match="marked as dirty"):
        Forgot.apply(leaf([1.0]) * 1)


def test_mark_non_differentiable():
    class SortWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            order = np.argsort(x.detach().cpu().numpy(), kind="stable")
            idx = torch.from_numpy(order.astype(np.int64)).to(x.device)
            mask = x > 0
            vals = torch.from_numpy(np.ascontiguousarray(x.detach().cpu().numpy()[order])).to(x.device)
            ranks = vals * 0 + 1
            ctx.mark_non_differentiable(ranks)
            ctx.order = order
            return vals, idx, mask, ranks

        @staticmethod
        def backward(ctx, g, g_idx, g_mask, g_ranks):
            # non-differentiable outputs (integer, bool, marked) get zeros, as in PyTorch
            assert_close(g_idx, np.zeros(3, dtype=np.int64))
            assert_close(g_mask, np.zeros(3, dtype=bool))
            assert_close(g_ranks, np.zeros(3))
            out = np.zeros(g.shape)
            out[ctx.order] = g.detach().cpu().numpy()
            return torch.from_numpy(out).to(g.device)

    x = leaf([3.0, -1.0, 2.0])
    vals, idx, mask, ranks = SortWithIndex.apply(x)
    assert vals.requires_grad
    assert not idx.requires_grad and not mask.requires_grad and not ranks.requires_grad
    assert ranks.grad_fn is None
    (vals * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    # sorted: [-1 (from 1), 2 (from 2), 3 (from 0)]
    assert_close(x.grad, np.array([3.0, 1.0, 2.0]))


# ---- bad backward results ----------------------------------------------------------------

def _returning(result_fn):
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, k=1.0):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return result_fn(g)
    return Bad


def test_wrong_number_of_gradients():
    Bad = _returning(lambda g: (g, g, g))
    with pytest.raises(RuntimeError, match=r"BadBackward returned an incorrect number of "
                                           r"gradients \(expected 2, got 3\)"):
        Bad.apply(leaf([1.0]), 1.0).sum().backward()
    too_few = _returning(lambda g: ())
    with pytest.raises(RuntimeError, match=r"expected 1, got 0"):
        too_few.apply(leaf([1.0])).sum().backward()


def test_extra_none_gradients_are_allowed():
    Ok = _returning(lambda g: (g * 2, None, None))
    x = leaf([1.0])
    Ok.apply(x, 1.0).sum().backward()
    assert_close(x.grad, np.array([2.0]))


def test_wrong_shape_of_gradient():
    Bad = _returning(lambda g: torch.ones(5, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"BadBackward returned an invalid gradient at index "
                                           r"0 - got \[5\] but expected shape compatible with "
                                           r"\[3\]"):
        Bad.apply(leaf([1.0, 2.0, 3.0])).sum().backward()


def test_broadcastable_gradient_is_summed_to_the_input_shape():
    Wide = _returning(lambda g: torch.ones(4, 3, dtype=torch.float64))
    x = leaf([[1.0, 2.0, 3.0]])
    Wide.apply(x).sum().backward()
    assert_close(x.grad, np.full((1, 3), 4.0))


def test_gradient_of_other_dtype_is_cast():
    F32 = _returning(lambda g: g.to(torch.float32) * 2)
    x = leaf([1.0, 2.0])
    F32.apply(x).sum().backward()
    assert x.grad.dtype == torch.float64
    assert_close(x.grad, np.full(2, 2.0))


def test_gradient_for_non_tensor_input_refused():
    Bad = _returning(lambda g: (g, torch.ones(1)))
    with pytest.raises(RuntimeError, match="position 2, but the corresponding forward input "
                                           "was not a Variable"):
        Bad.apply(leaf([1.0]), 1.0).sum().backward()


def test_gradient_not_a_tensor_refused():
    Bad = _returning(lambda g: 3.0)
    with pytest.raises(TypeError, match="float"):
        Bad.apply(leaf([1.0])).sum().backward()


def test_errors_in_backward_propagate():
    def boom(g):
        raise ValueError("boom in backward")
    Bad = _returning(boom)
    with pytest.raises(ValueError, match="boom in backward"):
        Bad.apply(leaf([1.0])).sum().backward()


def test_legacy_instantiation_refused():
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        Cube()


# ---- higher order -------------------------------------------------------------------------

def test_double_backward_through_function():
    x = leaf([1.0, -2.0, 0.5])
    y = Cube.apply(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    assert_close(g.detach(), 3 * x.detach().cpu().numpy() ** 2)
    gg, = torch.autograd.grad(g.sum(), x)
    assert_close(gg, 6 * x.detach().cpu().numpy())
    assert gradgradcheck(Cube.apply, (rand(3),))


def test_double_backward_through_saved_output():
    # d/dx exp(x) * exp(x) summed: the second derivative needs the saved
    # output's own history even though the output object is gone.
    x = leaf([0.3, -0.7])
    y = Exp.apply(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x)
    assert_close(gg, np.exp(x.detach().cpu().numpy()))
    assert gradgradcheck(Exp.apply, (rand(2, 2),))


def test_once_differentiable():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            assert not torch.is_grad_enabled()
            return torch.from_numpy(2 * x.detach().cpu().numpy() * g.detach().cpu().numpy())

    x = leaf([1.0, 3.0])
    Square.apply(x).sum().backward()
    assert_close(x.grad, np.array([2.0, 6.0]))
    # With a gradient that itself requires grad, the first order still works
    # and only differentiating its result again raises.
    v = leaf([1.0, 1.0])
    g, = torch.autograd.grad(Square.apply(x), x, grad_outputs=v, create_graph=True)
    assert_close(g.detach(), np.array([2.0, 6.0]))
    assert g.requires_grad
    # PyTorch's message, naming no function
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was "
                                           "marked with @once_differentiable$"):
        g.sum().backward()


# ---- lifetime ---------------------------------------------------------------------------------

def test_function_graph_is_freed_without_gc():
    x = leaf(np.ones(1000))
    base = sys.getrefcount(x)
    gc.disable()
    try:
        for _ in range(50):
            y = Exp.apply(Cube.apply(x))
            p, s = SplitProduct.apply(y, x)
            del y, p, s
        assert sys.getrefcount(x) == base
        for _ in range(20):
            loss = Exp.apply(x).sum()
            loss.backward()
            del loss
        assert sys.getrefcount(x) == base
    finally:
        gc.enable()


# ---- a layer written with scipy.signal ----------------------------------------------------------

class Correlate1d(Function):
    """y = correlate(x, w, 'valid'): y[i] = sum_k x[i + k] w[k].

    Forward and backward run scipy.signal on zero-copy ndarrays:
    dL/dx = convolve(g, w, 'full'), dL/dw = correlate(x, g, 'valid')."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        y = scipy.signal.correlate(x.detach().cpu().numpy(), w.detach().cpu().numpy(), mode="valid")
        return torch.from_numpy(y)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gn = g.detach().cpu().numpy()
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = torch.from_numpy(scipy.signal.convolve(gn, w.detach().cpu().numpy(), mode="full"))
        if ctx.needs_input_grad[1]:
            gw = torch.from_numpy(scipy.signal.correlate(x.detach().cpu().numpy(), gn, mode="valid"))
        return gx, gw


def test_scipy_signal_layer_values_and_gradcheck():
    x, w = rand(12), rand(4, seed=1)
    y = Correlate1d.apply(x, w)
    xv, wv = x.detach().cpu().numpy(), w.detach().cpu().numpy()
    expect = np.array([xv[i:i + 4] @ wv for i in range(9)])
    assert_close(y.detach(), expect)
    assert gradcheck(Correlate1d.apply, (x, w))


def test_scipy_signal_layer_in_a_model():
    x = rand(16)
    w1, w2 = rand(3, seed=1), rand(5, seed=2)
    out = Correlate1d.apply(Correlate1d.apply(x, w1) * 2, w2)
    loss = (out * out).sum()
    loss.backward()
    assert x.grad.shape == x.shape and w1.grad.shape == w1.shape and w2.grad.shape == w2.shape
    assert gradcheck(lambda a, b, c: Correlate1d.apply(Correlate1d.apply(a, b), c), (x, w1, w2))


def test_scipy_signal_layer_weight_only():
    x = torch.tensor(np.arange(8.0), dtype=torch.float64)  # data: no grad
    w = rand(3)
    Correlate1d.apply(x, w).sum().backward()
    assert_close(w.grad, np.array([x.cpu().numpy()[k:k + 6].sum() for k in range(3)]))
