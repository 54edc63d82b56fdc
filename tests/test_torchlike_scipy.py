"""torchlike.scipy against SciPy itself: values (float64 and float32, batches,
broadcast loc/scale), gradients against finite differences (gradcheck, and
gradgradcheck where the function is smooth), and errors for bad arguments."""
import numpy as np
import pytest
import scipy  # noqa: F401  (a test dependency: make test installs it)
import scipy.integrate as si
import scipy.linalg as sl  # noqa: E402
import scipy.signal as ssig  # noqa: E402
import scipy.stats as ss  # noqa: E402

import torchlike as tl  # noqa: E402
import torchlike.numpy as tnp  # noqa: E402
from torchlike.autograd import gradcheck, gradgradcheck  # noqa: E402
from torchlike.scipy import integrate, linalg, signal, special, stats  # noqa: E402

RNG = np.random.default_rng(1234)


def T(a, grad=False, dtype=None):
    arr = np.array(a, dtype=dtype or np.float64, order="C")    # keeps 0-d arrays 0-d
    return tl.from_numpy(arr).requires_grad_(grad)


# ---------------------------------------------------------------- stats

# name -> (shape parameters, x values inside and outside the support)
CONTINUOUS = {
    "norm": ((), np.linspace(-4, 4, 9) + 0.05),
    "t": ((3.5,), np.linspace(-4, 4, 9) + 0.05),
    "gamma": ((2.5,), np.linspace(-1, 6, 9) + 0.05),
    "chi2": ((3.0,), np.linspace(-1, 8, 9) + 0.05),
    "beta": ((2.0, 3.5), np.linspace(-0.2, 1.2, 9) + 0.01),
    "logistic": ((), np.linspace(-6, 6, 9) + 0.05),
}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@pytest.mark.parametrize("method", METHODS)
def test_continuous_values_float64(name, method):
    shapes, x = CONTINUOUS[name]
    ref = getattr(getattr(ss, name), method)(x, *shapes, loc=0.3, scale=1.7)
    got = getattr(getattr(stats, name), method)(T(x), *shapes, loc=0.3, scale=1.7)
    assert got.dtype == tl.float64
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_float32_and_positional_loc_scale(name):
    shapes, x = CONTINUOUS[name]
    dist = getattr(stats, name)
    got = dist.logpdf(T(x, dtype=np.float32), *shapes, 0.3, 1.7)
    assert got.dtype == tl.float32
    ref = getattr(ss, name).logpdf(x, *shapes, 0.3, 1.7)
    np.testing.assert_allclose(got.numpy(), ref, rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["norm", "logistic", "gamma", "t"])
def test_continuous_broadcasts_loc_and_scale(name):
    shapes, _ = CONTINUOUS[name]
    x = RNG.uniform(0.5, 3.0, (4, 1, 3))
    loc = RNG.uniform(-0.2, 0.2, (5, 1))
    scale = RNG.uniform(0.5, 2.0, (3,))
    for method in ("logpdf", "cdf"):
        ref = getattr(getattr(ss, name), method)(x, *shapes, loc=loc, scale=scale)
        got = getattr(getattr(stats, name), method)(T(x), *shapes, loc=T(loc), scale=scale)
        assert tuple(got.shape) == ref.shape == (4, 5, 3)
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10)


