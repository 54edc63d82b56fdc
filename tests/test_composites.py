"""The functions of torchlike/_composites.py (addcmul, diff, isin, cov,
view_as_real, trapezoid, the window functions ...): PyTorch's recorded
answers (tests/golden/composites.json, scripts/golden_composites.py) for
dtypes, shapes and messages; NumPy references for values, gradcheck in
float64 for derivatives, non-contiguous inputs."""
import math
import os

import numpy as np
import pytest

import torchlike as T
from golden_tolerant import close
from oracle import cuda_test_devices, golden_calls, host_array, run_emulated

CALLS, _golden = golden_calls("composites")
DEVICES, EMULATED = cuda_test_devices()


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        words = expected[2].split(": got")[0].split(", got:")[0].replace("  ", " ")
        assert words[:40] in str(e.value).replace("  ", " "), (call, str(e.value))
        return
    got = _golden.describe(eval(call, env))
    assert close(got, expected, rtol=2e-5), (call, got, expected)  # 5 digits recorded


def _rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _noncontig(a):
    """a as a non-contiguous tensor (every other column of a wider one)."""
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    wide[..., ::2] = a
    t = T.tensor(wide)[..., ::2]
    assert not t.is_contiguous()
    return t


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_against_numpy(dtype):
    a, b, c = _rand(3, 5, dtype=dtype), _rand(3, 5, seed=1, dtype=dtype), \
        _rand(3, 5, seed=2, dtype=dtype)
    ta, tb, tc = _noncontig(a), _noncontig(b), _noncontig(c)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(T.addcmul(ta, tb, tc, value=0.5).cpu().numpy(), a + 0.5 * b * c,
                               **tol)
    np.testing.assert_allclose(T.addcdiv(ta, tb, tc, value=-2).cpu().numpy(), a - 2 * b / c,
                               rtol=tol["rtol"] * 100)
    for w in (0.3, 0.8):
        np.testing.assert_allclose(T.lerp(ta, tb, w).cpu().numpy(), a + w * (b - a), **tol)
    np.testing.assert_allclose(T.lerp(ta, tb, tc).cpu().numpy(), a + c * (b - a), **tol)
    np.testing.assert_allclose(T.logcumsumexp(ta, 1).cpu().numpy(),
                               np.log(np.cumsum(np.exp(a), 1)), **tol)
    for n in (1, 2, 3):
        for dim in (0, 1):
            np.testing.assert_array_equal(T.diff(ta, n, dim).cpu().numpy(), np.diff(a, n, dim))
    np.testing.assert_array_equal(T.diff(ta, prepend=tb, append=tc).cpu().numpy(),
                                  np.diff(a, prepend=b, append=c))
    np.testing.assert_allclose(T.cov(ta).cpu().numpy(), np.cov(a), **tol)
    np.testing.assert_allclose(T.cov(ta, correction=0).cpu().numpy(), np.cov(a, ddof=0), **tol)
    fw, aw = np.array([1, 2, 1, 3, 2]), np.abs(_rand(5, seed=3))
    np.testing.assert_allclose(
        T.cov(ta, fweights=T.tensor(fw), aweights=T.tensor(aw.astype(dtype))).cpu().numpy(),
        np.cov(a, fweights=fw, aweights=aw), rtol=1e-4 if dtype == np.float32 else 1e-10)
    np.testing.assert_allclose(T.corrcoef(ta).cpu().numpy(), np.corrcoef(a), **tol)
    np.testing.assert_allclose(T.trapezoid(ta).cpu().numpy(), np.trapezoid(a), **tol)
    xs = np.cumsum(np.abs(_rand(5, seed=4)))
    np.testing.assert_allclose(T.trapezoid(ta, T.tensor(xs.astype(dtype))).cpu().numpy(),
                               np.trapezoid(a, xs), rtol=1e-4 if dtype == np.float32 else 1e-10)
    np.testing.assert_allclose(T.trapezoid(ta, dx=0.25, dim=0).cpu().numpy(),
                               np.trapezoid(a, dx=0.25, axis=0), **tol)
    np.testing.assert_allclose(T.cumulative_trapezoid(ta, dx=0.5).cpu().numpy(),
                               np.cumsum((a[:, 1:] + a[:, :-1]) * 0.25, 1), **tol)
    np.testing.assert_allclose(T.dist(ta, tb, 3).cpu().numpy(),
                               (np.abs(a - b) ** 3).sum() ** (1 / 3), **tol)
    norms = np.sqrt((a ** 2).sum(1, keepdims=True))
    want = np.where(norms > 1.0, a / (norms + 1e-7), a)
    np.testing.assert_allclose(T.renorm(ta, 2, 0, 1.0).cpu().numpy(), want, **tol)
    s, m = T.std_mean(ta, 1, keepdim=True)
    np.testing.assert_allclose(s.cpu().numpy(), a.std(1, ddof=1, keepdims=True), **tol)
    np.testing.assert_allclose(m.cpu().numpy(), a.mean(1, keepdims=True), **tol)
    v, m = T.var_mean(ta, dim=0, correction=0)
    np.testing.assert_allclose(v.cpu().numpy(), a.var(0), **tol)
    mn, mx = T.aminmax(ta, dim=1)
    np.testing.assert_array_equal(mn.cpu().numpy(), a.min(1))
    np.testing.assert_array_equal(mx.cpu().numpy(), a.max(1))


