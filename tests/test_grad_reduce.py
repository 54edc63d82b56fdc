"""Derivatives of reductions, scans, the sort family and matrix products
(src/grad/formulas_reduce.c), checked by finite differences (gradcheck, float64)
and, where PyTorch documents a rule (ties, zeros, selected indices), against
that rule's values."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import noncontiguous

GRADCHECKED = {
    "sum", "nansum", "prod", "mean", "nanmean", "var", "std", "amax", "amin", "logsumexp",
    "norm", "max", "min", "cumsum", "cumprod",
    "sort", "msort", "_sort_values", "topk", "kthvalue", "median", "nanmedian", "quantile", "nanquantile",
    "mode", "cummax", "cummin",
    "matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addbmm",
    "baddbmm", "addmv", "addr", "tensordot", "kron", "trace",
}

F64 = torch.float64


def leaf(a):
    """A float64 leaf requiring grad holding the values of ndarray `a`."""
    return torch.tensor(np.asarray(a, dtype=np.float64), dtype=F64, requires_grad=True)


def rand(*shape, seed=0, low=-2.0, high=2.0):
    """Distinct random values (no ties), as a leaf requiring grad."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    vals = rng.permutation(np.linspace(low, high, max(n, 1)))[:n]
    vals = vals + rng.uniform(-0.01, 0.01, n)
    return leaf(vals.reshape(shape))


def positive(*shape, seed=0):
    return leaf(np.abs(rand(*shape, seed=seed).detach().cpu().numpy()) + 0.5)


def grad_of(fn, x, g=None):
    """d sum(fn(x) * g) / dx as an ndarray (g: ones by default)."""
    x = x.detach().requires_grad_()
    out = fn(x)
    out = out[0] if isinstance(out, tuple) else out
    w = torch.ones_like(out) if g is None else g
    (gx,) = torch.autograd.grad((out,), (x,), (w,))
    return gx.cpu().numpy()


def noncontig_leaf(t):
    return noncontiguous(t.detach()).requires_grad_()


# ---- reductions over dims ---------------------------------------------------------

DIMS = [None, 0, -1, (0, 2), (-1, 1)]
REDUCERS = {
    "sum": lambda x, d, k: torch.sum(x, dim=d, keepdim=k),
    "nansum": lambda x, d, k: torch.nansum(x, dim=d, keepdim=k),
    "mean": lambda x, d, k: torch.mean(x, dim=d, keepdim=k),
    "nanmean": lambda x, d, k: torch.nanmean(x, dim=d, keepdim=k),
    "prod": lambda x, d, k: torch.prod(x, dim=d, keepdim=k),
    "amax": lambda x, d, k: torch.amax(x, dim=d, keepdim=k),
    "amin": lambda x, d, k: torch.amin(x, dim=d, keepdim=k),
    "logsumexp": lambda x, d, k: torch.logsumexp(x, dim=d, keepdim=k),
    "var": lambda x, d, k: torch.var(x, dim=d, keepdim=k),
    "std": lambda x, d, k: torch.std(x, dim=d, keepdim=k),
    # p=2: the default p="fro" over three dims is a matrix norm, refused as in PyTorch
    "norm": lambda x, d, k: torch.norm(x, p=2, dim=d, keepdim=k),
}


@pytest.mark.parametrize("name", sorted(REDUCERS))
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_gradcheck(name, dim, keepdim):
    fn = REDUCERS[name]
    x = rand(2, 3, 4, seed=hash(name) % 100)
    assert gradcheck(lambda t: fn(t, dim, keepdim), (x,))


@given(st.data())
def test_reduction_random_shapes_and_dims(data):
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4), label="shape")
    name = data.draw(st.sampled_from(sorted(REDUCERS)), label="op")
    dims = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape),
                              unique_by=lambda d: d % len(shape)), label="dims")
    dim = None if not dims else dims[0] if len(dims) == 1 else tuple(dims)
    keepdim = data.draw(st.booleans(), label="keepdim")
    x = rand(*shape, seed=len(shape))
    n = int(np.prod([shape[d] for d in dims])) if dims else x.numel()
    if name in ("var", "std") and n < 2:
        return  # dof 0: the result is inf/nan
    assert gradcheck(lambda t: REDUCERS[name](t, dim, keepdim), (x,))


@pytest.mark.parametrize("name", sorted(REDUCERS))
def test_reduction_0d_and_noncontiguous(name):
    fn = REDUCERS[name]
    if name not in ("var", "std"):  # one element: dof 0
        assert gradcheck(lambda t: fn(t, None, False), (rand(),))
    x = noncontig_leaf(rand(3, 4, seed=3))
    assert not x.is_contiguous()
    assert gradcheck(lambda t: fn(t, 1, False), (x,))
    xt = rand(4, 3, seed=4).detach().t().requires_grad_()
    assert gradcheck(lambda t: fn(t, (0, 1), True), (xt,))


