"""General eig/eigvals and LU without pivoting on devices
(src/gpu/linalg/eig_lu.c over cuSOLVER's Xgeev and getrf with no pivot array
on CUDA, eig_lu_host.c on the emulated device), against NumPy and the CPU.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves (and that pivot=False keeps raising PyTorch's
error there); "cuda" runs where a GPU is present and skips with "requires a
CUDA device" elsewhere; "emulated" (the fake device, whose executors are the
CPU's geev and a host Doolittle loop) runs the op layer's device paths.

eig's eigenvectors are unique up to a unit factor per column (LAPACK's geev
makes each of unit 2-norm with its largest component real, which leaves a
sign): they are checked through A V = V diag(w), the normalisation, and
against the CPU's column by column up to that sign.  Eigenvalues are
compared with NumPy's as sets (nearest match), since another solver may
order them differently."""
import re

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C
from torchlike.autograd import gradcheck
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()

NP = {"float32": np.float32, "float64": np.float64, "complex64": np.complex64,
      "complex128": np.complex128}
CPLX = {"float32": tl.complex64, "float64": tl.complex128, "complex64": tl.complex64,
        "complex128": tl.complex128}
TOL = {"float32": 1e-4, "float64": 1e-11, "complex64": 1e-4, "complex128": 1e-11}

on, host = device_array, host_array


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(NP[dtype])


def same_set(got, want, tol):
    """Each eigenvalue list of got matches want's (last axis) up to order."""
    got, want = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    for g, w in zip(got, want):
        left = list(w)
        for x in g:
            k = int(np.argmin([abs(x - y) for y in left]))
            assert abs(x - left[k]) <= tol * max(1.0, abs(left[k])), (g, w)
            left.pop(k)


def check_eigenpairs(a, w, v, dtype):
    """A V = V diag(w), unit columns whose largest component is real."""
    tol = TOL[dtype] * 10 * max(1.0, float(np.abs(a).max()))
    a = a.astype(np.complex128)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * a.shape[-1], rtol=0)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=TOL[dtype] * 10)
    big = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    np.testing.assert_allclose(big.imag, 0, atol=TOL[dtype] * 10)


# ---- eig, eigvals ------------------------------------------------------------------------

