"""scipy.special on tensors: values against SciPy itself, dtypes, gradients to
second order against finite differences, in SciPy's default mode (through
__array_ufunc__) and through torchlike.numpy.special (what SciPy's array-API
mode looks up)."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
import torchlike.numpy as tnp
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()

X = np.array([0.3, 1.7, 4.2, 2.5])

# name -> call(module, x); module is scipy.special or torchlike.numpy.special
CASES = {
    "gamma": lambda m, x: m.gamma(x),
    "gamma_negative": lambda m, x: m.gamma(-x),
    "rgamma": lambda m, x: m.rgamma(x - 3),
    "beta": lambda m, x: m.beta(x, 2.0),
    "betaln": lambda m, x: m.betaln(x, x + 1),
    "betainc": lambda m, x: m.betainc(2.0, 3.0, x / 5),
    "gammainc": lambda m, x: m.gammainc(2.0, x),
    "gammaincc": lambda m, x: m.gammaincc(1.5, x),
    "psi": lambda m, x: m.psi(x),
    "erfcx": lambda m, x: m.erfcx(x),
    "ndtri": lambda m, x: m.ndtri(x / 5),
    "erfcinv": lambda m, x: m.erfcinv(x / 5),
    "j0": lambda m, x: m.j0(x),
    "j1": lambda m, x: m.j1(x),
    "jv": lambda m, x: m.jv(1.5, x),
    "jv_orders": lambda m, x: m.jv(np.array([[0.5], [2.0]]), x),
    "y0": lambda m, x: m.y0(x),
    "y1": lambda m, x: m.y1(x),
    "yn": lambda m, x: m.yn(2, x),
    "yv": lambda m, x: m.yv(0.5, x),
    "iv": lambda m, x: m.iv(2.0, x),
    "ive": lambda m, x: m.ive(1.0, -x),
    "kv": lambda m, x: m.kv(1.0, x),
    "kve": lambda m, x: m.kve(0.5, x),
    "log_expit": lambda m, x: m.log_expit(x - 2),
    "entr": lambda m, x: m.entr(x),
    "rel_entr": lambda m, x: m.rel_entr(x, 2.0),
    "kl_div": lambda m, x: m.kl_div(x, 1.5),
    "xlogy": lambda m, x: m.xlogy(x, x + 1),
    "expit": lambda m, x: m.expit(x),
}
# Python-level functions of scipy.special (not ufuncs): only through the namespace
NAMESPACE_ONLY = {
    "multigammaln": lambda m, x: m.multigammaln(x + 2, 3),
    "polygamma": lambda m, x: m.polygamma(2, x),
    "logsumexp": lambda m, x: m.logsumexp(x),
    "logsumexp_b": lambda m, x: m.logsumexp(x, b=np.array([1.0, 2.0, 0.5, 1.0])),
    "sinc": lambda m, x: m.sinc(x - 2),
    "softmax": lambda m, x: m.softmax(x),
    "log_softmax": lambda m, x: m.log_softmax(x),
}


def _namespace_call(call):
    """Run a case on torchlike.numpy.special with NumPy arrays in its arguments
    turned into tensors (as SciPy's array-API mode hands them over)."""
    class Namespace:
        def __getattr__(self, name):
            f = getattr(tnp.special, name)
            return lambda *a, **k: f(*[tl.from_numpy(v) if isinstance(v, np.ndarray) else v
                                        for v in a],
                                     **{n: tl.from_numpy(v) if isinstance(v, np.ndarray) else v
                                        for n, v in k.items()})
    return lambda x: call(Namespace(), x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scipy_ufunc_on_tensors(name):
    want = CASES[name](sp, X)
    x = tl.from_numpy(X.copy()).requires_grad_()
    got = CASES[name](sp, x)
    assert isinstance(got, tl.Tensor) and got.requires_grad
    assert got.dtype == tl.float64
    np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=1e-12)
    f = lambda v: CASES[name](sp, v)  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("name", sorted(CASES) + sorted(NAMESPACE_ONLY))
def test_namespace_functions(name):
    call = {**CASES, **NAMESPACE_ONLY}[name]
    want = call(sp, X)
    x = tl.from_numpy(X.copy()).requires_grad_()
    f = _namespace_call(call)
    got = f(x)
    np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=1e-12)
    assert gradcheck(f, (x,))


@pytest.mark.host_only  # SciPy's own kernels (erfcx, j0, jv, gammainc) run on the host only
def test_single_precision_as_scipy():
    """float32 stays float32 where SciPy's loop does; gammainc lists its
    float64 loop first, so with a Python number beside float32 data SciPy
    computes, and returns, float64 (and so does torchlike now)."""
    x = tl.tensor([0.5, 1.5])
    for f in (sp.gamma, sp.erfcx, sp.j0, lambda v: sp.jv(1, v), lambda v: sp.gammainc(2, v)):
        assert np.dtype(f(x).dtype.name) == f(x.numpy()).dtype
    assert sp.jv(1, x).dtype == tl.float32 and sp.gammainc(2, x).dtype == tl.float64


