"""NumPy and SciPy code on the tape: NumPy ufuncs and functions called on
tensors that require grad are recorded (they dispatch to torchlike ops) or
raise a TypeError naming the function -- never a silently dropped gradient;
scipy.special ufuncs get derivatives (torchlike/_special.py); and whole
models written only with np.* are differentiated and checked against finite
differences."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as sp

import torchlike as torch
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import assert_close

# Formulas of ops.def ops gradchecked here (tests/test_grad_registry.py reads this).
GRADCHECKED = {"i0", "i0e", "i1", "i1e"}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def leaf(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def rand(*shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return leaf(a)


# ---- dispatch records, or refuses by name -----------------------------------------------------

def test_numpy_ufunc_on_grad_tensor_is_recorded():
    x, y = rand(3), rand(3, seed=1)
    z = np.multiply(np.exp(x), y)
    assert isinstance(z, torch.Tensor) and z.grad_fn.name() == "MulBackward0"
    np.add.reduce(z).backward()  # ufunc.reduce: a torchlike sum
    assert_close(x.grad, np.exp(x.detach().cpu().numpy()) * y.detach().cpu().numpy())
    assert_close(y.grad, np.exp(x.detach().cpu().numpy()))


@pytest.mark.host_only  # ndarrays live on the host
def test_numpy_operators_with_ndarrays_are_recorded():
    x = rand(3)
    c = np.array([1.0, 2.0, 3.0])
    z = c * x + c  # ndarray on the left: NumPy defers to the tensor
    assert isinstance(z, torch.Tensor) and z.requires_grad
    z.sum().backward()
    assert_close(x.grad, c)


def test_numpy_function_on_grad_tensor_is_recorded():
    x = rand(2, 3)
    s = np.sum(np.exp(x), axis=1)
    assert isinstance(s, torch.Tensor) and s.requires_grad
    s.sum().backward()
    assert_close(x.grad, np.exp(x.detach().cpu().numpy()))


@pytest.mark.parametrize("call, name", [
    (lambda x: np.bitwise_count(x), "numpy.bitwise_count"),
    (lambda x: sp.dawsn(x), "scipy.special.dawsn"),
    (lambda x: sp.struve(0, x), "scipy.special.struve"),
])
def test_unrecordable_call_raises_naming_the_function(call, name):
    x = rand(3, low=0.1, high=0.9)
    with pytest.raises(TypeError, match=name.replace(".", r"\.")):
        call(x)


@pytest.mark.host_only  # ndarrays live on the host
def test_no_silent_conversion_of_a_grad_tensor():
    x = rand(3)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(x)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.array(x)
    with pytest.raises(BufferError, match="requires grad"):
        memoryview(x)
    with pytest.raises(RuntimeError, match="require gradient"):
        np.from_dlpack(x)
    # detached: zero-copy as usual
    assert np.shares_memory(np.asarray(x.detach()), x.detach().cpu().numpy())


def test_numpy_i0_is_recorded():
    x = rand(4)
    y = np.i0(x)
    assert isinstance(y, torch.Tensor) and y.grad_fn.name() == "I0Backward0"
    assert_close(y.detach(), np.i0(x.detach().cpu().numpy()))


@pytest.mark.host_only  # ndarrays live on the host
def test_unrecordable_call_without_grad_still_runs():
    x = torch.tensor([0.5, 1.5])
    r = sp.dawsn(x)
    assert isinstance(r, torch.Tensor)
    assert_close(r, sp.dawsn(np.array([0.5, 1.5])), check_dtype=False)


# ---- scipy.special ufuncs --------------------------------------------------------------------------

# name -> (inputs as ndarrays, where gradcheck is taken)
SPECIAL_POINTS = {
    "expit": [np.array([-3.0, -0.5, 0.0, 0.7, 4.0])],
    "logit": [np.array([0.05, 0.3, 0.5, 0.8, 0.97])],
    "erf": [np.array([-2.0, -0.3, 0.0, 0.5, 1.7])],
    "erfc": [np.array([-2.0, -0.3, 0.0, 0.5, 1.7])],
    "erfinv": [np.array([-0.9, -0.3, 0.0, 0.4, 0.8])],
    "ndtr": [np.array([-4.0, -1.0, 0.0, 0.3, 2.5])],
    "log_ndtr": [np.array([-45.0, -21.0, -19.0, -8.0, -1.0, 0.0, 0.5, 3.0, 9.0])],
    "gammaln": [np.array([0.3, 1.0, 2.5, 7.0, 30.0])],
    "digamma": [np.array([0.3, 1.0, 2.5, 7.0, 30.0])],
    # x = 0 is left out: there the gradient in x is 0 by convention (PyTorch's),
    # not the one-sided log(y) of finite differences
    "xlogy": [np.array([0.3, 0.5, 2.0, -1.5]), np.array([0.5, 1.5, 3.0, 0.2])],
    "xlog1py": [np.array([0.3, 0.5, 2.0, -1.5]), np.array([-0.5, 1.5, 3.0, 0.2])],
    "i0": [np.array([-25.0, -3.0, -0.5, 0.0, 0.7, 2.0, 21.0])],
    "i1": [np.array([-25.0, -3.0, -0.5, 0.0, 0.7, 2.0, 21.0])],
    "i0e": [np.array([-25.0, -3.0, -0.5, 0.7, 2.0, 21.0])],  # |x| has a kink at 0
    "i1e": [np.array([-25.0, -3.0, -0.5, 0.7, 2.0, 21.0])],
}


@pytest.mark.parametrize("name", sorted(SPECIAL_POINTS))
def test_scipy_special_values(name):
    ufunc = getattr(sp, name)
    arrays = SPECIAL_POINTS[name]
    got = ufunc(*[torch.tensor(a) for a in arrays])
    assert isinstance(got, torch.Tensor)
    assert_close(got, ufunc(*arrays), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("name", sorted(SPECIAL_POINTS))
def test_scipy_special_gradcheck(name):
    ufunc = getattr(sp, name)
    inputs = [leaf(a) for a in SPECIAL_POINTS[name]]
    out = ufunc(*inputs)
    assert out.requires_grad and out.grad_fn is not None
    assert gradcheck(ufunc, inputs)


@pytest.mark.parametrize("name", ["expit", "erf", "log_ndtr", "i1", "xlog1py"])
def test_scipy_special_gradgradcheck(name):
    inputs = [leaf(a) for a in SPECIAL_POINTS[name]]
    assert gradgradcheck(getattr(sp, name), inputs)


def test_scipy_special_float32_and_broadcast():
    x = torch.tensor(np.linspace(-3, 3, 7, dtype=np.float32))
    assert_close(sp.expit(x), sp.expit(x.cpu().numpy()), rtol=1e-6)
    assert_close(sp.ndtr(x), sp.ndtr(x.cpu().numpy()), rtol=1e-5, atol=1e-7)
    a = torch.tensor([[0.5], [2.0]])
    b = torch.tensor([0.25, 1.0, 4.0])
    assert_close(sp.xlogy(a, b), sp.xlogy(a.cpu().numpy(), b.cpu().numpy()))
    assert_close(sp.xlog1py(a, b), sp.xlog1py(a.cpu().numpy(), b.cpu().numpy()))


@pytest.mark.parametrize("name, call", [
    ("xlogy", lambda x: sp.xlogy(2.0, x)), ("xlog1py", lambda x: sp.xlog1py(x, 0.5)),
    # (gammainc(c) and yn have no device kernel: SciPy computes them on the host only)
    pytest.param("gammainc", lambda x: sp.gammainc(2.5, x), marks=pytest.mark.host_only),
    pytest.param("gammaincc", lambda x: sp.gammaincc(1.5, x), marks=pytest.mark.host_only),
    ("beta", lambda x: sp.beta(2.0, x)), ("betaln", lambda x: sp.betaln(x, 3)),
    ("kl_div", lambda x: sp.kl_div(x, 2.0)), ("huber", lambda x: sp.huber(0.5, x)),
    pytest.param("yn", lambda x: sp.yn(2, x), marks=pytest.mark.host_only)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_scipy_special_with_python_numbers_runs_scipys_loop(name, call, dtype):
    """A scipy.special ufunc given a Python number beside float32 data runs
    the loop NumPy picks from SciPy's list: xlogy, xlog1py, gammainc(c),
    beta(ln), yn list float64's first, so SciPy's result is float64 there
    (float32 where a float32 loop comes first); float16 data, which no loop
    takes, is float64.  The ops' promotion kept float32 and float16.  The
    leaf's gradient keeps its dtype.  (Integer data takes the default float,
    as the float ops do: docs/numpy.md.)"""
    data = np.asarray([0.5, 1.5, 3.0]).astype(dtype)
    want = call(data)
    for _ in range(2):  # the second call may take the C fast path
        got = call(torch.tensor(data))
        assert np.dtype(got.dtype.name) == want.dtype, (name, got.dtype, want.dtype)
        assert_close(got, want, rtol=1e-6)
    x = torch.tensor(data, requires_grad=True)
    call(x).sum().backward()
    assert np.dtype(x.grad.dtype.name) == dtype


@pytest.mark.parametrize("name, call", [
    ("expit", lambda x: sp.expit(x)), ("gammaln", lambda x: sp.gammaln(x)),
    ("erf", lambda x: sp.erf(x)), ("xlogy", lambda x: sp.xlogy(x, x)),
    ("ndtr", lambda x: sp.ndtr(x))])
def test_scipy_special_of_half_precision_is_scipys_float64(name, call):
    """SciPy has no float16 loops: its result for float16 data is float64
    (the ops kept float16), the leaf's gradient float16."""
    data = np.asarray([0.5, 1.5, 3.0], np.float16)
    want = call(data)
    x = torch.tensor(data, requires_grad=True)
    got = call(x)
    assert np.dtype(got.dtype.name) == want.dtype == np.float64
    assert_close(got.detach(), want, rtol=1e-6)
    got.sum().backward()
    assert x.grad.dtype == torch.float16


