"""Autograd through views: an in-place write through a view is seen by the
base (CopySlices); a view whose base was written since is rebuilt over the
base's history; writes PyTorch refuses raise."""
import gc

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck

GRADCHECKED = {"_copy_slices"}


def _x(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.standard_normal(shape), dtype=tl.float64, requires_grad=True)


def test_inplace_through_view_reaches_the_base():
    x = _x(4)
    b = x * 1
    v = b.view(2, 2)
    assert v._base is b
    v.mul_(3)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    b.backward(tl.ones(4, dtype=tl.float64))
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.full(4, 3.0))


def test_inplace_through_view_gradcheck():
    y = _x(2, 2, seed=1)

    def f(x, y):
        b = x * 2
        b.view(2, 2).add_(y * y)  # the whole base, through a view
        return b * b

    assert gradcheck(f, (_x(4), y))
    # gradgradcheck(f, ...) needs the as_strided formula: added with it


def test_partial_view_write_keeps_the_rest_of_the_base():
    x = _x(6)
    b = x * 1
    v = b.view(2, 3).view(3, 2)  # a view of a view: the base is still b
    assert v._base is b
    v.mul_(5)
    (b * tl.arange(6, dtype=tl.float64)).backward(tl.ones(6, dtype=tl.float64))
    np.testing.assert_allclose(x.grad.cpu().numpy(), 5 * np.arange(6.0))


def test_stale_view_is_rebuilt_over_the_base():
    # PyTorch replays a view whose base was written since: its history is
    # rebuilt over the base's (as_strided), so it sees the writes
    x = _x(4)
    b = x * 1
    v1, v2 = b.view(2, 2), b.view(4)
    v1.mul_(2)
    assert v2.grad_fn.name() == "AsStridedBackward0"
    b.mul_(3)  # the base itself: v1 is rebuilt too
    (v1.sum() + (v2 * tl.arange(4, dtype=tl.float64)).sum()).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 6 + 6 * np.arange(4.0))


def test_stale_view_gradcheck():
    def f(x, w):
        b = x * 1
        v = b[1:]
        b.mul_(w)  # v is stale: rebuilt when used
        return v * v

    assert gradcheck(f, (_x(4), _x(4, seed=2)))


def test_view_of_leaf_inplace_refused():
    x = _x(4)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x.view(2, 2).mul_(2)


def test_writing_a_grad_tensor_into_a_view_of_a_plain_tensor():
    # the base gets a CopySlices history (PyTorch); it used to be refused
    b = tl.zeros(4, dtype=tl.float64)
    v = b.view(2, 2)
    w = _x(2, 2)
    v.copy_(w)
    assert b.requires_grad and b.grad_fn.name() == "torch::autograd::CopySlices"
    (b * tl.arange(4, dtype=tl.float64)).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.arange(4.0).reshape(2, 2))
    fresh = tl.zeros(2, 2, dtype=tl.float64)
    fresh.copy_(_x(2, 2))  # nothing else sees this memory: fine
    assert fresh.requires_grad and fresh.grad_fn is not None


def test_no_grad_writes_do_not_make_views_stale():
    x = _x(4)
    b = x * 1
    v = b.view(2, 2)
    with tl.no_grad():
        b.view(4).zero_()
    (v * 1).backward(tl.ones(2, 2, dtype=tl.float64))
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.ones(4))


def test_clone_and_detach_as_functions():
    x = _x(3)
    y = tl.clone(x)
    assert y.grad_fn is not None and y.grad_fn.name() == "CloneBackward0"
    d = tl.detach(y)
    assert d.grad_fn is None and not d.requires_grad
    np.testing.assert_array_equal(d.cpu().numpy(), x.detach().cpu().numpy())


def test_untracked_alias_shares_memory_with_a_version_of_its_own():
    # what gradcheck perturbs device inputs through, as PyTorch writes through .data
    x = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64, requires_grad=True)
    y = (x * x).sum()
    alias = tl._C._untracked_alias(x.detach())
    versions = x._version, alias._version
    with tl.no_grad():
        alias[1] = 5.0
    assert (x._version, alias._version) == (versions[0], versions[1] + 1)
    assert x.detach().cpu().numpy()[1] == 5.0
    alias[1] = 2.0
    y.backward()  # the graph built before the writes is still usable
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 4.0, 6.0])
    del x, y
    gc.collect()
    np.testing.assert_array_equal(alias.cpu().numpy(), [1.0, 2.0, 3.0])  # the memory stays alive


@pytest.mark.parametrize("name, args", [
    ("unsqueeze_", (0,)), ("squeeze_", ()), ("t_", ()), ("transpose_", (0, 1)),
    ("swapaxes_", (1, 0)), ("as_strided_", ((3, 2), (1, 3), 0))])
def test_inplace_view_methods_record_the_view(name, args):
    # y.<view>_() makes y that view; its history goes through the view's node,
    # so the gradient equals the out-of-place view's (gradcheck: finite
    # differences) and a leaf that requires grad is refused, as in PyTorch
    def f(x):
        y = x * 1
        getattr(y, name)(*args)
        return y
    x = _x(2, 3) if name != "squeeze_" else _x(2, 1, 3)
    assert gradcheck(f, (x,))
    out = f(x)
    want = getattr(x * 1, name[:-1])(*args)
    assert tuple(out.shape) == tuple(want.shape)
    weights = tl.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    x2 = x.detach().clone().requires_grad_()
    (getattr(x2 * 1, name[:-1])(*args) * weights).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), x2.grad.cpu().numpy())
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(_x(2, 3), name)(*args)
    with tl.no_grad():  # outside grad mode a leaf may change shape
        leaf = _x(2, 1, 3)
        leaf.squeeze_(1)
    assert tuple(leaf.shape) == (2, 3) and leaf.grad_fn is None
