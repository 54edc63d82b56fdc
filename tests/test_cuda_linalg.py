"""Matrix products and linear algebra on CUDA (src/gpu/linalg) against NumPy.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves; "cuda" runs where a GPU is present and skips with
"requires a CUDA device" elsewhere; "emulated" (the fake device given the
CPU's kernels, in a process of its own) runs the op layer's device paths:
matmul.c's composites and linalg.c's wrappers over device tensors, with the
linalg set's hosted wrappers (copy to the host, CPU kernel, copy back)."""
import re

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C
from oracle import assert_close, cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()

FLOATS = ["float32", "float64", "complex64", "complex128"]
HALF = ["float16", "bfloat16"]
NP = {"float16": np.float16, "bfloat16": np.float32, "float32": np.float32,
      "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128}
# Products accumulate in float32 (half types) or their own precision; the
# references are float64/complex128 products of the same (rounded) inputs.
PRODUCT_TOL = {"float16": (2e-2, 2e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-5, 1e-5),
               "float64": (1e-12, 1e-12), "complex64": (1e-5, 1e-5),
               "complex128": (1e-12, 1e-12)}
SOLVE_TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "complex64": (1e-4, 1e-4),
             "complex128": (1e-10, 1e-10)}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    assert t.device.type in ("cpu", "cuda", "fake")
    return t.cpu() if t.device.type != "cpu" else t


