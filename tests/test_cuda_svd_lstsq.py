"""svd/svdvals and lstsq on devices (src/gpu/linalg/svd_lstsq_gpu.c: cuSOLVER
gesvdj / gesvdjBatched, and 'gels' through geqrf + ormqr + trsm on CUDA)
against NumPy and the CPU's conventions.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves; "cuda" runs where a GPU is present and skips with
"requires a CUDA device" elsewhere; "emulated" (the fake device, whose linalg
set is the hosted one: the CPU's kernels behind device copies) runs the op
layer and torchlike.linalg's device paths."""
import re

import numpy as np
import pytest

import torchlike as tl
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()

NP = {"float32": np.float32, "float64": np.float64, "complex64": np.complex64,
      "complex128": np.complex128}
TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-1, 1, size=shape)
    return a.astype(NP[dtype])


on, host = device_array, host_array


def near(got, want, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---- svd ---------------------------------------------------------------------------------------

SHAPES = [(4, 4), (6, 3), (3, 6), (5, 4, 4), (3, 7, 5), (2, 2, 5, 3),  # batched (<= 32: gesvdjBatched)
          (40, 33), (2, 33, 40)]                                      # past 32: gesvdj per matrix


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full", [True, False])
def test_svd_factors(device, dtype, shape, full):
    a = rand(shape, dtype, seed=len(shape))
    U, S, Vh = tl.linalg.svd(on(device, a), full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert U.device == S.device == Vh.device == on(device, a).device
    assert tuple(U.shape) == shape[:-2] + (m, m if full else k)
    assert tuple(Vh.shape) == shape[:-2] + (n if full else k, n)
    assert S.dtype == (tl.float32 if dtype in ("float32", "complex64") else tl.float64)
    u, s, vh = host(U), host(S), host(Vh)
    # values: NumPy's, descending
    near(s, np.linalg.svd(a.astype(np.complex128), compute_uv=False), dtype, 10)
    assert np.all(np.diff(s, axis=-1) <= 0)
    # the factors: orthonormal, and they rebuild A
    eye = lambda r: np.broadcast_to(np.eye(r), u.shape[:-2] + (r, r))  # noqa: E731
    near(np.conj(np.swapaxes(u, -1, -2)) @ u, eye(u.shape[-1]), dtype, 10)
    near(vh @ np.conj(np.swapaxes(vh, -1, -2)), eye(vh.shape[-2]), dtype, 10)
    near((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, 10)
    near(host(tl.linalg.svdvals(on(device, a))), s, dtype, 10)


@pytest.mark.parametrize("device", DEVICES)
def test_svd_non_contiguous_and_integer_inputs(device):
    a = rand((5, 6), "float64", seed=3)
    t = on(device, a)
    near(host(tl.linalg.svdvals(t.T)), np.linalg.svd(a.T, compute_uv=False), "float64")
    near(host(tl.linalg.svdvals(t[::2, 1:])), np.linalg.svd(a[::2, 1:], compute_uv=False),
         "float64")
    i = on(device, np.arange(12).reshape(3, 4))
    assert tl.linalg.svdvals(i).dtype == tl.float32
    near(host(tl.linalg.svdvals(i)), np.linalg.svd(np.arange(12.).reshape(3, 4),
                                                   compute_uv=False), "float32")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0)])
def test_svd_of_empty_matrices(device, shape):
    U, S, Vh = tl.linalg.svd(on(device, np.zeros(shape)))
    m, n = shape[-2:]
    assert tuple(S.shape) == shape[:-2] + (0,)
    np.testing.assert_array_equal(host(U), np.broadcast_to(np.eye(m), shape[:-2] + (m, m)))
    np.testing.assert_array_equal(host(Vh), np.broadcast_to(np.eye(n), shape[:-2] + (n, n)))


