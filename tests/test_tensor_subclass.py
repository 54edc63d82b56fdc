"""Python subclasses of Tensor: construction (class call, as_subclass,
_make_subclass), the default __torch_function__ keeping the subclass across
ops, indexing, in-place ops and views, autograd through subclasses,
nn.Parameter's unchanged semantics, pickling and save/load."""
import copy
import io
import pickle

import numpy as np
import pytest

import torchlike
from torchlike import Tensor
from torchlike.nn import Parameter


class Sub(Tensor):
    pass


class Tagged(Tensor):
    """Keeps a Python attribute: results of ops do not inherit it (PyTorch)."""


def sub(values, cls=Sub):
    return torchlike.tensor(values).as_subclass(cls)


def test_as_subclass_shares_data():
    base = torchlike.arange(6.0)
    s = base.as_subclass(Sub)
    assert type(s) is Sub and type(base) is Tensor
    s[0] = 10.0  # a view: writes are seen by both
    assert base[0].item() == 10.0
    assert s.data_ptr() == base.data_ptr()
    assert s.shape == base.shape and s.dtype == base.dtype


def test_as_subclass_rejects_non_subclasses():
    msg = "Creating a Tensor subclass from a class that does not inherit from Tensor"
    with pytest.raises(TypeError, match=msg):
        torchlike.ones(2).as_subclass(int)
    with pytest.raises(TypeError, match=msg):
        Tensor._make_subclass(int, torchlike.ones(2))


def test_class_call_builds_instances():
    s = Sub([1.0, 2.0])
    assert type(s) is Sub
    np.testing.assert_array_equal(s.as_subclass(Tensor).numpy(), [1.0, 2.0])


def test_make_subclass():
    data = torchlike.ones(3)
    s = Tensor._make_subclass(Sub, data, True)
    assert type(s) is Sub and s.requires_grad and s.is_leaf
    assert s.data_ptr() == data.data_ptr()
    assert not data.requires_grad


@pytest.mark.parametrize("expr", [
    "s + 1", "1 + s", "s * s", "s - t", "t - s", "-s", "s ** 2", "s @ s", "s.sum()",
    "s.exp()", "torchlike.exp(s)", "s[1:]", "s[0]", "s.view(3, 1)", "s.reshape(3)", "s.t()",
    "s.unsqueeze(0)", "s.clone()", "s.detach()", "torchlike.cat([s, t])",
    "torchlike.nn.functional.relu(s)", "torchlike.where(s > 1, s, t)", "s.to(torchlike.float64)",
    "s.float()", "torchlike.linalg.norm(s)", "s.abs()", "s.mT if s.ndim > 1 else s.T"])
def test_ops_keep_the_subclass(expr):
    s, t = sub([1.0, 2.0, 3.0]), torchlike.tensor([3.0, 2.0, 1.0])
    r = eval(expr)
    assert type(r) is Sub, expr
    ref = eval(expr, {"s": s.as_subclass(Tensor), "t": t, "torchlike": torchlike})
    np.testing.assert_allclose(r.as_subclass(Tensor).numpy(), ref.numpy(), rtol=1e-6)


def test_tuple_results_convert_each_tensor():
    s = sub([3.0, 1.0, 2.0])
    values, indices = s.sort()
    assert type(values) is Sub and type(indices) is Sub
    assert type(s.sort()).__name__ == "sort"
    parts = s.split(1)
    assert isinstance(parts, tuple) and all(type(p) is Sub for p in parts)


def test_non_tensor_results_are_left_alone():
    s = sub([1.0, 2.0])
    assert type(s.shape) is torchlike.Size and s.shape == (2,)
    assert s.tolist() == [1.0, 2.0]
    assert s.dtype is torchlike.float32
    assert len(s) == 2 and s.numel() == 2 and float(s[1]) == 2.0 and bool(s[1])