def rand(shape, dtype, seed=0):
    """Values of dtype as an ndarray (half types: rounded through the dtype)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-1, 1, size=shape)
    a = a.astype(NP[dtype])
    if dtype in HALF:  # the values the half tensor really holds
        a = tl.tensor(a).to(getattr(tl, dtype)).float().numpy()
    return a


def tensor(a, dtype, device):
    return on(device, tl.tensor(a).to(getattr(tl, dtype)))


def ref(a):
    """A float64/complex128 copy for the reference product."""
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def close(actual, expected, dtype, tol=PRODUCT_TOL):
    r, a = tol[dtype]
    assert_close(back(actual), np.asarray(expected).astype(NP[dtype]), dtype=dtype, rtol=r, atol=a)


# ---- products --------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),     # broadcast batch both ways
    ((6, 3, 4), (4, 2)),           # b shared over a's batch (stride 0)
    ((3, 4), (2, 4, 5)),           # a shared over b's batch
    ((0, 4), (4, 5)),              # M = 0
    ((3, 0), (0, 5)),              # K = 0: zeros
    ((3, 4), (4, 0)),              # N = 0
    ((0, 3, 4), (0, 4, 5)),        # empty batch
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + HALF)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_shapes_batches_and_broadcasting(device, dtype, sa, sb):
    a, b = rand(sa, dtype, 1), rand(sb, dtype, 2)
    out = tl.matmul(tensor(a, dtype, device), tensor(b, dtype, device))
    assert out.device.type == (device if device != "fake" else "fake")
    close(out, np.matmul(ref(a), ref(b)), dtype)


def layouts(x):
    """x as tensors of other layouts holding the same matrix values:
    contiguous, transposed storage (column-major), strided (every other
    element of a larger buffer), and a negative-stride flip (copied)."""
    t = tl.tensor(x)
    yield "contiguous", t
    yield "column-major", tl.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2))).mT
    big = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
    big[..., ::2] = x
    yield "strided", tl.tensor(big)[..., ::2]
    yield "row-strided", tl.tensor(np.repeat(x, 2, axis=-2))[..., ::2, :]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "complex128", "float16"])
def test_matmul_operands_of_every_layout(device, dtype):
    a, b = rand((2, 3, 4), dtype, 3), rand((2, 4, 5), dtype, 4)
    expected = np.matmul(ref(a), ref(b))
    for la, ta in layouts(a):
        for lb, tb in layouts(b):
            ta_d = on(device, ta.to(getattr(tl, dtype)))
            tb_d = on(device, tb.to(getattr(tl, dtype)))
            close(tl.matmul(ta_d, tb_d), expected, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_transposed_views_and_expanded_batches(device):
    a = rand((5, 4, 3), "float64", 5)
    b = rand((4, 6), "float64", 6)
    ta, tb = tensor(a, "float64", device), tensor(b, "float64", device)
    close(tl.matmul(ta.mT, ta), np.matmul(np.swapaxes(a, -1, -2), a), "float64")
    close(tl.matmul(tb.mT.expand(5, 6, 4), ta), np.matmul(b.T, a), "float64")
    close(tl.matmul(ta.mT, tb.expand(5, 4, 6)), np.matmul(np.swapaxes(a, -1, -2), b), "float64")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_product_ops(device, dtype):
    d = lambda x: tensor(x, dtype, device)  # noqa: E731
    m, k, n, bt = 3, 4, 5, 2
    A, B = rand((m, k), dtype, 1), rand((k, n), dtype, 2)
    bA, bB = rand((bt, m, k), dtype, 3), rand((bt, k, n), dtype, 4)
    v, w = rand((k,), dtype, 5), rand((m,), dtype, 6)
    C, bC = rand((m, n), dtype, 7), rand((bt, m, n), dtype, 8)
    close(tl.mm(d(A), d(B)), ref(A) @ ref(B), dtype)
    close(tl.bmm(d(bA), d(bB)), ref(bA) @ ref(bB), dtype)
    close(tl.mv(d(A), d(v)), ref(A) @ ref(v), dtype)
    close(tl.dot(d(v), d(v[::-1].copy())), np.dot(ref(v), ref(v[::-1])), dtype)
    close(tl.vdot(d(v), d(v[::-1].copy())), np.vdot(ref(v), ref(v[::-1])), dtype)
    close(tl.inner(d(bA), d(A)), np.inner(ref(bA), ref(A)), dtype)
    close(tl.outer(d(w), d(v)), np.outer(ref(w), ref(v)), dtype)
    close(tl.ger(d(w), d(v)), np.outer(ref(w), ref(v)), dtype)
    close(tl.addmm(d(C), d(A), d(B), beta=0.5, alpha=2), 0.5 * ref(C) + 2 * ref(A) @ ref(B), dtype)
    close(tl.addbmm(d(C), d(bA), d(bB), beta=2, alpha=0.5),
          2 * ref(C) + 0.5 * (ref(bA) @ ref(bB)).sum(0), dtype)
    close(tl.baddbmm(d(bC), d(bA), d(bB), beta=0.5, alpha=3),
          0.5 * ref(bC) + 3 * ref(bA) @ ref(bB), dtype)
    close(tl.baddbmm(d(C), d(bA), d(bB)), ref(C) + ref(bA) @ ref(bB), dtype)  # broadcast input
    close(tl.addmv(d(w), d(A), d(v), beta=2), 2 * ref(w) + ref(A) @ ref(v), dtype)
    close(tl.addr(d(C), d(w), d(rand((n,), dtype, 9))),
          ref(C) + np.outer(ref(w), ref(rand((n,), dtype, 9))), dtype)
    T1, T2 = rand((2, 3, 4), dtype, 10), rand((4, 3, 5), dtype, 11)
    close(tl.tensordot(d(T1), d(T2), dims=([1, 2], [1, 0])),
          np.tensordot(ref(T1), ref(T2), axes=([1, 2], [1, 0])), dtype)
    close(tl.kron(d(A), d(C)), np.kron(ref(A), ref(C)), dtype)
    close(tl.trace(d(A)), np.trace(ref(A)), dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_addbmm_over_an_empty_batch_scales_input(device):
    C = rand((3, 5), "float64", 1)
    empty_a = on(device, tl.zeros(0, 3, 4, dtype=tl.float64))
    empty_b = on(device, tl.zeros(0, 4, 5, dtype=tl.float64))
    close(tl.addbmm(tensor(C, "float64", device), empty_a, empty_b, beta=3), 3 * C, "float64")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_products(device, dtype):
    """The CPU (and the hosted emulation) multiply integers, wrapping as
    int64; CUDA refuses as PyTorch does ("addmm_cuda" not implemented for
    'Long'); trace sums the diagonal on every device."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 7, size=(3, 4)).astype(NP_INT[dtype])
    b = rng.integers(0, 7, size=(4, 2)).astype(NP_INT[dtype])
    ta, tb = on(device, tl.tensor(a)), on(device, tl.tensor(b))
    assert_close(back(tl.trace(ta)), np.trace(a.astype(np.int64)))
    if device == "cuda":
        name = {"int64": "Long", "int32": "Int", "uint8": "Byte"}[dtype]
        with pytest.raises(NotImplementedError, match=f'"addmm_cuda" not implemented for \'{name}\''):
            tl.mm(ta, tb)
        with pytest.raises(NotImplementedError, match=f'"bmm_cuda" not implemented for \'{name}\''):
            tl.matmul(ta.expand(2, 3, 4), tb)
        return
    assert_close(back(tl.mm(ta, tb)), a @ b)


