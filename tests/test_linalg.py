"""torchlike.linalg against numpy.linalg.

Factorizations are checked by what defines them (A rebuilt from the factors,
orthonormal Q/U/V, triangular R/L) and by invariants (singular values,
sorted eigenvalues, |det|), since the factors themselves are unique only up
to signs or phases."""
import math

import numpy as np
import pytest

import torchlike as tl
from torchlike import linalg as LA
from oracle import assert_close, random_array, to_tensor

FLOATS = ["float32", "float64", "complex64", "complex128"]
BATCHES = [(), (3,), (2, 2)]


def tol(dtype):
    return (2e-4, 2e-4) if dtype in ("float32", "complex64") else (1e-9, 1e-9)


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, rng=np.random.default_rng(seed), low=-1, high=1)


def spd(shape, dtype, seed=0):
    """Hermitian positive-definite matrices of shape (*, n, n)."""
    a = rand(shape, dtype, seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(a.dtype)


def close(actual, expected, dtype, scale=1.0):
    rtol, atol = tol(dtype)
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol * scale, atol=atol * scale)


def mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


# ---- solve, inv, det ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_solve_matrix_and_vector_rhs(dtype, batch):
    a = rand(batch + (4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    b = rand(batch + (4, 3), dtype, 1)
    x = LA.solve(to_tensor(a), to_tensor(b))
    assert x.dtype.name == dtype
    close(x.cpu().numpy(), np.linalg.solve(a, b), dtype, 10)
    v = rand(batch + (4,), dtype, 2)
    xv = LA.solve(to_tensor(a), to_tensor(v))
    assert tuple(xv.shape) == batch + (4,)
    close(xv.cpu().numpy(), np.linalg.solve(a, v[..., None])[..., 0], dtype, 10)


def test_solve_left_false_and_broadcast():
    a = rand((2, 1, 3, 3), "float64") + 3 * np.eye(3)
    b = rand((4, 5, 3), "float64", 1)
    x = LA.solve(to_tensor(a), to_tensor(b), left=False)           # x a = b
    close(x.cpu().numpy() @ a, np.broadcast_to(b, (2, 4, 5, 3)), "float64", 10)
    x = LA.solve(to_tensor(a), to_tensor(np.swapaxes(b, -1, -2)))  # batch broadcast
    assert tuple(x.shape) == (2, 4, 3, 5)


def test_solve_errors():
    with pytest.raises(RuntimeError, match="square"):
        LA.solve(tl.ones(2, 3), tl.ones(2))
    with pytest.raises(RuntimeError, match=r"3x3 and 4x2"):
        LA.solve(tl.eye(3) if hasattr(tl, "eye") else to_tensor(np.eye(3, dtype=np.float32)),
                 tl.ones(4, 2))
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(tl.zeros(2, 2), tl.ones(2))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_inv(dtype, batch):
    a = rand(batch + (5, 5), dtype) + 3 * np.eye(5, dtype=dtype)
    r = LA.inv(to_tensor(a))
    assert r.dtype.name == dtype and tuple(r.shape) == batch + (5, 5)
    close(r.cpu().numpy(), np.linalg.inv(a), dtype, 10)
    close(tl.inverse(to_tensor(a)).cpu().numpy(), np.linalg.inv(a), dtype, 10)
    close(to_tensor(a).inverse().cpu().numpy(), np.linalg.inv(a), dtype, 10)


def test_inv_singular_names_batch_element_and_pivot():
    a = np.stack([np.eye(3)] * 5)
    a[3, 1, 1] = 0
    with pytest.raises(LA.LinAlgError) as info:
        LA.inv(to_tensor(a))
    assert str(info.value) == ("linalg.inv: (Batch element 3): The diagonal element 2 is zero, the "
                               "inversion could not be completed because the input matrix is "
                               "singular.")
    assert isinstance(info.value, RuntimeError)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv: The diagonal element 1 is zero"):
        LA.inv(tl.zeros(2, 2))


def test_inv_int_input_promotes_and_noncontiguous():
    a = np.array([[2, 1], [1, 3]], dtype=np.int64)
    r = LA.inv(to_tensor(a))
    assert r.dtype == tl.get_default_dtype()
    close(r.cpu().numpy(), np.linalg.inv(a), "float32")
    big = rand((6, 6), "float64") + 6 * np.eye(6)
    t = to_tensor(big)
    close(LA.inv(t[::2, ::2]).cpu().numpy(), np.linalg.inv(big[::2, ::2]), "float64", 10)
    close(LA.inv(t.T).cpu().numpy(), np.linalg.inv(big.T), "float64", 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_det_slogdet_logdet(dtype, batch):
    a = rand(batch + (4, 4), dtype, 3)
    close(LA.det(to_tensor(a)).cpu().numpy(), np.linalg.det(a), dtype, 10)
    sign, logabs = LA.slogdet(to_tensor(a))
    s2, l2 = np.linalg.slogdet(a)
    assert sign.dtype.name == dtype
    assert logabs.dtype.name == ("float32" if dtype in ("float32", "complex64") else "float64")
    close(sign.cpu().numpy(), s2, dtype, 10)
    close(logabs.cpu().numpy(), l2, dtype, 10)
    assert_close(tl.det(to_tensor(a)), np.linalg.det(a), rtol=1e-3, atol=1e-3)


def test_det_singular_and_empty():
    assert LA.det(tl.zeros(3, 3)).item() == 0
    sign, logabs = LA.slogdet(tl.zeros(2, 2))
    assert sign.item() == 0 and logabs.item() == -math.inf
    assert LA.det(tl.zeros(0, 0)).item() == 1
    assert tuple(LA.det(tl.zeros(2, 0, 0)).shape) == (2,)
    assert math.isnan(tl.logdet(to_tensor(np.diag([-1.0, 2.0]))).item())
    close(tl.logdet(to_tensor(np.diag([3.0, 2.0]))).cpu().numpy(), np.log(6.0), "float64")


# ---- cholesky, qr ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_cholesky(dtype, batch):
    a = spd(batch + (4, 4), dtype)
    L = LA.cholesky(to_tensor(a))
    close(L.cpu().numpy(), np.linalg.cholesky(a), dtype, 10)
    U = LA.cholesky(to_tensor(a), upper=True)
    u = U.cpu().numpy()
    assert np.allclose(np.tril(u, -1), 0)
    close(mH(u) @ u, a, dtype, 50)


def test_cholesky_not_positive_definite_names_batch_and_minor():
    a = np.stack([np.eye(3)] * 3)
    a[2, 1, 1] = -1
    with pytest.raises(LA.LinAlgError) as info:
        LA.cholesky(to_tensor(a))
    assert str(info.value) == ("linalg.cholesky: (Batch element 2): The factorization could not be "
                               "completed because the input is not positive-definite (the leading "
                               "minor of order 2 is not positive-definite).")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    a = rand(shape, dtype, 4)
    Q, R = LA.qr(to_tensor(a), mode=mode)
    m, n = shape[-2:]
    k = min(m, n)
    r = R.cpu().numpy()
    assert np.allclose(np.tril(r, -1), 0)
    if mode == "r":
        assert Q.numel() == 0
        assert tuple(R.shape) == shape[:-2] + (k, n)
        _, r_np = np.linalg.qr(a)
        close(np.abs(r), np.abs(r_np), dtype, 50)
        return
    q = Q.cpu().numpy()
    cols = m if mode == "complete" else k
    assert tuple(Q.shape) == shape[:-2] + (m, cols)
    assert tuple(R.shape) == shape[:-2] + (cols, n)
    close(q @ r, a, dtype, 50)
    close(mH(q) @ q, np.broadcast_to(np.eye(cols), shape[:-2] + (cols, cols)), dtype, 50)


def test_qr_bad_mode():
    with pytest.raises(RuntimeError, match="mode"):
        LA.qr(tl.ones(2, 2), mode="full")


# ---- svd, eig ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 6, 4), (0, 3), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    a = rand(shape, dtype, 5)
    U, S, Vh = LA.svd(to_tensor(a), full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(U.shape) == shape[:-2] + ((m, m) if full else (m, k))
    assert tuple(Vh.shape) == shape[:-2] + ((n, n) if full else (k, n))
    assert S.dtype.name == ("float32" if dtype in ("float32", "complex64") else "float64")
    close(S.cpu().numpy(), np.linalg.svd(a, compute_uv=False), dtype, 10)
    u, s, vh = U.cpu().numpy(), S.cpu().numpy(), Vh.cpu().numpy()
    close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, 50)
    close(mH(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
          dtype, 50)
    close(LA.svdvals(to_tensor(a)).cpu().numpy(), np.linalg.svd(a, compute_uv=False), dtype, 10)


def test_torch_svd_returns_v():
    a = rand((4, 3), "complex128")
    U, S, V = tl.svd(to_tensor(a))
    close((U.cpu().numpy() * S.cpu().numpy()) @ mH(V.cpu().numpy()), a, "complex128", 10)
    assert tuple(V.shape) == (3, 3)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, batch, uplo):
    a = spd(batch + (5, 5), dtype, 6)
    w, v = LA.eigh(to_tensor(a), UPLO=uplo)
    close(w.cpu().numpy(), np.linalg.eigvalsh(a, UPLO=uplo), dtype, 100)
    vv = v.cpu().numpy()
    close(a @ vv, vv * w.cpu().numpy()[..., None, :], dtype, 200)
    close(LA.eigvalsh(to_tensor(a), UPLO=uplo).cpu().numpy(), np.linalg.eigvalsh(a), dtype, 100)


def test_eigh_reads_only_one_triangle():
    a = spd((4, 4), "float64")
    junk = a + np.triu(np.ones((4, 4)), 1) * 100  # upper triangle garbage
    close(LA.eigvalsh(to_tensor(junk), UPLO="L").cpu().numpy(), np.linalg.eigvalsh(a), "float64", 100)
    with pytest.raises(RuntimeError, match="UPLO"):
        LA.eigh(to_tensor(a), UPLO="X")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
def test_eig(dtype, batch):
    a = rand(batch + (5, 5), dtype, 7)
    w, v = LA.eig(to_tensor(a))
    cd = "complex64" if dtype in ("float32", "complex64") else "complex128"
    assert w.dtype.name == cd and v.dtype.name == cd
    ww, vv = w.cpu().numpy(), v.cpu().numpy()
    close(a @ vv, vv * ww[..., None, :], dtype, 200)
    close(np.linalg.norm(vv, axis=-2), np.ones(batch + (5,)), dtype, 50)
    expected = np.linalg.eigvals(a)
    key = lambda z: np.lexsort((np.round(z.imag, 3), np.round(z.real, 3)))
    for got, exp in zip(ww.reshape(-1, 5), expected.reshape(-1, 5)):
        close(got[key(got)], exp[key(exp)], dtype, 200)
    close(np.sort_complex(LA.eigvals(to_tensor(a)).cpu().numpy().reshape(-1, 5)),
          np.sort_complex(ww.reshape(-1, 5)), dtype, 10)


# ---- lstsq -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4)])
def test_lstsq(dtype, driver, shape):
    m, n = shape
    a = rand((2,) + shape, dtype, 8)
    b = rand((2, m, 2), dtype, 9)
    r = LA.lstsq(to_tensor(a), to_tensor(b), driver=driver)
    assert tuple(r.solution.shape) == (2, n, 2)
    expected = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    if driver == "gels" and m < n:  # gels gives the minimum-norm solution too
        pass
    close(r.solution.cpu().numpy(), expected, dtype, 100)
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    if driver != "gels":
        assert r.rank.dtype == tl.int64 and r.rank.cpu().numpy().tolist() == [min(m, n)] * 2
    else:
        assert r.rank.numel() == 0
    if driver in ("gelsd", "gelss"):
        assert r.singular_values.dtype.name == real
        close(r.singular_values.cpu().numpy(), np.linalg.svd(a, compute_uv=False), dtype, 10)
    else:
        assert r.singular_values.numel() == 0
    if m > n and driver != "gelsy":
        res = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[1] for i in range(2)])
        close(r.residuals.cpu().numpy(), res, dtype, 100)
    else:
        assert r.residuals.numel() == 0


def test_lstsq_vector_rhs_and_bad_driver():
    a, b = rand((5, 2), "float64"), rand((5,), "float64", 1)
    r = LA.lstsq(to_tensor(a), to_tensor(b))
    close(r.solution.cpu().numpy(), np.linalg.lstsq(a, b, rcond=None)[0], "float64", 10)
    with pytest.raises(RuntimeError, match="driver"):
        LA.lstsq(to_tensor(a), to_tensor(b), driver="foo")
    with pytest.raises(RuntimeError, match="size"):
        LA.lstsq(to_tensor(a), tl.ones(4, 1, dtype=tl.float64))


# ---- norms ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", [2, 1, 0, 3.5, math.inf, -math.inf, -1])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_vector_norm(dtype, ord, dim, keepdim):
    x = rand((3, 4, 5), dtype, 10)
    got = LA.vector_norm(to_tensor(x), ord, dim, keepdim)
    axis = tuple(range(3)) if dim is None else dim
    flat = np.abs(x)
    if ord == math.inf:
        e = flat.max(axis=axis, keepdims=keepdim)
    elif ord == -math.inf:
        e = flat.min(axis=axis, keepdims=keepdim)
    elif ord == 0:
        e = (flat != 0).sum(axis=axis, keepdims=keepdim).astype(np.float64)
    else:
        e = (flat ** ord).sum(axis=axis, keepdims=keepdim) ** (1 / ord)
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert got.dtype.name == real
    close(got.cpu().numpy(), e, dtype, 10)


def test_vector_norm_errors_and_empty():
    with pytest.raises(RuntimeError, match="floating point"):
        LA.vector_norm(tl.ones(3, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="empty"):
        LA.vector_norm(tl.ones(0), math.inf)
    assert LA.vector_norm(tl.ones(0)).item() == 0
    assert LA.vector_norm(tl.ones(3), dtype=tl.float64).dtype == tl.float64
    big = to_tensor(np.array([1e30, 1e30], dtype=np.float32))
    close(LA.vector_norm(big).cpu().numpy(), np.float32(math.sqrt(2) * 1e30), "float32")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm(dtype, ord, keepdim):
    a = rand((2, 4, 3), dtype, 11)
    got = LA.matrix_norm(to_tensor(a), ord, keepdim=keepdim)
    close(got.cpu().numpy(), np.linalg.norm(a, ord, axis=(-2, -1), keepdims=keepdim), dtype, 10)
    got = LA.matrix_norm(to_tensor(a), ord, dim=(0, 2))
    close(got.cpu().numpy(), np.linalg.norm(a, ord, axis=(0, 2)), dtype, 10)


def test_norm_dispatch():
    a = rand((3, 4), "float64", 12)
    close(LA.norm(to_tensor(a)).cpu().numpy(), np.linalg.norm(a), "float64")
    close(LA.norm(to_tensor(a), "nuc").cpu().numpy(), np.linalg.norm(a, "nuc"), "float64")
    close(LA.norm(to_tensor(a), 2).cpu().numpy(), np.linalg.norm(a, 2), "float64")
    close(LA.norm(to_tensor(a), 3, dim=1).cpu().numpy(), np.linalg.norm(a, 3, axis=1), "float64")
    close(LA.norm(to_tensor(a[0]), 1).cpu().numpy(), np.linalg.norm(a[0], 1), "float64")
    with pytest.raises(RuntimeError, match="1D or 2D"):
        LA.norm(tl.ones(2, 2, 2), 2)


# ---- pinv, rank, power, cross, multi_dot ---------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv(dtype, shape):
    a = rand(shape, dtype, 13)
    close(LA.pinv(to_tensor(a)).cpu().numpy(), np.linalg.pinv(a), dtype, 100)
    h = spd(shape[:-2] + (shape[-1],) * 2, dtype)
    close(LA.pinv(to_tensor(h), hermitian=True).cpu().numpy(), np.linalg.pinv(h, hermitian=True),
          dtype, 100)
    close(tl.pinverse(to_tensor(a)).cpu().numpy(), np.linalg.pinv(a), dtype, 100)


def test_pinv_and_rank_tolerances():
    a = np.diag([10.0, 1.0, 1e-3])
    close(LA.pinv(to_tensor(a), atol=1e-2).cpu().numpy(), np.diag([0.1, 1.0, 0.0]), "float64")
    close(LA.pinv(to_tensor(a), rtol=0.05).cpu().numpy(), np.diag([0.1, 1.0, 0.0]), "float64")
    assert LA.matrix_rank(to_tensor(a)).item() == 3
    assert LA.matrix_rank(to_tensor(a), atol=1e-2).item() == 2
    assert LA.matrix_rank(to_tensor(a), rtol=0.5).item() == 1
    assert LA.matrix_rank(to_tensor(a), hermitian=True, atol=1e-2).item() == 2
    low = rand((3, 5, 2), "float64") @ rand((3, 2, 4), "float64", 1)
    r = LA.matrix_rank(to_tensor(low))
    assert r.dtype == tl.int64 and r.cpu().numpy().tolist() == np.linalg.matrix_rank(low).tolist()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -2])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64"])
