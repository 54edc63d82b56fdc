"""Gradients of indexing (src/grad/formulas_index.c): __getitem__ with any key,
__setitem__, and the gather/scatter/index/masked/take/put ops with their
in-place twins.

gradcheck in float64 for every function in several argument forms; random
getitem keys checked against NumPy (np.add.at of the upstream gradient at
the elements the key picks, so repeated indices add up); ties and zeros of
scatter_reduce checked by value."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import noncontiguous

GRADCHECKED = {
    "__getitem__", "__setitem__", "gather", "scatter", "scatter_add", "scatter_reduce",
    "index_select", "index_add", "index_copy", "index_fill", "index_put", "masked_fill",
    "masked_scatter", "masked_select", "take", "take_along_dim", "put",
}

# integer results: no graph (test_nonzero_and_argwhere_have_no_graph)
NOT_DIFFERENTIABLE = {"nonzero", "argwhere"}

_rng = np.random.default_rng(4321)


def leaf(*shape, nc=False):
    t = torch.tensor(_rng.standard_normal(shape), dtype=torch.float64)
    if nc:
        t = noncontiguous(t)
    return t.requires_grad_()


def I(*v):  # noqa: E743 - an int64 index tensor
    return torch.tensor(list(v) if len(v) != 1 or not isinstance(v[0], list) else v[0])


def setitem(key, value_fn=lambda v: v):
    """f(x, v): y = x * 1; y[key] = value_fn(v); return y."""
    def f(x, v):
        y = x * 1
        y[key] = value_fn(v)
        return y
    return f


def set_scalar(key, value):
    def f(x):
        y = x * 1
        y[key] = value
        return y
    return f


def inplace(method, *args, **kwargs):
    def f(x, *tensors):
        y = x * 1
        return getattr(y, method)(*args, *tensors, **kwargs)
    return f


MASK = torch.tensor([[True, False, True], [False, False, True]])
IDX2 = torch.tensor([[0, 0, 2], [1, 1, 1]])

# (formula name, case id, function, input shapes; "nc" last: non-contiguous)
CASES = [
    ("__getitem__", "int", lambda x: x[1], [(3, 4)]),
    ("__getitem__", "neg_step", lambda x: x[::-2, 1], [(5, 4)]),
    ("__getitem__", "none_ellipsis", lambda x: x[None, ..., 1:3], [(2, 3, 4, "nc")]),
    ("__getitem__", "list_dups", lambda x: x[[0, 0, 2], 1:], [(3, 4)]),
    ("__getitem__", "tensor_dups", lambda x: x[:, I(-1, 0, -1)], [(3, 4, "nc")]),
    ("__getitem__", "bool_mask", lambda x: x[MASK], [(2, 3)]),
    ("__getitem__", "bool_dim", lambda x: x[:, torch.tensor([True, False, True])], [(2, 3)]),
    ("__getitem__", "mixed", lambda x: x[I([[0, 1], [1, 1]]), :, I(2, 0)], [(2, 2, 3)]),
    ("__getitem__", "0d", lambda x: x[...], [()]),
    ("__setitem__", "int_value", setitem(0), [(3, 4), (4,)]),
    ("__setitem__", "broadcast_value", setitem((slice(None), 1)), [(3, 4), (1,)]),
    ("__setitem__", "leading_ones", setitem(1), [(3, 4), (1, 4)]),
    ("__setitem__", "adv_value", setitem(I(0, 2)), [(3, 4, "nc"), (1, 4)]),
    ("__setitem__", "bool_value", setitem(MASK), [(2, 3), (3,)]),
    ("__setitem__", "scalar", set_scalar((Ellipsis, -1), 2.5), [(3, 4)]),
    ("__setitem__", "neg_step", setitem(slice(None, None, -2)), [(5, 2), (3, 2)]),
    ("gather", "method", lambda x: x.gather(1, I([[0, 0], [2, 1]])), [(2, 3)]),
    ("gather", "func_kw_neg", lambda x: torch.gather(x, dim=-2, index=I([[1, 0, 1]])),
     [(2, 3, "nc")]),
    ("scatter", "src", lambda x, s: x.scatter(1, I([[0, 2], [1, 0]]), s), [(2, 3), (2, 3)]),
    ("scatter", "small_index", lambda x, s: torch.scatter(x, 0, I([[1, 0]]), s), [(2, 3), (2, 3)]),
    ("scatter", "value_kw", lambda x: x.scatter(dim=1, index=I([[0, 2], [1, 0]]), value=1.5),
     [(2, 3)]),
    ("scatter", "reduce_add", lambda x, s: x.scatter(1, I([[0, 0], [1, 0]]), s, reduce="add"),
     [(2, 3), (2, 3)]),
    ("scatter", "reduce_multiply", lambda x, s: x.scatter(1, I([[0, 0], [1, 0]]), s,
                                                          reduce="multiply"), [(2, 3), (2, 3)]),
    ("scatter", "value_multiply", lambda x: x.scatter(1, I([[0, 0], [1, 0]]), 2.0,
                                                      reduce="multiply"), [(2, 3)]),
    ("scatter", "inplace", inplace("scatter_", 1, I([[0, 2], [1, 0]])), [(2, 3), (2, 3)]),
    ("scatter_add", "method", lambda x, s: x.scatter_add(0, I([[0, 1, 0]]), s), [(2, 3), (2, 3)]),
    ("scatter_add", "func_neg_nc", lambda x, s: torch.scatter_add(x, -1, IDX2, s),
     [(2, 3, "nc"), (2, 3, "nc")]),
    ("scatter_add", "inplace", inplace("scatter_add_", 1, IDX2), [(2, 3), (2, 3)]),
] + [
    ("scatter_reduce", f"{r}_{'self' if inc else 'noself'}",
     (lambda r, inc: lambda x, s: x.scatter_reduce(1, IDX2, s, r, include_self=inc))(r, inc),
     [(2, 3), (2, 3)])
    for r in ["sum", "prod", "mean", "amax", "amin"] for inc in [True, False]
] + [
    ("scatter_reduce", "func_kw", lambda x, s: torch.scatter_reduce(
        x, dim=0, index=I([[1, 0, 1]]), src=s, reduce="mean"), [(2, 3), (2, 3)]),
    ("scatter_reduce", "inplace_prod", inplace("scatter_reduce_", 1, IDX2, reduce="prod"),
     [(2, 3), (2, 3)]),
    ("index_select", "method_dups", lambda x: x.index_select(1, I(2, 0, 2)), [(2, 3)]),
    ("index_select", "func_kw_nc", lambda x: torch.index_select(x, dim=-2, index=I(1)),
     [(2, 3, "nc")]),
    ("index_add", "alpha", lambda x, s: x.index_add(1, I(2, 0, 2), s, alpha=2.5),
     [(2, 3), (2, 3)]),
    ("index_add", "func", lambda x, s: torch.index_add(x, 0, I(1), s), [(2, 3), (1, 3, "nc")]),
    ("index_add", "inplace", inplace("index_add_", 0, I(1, 1)), [(2, 3), (2, 3)]),
    ("index_copy", "method", lambda x, s: x.index_copy(0, I(2, 0), s), [(3, 2), (2, 2)]),
    ("index_copy", "inplace_neg", inplace("index_copy_", -1, I(1)), [(3, 2), (3, 1)]),
    ("index_fill", "tensor_value", lambda x, v: x.index_fill(0, I(2, 0, 0), v), [(3, 2), ()]),
    ("index_fill", "scalar", lambda x: torch.index_fill(x, -1, I(1), -3.0), [(3, 2, "nc")]),
    ("index_fill", "inplace", inplace("index_fill_", 0, I(1), 0.5), [(3, 2)]),
    ("index_put", "pairs", lambda x, v: x.index_put((I(0, 2), I(1, 1)), v), [(3, 2), (2,)]),
    ("index_put", "broadcast_value", lambda x, v: x.index_put((I(0, 2),), v), [(3, 2), (2,)]),
    ("index_put", "accumulate_dups", lambda x, v: x.index_put((I(0, 0),), v, accumulate=True),
     [(3, 2), (2,)]),
    ("index_put", "none_dim", lambda x, v: torch.index_put(x, [None, I(1, 0)], v),
     [(3, 2), (3, 2)]),
    ("index_put", "inplace", inplace("index_put_", (I(1),), accumulate=True), [(3, 2), (2,)]),
    ("masked_fill", "tensor_value", lambda x, v: x.masked_fill(MASK[0], v), [(2, 3), ()]),
    ("masked_fill", "broadcast_out", lambda x: torch.masked_fill(x, MASK, 2.0), [(3,)]),
    ("masked_fill", "inplace", inplace("masked_fill_", MASK, -1.0), [(2, 3, "nc")]),
    ("masked_scatter", "longer_source", lambda x, s: x.masked_scatter(MASK, s), [(2, 3), (5,)]),
    ("masked_scatter", "broadcast_mask", lambda x, s: x.masked_scatter(MASK[1], s),
     [(2, 3), (2, 2)]),
    ("masked_scatter", "inplace", inplace("masked_scatter_", MASK), [(2, 3), (3,)]),
    ("masked_select", "broadcast", lambda x: x.masked_select(torch.tensor([[True], [False]])),
     [(3,)]),
    ("masked_select", "func_nc", lambda x: torch.masked_select(x, MASK), [(2, 3, "nc")]),
    ("take", "dups_neg", lambda x: x.take(I([[0, -1], [0, 3]])), [(2, 3)]),
    ("take", "func_nc", lambda x: torch.take(x, I(5, 1)), [(2, 3, "nc")]),
    ("take_along_dim", "dim", lambda x: torch.take_along_dim(x, I([[0, 1, 0]]), dim=0),
     [(2, 3)]),
    ("take_along_dim", "broadcast", lambda x: x.take_along_dim(I([[1], [0]]), -1), [(1, 3)]),
    ("take_along_dim", "flat", lambda x: torch.take_along_dim(x, I(1, 1, 4)), [(2, 3, "nc")]),
    ("put", "method", lambda x, s: x.put(I(0, 4), s), [(2, 3), (2,)]),
    ("put", "accumulate", lambda x, s: torch.put(x, I(0, 0), s, accumulate=True),
     [(2, 3), (2,)]),
    ("put", "inplace_neg", inplace("put_", I(-1, 2)), [(2, 3), (2,)]),
]


def make(shapes):
    return [leaf(*s[:-1], nc=True) if s and s[-1] == "nc" else leaf(*s) for s in shapes]


@pytest.mark.parametrize("name,fn,shapes", [c[0:1] + c[2:] for c in CASES],
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_gradcheck(name, fn, shapes):
    assert gradcheck(fn, make(shapes))


def test_gradchecked_names_are_formulas():
    formulas = torch._C._grad_formulas()
    assert {c[0] for c in CASES} == GRADCHECKED
    assert all(formulas[n] for n in GRADCHECKED)


@pytest.mark.parametrize("fn,shapes", [
    (lambda x: x[1:, ::-1] * x[:1], [(2, 3)]),
    (lambda x: x[I(0, 0, 1)] * x[I(1, 1, 0)], [(2, 3)]),
    (lambda x: x.gather(1, I([[0, 0], [2, 1]])) * x[:, :2], [(2, 3)]),
    (setitem(I(0, 2), lambda v: v * v), [(3, 4), (4,)]),
    (lambda x, s: x.index_add(0, I(1, 1), s * s), [(2, 3), (2, 3)]),
    (lambda x, s: x.masked_scatter(MASK, s) * x, [(2, 3), (4,)]),
], ids=["getitem_basic", "getitem_adv", "gather", "setitem", "index_add", "masked_scatter"])
def test_gradgradcheck(fn, shapes):
    assert gradgradcheck(fn, make(shapes))


# ---- random getitem keys against NumPy -----------------------------------------------

@st.composite
def index_keys(draw):
    """(shape, key for NumPy, key for torchlike): ints, slices with any step,
    None, Ellipsis, integer arrays/lists (broadcasting) or one bool mask."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    use_bool = draw(st.integers(0, 5)) == 0
    length = draw(st.integers(1, 3))
    np_key, tl_key = [], []
    bool_dim = draw(st.integers(0, ndim - 1)) if use_bool else -1
    for d, n in enumerate(shape):
        if d == bool_dim:
            mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
            np_key.append(mask)
            tl_key.append(torch.tensor(mask))
            continue
        kinds = ["int", "slice", "slice", "full"] + ([] if use_bool else ["array", "list"])
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            i = draw(st.integers(-n, n - 1))
            np_key.append(i)
            tl_key.append(i)
        elif kind in ("slice", "full"):
            s = slice(None) if kind == "full" else slice(
                draw(st.none() | st.integers(-n - 1, n + 1)),
                draw(st.none() | st.integers(-n - 1, n + 1)),
                draw(st.sampled_from([None, 1, 2, 3, -1, -2])))
            np_key.append(s)
            tl_key.append(s)
        else:
            lead = draw(st.sampled_from([(), (1,), (2,)])) if kind == "array" else ()
            vals = draw(st.lists(st.integers(-n, n - 1), min_size=length * int(np.prod(lead)),
                                 max_size=length * int(np.prod(lead))))
            arr = np.array(vals, dtype=np.int64).reshape(lead + (length,))
            np_key.append(arr)
            tl_key.append(torch.tensor(arr) if kind == "array" else list(vals))
    if draw(st.booleans()):  # an Ellipsis standing for k dims
        at = draw(st.integers(0, len(np_key)))
        k = draw(st.integers(0, len(np_key) - at))
        np_key[at:at + k] = [Ellipsis]
        tl_key[at:at + k] = [Ellipsis]
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(np_key)))
        np_key.insert(at, None)
        tl_key.insert(at, None)
    return shape, tuple(np_key), tuple(tl_key)