NP_INT = {"int64": np.int64, "int32": np.int32, "uint8": np.uint8}


def test_tf32_flags_default_as_pytorch():
    assert tl.backends.cuda.matmul.allow_tf32 is False
    assert tl.backends.cudnn.allow_tf32 is True
    tl.backends.cuda.matmul.allow_tf32 = True
    try:
        assert tl.backends.cuda.matmul.allow_tf32 is True
        assert _C._cublas_allow_tf32() is True
    finally:
        tl.backends.cuda.matmul.allow_tf32 = False
    assert _C._cublas_allow_tf32() is False


@pytest.mark.parametrize("device", DEVICES)
def test_float32_products_with_tf32_allowed(device):
    """TF32 keeps 10 mantissa bits: products stay within ~1e-3 relative."""
    a, b = rand((64, 128), "float32", 1), rand((128, 32), "float32", 2)
    expected = ref(a) @ ref(b)
    tl.backends.cuda.matmul.allow_tf32 = True
    try:
        out = tl.matmul(tensor(a, "float32", device), tensor(b, "float32", device))
    finally:
        tl.backends.cuda.matmul.allow_tf32 = False
    assert_close(back(out), expected.astype(np.float32), rtol=5e-3, atol=5e-3)


# ---- decompositions ----------------------------------------------------------------------

def well_conditioned(shape, dtype, seed=0):
    a = rand(shape, dtype, seed)
    n = shape[-1]
    return (a + n * np.eye(n)).astype(NP[dtype])


def hpd(shape, dtype, seed=0):
    """Hermitian positive-definite matrices."""
    a = rand(shape, dtype, seed)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return h.astype(NP[dtype])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_solve_and_inv(device, dtype):
    A = well_conditioned((2, 3, 4, 4), dtype, 1)
    B = rand((3, 4, 2), dtype, 2)       # broadcast over A's leading batch
    v = rand((2, 3, 4), dtype, 3)       # a batch of vectors
    dA = tensor(A, dtype, device)
    close(tl.linalg.solve(dA, tensor(B, dtype, device)), np.linalg.solve(ref(A), ref(B)),
          dtype, SOLVE_TOL)
    close(tl.linalg.solve(dA, tensor(v, dtype, device)),
          np.linalg.solve(ref(A), ref(v)[..., None])[..., 0], dtype, SOLVE_TOL)
    Bt = rand((2, 3, 5, 4), dtype, 4)
    close(tl.linalg.solve(dA, tensor(Bt, dtype, device), left=False),
          np.swapaxes(np.linalg.solve(np.swapaxes(ref(A), -1, -2), np.swapaxes(ref(Bt), -1, -2)),
                      -1, -2), dtype, SOLVE_TOL)
    close(tl.linalg.inv(dA), np.linalg.inv(ref(A)), dtype, SOLVE_TOL)
    close(tl.linalg.inv(dA.mT), np.linalg.inv(np.swapaxes(ref(A), -1, -2)), dtype, SOLVE_TOL)
    close(tl.linalg.inv(on(device, tl.zeros(0, 3, 3, dtype=getattr(tl, dtype)))),
          np.zeros((0, 3, 3)), dtype)
    close(tl.linalg.inv(on(device, tl.zeros(2, 0, 0, dtype=getattr(tl, dtype)))),
          np.zeros((2, 0, 0)), dtype)