def test_in_place_ops_return_self():
    s = sub([1.0, 2.0])
    same = s.add_(1)
    assert same is s and type(s) is Sub
    s += 1
    assert type(s) is Sub
    s[0] = 0.0
    s.mul_(torchlike.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(s.as_subclass(Tensor).numpy(), [0.0, 8.0])


def test_subclass_attributes_survive_views_only_as_pytorch():
    s = sub([1.0, 2.0], Tagged)
    s.tag = "x"
    assert s.tag == "x"
    r = s + 1
    assert type(r) is Tagged and not hasattr(r, "tag")


def test_autograd_through_subclass():
    x = sub([1.0, 2.0, 3.0]).requires_grad_()
    assert x.is_leaf
    y = (x * x).sum()
    assert type(y) is Sub and y.grad_fn is not None
    y.backward()
    assert type(x.grad) is Tensor  # the engine's gradients stay plain (PyTorch)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_as_subclass_of_a_leaf_keeps_the_graph():
    x = torchlike.tensor([1.0, 2.0], requires_grad=True)
    s = x.as_subclass(Sub)
    assert not s.is_leaf and s.requires_grad
    (s * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    with torchlike.no_grad():
        # a view of x made in no_grad: PyTorch 2.15 answers requires_grad True
        # (with no grad_fn), as for x[1:] made there
        s = x.as_subclass(Sub)
        assert s._base is x and s.requires_grad and s.grad_fn is None


def test_as_subclass_of_a_non_leaf_shares_its_node():
    x = torchlike.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    s = y.as_subclass(Sub)
    assert s.grad_fn is y.grad_fn
    (s ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0])


def test_gradcheck_through_subclass():
    x = sub(np.linspace(0.1, 1.0, 4).tolist()).double().requires_grad_()
    assert torchlike.autograd.gradcheck(lambda v: (v.sin() * v).sum(), (x,))


def test_subclass_grad_of_leaf_made_with_make_subclass():
    p = Tensor._make_subclass(Sub, torchlike.tensor([1.0, -1.0]), True)
    torchlike.nn.functional.relu(p).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, 0.0])


def test_parameter_semantics_unchanged():
    p = Parameter(torchlike.ones(2))
    assert type(p) is Parameter and p.requires_grad and p.is_leaf
    assert Parameter.__torch_function__ is torchlike._C._disabled_torch_function_impl
    for r in (p * 2, p[0], p.detach(), p + p, torchlike.exp(p), p.view(2, 1)):
        assert type(r) is Tensor
    buf = torchlike.nn.Buffer(torchlike.ones(2))
    assert type(buf * 2) is Tensor
    m = torchlike.nn.Linear(2, 1)
    assert type(m.weight) is Parameter and type(m(torchlike.ones(1, 2))) is Tensor
    assert "Parameter containing" in repr(p)


def test_pickle_keeps_subclass_and_attributes():
    s = sub([1.0, 2.0], Tagged)
    s.tag = 5
    r = pickle.loads(pickle.dumps(s))
    assert type(r) is Tagged and r.tag == 5
    np.testing.assert_array_equal(r.as_subclass(Tensor).numpy(), [1.0, 2.0])
    c = copy.deepcopy(s)
    assert type(c) is Tagged and c.tag == 5 and c.data_ptr() != s.data_ptr()


def test_save_load_subclass():
    s = sub([1.0, 2.0], Tagged)
    s.tag = 7
    buf = io.BytesIO()
    torchlike.save(s, buf)
    buf.seek(0)
    with pytest.raises(Exception, match="[Ww]eights.only"):  # not a plain tensor: refused
        torchlike.load(buf)
    buf.seek(0)
    r = torchlike.load(buf, weights_only=False)
    assert type(r) is Tagged and r.tag == 7
    np.testing.assert_array_equal(r.as_subclass(Tensor).numpy(), [1.0, 2.0])


Tagged.__module__ = __name__  # pickled by reference


def test_repr_names_the_subclass():
    s = torchlike.ones(2, 2).as_subclass(Sub).requires_grad_()
    assert repr(s) == "Sub([[1., 1.],\n     [1., 1.]], requires_grad=True)"
    assert repr(torchlike.ones(2)) == "tensor([1., 1.])"
    assert repr(torchlike.nn.Buffer(torchlike.ones(2))) == "tensor([1., 1.])"
    assert repr(Parameter(torchlike.ones(2))) == ("Parameter containing:\n"
                                                  "tensor([1., 1.], requires_grad=True)")
