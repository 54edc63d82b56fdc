"""vector_norm, cross and lu on devices (src/ndcore/linalg/linalg_device.c):
composed of device ops, never copied to the host (src/gpu/linalg/hosted.c).

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves; "cuda" runs where a GPU is present and skips
with "requires a CUDA device" elsewhere; "emulated" (the fake device given
the CPU's kernels, in a process of its own) runs the device paths.  Values
against NumPy/SciPy references and the CPU's results; on a device, the
hosted wrappers' call counts (_C._hosted_calls) show that no host round trip
happened (on the emulated device lu's factor and solve are the hosted
wrappers: they stand in for cuSOLVER's getrf and getrs there)."""
import math
import re
from contextlib import contextmanager

import numpy as np
import pytest

try:  # the lu oracle; a GPU machine without SciPy uses the NumPy one below
    from scipy.linalg import lu as scipy_lu
except ImportError:
    scipy_lu = None

import torchlike as tl
from torchlike import _C
from oracle import cuda_test_devices, run_emulated

DEVICES, EMULATED = cuda_test_devices()

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

NP = {"float16": np.float16, "bfloat16": np.float32, "float32": np.float32,
      "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
      "int8": np.int8, "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_}
TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2), "float32": (2e-6, 1e-6),
       "float64": (1e-13, 1e-13), "complex64": (2e-6, 1e-6), "complex128": (1e-13, 1e-13)}
FLOATS = ["float32", "float64", "complex64", "complex128"]
INF = math.inf


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def rand(shape, dtype, seed=0):
    """Values of dtype as an ndarray (half types: the values the tensor holds)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in ("int8", "int32", "int64", "uint8"):
        lo, hi = (0, 256) if dtype == "uint8" else (-128, 128) if dtype == "int8" else (-50, 50)
        return rng.integers(lo, hi, size=shape).astype(NP[dtype])
    a = rng.uniform(-2, 2, size=shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-2, 2, size=shape)
    a = a.astype(NP[dtype])
    if dtype in ("float16", "bfloat16"):
        a = tl.tensor(a).to(getattr(tl, dtype)).float().numpy()
    return a


def tensor(a, dtype, device):
    return on(device, tl.tensor(np.array(a, order="C")).to(getattr(tl, dtype)))


def host(t):
    """A result as float64/complex128 (or its own integer dtype) ndarray."""
    t = back(t)
    if t.dtype in (tl.float16, tl.bfloat16):
        t = t.float()
    return t.numpy()


@contextmanager
def no_host_round_trip(device, allowed=()):
    """Nothing in the block ran through hosted.c but the `allowed` wrappers
    (names without the tl_gpu_hosted_ prefix)."""
    before = _C._hosted_calls()
    yield
    after = _C._hosted_calls()
    ran = {k.replace("tl_gpu_hosted_", "") for k, v in after.items() if v != before.get(k, 0)}
    if device == "fake":
        assert ran <= set(allowed), f"hosted on the device: {sorted(ran)}"
    else:  # the CPU never goes there; CUDA has its own getrf and getrs
        assert ran == set(), f"hosted on {device}: {sorted(ran)}"


# ---- the check itself ------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_the_hosted_counter_sees_a_hosted_call(device):
    """svd of an empty matrix is hosted by design on every device (the CPU's
    identities): the counter that the tests below read must see it (else
    their checks could not fail)."""
    A = tensor(np.zeros((0, 3)), "float64", device)
    before = _C._hosted_calls().get("tl_gpu_hosted_svd", 0)
    tl.linalg.svdvals(A)
    after = _C._hosted_calls().get("tl_gpu_hosted_svd", 0)
    assert after - before == (0 if device == "cpu" else 1)


# ---- vector_norm ----------------------------------------------------------------------

def norm_reference(x, ord, dims, keepdim):
    """NumPy's vector norm over the dims (None: all; (): each element alone,
    as torchlike's CPU does), in float64."""
    a = np.abs(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
    axis = tuple(range(x.ndim)) if dims is None else dims
    single = axis == ()
    if single:
        a = a[..., None]
        axis = (a.ndim - 1,)
    if ord == INF:
        r = a.max(axis=axis, keepdims=True)
    elif ord == -INF:
        r = a.min(axis=axis, keepdims=True)
    elif ord == 0:
        r = (a != 0).sum(axis=axis, keepdims=True).astype(np.float64)
    else:
        r = (a ** ord).sum(axis=axis, keepdims=True) ** (1.0 / ord)
    if single:
        return r[..., 0]
    return r if keepdim else r.reshape([s for i, s in enumerate(r.shape) if i not in axis])


ORDS = [2, 1, 0, INF, -INF, 3, 0.5, -1, -2.5]
NORM_CASES = [  # shape, dim, keepdim
    ((7,), None, False),
    ((3, 4), 1, False),
    ((3, 4), (0, 1), True),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), -1, True),
    ((), None, False),
    ((), None, True),
    ((3, 4), (), False),
    ((3, 4), (), True),
    ((2, 0, 3), 0, False),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "float16",
                                   "bfloat16"])