def singular_batch(dtype):
    """Three 3x3 matrices; the second is singular (its last row and column are
    zero), so LU stops at pivot 3."""
    A = well_conditioned((3, 3, 3), dtype, 5)
    A[1, 2, :] = 0
    A[1, :, 2] = 0
    return A


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_singular_matrices_raise_the_cpus_errors(device, dtype):
    A = tensor(singular_batch(dtype), dtype, device)
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.solve: (Batch element 1): The solver failed because the input matrix is "
            "singular.")):
        tl.linalg.solve(A, on(device, tl.ones(3, 3, 1, dtype=getattr(tl, dtype))))
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.inv: (Batch element 1): The diagonal element 3 is zero, the inversion could "
            "not be completed because the input matrix is singular.")):
        tl.linalg.inv(A)
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.inv: The diagonal element 3 is zero")):
        tl.linalg.inv(A[1])
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.lu_factor: (Batch element 1): U[3,3] is zero and using it on lu_solve would "
            "result in a division by zero.")):
        tl.linalg.lu_factor(A)
    _, info = tl.linalg.inv_ex(A)
    assert info.device == A.device
    assert back(info).numpy().tolist() == [0, 3, 0]
    _, info = tl.linalg.solve_ex(A, on(device, tl.ones(3, 3, dtype=getattr(tl, dtype))))
    assert back(info).numpy().tolist() == [0, 3, 0]
    _, _, info = tl.linalg.lu_factor_ex(A)
    assert back(info).numpy().tolist() == [0, 3, 0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(device, dtype, upper):
    H = hpd((2, 4, 4), dtype, 1)
    L = np.linalg.cholesky(ref(H))
    expected = np.conj(np.swapaxes(L, -1, -2)) if upper else L
    close(tl.linalg.cholesky(tensor(H, dtype, device), upper=upper), expected, dtype, SOLVE_TOL)
    # only the named triangle is read: garbage in the other one changes nothing
    G = H.copy()
    iu = np.triu_indices(4, 1)
    il = np.tril_indices(4, -1)
    G[(slice(None),) + (il if upper else iu)] = 7
    close(tl.linalg.cholesky(tensor(G, dtype, device), upper=upper), expected, dtype, SOLVE_TOL)
    Ht = tensor(np.ascontiguousarray(np.swapaxes(H, -1, -2)), dtype, device).mT  # column-major
    close(tl.linalg.cholesky(Ht, upper=upper), expected, dtype, SOLVE_TOL)


@pytest.mark.parametrize("device", DEVICES)
def test_cholesky_not_positive_definite(device):
    H = hpd((3, 3, 3), "float64", 2)
    H[2, 1, 1] = -50
    A = tensor(H, "float64", device)
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.cholesky: (Batch element 2): The factorization could not be completed "
            "because the input is not positive-definite (the leading minor of order 2 is not "
            "positive-definite).")):
        tl.linalg.cholesky(A)
    L, info = tl.linalg.cholesky_ex(A)
    assert back(info).numpy().tolist() == [0, 0, 2]
    close(L[:2], np.linalg.cholesky(H[:2]), "float64", SOLVE_TOL)


