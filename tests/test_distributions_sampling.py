"""torchlike.distributions: sample shapes and moments (fixed seeds, bounds of
several standard errors), gradients of log_prob and rsample (finite
differences, implicit reparameterisation checked against SciPy's inverse
CDF), argument validation with PyTorch's wording, expand and lazy
parameters."""
import math

import numpy as np
import pytest
import scipy.special
import scipy.stats

import torchlike
import torchlike.distributions as D
from torchlike.autograd import gradcheck

f64 = torchlike.float64


def t64(x):
    return torchlike.tensor(x, dtype=f64)


def host(x):
    """x as an ndarray, a tensor read through the host (it may be on a device)."""
    return np.asarray(x.cpu() if isinstance(x, torchlike.Tensor) else x)


def families():
    """(name, distribution) pairs with float64 parameters and batch shape (2,)."""
    return [
        ("normal", D.Normal(t64([0.5, -1.0]), t64([1.0, 2.0]))),
        ("laplace", D.Laplace(t64([0.5, -1.0]), t64([1.0, 0.5]))),
        ("exponential", D.Exponential(t64([0.5, 3.0]))),
        ("uniform", D.Uniform(t64([0.0, -2.0]), t64([1.0, 3.0]))),
        ("bernoulli", D.Bernoulli(t64([0.2, 0.7]))),
        ("poisson", D.Poisson(t64([0.7, 6.0]))),
        ("binomial", D.Binomial(t64([5.0, 60.0]), t64([0.3, 0.6]))),
        ("gamma", D.Gamma(t64([0.4, 7.0]), t64([2.0, 0.5]))),
        ("beta", D.Beta(t64([0.5, 4.0]), t64([2.0, 1.5]))),
        ("lognormal", D.LogNormal(t64([0.0, 0.3]), t64([0.5, 0.25]))),
        ("categorical", D.Categorical(t64([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))),
        ("onehot", D.OneHotCategorical(t64([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))),
        ("dirichlet", D.Dirichlet(t64([[0.5, 1.0, 2.0], [3.0, 3.0, 0.7]]))),
        ("mvn", D.MultivariateNormal(t64([[0.0, 1.0], [2.0, -1.0]]),
                                     scale_tril=t64([[1.0, 0.0], [0.5, 0.7]]))),
        ("independent", D.Independent(D.Normal(t64([[0.0, 1.0], [2.0, -1.0]]),
                                               t64([[1.0, 0.5], [2.0, 0.3]])), 1)),
    ]


@pytest.mark.parametrize("name,dist", families(), ids=[n for n, _ in families()])
@pytest.mark.parametrize("sample_shape", [(), (3,), (2, 4)])
def test_sample_shape_dtype_and_support(name, dist, sample_shape):
    torchlike.manual_seed(0)
    s = dist.sample(sample_shape)
    assert tuple(s.shape) == tuple(sample_shape) + tuple(dist.batch_shape) + tuple(dist.event_shape)
    if name == "categorical":
        assert s.dtype == torchlike.int64
    else:
        assert s.dtype == f64
    assert bool(dist.support.check(s).all())
    assert not s.requires_grad
    lp = dist.log_prob(s)
    assert tuple(lp.shape) == tuple(sample_shape) + tuple(dist.batch_shape)
    assert bool(torchlike.isfinite(lp).all())


@pytest.mark.parametrize("name,dist", families(), ids=[n for n, _ in families()])
def test_sample_moments(name, dist):
    """Sample mean and variance within 5 standard errors of the exact ones."""
    torchlike.manual_seed(1)
    n = 40000
    s = host(dist.sample((n,)).to(f64))
    if name == "categorical":
        probs = host(dist.probs)
        freq = np.stack([(s == k).mean(0) for k in range(3)], -1)
        se = np.sqrt(probs * (1 - probs) / n)
        assert np.all(np.abs(freq - probs) < 5 * se + 1e-12)
        return
    mean = host(dist.mean)
    var = host(dist.variance)
    se_mean = np.sqrt(var / n)
    assert np.all(np.abs(s.mean(0) - mean) < 5 * se_mean), (s.mean(0), mean)
    # variance of the sample variance: (mu4 - var^2) / n, mu4 estimated from the sample
    mu4 = ((s - s.mean(0)) ** 4).mean(0)
    se_var = np.sqrt(np.maximum(mu4 - var ** 2, 0) / n)
    assert np.all(np.abs(s.var(0) - var) < 5 * se_var + 1e-12), (s.var(0), var)


@pytest.mark.parametrize("alpha", [0.05, 0.4, 1.0, 3.5, 80.0])
def test_gamma_sampler_matches_the_gamma_distribution(alpha):
    torchlike.manual_seed(2)
    s = host(D.Gamma(t64([alpha]), t64([1.0])).sample((20000,))).ravel()
    assert scipy.stats.kstest(s, scipy.stats.gamma(alpha).cdf).pvalue > 1e-3


def test_float32_gamma_and_beta_samples_stay_float32_and_positive():
    torchlike.manual_seed(3)
    g = D.Gamma(torchlike.tensor([0.01, 2.0]), torchlike.tensor([1.0, 1.0])).sample((1000,))
    assert g.dtype == torchlike.float32 and bool((g > 0).all())
    b = D.Beta(torchlike.tensor([0.02]), torchlike.tensor([0.02])).sample((1000,))
    assert b.dtype == torchlike.float32 and bool(((b > 0) & (b < 1)).all())


# ---- gradients ---------------------------------------------------------------

def _log_prob_fn(make, value):
    return lambda *params: make(*params).log_prob(value)


LOG_PROB_GRAD_CASES = [
    ("normal", lambda l, s: D.Normal(l, s), [[0.3, -1.0], [1.2, 0.7]], [0.1, 0.5]),
    ("laplace", lambda l, s: D.Laplace(l, s), [[0.3, -1.0], [1.2, 0.7]], [0.1, 0.5]),
    ("exponential", lambda r: D.Exponential(r), [[0.3, 2.0]], [0.1, 0.5]),
    ("gamma", lambda c, r: D.Gamma(c, r), [[0.7, 3.0], [1.2, 0.7]], [0.4, 2.5]),
    ("beta", lambda a, b: D.Beta(a, b), [[0.7, 3.0], [1.2, 0.7]], [0.4, 0.8]),
    ("bernoulli_logits", lambda l: D.Bernoulli(logits=l), [[0.3, -2.0]], [1.0, 0.0]),
    ("bernoulli_probs", lambda p: D.Bernoulli(probs=p), [[0.3, 0.8]], [1.0, 0.0]),
    ("poisson", lambda r: D.Poisson(r), [[0.3, 4.0]], [2.0, 3.0]),
    ("binomial", lambda p: D.Binomial(7, probs=p), [[0.3, 0.8]], [2.0, 6.0]),
    ("categorical", lambda l: D.Categorical(logits=l), [[[0.3, -1.0, 2.0], [0.1, 0.2, 0.3]]], [2, 0]),
    ("dirichlet", lambda c: D.Dirichlet(c), [[[0.7, 3.0, 1.5]]], [[0.2, 0.5, 0.3]]),
    ("lognormal", lambda l, s: D.LogNormal(l, s), [[0.3, -1.0], [1.2, 0.7]], [0.4, 2.5]),
    ("mvn_tril", lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril()),
     [[0.3, -1.0], [[1.2, 0.0], [0.4, 0.9]]], [[0.1, 0.5], [1.0, -2.0]]),
    ("mvn_cov", lambda m, C: D.MultivariateNormal(m, covariance_matrix=(C + C.mT) / 2),
     [[0.3, -1.0], [[2.0, 0.3], [0.3, 1.0]]], [[0.1, 0.5], [1.0, -2.0]]),
    ("mvn_prec", lambda m, P: D.MultivariateNormal(m, precision_matrix=(P + P.mT) / 2),
     [[0.3, -1.0], [[2.0, 0.3], [0.3, 1.0]]], [[0.1, 0.5], [1.0, -2.0]]),
]


@pytest.mark.parametrize("name,make,params,value", LOG_PROB_GRAD_CASES,
                         ids=[c[0] for c in LOG_PROB_GRAD_CASES])
def test_log_prob_gradcheck(name, make, params, value):
    params = tuple(t64(p).requires_grad_(True) for p in params)
    value = torchlike.tensor(value, dtype=torchlike.int64 if name == "categorical" else f64)
    assert gradcheck(lambda *ps: make(*ps).log_prob(value), params)
    if name not in ("poisson", "binomial", "categorical", "bernoulli_logits", "bernoulli_probs"):
        # and in the value, for the continuous families
        # (unvalidated: finite differences step off the simplex)
        v = value.clone().requires_grad_(True)
        d = make(*[p.detach() for p in params])
        d._validate_args = False
        assert gradcheck(d.log_prob, (v,))


def test_entropy_and_kl_gradcheck():
    a = t64([0.7, 3.0]).requires_grad_(True)
    b = t64([1.5, 0.4]).requires_grad_(True)
    assert gradcheck(lambda x, y: D.Gamma(x, y).entropy(), (a, b))
    assert gradcheck(lambda x, y: D.kl_divergence(D.Beta(x, y), D.Beta(y, x)), (a, b))
    assert gradcheck(lambda x, y: D.kl_divergence(D.Normal(x, y), D.Laplace(y, x)), (a, b))


@pytest.mark.parametrize("make,params", [
    (lambda l, s: D.Normal(l, s), [[0.3, -1.0], [1.2, 0.7]]),
    (lambda l, s: D.Laplace(l, s), [[0.3, -1.0], [1.2, 0.7]]),
    (lambda r: D.Exponential(r), [[0.3, 2.0]]),
    (lambda lo, hi: D.Uniform(lo, hi), [[0.3, -1.0], [1.2, 0.7]]),
    (lambda l, s: D.LogNormal(l, s), [[0.3, -1.0], [1.2, 0.7]]),
    (lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril()), [[0.3, -1.0], [[1.2, 0.0], [0.4, 0.9]]]),
], ids=["normal", "laplace", "exponential", "uniform", "lognormal", "mvn"])
def test_rsample_gradcheck_with_fixed_noise(make, params):
    """The location-scale rsamples are smooth in the parameters for fixed
    noise: reseeding before each call makes them deterministic."""
    params = tuple(t64(p).requires_grad_(True) for p in params)

    def fn(*ps):
        torchlike.manual_seed(7)
        return make(*ps).rsample((3,))
    assert gradcheck(fn, params)


