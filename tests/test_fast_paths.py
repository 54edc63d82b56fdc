"""The shortcuts of small calls behave as the general paths do.

Tensor objects are reused after they are freed (a free list in py_tensor.c):
a new tensor never shows a freed one's attributes, gradient, view base or
weak references.  x.T builds its view directly when nothing can see the
call; it must give what x.permute(reversed dims) gives (values as NumPy's
.T, the same view base and version counter, the same no_grad/inference
limits) and step aside for a reassigned Tensor.permute, a
__torch_function__ mode or subclass, the profiler and autograd.  x.ravel()
with no argument goes to PyTorch's ravel from C; any argument still selects
NumPy's meaning.  (NumPy's order="K" of a permuted array is not checked:
ravel differs there, before these shortcuts as after.)"""
import gc
import weakref

import numpy as np
import pytest

import torchlike as tl
from torchlike.overrides import TorchFunctionMode


def _reversed_permute(x):
    return x.permute(*reversed(range(x.ndim)))


def test_reused_tensor_objects_start_clean():
    dead = []
    for i in range(200):  # more than the free list holds
        t = tl.ones(3, requires_grad=True) * 2
        t.retain_grad()
        t.sum().backward()
        t.note = i
        dead.append(weakref.ref(t))
        v = t.detach()[1:]
        del t, v
    gc.collect()
    assert all(r() is None for r in dead)
    for _ in range(200):
        n = tl.zeros(4) + 1
        assert not hasattr(n, "note")
        assert n.grad is None and n.grad_fn is None and not n.requires_grad
        assert n._base is None and not n.is_inference()
        assert weakref.getweakrefcount(n) == 0
        np.testing.assert_array_equal(n.numpy(), np.ones(4, dtype=np.float32))


def test_weakref_callback_runs_before_reuse():
    seen = []
    t = tl.arange(5.0) + 1
    r = weakref.ref(t, lambda ref: seen.append(ref))
    del t
    assert seen == [r] and r() is None
    u = tl.arange(3.0) + 1  # may be the same memory: a fresh object all the same
    assert weakref.getweakrefcount(u) == 0


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4)])
def test_T_matches_numpy_and_permute(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = tl.tensor(a)
    for src in (x, x[..., ::2] if x.ndim else x):
        t = src.T
        np.testing.assert_array_equal(t.numpy(), src.numpy().T)
        p = _reversed_permute(src)
        assert t.stride() == p.stride() and t.shape == p.shape
        assert t._base is p._base is x
        assert t._version == p._version
    before = x._version
    t = x.T
    t.add_(1)  # a write through the view is x's
    np.testing.assert_array_equal(x.numpy(), a + 1)
    assert x._version == t._version == before + 1


def test_T_keeps_view_limits_of_no_grad_and_inference():
    x = tl.ones(2, 3, requires_grad=True)
    y = x * 1
    with tl.no_grad():
        t, p = y.T, _reversed_permute(y)
    msgs = []
    for v in (t, p):
        with pytest.raises(RuntimeError) as e:
            v.mul_(2)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    with tl.inference_mode():
        i = tl.ones(2, 3)
        assert i.T.is_inference() == _reversed_permute(i).is_inference()
        assert (i.T._base is None) == (_reversed_permute(i)._base is None)


def test_T_records_when_grad_is_wanted():
    x = tl.ones(2, 3, requires_grad=True)
    t = x.T
    assert type(t.grad_fn).__name__ == type(_reversed_permute(x).grad_fn).__name__
    (t * tl.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_T_calls_a_reassigned_permute():
    calls = []
    original = tl.Tensor.permute

    def permute(self, *dims):
        calls.append(dims)
        return original(self, *dims)

    tl.Tensor.permute = permute
    try:
        x = tl.ones(2, 3)
        assert x.T.shape == (3, 2)
    finally:
        tl.Tensor.permute = original
    assert calls == [(1, 0)]
    assert tl.ones(2, 3).T.shape == (3, 2) and calls == [(1, 0)]


def test_T_reaches_torch_function_modes_and_subclasses():
    class Record(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.names.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    x = tl.ones(2, 3)
    with Record() as mode:
        t = x.T
    assert mode.names and set(mode.names) <= {"__get__", "permute"}  # the property's getter
    assert t.shape == (3, 2) and t._base is x

    class Sub(tl.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(s.T) is Sub and s.T.shape == (3, 2)


def test_T_under_the_profiler_is_an_event():
    x = tl.ones(2, 3)
    with tl.profiler.profile() as prof:
        x.T
    names = [e.name for e in prof.events()]
    assert any("permute" in n for n in names)


@pytest.mark.parametrize("order", [None, "C", "F", "A"])
def test_ravel_spellings_match_numpy(order):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = tl.tensor(a)
    for src, t in ((a, x), (a.transpose(2, 0, 1), x.permute(2, 0, 1)),
                   (a[:, ::-1, ::2], x[:, ::-1, ::2])):
        got = t.ravel() if order is None else t.ravel(order)
        want = src.ravel() if order is None else src.ravel(order)
        np.testing.assert_array_equal(got.numpy(), want)
        if order is not None:
            np.testing.assert_array_equal(t.ravel(order=order).numpy(), want)
    assert x.ravel()._base is x  # the plain call is PyTorch's view of a contiguous tensor
    np.testing.assert_array_equal(tl.ravel(x).numpy(), a.ravel())
    np.testing.assert_array_equal(np.ravel(x), a.ravel())
    with pytest.raises(TypeError):
        x.ravel("C", 1)