def lu_reference(LU, piv):
    """P, L, U from compact LU and 1-based LAPACK pivots (one matrix)."""
    m, n = LU.shape
    k = min(m, n)
    L = np.tril(LU[:, :k], -1) + np.eye(m, k)
    U = np.triu(LU[:k, :])
    perm = np.arange(m)
    for i, p in enumerate(piv):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    P = np.eye(m)[:, perm]
    return P, L, U


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (5, 3), (0, 3, 3)])
def test_lu_factor_reconstructs(device, dtype, shape):
    A = rand(shape, dtype, 7)
    LU, piv = tl.linalg.lu_factor(tensor(A, dtype, device))
    assert LU.device == piv.device
    assert piv.dtype == tl.int32
    LU, piv = back(LU).numpy(), back(piv).numpy()
    assert LU.shape == A.shape and piv.shape == A.shape[:-2] + (min(A.shape[-2:]),)
    flat_a = ref(A).reshape((-1,) + A.shape[-2:])
    for a, lu, p in zip(flat_a, LU.reshape(flat_a.shape), piv.reshape((len(flat_a), min(A.shape[-2:])))):
        P, L, U = lu_reference(ref(lu), p)
        np.testing.assert_allclose(P @ L @ U, a, **dict(zip(("rtol", "atol"), SOLVE_TOL[dtype])))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(device, dtype, left, adjoint):
    A = well_conditioned((2, 4, 4), dtype, 13)
    B = rand((3, 2, 4, 3) if left else (3, 2, 3, 4), dtype, 14)  # broadcast over LU's batch
    LU, piv = tl.linalg.lu_factor(tensor(A, dtype, device))
    X = tl.linalg.lu_solve(LU, piv, tensor(B, dtype, device), left=left, adjoint=adjoint)
    M = np.conj(np.swapaxes(ref(A), -1, -2)) if adjoint else ref(A)
    if left:
        expected = np.linalg.solve(M, ref(B))
    else:
        expected = np.swapaxes(np.linalg.solve(np.swapaxes(M, -1, -2), np.swapaxes(ref(B), -1, -2)),
                               -1, -2)
    close(X, expected, dtype, SOLVE_TOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(device, dtype, upper, left, unit):
    A = well_conditioned((2, 4, 4), dtype, 1)
    T = np.triu(A) if upper else np.tril(A)
    if unit:
        T[..., np.arange(4), np.arange(4)] = 1
    B = rand((2, 4, 3) if left else (2, 3, 4), dtype, 2)
    expected = (np.linalg.solve(ref(T), ref(B)) if left else
                np.swapaxes(np.linalg.solve(np.swapaxes(ref(T), -1, -2),
                                            np.swapaxes(ref(B), -1, -2)), -1, -2))
    # A's other triangle (and, unit, its diagonal) is never read
    X = tl.linalg.solve_triangular(tensor(A, dtype, device), tensor(B, dtype, device),
                                   upper=upper, left=left, unitriangular=unit)
    close(X, expected, dtype, SOLVE_TOL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_determinants(device, dtype):
    """det, slogdet and logdet from LU: a batch holding a general matrix, a
    singular one (det 0, log -inf, sign 0), one with a negative real det
    (real logdet NaN), a permuted identity; empty batches and 0x0 matrices."""
    A = rand((4, 3, 3), dtype, 11)
    A[1, 2] = 0                                          # singular
    A[2] = np.diag([-2.0, 1.5, 1.0]).astype(A.dtype)     # det -3
    A[3] = np.eye(3, dtype=A.dtype)[[1, 0, 2]]           # one interchange: det -1
    dA = tensor(A, dtype, device)
    det = np.linalg.det(ref(A))
    det[1] = 0
    close(tl.linalg.det(dA), det, dtype, SOLVE_TOL)
    sign, logabs = tl.linalg.slogdet(dA)
    es, el = np.linalg.slogdet(ref(A))
    es[1], el[1] = 0, -np.inf
    close(sign, es, dtype, SOLVE_TOL)
    assert_close(back(logabs), el.astype(np.float32 if dtype in ("float32", "complex64")
                                         else np.float64), rtol=1e-4, atol=1e-4)
    if dtype.startswith("complex"):  # the branch cut of log(-1) is the CPU's: compare exp
        close(tl.exp(tl.logdet(dA)), det, dtype, SOLVE_TOL)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.where(det < 0, np.nan, np.log(np.abs(det)))
        close(tl.logdet(dA), expected, dtype, SOLVE_TOL)
    close(tl.linalg.det(on(device, tl.zeros(0, 2, 2, dtype=getattr(tl, dtype)))),
          np.zeros(0), dtype)
    close(tl.linalg.det(on(device, tl.zeros(2, 0, 0, dtype=getattr(tl, dtype)))),
          np.ones(2), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, dtype, uplo):
    H = hpd((2, 5, 5), dtype, 12)
    G = H.copy()  # garbage in the triangle not named: never read
    G[(slice(None),) + (np.triu_indices(5, 1) if uplo == "L" else np.tril_indices(5, -1))] = 9
    w, V = tl.linalg.eigh(tensor(G, dtype, device), UPLO=uplo)
    assert w.device == V.device == tensor(G, dtype, device).device
    ew = np.linalg.eigvalsh(ref(H))
    r, a = SOLVE_TOL[dtype]
    assert_close(back(w), ew, rtol=r, atol=a * 10, check_dtype=False)
    w, V = back(w).numpy().astype(np.float64), back(V).numpy()
    recon = ref(V) @ (w[..., :, None] * np.conj(np.swapaxes(ref(V), -1, -2)))
    np.testing.assert_allclose(recon, ref(H), rtol=r * 10, atol=a * 100)
    assert_close(back(tl.linalg.eigvalsh(tensor(G, dtype, device), UPLO=uplo)), ew,
                 rtol=r, atol=a * 10, check_dtype=False)
    assert tuple(tl.linalg.eigvalsh(on(device, tl.zeros(3, 0, 0, dtype=getattr(tl, dtype)))).shape) \
        == (3, 0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5), (4, 4), (0, 2, 2)])