def test_invalid_parameters_give_nan_as_scipy():
    for name, (shapes, x) in CONTINUOUS.items():
        got = getattr(stats, name).logpdf(T(x[:2]), *shapes, scale=-1.0).numpy()
        ref = getattr(ss, name).logpdf(x[:2], *shapes, scale=-1.0)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
        assert np.isnan(got).all()
    np.testing.assert_array_equal(stats.gamma.pdf(T([1.0]), -2.0).numpy(),
                                  ss.gamma.pdf([1.0], -2.0))


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@pytest.mark.parametrize("method", METHODS)
def test_continuous_gradcheck_x_loc_scale(name, method):
    shapes, x = CONTINUOUS[name]
    inside = {"beta": np.array([0.15, 0.4, 0.7]) * 1.2 + 0.1,
              "gamma": np.array([0.6, 1.5, 4.0]), "chi2": np.array([0.6, 1.5, 4.0])}
    xs = inside.get(name, np.array([-1.3, 0.4, 2.1]))
    fn = getattr(getattr(stats, name), method)
    args = (T(xs, True), T(0.1, True), T(1.2, True))
    assert gradcheck(lambda a, loc, sc: fn(a, *shapes, loc=loc, scale=sc), args)
    if method in ("logpdf", "pdf") or name in ("norm", "logistic"):
        assert gradgradcheck(lambda a, loc, sc: fn(a, *shapes, loc=loc, scale=sc), args)


@pytest.mark.parametrize("name", ["t", "gamma", "chi2", "beta"])
def test_shape_parameter_gradients_of_densities(name):
    shapes, _ = CONTINUOUS[name]
    xs = {"beta": [0.2, 0.5, 0.8], "t": [-1.0, 0.5, 2.0]}.get(name, [0.5, 1.5, 3.0])
    params = tuple(T(s, True) for s in shapes)
    fn = getattr(stats, name).logpdf
    assert gradcheck(lambda *p: fn(T(xs), *p), params)
    assert gradgradcheck(lambda *p: fn(T(xs), *p), params)


def test_t_cdf_gradient_at_its_centre():
    # at x == loc betainc's argument is 1, where its slope is infinite
    x = T([0.0, 0.7, -1.5], True)
    stats.t.cdf(x, 3.0, loc=0.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ss.t.pdf([0.0, 0.7, -1.5], 3.0), rtol=1e-12)
    assert gradgradcheck(lambda v: stats.t.cdf(v, 3.0), (T([0.0, 0.7], True),))


def test_cdf_shape_parameter_gradient_says_not_implemented():
    a = T(2.5, True)
    with pytest.raises(NotImplementedError, match="'a'"):
        stats.gamma.cdf(T([1.0, 2.0]), a).sum().backward()


def test_norm_ppf_inverts_cdf():
    q = np.array([0.01, 0.3, 0.5, 0.97])
    np.testing.assert_allclose(stats.norm.ppf(T(q), loc=1.0, scale=2.0).numpy(),
                               ss.norm.ppf(q, loc=1.0, scale=2.0), rtol=1e-12)


def test_stats_argument_errors():
    with pytest.raises(TypeError, match="shape parameter"):
        stats.gamma.logpdf(T([1.0]))
    with pytest.raises(TypeError, match="unexpected keyword"):
        stats.norm.logpdf(T([1.0]), mu=1.0)
    with pytest.raises(TypeError, match="positional"):
        stats.norm.logpdf(T([1.0]), 0.0, 1.0, 2.0)


@pytest.mark.parametrize("method", ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"])
def test_poisson_values_and_mu_gradient(method):
    k = np.array([-1.0, 0.0, 1.0, 2.5, 3.0, 7.0])
    mu = np.array([0.5, 1.0, 2.0, 3.0, 2.5, 4.0])
    ref = getattr(ss.poisson, method)(k, mu, loc=0)
    got = getattr(stats.poisson, method)(T(k), T(mu))
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-300)
    shifted = getattr(stats.poisson, method)(T(k), 2.0, loc=1)
    np.testing.assert_allclose(shifted.numpy(), getattr(ss.poisson, method)(k, 2.0, loc=1),
                               rtol=1e-10, atol=1e-300)
    kk = T([0.0, 1.0, 3.0])
    assert gradcheck(lambda m: getattr(stats.poisson, method)(kk, m), (T([0.7, 2.0, 3.5], True),))


