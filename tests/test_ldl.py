"""torch.linalg.ldl_factor, ldl_factor_ex, ldl_solve (torchlike/linalg.py,
src/ndcore/linalg/linalg_ldl.c): PyTorch's recorded LD, pivots and solves
(tests/golden/ldl.json, scripts/golden_ldl.py) on indefinite matrices that
take 2x2 pivots, and its messages; a NumPy rebuild of A from LD and the
pivots by LAPACK's rules (so the pivots' format is checked on every case);
solves against np.linalg.solve (float32/float64, complex symmetric and
Hermitian, batched and broadcast, non-contiguous, empty); the device rule
(no CUDA kernel yet: NotImplementedError naming op and device)."""
import numpy as np
import pytest

import torchlike as T
from golden_tolerant import check_recorded
from oracle import cuda_test_devices, golden_calls, run_emulated

CALLS, _golden = golden_calls("ldl")
DEVICES, EMULATED = cuda_test_devices()


@pytest.mark.host_only  # no device kernel: test_devices checks the refusal
@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check_recorded(_golden, call, expected)


def _rebuild(LD, piv, hermitian):
    """A = U D U^T (U^H when hermitian) with U = P_1 L_1 P_2 L_2 ..., read from
    LAPACK's lower-triangle sytrf output: pivots[k] = p > 0 a 1x1 block with
    rows k, p swapped; pivots[k] = pivots[k+1] = -p a 2x2 block with rows
    k+1, p swapped (1-based)."""
    n = LD.shape[0]
    U = np.eye(n, dtype=LD.dtype)
    D = np.zeros_like(LD)
    k = 0
    while k < n:
        s = 1 if piv[k] > 0 else 2
        row = (piv[k] if s == 1 else -piv[k]) - 1
        P = np.eye(n, dtype=LD.dtype)
        swap = k + s - 1
        P[[swap, row]] = P[[row, swap]]
        L = np.eye(n, dtype=LD.dtype)
        L[k + s:, k:k + s] = LD[k + s:, k:k + s]
        D[k:k + s, k:k + s] = LD[k:k + s, k:k + s]
        if s == 2:
            D[k, k + 1] = np.conj(LD[k + 1, k]) if hermitian else LD[k + 1, k]
        U = U @ P @ L
        k += s
    return U @ D @ (U.conj().T if hermitian else U.T)


def _sym(n, dtype, seed, batch=(), hermitian=False, zero_diag=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(batch + (n, n))
    a = a + (np.conj(np.swapaxes(a, -1, -2)) if hermitian else np.swapaxes(a, -1, -2))
    if zero_diag:
        a[..., np.arange(n), np.arange(n)] = 0
    return a.astype(dtype)


@pytest.mark.host_only  # no device kernel: test_devices checks the refusal
@pytest.mark.parametrize("dtype,hermitian", [(np.float32, False), (np.float64, False),
                                             (np.complex64, False), (np.complex128, False),
                                             (np.complex64, True), (np.complex128, True)])
@pytest.mark.parametrize("zero_diag", [False, True])
def test_factor_rebuilds_a_and_solves(dtype, hermitian, zero_diag):
    a = _sym(6, dtype, 1, (3,), hermitian, zero_diag)
    t = T.tensor(np.swapaxes(a, -1, -2).copy()).mT      # non-contiguous, same values
    LD, piv, info = T.linalg.ldl_factor_ex(t, hermitian=hermitian)
    assert LD.dtype == t.dtype and piv.dtype == T.int32 and info.tolist() == [0, 0, 0]
    ld, p = LD.cpu().numpy(), piv.cpu().numpy()
    np.testing.assert_array_equal(np.triu(ld, 1), 0)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    two_by_two = 0
    for i in range(3):
        two_by_two += int((p[i] < 0).sum())
        np.testing.assert_allclose(_rebuild(ld[i], p[i], hermitian), a[i], rtol=tol, atol=tol)
    if zero_diag:
        assert two_by_two > 0  # the case this test is for
    b = np.random.default_rng(2).standard_normal((2, 1, 6, 3)).astype(dtype)
    x = T.linalg.ldl_solve(LD, piv, T.tensor(b), hermitian=hermitian)
    assert x.shape == (2, 3, 6, 3)
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.solve(a, b), rtol=tol * 10, atol=tol * 10)


@pytest.mark.host_only  # no device kernel: test_devices checks the refusal
def test_empty_and_singular():
    LD, piv = T.linalg.ldl_factor(T.zeros(2, 0, 0))
    assert LD.shape == (2, 0, 0) and piv.shape == (2, 0)
    x = T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.zeros(3, 0))
    assert x.shape == (3, 0)
    LD, piv, info = T.linalg.ldl_factor_ex(T.zeros(2, 3, 3))
    assert info.tolist() == [1, 1]
    for fn, call in (("torch.linalg.ldl_factor", lambda: T.linalg.ldl_factor(T.zeros(3, 3))),
                     ("torch.linalg.ldl_factor_ex",
                      lambda: T.linalg.ldl_factor_ex(T.zeros(3, 3), check_errors=True))):
        with pytest.raises(RuntimeError, match=f"{fn}: Unknown error code: 1"):
            call()


@pytest.mark.host_only  # no device kernel: test_devices checks the refusal
def test_not_differentiable():
    """PyTorch records a NotImplemented node whose backward raises
    (tests/golden/random_grad.json has its answers)."""
    a = T.tensor(_sym(3, np.float64, 4), requires_grad=True)
    LD, piv = T.linalg.ldl_factor(a)
    assert LD.requires_grad and not piv.requires_grad
    assert type(LD.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not "
                                           "implemented"):
        LD.sum().backward()


@pytest.mark.parametrize("device", DEVICES)
def test_devices(device):
    a = T.tensor(_sym(4, np.float64, 5), device="cpu")    # whatever the default device
    LD, piv = T.linalg.ldl_factor(a)
    if device == "cpu":
        x = T.linalg.ldl_solve(LD, piv, T.eye(4, dtype=T.float64, device="cpu"))
        np.testing.assert_allclose(x.cpu().numpy(), np.linalg.inv(a.cpu().numpy()), rtol=1e-9, atol=1e-9)
        return
    with pytest.raises(NotImplementedError, match="linalg_ldl_factor_ex.*" + device):
        T.linalg.ldl_factor(a.to(device))
    with pytest.raises(NotImplementedError, match="linalg_ldl_solve.*" + device):
        T.linalg.ldl_solve(LD.to(device), piv.to(device), T.ones(4, 1, dtype=T.float64,
                                                                   device=device))


@pytest.mark.skipif(T.get_default_device().type == "cpu", reason="the default device is the CPU")
def test_refused_on_the_default_device():
    """With a device as the default device (tests/test_device_suites.py) the
    tensors made without device= land there, where LDL refuses, naming it."""
    device = str(T.get_default_device())
    a = T.tensor(_sym(4, np.float64, 5))
    for call in (lambda: T.linalg.ldl_factor(a), lambda: T.linalg.ldl_factor_ex(a)):
        with pytest.raises(NotImplementedError, match="linalg_ldl_factor_ex.*" + device):
            call()
    LD, piv = (t.to(device) for t in T.linalg.ldl_factor(a.cpu()))
    with pytest.raises(NotImplementedError, match="linalg_ldl_solve.*" + device):
        T.linalg.ldl_solve(LD, piv, T.ones(4, 1, dtype=T.float64))


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    run_emulated(__file__)