def test_numpy_ufuncs_run_the_loop_of_their_signature():
    """signature= (sig=) was ignored: np.exp(x32, signature='d->d') stayed
    float32.  The operands are cast to the loop's dtypes, as NumPy does."""
    a = np.asarray([0.5, -1.5], np.float32)
    for call in (lambda x: np.exp(x, signature="d->d"),
                 lambda x: np.multiply(x, 2.0, signature=(None, None, np.float64)),
                 lambda x: np.add(x, x, sig="dd->d"),
                 lambda x: sp.xlogy(x, x + 3, signature="dd->d")):
        want = call(a)
        got = call(torch.tensor(a))
        assert np.dtype(got.dtype.name) == want.dtype == np.float64
        assert_close(got, want, rtol=1e-6)
    with pytest.raises(TypeError, match="cannot specify both 'signature' and 'dtype'"):
        np.exp(torch.tensor(a), signature="d->d", dtype=np.float64)
    x = torch.tensor(a, requires_grad=True)
    np.exp(x, signature="d->d").sum().backward()
    assert x.grad.dtype == torch.float32


@pytest.mark.host_only  # out= an ndarray: host memory, refused beside a device's tensors
def test_scipy_special_ufuncs_write_into_out():
    """scipy.special ufuncs with out= (a tensor, an ndarray, NumPy's tuple)
    raised "xlogy() got an unexpected keyword argument 'out'"
    (their ops take none), from the second call on through the C fast path
    too; the result is written into out as NumPy does.  With an input that
    requires grad it is PyTorch's refusal of out=, as for NumPy's ufuncs."""
    x = np.asarray([0.5, 1.5, 3.0], np.float32)
    for call in (lambda a, out: sp.expit(a, out=out), lambda a, out: sp.gammaln(a, out=(out,)),
                 lambda a, out: sp.xlogy(2.0, a, out=out), lambda a, out: sp.xlog1py(a, a, out=out)):
        want = np.full(3, 7.0, np.float32)
        call(x, want)
        for _ in range(2):  # the second call may take the C fast path
            for out in (torch.tensor(np.full(3, 7.0, np.float32)), np.full(3, 7.0, np.float32)):
                assert call(torch.tensor(x), out) is out
                np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
                assert np.dtype(out.dtype.name if isinstance(out, torch.Tensor) else
                                out.dtype) == np.float32
    t = torch.tensor(x, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"expit\(\): functions with out=\.\.\. arguments"):
        sp.expit(t, out=torch.zeros(3))
    with torch.no_grad():
        out = torch.zeros(3)
        sp.xlogy(2.0, t, out=out)
    np.testing.assert_allclose(np.asarray(out), sp.xlogy(2.0, x), rtol=1e-6)