def test_qr(device, dtype, mode, shape):
    """Q R = A, Q with orthonormal columns, R upper triangular; R's entries
    equal NumPy's up to each row's sign (phase): both are Householder QR."""
    A = rand(shape, dtype, 15)
    Q, R = tl.linalg.qr(tensor(A, dtype, device), mode=mode)
    assert R.device == tensor(A, dtype, device).device
    r, a = SOLVE_TOL[dtype]
    eR = np.linalg.qr(ref(A), mode="complete" if mode == "complete" else "reduced")[1]
    Rn = back(R).numpy()
    assert Rn.shape == eR.shape
    np.testing.assert_allclose(np.abs(Rn), np.abs(eR), rtol=r, atol=a * 10)
    assert np.all(np.tril(Rn, -1) == 0)
    if mode == "r":
        assert tuple(Q.shape) == (0,)
        return
    Qn = ref(back(Q).numpy())
    np.testing.assert_allclose(Qn @ ref(Rn), ref(A), rtol=r * 10, atol=a * 10)
    eye = np.broadcast_to(np.eye(Qn.shape[-1]), Qn.shape[:-2] + (Qn.shape[-1],) * 2)
    np.testing.assert_allclose(np.conj(np.swapaxes(Qn, -1, -2)) @ Qn, eye, rtol=r * 10,
                               atol=a * 10)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_geqrf_matches_the_cpu(device, dtype):
    A = rand((2, 5, 3), dtype, 16)
    a_cpu, tau_cpu = tl.geqrf(tl.tensor(A))
    a_dev, tau_dev = tl.geqrf(tensor(A, dtype, device))
    r, at = SOLVE_TOL[dtype]
    # Householder conventions agree (LAPACK's): the same factors up to rounding
    np.testing.assert_allclose(back(a_dev).numpy(), a_cpu.numpy(), rtol=r * 10, atol=at * 10)
    np.testing.assert_allclose(back(tau_dev).numpy(), tau_cpu.numpy(), rtol=r * 10, atol=at * 10)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_hosted_decompositions(device, dtype):
    """svd and lstsq (cuSOLVER on CUDA), eig (hosted on CUDA: docs/gpu.md;
    results come back to the device), lu (composed of device ops:
    test_cuda_hosted.py) and, with them, det, qr, eigvalsh and lu_solve."""
    tol = SOLVE_TOL
    A = well_conditioned((2, 4, 4), dtype, 3)
    dA = tensor(A, dtype, device)
    close(tl.linalg.det(dA), np.linalg.det(ref(A)), dtype, tol)
    sign, logabs = tl.linalg.slogdet(dA)
    es, el = np.linalg.slogdet(ref(A))
    close(sign, es, dtype, tol)
    assert_close(back(logabs), el, rtol=tol[dtype][0], atol=tol[dtype][1], check_dtype=False)
    Q, R = tl.linalg.qr(dA)
    assert Q.device == dA.device and R.device == dA.device
    close(tl.matmul(Q, R), A, dtype, tol)
    S = tl.linalg.svdvals(dA)
    assert_close(back(S), np.linalg.svd(ref(A), compute_uv=False), rtol=tol[dtype][0],
                 atol=tol[dtype][1], check_dtype=False)
    H = hpd((2, 4, 4), dtype, 4)
    w = tl.linalg.eigvalsh(tensor(H, dtype, device))
    assert_close(back(w), np.linalg.eigvalsh(ref(H)), rtol=tol[dtype][0], atol=tol[dtype][1],
                 check_dtype=False)
    ev = back(tl.linalg.eigvals(dA)).numpy()
    np.testing.assert_allclose(np.sort_complex(ev.astype(np.complex128)),
                               np.sort_complex(np.linalg.eigvals(ref(A))), rtol=1e-3, atol=1e-3)
    LU, piv = tl.linalg.lu_factor(dA)
    B = rand((2, 4, 3), dtype, 5)
    close(tl.linalg.lu_solve(LU, piv, tensor(B, dtype, device)), np.linalg.solve(ref(A), ref(B)),
          dtype, tol)
    P, L, U = tl.linalg.lu(dA)
    close(tl.matmul(tl.matmul(P, L), U), A, dtype, tol)
    M = rand((2, 6, 3), dtype, 6)
    x = tl.linalg.lstsq(tensor(M, dtype, device), tensor(rand((2, 6, 2), dtype, 7), dtype,
                                                          device)).solution
    close(x, np.stack([np.linalg.lstsq(ref(m), ref(b), rcond=None)[0] for m, b in
                       zip(M, rand((2, 6, 2), dtype, 7))]), dtype, tol)