@given(index_keys(), st.integers(0, 2**31 - 1))
def test_getitem_gradient_matches_numpy(case, seed):
    shape, np_key, tl_key = case
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    picked = np.arange(a.size).reshape(shape)[np_key]  # which element each output came from
    w = rng.standard_normal(picked.shape)
    x = torch.tensor(a, requires_grad=True)
    y = x[tl_key]
    assert tuple(y.shape) == picked.shape
    np.testing.assert_array_equal(y.detach().cpu().numpy(), a[np_key])
    (y * torch.tensor(w)).sum().backward()
    expected = np.zeros(a.size)
    np.add.at(expected, picked.ravel(), w.ravel())
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected.reshape(shape), rtol=1e-12, atol=1e-12)


@given(index_keys(), st.integers(0, 2**31 - 1))
def test_setitem_gradient_matches_numpy(case, seed):
    """y = x * 1; y[key] = v: x gets w where nothing was written, v gets
    w[key] (PyTorch's rule, also for keys that write an element twice)."""
    shape, np_key, tl_key = case
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    written = a[np_key]
    x = torch.tensor(a, requires_grad=True)
    v = torch.tensor(rng.standard_normal(written.shape), requires_grad=True)
    w = rng.standard_normal(shape)
    y = x * 1
    y[tl_key] = v
    (y * torch.tensor(w)).sum().backward()
    kept = np.ones(shape)
    kept[np_key] = 0
    np.testing.assert_allclose(x.grad.cpu().numpy(), w * kept, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v.grad.cpu().numpy(), w[np_key], rtol=1e-12, atol=1e-12)