def test_reduction_empty():
    x = torch.zeros(0, 3, dtype=F64, requires_grad=True)
    for fn in (lambda t: t.sum(0), lambda t: t.sum(), lambda t: t.prod(0), lambda t: t.mean(1),
               lambda t: torch.logsumexp(t, 1), lambda t: t.norm(dim=1)):
        out = fn(x)
        out.sum().backward()
        assert x.grad.shape == (0, 3)
        x.grad = None
    x = torch.zeros(2, 0, dtype=F64, requires_grad=True)
    x.sum(1).sum().backward()
    assert x.grad.shape == (2, 0)


def test_reduction_call_forms():
    x = rand(3, 4, seed=5)
    assert gradcheck(lambda t: t.sum(1), (x,))
    assert gradcheck(lambda t: torch.sum(input=t, dim=1), (x,))
    assert gradcheck(lambda t: torch.mean(t, [0, 1]), (x,))
    assert gradcheck(lambda t: torch.norm(input=t, p=1, dim=[1]), (x,))
    assert gradcheck(lambda t: t.sum(dim=()), (x,))
    assert gradcheck(lambda t: torch.sum(t, (1,), True, dtype=F64), (x,))
    assert gradcheck(lambda t: t.mean(dim=-2, keepdim=True), (x,))
    assert gradcheck(lambda t: torch.prod(t, 1, keepdim=True), (x,))
    assert gradcheck(lambda t: t.amax(-1), (x,))
    assert gradcheck(lambda t: t.logsumexp(0), (x,))
    assert gradcheck(lambda t: x.new_tensor(0) + t.var(1, unbiased=False), (x,))


@pytest.mark.parametrize("call", [
    lambda t: t.var(False), lambda t: t.var(True), lambda t: torch.var(t, 1, False, True),
    lambda t: t.var(dim=1, correction=0), lambda t: t.var(1, correction=2),
    lambda t: t.var(unbiased=False), lambda t: torch.std(t, 0, True, False),
    lambda t: t.std(dim=(0, 1), correction=0), lambda t: t.std(False, keepdim=True),
])
def test_var_std_arguments(call):
    assert gradcheck(call, (rand(3, 4, seed=6),))


def test_var_std_values():
    a = np.random.default_rng(1).standard_normal((3, 5))
    for corr in (0, 1, 2):
        g = grad_of(lambda t: t.var(1, correction=corr), leaf(a))
        n = a.shape[1]
        expect = 2 * (a - a.mean(1, keepdims=True)) / (n - corr)
        np.testing.assert_allclose(g, expect, rtol=1e-12)
        g = grad_of(lambda t: t.std(1, correction=corr), leaf(a))
        s = a.std(1, ddof=corr, keepdims=True)
        np.testing.assert_allclose(g, (a - a.mean(1, keepdims=True)) / ((n - corr) * s), rtol=1e-12)
    # a constant row has std 0: PyTorch gives it a zero gradient
    g = grad_of(lambda t: t.std(1), leaf([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]]))
    np.testing.assert_array_equal(g[0], 0.0)
    assert np.all(np.isfinite(g))


def test_nan_reductions():
    a = np.array([[1.0, np.nan, 2.0, 3.0], [np.nan, np.nan, 5.0, -1.0]])
    assert gradcheck(lambda t: torch.nansum(t, 1), (leaf(a),))
    assert gradcheck(lambda t: torch.nanmean(t, 1), (leaf(a),))
    np.testing.assert_array_equal(grad_of(torch.nansum, leaf(a)), np.where(np.isnan(a), 0, 1))
    g = grad_of(lambda t: torch.nanmean(t, dim=1), leaf(a))
    np.testing.assert_allclose(g, np.where(np.isnan(a), 0, [[1 / 3], [1 / 2]]))


# ---- prod and cumprod with zeros -------------------------------------------------------

def _prod_grad_np(a, axis):
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        b = a.copy()
        b[idx] = 1.0
        sl = list(idx)
        sl[axis] = slice(None)
        g[idx] = np.prod(b[tuple(sl)])
    return g