def test_scipy_special_edge_values():
    x = np.array([0.0, 1.0, -0.5, 1.5, np.nan])
    assert_close(sp.logit(torch.tensor(x)), sp.logit(x))
    y = np.array([-np.inf, -1e4, -40.0, 40.0, np.inf, np.nan])
    assert_close(sp.log_ndtr(torch.tensor(y)), sp.log_ndtr(y), rtol=1e-14)
    a, b = np.array([0.0, 0.0, 0.0, 1.0]), np.array([np.nan, -1.0, -2.0, -1.0])
    with np.errstate(all="ignore"):
        assert_close(sp.xlog1py(torch.tensor(a), torch.tensor(b)), sp.xlog1py(a, b))


def test_log_ndtr_accurate_far_in_the_tail():
    x = np.array([-1e3, -200.0, -60.0, -38.5, -20.0001, -19.9999, -10.0, -5.0])
    assert_close(sp.log_ndtr(torch.tensor(x)), sp.log_ndtr(x), rtol=1e-14)
    # d/dx log ndtr(x) = pdf(x) / ndtr(x) (this reference loses ~1e-11 to
    # cancellation at x = -1000, where both logs are near -5e5)
    t = leaf(x)
    sp.log_ndtr(t).sum().backward()
    expect = np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - sp.log_ndtr(x))
    assert_close(t.grad, expect, rtol=1e-10)
    # and the Mills-ratio expansion -x (1 + 1/x^2 - 2/x^4) at x = -1000
    assert abs(float(t.grad[0]) - 1000 * (1 + 1e-6 - 2e-12)) < 1e-9


