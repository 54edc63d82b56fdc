"""The CUDA kernels of torch.special's functions (src/gpu/special/normal.cu,
bessel.cu, polynomial.cu): the CPU's own scalar functions
(tl_special_normal.h, tl_special_bessel.h, tl_special_poly.h) compiled for
the device, in double; float32 converts once each way.

Device-parametrised as tests/test_cuda_kernels.py: "cpu" runs everywhere and
checks the tests themselves; "cuda" runs only where a GPU is present and
skips elsewhere with "requires a CUDA device"; "emulated" (the fake device
with the CPU's kernels, in a process of its own) takes the op layer's device
paths.  References: SciPy, and the CPU's result for the same input; every
input goes through the layouts the launcher plans differently (contiguous,
transposed, strided, expanded, 0-d, empty) and broadcast operands."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
import torchlike.special as S
from torchlike import _C
from oracle import assert_close, cuda_test_devices, run_emulated, to_tensor

DEVICES, EMULATED = cuda_test_devices()
NP = {"float32": np.float32, "float64": np.float64}
# the device's libm (erfc, log, sin, cos, lgamma) rounds differently from
# glibc's by an ulp or two, and nvcc fuses multiply-adds
TOL = {"float32": (2e-6, 1e-30), "float64": (1e-12, 1e-15)}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def on(device, t):
    return t.to(device) if device != "cpu" else t


def back(t):
    return t.cpu() if t.device.type != "cpu" else t


def layouts(device, x, dtype):
    t = on(device, to_tensor(x, dtype))
    yield t, x
    yield t.t(), x.T
    yield t[:, ::2], x[:, ::2]
    yield t[:, 1:2].expand(x.shape[0], 5), np.broadcast_to(x[:, 1:2], (x.shape[0], 5))
    yield t[1, 2], x[1, 2]
    yield t[:0], x[:0]


def airy_ai(x):
    return sp.airy(x)[0]


def nan_at_inf(f):
    return lambda x: np.where(np.isinf(x), np.nan, f(x))


UNARY = {
    "erfcx": (sp.erfcx, (-30, 60)), "ndtr": (sp.ndtr, (-40, 40)),
    "log_ndtr": (sp.log_ndtr, (-60, 40)), "ndtri": (sp.ndtri, (0, 1)),
    "entr": (sp.entr, (-1, 50)), "bessel_j0": (nan_at_inf(sp.j0), (-60, 60)),
    "bessel_j1": (nan_at_inf(sp.j1), (-60, 60)), "bessel_y0": (nan_at_inf(sp.y0), (-1, 60)),
    "bessel_y1": (nan_at_inf(sp.y1), (-1, 60)), "modified_bessel_k0": (sp.k0, (-1, 60)),
    "modified_bessel_k1": (sp.k1, (-1, 60)), "scaled_modified_bessel_k0": (sp.k0e, (-1, 60)),
    "scaled_modified_bessel_k1": (sp.k1e, (-1, 60)),
    "spherical_bessel_j0": (lambda x: sp.spherical_jn(0, x), (-40, 40)),
    "airy_ai": (nan_at_inf(airy_ai), (-40, 20)),
}


def unary_values(name, dtype):
    lo, hi = UNARY[name][1]
    rng = np.random.default_rng(len(name))
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, lo, hi, 1e-30, 2.0, 4.0, 25.0, 4.5, 25.5]
    x = np.concatenate([rng.uniform(lo, hi, 170), np.array(edges[:10])])
    return x.astype(NP[dtype]).reshape(12, 15)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_device(device, dtype, name):
    fn, ref = getattr(S, name), UNARY[name][0]
    rtol, atol = TOL[dtype]
    if name == "airy_ai" and dtype == "float64":
        atol = 3e-13  # the asymptotic amplitude below x = -25 (test_special_functions.py)
    for t, xs in layouts(device, unary_values(name, dtype), dtype):
        got = fn(t)
        assert got.device == t.device and got.dtype == t.dtype
        with np.errstate(all="ignore"):
            want = np.asarray(ref(np.asarray(xs, np.float64))).astype(NP[dtype])
        assert_close(back(got), want, dtype=dtype, rtol=rtol, atol=atol)
        assert_close(back(got), fn(back(t)).numpy(), dtype=dtype, rtol=rtol, atol=atol)


def sh(f):
    return lambda n, x: f(n, x)


BINARY = {  # name: (reference f(x, y), x values, y values)
    "xlog1py": (sp.xlog1py, (-3, 3), (-0.99, 5)),
    "zeta": (sp.zeta, (1.5, 30), (0.1, 50)),
    "gammainc": (sp.gammainc, (0.01, 80), (0, 100)),
    "gammaincc": (sp.gammaincc, (0.01, 80), (0, 100)),
    "chebyshev_polynomial_t": (lambda x, n: sp.eval_chebyt(n, x), (-1.2, 1.2), (0, 20)),
    "chebyshev_polynomial_u": (lambda x, n: sp.eval_chebyu(n, x), (-1.2, 1.2), (0, 20)),
    "shifted_chebyshev_polynomial_t": (lambda x, n: sp.eval_sh_chebyt(n, x), (-0.1, 1.1), (0, 20)),
    "shifted_chebyshev_polynomial_u": (lambda x, n: sp.eval_sh_chebyu(n, x), (-0.1, 1.1), (0, 20)),
    "hermite_polynomial_h": (lambda x, n: sp.eval_hermite(n.astype(np.int64), x), (-3, 3), (0, 20)),
    "hermite_polynomial_he": (lambda x, n: sp.eval_hermitenorm(n.astype(np.int64), x), (-3, 3),
                              (0, 20)),
    "laguerre_polynomial_l": (lambda x, n: sp.eval_laguerre(n, x), (-2, 10), (0, 20)),
    "legendre_polynomial_p": (lambda x, n: sp.eval_legendre(n, x), (-1.2, 1.2), (0, 20)),
}
ORDERS = {"chebyshev", "shifted", "hermite", "laguerre", "legendre"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_on_device(device, dtype, name):
    ref, (xlo, xhi), (ylo, yhi) = BINARY[name]
    rng = np.random.default_rng(len(name) + 7)
    x = rng.uniform(xlo, xhi, (12, 15))
    y = rng.uniform(ylo, yhi, (12, 15))
    if name.split("_")[0] in ORDERS:
        y = np.floor(y)
    x, y = x.astype(NP[dtype]), y.astype(NP[dtype])
    rtol, atol = TOL[dtype]
    if dtype == "float64":
        rtol = 1e-10  # recurrences and sums over many terms
    if name == "laguerre_polynomial_l":
        # for x > 0 the recurrence's terms grow like e^(x/2) while L_n(x) does not:
        # SciPy's and ours differ by that cancellation (absolutely ~1e-9 at x = 10)
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-8)
    for (tx, xs), (ty, ys) in zip(layouts(device, x, dtype), layouts(device, y, dtype)):
        got = getattr(S, name)(tx, ty)
        assert got.device == tx.device and got.dtype == tx.dtype
        want = ref(np.asarray(xs, np.float64), np.asarray(ys, np.float64))
        scale = np.maximum(1, np.abs(want)).max() if np.size(want) else 1
        assert_close(back(got), np.asarray(want).astype(NP[dtype]), dtype=dtype, rtol=rtol,
                     atol=atol * scale)
        assert_close(back(got), getattr(S, name)(back(tx), back(ty)).numpy(), dtype=dtype,
                     rtol=rtol, atol=atol * scale)
    # broadcast (a column against a row) and a CPU scalar operand
    tx = on(device, to_tensor(x[:, :1], dtype))
    ty = on(device, to_tensor(y[:1], dtype))
    cpu = getattr(S, name)(back(tx), back(ty)).numpy()
    assert_close(back(getattr(S, name)(tx, ty)), cpu, dtype=dtype, rtol=rtol, atol=atol)
    assert_close(back(getattr(S, name)(tx, float(y[0, 0]))), cpu[:, :1], dtype=dtype, rtol=rtol,
                 atol=atol)


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_on_device_match_the_cpu(device):
    x = np.array([0.3, 1.7, 4.5, 30.0])
    for name in ["bessel_j1", "bessel_y0", "modified_bessel_k1", "erfcx", "log_ndtr", "entr"]:
        t = on(device, tl.tensor(x)).requires_grad_()
        (g,) = tl.autograd.grad(getattr(S, name)(t).sum(), t)
        c = tl.tensor(x).requires_grad_()
        (gc,) = tl.autograd.grad(getattr(S, name)(c).sum(), c)
        assert g.device == t.device
        assert_close(back(g), gc.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.skipif(not _C._dispatch_table()["add"][1]["cuda"], reason="built without CUDA")
def test_every_new_special_op_has_a_cuda_kernel():
    names = [n for n in UNARY] + ["xlog1py", "zeta", "igamma", "igammac"] + \
        [n for n in BINARY if n.split("_")[0] in ORDERS]
    for name in names:
        for dtype in ("float32", "float64"):
            assert _C._dispatch_lookup(name, "cpu", dtype) == "loop", (name, dtype)
            assert _C._dispatch_lookup(name, "cuda", dtype) == "set", (name, dtype)


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