@pytest.mark.parametrize("a", [
    [[1.5, 0.0, 2.0, -1.0], [2.0, 3.0, 0.5, 1.5]],      # one zero in a row
    [[0.0, 0.0, 2.0, -1.0], [0.0, 3.0, 0.5, 1.5]],      # two zeros, and one
    [[0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 0.0]],       # zero at the ends
])
def test_prod_with_zeros(a):
    a = np.array(a)
    np.testing.assert_allclose(grad_of(lambda t: t.prod(1), leaf(a)), _prod_grad_np(a, 1))
    np.testing.assert_allclose(grad_of(lambda t: t.prod(0, keepdim=True), leaf(a)),
                               _prod_grad_np(a, 0))
    flat = a.ravel()
    np.testing.assert_allclose(grad_of(lambda t: t.prod(), leaf(a)).ravel(),
                               _prod_grad_np(flat, 0))
    assert gradcheck(lambda t: t.prod(1), (leaf(a),))
    assert gradcheck(lambda t: t.prod(), (leaf(a),))
    assert gradcheck(lambda t: torch.cumprod(t, 1), (leaf(a),))
    assert gradcheck(lambda t: torch.cumprod(t, dim=0), (leaf(a),))


def test_cumprod_zero_values():
    a = np.array([2.0, 0.0, 3.0, 0.0, 4.0])
    g = grad_of(lambda t: t.cumprod(0), leaf(a))
    expect = np.array([1 + 0, 2 + 2 * 3 + 0 + 0, 0.0, 0.0, 0.0])  # d/dx of [x0, x0x1, ...]
    np.testing.assert_allclose(g, expect)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scans(op):
    x = rand(2, 3, 4, seed=7)
    fn = getattr(torch, op)
    for dim in (0, 1, -1):
        assert gradcheck(lambda t: fn(t, dim), (x,))
    assert gradcheck(lambda t: getattr(t, op)(dim=-2), (x,))
    assert gradcheck(lambda t: fn(t, 0), (rand(seed=8),))
    assert gradcheck(lambda t: fn(t, 1), (noncontig_leaf(rand(3, 4, seed=9)),))
    assert gradcheck(lambda t: fn(t, 0, dtype=F64), (rand(5, seed=10),))
    e = torch.zeros(0, 2, dtype=F64, requires_grad=True)
    fn(e, 0).sum().backward()
    assert e.grad.shape == (0, 2)


# ---- max/min and ties -------------------------------------------------------------------

def test_max_min_dim_gradcheck():
    x = rand(3, 4, 2, seed=11)
    for op in (torch.max, torch.min):
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                assert gradcheck(lambda t: op(t, dim, keepdim)[0], (x,))
        assert gradcheck(lambda t: op(t), (x,))
        assert gradcheck(lambda t: op(t, dim=1, keepdim=True).values, (x,))
    assert gradcheck(lambda t: t.max(1)[0], (noncontig_leaf(x),))
    assert gradcheck(lambda t: t.min(0)[0], (rand(seed=12),))


def test_amax_ties_split_evenly():
    a = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0]])
    np.testing.assert_allclose(grad_of(lambda t: t.amax(1), leaf(a)),
                               [[0, .5, .5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])
    np.testing.assert_allclose(grad_of(lambda t: t.amax(), leaf(a)),
                               [[0, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]])
    np.testing.assert_allclose(grad_of(lambda t: t.amin((0, 1)), leaf([[2.0, 1.0], [1.0, 1.0]])),
                               [[0, 1 / 3], [1 / 3, 1 / 3]])
    # max/min without a dim split ties the same way (evenly_distribute)
    np.testing.assert_allclose(grad_of(lambda t: t.max(), leaf(a)),
                               [[0, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]])
    np.testing.assert_allclose(grad_of(torch.min, leaf([4.0, -2.0, -2.0])), [0, .5, .5])


def test_max_dim_ties_go_to_returned_index():
    a = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0]])
    for op in ("max", "min"):
        x = leaf(a if op == "max" else -a)
        values, indices = getattr(x, op)(1)
        values.sum().backward()
        expect = np.zeros_like(a)
        expect[np.arange(2), indices.cpu().numpy()] = 1.0
        np.testing.assert_array_equal(x.grad.cpu().numpy(), expect)
        assert x.grad.sum().item() == 2.0


def test_max_elementwise_ties_half():
    a, b = leaf([1.0, 2.0, 3.0]), leaf([3.0, 2.0, 1.0])
    torch.max(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [0, .5, 1])
    np.testing.assert_array_equal(b.grad.cpu().numpy(), [1, .5, 0])
    a, b = leaf([1.0, 2.0, 3.0]), leaf([3.0, 2.0, 1.0])
    torch.min(a, other=b).sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [1, .5, 0])
    np.testing.assert_array_equal(b.grad.cpu().numpy(), [0, .5, 1])
    assert gradcheck(lambda p, q: torch.max(p, q), (rand(3, 4, seed=1), rand(4, seed=2)))


# ---- norm -------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, 1.5, math.inf, -math.inf, -2, "fro"], ids=str)
def test_norm_p(p):
    x = rand(3, 4, seed=13)
    assert gradcheck(lambda t: torch.norm(t, p), (x,))
    assert gradcheck(lambda t: torch.norm(t, p, dim=1), (x,))
    assert gradcheck(lambda t: t.norm(p=p, dim=(0,), keepdim=True), (x,))


