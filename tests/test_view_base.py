"""Every view knows its base, recorded by autograd or not (Tensor._base,
Tensor._is_view(), the NumPy-facing x.base and flags.owndata), and in-place
writes through views follow PyTorch's rules: a write through a view of a
plain tensor gives the base a CopySlices history, a view whose base was
written since is rebuilt over the base's history, and views made in no_grad
or inference mode or by split/chunk/unbind refuse recorded writes.

The facts are PyTorch 2.15's, recorded by scripts/golden_view_base.py from the
cases of tests/view_base_cases.py; gradients are also checked by finite
differences (gradcheck)."""
import gc
import io
import json
import os
import sys
import weakref

import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from torchlike.autograd import gradcheck, gradgradcheck

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_base_cases import AUTOGRAD, MULTI, VIEWS, where  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "view_base.json")
with open(GOLDEN) as f:
    GOLD = json.load(f)



@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_base_matches_pytorch(name):
    a, out = VIEWS[name](tl)
    assert {"where": where(a, out), "is_view": out._is_view()} == GOLD["views"][name]
    if out._base is not None:  # the base is a root: it is no view itself
        assert out._base._base is None and not out._base._is_view()


@pytest.mark.parametrize("name", sorted(MULTI))
def test_multi_output_view_bases_match_pytorch(name):
    a, outs = MULTI[name](tl)
    assert [where(a, o) for o in outs] == GOLD["multi"][name]


@pytest.mark.parametrize("name", sorted(AUTOGRAD))
def test_inplace_through_views_matches_pytorch(name):
    got, want = AUTOGRAD[name](tl), GOLD["autograd"][name]
    if name == "detach_view_in_place":  # PyTorch goes on about DDP buckets
        assert want["error"].startswith(got["error"]) and got["error"].endswith("instead.")
        return
    assert got == want


# ---- gradients by finite differences ----------------------------------------------

def _x(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.standard_normal(shape), dtype=tl.float64, requires_grad=True)


def test_write_into_view_of_plain_base_gradcheck():
    def f(w, u):
        a = tl.zeros(3, 4, dtype=tl.float64)
        a[:, 1:3].add_(w)  # a strided view of a plain tensor
        col = a.t()[3]
        col.copy_(u * u)
        return a * a.sum()

    assert gradcheck(f, (_x(3, 2), _x(3, seed=1)))


def test_write_through_base_then_sibling_views_gradcheck():
    def f(w, u):
        a = tl.ones(6, dtype=tl.float64)
        v1, v2 = a[:4], a[2:]  # overlapping siblings
        a.mul_(w)  # both are stale: rebuilt over a's history
        v1.add_(u)
        return v2[:2] * v1[2:]

    assert gradcheck(f, (_x(6), _x(4, seed=3)))


def test_view_made_by_transpose_then_reshape_of_written_base_gradcheck():
    def f(w):
        a = tl.zeros(2, 3, dtype=tl.float64)
        t = a.T
        a.add_(w)
        return t.reshape(6) * tl.arange(6, dtype=tl.float64)

    assert gradcheck(f, (_x(2, 3),))


def test_write_into_view_of_fortran_ordered_base_gradcheck():
    # the base is not contiguous (NumPy's Fortran order): CopySlices
    # addresses it by storage positions
    def f(w, u):
        a = tl.from_numpy(np.asfortranarray(np.arange(12.0).reshape(3, 4)))
        assert not a.is_contiguous() and a._base is None
        a[:, 1:3].mul_(w)
        a.t()[0].add_(u * u)
        return a * a

    args = (_x(3, 2), _x(3, seed=4))
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_write_into_view_of_reversed_base_refused():
    a = tl.from_numpy(np.zeros(4)[::-1])
    assert a.stride() == (-1,) and a._base is None
    with pytest.raises(RuntimeError, match="negative strides"):
        a[1:].add_(_x(3))


# ---- what stays as it was ------------------------------------------------------------

def test_untracked_views_of_plain_tensors_stay_plain():
    a = tl.zeros(3, 4)
    v = a[1:]
    assert not v.requires_grad and v.grad_fn is None and v.is_leaf
    v.add_(1)  # no argument requires grad: nothing is recorded
    assert a.grad_fn is None and not a.requires_grad
    np.testing.assert_array_equal(a.numpy()[1:], 1)