@pytest.mark.parametrize("device", DEVICES)
def test_svd_non_finite_inputs_as_on_the_cpu(device):
    a = rand((3, 4, 4), "float64", seed=4)
    a[1, 2, 3] = np.inf
    U, S, Vh = tl.linalg.svd(on(device, a))
    s = host(S)
    assert np.isnan(s[1]).all() and np.isnan(host(U)[1]).all() and np.isnan(host(Vh)[1]).all()
    near(s[[0, 2]], np.linalg.svd(a[[0, 2]], compute_uv=False), "float64")
    a[2, 0, 0] = np.nan
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape(
            "linalg.svd: (Batch element 2): The algorithm failed to converge because the input "
            "matrix contained non-finite values.")):
        tl.linalg.svd(on(device, a))
    with pytest.raises(tl.linalg.LinAlgError, match=re.escape("linalg.svdvals: (Batch element 2)")):
        tl.linalg.svdvals(on(device, a))


@pytest.mark.parametrize("device", DEVICES)
def test_svd_gradients_on_the_device(device):
    a = on(device, rand((4, 3), "float64", seed=9)).requires_grad_()
    assert tl.autograd.gradcheck(lambda t: tl.linalg.svdvals(t), (a,))
    U, S, Vh = tl.linalg.svd(a, full_matrices=False)
    (U @ tl.diag_embed(S) @ Vh).sum().backward()
    near(host(a.grad), np.ones((4, 3)), "float64", 100)


# ---- lstsq --------------------------------------------------------------------------------------

LSTSQ = [((6, 3), (6, 2)), ((6, 3), (6,)), ((2, 5, 3), (2, 5, 4)), ((3, 6), (3, 2)),
         ((2, 3, 6), (1, 3, 1)), ((4, 4), (4, 3)), ((1, 7, 2), (3, 7, 2))]


def numpy_lstsq(a, b):
    vec = b.ndim == a.ndim - 1
    bb = b[..., None] if vec else b
    shape = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    A = np.broadcast_to(a, shape + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    B = np.broadcast_to(bb, shape + bb.shape[-2:]).reshape((-1,) + bb.shape[-2:])
    x = np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(A, B)])
    res = np.stack([(np.abs(r - m @ s) ** 2).sum(0) for m, r, s in zip(A, B, x)])
    x = x.reshape(shape + x.shape[-2:])
    res = res.reshape(shape + res.shape[-1:])
    return (x[..., 0], res[..., 0]) if vec else (x, res)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("sa,sb", LSTSQ)
def test_lstsq_gels(device, dtype, sa, sb):
    a, b = rand(sa, dtype, seed=1), rand(sb, dtype, seed=2)
    r = tl.linalg.lstsq(on(device, a), on(device, b), driver="gels")
    x_ref, res_ref = numpy_lstsq(a.astype(np.complex128), b.astype(np.complex128))
    assert r.solution.device == on(device, a).device
    near(host(r.solution), x_ref, dtype, 50)
    m, n = sa[-2:]
    if m > n:
        near(host(r.residuals), res_ref.real, dtype, 50)
    else:
        assert tuple(r.residuals.shape) == (0,)
    assert tuple(r.rank.shape) == (0,) and tuple(r.singular_values.shape) == (0,)


@pytest.mark.parametrize("device", DEVICES)
def test_lstsq_default_driver_and_cuda_only_gels(device):
    a, b = rand((6, 3), "float64", seed=1), rand((6, 2), "float64", seed=2)
    r = tl.linalg.lstsq(on(device, a), on(device, b))
    near(host(r.solution), np.linalg.lstsq(a, b, rcond=None)[0], "float64", 10)
    # the default is gelsy (rank given) except on CUDA, where it is gels (as PyTorch)
    cuda = tl.device(device).type == "cuda" if device != "cpu" else False
    assert tuple(r.rank.shape) == ((0,) if cuda else ())
    if cuda:
        with pytest.raises(RuntimeError, match=re.escape(
                "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA")):
            tl.linalg.lstsq(on(device, a), on(device, b), driver="gelsd")
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        tl.linalg.lstsq(on(device, a), on(device, b), driver="bogus")


@pytest.mark.parametrize("device", DEVICES)
def test_lstsq_empty(device):
    r = tl.linalg.lstsq(on(device, np.zeros((4, 0))), on(device, np.ones((4, 2))), driver="gels")
    assert tuple(r.solution.shape) == (0, 2)
    np.testing.assert_allclose(host(r.residuals), [4.0, 4.0])


# ---- the device paths, emulated ------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