SHAPES = [(1, 1), (4, 4), (3, 5, 5), (2, 2, 3, 3), (12, 12)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape", SHAPES)
def test_eig_against_numpy_and_the_cpu(device, dtype, shape):
    a = rand(shape, dtype, seed=len(shape) + shape[-1])
    w, v = tl.linalg.eig(on(device, a))
    assert w.device == v.device == on(device, a).device
    assert w.dtype == v.dtype == CPLX[dtype]
    assert tuple(w.shape) == shape[:-1] and tuple(v.shape) == shape
    wc, vc = tl.linalg.eig(tl.from_numpy(a))
    assert v.stride() == vc.stride()  # LAPACK's column-major layout, as the CPU's
    wh, vh = host(w), host(v)
    same_set(wh, np.linalg.eigvals(a.astype(np.complex128)), TOL[dtype] * 100)
    check_eigenpairs(a, wh, vh, dtype)
    # the CPU's vectors, column by column up to the sign the normalisation leaves
    order = [np.argmin(np.abs(wc.numpy()[..., None, :] - wh[..., :, None]), axis=-1)]
    vcs = np.take_along_axis(vc.numpy(), order[0][..., None, :], axis=-1)
    dots = np.abs(np.sum(np.conj(vcs) * vh, axis=-2))
    np.testing.assert_allclose(dots, 1, atol=TOL[dtype] * 100)
    # eigvals: eig's values
    np.testing.assert_array_equal(host(tl.linalg.eigvals(on(device, a))), wh)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eig_of_real_matrices_with_conjugate_pairs(device, dtype):
    """Real geev packs a pair's vectors as two real columns (re, im): both
    members must come out as complex conjugate eigenvectors."""
    rot = np.array([[1.0, -2.0, 0.3, 0.0], [2.0, 1.0, 0.1, 0.5], [0.2, -0.4, 3.0, 0.0],
                    [0.0, 0.1, 0.0, -1.0]])  # 1 +- 2i, and two real ones
    a = np.stack([rot, rot.T, np.array([[0.0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, -3],
                                        [0, 0, 3, 0]])]).astype(dtype)  # +-i, +-3i
    w, v = tl.linalg.eig(on(device, a))
    wh, vh = host(w), host(v)
    assert np.sum(np.abs(wh.imag) > 0.5) == 2 + 2 + 4
    check_eigenpairs(a, wh, vh, dtype)
    for i, j in zip(*np.nonzero(wh.imag > 0.5)):  # each pair: conjugate values and vectors
        k = int(np.argmin(np.abs(wh[i] - np.conj(wh[i, j]))))
        np.testing.assert_allclose(vh[i, :, k], np.conj(vh[i, :, j]), atol=TOL[dtype] * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_eig_empty_and_non_contiguous_and_integer_inputs(device):
    for shape in [(0, 3, 3), (2, 0, 0), (0, 0)]:
        w, v = tl.linalg.eig(on(device, np.zeros(shape)))
        assert tuple(w.shape) == shape[:-1] and tuple(v.shape) == shape
        assert w.dtype == v.dtype == tl.complex128
        assert tuple(tl.linalg.eigvals(on(device, np.zeros(shape))).shape) == shape[:-1]
    a = rand((2, 6, 7), "float64", seed=5)
    t = on(device, a)
    for view, ref in [(t[:, :, 1:].transpose(-1, -2), a[:, :, 1:].swapaxes(-1, -2)),
                      (t[:, ::2, ::2][..., :3, :3], a[:, ::2, ::2][..., :3, :3])]:
        w, v = tl.linalg.eig(view)
        check_eigenpairs(ref, host(w), host(v), "float64")
        same_set(host(w), np.linalg.eigvals(ref), 1e-10)
    i = on(device, np.array([[2, 1], [1, 3]]))
    w = tl.linalg.eigvals(i)
    assert w.dtype == tl.complex64
    same_set(host(w), np.linalg.eigvals(np.array([[2.0, 1], [1, 3]])), 1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_eig_non_finite_input_as_the_cpu(device):
    """eigvals: NaN for a matrix holding an inf or a NaN; eig raises naming
    the first such batch element (the CPU's rule and message)."""
    a = np.stack([np.eye(2) * 2, [[np.nan, 1], [1, 1]], [[1, np.inf], [0, 1]]])
    w = host(tl.linalg.eigvals(on(device, a)))
    np.testing.assert_allclose(w[0], [2, 2])
    assert np.isnan(w[1:].real).all() and np.isnan(w[1:].imag).all()
    with pytest.raises(RuntimeError) as cpu:
        tl.linalg.eig(tl.from_numpy(a))
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(str(cpu.value))):
        tl.linalg.eig(on(device, a))
    assert "(Batch element 1)" in str(cpu.value)


@pytest.mark.parametrize("device", DEVICES)
def test_eig_runs_on_the_device_not_hosted(device):
    """eig's device path never copies its input to the host's kernels
    (src/gpu/linalg/hosted.c, counted by _C._hosted_calls)."""
    before = _C._hosted_calls()
    tl.linalg.eig(on(device, rand((3, 4, 4), "float64")))
    tl.linalg.eigvals(on(device, rand((4, 4), "complex64")))
    after = _C._hosted_calls()
    assert {k for k, n in after.items() if n != before.get(k, 0)} == set()


@pytest.mark.parametrize("device", DEVICES)
def test_eig_gradients(device):
    """gradcheck in float64 on the device: eigenvalues of a real spectrum,
    the real and imaginary parts of a conjugate pair's, and |V|^2 (free of
    the vectors' sign)."""
    rng = np.random.default_rng(3)
    a = np.diag([1.0, 2.0, 3.5]) + 0.1 * rng.standard_normal((3, 3))
    t = on(device, a).requires_grad_()
    assert gradcheck(lambda x: tl.linalg.eig(x).eigenvalues.real, (t,))
    assert gradcheck(lambda x: tl.linalg.eig(x).eigenvectors.abs() ** 2, (t,))
    p = on(device, np.array([[1.0, -2.0, 0.3], [2.0, 1.0, 0.1], [0.2, -0.4, 3.0]]))
    p.requires_grad_()
    assert gradcheck(lambda x: (tl.linalg.eigvals(x).real, tl.linalg.eigvals(x).imag), (p,))
    g = tl.autograd.grad(tl.linalg.eigvals(t).real.sum(), t)[0]
    assert g.device == t.device


# ---- LU without pivoting -------------------------------------------------------------------

def doolittle(a):
    """LU without row interchanges in NumPy: (packed LU, first zero pivot or 0)."""
    a = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64).copy()
    m, n = a.shape[-2:]
    info = 0
    for j in range(min(m, n)):
        if a[j, j] == 0 and info == 0:
            info = j + 1
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, info


def dominant(shape, dtype, seed=0):
    """Random matrices whose leading minors are far from singular, with a
    large entry below the first pivot: partial pivoting would exchange rows
    (so a pivoted factor differs), none is needed."""
    a = rand(shape, dtype, seed) * 0.3
    k = min(shape[-2:])
    a[..., range(k), range(k)] += 3
    if shape[-2] > 1:
        a[..., 1, 0] = 5
    return a


LU_SHAPES = [(4, 4), (5, 3), (3, 5), (2, 3, 4, 4), (3, 6, 2), (40, 40)]
NOPIVOT_CPU = "linalg.lu_factor: LU without pivoting is not implemented on the CPU"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape", LU_SHAPES)
def test_lu_factor_ex_without_pivoting(device, dtype, shape):
    a = dominant(shape, dtype, seed=shape[-1])
    m, n = shape[-2:]
    k = min(m, n)
    if device == "cpu":  # PyTorch 2.15's CPU rule and message (torch.linalg.lu_factor_ex)
        for call in (lambda: tl.linalg.lu_factor_ex(tl.from_numpy(a), pivot=False),
                     lambda: tl.linalg.lu_factor(tl.from_numpy(a), pivot=False),
                     lambda: tl.linalg.lu(tl.from_numpy(a), pivot=False)):
            with pytest.raises(RuntimeError, match=re.escape(NOPIVOT_CPU)):
                call()
        return
    LU, piv, info = tl.linalg.lu_factor_ex(on(device, a), pivot=False)
    assert LU.device == piv.device == info.device == on(device, a).device
    assert LU.dtype == getattr(tl, dtype) and piv.dtype == info.dtype == tl.int32
    assert tuple(LU.shape) == shape and tuple(piv.shape) == shape[:-2] + (k,)
    assert tuple(info.shape) == shape[:-2]
    flat = a.reshape((-1, m, n))
    want = np.stack([doolittle(x)[0] for x in flat]).reshape(shape)
    np.testing.assert_allclose(host(LU), want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    # PyTorch's CUDA pivots for pivot=False: 1 ... k, the identity's
    np.testing.assert_array_equal(host(piv), np.broadcast_to(np.arange(1, k + 1), piv.shape))
    np.testing.assert_array_equal(host(info), 0)
    LU2, piv2 = tl.linalg.lu_factor(on(device, a), pivot=False)
    np.testing.assert_array_equal(host(LU2), host(LU))
    np.testing.assert_array_equal(host(piv2), host(piv))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)])