def test_scipy_special_grad_of_unused_branches_is_finite():
    # the branches of log_ndtr / xlog1py that are not taken must not leak
    # inf * 0 = NaN into the gradient
    x = leaf([-1e3, 0.0, 1e3])
    sp.log_ndtr(x).sum().backward()
    assert np.isfinite(x.grad.cpu().numpy()).all()
    a, b = leaf([0.0, 2.0]), leaf([-1.0, 1.0])
    sp.xlog1py(a, b).sum().backward()
    assert np.isfinite(a.grad.cpu().numpy()[1]) and np.isfinite(b.grad.cpu().numpy()).all()


# ---- logsumexp / softmax / log_softmax -------------------------------------------------------------

def test_scipy_logsumexp_family_without_array_api_refuses_grad_tensors():
    # Without SCIPY_ARRAY_API, SciPy turns its input into an ndarray with
    # np.asarray, which a tensor that requires grad refuses (no silent copy).
    x = rand(2, 3)
    for fn in (sp.logsumexp, sp.softmax, sp.log_softmax):
        with pytest.raises(RuntimeError, match="requires grad"):
            fn(x, axis=1)


SCIPY_ARRAY_API_SCRIPT = r'''
import json, os, sys
os.environ["SCIPY_ARRAY_API"] = "1"
sys.path.insert(0, sys.argv[1])
import numpy as np
import scipy.special as sp
import torchlike as torch
from torchlike.autograd import gradcheck

rng = np.random.default_rng(0)
result = {}
cases = {
    "logsumexp": lambda x: sp.logsumexp(x, axis=1),
    "logsumexp_all": lambda x: sp.logsumexp(x),
    "softmax": lambda x: sp.softmax(x, axis=1),
    "log_softmax": lambda x: sp.log_softmax(x, axis=0),
}
for name, fn in cases.items():
    a = rng.standard_normal((3, 4))
    x = torch.tensor(a, requires_grad=True)
    try:
        out = fn(x)
        ok_type = isinstance(out, torch.Tensor) and out.requires_grad
        ref = fn(a)
        close = bool(np.allclose(out.detach().cpu().numpy(), ref, rtol=1e-12, atol=1e-14))
        grad_ok = bool(gradcheck(fn, (x,), raise_exception=False))
        result[name] = {"tensor": ok_type, "close": close, "grad": grad_ok}
    except Exception as e:
        result[name] = {"error": f"{type(e).__name__}: {e}"}
print(json.dumps(result))
'''