def test_vector_norm_on_device(device, dtype):
    rtol, atol = TOL[dtype]
    for i, (shape, dim, keepdim) in enumerate(NORM_CASES):
        x = rand(shape, dtype, i)
        if x.size:
            x.flat[0] = 0  # a zero for ord 0 and the negative orders
        t = tensor(x, dtype, device)
        for ord in ORDS:
            w = [d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim)] \
                if dim is not None else None
            if x.size == 0 and (ord < 0 or math.isinf(ord)) and (w is None or 0 in
                                                                   [shape[d] for d in w]):
                continue
            with no_host_round_trip(device):
                r = tl.linalg.vector_norm(t, ord, dim, keepdim)
            assert r.device == t.device
            real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
            assert r.dtype == getattr(tl, real)
            expected = norm_reference(x, ord, tuple(w) if w is not None else None, keepdim)
            assert r.shape == expected.shape, (shape, dim, ord)
            np.testing.assert_allclose(host(r), expected, rtol=rtol, atol=atol,
                                       err_msg=f"{shape} dim={dim} ord={ord}")
            np.testing.assert_allclose(host(r), host(tl.linalg.vector_norm(
                back(t), ord, dim, keepdim)), rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ord", [2, 1, INF, 0, 3])
def test_vector_norm_matches_numpy_linalg_norm(device, ord):
    """Flattened vectors, against numpy.linalg.norm itself; non-contiguous inputs."""
    x = rand((6, 5), "float64", 3)
    t = tensor(x, "float64", device)
    with no_host_round_trip(device):
        views = [(t.t(), x.T), (t[::2, 1::2], x[::2, 1::2]), (t.flip(0), x[::-1])]
        for v, a in views:
            np.testing.assert_allclose(host(tl.linalg.vector_norm(v, ord)),
                                       np.linalg.norm(a.ravel(), ord), rtol=1e-13)
            np.testing.assert_allclose(host(tl.linalg.vector_norm(v, ord, dim=0)),
                                       np.linalg.norm(a, ord, axis=0), rtol=1e-13)


@pytest.mark.parametrize("device", DEVICES)
def test_vector_norm_dtype_nan_and_empty(device):
    x = rand((4, 5), "float32", 4)
    t = tensor(x, "float32", device)
    with no_host_round_trip(device):
        r = tl.linalg.vector_norm(t, 2, 1, dtype=tl.float64)
        assert r.dtype == tl.float64
        np.testing.assert_allclose(host(r), np.linalg.norm(x.astype(np.float64), axis=1),
                                   rtol=1e-12)
        c = tensor(rand((4, 5), "complex64", 5), "complex64", device)
        rc = tl.linalg.vector_norm(c, 3, dtype=tl.complex128)
        assert rc.dtype == tl.float64
        np.testing.assert_allclose(host(rc), host(tl.linalg.vector_norm(back(c), 3,
                                                                         dtype=tl.complex128)),
                                   rtol=1e-12)
        y = x.copy()
        y[1, 2] = np.nan
        yt = tensor(y, "float32", device)
        for ord in ORDS:  # NaN wins, but for ord 0 (a NaN is a nonzero)
            got = host(tl.linalg.vector_norm(yt, ord, 1))
            assert (got[1] == 5 if ord == 0 else np.isnan(got[1])), ord
            assert not np.isnan(got[[0, 2, 3]]).any(), ord
        e = tensor(np.zeros((2, 0)), "float64", device)
        for ord in [2, 1, 0, 3]:
            r = tl.linalg.vector_norm(e, ord, 1, True)
            assert r.shape == (2, 1) and (host(r) == 0).all()
            assert host(tl.linalg.vector_norm(e, ord)).shape == ()


@pytest.mark.parametrize("device", DEVICES)
def test_vector_norm_of_no_dims_at_the_dimension_limit(device):
    """dim=() reduces nothing: |x| elementwise, also for a 32-dimensional
    input (it is reduced as a (numel, 1) column, so no dim is appended)."""
    x = -np.arange(1.0, 3.0).reshape((2,) + (1,) * 30)
    for shape in (x.shape, x.shape + (1,)):
        t = tensor(x.reshape(shape), "float64", device)
        for keepdim in (False, True):
            r = tl.linalg.vector_norm(t, 2, (), keepdim)
            np.testing.assert_array_equal(host(r), np.abs(x).reshape(shape))
    nc = tensor(np.array([[1.0, -2.0], [-3.0, 4.0]]), "float32", device).t()
    np.testing.assert_array_equal(host(tl.linalg.vector_norm(nc, 0, ())),
                                  np.ones((2, 2), np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_vector_norm_errors_are_the_cpus(device):
    cases = [(tl.ones(3, dtype=tl.int64), 2, None, None),
             (tl.ones(3), 2, None, tl.int32),
             (tl.ones(3, dtype=tl.complex64), 2, None, tl.float32),
             (tl.ones(2, 0), INF, 1, None),
             (tl.ones(2, 0), -1, None, None)]
    for x, ord, dim, dtype in cases:
        with pytest.raises(RuntimeError) as cpu:
            tl.linalg.vector_norm(x, ord, dim, dtype=dtype)
        with pytest.raises(RuntimeError, match=re.escape(str(cpu.value))):
            tl.linalg.vector_norm(on(device, x), ord, dim, dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_norms_built_on_vector_norm(device, dtype):
    """linalg.norm and matrix_norm's 'fro', 1, -1, inf, -inf compose
    vector_norm: on a device they stay there too."""
    rtol, atol = TOL[dtype]
    a = rand((2, 4, 5), dtype, 11)
    t = tensor(a, dtype, device)
    wide = a.astype(np.complex128 if dtype.startswith("complex") else np.float64)
    with no_host_round_trip(device):
        for ord in ["fro", 1, -1, INF, -INF]:
            np.testing.assert_allclose(host(tl.linalg.matrix_norm(t, ord)),
                                       np.linalg.norm(wide, ord, axis=(-2, -1)), rtol=rtol * 4,
                                       atol=atol, err_msg=str(ord))
        np.testing.assert_allclose(host(tl.linalg.norm(t)), np.linalg.norm(wide.ravel()),
                                   rtol=rtol * 4, atol=atol)
        np.testing.assert_allclose(host(tl.linalg.norm(t, 3, dim=1)),
                                   host(tl.linalg.norm(back(t), 3, dim=1)), rtol=rtol * 4,
                                   atol=atol)


# ---- cross ----------------------------------------------------------------------------

CROSS_CASES = [  # a's shape, b's shape, dim
    ((3,), (3,), -1),
    ((5, 3), (5, 3), -1),
    ((3, 5), (3, 5), 0),
    ((2, 1, 3), (4, 3), -1),        # broadcast both ways
    ((2, 3, 4), (2, 3, 4), 1),
    ((2, 3, 4), (3, 1), -2),
    ((0, 3), (0, 3), 1),
    ((4, 0, 3), (1, 3), -1),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "float16",
                                   "bfloat16", "int8", "int32", "int64", "uint8"])
def test_cross_on_device(device, dtype):
    tol = TOL.get(dtype, (0, 0))
    for i, (sa, sb, dim) in enumerate(CROSS_CASES):
        a, b = rand(sa, dtype, 2 * i), rand(sb, dtype, 2 * i + 1)
        ta, tb = tensor(a, dtype, device), tensor(b, dtype, device)
        with no_host_round_trip(device):
            r = tl.linalg.cross(ta, tb, dim=dim)
        assert r.device == ta.device and r.dtype == ta.dtype
        # NumPy's cross in the dtype's own arithmetic (integers wrap as ours)
        expected = np.cross(a, b, axis=dim) if dtype not in ("float16", "bfloat16") else \
            np.cross(a.astype(np.float64), b.astype(np.float64), axis=dim)
        assert r.shape == expected.shape
        got = host(r)
        if dtype in ("float16", "bfloat16"):  # rounded once from the exact value
            expected = tl.tensor(expected).to(getattr(tl, dtype)).float().numpy()
        np.testing.assert_allclose(got, expected, rtol=tol[0], atol=tol[1] * 8,
                                   err_msg=f"{sa} x {sb} dim={dim}")
        np.testing.assert_allclose(got, host(tl.linalg.cross(back(ta), back(tb), dim=dim)),
                                   rtol=tol[0], atol=tol[1] * 8)


@pytest.mark.parametrize("device", DEVICES)
def test_cross_views_defaults_and_bool(device):
    x = rand((3, 6), "float64", 7)
    y = rand((6, 3), "float64", 8)
    tx, ty = tensor(x, "float64", device), tensor(y, "float64", device)
    with no_host_round_trip(device):
        # transposed, sliced, expanded operands
        np.testing.assert_allclose(host(tl.linalg.cross(tx.t(), ty)), np.cross(x.T, y),
                                   rtol=1e-14)
        np.testing.assert_allclose(host(tl.linalg.cross(tx.t()[::2], ty[1::2])),
                                   np.cross(x.T[::2], y[1::2]), rtol=1e-14)
        e = tensor(y[:1], "float64", device).expand(6, 3)
        np.testing.assert_allclose(host(tl.linalg.cross(e, ty)), np.cross(y[:1], y), rtol=1e-14)
        # torch.cross without dim: the first dim of size 3
        np.testing.assert_allclose(host(tl.cross(tx, tx.flip(1))), np.cross(x, x[:, ::-1], axis=0),
                                   rtol=1e-14)
        # bools as the CPU combines them
        p, q = rand((5, 3), "bool", 9), rand((5, 3), "bool", 10)
        bp, bq = tensor(p, "bool", device), tensor(q, "bool", device)
        r = tl.linalg.cross(bp, bq)
        assert r.dtype == tl.bool
        np.testing.assert_array_equal(host(r), host(tl.linalg.cross(back(bp), back(bq))))
        np.testing.assert_array_equal(host(r), np.cross(p.astype(np.int64), q.astype(np.int64))
                                      != 0)


@pytest.mark.parametrize("device", DEVICES)
def test_cross_errors_are_the_cpus(device):
    cases = [((4,), (4,), -1), ((2, 3), (3, 3), -1), ((3, 2), (3, 2), 1), ((3,), (3,), 2)]
    for sa, sb, dim in cases:
        a, b = tl.ones(*sa), tl.ones(*sb)
        with pytest.raises((RuntimeError, IndexError)) as cpu:
            tl.linalg.cross(a, b, dim=dim)
        with pytest.raises(cpu.type, match=re.escape(str(cpu.value))):
            tl.linalg.cross(on(device, a), on(device, b), dim=dim)


# ---- lu -------------------------------------------------------------------------------

LU_SHAPES = [(4, 4), (5, 3), (3, 5), (1, 1), (2, 3, 4, 4), (2, 6, 4), (2, 3, 6), (0, 3, 3),
             (3, 0), (0, 3), (2, 0, 0)]
LU_TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "complex64": (1e-5, 1e-5),
          "complex128": (1e-12, 1e-12)}
# On the emulated device the factor and the solve run the CPU's LAPACK
# through hosted.c: the stand-ins for cuSOLVER's getrf and getrs.
LU_STAND_INS = ("lu_factor_ex", "lu_solve")


def numpy_lu(x):
    """LAPACK's getrf unblocked in NumPy: the pivot is the first largest
    |re| + |im| of the column (LAPACK's i?amax), as scipy.linalg.lu's."""
    m, n = x.shape
    u = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    perm = np.arange(m)
    for j in range(min(m, n)):
        col = u[j:, j]
        p = j + int(np.argmax(np.abs(col.real) + np.abs(col.imag)))
        u[[j, p]] = u[[p, j]]
        perm[[j, p]] = perm[[p, j]]
        if u[j, j] != 0:
            u[j + 1:, j] /= u[j, j]
        u[j + 1:, j + 1:] -= np.outer(u[j + 1:, j], u[j, j + 1:])
    k = min(m, n)
    P = np.zeros((m, m), x.dtype)
    P[perm, np.arange(m)] = 1
    L = np.tril(u[:, :k], -1) + np.eye(m, k)
    return P, L.astype(x.dtype), np.triu(u[:k]).astype(x.dtype)


def lu_reference(a):
    """scipy.linalg.lu (or numpy_lu) over the batch: P, L, U with a = P L U."""
    m, n = a.shape[-2:]
    flat = a.reshape((math.prod(a.shape[:-2]), m, n))
    k = min(m, n)
    ps, ls, us = [], [], []
    for x in flat:
        if k == 0:
            ps.append(np.eye(m, dtype=a.dtype))
            ls.append(np.zeros((m, k), a.dtype))
            us.append(np.zeros((k, n), a.dtype))
            continue
        p, l, u = (scipy_lu or numpy_lu)(x)
        ps.append(p), ls.append(l), us.append(u)
    shape = a.shape[:-2]
    return tuple(np.array(r, dtype=a.dtype).reshape(shape + s) for r, s in
                 ((ps, (m, m)), (ls, (m, k)), (us, (k, n))))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_lu_on_device(device, dtype):
    rtol, atol = LU_TOL[dtype]
    for i, shape in enumerate(LU_SHAPES):
        a = rand(shape, dtype, 20 + i)
        t = tensor(a, dtype, device)
        with no_host_round_trip(device, LU_STAND_INS):
            P, L, U = tl.linalg.lu(t)
        for r in (P, L, U):
            assert r.device == t.device and r.dtype == t.dtype
        p, l, u = lu_reference(a)
        assert (P.shape, L.shape, U.shape) == (p.shape, l.shape, u.shape), shape
        np.testing.assert_array_equal(host(P), p)  # the same pivots as LAPACK's
        np.testing.assert_allclose(host(L), l, rtol=rtol, atol=atol)
        np.testing.assert_allclose(host(U), u, rtol=rtol, atol=atol)
        cp, cl, cu = tl.linalg.lu(back(t))
        np.testing.assert_array_equal(host(P), host(cp))
        np.testing.assert_allclose(host(L), host(cl), rtol=rtol, atol=atol)
        np.testing.assert_allclose(host(U), host(cu), rtol=rtol, atol=atol)
        np.testing.assert_allclose(host(P) @ host(L) @ host(U), a, rtol=rtol * 10,
                                   atol=atol * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_lu_singular_non_contiguous_and_integer_inputs(device):
    with no_host_round_trip(device, LU_STAND_INS):
        z = np.zeros((3, 4))
        z[0] = [1, 2, 3, 4]  # rank 1: zero pivots are no error, as on the CPU
        P, L, U = tl.linalg.lu(tensor(z, "float64", device))
        p, l, u = lu_reference(z)
        np.testing.assert_array_equal(host(P), p)
        np.testing.assert_allclose(host(L), l)
        np.testing.assert_allclose(host(U), u)
        a = rand((2, 5, 4), "float64", 30)
        t = tensor(a, "float64", device).transpose(1, 2)[:, ::-1]  # [2, 4, 5], strided
        P, L, U = tl.linalg.lu(t)
        p, l, u = lu_reference(np.ascontiguousarray(a.transpose(0, 2, 1)[:, ::-1]))
        np.testing.assert_array_equal(host(P), p)
        np.testing.assert_allclose(host(L), l, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(host(U), u, rtol=1e-12, atol=1e-12)
        n = tensor(rand((4, 4), "int64", 31), "int64", device)
        P, L, U = tl.linalg.lu(n)
        cp, cl, cu = tl.linalg.lu(back(n))
        assert P.dtype == cp.dtype and L.dtype == cl.dtype
        np.testing.assert_array_equal(host(P), host(cp))
        np.testing.assert_allclose(host(L), host(cl), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(host(U), host(cu), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_lu_errors_are_the_cpus(device):
    for x in [tl.ones(3), tl.ones(())]:
        with pytest.raises(RuntimeError) as cpu:
            tl.linalg.lu(x)
        with pytest.raises(RuntimeError, match=re.escape(str(cpu.value))):
            tl.linalg.lu(on(device, x))


def test_the_numpy_lu_oracle_is_scipys():
    """The fallback oracle agrees with scipy.linalg.lu where SciPy is here."""
    if scipy_lu is None:
        pytest.skip("SciPy is not installed")
    for i, (shape, dtype) in enumerate([((5, 5), "float64"), ((6, 3), "float32"),
                                        ((3, 6), "complex128"), ((4, 4), "complex64")]):
        a = rand(shape, dtype, 40 + i)
        for mine, theirs in zip(numpy_lu(a), scipy_lu(a)):
            np.testing.assert_array_equal(mine.shape, theirs.shape)
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)


# ---- the device paths, emulated --------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device with the
    CPU's kernels, in a process of its own."""
    run_emulated(__file__)
