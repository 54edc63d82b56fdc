"""torch.lu, torch.lu_solve, torch.lu_unpack and torch.triangular_solve
(torchlike/_lu_extra.py): PyTorch's recorded answers (tests/golden/lu_extra.json,
scripts/golden_lu_extra.py) for results and messages; NumPy for values
(P L U = A, the triangular and LU solves; float32/float64, batched,
broadcast, non-contiguous, empty); gradcheck in float64; the deprecation
warnings; the device paths (P built without reading pivots on the host)."""
import warnings

import numpy as np
import pytest

import torchlike as T
from golden_tolerant import check_recorded, recorded_params
from oracle import cuda_test_devices, golden_calls, host_array, run_emulated

CALLS, _golden = golden_calls("lu_extra")
DEVICES, EMULATED = cuda_test_devices()

pytestmark = pytest.mark.filterwarnings("ignore:torch.(lu|lu_solve|triangular_solve) is deprecated")


# PyTorch checks these in its CPU kernels only (CUDA factors without pivoting)
@pytest.mark.parametrize("call,expected", recorded_params(CALLS, [
    "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
    "pivots passed to lu_unpack must be between"]))
def test_matches_pytorch(call, expected):
    check_recorded(_golden, call, expected)


def _rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (6, 4), (3, 4, 7), (0, 3, 3), (2, 0, 3)])
def test_lu_unpack_reconstructs(shape, dtype):
    a = _rand(*shape, dtype=dtype)
    t = T.tensor(np.swapaxes(a, -1, -2).copy()).mT          # non-contiguous
    LU, piv = T.lu(t)
    P, L, U = T.lu_unpack(LU, piv)
    m, n = shape[-2:]
    k = min(m, n)
    assert P.shape == shape[:-2] + (m, m) and L.shape == shape[:-2] + (m, k)
    assert U.shape == shape[:-2] + (k, n)
    p, l_, u = P.cpu().numpy(), L.cpu().numpy(), U.cpu().numpy()
    np.testing.assert_allclose(p @ l_ @ u, a, **_tol(dtype))
    np.testing.assert_array_equal(np.tril(l_, -1) + np.eye(m, k), l_)
    np.testing.assert_array_equal(np.triu(u), u)
    # P is a permutation matrix
    np.testing.assert_array_equal(p.sum(-1), np.ones(p.shape[:-1]))
    assert set(np.unique(p)) <= {0.0, 1.0}


def _np_pivots_to_perm(piv, m):
    perm = list(range(m))
    for i, p in enumerate(piv):
        perm[i], perm[p - 1] = perm[p - 1], perm[i]
    P = np.zeros((m, m))
    for i, r in enumerate(perm):
        P[r, i] = 1
    return P


def test_lu_unpack_pivots_against_numpy():
    """P from the pivots by applying the row swaps in turn, for hand-made
    pivots (repeats, a swap with a later row, tall factors)."""
    for piv, m in (([3, 3, 3], 3), ([2, 3, 3, 4], 4), ([1, 4], 4), ([4, 4, 4], 5)):
        LU = T.zeros(m, len(piv))
        P = T.lu_unpack(LU, T.tensor(piv, dtype=T.int32), unpack_data=False).P
        np.testing.assert_array_equal(P.cpu().numpy(), _np_pivots_to_perm(piv, m))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_solves_against_numpy(dtype):
    a = _rand(2, 4, 4, dtype=dtype) + 4 * np.eye(4, dtype=dtype)
    b = _rand(3, 1, 4, 2, seed=1, dtype=dtype)
    LU, piv = T.lu(T.tensor(a))
    x = T.lu_solve(T.tensor(b), LU, piv)
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.solve(a, b), **_tol(dtype))
    for upper in (True, False):
        for transpose in (False, True):
            for unit in (False, True):
                tri = np.triu(a) if upper else np.tril(a)
                if unit:  # the diagonal is taken to be ones, whatever A holds
                    tri[..., np.arange(4), np.arange(4)] = 1
                op = np.swapaxes(tri, -1, -2) if transpose else tri
                X, C = T.triangular_solve(T.tensor(b), T.tensor(a), upper, transpose, unit)
                np.testing.assert_allclose(X.cpu().numpy(), np.linalg.solve(op, b), **_tol(dtype))
                np.testing.assert_array_equal(C.cpu().numpy(), np.broadcast_to(a, (3, 2, 4, 4)))


def _g(*shape, seed=0, diag=0.0):
    a = _rand(*shape, seed=seed)
    if diag:
        a = a + diag * np.eye(shape[-1])
    return T.tensor(a, requires_grad=True)


def test_gradients():
    gc, ggc = T.autograd.gradcheck, T.autograd.gradgradcheck
    # L and U of lu_unpack through lu (square, tall, wide)
    for shape in ((4, 4), (5, 3), (3, 5)):
        assert gc(lambda a: T.lu_unpack(*T.lu(a))[1:], [_g(*shape)])
    assert gc(lambda lu: T.lu_unpack(lu, T.tensor([2, 3, 3], dtype=T.int32))[1:], [_g(3, 3)])
    for upper in (True, False):
        for transpose in (True, False):
            assert gc(lambda b, a: T.triangular_solve(b, a, upper, transpose)[0],
                      [_g(3, 2, seed=1), _g(3, 3, diag=3)])
    assert gc(lambda b, a: T.triangular_solve(b, a, unitriangular=True)[0],
              [_g(2, 3, 2, seed=1), _g(3, 3)])
    assert ggc(lambda b, a: T.triangular_solve(b, a)[0], [_g(3, 2, seed=1), _g(3, 3, diag=3)])
    piv = T.lu(T.tensor(_rand(3, 3, seed=4)))[1]
    assert gc(lambda b, lu: T.lu_solve(b, lu, piv), [_g(3, 2, seed=1), _g(3, 3, diag=3)])
    assert gc(lambda a, b: T.lu_solve(b, *T.lu(a)), [_g(4, 4, diag=2), _g(4, 3, seed=2)])


def test_deprecation_warnings():
    A = T.tensor(_rand(3, 3)) + 3 * T.eye(3, dtype=T.float64)
    b = T.tensor(_rand(3, 1))
    for call, fn in (("torch.lu is deprecated", lambda: T.lu(A)),
                     ("torch.lu_solve is deprecated", lambda: T.lu_solve(b, *T.lu(A))),
                     ("torch.triangular_solve is deprecated", lambda: T.triangular_solve(b, A))):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn()
        assert any(call in str(w.message) for w in seen), call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T.lu_unpack(*T.linalg.lu_factor(A))                        # not deprecated


@pytest.mark.parametrize("device", DEVICES)
def test_on_device(device):
    a = _rand(2, 4, 4) + 3 * np.eye(4)
    b = _rand(2, 4, 3, seed=1)
    LU, piv = T.lu(T.tensor(a))
    LUd, pivd = T.lu(T.tensor(a).to(device))
    for got, want in zip(T.lu_unpack(LUd, pivd), T.lu_unpack(LU, piv)):
        assert got.device.type == (device if device != "cpu" else "cpu")
        np.testing.assert_allclose(host_array(got), want.cpu().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host_array(T.lu_solve(T.tensor(b).to(device), LUd, pivd)),
                               np.linalg.solve(a, b), rtol=1e-10)
    X, C = T.triangular_solve(T.tensor(b).to(device), T.tensor(a).to(device), False, True)
    np.testing.assert_allclose(host_array(X), np.linalg.solve(np.swapaxes(np.tril(a), -1, -2), b),
                               rtol=1e-10)
    np.testing.assert_array_equal(host_array(C), a)


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    run_emulated(__file__)