def test_norm_values_and_zero():
    a = np.array([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0]])
    g = grad_of(lambda t: t.norm(dim=1), leaf(a))
    np.testing.assert_allclose(g, [[0.6, -0.8, 0.0], [0.0, 0.0, 0.0]])
    g = grad_of(lambda t: torch.norm(t), leaf(np.zeros(3)))
    np.testing.assert_array_equal(g, 0.0)
    g = grad_of(lambda t: t.norm(p=math.inf, dim=1), leaf([[3.0, -3.0, 1.0], [0.5, 2, 1]]))
    np.testing.assert_allclose(g, [[0.5, -0.5, 0.0], [0.0, 1.0, 0.0]])
    g = grad_of(lambda t: t.norm(p=0.5), leaf([1.0, 0.0, 4.0]))
    assert np.isfinite(g).all() and g[1] == 0.0
    g = grad_of(lambda t: t.norm(p=1), leaf([1.0, 0.0, -4.0]))
    np.testing.assert_array_equal(g, [1.0, 0.0, -1.0])


# ---- logsumexp, gradgradcheck ---------------------------------------------------------------

def test_logsumexp_values():
    a = np.array([[0.5, 1.0, -3.0], [1000.0, 1000.0, 999.0]])
    g = grad_of(lambda t: torch.logsumexp(t, 1), leaf(a))
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(g, e / e.sum(1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda t: t.sum(1), lambda t: t.mean(), lambda t: t.mean(0, keepdim=True),
    lambda t: t.var(1), lambda t: t.std(0), lambda t: t.prod(1), lambda t: t.prod(),
    lambda t: torch.logsumexp(t, 1), lambda t: torch.cumsum(t, 1), lambda t: torch.cumprod(t, 0),
    lambda t: t.norm(dim=1), lambda t: t.norm(p=3), lambda t: t.amax(1),
    lambda t: t.max(0)[0], lambda t: t.sort(1)[0],
], ids=["sum", "mean", "mean_keep", "var", "std", "prod", "prod_all", "logsumexp", "cumsum",
        "cumprod", "norm2", "norm3", "amax", "max_dim", "sort"])
def test_gradgradcheck_reductions(fn):
    assert gradgradcheck(fn, (rand(2, 3, seed=14),))


# ---- sort family -------------------------------------------------------------------------

def test_sort_family_gradcheck():
    x = rand(3, 5, seed=15)
    checks = [
        lambda t: torch.sort(t)[0], lambda t: t.sort(0, descending=True)[0],
        lambda t: torch.sort(t, dim=-1, stable=True).values, lambda t: torch.msort(t),
        lambda t: torch._C._sort_values(t, 0), lambda t: torch._C._sort_values(t, 1, True),
        lambda t: torch.topk(t, 2)[0], lambda t: t.topk(2, dim=0, largest=False).values,
        lambda t: torch.topk(t, k=3, dim=1, sorted=True)[0],
        lambda t: torch.kthvalue(t, 2)[0], lambda t: t.kthvalue(2, 0, True)[0],
        lambda t: torch.median(t), lambda t: torch.median(t, 1)[0],
        lambda t: t.median(dim=0, keepdim=True).values, lambda t: torch.nanmedian(t, 1)[0],
        lambda t: torch.cummax(t, 1)[0], lambda t: t.cummin(dim=0).values,
        lambda t: torch.mode(t, 1)[0],
    ]
    for fn in checks:
        assert gradcheck(fn, (x,))
    assert gradcheck(lambda t: t.sort(1)[0], (noncontig_leaf(x),))
    assert gradcheck(lambda t: torch.sort(t)[0], (rand(seed=16),))
    assert gradcheck(lambda t: torch.cummax(t, 0)[0], (rand(seed=17),))


def test_selection_goes_to_returned_index():
    a = np.array([[2.0, 7.0, 7.0, 1.0, 7.0], [3.0, 3.0, 1.0, 1.0, 9.0]])
    for name, call in [("median", lambda t: torch.median(t, 1)),
                       ("mode", lambda t: torch.mode(t, 1)),
                       ("kthvalue", lambda t: torch.kthvalue(t, 4, 1)),
                       ("max", lambda t: torch.max(t, 1))]:
        x = leaf(a)
        values, indices = call(x)
        g = torch.tensor([1.0, 10.0], dtype=F64)
        values.backward(g)
        expect = np.zeros_like(a)
        expect[np.arange(2), indices.cpu().numpy()] = [1.0, 10.0]
        np.testing.assert_array_equal(x.grad.cpu().numpy(), expect, err_msg=name)
    x = leaf([[1.0, 3.0, 2.0, 3.0]])
    v, i = torch.cummax(x, 1)
    v.sum().backward()
    expect = np.zeros(4)
    np.add.at(expect, i.cpu().numpy()[0], 1.0)
    np.testing.assert_array_equal(x.grad.cpu().numpy()[0], expect)