def test_gamma_rsample_gradient_is_the_implicit_one():
    """dx/dalpha at fixed u = P(alpha, x), against SciPy's inverse CDF by
    central differences; the rate gradient is -x / rate."""
    torchlike.manual_seed(4)
    alpha = t64([0.2, 0.9, 2.5, 30.0, 3000.0]).requires_grad_(True)
    rate = t64([1.0, 2.0, 0.5, 1.5, 1.0]).requires_grad_(True)
    x = D.Gamma(alpha, rate).rsample()
    ga, gr = torchlike.autograd.grad(x.sum(), (alpha, rate))
    a, r, xv = host(alpha.detach()), host(rate.detach()), host(x.detach())
    u = scipy.special.gammainc(a, xv * r)
    h = 1e-6 * a
    fd = (scipy.special.gammaincinv(a + h, u) - scipy.special.gammaincinv(a - h, u)) / (2 * h) / r
    np.testing.assert_allclose(host(ga), fd, rtol=1e-5)
    np.testing.assert_allclose(host(gr), -xv / r, rtol=1e-12)


def test_reparameterised_gradients_are_unbiased():
    """d/dtheta E[x] from the average of rsample gradients: Gamma mean
    alpha / rate, Beta mean a / (a + b), Dirichlet mean c_i / sum(c)."""
    torchlike.manual_seed(5)
    n = 20000
    alpha = t64([0.5, 4.0]).requires_grad_(True)
    (g,) = torchlike.autograd.grad(D.Gamma(alpha, t64([1.0, 1.0])).rsample((n,)).mean(0).sum(), alpha)
    np.testing.assert_allclose(host(g), [1.0, 1.0], atol=0.05)
    a = t64([0.7, 3.0]).requires_grad_(True)
    b = t64([1.5, 2.0])
    (g,) = torchlike.autograd.grad(D.Beta(a, b).rsample((n,)).mean(0).sum(), a)
    expected = host(b) / (host(a.detach()) + host(b)) ** 2
    np.testing.assert_allclose(host(g), expected, rtol=0.08)
    c = t64([0.8, 2.0, 3.0]).requires_grad_(True)
    (g,) = torchlike.autograd.grad(D.Dirichlet(c).rsample((n,)).mean(0)[0], c)
    cv = host(c.detach())
    expected = -cv[0] / cv.sum() ** 2 * np.ones(3)
    expected[0] += 1 / cv.sum()
    np.testing.assert_allclose(host(g), expected, rtol=0.1, atol=0.005)