def test_lu_without_pivoting_gives_an_empty_p(device, dtype, shape):
    """torch.linalg.lu documents: "When pivot=False, the returned matrix P
    will be empty" (its meta function: shape (0,), A's dtype); A = L U."""
    if device == "cpu":
        return  # the CPU raises: test_lu_factor_ex_without_pivoting
    a = dominant(shape, dtype, seed=2)
    m, n = shape[-2:]
    k = min(m, n)
    P, L, U = tl.linalg.lu(on(device, a), pivot=False)
    assert tuple(P.shape) == (0,) and P.dtype == L.dtype == U.dtype == getattr(tl, dtype)
    assert P.device == L.device == U.device == on(device, a).device
    assert tuple(L.shape) == shape[:-2] + (m, k) and tuple(U.shape) == shape[:-2] + (k, n)
    lh, uh = host(L), host(U)
    np.testing.assert_array_equal(np.triu(lh, 1), 0)
    np.testing.assert_array_equal(np.diagonal(lh, axis1=-2, axis2=-1), 1)
    np.testing.assert_array_equal(np.tril(uh, -1), 0)
    np.testing.assert_allclose(lh @ uh, a, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_lu_without_pivoting_zero_pivots(device):
    """A zero pivot: info names it (1-based, as getrf's); NaNs of the factor
    become zeros, as PyTorch's CUDA path cleans them (nan_to_num); lu_factor
    raises the CPU's singular message naming the batch element."""
    if device == "cpu":
        return
    a = np.array([[[2.0, 1], [1, 3]], [[0, 1], [0, 1]]])  # the second: a zero column
    LU, piv, info = tl.linalg.lu_factor_ex(on(device, a), pivot=False)
    np.testing.assert_array_equal(host(info), [0, 1])
    np.testing.assert_allclose(host(LU)[0], doolittle(a[0])[0])
    np.testing.assert_array_equal(host(LU)[1], [[0, 1], [0, 0]])  # 0/0 and 1 - NaN: zeros
    b = np.array([[0.0, 1], [1, 1]])  # 1/0: an inf multiplier, which stays
    LUb, _, infob = tl.linalg.lu_factor_ex(on(device, b), pivot=False)
    assert int(host(infob)) == 1 and not np.isnan(host(LUb)).any()
    # the message: the CPU's for a pivoted factor that fails at the same place
    with pytest.raises(tl.linalg.LinAlgError) as cpu:
        tl.linalg.lu_factor(tl.from_numpy(np.array([a[0], [[0, 1], [0, 1]]])))
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(str(cpu.value))):
        tl.linalg.lu_factor(on(device, a), pivot=False)
    assert "(Batch element 1)" in str(cpu.value)
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(str(cpu.value))):
        tl.linalg.lu_factor_ex(on(device, a), pivot=False, check_errors=True)
    ok = tl.linalg.lu_factor_ex(on(device, a[:1]), pivot=False, check_errors=True)
    np.testing.assert_array_equal(host(ok.info), [0])