# ---- the device paths, emulated ------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_pinv_and_matrix_rank(device, dtype):
    """Their cutoffs read the singular values on the host (copied back from a
    device); the scaling and products run on the device.  A rank-deficient
    batch element checks the cutoff."""
    a = rand((3, 5, 4), dtype, seed=5)
    a[1, :, 3] = a[1, :, 0] + a[1, :, 1]  # rank 3
    t = tensor(a, dtype, device)
    rtol, atol = SOLVE_TOL[dtype]
    got = tl.linalg.pinv(t)
    assert got.device == t.device
    # PyTorch's default cutoff (NumPy's rcond defaults to 1e-15 whatever the dtype)
    rcond = np.finfo(a.real.dtype).eps * 5
    np.testing.assert_allclose(back(got).numpy(), np.linalg.pinv(a, rcond=rcond),
                               rtol=10 * rtol, atol=10 * atol)
    h = a @ np.conj(np.swapaxes(a, -1, -2))  # hermitian, rank <= 4 of 5
    th = tensor(h, dtype, device)
    np.testing.assert_allclose(back(tl.linalg.pinv(th, hermitian=True)).numpy(),
                               np.linalg.pinv(h, rcond=rcond, hermitian=True),
                               rtol=100 * rtol, atol=100 * atol)
    rank = tl.linalg.matrix_rank(t)
    assert rank.device == t.device and rank.dtype == tl.int64
    np.testing.assert_array_equal(back(rank).numpy(), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(back(tl.linalg.matrix_rank(th, hermitian=True)).numpy(),
                                  np.linalg.matrix_rank(h, hermitian=True))
    np.testing.assert_array_equal(back(tl.linalg.matrix_rank(t, atol=10.0)).numpy(), [0, 0, 0])


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the
    CPU's kernels (and the hosted linalg set), in a process of its own."""
    run_emulated(__file__)