def test_scipy_logsumexp_family_with_array_api_is_differentiable():
    proc = subprocess.run([sys.executable, "-c", SCIPY_ARRAY_API_SCRIPT, ROOT],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, r in result.items():
        assert r == {"tensor": True, "close": True, "grad": True}, (name, r)


# ---- models written only with np.* ------------------------------------------------------------------

def softmax_cross_entropy(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * labels, axis=1))


def gaussian_log_likelihood(x, mu, log_sigma):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return np.sum(-0.5 * np.square(z) - log_sigma - 0.5 * np.log(2 * np.pi))


def polyfit_residual(coef, x, y):
    # Vandermonde design matrix, built with np.power and np.stack
    powers = np.stack([np.power(x, k) for k in range(coef.shape[0])], axis=1)
    r = np.dot(powers, coef) - y
    return np.dot(r, r)


def rbf_kernel(a, b, log_scale):
    d2 = np.sum(np.square(a[:, None, :] - b[None, :, :]), axis=-1)
    return np.exp(-0.5 * d2 / np.exp(2 * log_scale))


def mlp(x, w1, b1, w2, b2):
    h = np.tanh(np.dot(x, w1) + b1)
    out = np.dot(h, w2) + b2
    return np.mean(np.square(out))


ONE_HOT = np.eye(4)[[0, 2, 3]]


def test_numpy_softmax_cross_entropy():
    logits = rand(3, 4)
    labels = torch.tensor(ONE_HOT)
    loss = softmax_cross_entropy(logits, labels)
    assert isinstance(loss, torch.Tensor) and loss.requires_grad
    assert_close(loss.detach(), softmax_cross_entropy(logits.detach().cpu().numpy(), ONE_HOT))
    assert gradcheck(lambda l: softmax_cross_entropy(l, labels), (logits,))


def test_numpy_gaussian_log_likelihood():
    x = torch.tensor(np.random.default_rng(3).standard_normal(6))
    mu, log_sigma = rand(1, seed=1), rand(1, seed=2)
    ll = gaussian_log_likelihood(x, mu, log_sigma)
    assert_close(ll.detach(), gaussian_log_likelihood(x.cpu().numpy(), mu.detach().cpu().numpy(),
                                                      log_sigma.detach().cpu().numpy()))
    assert gradcheck(lambda m, s: gaussian_log_likelihood(x, m, s), (mu, log_sigma))
    # the maximum-likelihood mean makes the gradient in mu vanish
    m = torch.tensor([x.cpu().numpy().mean()], requires_grad=True)
    gaussian_log_likelihood(x, m, torch.zeros(1, dtype=torch.float64)).backward()
    assert abs(float(m.grad[0])) < 1e-12


