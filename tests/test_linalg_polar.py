"""torch.linalg.polar and torch.linalg.matrix_sqrth (torchlike/_linalg_polar.py):
PyTorch's recorded answers and messages (tests/golden/linalg_polar.json,
scripts/golden_linalg_polar.py); NumPy/SciPy for values (U H = A, U^H U = I,
H Hermitian PSD, scipy.linalg.polar; X X = A) in float32/float64/complex,
batched, non-contiguous and empty; gradcheck in float64 (complex through
real and imaginary parts)."""
import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("linalg_polar")
_MINE = [c for c in CALLS if "polar" in c[0] or "sqrth" in c[0]]


@pytest.mark.parametrize("call,expected", _MINE, ids=[c for c, _ in _MINE])
def test_matches_pytorch(call, expected):
    check(_golden, call, expected)


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(dtype):
    return 2e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 6, 2), (0, 3, 2), (4, 0)])
def test_polar_properties(shape, dtype):
    a = _rand(shape, dtype)
    t = T.tensor(np.swapaxes(a, -1, -2).copy()).mT            # non-contiguous input
    U, H = T.linalg.polar(t)
    u, h = U.numpy(), H.numpy()
    n = shape[-1]
    assert u.shape == shape and h.shape == shape[:-2] + (n, n)
    assert u.dtype == a.dtype and h.dtype == a.dtype
    tol = _tol(dtype)
    np.testing.assert_allclose(u @ h, a, atol=tol * 10)
    np.testing.assert_allclose(np.swapaxes(u.conj(), -1, -2) @ u,
                               np.broadcast_to(np.eye(n), shape[:-2] + (n, n)), atol=tol * 10)
    np.testing.assert_allclose(h, np.swapaxes(h.conj(), -1, -2), atol=tol * 10)
    if h.size:
        assert np.linalg.eigvalsh(h).min() > -tol * 10


def test_polar_matches_scipy():
    sl = pytest.importorskip("scipy.linalg")
    for dtype in (np.float64, np.complex128):
        a = _rand((6, 4), dtype, seed=3)
        u, h = sl.polar(a)
        U, H = T.linalg.polar(T.tensor(a))
        np.testing.assert_allclose(U.numpy(), u, atol=1e-12)
        np.testing.assert_allclose(H.numpy(), h, atol=1e-12)


def test_polar_out():
    a = T.tensor(_rand((4, 3), np.float64))
    U, H = T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)
    r = T.linalg.polar(a, out=(U, H))
    assert r.U is U and r.H is H
    np.testing.assert_allclose(U.numpy(), T.linalg.polar(a).U.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3, 3), (0, 2, 2), (1, 1)])
def test_matrix_sqrth_squares_back(shape, dtype):
    b = _rand(shape, dtype, seed=1)
    n = shape[-1]
    a = b @ np.swapaxes(b.conj(), -1, -2) + n * np.eye(n, dtype=dtype)
    X = T.linalg.matrix_sqrth(T.tensor(a)).numpy()
    assert X.dtype == a.dtype and X.shape == shape
    np.testing.assert_allclose(X @ X, a, rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)
    np.testing.assert_allclose(X, np.swapaxes(X.conj(), -1, -2), atol=_tol(dtype) * 10)
    if X.size:   # the principal root is positive definite
        assert np.linalg.eigvalsh(X).min() > 0


def test_matrix_sqrth_reads_lower_triangle():
    a = np.array([[4.0, 100.0], [1.0, 3.0]])      # the upper entry is ignored
    full = np.array([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(T.linalg.matrix_sqrth(T.tensor(a)).numpy(),
                               T.linalg.matrix_sqrth(T.tensor(full)).numpy(), atol=1e-15)
    sl = pytest.importorskip("scipy.linalg")
    np.testing.assert_allclose(T.linalg.matrix_sqrth(T.tensor(full)).numpy(), sl.sqrtm(full),
                               atol=1e-12)


def test_polar_gradcheck():
    a = T.tensor(_rand((2, 4, 3), np.float64, seed=5), requires_grad=True)
    assert gradcheck(lambda x: tuple(T.linalg.polar(x)), (a,))


def test_polar_gradcheck_complex():
    re = T.tensor(_rand((4, 3), np.float64, seed=6), requires_grad=True)
    im = T.tensor(_rand((4, 3), np.float64, seed=7), requires_grad=True)

    def f(r, i):
        U, H = T.linalg.polar(T.complex(r, i))
        return T.view_as_real(U), T.view_as_real(H)
    assert gradcheck(f, (re, im))


def test_matrix_sqrth_gradcheck():
    b = T.tensor(_rand((2, 3, 3), np.float64, seed=8), requires_grad=True)
    eye = T.eye(3, dtype=T.float64)
    # through a symmetric construction, as eigh's gradient is for the whole matrix
    assert gradcheck(lambda x: T.linalg.matrix_sqrth(x @ x.mT + eye), (b,))


def test_matrix_sqrth_grad_matches_sylvester():
    """d(sqrt A)[E] solves X dX + dX X = E: check the gradient of
    <G, sqrt(A)> against that Sylvester solve, not against our own numbers."""
    sl = pytest.importorskip("scipy.linalg")
    b = _rand((3, 3), np.float64, seed=9)
    a = b @ b.T + 3 * np.eye(3)
    g = _rand((3, 3), np.float64, seed=10)
    g = g + g.T
    A = T.tensor(a, requires_grad=True)
    (T.linalg.matrix_sqrth(A) * T.tensor(g)).sum().backward()
    x = sl.sqrtm(a).real
    want = sl.solve_sylvester(x, x, g)      # the adjoint map is the same Sylvester map
    got = A.grad.numpy()
    np.testing.assert_allclose((got + got.T) / 2, want, atol=1e-10)