# ---- setitem on non-views, and the refusal on views -------------------------------------

def test_setitem_and_augmented_assignment_on_a_non_view():
    x = leaf(3, 4)
    v = leaf(4)
    idx = I(0, 2)
    y = x * 1
    y[0] = v
    y[idx] += v  # y[idx] is a copy (advanced index): add then write back
    w = np.arange(12.0).reshape(3, 4)
    (y * torch.tensor(w)).sum().backward()
    # y[0] = v + v, y[2] = x[2] + v, y[1] = x[1]
    np.testing.assert_allclose(x.grad.cpu().numpy(), w * np.array([[0], [1], [1]]))
    np.testing.assert_allclose(v.grad.cpu().numpy(), 2 * w[0] + w[2])


def test_setitem_refused_on_a_leaf_and_its_views():
    x = leaf(3, 4)
    with pytest.raises(RuntimeError, match="leaf"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="leaf"):
        x[0][1] = 2.0


def test_writes_through_getitem_views_reach_the_base():
    def f(x, v):
        y = x * 1
        row = y[0]
        row[1:] = v[:3]  # setitem on a view of y
        y[1] += v  # y[1] is a view: add_ through it
        y.t().index_fill_(0, I(0), 1.0)  # an index op through a view
        return y
    assert gradcheck(f, make([(3, 4), (4,)]))


