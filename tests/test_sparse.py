"""Sparse tensors (torchlike._sparse) against NumPy: every result's dense form
equals the dense computation, over float32/float64/int64/complex128 values,
coalesced and uncoalesced inputs (with duplicates), empty nnz, 0-size dims
and hybrid tensors; gradients by gradcheck in float64; bad input raises."""
import itertools

import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck

DTYPES = ["float32", "float64", "int64", "complex128"]
NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64,
      "complex128": np.complex128}


def _values(rng, shape, dtype):
    if dtype == "int64":
        return rng.integers(-5, 6, size=shape).astype(np.int64)
    out = rng.standard_normal(shape)
    if dtype == "complex128":
        out = out + 1j * rng.standard_normal(shape)
    return out.astype(NP[dtype])


def make(size, nnz, dtype="float64", sparse_dim=None, dup=True, seed=0):
    """A COO tensor of `size` with nnz entries (duplicates when dup) and its
    NumPy dense form (duplicates added)."""
    rng = np.random.default_rng(seed)
    sdim = len(size) if sparse_dim is None else sparse_dim
    idx = np.stack([rng.integers(0, max(n, 1), size=nnz) for n in size[:sdim]]) if sdim \
        else np.zeros((0, nnz), dtype=np.int64)
    if any(n == 0 for n in size[:sdim]):
        idx = idx[:, :0]
    if dup and idx.shape[1] > 1:
        idx[:, -1] = idx[:, 0]  # a duplicate entry
    n = idx.shape[1]
    vals = _values(rng, (n,) + tuple(size[sdim:]), dtype)
    dense = np.zeros(size, dtype=NP[dtype])
    if sdim:
        np.add.at(dense, tuple(idx), vals)
    else:
        dense = dense + vals.sum(0)
    s = T.sparse_coo_tensor(T.tensor(idx.astype(np.int64)), T.tensor(vals), size)
    return s, dense


CASES = [((4, 5), 7), ((4, 5), 0), ((0, 3), 0), ((3, 4, 2), 6), ((6,), 4), ((1, 1), 3)]


def np_of(t):
    return t.to_dense().numpy() if t.layout != T.strided else t.numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size,nnz", CASES)
def test_to_dense_and_coalesce(size, nnz, dtype):
    s, dense = make(size, nnz, dtype)
    np.testing.assert_allclose(np_of(s), dense, rtol=1e-6)
    c = s.coalesce()
    assert c.is_coalesced()
    np.testing.assert_allclose(np_of(c), dense, rtol=1e-6)
    # coalesced: indices unique and row-major sorted (PyTorch's order)
    lin = np.ravel_multi_index(tuple(c.indices().numpy()), size) if c._nnz() else np.zeros(0)
    assert np.all(np.diff(lin) > 0)
    assert c._nnz() == len(set(map(tuple, s._indices().numpy().T.tolist())))


@pytest.mark.parametrize("size,sdim", [((4, 3), 1), ((2, 3, 4), 2), ((3, 2, 2), 1)])
def test_hybrid(size, sdim):
    s, dense = make(size, 5, sparse_dim=sdim)
    assert s.sparse_dim() == sdim and s.dense_dim() == len(size) - sdim
    np.testing.assert_allclose(np_of(s), dense)
    np.testing.assert_allclose(np_of(s.coalesce()), dense)
    d = T.tensor(dense)
    h = d.to_sparse(sdim)
    assert h.sparse_dim() == sdim
    np.testing.assert_allclose(np_of(h), dense)
    np.testing.assert_allclose(np_of(s * 3.0), dense * 3)
    np.testing.assert_allclose(np_of(s.neg()), -dense)
    np.testing.assert_allclose(np_of(T.sparse.sum(s, 0)), dense.sum(0))
    np.testing.assert_allclose(np_of(T.sparse.sum(s, len(size) - 1)), dense.sum(-1))


@pytest.mark.parametrize("layout,block", [("csr", None), ("csc", None), ("bsr", (2, 1)),
                                          ("bsc", (1, 3)), ("bsr", (2, 3))])