def test_isin_against_numpy():
    rng = np.random.default_rng(5)
    e, t = rng.integers(0, 20, (4, 6)), rng.integers(0, 20, 9)
    te = T.tensor(np.repeat(e, 2, axis=1))[:, ::2]
    for invert in (False, True):
        np.testing.assert_array_equal(T.isin(te, T.tensor(t), invert=invert).cpu().numpy(),
                                      np.isin(e, t, invert=invert))
    np.testing.assert_array_equal(T.isin(te, 7).cpu().numpy(), np.isin(e, 7))
    f = np.array([0.5, np.nan, -1.0, 2.0])
    np.testing.assert_array_equal(T.isin(T.tensor(f), T.tensor([np.nan, 2.0])).cpu().numpy(),
                                  np.isin(f, [np.nan, 2.0]))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "uint16", "int32",
                                   "uint32", "int64", "uint64"])
def test_isin_of_integers_short_and_wide_ranges(dtype):
    """Test values spanning a short range go through a lookup table, a wide
    range through a binary search: both agree with NumPy, also for elements
    outside the range and uint64 values past int64's."""
    rng = np.random.default_rng(6)
    info = np.iinfo(dtype) if dtype != "bool" else None
    for lo, hi in [(0, 2), (0, 40), (0, 2 ** 62)]:
        if info is None and hi > 2 or info is not None and hi > info.max:
            continue
        e = rng.integers(lo, hi, 300, dtype=np.uint64).astype(dtype)
        t = e[::17].copy()
        for invert in (False, True):
            got = T.isin(T.from_numpy(e), T.from_numpy(t), invert=invert)
            np.testing.assert_array_equal(got.cpu().numpy(), np.isin(e, t, invert=invert))
    if dtype == "uint64":
        e = np.array([2 ** 63 + 5, 5, 2 ** 64 - 1, 0], np.uint64)
        for t in (np.array([5, 6], np.uint64), np.array([5, 2 ** 64 - 1], np.uint64)):
            np.testing.assert_array_equal(T.isin(T.from_numpy(e), T.from_numpy(t)).cpu().numpy(),
                                          np.isin(e, t))


@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("n", [2, 7, 16])
def test_windows_against_numpy(n, periodic):
    m = n + 1 if periodic else n
    ref = {"hann": np.hanning(m), "hamming": np.hamming(m), "blackman": np.blackman(m),
           "bartlett": np.bartlett(m), "kaiser": np.kaiser(m, 12.0)}
    for name, want in ref.items():
        got = getattr(T, name + "_window")(n, periodic, dtype=T.float64)
        np.testing.assert_allclose(got.cpu().numpy(), want[:n], rtol=1e-12, atol=1e-12,
                                   err_msg=name)
    assert T.hann_window(n).dtype == T.float32


def test_complex_views_share_storage():
    r = T.tensor(_rand(4, 2))
    z = T.view_as_complex(r)
    assert z.shape == (4,) and z.dtype == T.complex128
    z[1] = 5 - 3j
    assert r[1].tolist() == [5.0, -3.0]
    back = T.view_as_real(z)
    back[2, 1] = 7.0
    assert z[2].imag.item() == 7.0 and r[2, 1].item() == 7.0
    zz = T.tensor(np.array([1 + 2j, 3 - 4j, 5 + 6j]))[::2]  # strided complex
    np.testing.assert_array_equal(T.view_as_real(zz).cpu().numpy(), [[1, 2], [5, 6]])
    np.testing.assert_allclose(T.polar(T.tensor([2.0]), T.tensor([math.pi / 2])).cpu().numpy(),
                               [2 * np.exp(1j * math.pi / 2)], atol=1e-6)