def test_multivariate_normal_values_batches_and_gradients():
    d = 3
    A = RNG.standard_normal((d, d))
    cov = A @ A.T + d * np.eye(d)
    mean = RNG.standard_normal(d)
    x = RNG.standard_normal((2, 4, d))
    for c in (cov, np.diag(cov), 2.0):
        np.testing.assert_allclose(stats.multivariate_normal.logpdf(T(x), mean, c).numpy(),
                                   ss.multivariate_normal.logpdf(x, mean, c), rtol=1e-12)
    np.testing.assert_allclose(stats.multivariate_normal.pdf(T(x[0, 0]), T(mean), T(cov)).item(),
                               ss.multivariate_normal.pdf(x[0, 0], mean, cov), rtol=1e-12)
    # one-dimensional distribution: a vector x is a list of points
    np.testing.assert_allclose(stats.multivariate_normal.logpdf(T([0.1, 0.5]), 0.2, 2.0).numpy(),
                               ss.multivariate_normal.logpdf([0.1, 0.5], 0.2, 2.0))
    np.testing.assert_allclose(stats.multivariate_normal.entropy(mean, cov).item(),
                               ss.multivariate_normal.entropy(mean, cov), rtol=1e-12)
    args = (T(x[0], True), T(mean, True), T(cov, True))
    fn = stats.multivariate_normal.logpdf
    assert gradcheck(lambda a, m, c: fn(a, m, c @ c.mT), args)
    assert gradgradcheck(lambda a, m, c: fn(a, m, c @ c.mT), args)
    with pytest.raises(ValueError, match=r"last axis 2"):
        fn(T(np.zeros((4, 2))), mean, cov)
    with pytest.raises(ValueError, match=r"do not agree"):
        fn(T(np.zeros(3)), np.zeros(3), np.eye(2))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        fn(T(np.zeros(3)), np.zeros(3), np.eye(3), allow_singular=True)


def test_dirichlet_values_gradients_and_errors():
    alpha = np.array([1.5, 2.0, 3.0])
    x = np.array([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])
    for xx in (x, x[:2], x[:, 0]):
        np.testing.assert_allclose(stats.dirichlet.logpdf(T(xx), alpha).numpy(),
                                   ss.dirichlet.logpdf(xx, alpha), rtol=1e-12)
    np.testing.assert_allclose(stats.dirichlet.pdf(T(x), T(alpha)).numpy(),
                               ss.dirichlet.pdf(x, alpha), rtol=1e-12)
    assert gradcheck(lambda a, xx: stats.dirichlet.logpdf(xx, a),
                     (T(alpha, True), T(x[:2], True)))
    assert gradgradcheck(lambda a: stats.dirichlet.logpdf(T(x), a), (T(alpha, True),))
    with pytest.raises(ValueError, match="first axis"):
        stats.dirichlet.logpdf(T(np.full((5,), 0.2)), alpha)
    with pytest.raises(ValueError, match="positive"):
        stats.dirichlet.logpdf(T(x), [1.0, -1.0, 2.0])
    with pytest.raises(ValueError, match="sum to 1"):
        stats.dirichlet.logpdf(T([0.5, 0.5, 0.5]), alpha)


# ---------------------------------------------------------------- linalg

def _spd(n):
    a = RNG.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 30.0])
def test_expm_matches_scipy(scale):
    a = RNG.standard_normal((5, 5)) * scale
    ref = sl.expm(a)
    np.testing.assert_allclose(linalg.expm(T(a)).numpy(), ref, rtol=1e-11,
                               atol=1e-13 * np.abs(ref).max())


def test_expm_batch_float32_empty_and_gradients():
    a = RNG.standard_normal((2, 3, 3))
    np.testing.assert_allclose(linalg.expm(T(a)).numpy(), sl.expm(a), rtol=1e-12)
    np.testing.assert_allclose(linalg.expm(T(a[0], dtype=np.float32)).numpy(), sl.expm(a[0]),
                               rtol=1e-5)
    assert tuple(linalg.expm(T(np.zeros((0, 0)))).shape) == (0, 0)
    x = T(a[0], True)
    assert gradcheck(linalg.expm, (x,))
    assert gradgradcheck(linalg.expm, (x,))
    assert gradcheck(linalg.expm, (T(a[0] * 8, True),))      # squarings on the tape
    with pytest.raises(ValueError, match=r"square.*\(2, 3\)"):
        linalg.expm(T(np.zeros((2, 3))))