@pytest.mark.parametrize("device", DEVICES)
def test_lu_without_pivoting_empty(device):
    if device == "cpu":
        return
    for shape in [(0, 3, 3), (3, 0), (2, 0, 4)]:
        LU, piv, info = tl.linalg.lu_factor_ex(on(device, np.zeros(shape)), pivot=False)
        assert tuple(LU.shape) == shape and tuple(info.shape) == shape[:-2]
        assert tuple(piv.shape) == shape[:-2] + (min(shape[-2:]),)
        P, L, U = tl.linalg.lu(on(device, np.zeros(shape)), pivot=False)
        assert tuple(P.shape) == (0,) and tuple(L.shape) == shape[:-1] + (min(shape[-2:]),)


@pytest.mark.parametrize("device", DEVICES)
def test_lu_check_errors_keeps_pivoting_semantics(device):
    """check_errors now goes through C: the pivoted factor raises on a
    singular matrix and hands back zeros otherwise, on every device."""
    sing = np.array([[1.0, 2], [2, 4]])
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape("U[2,2] is zero")):
        tl.linalg.lu_factor_ex(on(device, sing), check_errors=True)
    r = tl.linalg.lu_factor_ex(on(device, np.eye(3)[None].repeat(2, 0)), check_errors=True)
    np.testing.assert_array_equal(host(r.info), [0, 0])
    assert r.info.device == on(device, np.eye(3)).device


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_lu_without_pivoting_gradients(device, shape):
    if device == "cpu":
        return
    a = on(device, dominant(shape, "float64", seed=4)).requires_grad_()
    assert gradcheck(lambda x: tl.linalg.lu(x, pivot=False)[1:], (a,))
    assert gradcheck(lambda x: tl.linalg.lu_factor_ex(x, pivot=False).LU, (a,))
    g = tl.autograd.grad(tl.linalg.lu(a, pivot=False).U.sum(), a)[0]
    assert g.device == a.device


# ---- the device paths, emulated ------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