def test_median_no_dim_ties_split():
    g = grad_of(torch.median, leaf([1.0, 2.0, 2.0, 3.0, 9.0]))
    np.testing.assert_allclose(g, [0, .5, .5, 0, 0])
    g = grad_of(torch.nanmedian, leaf([1.0, np.nan, 4.0, 3.0]))
    np.testing.assert_allclose(g, [0, 0, 0, 1])
    assert gradcheck(torch.nanmedian, (leaf([1.0, np.nan, 4.0, 3.0, -2.0]),))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(interpolation):
    x = rand(3, 6, seed=18)
    for q in (0.3, 0.0, 1.0, 0.5):
        assert gradcheck(lambda t: torch.quantile(t, q, interpolation=interpolation), (x,))
        assert gradcheck(lambda t: t.quantile(q, dim=1, interpolation=interpolation), (x,))
    qs = torch.tensor([0.1, 0.5, 0.85], dtype=F64)
    assert gradcheck(lambda t: torch.quantile(t, qs, 0, True, interpolation=interpolation), (x,))
    assert gradcheck(lambda t: torch.quantile(t, qs, dim=-1, interpolation=interpolation), (x,))
    assert gradcheck(lambda t: torch.quantile(t, qs, interpolation=interpolation), (x,))
    assert gradcheck(lambda t: torch.quantile(t, 0.4, keepdim=True,
                                              interpolation=interpolation), (x,))
    a = np.array([[1.0, np.nan, 3.0, 0.5, 2.0], [np.nan, np.nan, 4.0, -1.0, 0.0]])
    assert gradcheck(lambda t: torch.nanquantile(t, 0.4, dim=1, interpolation=interpolation),
                     (leaf(a),))
    assert gradcheck(lambda t: torch.nanquantile(t, qs, interpolation=interpolation), (leaf(a),))


def test_quantile_gradient_of_q():
    x = rand(3, 6, seed=22)
    q = torch.tensor([0.13, 0.5, 0.77], dtype=F64, requires_grad=True)
    assert gradcheck(lambda t, p: torch.quantile(t, p, dim=1), (x, q))
    assert gradcheck(lambda t, p: torch.quantile(t, p), (x, q))
    assert gradcheck(lambda p: torch.quantile(x, p, 0, True), (leaf(0.37),))
    a = leaf([[1.0, np.nan, 3.0, 0.5, 2.0], [np.nan, 7.0, 4.0, -1.0, 0.0]])
    assert gradcheck(lambda t, p: torch.nanquantile(t, p, dim=1), (a, q))
    # the other modes pick values whose weights do not move with q
    q2 = torch.tensor([0.13, 0.55, 0.77], dtype=F64, requires_grad=True)  # no rank at .5
    assert gradcheck(lambda p: torch.quantile(x, p, dim=1, interpolation="nearest"), (q2,))


def test_quantile_values():
    # rank 0.575 * 4 = 2.3: 0.3 of the way from sorted[2] (x[3]) to sorted[3] (x[2])
    g = grad_of(lambda t: torch.quantile(t, 0.575), leaf([4.0, 1.0, 3.0, 2.0, 0.0]))
    np.testing.assert_allclose(g, [0, 0, 0.3, 0.7, 0])
    g = grad_of(lambda t: torch.quantile(t, 0.575, interpolation="midpoint"),
                leaf([4.0, 1.0, 3.0, 2.0, 0.0]))
    np.testing.assert_allclose(g, [0, 0, 0.5, 0.5, 0])
    g = grad_of(lambda t: torch.quantile(t, 0.575, interpolation="nearest"),
                leaf([4.0, 1.0, 3.0, 2.0, 0.0]))
    np.testing.assert_allclose(g, [0, 0, 0, 1, 0])


@pytest.mark.parametrize("call", [
    lambda t: torch.argmax(t), lambda t: t.argmax(1), lambda t: torch.argmin(t, dim=0),
    lambda t: torch.all(t), lambda t: t.any(1), lambda t: torch.count_nonzero(t, 1),
    lambda t: torch.argsort(t, 1), lambda t: torch.max(t, 1).indices,
    lambda t: torch.sort(t)[1], lambda t: torch.topk(t, 2)[1],
    lambda t: torch.searchsorted(torch.tensor([0.0, 1.0], dtype=F64), t),
    lambda t: torch.bucketize(t, torch.tensor([0.0, 1.0], dtype=F64)),
    lambda t: t > 0, lambda t: torch.histc(t, 4, -2, 2),
])
def test_no_graph(call):
    out = call(rand(3, 4, seed=19))
    assert not out.requires_grad
    assert out.grad_fn is None