def test_sqrtm_values_and_gradients():
    s = _spd(4)
    np.testing.assert_allclose(linalg.sqrtm(T(s)).numpy(), sl.sqrtm(s), rtol=1e-12)
    g = RNG.standard_normal((3, 3)) + 3 * np.eye(3)       # not symmetric
    np.testing.assert_allclose(linalg.sqrtm(T(g)).numpy(), sl.sqrtm(g), rtol=1e-11)
    assert gradcheck(linalg.sqrtm, (T(g, True),))
    assert gradgradcheck(linalg.sqrtm, (T(_spd(3), True),))
    with pytest.raises(ValueError, match="negative real eigenvalue"):
        linalg.sqrtm(T(np.diag([1.0, -4.0])))


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_scipy(trans, lower, unit):
    a = RNG.standard_normal((4, 4)) + 4 * np.eye(4)
    for b in (RNG.standard_normal(4), RNG.standard_normal((4, 2))):
        ref = sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
        got = linalg.solve_triangular(T(a), T(b), trans=trans, lower=lower, unit_diagonal=unit)
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)


def test_solve_triangular_gradients_and_errors():
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    fn = lambda x, y: linalg.solve_triangular(x, y, trans="T", lower=True)  # noqa: E731
    assert gradcheck(fn, (T(a, True), T(b, True)))
    assert gradgradcheck(fn, (T(a, True), T(b, True)))
    with pytest.raises(ValueError, match="trans"):
        linalg.solve_triangular(T(a), T(b), trans=3)
    with pytest.raises(ValueError, match="incompatible"):
        linalg.solve_triangular(T(a), T(np.ones(4)))


@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor_cho_solve(lower):
    s = _spd(4)
    b = RNG.standard_normal((4, 3))
    c, low = linalg.cho_factor(T(s), lower=lower)
    ref_c, ref_low = sl.cho_factor(s, lower=lower)
    assert low == ref_low
    tri = np.tril if lower else np.triu
    np.testing.assert_allclose(c.numpy(), tri(ref_c), rtol=1e-12)
    np.testing.assert_allclose(linalg.cho_solve((c, low), T(b)).numpy(),
                               sl.cho_solve((ref_c, ref_low), b), rtol=1e-12)
    fn = lambda m, y: linalg.cho_solve(linalg.cho_factor(m @ m.mT, lower=lower), y)  # noqa: E731
    assert gradcheck(fn, (T(_spd(3), True), T(b[:3], True)))
    assert gradgradcheck(fn, (T(_spd(3), True), T(b[:3, :1], True)))
    with pytest.raises(TypeError, match="pair"):
        linalg.cho_solve(c, T(b))


@pytest.mark.parametrize("shape", [(4, 4), (4, 3), (3, 5), (2, 3, 3)])
def test_lu_matches_scipy(shape):
    a = RNG.standard_normal(shape)
    for kw in ({}, {"permute_l": True}, {"p_indices": True}):
        got = linalg.lu(T(a), **kw)
        ref = sl.lu(a, **kw)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g.numpy(), r, rtol=1e-12, atol=1e-14)
    p, l, u = linalg.lu(T(a), p_indices=True)
    if len(shape) == 2:
        np.testing.assert_allclose((l[p] @ u).numpy(), a, rtol=1e-12, atol=1e-14)
    assert gradcheck(lambda x: linalg.lu(x, permute_l=True)[1], (T(a, True),))
    assert gradcheck(lambda x: linalg.lu(x)[1], (T(a, True),))