def test_in_place_methods():
    a, b, c = (T.tensor(_rand(2, 3, seed=s)) for s in range(3))
    want = (a + 2 * b * c).cpu().numpy()
    out = a.addcmul_(b, c, value=2)
    assert out is a
    np.testing.assert_allclose(a.cpu().numpy(), want)
    want = (a + b / c).cpu().numpy()
    a.addcdiv_(b, c)
    np.testing.assert_allclose(a.cpu().numpy(), want)
    want = (a + 0.25 * (b - a)).cpu().numpy()
    a.lerp_(b, 0.25)
    np.testing.assert_allclose(a.cpu().numpy(), want)


def _g(*shape, seed=0, positive=False):
    a = _rand(*shape, seed=seed)
    return T.tensor(np.abs(a) + 0.5 if positive else a, requires_grad=True)


@pytest.mark.parametrize("name,fn,inputs", [
    ("addcmul", lambda a, b, c: T.addcmul(a, b, c, value=0.7), (3, 4)),
    ("addcdiv", lambda a, b, c: T.addcdiv(a, b, c + 3, value=-1.5), (3, 4)),
    ("lerp_scalar", lambda a, b: T.lerp(a, b, 0.3), (3, 4)),
    ("lerp_scalar_high", lambda a, b: T.lerp(a, b, 0.9), (3, 4)),
    ("lerp_tensor", lambda a, b, w: T.lerp(a, b, w), (3, 4)),
    ("logit", lambda p: T.logit(T.sigmoid(p)), (5,)),
    ("logit_eps", lambda p: T.logit(T.sigmoid(p), eps=0.2), (5,)),
    ("std_mean", lambda a: T.std_mean(a, 1), (3, 4)),
    ("var_mean", lambda a: T.var_mean(a, dim=0, correction=0, keepdim=True), (3, 4)),
    ("logcumsumexp", lambda a: T.logcumsumexp(a, 1), (3, 5)),
    ("diff", lambda a, b: T.diff(a, 2, 0, append=b), (3, 4)),
    ("dist", lambda a, b: T.dist(a, b, 3), (3, 4)),
    ("renorm", lambda a: T.renorm(a, 2, 1, 0.5), (3, 4)),
    ("cov", lambda a: T.cov(a), (3, 6)),
    ("cov_weights", lambda a, w: T.cov(a, aweights=w.abs() + 0.5), (2, 5)),
    ("corrcoef", lambda a: T.corrcoef(a), (3, 6)),
    ("trapezoid", lambda y: T.trapezoid(y, dx=0.5), (3, 4)),
    ("trapezoid_x", lambda y, x: T.trapezoid(y, x), (3, 4)),
    ("cumulative_trapezoid", lambda y: T.cumulative_trapezoid(y, dim=0), (3, 4)),
    ("complex", lambda r, i: T.complex(r, i).abs(), (3, 4)),
    ("polar", lambda m, a: T.view_as_real(T.polar(m, a)), (3, 4)),
])
def test_gradients(name, fn, inputs):
    n_args = fn.__code__.co_argcount
    args = [_g(*inputs, seed=k) for k in range(n_args)]
    if name == "cov_weights":
        args[1] = _g(inputs[1], seed=9)
    assert T.autograd.gradcheck(fn, args)


def test_complex_view_gradients():
    r = _g(3, 2)
    assert T.autograd.gradcheck(lambda a: T.view_as_real(T.view_as_complex(a) * (1 + 2j)), [r])
    z = T.view_as_complex(r)
    assert z.data_ptr() == r.data_ptr()


# Each composite on a device against the same call on the CPU: the ops they are
# made of carry them there (no host read of device data).
_ON_DEVICE = {
    "addcmul": lambda a, b: T.addcmul(a, b, b, value=0.5),
    "addcdiv": lambda a, b: T.addcdiv(a, b, b.abs() + 1),
    "lerp": lambda a, b: T.lerp(a, b, 0.7) + T.lerp(a, b, b.sigmoid()),
    "logit": lambda a, b: T.logit(a.sigmoid(), eps=0.1),
    "aminmax": lambda a, b: T.stack(list(T.aminmax(a, dim=1))),
    "std_mean": lambda a, b: T.stack(list(T.std_mean(a, 0))),
    "logcumsumexp": lambda a, b: T.logcumsumexp(a, 1),
    "diff": lambda a, b: T.diff(a, 2, 1, prepend=b),
    "isin": lambda a, b: T.isin(T.round(a), T.round(b)),
    "dist": lambda a, b: T.dist(a, b, 3),
    "renorm": lambda a, b: T.renorm(a, 2, 0, 1.0),
    "cov": lambda a, b: T.cov(a, aweights=b[0].abs()),
    "corrcoef": lambda a, b: T.corrcoef(a),
    "complex_views": lambda a, b: T.view_as_real(T.polar(a.abs(), b) * 2j),
    "trapezoid": lambda a, b: T.trapezoid(a, b[0].cumsum(0)),
    "cumulative_trapezoid": lambda a, b: T.cumulative_trapezoid(a, dx=0.5, dim=0),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(_ON_DEVICE))