@pytest.mark.parametrize("dtype", DTYPES)
def test_compressed_roundtrip(layout, block, dtype):
    _, dense = make((4, 6), 6, dtype)
    d = T.tensor(dense)
    args = (block,) if block else ()
    x = getattr(d, f"to_sparse_{layout}")(*args)
    assert x.layout is getattr(T, f"sparse_{layout}")
    np.testing.assert_allclose(np_of(x), dense)
    np.testing.assert_allclose(np_of(x.to_sparse()), dense)
    if not block:
        np.testing.assert_allclose(np_of(d.to_sparse().to_sparse_csr()), dense)
        np.testing.assert_allclose(np_of(x.t()), dense.T)
        np.testing.assert_allclose(np_of(x * 2), dense * 2)
        np.testing.assert_allclose(np_of(x + x), dense * 2)
    if layout == "csr":
        # CSR's crow_indices count each row's entries
        nz = (dense != 0).sum(1)
        assert x.crow_indices().tolist() == [0] + np.cumsum(nz).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("size,nnz", [((4, 5), 7), ((4, 5), 0), ((0, 3), 0), ((1, 1), 3)])
def test_matmul(size, nnz, dtype):
    s, dense = make(size, nnz, dtype)
    rng = np.random.default_rng(1)
    b = _values(rng, (size[1], 3), dtype)
    a = _values(rng, (2, size[0]), dtype)
    tol = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(T.sparse.mm(s, T.tensor(b)).numpy(), dense @ b, **tol)
    np.testing.assert_allclose(T.mm(s, T.tensor(b)).numpy(), dense @ b, **tol)
    np.testing.assert_allclose((s @ T.tensor(b)).numpy(), dense @ b, **tol)
    np.testing.assert_allclose(T.mm(T.tensor(a), s).numpy(), a @ dense, **tol)
    np.testing.assert_allclose(T.matmul(s, T.tensor(b[:, 0])).numpy(), dense @ b[:, 0], **tol)
    s2, dense2 = make((size[1], 3), 5, dtype, seed=3)
    prod = T.mm(s, s2)
    assert prod.layout is T.sparse_coo and prod.is_coalesced()
    np.testing.assert_allclose(np_of(prod), dense @ dense2, **tol)
    csr = s.to_sparse_csr()
    np.testing.assert_allclose(T.mm(csr, T.tensor(b)).numpy(), dense @ b, **tol)
    pc = T.mm(csr, s2.to_sparse_csr())
    assert pc.layout is T.sparse_csr
    np.testing.assert_allclose(np_of(pc), dense @ dense2, **tol)
    c = T.tensor(_values(rng, (size[0], 3), dtype))
    np.testing.assert_allclose(T.sparse.addmm(c, s, T.tensor(b), beta=0.5, alpha=2).numpy(),
                               0.5 * c.numpy() + 2 * (dense @ b), **tol)
    np.testing.assert_allclose(T.addmm(c, s, T.tensor(b)).numpy(), c.numpy() + dense @ b,
                               **tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_elementwise(dtype):
    s, dense = make((4, 5), 8, dtype)
    s2, dense2 = make((4, 5), 6, dtype, seed=2)
    d = _values(np.random.default_rng(5), (4, 5), dtype)
    tol = dict(rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np_of(s + s2), dense + dense2, **tol)
    np.testing.assert_allclose(np_of(s - s2), dense - dense2, **tol)
    np.testing.assert_allclose(np_of(T.add(s, s2, alpha=2)), dense + 2 * dense2, **tol)
    r = T.tensor(d) + s
    assert r.layout is T.strided
    np.testing.assert_allclose(r.numpy(), d + dense, **tol)
    np.testing.assert_allclose((T.tensor(d) - s).numpy(), d - dense, **tol)
    m = s * s2
    assert m.layout is T.sparse_coo
    np.testing.assert_allclose(np_of(m), dense * dense2, **tol)
    np.testing.assert_allclose(np_of(s * T.tensor(d)), dense * d, **tol)
    np.testing.assert_allclose(np_of(T.tensor(d) * s), dense * d, **tol)
    np.testing.assert_allclose(np_of(s * 3), dense * 3, **tol)
    np.testing.assert_allclose(np_of(-s), -dense, **tol)
    np.testing.assert_allclose(np_of(s.abs()), np.abs(dense), **tol)
    np.testing.assert_allclose(np_of(s.pow(2)), dense ** 2, **tol)
    np.testing.assert_allclose(np_of(s.square()), dense ** 2, **tol)
    if dtype != "int64":
        np.testing.assert_allclose(np_of(s / 2), dense / 2, **tol)
        np.testing.assert_allclose(np_of(s.sin()), np.sin(dense), **tol)
        np.testing.assert_allclose(np_of(s.tanh()), np.tanh(dense), **tol)
    if dtype in ("float32", "float64"):
        np.testing.assert_allclose(np_of(s.abs().sqrt()), np.sqrt(np.abs(dense)), **tol)
        np.testing.assert_allclose(np_of(s.expm1()), np.expm1(dense), **tol)
        np.testing.assert_allclose(np_of(s.relu()), np.maximum(dense, 0), **tol)
    x = s.clone()
    x.mul_(2)
    np.testing.assert_allclose(np_of(x), 2 * dense, **tol)
    np.testing.assert_allclose(np_of(s), dense, **tol)  # the clone owns its values
    y = T.tensor(d.copy())
    y.add_(s)
    np.testing.assert_allclose(y.numpy(), d + dense, **tol)


def test_unary_inplace_coalesces_first():
    # sqrt of duplicates must take the root of their sum
    s = T.sparse_coo_tensor(T.tensor([[0, 0, 1]]), T.tensor([2., 2., 9.]), (3,))
    s.sqrt_()
    np.testing.assert_allclose(s.to_dense().numpy(), [2., 3., 0.])
    assert s.is_coalesced()


@pytest.mark.parametrize("size,nnz", CASES[:4])
def test_reductions(size, nnz):
    s, dense = make(size, nnz)
    np.testing.assert_allclose(s.sum().item(), dense.sum())
    np.testing.assert_allclose(T.sparse.sum(s).item(), dense.sum())
    for dims in itertools.chain.from_iterable(
            itertools.combinations(range(len(size)), k) for k in range(1, len(size) + 1)):
        r = T.sparse.sum(s, dims)
        np.testing.assert_allclose(np_of(r), dense.sum(axis=dims))
    np.testing.assert_allclose(T.linalg.vector_norm(s).item(), np.linalg.norm(dense.ravel()),
                               rtol=1e-12)


def _np_softmax(dense, mask, dim, log):
    x = np.where(mask, dense, -np.inf)
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.where(mask, np.exp(x - m), 0)
    out = e / np.where(mask.any(axis=dim, keepdims=True), e.sum(axis=dim, keepdims=True), 1)
    if log:
        return np.where(mask, np.log(np.where(mask, out, 1)), 0)
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax(dim, log):
    s, _ = make((4, 6), 10, dup=True)
    c = s.coalesce()
    dense = c.to_dense().numpy()
    mask = np.zeros(dense.shape, dtype=bool)
    mask[tuple(c.indices().numpy())] = True
    f = T.sparse.log_softmax if log else T.sparse.softmax
    r = f(s, dim)
    assert r.layout is T.sparse_coo
    np.testing.assert_allclose(np_of(r), _np_softmax(dense, mask, dim % 2, log), rtol=1e-12,
                               atol=1e-12)


def test_shape_ops():
    s, dense = make((3, 4, 5), 9)
    np.testing.assert_allclose(np_of(s.transpose(0, 2)), dense.transpose(2, 1, 0))
    np.testing.assert_allclose(np_of(s.permute(1, 2, 0)), dense.transpose(1, 2, 0))
    s2, d2 = make((3, 4), 6)
    np.testing.assert_allclose(np_of(s2.t()), d2.T)
    np.testing.assert_allclose(np_of(s.narrow_copy(1, 1, 2)), dense[:, 1:3])
    np.testing.assert_allclose(np_of(s.narrow_copy(2, 0, 0)), dense[:, :, :0])
    index = T.tensor([3, 0, 3, 1])
    np.testing.assert_allclose(np_of(s.index_select(1, index)), dense[:, [3, 0, 3, 1]])
    np.testing.assert_allclose(np_of(s.index_select(0, T.tensor([], dtype=T.int64))),
                               dense[[]])
    h, hd = make((4, 3), 5, sparse_dim=1)
    np.testing.assert_allclose(np_of(h.index_select(1, T.tensor([2, 0]))), hd[:, [2, 0]])
    np.testing.assert_allclose(np_of(h.narrow_copy(1, 1, 2)), hd[:, 1:3])
    mask, _ = make((3, 4), 4, seed=7)
    full = np.arange(12.).reshape(3, 4) + 1
    m = T.tensor(full).sparse_mask(mask)
    expect = np.where(np.abs(mask.to_dense().numpy()) > 0, full, 0)
    pattern = np.zeros((3, 4), dtype=bool)
    pattern[tuple(mask._indices().numpy())] = True
    np.testing.assert_allclose(np_of(m), np.where(pattern, full, 0))
    assert expect.shape == (3, 4)


def test_conversions_dtype_clone_zeros_like():
    s, dense = make((3, 4), 5)
    s = s.coalesce()  # casting casts the stored values: duplicates summed first here
    for dt in (T.float32, T.int64, T.complex128):
        r = s.to(dt)
        assert r.dtype == dt and r.layout is T.sparse_coo
        np.testing.assert_allclose(np_of(r), dense.astype(NP[str(dt).split(".")[-1]]))
    assert s.double().dtype == T.float64 and s.float().dtype == T.float32
    z = T.zeros_like(s)
    assert z.layout is T.sparse_coo and z._nnz() == 0 and z.shape == s.shape
    assert T.zeros_like(s.coalesce().to_sparse_csr())._nnz() == 0
    d = s.detach()
    assert not d.requires_grad
    spd = T.sparse.spdiags(T.arange(1., 7).view(2, 3), T.tensor([0, -1]), (3, 3))
    ref = np.diag([1., 2., 3.]) + np.diag([4., 5.], -1)
    np.testing.assert_allclose(np_of(spd), ref)


def test_sparse_resize():
    s = T.sparse_coo_tensor(T.tensor([[0, 1], [1, 2]]), T.tensor([1., 2.]), (2, 3))
    s.sparse_resize_((4, 5), 2, 0)
    assert s.shape == (4, 5)
    np.testing.assert_allclose(np_of(s)[:2, :3], [[0, 1, 0], [0, 0, 2]])
    with pytest.raises(RuntimeError, match="shrinking"):
        s.sparse_resize_((1, 5), 2, 0)
    s.sparse_resize_and_clear_((2, 2, 2), 1, 2)
    assert s.shape == (2, 2, 2) and s._nnz() == 0 and s.dense_dim() == 2


# ---- autograd ------------------------------------------------------------------------------

def _leaf(size, nnz, seed=0, sparse_dim=None):
    s, _ = make(size, nnz, "float64", sparse_dim=sparse_dim, seed=seed)
    return s._indices(), s._values().clone().requires_grad_()


def test_gradcheck_mm_and_friends():
    idx, v = _leaf((4, 5), 7)
    b = T.tensor(np.random.default_rng(1).standard_normal((5, 3))).requires_grad_()
    a = T.tensor(np.random.default_rng(2).standard_normal((2, 4))).requires_grad_()
    c = T.tensor(np.random.default_rng(3).standard_normal((4, 3))).requires_grad_()

    def sp(vals):
        return T.sparse_coo_tensor(idx, vals, (4, 5))
    assert gradcheck(lambda vals, m: T.sparse.mm(sp(vals), m), (v, b))
    assert gradcheck(lambda vals, m: T.mm(m, sp(vals)), (v, a))
    assert gradcheck(lambda vals, m, x: T.sparse.addmm(x, sp(vals), m, beta=0.5, alpha=2),
                     (v, b, c))
    assert gradcheck(lambda vals: sp(vals).to_dense(), (v,))
    assert gradcheck(lambda vals: sp(vals).coalesce().to_dense(), (v,))
    assert gradcheck(lambda vals: T.sparse.sum(sp(vals), 0).to_dense(), (v,))
    assert gradcheck(lambda vals: T.sparse.sum(sp(vals)), (v,))
    assert gradcheck(lambda vals: (sp(vals) * sp(vals)).to_dense(), (v,))
    assert gradcheck(lambda vals, m: (sp(vals) * m).to_dense(), (v, c.detach().t().t()[:, :3]
                                                                 .new_ones(4, 5)
                                                                 .requires_grad_()))
    assert gradcheck(lambda vals, m: m + sp(vals), (v, T.ones(4, 5, dtype=T.float64,
                                                                 requires_grad=True)))
    assert gradcheck(lambda vals: (sp(vals) + sp(vals * 2)).to_dense(), (v,))
    assert gradcheck(lambda vals: T.sparse.softmax(sp(vals), 1).to_dense(), (v,))
    assert gradcheck(lambda vals: T.sparse.log_softmax(sp(vals), 0).to_dense(), (v,))
    assert gradcheck(lambda vals: T.mm(sp(vals), sp(vals).t()).to_dense(), (v,))
    assert gradcheck(lambda vals: sp(vals).to_sparse_csr().to_dense(), (v,))
    assert gradcheck(lambda vals: sp(vals).t().to_dense(), (v,))


def test_gradcheck_sampled_addmm_and_hybrid():
    c = T.tensor(np.eye(3) + np.diag([1., 2.], 1)).to_sparse_csr()
    m1 = T.tensor(np.random.default_rng(0).standard_normal((3, 2))).requires_grad_()
    m2 = T.tensor(np.random.default_rng(1).standard_normal((2, 3))).requires_grad_()
    cv = c.values().clone().requires_grad_()

    def f(vals, a, b):
        x = T.sparse_csr_tensor(c.crow_indices(), c.col_indices(), vals, (3, 3))
        return T.sparse.sampled_addmm(x, a, b, beta=0.5, alpha=1.5).to_dense()
    assert gradcheck(f, (cv, m1, m2))
    dense = (m1 @ m2).detach().numpy()
    out = f(cv.detach(), m1.detach(), m2.detach()).numpy()
    pattern = c.to_dense().numpy() != 0
    np.testing.assert_allclose(out, np.where(pattern, 0.5 * c.to_dense().numpy() + 1.5 * dense,
                                             0))
    idx, hv = _leaf((4, 3), 5, sparse_dim=1)
    assert gradcheck(lambda vals: T.sparse_coo_tensor(idx, vals, (4, 3)).to_dense(), (hv,))


def test_sparse_leaf_grad_has_its_pattern():
    s = T.sparse_coo_tensor(T.tensor([[0, 1, 1], [2, 0, 2]]), T.tensor([1., 2., 3.]), (2, 3),
                            requires_grad=True)
    assert s.requires_grad and s.is_leaf and s.grad is None
    d = T.arange(6.).reshape(3, 2)
    T.sparse.mm(s, d).sum().backward()
    g = s.grad
    assert g.layout is T.sparse_coo
    assert g._indices().tolist() == s._indices().tolist()
    # d(sum(S @ D)) / dS[r, c] = sum_j D[c, j]
    np.testing.assert_allclose(g._values().numpy(), d.sum(1).numpy()[[2, 0, 2]])
    s.grad = None
    assert s.grad is None


# ---- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("args,kwargs,match", [
    (([[0, 1]], [1., 2., 3.]), {}, "same nnz"),
    (([[0, 3]], [1., 2.], (3,)), {}, "size is inconsistent with indices"),
    (([[0, -1]], [1., 2.], (3,)), {}, "negative index"),
    (([[0, 1]], [1., 2.], (-3,)), {}, "negative dimension"),
    (([[0, 1]], [1., 2.], (3, 2)), {}, "len\\(size\\)"),
    (([[[0, 1]]], [1., 2.], (3,)), {}, "sparse_dim x nnz"),
    (([[0, 1]], 1.0, (3,)), {}, "at least 1-dimensional"),
    (([[0, 1]], [[1., 2.]] * 2, (3, 3)), {}, "values has incorrect size"),
])
def test_bad_coo(args, kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        T.sparse_coo_tensor(*args, **kwargs)


@pytest.mark.parametrize("crow,col,size,match", [
    ([0, 1, 3], [0, 1, 5], (2, 3), "col_indices < ncols"),
    ([0, 2, 1], [0, 1, 2], (2, 3), "nnz"),
    ([1, 1, 3], [0, 1, 2], (2, 3), "== 0"),
    ([0, 1, 3], [0, 2, 2], (2, 3), "sorted and distinct"),
    ([0, 3], [0, 1, 2], (2, 3), "must be equal to 2 \\+ 1"),
])
def test_bad_csr(crow, col, size, match):
    with pytest.raises(RuntimeError, match=match):
        T.sparse_csr_tensor(T.tensor(crow), T.tensor(col), T.ones(len(col)), size)


def test_fuzz_bad_inputs_raise_python_errors():
    rng = np.random.default_rng(0)
    for _ in range(200):
        sdim = int(rng.integers(0, 3))
        nnz = int(rng.integers(0, 4))
        idx = rng.integers(-2, 5, size=(sdim, nnz))
        vals = rng.standard_normal((int(rng.integers(0, 4)),) + (2,) * int(rng.integers(0, 2)))
        size = tuple(int(n) for n in rng.integers(-1, 5, size=int(rng.integers(0, 4))))
        try:
            s = T.sparse_coo_tensor(T.tensor(idx, dtype=T.int64), T.tensor(vals), size)
        except (RuntimeError, ValueError, IndexError, TypeError):
            continue
        # whatever was accepted is consistent: its dense form has its size
        assert tuple(s.to_dense().shape) == size
        assert s.coalesce().to_dense().shape == s.shape


def test_ops_without_sparse_kernel_raise_not_implemented():
    s, _ = make((3, 4), 5)
    for call in (lambda: s.cumsum(0), lambda: T.exp(s), lambda: s.view(12),
                 lambda: T.cos(s), lambda: s.mean(), lambda: s[0:1], lambda: s.flip(0)):
        with pytest.raises(NotImplementedError, match="with arguments from the 'SparseCPU'"):
            call()
    csr = s.coalesce().to_sparse_csr()
    with pytest.raises(NotImplementedError, match="'SparseCsrCPU' backend"):
        T.exp(csr)
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy"):
        s.numpy()
    with pytest.raises(RuntimeError, match="doesn't have storage"):
        s.tolist()
    with pytest.raises(RuntimeError, match="uncoalesced"):
        s.indices()


def test_subclass_identity_and_placeholder_never_read():
    s, dense = make((3, 4), 5)
    assert isinstance(s, T.Tensor) and s.is_sparse and not s.is_sparse_csr
    assert s.layout is T.sparse_coo and s.shape == (3, 4) and s.dim() == 2
    assert s.dtype == T.float64 and s.numel() == 12 and len(s) == 3
    assert not T.ones(2).is_sparse and T.ones(2).to_dense() is not None
    with pytest.raises(RuntimeError, match="indices expected sparse coordinate tensor layout "
                                           "but got Strided"):
        T.ones(2).indices()
    with pytest.raises(NotImplementedError, match="'aten::_nnz' with arguments from the 'CPU'"):
        T.ones(2)._nnz()
    # an op reaching the placeholder would give zeros; every op must route or raise
    assert not np.allclose(np_of(s * 1.0), 0)


def test_unsqueeze_cat_stack_select():
    s, dense = make((3, 4), 5)
    h, hd = make((4, 3), 5, sparse_dim=1, seed=2)
    for d in range(3):
        np.testing.assert_allclose(np_of(s.unsqueeze(d)), np.expand_dims(dense, d))
        np.testing.assert_allclose(np_of(h.unsqueeze(d)), np.expand_dims(hd, d))
    s2, d2 = make((3, 4), 4, seed=9)
    for d in (0, 1):
        np.testing.assert_allclose(np_of(T.cat([s, s2], d)), np.concatenate([dense, d2], d))
        np.testing.assert_allclose(np_of(T.stack([s, s2], d)), np.stack([dense, d2], d))
    np.testing.assert_allclose(np_of(T.cat([h, h], 1)), np.concatenate([hd, hd], 1))
    for d in (0, 1):
        for i in (0, 2, -1):
            np.testing.assert_allclose(np_of(s.select(d, i)), np.take(dense, i, axis=d))
            np.testing.assert_allclose(np_of(h.select(d, i)), np.take(hd, i, axis=d))
    np.testing.assert_allclose(np_of(s[1]), dense[1])
    one, d1 = make((5,), 4)
    np.testing.assert_allclose(one[int(one._indices()[0, 0])].item(),
                               d1[int(one._indices()[0, 0])])
    with pytest.raises(IndexError, match="out of bounds"):
        s[3]
    with pytest.raises(RuntimeError, match="same shape"):
        T.cat([s, h])
    idx, v = _leaf((3, 4), 5)
    assert gradcheck(lambda vals: T.cat([T.sparse_coo_tensor(idx, vals, (3, 4))] * 2, 1)
                     .to_dense(), (v,))
    assert gradcheck(lambda vals: T.sparse_coo_tensor(idx, vals, (3, 4))[1].to_dense(), (v,))


def test_placeholder_storage_is_never_exported():
    # the C buffer protocol refuses a sparse tensor, so NumPy falls back on
    # __array__ and raises PyTorch's error rather than reading placeholder data
    s, _ = make((3, 4), 5)
    for layout in (s, s.coalesce().to_sparse_csr()):
        with pytest.raises(TypeError, match="layout tensor to numpy. Use Tensor.to_dense"):
            np.asarray(layout)
        with pytest.raises(BufferError, match="to_dense"):
            memoryview(layout)
    with pytest.raises(RuntimeError, match="to_dense"):
        T.from_dlpack(s)
    with pytest.raises(RuntimeError, match="to_dense"):
        s.as_subclass(T.Tensor)
    # plain tensors still export
    np.testing.assert_array_equal(np.asarray(T.arange(3)), [0, 1, 2])


def test_blocked_layouts_ops():
    rng = np.random.default_rng(4)
    blocks = rng.standard_normal((2, 3, 2, 2)) * (rng.random((2, 3, 1, 1)) > 0.4)
    dense = blocks.transpose(0, 2, 1, 3).reshape(4, 6)
    d = T.tensor(dense)
    b = d.to_sparse_bsr((2, 2))
    assert b.values().shape[1:] == (2, 2)
    np.testing.assert_allclose(np_of(b + b), 2 * dense)
    assert (b + b).layout is T.sparse_bsr
    np.testing.assert_allclose(np_of(b * 3), 3 * dense)
    np.testing.assert_allclose(np_of(b * d), dense * dense)
    np.testing.assert_allclose(T.mm(b, T.ones(6, 2, dtype=T.float64)).numpy(),
                               dense @ np.ones((6, 2)))
    r = T.mm(b, d.t().contiguous().to_sparse_bsr((2, 2)))
    assert r.layout is T.sparse_bsr
    np.testing.assert_allclose(np_of(r), dense @ dense.T)
    c = d.to_sparse_bsc((2, 3))
    assert c.t().layout is T.sparse_bsr
    np.testing.assert_allclose(np_of(c.t()), dense.T)
    np.testing.assert_allclose(np_of(c.narrow_copy(1, 3, 3)), dense[:, 3:])


def test_sparse_ops_inside_a_custom_backward():
    # the user code backward calls back keeps __torch_function__, so a sparse
    # tensor saved for backward computes there (it once read its placeholder)
    s, dense = make((3, 4), 5)

    class SparseMatmul(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.s = s
            return T.sparse.mm(s, x)

        @staticmethod
        def backward(ctx, g):
            return T.sparse.mm(ctx.s.t(), g)

    x = T.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    g = T.tensor(np.linspace(-1, 1, 6).reshape(3, 2))
    SparseMatmul.apply(x).backward(g)
    np.testing.assert_allclose(x.grad.numpy(), dense.T @ g.numpy(), rtol=1e-12)