def test_solve_sylvester():
    a = RNG.standard_normal((3, 3))
    b = RNG.standard_normal((2, 2))
    q = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(linalg.solve_sylvester(T(a), T(b), T(q)).numpy(),
                               sl.solve_sylvester(a, b, q), rtol=1e-11)
    args = (T(a, True), T(b, True), T(q, True))
    assert gradcheck(linalg.solve_sylvester, args)
    assert gradgradcheck(linalg.solve_sylvester, args)
    with pytest.raises(ValueError, match=r"q must have shape \(3, 2\)"):
        linalg.solve_sylvester(T(a), T(b), T(q.T))


@pytest.mark.parametrize("lu_", [(1, 1), (0, 2), (2, 0), (1, 2)])
def test_solve_banded(lu_):
    n = 5
    ab = RNG.standard_normal((sum(lu_) + 1, n))
    ab[lu_[1]] += 4                              # a dominant main diagonal
    for b in (RNG.standard_normal(n), RNG.standard_normal((n, 2))):
        np.testing.assert_allclose(linalg.solve_banded(lu_, T(ab), T(b)).numpy(),
                                   sl.solve_banded(lu_, ab, b), rtol=1e-12)
    args = (T(ab, True), T(b, True))
    assert gradcheck(lambda x, y: linalg.solve_banded(lu_, x, y), args)
    assert gradgradcheck(lambda x, y: linalg.solve_banded(lu_, x, y), args)
    with pytest.raises(ValueError, match="l \\+ u \\+ 1"):
        linalg.solve_banded((2, 2), T(ab), T(b))
    with pytest.raises(ValueError, match="rows"):
        linalg.solve_banded(lu_, T(ab), T(np.ones(n + 1)))


# ---------------------------------------------------------------- signal

SHAPES = [((9,), (4,)), ((4,), (9,)), ((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 3, 5), (2, 2, 3))]


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("func", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
def test_convolve_correlate_match_scipy(shapes, func, mode, method):
    a, b = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    ref = getattr(ssig, func)(a, b, mode=mode, method=method)
    got = getattr(signal, func)(T(a), T(b), mode=mode, method=method)
    assert tuple(got.shape) == ref.shape
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)


def test_convolve_complex_float32_and_gradients():
    a = RNG.standard_normal(6) + 1j * RNG.standard_normal(6)
    b = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    for method in ("direct", "fft"):
        np.testing.assert_allclose(signal.correlate(T(a, dtype=complex), T(b, dtype=complex),
                                                    method=method).numpy(),
                                   ssig.correlate(a, b, method=method), rtol=1e-12)
    x = RNG.standard_normal(7)
    h = RNG.standard_normal(3)
    got = signal.convolve(T(x, dtype=np.float32), T(h, dtype=np.float32))
    assert got.dtype == tl.float32
    np.testing.assert_allclose(got.numpy(), ssig.convolve(x, h), rtol=1e-5, atol=1e-6)
    for method in ("direct", "fft"):
        for mode in ("full", "valid", "same"):
            fn = lambda p, q: signal.convolve(p, q, mode, method)  # noqa: E731
            assert gradcheck(fn, (T(x, True), T(h, True)))
            assert gradgradcheck(fn, (T(x, True), T(h, True)))