def test_special_values_match_scipy():
    x = np.array([0.0, -0.0, -1.0, -2.0, -0.5, -1.5, 3.0, np.inf, -np.inf, np.nan])
    t = tl.from_numpy(x.copy())
    for name in ("gammasgn", "gamma", "rgamma"):  # signs, poles and infinities exact
        np.testing.assert_allclose(np.asarray(getattr(sp, name)(t)), getattr(sp, name)(x),
                                   rtol=1e-14, atol=0)
    e, f = np.array([0.0, 0.5, 2.0, -1.0, 0.0, np.nan]), np.array([0.0, 1.0, 0.5, 1.0, -1, 1])
    for name in ("rel_entr", "kl_div"):
        np.testing.assert_array_equal(np.asarray(getattr(sp, name)(tl.from_numpy(e),
                                                                   tl.from_numpy(f))),
                                      getattr(sp, name)(e, f))
    z = np.array([-800, -3.0, 0.0, 2.0, 800.0])
    np.testing.assert_allclose(np.asarray(sp.log_expit(tl.from_numpy(z))), sp.log_expit(z))
    m = np.random.default_rng(0).standard_normal((3, 4))
    b = np.random.default_rng(1).standard_normal((3, 4))
    r, s = tnp.special.logsumexp(tl.from_numpy(m), axis=0, b=tl.from_numpy(b),
                                 return_sign=True)
    rr, ss = sp.logsumexp(m, axis=0, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(r), rr)
    np.testing.assert_array_equal(np.asarray(s), ss)


@pytest.mark.host_only  # erf of complex numbers is SciPy's, on the host only
def test_complex_erf():
    z = np.array([0.5 + 0.3j, -1.0 + 2.0j, 0.0 + 0.0j])
    t = tl.from_numpy(z.copy())
    np.testing.assert_allclose(np.asarray(sp.erf(t)), sp.erf(z), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(sp.erfc(t)), sp.erfc(z), rtol=1e-13)
    re = tl.tensor([0.5, -1.0], dtype=tl.float64, requires_grad=True)
    im = tl.tensor([0.3, 2.0], dtype=tl.float64, requires_grad=True)

    def f(a, b):
        w = sp.erf(a + b * 1j)
        return tl.stack([w.real, w.imag])
    assert gradcheck(f, (re, im))


@pytest.mark.host_only  # jv and gammainc are SciPy's, on the host only
def test_order_derivatives_are_refused_by_name():
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    v = tl.tensor([1.5], dtype=tl.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="'v'"):
        sp.jv(v, x).sum().backward()
    a = tl.tensor([2.0], dtype=tl.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="'a'"):
        sp.gammainc(a, x).sum().backward()


def test_bad_arguments():
    with pytest.raises(ValueError, match="d must be a positive integer"):
        tnp.special.multigammaln(tl.tensor([3.0]), 0)
    with pytest.raises(ValueError, match="order must be a non-negative integer"):
        tnp.special.polygamma(-1, tl.tensor([1.0]))


# ---- on a device: composed functions run there, SciPy's own refuse by name ---------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["beta", "betaln", "rel_entr", "kl_div", "xlogy"])
def test_python_numbers_join_the_tensors_device(device, name):
    """A Python number beside a tensor becomes a tensor on that tensor's device,
    whatever the default device (on the CPU while x is on a device here)."""
    call = {"beta": lambda m, x: m.beta(x, 2.0), "betaln": lambda m, x: m.betaln(1.5, x),
            "rel_entr": CASES["rel_entr"], "kl_div": CASES["kl_div"],
            "xlogy": lambda m, x: m.xlogy(2, x)}[name]
    got = call(sp, device_array(device, X))
    assert got.device.type == device and got.dtype == tl.float64
    np.testing.assert_allclose(host_array(got), call(sp, X), rtol=1e-12)
    got = call(tnp.special, device_array(device, X.astype(np.float32)))
    assert got.device.type == device and got.dtype == tl.float32
    np.testing.assert_allclose(host_array(got), call(sp, X), rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_scipys_own_functions_refuse_a_device(device):
    x = device_array(device, X)
    if device == "cpu":
        np.testing.assert_allclose(host_array(sp.jv(1.5, x)), sp.jv(1.5, X), rtol=1e-12)
        return
    with pytest.raises(NotImplementedError, match=r"scipy.special.jv: no kernel for device"):
        sp.jv(1.5, x)
    with pytest.raises(NotImplementedError, match=r"scipy.special.erfcx: no kernel for device"):
        sp.erfcx(x)


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