def test_numpy_polynomial_fit_residual():
    x = torch.tensor(np.linspace(-1, 1, 8))
    y = torch.tensor(np.cos(np.linspace(-1, 1, 8)))
    coef = rand(3)
    r = polyfit_residual(coef, x, y)
    assert_close(r.detach(), polyfit_residual(coef.detach().cpu().numpy(), x.cpu().numpy(), y.cpu().numpy()))
    assert gradcheck(lambda c: polyfit_residual(c, x, y), (coef,))
    # at the least-squares solution the gradient is zero
    best = np.polynomial.polynomial.polyfit(x.cpu().numpy(), y.cpu().numpy(), 2)
    c = leaf(best)
    polyfit_residual(c, x, y).backward()
    assert np.abs(c.grad.cpu().numpy()).max() < 1e-12


@pytest.mark.host_only  # the points and weights left as ndarrays are host data
def test_polyfit_differentiates_in_its_points_and_weights():
    """np.polyfit ran NumPy's code, which writes ``lhs /= scale`` over the
    Vandermonde matrix ``lhs * lhs`` kept (x that requires grad failed in
    backward) and ``lhs *= w[:, None]`` into an ndarray (weights that
    require grad were refused); its steps are torchlike's now."""
    rng = np.random.default_rng(5)
    x, y, w = np.linspace(0, 1, 6) + 0.02 * rng.standard_normal(6), rng.standard_normal(6), \
        rng.random(6) + 0.5
    cases = [(lambda x: np.polyfit(x, y, 2), [x]),
             (lambda w: np.polyfit(x, y, 2, w=w), [w]),
             (lambda x, y, w: np.polyfit(x, np.stack([y, y ** 2], 1), 1, w=w, cov=True)[1],
              [x, y, w]),
             (lambda x, y: np.polyfit(x, y, 1, full=True)[1], [x, y])]
    for f, arrays in cases:
        got = f(*[leaf(a) for a in arrays])
        assert_close(got.detach(), f(*arrays))
        assert gradcheck(f, [leaf(a) for a in arrays])
    c, res, rank, sv, rcond = np.polyfit(leaf(x), leaf(y), 2, full=True)
    assert int(rank) == 3 and rcond == 6 * np.finfo(np.float64).eps
    with pytest.warns(np.exceptions.RankWarning, match="poorly conditioned"):
        np.polyfit(leaf([0.0, 0.0, 1.0]), leaf([1.0, 2.0, 3.0]), 2)
    with pytest.raises(TypeError, match="expected w and y to have the same length"):
        np.polyfit(leaf(x), leaf(y), 1, w=leaf(w[:3]))


def test_numpy_rbf_kernel():
    a, b = rand(4, 2), rand(3, 2, seed=1)
    log_scale = rand(1, seed=2)
    k = rbf_kernel(a, b, log_scale)
    assert tuple(k.shape) == (4, 3)
    assert_close(k.detach(), rbf_kernel(a.detach().cpu().numpy(), b.detach().cpu().numpy(),
                                        log_scale.detach().cpu().numpy()))
    assert gradcheck(rbf_kernel, (a, b, log_scale))


def test_numpy_mlp():
    x = torch.tensor(np.random.default_rng(5).standard_normal((5, 3)))
    w1, b1 = rand(3, 4, seed=1), rand(4, seed=2)
    w2, b2 = rand(4, 2, seed=3), rand(2, seed=4)
    loss = mlp(x, w1, b1, w2, b2)
    assert_close(loss.detach(), mlp(x.cpu().numpy(), *(p.detach().cpu().numpy() for p in (w1, b1, w2, b2))))
    assert gradcheck(lambda *p: mlp(x, *p), (w1, b1, w2, b2))
    loss.backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in (w1, b1, w2, b2))


def test_numpy_mlp_second_order():
    x = torch.tensor(np.random.default_rng(5).standard_normal((2, 3)))
    w1 = rand(3, 2, seed=1)
    w2 = rand(2, 1, seed=3)
    assert gradgradcheck(lambda a, b: mlp(x, a, 0.0, b, 0.0), (w1, w2))