def test_inplace_index_op_updates_history():
    x = leaf(2, 3)
    y = x * 1
    y.index_add_(1, I(0, 0), torch.ones(2, 2, dtype=torch.float64))
    assert y.grad_fn.name() == "IndexAddBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.ones((2, 3)))


# ---- scatter_reduce ties and zeros, by value ------------------------------------------------

def grads(fn, *arrays):
    ts = [torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    fn(*ts).sum().backward()
    return [t.grad.cpu().numpy() for t in ts]


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_scatter_reduce_ties_share_the_gradient(reduce):
    index = I(1, 1, 0, 1)
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, index, s, reduce), [1.0, 5.0], [5.0, 5.0, 2.0, 5.0])
    if reduce == "amax":  # out[1] = 5: self and three src tie; out[0] = max(1, 2) = 2
        np.testing.assert_allclose(gx, [0.0, 0.25])
        np.testing.assert_allclose(gs, [0.25, 0.25, 1.0, 0.25])
    else:  # out[1] = 5 (all equal): four-way tie; out[0] = min(1, 2) = 1
        np.testing.assert_allclose(gx, [1.0, 0.25])
        np.testing.assert_allclose(gs, [0.25, 0.25, 0.0, 0.25])
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, index, s, reduce, include_self=False),
                   [1.0, 9.0], [5.0, 5.0, 2.0, 5.0])
    np.testing.assert_allclose(gx, [0.0, 0.0])
    np.testing.assert_allclose(gs, [1 / 3, 1 / 3, 1.0, 1 / 3])