@pytest.mark.parametrize("func", ["convolve2d", "correlate2d"])
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
def test_convolve2d_correlate2d_match_scipy(func, mode, boundary):
    for sa, sb in [((5, 6), (2, 3)), ((4, 4), (3, 3)), ((2, 3), (4, 5))]:
        a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
        ref = getattr(ssig, func)(a, b, mode, boundary, 1.5)
        got = getattr(signal, func)(T(a), T(b), mode, boundary, 1.5)
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)
    fn = lambda p, q: getattr(signal, func)(p, q, mode, boundary, 0.5)  # noqa: E731
    args = (T(RNG.standard_normal((4, 5)), True), T(RNG.standard_normal((2, 3)), True))
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_signal_argument_errors():
    a, b = T(np.ones((3, 2))), T(np.ones((2, 3)))
    with pytest.raises(ValueError, match="at least as large"):
        signal.convolve(a, b, mode="valid")
    with pytest.raises(ValueError, match="mode"):
        signal.convolve(a, b, mode="middle")
    with pytest.raises(ValueError, match="method"):
        signal.correlate(a, b, method="winograd")
    with pytest.raises(ValueError, match="dimensionality"):
        signal.convolve(a, T(np.ones(3)))
    with pytest.raises(ValueError, match="boundary"):
        signal.convolve2d(a, b, boundary="reflect")
    with pytest.raises(ValueError, match="2-D"):
        signal.correlate2d(T(np.ones(3)), T(np.ones(2)))


# ---------------------------------------------------------------- integrate

def _decay(y, t, k, c):
    return -k * y + c * tnp.sin(t) * y[::-1]


def test_odeint_values_match_scipy():
    y0 = np.array([1.0, 0.5])
    t = np.linspace(0.0, 2.0, 6)
    ref = si.odeint(lambda y, tt: -0.7 * y + 0.3 * np.sin(tt) * y[::-1], y0, t)
    got = integrate.odeint(_decay, T(y0), T(t), args=(T(0.7), 0.3))
    assert tuple(got.shape) == (6, 2)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6, atol=1e-8)
    # a scalar y0, the tfirst spelling, float32 kept
    g = integrate.odeint(lambda t_, y: -y, T(1.0, dtype=np.float32), T(t, dtype=np.float32),
                         tfirst=True)
    assert g.dtype == tl.float32 and tuple(g.shape) == (6, 1)
    np.testing.assert_allclose(g.numpy()[:, 0], np.exp(-t), rtol=1e-5)


def test_odeint_adjoint_gradient():
    y0 = T([1.0, 0.5], True)
    t = T(np.linspace(0.0, 1.5, 4), True)
    k = T(0.7, True)
    c = T([0.3, 0.2], True)
    assert gradcheck(lambda y, tt, kk, cc: integrate.odeint(_decay, y, tt, (kk, cc), rtol=1e-10,
                                                             atol=1e-10),
                     (y0, t, k, c), atol=1e-5, rtol=1e-4)


def test_odeint_errors():
    with pytest.raises(TypeError, match="full_output"):
        integrate.odeint(_decay, T([1.0]), T([0.0, 1.0]), full_output=True)
    with pytest.raises(ValueError, match="y0"):
        integrate.odeint(_decay, T(np.ones((2, 2))), T([0.0, 1.0]))
    with pytest.raises(ValueError, match="vector of times"):
        integrate.odeint(_decay, T([1.0]), T(1.0))


# ---------------------------------------------------------------- special

def test_special_is_the_numpy_special_namespace():
    for name in ("expit", "logsumexp", "gammainc", "betainc", "jv", "erfcx", "psi", "softmax"):
        assert getattr(special, name) is getattr(tnp.special, name)
    x = T([0.3, 1.2], True)
    assert gradcheck(lambda v: special.logsumexp(v, b=T([1.0, 2.0])), (x,))


# ---------------------------------------------------------------- complex inputs

def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _complex_gradcheck(fn, *zs):
    """gradcheck of fn over complex inputs, as real and imaginary parts (gradcheck
    takes real inputs) with the output's real and imaginary parts stacked."""
    parts = [T(p, True) for z in zs for p in (z.real, z.imag)]

    def real_fn(*ps):
        out = fn(*[ps[2 * i] + 1j * ps[2 * i + 1] for i in range(len(zs))])
        return tl.stack([out.real, out.imag])
    return gradcheck(real_fn, parts)


