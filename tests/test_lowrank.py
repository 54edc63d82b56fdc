"""torch.vander, torch.svd_lowrank, torch.pca_lowrank (torchlike/_lowrank.py) and
torch.lobpcg (torchlike/_lobpcg.py) against eigh and scipy.linalg.eigh:
PyTorch's recorded answers (tests/golden/linalg_polar.json,
scripts/golden_linalg_polar.py) for vander's values and messages and the
low-rank functions' shapes, exact-rank singular values and messages;
NumPy for vander (np.vander) and the full SVD as the oracle of the
randomized one (singular values, reconstruction, orthonormal factors),
batched, float32/float64/complex, wide and tall; gradcheck in float64."""
import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("linalg_polar")
_MINE = [c for c in CALLS if any(f in c[0] for f in ("vander", "lowrank", "lobpcg"))]


@pytest.mark.parametrize("call,expected", _MINE, ids=[c for c, _ in _MINE])
def test_matches_pytorch(call, expected):
    if expected[:2] == ["raises", "AssertionError"]:   # PyTorch's asserts: ValueError here
        expected = ["raises", "ValueError"] + expected[2:]
    check(_golden, call, expected, tight=(1e-9, 1e-9))


@pytest.mark.parametrize("N", [None, 0, 1, 4])
@pytest.mark.parametrize("increasing", [False, True])
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.complex128])
def test_vander_matches_numpy(N, increasing, dtype):
    x = np.array([0.5, -2, 3, 1.25, 0]).astype(dtype) if dtype != np.int64 else \
        np.array([2, -3, 0, 5, 1])
    got = T.vander(T.tensor(x)[::-1], N=N, increasing=increasing).numpy()
    want = np.vander(x[::-1], N=N, increasing=increasing)
    assert got.dtype == x.dtype         # NumPy widens float32; PyTorch keeps it
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_vander_gradcheck():
    x = T.tensor([0.5, -1.5, 2.0], dtype=T.float64, requires_grad=True)
    assert gradcheck(lambda v: T.vander(v, 4), (x,))


def _low_rank(shape, rank, dtype, seed=0):
    rng = np.random.default_rng(seed)
    *batch, m, n = shape
    f, g = rng.standard_normal((*batch, m, rank)), rng.standard_normal((*batch, rank, n))
    if np.dtype(dtype).kind == "c":
        f = f + 1j * rng.standard_normal(f.shape)
        g = g + 1j * rng.standard_normal(g.shape)
    return (f @ g).astype(dtype)


def _tol(dtype):
    return 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(40, 25), (25, 40), (3, 30, 20), (2, 1, 20, 30)])
def test_svd_lowrank_recovers_exact_rank(shape, dtype):
    T.manual_seed(0)
    a = _low_rank(shape, 4, dtype)
    U, S, V = T.svd_lowrank(T.tensor(a), q=6)
    u, s, v = U.numpy(), S.numpy(), V.numpy()
    m, n = shape[-2:]
    assert u.shape == shape[:-2] + (m, 6) and s.shape == shape[:-2] + (6,)
    assert v.shape == shape[:-2] + (n, 6) and u.dtype == a.dtype and v.dtype == a.dtype
    full = np.linalg.svd(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                         compute_uv=False)
    scale = full[..., :1]
    np.testing.assert_allclose(s[..., :4] / scale, full[..., :4] / scale, atol=_tol(dtype))
    assert np.all(np.abs(s[..., 4:] / scale) < _tol(dtype))
    recon = (u * s[..., None, :]) @ np.swapaxes(v.conj(), -1, -2)
    np.testing.assert_allclose(recon, a, atol=_tol(dtype) * np.abs(a).max() * 10)
    eye = np.eye(6)
    np.testing.assert_allclose(np.swapaxes(u.conj(), -1, -2) @ u, np.broadcast_to(eye, s.shape + (6,)),
                               atol=_tol(dtype) * 10)
    np.testing.assert_allclose(np.swapaxes(v.conj(), -1, -2) @ v, np.broadcast_to(eye, s.shape + (6,)),
                               atol=_tol(dtype) * 10)


def test_svd_lowrank_power_iterations_help():
    """A matrix with a slowly decaying spectrum: niter power iterations bring
    the leading singular values closer to the full SVD's."""
    rng = np.random.default_rng(1)
    q1, _ = np.linalg.qr(rng.standard_normal((200, 200)))
    q2, _ = np.linalg.qr(rng.standard_normal((120, 120)))
    sv = 1.0 / np.arange(1, 121) ** 0.5
    a = q1[:, :120] * sv @ q2.T
    errs = []
    for niter in (0, 4):
        T.manual_seed(3)
        S = T.svd_lowrank(T.tensor(a), q=10, niter=niter)[1].numpy()
        errs.append(np.abs(S[:5] - sv[:5]).max())
    assert errs[1] < errs[0] / 3 and errs[1] < 2e-2