def test_not_implemented_backward():
    x = rand(6, seed=20)
    for fn in (lambda t: torch.unique(t), lambda t: torch.unique_consecutive(t)):
        out = fn(x)
        with pytest.raises(NotImplementedError, match="derivative"):
            out.sum().backward()


# ---- matrix products ------------------------------------------------------------------------

MATMUL_SHAPES = [((4,), (4,)), ((4,), (4, 3)), ((2, 4), (4,)), ((2, 4), (4, 3)),
                 ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                 ((2, 3, 4), (4,)), ((3, 4), (2, 4, 2)), ((0, 4), (4, 2)),
                 ((2, 3, 4), (4, 5)), ((2, 2, 3, 4), (4, 2)), ((0, 3, 4), (4, 2))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul(sa, sb):
    a, b = rand(*sa, seed=21), rand(*sb, seed=22)
    assert gradcheck(torch.matmul, (a, b))
    assert gradcheck(lambda p, q: p @ q, (a, b))
    assert gradcheck(lambda p: p.matmul(b), (a,))


def test_matmul_noncontiguous_and_gradgrad():
    a = rand(4, 3, seed=23).detach().t().requires_grad_()
    b = noncontig_leaf(rand(4, 2, seed=24))
    assert gradcheck(torch.matmul, (a, b))
    assert gradgradcheck(torch.matmul, (rand(2, 3, seed=25), rand(3, 2, seed=26)))
    assert gradgradcheck(torch.matmul, (rand(3, seed=27), rand(2, 3, 2, seed=28)))


def test_matmul_batch_with_shared_matrix():
    # a (N, L, k) @ b (k, n): b's gradient is one (k, N*L) @ (N*L, n) product
    # (the batch folded into rows), on a non-contiguous a as well
    a = rand(3, 2, 4, seed=29).detach().transpose(0, 1).requires_grad_()   # (2, 3, 4)
    b = rand(4, 5, seed=30)
    assert gradcheck(torch.matmul, (a, b))
    assert gradgradcheck(torch.matmul, (a, b))
    g = np.random.default_rng(31).standard_normal((2, 3, 5))
    torch.matmul(a, b).backward(torch.tensor(g))
    an = a.detach().cpu().numpy()
    np.testing.assert_allclose(b.grad.cpu().numpy(), np.einsum("nlk,nlj->kj", an, g), rtol=1e-12)


def test_products():
    m34, m45, v4, v3 = rand(3, 4, seed=30), rand(4, 5, seed=31), rand(4, seed=32), rand(3, seed=33)
    b234, b245 = rand(2, 3, 4, seed=34), rand(2, 4, 5, seed=35)
    assert gradcheck(torch.mm, (m34, m45))
    assert gradcheck(lambda p, q: p.mm(mat2=q), (m34, m45))
    assert gradcheck(torch.bmm, (b234, b245))
    assert gradcheck(torch.mv, (m34, v4))
    assert gradcheck(lambda p, q: torch.mv(p, vec=q), (m34, v4))
    assert gradcheck(torch.dot, (v4, rand(4, seed=36)))
    assert gradcheck(torch.vdot, (v4, rand(4, seed=36)))
    assert gradcheck(torch.outer, (v3, v4))
    assert gradcheck(torch.ger, (v3, v4))
    assert gradcheck(torch.inner, (v4, rand(4, seed=37)))
    assert gradcheck(torch.inner, (rand(2, 4, seed=38), rand(3, 2, 4, seed=39)))
    assert gradcheck(torch.inner, (rand(seed=40), m34))
    assert gradcheck(torch.trace, (rand(3, 3, seed=41),))
    assert gradcheck(torch.trace, (m34,))
    assert gradcheck(lambda t: t.trace(), (noncontig_leaf(m34),))


def test_products_with_beta_alpha():
    inp, m34, m45 = rand(3, 5, seed=42), rand(3, 4, seed=43), rand(4, 5, seed=44)
    assert gradcheck(torch.addmm, (inp, m34, m45))
    assert gradcheck(lambda i, p, q: torch.addmm(i, p, q, beta=0.5, alpha=-2.0), (inp, m34, m45))
    assert gradcheck(lambda i, p, q: torch.addmm(i, p, q, beta=0), (rand(5, seed=45), m34, m45))
    b1, b2 = rand(2, 3, 4, seed=46), rand(2, 4, 5, seed=47)
    assert gradcheck(lambda i, p, q: torch.addbmm(i, p, q, beta=2, alpha=0.5), (inp, b1, b2))
    assert gradcheck(torch.baddbmm, (rand(2, 3, 5, seed=48), b1, b2))
    assert gradcheck(lambda i, p, q: torch.baddbmm(i, p, q, alpha=3), (rand(1, 5, seed=49), b1, b2))
    assert gradcheck(lambda i, p, q: torch.addmv(i, p, q, beta=-1, alpha=2),
                     (rand(3, seed=50), m34, rand(4, seed=51)))
    assert gradcheck(lambda i, p, q: i.addr(p, q, alpha=0.25),
                     (inp, rand(3, seed=52), rand(5, seed=53)))
    # only the product's operands require grad; the input a list
    x = rand(3, 4, seed=54)
    y = rand(4, 5, seed=55)
    assert gradcheck(lambda p: torch.addmm(torch.zeros(3, 5, dtype=F64), p, y), (x,))


@pytest.mark.parametrize("sa,sb,dims", [
    ((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 2), 1), ((3, 2), (4,), 0),
    ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((3, 4, 5), (2, 4), ([1], [1])),
    ((2, 3), (3, 2), ([-1, 0], [0, -1])), ((2, 3, 4), (4, 3), ((2, 1), (0, 1))),
], ids=str)
def test_tensordot(sa, sb, dims):
    a, b = rand(*sa, seed=56), rand(*sb, seed=57)
    assert gradcheck(lambda p, q: torch.tensordot(p, q, dims=dims), (a, b))
    assert gradcheck(lambda p, q: torch.tensordot(p, q, dims), (a, b))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 2)), ((3,), (2,)), ((2, 2), (3,)),
                                   ((2,), (2, 1, 3)), ((), (3,))], ids=str)