def test_linalg_complex_values_and_gradients():
    a, b = _complex((3, 3)), _complex((3, 2))
    spd = a @ a.conj().T + 3 * np.eye(3)
    Tc = lambda z: T(z, dtype=complex)  # noqa: E731
    np.testing.assert_allclose(linalg.expm(Tc(a)).numpy(), sl.expm(a), rtol=1e-12)
    np.testing.assert_allclose(linalg.sqrtm(Tc(a)).numpy(), sl.sqrtm(a), rtol=1e-11)
    np.testing.assert_allclose(linalg.solve_triangular(Tc(a), Tc(b), trans=2, lower=True).numpy(),
                               sl.solve_triangular(a, b, trans=2, lower=True), rtol=1e-12)
    np.testing.assert_allclose(linalg.cho_solve(linalg.cho_factor(Tc(spd)), Tc(b)).numpy(),
                               sl.cho_solve(sl.cho_factor(spd), b), rtol=1e-12)
    np.testing.assert_allclose(linalg.solve_sylvester(Tc(a), Tc(a[:2, :2]), Tc(b)).numpy(),
                               sl.solve_sylvester(a, a[:2, :2], b), rtol=1e-11)
    for g, r in zip(linalg.lu(Tc(a)), sl.lu(a)):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(linalg.solve_banded((1, 1), Tc(a), Tc(b)).numpy(),
                               sl.solve_banded((1, 1), a, b), rtol=1e-12)
    assert _complex_gradcheck(linalg.expm, a)
    assert _complex_gradcheck(linalg.sqrtm, spd)
    assert _complex_gradcheck(lambda x, y: linalg.solve_triangular(x, y, trans=2), a, b)
    assert _complex_gradcheck(lambda x, y: linalg.cho_solve(
        linalg.cho_factor(x @ x.mT.conj(), lower=True), y), spd, b)
    assert _complex_gradcheck(linalg.solve_sylvester, a, a[:2, :2], b)
    assert _complex_gradcheck(lambda x: linalg.lu(x)[2], a)
    assert _complex_gradcheck(lambda x, y: linalg.solve_banded((1, 1), x, y), a, b)


def test_signal_complex_gradients():
    x, h = _complex(6), _complex(3)
    for method in ("direct", "fft"):
        assert _complex_gradcheck(lambda p, q: signal.convolve(p, q, "same", method), x, h)
        assert _complex_gradcheck(lambda p, q: signal.correlate(p, q, "valid", method), x, h)
    assert _complex_gradcheck(lambda p, q: signal.correlate2d(p, q, "same", "wrap"),
                              x.reshape(2, 3), h.reshape(1, 3))
    np.testing.assert_allclose(
        signal.convolve2d(T(x.reshape(2, 3), dtype=complex), T(h.reshape(1, 3), dtype=complex),
                          "full", "symm").numpy(),
        ssig.convolve2d(x.reshape(2, 3), h.reshape(1, 3), "full", "symm"), rtol=1e-12)


# ---------------------------------------------------------------- another device