def test_sample_is_detached_and_rsample_is_not():
    loc = t64([0.0]).requires_grad_(True)
    d = D.Normal(loc, 1.0)
    assert not d.sample().requires_grad
    assert d.rsample().requires_grad
    assert D.Gamma(loc + 1, 1.0).rsample().requires_grad
    assert not D.Poisson(torchlike.tensor([1.0])).has_rsample
    with pytest.raises(NotImplementedError):
        D.Poisson(torchlike.tensor([1.0])).rsample()


# ---- validation ----------------------------------------------------------------

def test_invalid_parameter_error_wording():
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(2,\)\) of "
                                         r"distribution Normal\(loc: torchlike.Size\(\[2\]\), scale: "
                                         r"torchlike.Size\(\[2\]\)\) to satisfy the constraint "
                                         r"GreaterThan\(lower_bound=0.0\), but found invalid values"):
        D.Normal(torchlike.zeros(2), torchlike.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match=r"parameter probs .* constraint Interval\(lower_bound=0.0, "
                                         r"upper_bound=1.0\)"):
        D.Bernoulli(probs=torchlike.tensor([1.5]))
    with pytest.raises(ValueError, match="parameter concentration .* IndependentConstraint"):
        D.Dirichlet(torchlike.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="parameter scale_tril .* LowerCholesky"):
        D.MultivariateNormal(torchlike.zeros(2), scale_tril=torchlike.tensor([[1.0, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="parameter covariance_matrix .* PositiveDefinite"):
        D.MultivariateNormal(torchlike.zeros(2), covariance_matrix=torchlike.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="Uniform is not defined when low>= high"):
        D.Uniform(torchlike.tensor([1.0]), torchlike.tensor([0.5]))


def test_invalid_value_error_wording():
    with pytest.raises(ValueError, match=r"Expected value argument \(Tensor of shape \(2,\)\) to be "
                                         r"within the support \(GreaterThanEq\(lower_bound=0.0\)\) of "
                                         r"the distribution Exponential"):
        D.Exponential(torchlike.tensor([1.0, 2.0])).log_prob(torchlike.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Categorical(torchlike.tensor([0.5, 0.5])).log_prob(torchlike.tensor(2))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(0.5)
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        D.Dirichlet(torchlike.ones(3)).log_prob(torchlike.ones(2) / 2)
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
        D.Normal(torchlike.zeros(3), torchlike.ones(3)).log_prob(torchlike.zeros(4))


def test_validate_args_switches():
    d = D.Exponential(torchlike.tensor([1.0]), validate_args=False)
    assert float(d.log_prob(torchlike.tensor([-1.0]))) == 1.0  # unchecked: log(1) - 1 * (-1)
    D.Normal(0.0, -1.0, validate_args=False)  # no error
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
        assert float(D.Exponential(torchlike.tensor([1.0])).log_prob(torchlike.tensor([-2.0]))) == 2.0
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_constructor_errors():
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both"):
        D.Bernoulli(probs=torchlike.tensor([0.5]), logits=torchlike.tensor([0.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical()
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(torchlike.zeros(2))
    with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
        D.MultivariateNormal(torchlike.tensor(0.0), covariance_matrix=torchlike.eye(1))
    with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims <= len"):
        D.Independent(D.Normal(torchlike.zeros(2), torchlike.ones(2)), 2)


# ---- shapes, expand, lazy parameters -------------------------------------------

def test_expand_keeps_values_and_broadcasts():
    d = D.Normal(t64([0.0, 1.0]), t64([1.0, 2.0]))
    e = d.expand((3, 2))
    assert tuple(e.batch_shape) == (3, 2) and type(e) is D.Normal
    x = t64([[0.5, 0.1]] * 3)
    np.testing.assert_allclose(host(e.log_prob(x)), host(d.log_prob(x)))
    for dist in [D.Gamma(t64([1.0, 2.0]), t64([1.0, 1.0])), D.Beta(t64([1.0, 2.0]), t64([1.0, 1.0])),
                 D.Dirichlet(t64([[1.0, 2.0, 3.0]] * 2)), D.Categorical(logits=t64([[1.0, 2.0]] * 2)),
                 D.MultivariateNormal(t64([[0.0, 1.0]] * 2), covariance_matrix=torchlike.eye(2, dtype=f64)),
                 D.LogNormal(t64([0.0, 1.0]), 1.0), D.Bernoulli(logits=t64([0.0, 1.0])),
                 D.Binomial(3, t64([0.2, 0.4])), D.OneHotCategorical(t64([[0.3, 0.7]] * 2))]:
        e = dist.expand((4, 2))
        assert tuple(e.batch_shape) == (4, 2) and tuple(e.event_shape) == tuple(dist.event_shape)
        s = e.sample()
        assert tuple(s.shape) == (4, 2) + tuple(dist.event_shape)
        np.testing.assert_allclose(host(e.log_prob(s)[0]), host(dist.log_prob(s[0])))


def test_lazy_probs_and_logits():
    b = D.Bernoulli(probs=t64([0.25]))
    assert "logits" not in b.__dict__
    np.testing.assert_allclose(host(b.logits), [math.log(1 / 3)])
    assert "logits" in b.__dict__
    c = D.Categorical(logits=t64([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(host(c.probs), scipy.special.softmax([1.0, 2.0, 3.0]))
    c2 = D.Categorical(probs=t64([2.0, 6.0]))  # normalised
    np.testing.assert_allclose(host(c2.probs), [0.25, 0.75])


def test_scalar_parameters_give_empty_batch_shape_and_0d_results():
    d = D.Normal(0.0, 1.0)
    assert d.batch_shape == torchlike.Size() and d.sample().shape == torchlike.Size()
    assert d.log_prob(torchlike.tensor(0.0)).shape == torchlike.Size()
    assert tuple(d.sample((0,)).shape) == (0,)


def test_transformed_distribution_cache_and_inverse():
    t = D.ComposeTransform([D.AffineTransform(1.0, 2.0), D.ExpTransform()])
    x = t64([0.1, -0.3])
    y = t(x)
    np.testing.assert_allclose(host(t.inv(y)), host(x))
    np.testing.assert_allclose(host(t.log_abs_det_jacobian(x, y)), math.log(2.0) + host(1 + 2 * x))
    tanh = D.TanhTransform(cache_size=1)
    z = tanh(t64([20.0]))
    assert tanh.inv(z) is not None and float(tanh.inv(z)) == 20.0  # cached, not atanh(1.0)
    d = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.SigmoidTransform()])
    s = d.sample((5,))
    assert bool(((s > 0) & (s < 1)).all())


def test_enumerate_support():
    b = D.Bernoulli(t64([0.2, 0.7]))
    assert tuple(b.enumerate_support().shape) == (2, 2)
    c = D.Categorical(t64([[0.2, 0.8]] * 3))
    np.testing.assert_array_equal(host(c.enumerate_support(expand=False)).ravel(), [0, 1])
    bn = D.Binomial(3, t64([0.2, 0.7]))
    total = torchlike.exp(bn.log_prob(bn.enumerate_support())).sum(0)
    np.testing.assert_allclose(host(total), [1.0, 1.0])