def test_views_made_in_no_grad_are_views_and_plain_writes_in_no_grad_work():
    x = _x(4)
    with tl.no_grad():
        v = x[1:]
        v.mul_(2)  # inside no_grad: allowed, not recorded
    assert v._base is x and x.grad_fn is None


def test_view_under_torch_function_subclass_keeps_root_base():
    class Sub(tl.Tensor):
        pass

    a = tl.arange(4.0)
    s = a.as_subclass(Sub)
    v = s[1:]
    assert type(v) is Sub and s._base is a and v._base is a


def test_loaded_views_share_memory_and_are_no_views():
    a = tl.arange(6.0)
    buf = io.BytesIO()
    tl.save([a, a[1:], a.view(2, 3).T], buf)
    buf.seek(0)
    b, v, t = tl.load(buf)
    assert v._base is None and t._base is None  # PyTorch: rebuilt on the storage
    b[2] = 100.0
    assert v[1].item() == 100.0 and t[2, 0].item() == 100.0


# ---- NumPy's x.base through torchlike.numpy -------------------------------------------

NUMPY_CASES = {
    "slice": lambda a: a[1:],
    "view_of_view": lambda a: a[1:][0],
    "ellipsis": lambda a: a[...],
    "T": lambda a: a.T,
    "transpose": lambda a: a.transpose(),
    "reshape_view": lambda a: a.reshape(12),
    "ravel": lambda a: a.ravel(),
    "fancy": lambda a: a[[0, 2]],
    "mask": lambda a: a[a > 3],
    "copy": lambda a: a.copy(),
    "np.transpose": lambda a: np.transpose(a),
    "np.expand_dims": lambda a: np.expand_dims(a, 0),
    "np.squeeze": lambda a: np.squeeze(a[None]),
    "np.moveaxis": lambda a: np.moveaxis(a, 0, 1),
    "np.diagonal": lambda a: np.diagonal(a),
    "copy_F": lambda a: a.copy(order="F"),
    "np.broadcast_to": lambda a: np.broadcast_to(a, (2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_numpy_base_matches_numpy(name):
    fn = NUMPY_CASES[name]
    n = np.arange(12.0).reshape(3, 4).copy()  # owns its memory
    t = tnp.asarray(n.copy())
    want, got = fn(n), fn(t)
    assert isinstance(got, tl.Tensor)
    assert (want.base is None) == (got.base is None)
    if got.base is not None:
        assert (want.base is n) == (got.base is t)
    assert got.flags.owndata == want.flags.owndata


def test_numpy_base_differences_are_pytorch_rules():
    t = tnp.asarray(np.arange(12.0).reshape(3, 4))
    # view(dtype): NumPy's base is the array, PyTorch's _base None (kept)
    assert t.view(np.int64).base is None
    # flatten(): NumPy copies, PyTorch's flatten views when it can (kept)
    assert t.flatten().base is t
    # a reshape that copies: NumPy's base is its internal temporary, ours None
    n = np.arange(12.0).reshape(3, 4).copy()
    assert n.T.reshape(12).base is not None and n.T.reshape(12).base is not n
    assert t.T.reshape(12).base is None and t.T.reshape(12).flags.owndata


# ---- references: a view holds its base, nothing more ----------------------------------

def test_view_holds_exactly_one_reference_to_its_base():
    a = tl.zeros(3, 4)
    before = sys.getrefcount(a)
    views = [a[1:], a.T, a.view(12), a.unbind(0)[0], a[0][1:]]
    assert sys.getrefcount(a) == before + len(views)
    del views
    assert sys.getrefcount(a) == before


def test_views_and_rebuilt_histories_free_their_base():
    a = tl.zeros(4, dtype=tl.float64)
    w = _x(4)
    v = a[1:]
    a.add_(w)
    (v * v).sum().backward()  # v's history was rebuilt
    ref = weakref.ref(a)
    del a, v
    gc.collect()
    assert ref() is None


def test_base_is_freed_with_its_last_view():
    a = tl.zeros(4)
    v = a[1:]
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is v._base
    del v
    gc.collect()
    assert ref() is None