def test_svd_lowrank_with_mean():
    a = _low_rank((30, 20), 3, np.float64)
    mean = np.random.default_rng(2).standard_normal((1, 20))
    T.manual_seed(0)
    U, S, V = T.svd_lowrank(T.tensor(a + mean), q=5, M=T.tensor(mean))
    full = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(S.numpy()[:3], full[:3], rtol=1e-9)


@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank_matches_full_svd(center):
    rng = np.random.default_rng(4)
    a = _low_rank((50, 12), 3, np.float64) + rng.standard_normal((1, 12)) * 5
    T.manual_seed(0)
    U, S, V = T.pca_lowrank(T.tensor(a), q=4, center=center)
    c = a - a.mean(0) if center else a
    u, s, vh = np.linalg.svd(c, full_matrices=False)
    k = 3 if center else 4
    np.testing.assert_allclose(S.numpy()[:k], s[:k], rtol=1e-8)
    # principal directions agree up to sign
    np.testing.assert_allclose(np.abs(np.sum(V.numpy()[:, :k] * vh[:k].T, 0)), np.ones(k), atol=1e-8)


def test_svd_lowrank_gradcheck():
    a = T.tensor(_low_rank((6, 5), 5, np.float64, seed=3), requires_grad=True)

    def f(x):
        T.manual_seed(0)      # the same random basis in every evaluation
        return T.svd_lowrank(x, q=3, niter=1)[1]
    assert gradcheck(f, (a,))


def test_bad_arguments():
    with pytest.raises(TypeError, match="must be Tensor"):
        T.svd_lowrank([[1.0]])
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        T.pca_lowrank(T.ones(3))
    with pytest.raises(RuntimeError, match="float32, float64, complex64 or complex128"):
        T.svd_lowrank(T.ones(3, 3, dtype=T.float16))


# ---- lobpcg ---------------------------------------------------------------------

def _sym_with_spectrum(values, seed=0):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(values),) * 2))
    return (q * values) @ q.T


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k,n", [(1, None), (3, None), (2, 5)])
def test_lobpcg_matches_eigh(method, largest, k, n):
    ev = np.concatenate([np.linspace(1, 10, 60), [20, 25, 31, 40]])
    a = _sym_with_spectrum(ev)
    T.manual_seed(0)
    E, X = T.lobpcg(T.tensor(a), k=k, n=n, largest=largest, method=method, tol=1e-9)
    e, x = E.numpy(), X.numpy()
    want = np.sort(ev)[::-1][:k] if largest else np.sort(ev)[:k]
    assert e.shape == (k,) and x.shape == (64, k)
    np.testing.assert_allclose(e, want, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(a @ x, x * e, atol=1e-6)
    np.testing.assert_allclose(x.T @ x, np.eye(k), atol=1e-8)


def test_lobpcg_generalized_batched_preconditioned():
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(1)
    a = np.stack([_sym_with_spectrum(np.linspace(1, 50, 45), seed=s) for s in (2, 3)])
    c = rng.standard_normal((2, 45, 45))
    b = c @ np.swapaxes(c, 1, 2) / 45 + np.eye(45)
    T.manual_seed(1)
    iK = T.tensor(np.linalg.inv(np.diag(np.diag(a[0]))))
    E, X = T.lobpcg(T.tensor(a), k=2, B=T.tensor(b), iK=iK, tol=1e-10, niter=500)
    for i in range(2):
        want = sl.eigh(a[i], b[i], eigvals_only=True)[::-1][:2]
        np.testing.assert_allclose(E.numpy()[i], want, rtol=1e-8)
        x = X.numpy()[i]
        np.testing.assert_allclose(a[i] @ x, b[i] @ x * E.numpy()[i], atol=1e-6)


def test_lobpcg_float32_and_tracker():
    a = _sym_with_spectrum(np.linspace(0, 1, 40) ** 3 * 10, seed=4)
    seen = []
    T.manual_seed(2)
    E, X = T.lobpcg(T.tensor(a, dtype=T.float32), k=2, tracker=lambda w: seen.append(
        w.ivars["converged_count"]))
    assert E.dtype == T.float32 and seen and seen[-1] == 2
    np.testing.assert_allclose(E.numpy(), np.sort(np.linalg.eigvalsh(a))[::-1][:2], rtol=1e-4)


def test_lobpcg_eigenvalue_gradient():
    a = _sym_with_spectrum(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 15]), seed=5)
    A = T.tensor(a, requires_grad=True)

    def top(m):
        T.manual_seed(0)
        return T.lobpcg((m + m.mT) / 2, k=2, tol=1e-12, niter=500)[0]
    assert gradcheck(top, (A,), atol=1e-6)
    # the eigenvectors carry no gradient: using them raises rather than drops it
    E, X = T.lobpcg(A, k=1, tol=1e-10)
    with pytest.raises(NotImplementedError, match="eigenvectors"):
        (X.sum() + E.sum()).backward()