def test_scatter_reduce_prod_with_zeros():
    index = I(0, 1, 1, 2, 2)
    x = [2.0, 0.0, 3.0]
    src = [3.0, 0.0, 4.0, 0.0, 0.0]
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, index, s, "prod"), x, src)
    # out0 = 2*3, out1 = 0*0*4 (two zeros), out2 = 3*0*0 (two zeros)
    np.testing.assert_allclose(gx, [3.0, 0.0, 0.0])
    np.testing.assert_allclose(gs, [2.0, 0.0, 0.0, 0.0, 0.0])
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, index, s, "prod"), [2.0, 5.0, 3.0],
                   [3.0, 0.0, 4.0, 0.0, 7.0])
    # a single zero in each of groups 1 and 2
    np.testing.assert_allclose(gx, [3.0, 0.0, 0.0])
    np.testing.assert_allclose(gs, [2.0, 20.0, 0.0, 21.0, 0.0])
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, index, s, "prod", include_self=False),
                   [0.0, 5.0, 3.0], [3.0, 0.0, 4.0, 2.0, 7.0])
    np.testing.assert_allclose(gx, [0.0, 0.0, 0.0])
    np.testing.assert_allclose(gs, [1.0, 4.0, 0.0, 7.0, 2.0])


def test_scatter_reduce_mean_counts():
    gx, gs = grads(lambda x, s: x.scatter_reduce(0, I(0, 0, 2), s, "mean"), [1.0, 1.0, 1.0],
                   [1.0, 1.0, 1.0])
    np.testing.assert_allclose(gx, [1 / 3, 1.0, 0.5])
    np.testing.assert_allclose(gs, [1 / 3, 1 / 3, 0.5])


# ---- no graph for integer results --------------------------------------------------------------

def test_nonzero_and_argwhere_have_no_graph():
    x = leaf(2, 3)
    for r in (torch.nonzero(x), x.argwhere(), *torch.nonzero(x, as_tuple=True)):
        assert r.grad_fn is None and not r.requires_grad
    assert x.gather(1, I([[0], [1]])).grad_fn.name() == "GatherBackward0"
    assert x[0].grad_fn.name() == "SelectBackward0"  # PyTorch's name for an int index