DEVICE_SCRIPT = r'''
import json
import numpy as np
import torchlike as T
from torchlike import _C as C
C._fake_enable()
C._dispatch_lend_cpu_kernels("fake", True)
from torchlike.scipy import integrate, linalg, signal, stats

def run(fn, dev):
    x = T.from_numpy(np.array([0.3, 0.55, 0.7, 0.45])).to(dev).requires_grad_(True)
    out = fn(x, dev)
    out.sum().backward()
    return out, x.grad

def vec(v, dev):
    return T.tensor(v, dtype=T.float64).to(dev)

def spd(x, dev):
    m = x.reshape(2, 2)
    return m @ m.mT + T.eye(2, dtype=T.float64).to(dev)

CASES = {
    "stats.norm.logcdf": lambda x, d: stats.norm.logcdf(x, loc=0.1, scale=2.0),
    "stats.logistic.logsf": lambda x, d: stats.logistic.logsf(x, 0.2, 1.5),
    "stats.t.logpdf": lambda x, d: stats.t.logpdf(x, 3.0, scale=vec([1.0, 2.0, 1.5, 1.0], d)),
    "stats.gamma.logpdf": lambda x, d: stats.gamma.logpdf(x, 2.0),
    "stats.beta.logpdf": lambda x, d: stats.beta.logpdf(x, 2.0, 3.0),
    "stats.poisson.logpmf": lambda x, d: stats.poisson.logpmf(vec([1.0, 2.0, 0.0, 3.0], d), x),
    "stats.multivariate_normal.logpdf": lambda x, d: stats.multivariate_normal.logpdf(
        x, x * 0.5, np.eye(4)),
    "stats.dirichlet.logpdf": lambda x, d: stats.dirichlet.logpdf(
        vec([0.2, 0.3, 0.1, 0.4], d), x + 1),
    "linalg.expm": lambda x, d: linalg.expm(x.reshape(2, 2)),
    "linalg.sqrtm": lambda x, d: linalg.sqrtm(spd(x, d)),
    "linalg.solve_triangular": lambda x, d: linalg.solve_triangular(
        x.reshape(2, 2) + 3, x[:2], lower=True),
    "linalg.cho_solve": lambda x, d: linalg.cho_solve(linalg.cho_factor(spd(x, d)), x[:2]),
    "linalg.lu": lambda x, d: linalg.lu(x.reshape(2, 2))[2],
    "linalg.solve_sylvester": lambda x, d: linalg.solve_sylvester(
        x.reshape(2, 2) + 3, x.reshape(2, 2) + 2, x.reshape(2, 2)),
    "linalg.solve_banded": lambda x, d: linalg.solve_banded((1, 0), x.reshape(2, 2) + 3, x[:2]),
    "signal.convolve": lambda x, d: signal.convolve(x, x[:2], method="direct"),
    "signal.convolve2d": lambda x, d: signal.convolve2d(x.reshape(2, 2), x.reshape(2, 2),
                                                       "same", "symm"),
    "signal.correlate2d": lambda x, d: signal.correlate2d(x.reshape(2, 2), x.reshape(2, 2),
                                                         "full", "wrap"),
    "integrate.odeint": lambda x, d: integrate.odeint(lambda y, t, k: -k * y, x[:2],
                                                      vec([0.0, 1.0], d), (x[2],)),
}
report = {}
for name, fn in CASES.items():
    try:
        out, grad = run(fn, "fake")
        ref, ref_grad = run(fn, "cpu")
        report[name] = {
            "device": [str(out.device), str(grad.device)],
            "close": bool(np.allclose(out.cpu().detach().numpy(), ref.detach().numpy(),
                                      rtol=1e-12)
                          and np.allclose(grad.cpu().numpy(), ref_grad.numpy(), rtol=1e-10)),
        }
    except Exception as e:  # reported; the test names the function
        report[name] = {"error": f"{type(e).__name__}: {e}"}
print(json.dumps(report))
'''
DEVICE_CASES = ["stats.norm.logcdf", "stats.logistic.logsf", "stats.t.logpdf",
                "stats.gamma.logpdf", "stats.beta.logpdf", "stats.poisson.logpmf",
                "stats.multivariate_normal.logpdf", "stats.dirichlet.logpdf", "linalg.expm",
                "linalg.sqrtm", "linalg.solve_triangular", "linalg.cho_solve", "linalg.lu",
                "linalg.solve_sylvester", "linalg.solve_banded", "signal.convolve",
                "signal.convolve2d", "signal.correlate2d", "integrate.odeint"]


@pytest.fixture(scope="module")
def device_report():
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", DEVICE_SCRIPT], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=root), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", DEVICE_CASES)
def test_runs_and_differentiates_on_another_device(device_report, name):
    # the fake device (host memory behind its own device type, lent the CPU's
    # kernels): results and gradients stay on the input's device, values as on CPU
    r = device_report[name]
    assert "error" not in r, r.get("error")
    assert r["device"] == ["fake:0", "fake:0"]
    assert r["close"]