def test_on_device(name, device):
    a, b = _rand(3, 5), _rand(3, 5, seed=1)
    fn = _ON_DEVICE[name]
    want = fn(T.tensor(a, device="cpu"), T.tensor(b, device="cpu")).numpy()
    got = fn(T.tensor(a).to(device), T.tensor(b).to(device))
    assert str(got.device).startswith(device if device != "cpu" else "cpu")
    np.testing.assert_allclose(host_array(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_windows_on_device(device):
    for w in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
        got = getattr(T, w + "_window")(6, dtype=T.float64, device=device)
        np.testing.assert_allclose(host_array(got), getattr(T, w + "_window")(
            6, dtype=T.float64, device="cpu").numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_windows_on_the_cpu_whatever_the_default_device(device):
    """A window asked for on the CPU is made there (its constants too) while
    the default device is another."""
    want = {w: getattr(T, w + "_window")(7, dtype=T.float64, device="cpu").numpy()
            for w in ("hann", "kaiser")}
    old = T.get_default_device()
    T.set_default_device(device)
    try:
        got = {w: getattr(T, w + "_window")(7, dtype=T.float64, device="cpu")
               for w in ("hann", "kaiser")}
    finally:
        T.set_default_device(old)
    for w, g in got.items():
        assert g.device.type == "cpu"
        np.testing.assert_array_equal(g.numpy(), want[w])


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    """The device cases on the fake device with the CPU's kernels, in a process
    of their own (the emulation cannot be undone)."""
    run_emulated(__file__)


def test_deprecated_scalar_first_overloads():
    # old optimizers' p.data.add_(-lr, grad) and v.addcmul_(1 - beta, g, g):
    # PyTorch's deprecated overloads take the scalar first
    a, b, c = (np.linspace(1, 2, 6).reshape(2, 3) * k for k in (1.0, 2.0, 3.0))
    t = T.tensor(a, requires_grad=True)
    cases = [(lambda: t.add(0.5, T.tensor(b)), a + 0.5 * b),
             (lambda: T.sub(t, 2, T.tensor(b)), a - 2 * b),
             (lambda: t.addcmul(0.5, T.tensor(b), T.tensor(c)), a + 0.5 * b * c),
             (lambda: T.addcdiv(t, -1.5, T.tensor(b), T.tensor(c)), a - 1.5 * b / c)]
    for make, want in cases:
        got = make()
        np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=1e-12)
        (grad,) = T.autograd.grad(got.sum(), t)
        np.testing.assert_array_equal(grad.cpu().numpy(), np.ones_like(a))
    x = T.tensor(a)
    x.add_(-0.1, T.tensor(b))
    x.addcdiv_(0.3, T.tensor(b), T.tensor(c))
    x.addcmul_(2, T.tensor(b), T.tensor(b))
    np.testing.assert_allclose(x.cpu().numpy(), a - 0.1 * b + 0.3 * b / c + 2 * b * b,
                               rtol=1e-12)
    with pytest.raises(TypeError, match="takes 3 positional arguments but 5"):
        t.addcmul(0.5, T.tensor(b), T.tensor(c), 1)


def test_deprecated_overload_notice_once_per_process():
    # PyTorch warns once per process, naming the first deprecated overload used
    import subprocess
    import sys
    code = ("import warnings, torchlike as T\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    x = T.ones(2)\n"
            "    x.addcmul_(0.5, x, x); x.addcmul_(0.5, x, x); x.addcdiv(1, x, x)\n"
            "print(repr([str(m.message) for m in w]))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # imports torchlike
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root).stdout
    assert eval(out) == ["This overload of addcmul_ is deprecated:\n\taddcmul_(Number value, "
                         "Tensor tensor1, Tensor tensor2)\nConsider using one of the following "
                         "signatures instead:\n\taddcmul_(Tensor tensor1, Tensor tensor2, *, "
                         "Number value = 1)"]