def test_matrix_power(n, dtype):
    a = rand((2, 3, 3), dtype, 14)
    if dtype == "int64":
        if n < 0:
            return
        a = random_array((2, 3, 3), "int64", low=-3, high=3)
    else:
        a = a + 2 * np.eye(3)
    got = LA.matrix_power(to_tensor(a), n)
    assert got.dtype.name == dtype
    close(got.cpu().numpy(), np.linalg.matrix_power(a, n), dtype, 100)
    t = to_tensor(a)
    assert LA.matrix_power(t, 1).data_ptr() != t.data_ptr()


def test_matrix_power_errors():
    with pytest.raises(RuntimeError, match="square"):
        LA.matrix_power(tl.ones(2, 3), 2)
    with pytest.raises(LA.LinAlgError):
        LA.matrix_power(tl.zeros(2, 2), -1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_cross(dtype):
    a, b = random_array((4, 3), dtype), random_array((2, 1, 3), dtype, np.random.default_rng(1))
    got = LA.cross(to_tensor(a), to_tensor(b))
    assert got.dtype.name == dtype
    kind = "float32" if dtype == "float32" else "float64"
    close(got.cpu().numpy(), np.cross(a, b), kind)
    c, d = random_array((3, 5), dtype), random_array((3, 5), dtype, np.random.default_rng(2))
    close(LA.cross(to_tensor(c), to_tensor(d), dim=0).cpu().numpy(), np.cross(c, d, axis=0), kind)
    close(tl.cross(to_tensor(c), to_tensor(d)).cpu().numpy(), np.cross(c, d, axis=0), kind)
    with pytest.raises(RuntimeError, match="length 3"):
        LA.cross(tl.ones(2), tl.ones(2))
    # a 0-d input has no dim (its shape array was read past its end); PyTorch's words
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        LA.cross(tl.tensor(1.0), tl.tensor(1.0))
    with pytest.raises(IndexError, match="has no dimensions"):
        LA.cross(tl.tensor(1.0), tl.ones(3))
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"):
        tl.cross(tl.tensor(1.0), tl.tensor(1.0))


def test_multi_dot():
    rng = np.random.default_rng(15)
    ms = [rng.standard_normal(s) for s in [(4,), (4, 5), (5, 2), (2,)]]
    close(LA.multi_dot([to_tensor(m) for m in ms]).cpu().numpy(), np.linalg.multi_dot(ms), "float64")
    ms = [rng.standard_normal(s) for s in [(3, 4), (4, 5), (5, 2)]]
    close(LA.multi_dot([to_tensor(m) for m in ms]).cpu().numpy(), np.linalg.multi_dot(ms), "float64")
    with pytest.raises(RuntimeError, match="2D"):
        LA.multi_dot([tl.ones(2, 2), tl.ones(2, 2, 2), tl.ones(2, 2)])


# ---- einsum -----------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,ij->", [(3, 4), (3, 4)]), ("i,j->ij", [(3,), (4,)]), ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ijk->kj", [(2, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("...i,i", [(2, 3, 4), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 4)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ab,cd->abcd", [(2, 3), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("...->...", [(2, 3)]),
    ("i...->...", [(3, 4, 5)]), ("ij,kj->ik", [(0, 3), (4, 3)]),
    # batched dots (BLAS dots along adjacent elements, else a product and a sum)
    # and products with nothing contracted (a broadcast multiply)
    ("ij,ij->i", [(5, 7), (5, 7)]), ("ij,ij->j", [(5, 7), (5, 7)]), ("ij,ji->i", [(5, 7), (7, 5)]),
    ("ij,ij->ij", [(5, 7), (5, 7)]), ("ij,ij->ji", [(5, 7), (5, 7)]), ("bij,bij->bj", [(2, 3, 4), (2, 3, 4)]),
    ("...i,...i->...", [(2, 1, 4), (3, 4)]), ("ij,j->ij", [(3, 4), (4,)]), ("ijk,ijk->i", [(3, 4, 5), (3, 4, 5)]),
    ("i,i->", [(0,), (0,)]), ("ij,ij->i", [(0, 3), (0, 3)]), ("ij,ij->i", [(3, 0), (3, 0)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["float64", "complex64", "int64"])
def test_einsum(eq, shapes, dtype):
    arrays = [random_array(s, dtype, np.random.default_rng(i)) for i, s in enumerate(shapes)]
    got = tl.einsum(eq, *[to_tensor(a) for a in arrays])
    expected = np.einsum(eq, *arrays)
    assert tuple(got.shape) == expected.shape
    assert got.dtype.name == dtype
    close(got.cpu().numpy(), expected, "float32" if dtype == "complex64" else "float64", 10)


def test_einsum_noncontiguous_and_list_form():
    a = rand((4, 6), "float64")
    t = to_tensor(a)
    close(tl.einsum("ij,kj->ik", t[:, ::2], t.T[::2].T).cpu().numpy(),
          np.einsum("ij,kj->ik", a[:, ::2], a[:, ::2]), "float64")
    close(tl.einsum("ij,jk", [t, t.T]).cpu().numpy(), a @ a.T, "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_einsum_batched_dots_of_strided_views(dtype):
    """The dot path reads each operand through its strides: transposed,
    sliced and broadcast views give NumPy's values."""
    a = random_array((6, 10), dtype, np.random.default_rng(1))
    b = random_array((10, 6), dtype, np.random.default_rng(2))
    ta, tb = to_tensor(a), to_tensor(b)
    for eq, x, y, xs, ys in [("ij,ij->i", ta[:, ::2], tb.T[:, ::2], a[:, ::2], b.T[:, ::2]),
                             ("ij,ij->j", ta.T, tb, a.T, b),
                             ("ij,ij->i", ta[::2], ta[1::2], a[::2], a[1::2]),
                             ("ij,j->i", ta, ta[0], a, a[0])]:
        got = tl.einsum(eq, x, y)
        assert got.dtype.name == dtype
        close(got.cpu().numpy(), np.einsum(eq, xs, ys), dtype, 10)


def test_einsum_errors():
    with pytest.raises(RuntimeError, match="subscripts"):
        tl.einsum("ijk,jk", tl.ones(2, 3), tl.ones(3, 4))
    with pytest.raises(RuntimeError, match="size"):
        tl.einsum("ij,jk", tl.ones(2, 3), tl.ones(4, 5))
    with pytest.raises(ValueError, match="operands"):
        tl.einsum("ij,jk", tl.ones(2, 3))
    with pytest.raises(RuntimeError, match="output"):
        tl.einsum("ij->iz", tl.ones(2, 3))


def test_adjoint_and_mH():
    a = rand((2, 3, 4), "complex128")
    close(to_tensor(a).mH.cpu().numpy(), mH(a), "complex128")
    close(tl.adjoint(to_tensor(a)).cpu().numpy(), mH(a), "complex128")
    close(to_tensor(a[0]).H.cpu().numpy(), mH(a[0]), "complex128")


# ---- LU, triangular solves, vecdot, tensorinv/tensorsolve ----------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5), (0, 0)])
def test_lu_reconstructs(dtype, shape):
    a = rand(shape, dtype, 16)
    P, L, U = LA.lu(to_tensor(a))
    p, l, u = P.cpu().numpy(), L.cpu().numpy(), U.cpu().numpy()
    k = min(shape[-2:])
    assert tuple(L.shape) == shape[:-2] + (shape[-2], k)
    assert tuple(U.shape) == shape[:-2] + (k, shape[-1])
    assert np.allclose(np.triu(l, 1), 0) and np.allclose(np.tril(u, -1), 0)
    close(p @ l @ u, a, dtype, 50)
    LU, piv = LA.lu_factor(to_tensor(a))
    assert piv.dtype == tl.int32 and tuple(piv.shape) == shape[:-2] + (k,)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(dtype, left, adjoint):
    a = rand((2, 4, 4), dtype, 17) + 3 * np.eye(4, dtype=dtype)
    b = rand((2, 4, 3) if left else (2, 3, 4), dtype, 18)
    LU, piv = LA.lu_factor(to_tensor(a))
    x = LA.lu_solve(LU, piv, to_tensor(b), left=left, adjoint=adjoint).cpu().numpy()
    op = mH(a) if adjoint else a
    close(op @ x if left else x @ op, b, dtype, 50)


def test_lu_factor_singular_raises():
    with pytest.raises(LA.LinAlgError, match=r"U\[2,2\] is zero"):
        LA.lu_factor(to_tensor(np.array([[1.0, 2.0], [2.0, 4.0]])))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(dtype, upper, left, unit):
    a = rand((2, 4, 4), dtype, 19) + 4 * np.eye(4, dtype=dtype)
    tri = np.triu(a) if upper else np.tril(a)
    if unit:  # the diagonal of A is not read: the solve uses ones
        idx = np.arange(4)
        tri[..., idx, idx] = 1
    b = rand((2, 4, 3) if left else (2, 3, 4), dtype, 20)
    x = LA.solve_triangular(to_tensor(a), to_tensor(b), upper=upper,
                            left=left, unitriangular=unit).cpu().numpy()
    close(tri @ x if left else x @ tri, b, dtype, 50)
    with pytest.raises(RuntimeError, match="Incompatible"):
        LA.solve_triangular(to_tensor(a), tl.ones(5, 2, dtype=getattr(tl, dtype)), upper=upper)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_vecdot(dtype):
    x, y = rand((3, 1, 5), dtype, 21), rand((4, 5), dtype, 22)
    close(LA.vecdot(to_tensor(x), to_tensor(y)).cpu().numpy(), (np.conj(x) * y).sum(-1), dtype, 10)
    close(LA.vecdot(to_tensor(x), to_tensor(x), dim=0).cpu().numpy(), (np.conj(x) * x).sum(0), dtype, 10)


def test_tensorinv_tensorsolve():
    a = rand((4, 6, 8, 3), "float64", 23)
    a = a + np.eye(24).reshape(4, 6, 8, 3) * 5
    close(LA.tensorinv(to_tensor(a)).cpu().numpy(), np.linalg.tensorinv(a), "float64", 100)
    b = rand((2, 3, 4), "float64", 24)
    m = rand((2, 3, 4, 6, 4), "float64", 25) + np.eye(24).reshape(2, 3, 4, 6, 4) * 5
    close(LA.tensorsolve(to_tensor(m), to_tensor(b)).cpu().numpy(), np.linalg.tensorsolve(m, b),
          "float64", 100)


def test_ex_variants_report_info_per_batch():
    a = np.stack([np.eye(3)] * 4)
    a[2, 1, 1] = 0
    a[3] = -np.eye(3)
    t = to_tensor(a)
    inv, info = LA.inv_ex(t)
    assert info.dtype == tl.int32 and info.cpu().numpy().tolist() == [0, 0, 2, 0]
    close(inv.cpu().numpy()[3], -np.eye(3), "float64")
    L, info = LA.cholesky_ex(t)
    assert info.cpu().numpy().tolist() == [0, 0, 2, 1]
    close(L.cpu().numpy()[0], np.eye(3), "float64")
    x, info = LA.solve_ex(t, tl.ones(4, 3, dtype=tl.float64))
    assert info.cpu().numpy().tolist() == [0, 0, 2, 0]
    assert LA.lu_factor_ex(t).info.cpu().numpy().tolist() == [0, 0, 2, 0]
    with pytest.raises(LA.LinAlgError, match="Batch element 2"):
        LA.inv_ex(t, check_errors=True)
    with pytest.raises(LA.LinAlgError, match="Batch element 2"):
        LA.solve_ex(t, tl.ones(4, 3, dtype=tl.float64), check_errors=True)
    good = to_tensor(np.stack([np.eye(2)] * 2))
    assert LA.cholesky_ex(good, check_errors=True).info.cpu().numpy().tolist() == [0, 0]