def test_kron(sa, sb):
    assert gradcheck(torch.kron, (rand(*sa, seed=58), rand(*sb, seed=59)))


def test_kron_values():
    a, b = leaf([[1.0, 2.0]]), leaf([3.0, 5.0, 7.0])
    torch.kron(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), [[15.0, 15.0]])
    np.testing.assert_allclose(b.grad.cpu().numpy(), [3.0, 3.0, 3.0])


def test_einsum():
    a, b, c = rand(2, 3, seed=60), rand(3, 4, seed=61), rand(4, seed=62)
    for eq, ops in [("ij,jk->ik", (a, b)), ("ij,jk,k->i", (a, b, c)), ("ii->i", (rand(3, 3),)),
                    ("ij->", (a,)), ("ij->ji", (a,)), ("bij,bjk->bik", (rand(2, 2, 3),
                                                                         rand(2, 3, 2))),
                    ("i,j->ij", (c, rand(3, seed=63))), ("...j,jk->...k", (rand(2, 2, 3), b)),
                    ("ii", (rand(3, 3, seed=64),))]:
        assert gradcheck(lambda *t: torch.einsum(eq, *t), ops), eq


def test_linalg_norms():
    x = rand(3, 4, seed=65)
    for ord in (2, 1, 3, math.inf, -math.inf, 0, 0.5):
        assert gradcheck(lambda t: torch.linalg.vector_norm(t, ord), (x,)), ord
        assert gradcheck(lambda t: torch.linalg.vector_norm(t, ord, dim=1, keepdim=True), (x,))
    g = grad_of(lambda t: torch.linalg.vector_norm(t), leaf(np.zeros(4)))
    np.testing.assert_array_equal(g, 0.0)
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        assert gradcheck(lambda t: torch.linalg.matrix_norm(t, ord), (x,)), ord
    assert gradcheck(lambda t: torch.linalg.norm(t), (x,))
    assert gradcheck(lambda t: torch.linalg.norm(t, dim=1), (x,))


# ---- complex inputs: conj-Wirtinger gradients ----------------------------------------------

def _ctensor(a):
    return torch.tensor(np.asarray(a), dtype=torch.complex128 if np.iscomplexobj(a) else F64)


def check_complex(fn, arrays, eps=1e-6):
    """grad(out, inputs, W) against finite differences of L = Re sum(conj(W) out):
    PyTorch's convention makes the gradient dL/dRe(x) + i dL/dIm(x)."""
    arrays = [np.asarray(a) for a in arrays]
    ins = [_ctensor(a).requires_grad_(True) for a in arrays]
    out = fn(*ins)
    rng = np.random.default_rng(3)
    w = rng.standard_normal(tuple(out.shape))
    if out.is_complex():
        w = w + 1j * rng.standard_normal(tuple(out.shape))

    def loss(xs):
        return np.real(np.sum(np.conj(w) * fn(*[_ctensor(x) for x in xs]).cpu().numpy()))

    got = torch.autograd.grad((out,), ins, (_ctensor(w),))
    for i, a in enumerate(arrays):
        expected = np.zeros(a.shape, dtype=a.dtype)
        for k in np.ndindex(a.shape):
            for unit in ((1, 1j) if np.iscomplexobj(a) else (1,)):
                xs = [x.copy() for x in arrays]
                xs[i][k] += eps * unit
                plus = loss(xs)
                xs[i][k] -= 2 * eps * unit
                expected[k] += unit * (plus - loss(xs)) / (2 * eps)
        np.testing.assert_allclose(got[i].cpu().numpy(), expected, atol=1e-6, rtol=1e-5,
                                   err_msg=f"input {i}")


def crand(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("name,fn,shapes", [
    ("matmul", torch.matmul, [(2, 3), (3, 2)]),
    ("matmul_vec", torch.matmul, [(3,), (2, 3, 2)]),
    ("mv", torch.mv, [(2, 3), (3,)]),
    ("dot", torch.dot, [(3,), (3,)]),
    ("vdot", torch.vdot, [(3,), (3,)]),
    ("inner", torch.inner, [(2, 3), (4, 3)]),
    ("outer", torch.outer, [(2,), (3,)]),
    ("addmm", lambda i, a, b: torch.addmm(i, a, b, beta=0.5 - 1j, alpha=2 + 1j),
     [(2, 2), (2, 3), (3, 2)]),
    ("addr", lambda i, a, b: torch.addr(i, a, b, alpha=1j), [(2, 3), (2,), (3,)]),
    ("tensordot", lambda a, b: torch.tensordot(a, b, ([0], [1])), [(2, 3), (4, 2)]),
    ("kron", torch.kron, [(2,), (2, 2)]),
    ("trace", torch.trace, [(3, 3)]),
    ("sum", lambda t: t.sum(0), [(2, 3)]),
    ("mean", lambda t: t.mean(1), [(2, 3)]),
    ("prod", lambda t: t.prod(1), [(2, 3)]),
    ("cumsum", lambda t: t.cumsum(1), [(2, 3)]),
    ("cumprod", lambda t: t.cumprod(1), [(2, 3)]),
    ("var", lambda t: t.var(1), [(2, 3)]),
    ("std", lambda t: t.std(), [(2, 3)]),
    ("norm2", lambda t: t.norm(dim=1), [(2, 3)]),
    ("norm1", lambda t: t.norm(p=1), [(2, 3)]),
    ("norm3", lambda t: t.norm(p=3, dim=0), [(2, 3)]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_complex_gradients(name, fn, shapes):
    check_complex(fn, [crand(*s, seed=k) for k, s in enumerate(shapes)])


def test_mixed_real_complex_product():
    # torchlike.matmul takes one dtype (as PyTorch's); NumPy's matmul promotes
    import torchlike.numpy as tnp
    check_complex(tnp.matmul, [np.random.default_rng(1).standard_normal((2, 3)), crand(3, 2)])


def test_bincount_weights_not_implemented():
    w = rand(4, seed=21)
    out = torch.bincount(torch.tensor([0, 1, 1, 3]), w)
    assert type(out.grad_fn).__name__ == "NotImplemented"  # PyTorch's node and error
    with pytest.raises(RuntimeError, match="^derivative for aten::bincount is not implemented$"):
        out.sum().backward()


def test_backward_loops_keep_memory_flat():
    from oracle import assert_rss_flat, rss_bytes
    x, y = rand(8, 16, seed=70), rand(16, 4, seed=71)
    q = torch.tensor([0.25, 0.5], dtype=F64)

    def step():
        loss = (torch.matmul(x, y).sum() + x.prod(1).sum() + x.std(0).sum()
                + torch.sort(x, 1)[0][:, 0].sum() + torch.quantile(x, q, dim=1).sum()
                + torch.tensordot(x, y, ([1], [0])).sum() + x.max(1)[0].sum()
                + torch.cumprod(x, 1).sum() + torch.norm(x, 3, 1).sum())
        loss.backward()

    for _ in range(20):
        step()
    before = rss_bytes()
    for _ in range(300):
        step()
    assert_rss_flat(before, label="reduction/product backward")


def test_selection_gradients_use_the_saved_indices():
    # the node keeps the indices the op returned, not the input's values: an
    # in-place change of the input afterwards does not disturb the gradient
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.5]], dtype=torch.float64, requires_grad=True)
    y = x * 1
    values, indices = torch.sort(y, dim=1)
    top = torch.topk(y, 1, dim=1).values
    m = torch.max(y, dim=1).values
    with torch.no_grad():
        y.zero_()
    (values * torch.arange(3, dtype=torch.float64)).sum().backward(retain_graph=True)
    want = np.zeros((2, 3))
    np.put_along_axis(want, indices.cpu().numpy(), np.arange(3.0)[None].repeat(2, 0), axis=1)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)
    x.grad = None
    (top.sum() + m.sum()).backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [[2.0, 0, 0], [0, 0, 2.0]])
