"""The families added after the first set (Cauchy ... Wishart), against
PyTorch's values recorded by scripts/golden_distributions_more.py (float64):
log_prob, moments, entropy, cdf/icdf, KL divergences (closed forms and
ExponentialFamily's Bregman one); plus sampling (shapes, support, moments
against SciPy / NumPy), rsample gradients (gradcheck) and validation errors."""
import math

import numpy as np
import pytest

import torchlike
import torchlike.distributions as D
from distributions_more_golden import GOLD, TOL, ev, float64_default  # noqa: F401 - the fixture is autouse
from oracle import host_array

CASES = GOLD["cases"]


def check(actual, expected, tol=TOL):
    expected = np.array(expected, dtype=np.float64)
    assert actual.dtype == torchlike.float64
    assert tuple(actual.shape) == expected.shape
    np.testing.assert_allclose(host_array(actual.detach()), expected, equal_nan=True, **tol)


def f64(v):
    return torchlike.tensor(v, dtype=torchlike.float64)


# ---- values against PyTorch --------------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_shapes_match_pytorch(name):
    rec = CASES[name]
    d = ev(rec["expr"])
    assert list(d.batch_shape) == rec["batch_shape"]
    assert list(d.event_shape) == rec["event_shape"]
    check(d.log_prob(f64(rec["value"])), rec["log_prob"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand_broadcasts_the_batch(name):
    """expand((2,) + batch_shape) gives the same log_prob, repeated."""
    rec = CASES[name]
    d = ev(rec["expr"])
    e = d.expand((2,) + tuple(d.batch_shape))
    assert tuple(e.batch_shape) == (2,) + tuple(d.batch_shape) and e.event_shape == d.event_shape
    value = f64(rec["value"])
    lp = host_array(e.log_prob(value.unsqueeze(-1 - len(d.batch_shape) - len(d.event_shape))).detach())
    expected = np.array(rec["log_prob"], dtype=np.float64)
    expected = np.expand_dims(expected, -1 - len(d.batch_shape))
    np.testing.assert_allclose(lp, np.broadcast_to(expected, lp.shape), **TOL)


QUANTITIES = ("mean", "mode", "variance", "stddev", "entropy", "covariance_matrix",
              "precision_matrix", "scale_tril")


@pytest.mark.parametrize("name,what", [(n, w) for n in sorted(CASES) for w in QUANTITIES if w in CASES[n]])
def test_moments_and_entropy_match_pytorch(name, what):
    d = ev(CASES[name]["expr"])
    check(d.entropy() if what == "entropy" else getattr(d, what), CASES[name][what])


@pytest.mark.parametrize("name", sorted(n for n in CASES if "cdf" in CASES[n]))
def test_cdf_matches_pytorch(name):
    rec = CASES[name]
    d = ev(rec["expr"])
    tol = dict(rtol=1e-8, atol=1e-11) if name in ("chi2", "inverse_gamma") else TOL  # gammainc's series
    check(d.cdf(f64(rec["value"])), rec["cdf"], tol)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "icdf" in CASES[n]))
def test_icdf_matches_pytorch_and_inverts_cdf(name):
    rec = CASES[name]
    d = ev(rec["expr"])
    q = f64(rec["icdf_q"])
    x = d.icdf(q)
    check(x, rec["icdf"])
    np.testing.assert_allclose(host_array(d.cdf(x)), host_array(q), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(GOLD["expfamily_entropy"]))
def test_exponential_family_bregman_entropy_matches_pytorch(name):
    rec = GOLD["expfamily_entropy"][name]
    d = ev(rec["expr"])
    assert isinstance(d, D.ExponentialFamily)
    generic = D.ExponentialFamily.entropy(d)
    check(generic, rec["entropy"])
    # and agrees with the family's own closed form
    np.testing.assert_allclose(host_array(generic.detach()), host_array(d.entropy().detach()), rtol=1e-9)


def test_exponential_family_without_carrier_measure_has_no_generic_entropy():
    with pytest.raises(NotImplementedError):
        D.ExponentialFamily.entropy(D.Beta(f64([1.5]), f64([2.0])))


@pytest.mark.parametrize("i", range(len(GOLD["kl"])), ids=[
    f"{r['p'].split('(')[0]}-{r['q'].split('(')[0]}" for r in GOLD["kl"]])
def test_kl_divergence_matches_pytorch(i):
    rec = GOLD["kl"][i]
    check(D.kl_divergence(ev(rec["p"]), ev(rec["q"])), rec["kl"])


@pytest.mark.parametrize("i", range(len(GOLD["expfamily_kl"])), ids=[
    r["p"].split("(")[0] for r in GOLD["expfamily_kl"]])
def test_exponential_family_bregman_kl_matches_pytorch_and_closed_form(i):
    rec = GOLD["expfamily_kl"][i]
    p, q = ev(rec["p"]), ev(rec["q"])
    generic = D.kl._kl_expfamily_expfamily(p, q)
    check(generic, rec["kl"])
    np.testing.assert_allclose(host_array(generic.detach()), host_array(D.kl_divergence(p, q).detach()),
                               rtol=1e-8, atol=1e-12)


def test_bregman_kl_refuses_different_families():
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(D.Poisson(f64([1.0])), D.Exponential(f64([0.5])))


def test_kl_of_new_families_with_themselves_is_zero():
    for d in (D.Cauchy(f64([0.3]), f64([2.0])), D.Gumbel(f64([0.3]), f64([2.0])),
              D.Pareto(f64([1.0]), f64([3.0])), D.Geometric(f64([0.3])), D.HalfNormal(f64([1.3])),
              D.ContinuousBernoulli(f64([0.2, 0.5])), D.Wishart(f64(4.0), covariance_matrix=f64([[2.0, 0.5], [0.5, 1.0]])),
              D.LowRankMultivariateNormal(f64([0.0, 1.0]), f64([[1.0], [0.5]]), f64([1.0, 2.0]))):
        np.testing.assert_allclose(host_array(D.kl_divergence(d, d).detach()), 0.0, atol=1e-12)


def test_kumaraswamy_mode_is_the_density_argmax():
    """PyTorch's Kumaraswamy.mode is nan whenever concentration0 > 1 (its
    formula takes log(1 - concentration0)); ours is the density's argmax,
    found here on a fine grid, and nan where a parameter is below 1 as in
    PyTorch."""
    c1, c0 = f64([2.0, 3.0, 1.5, 0.5]), f64([3.0, 1.2, 5.0, 2.0])
    d = D.Kumaraswamy(c1, c0)
    grid = np.linspace(1e-4, 1 - 1e-4, 200001)
    lp = host_array(d.log_prob(f64(grid[:, None]).expand(len(grid), 4).contiguous()))
    mode = host_array(d.mode)
    np.testing.assert_allclose(mode[:3], grid[lp[:, :3].argmax(0)], atol=1e-5)
    assert np.isnan(mode[3])


# ---- sampling ---------------------------------------------------------------

def _families():
    """(distribution, NumPy/SciPy reference sampler or None, support check)."""
    scipy = pytest.importorskip("scipy.stats")
    return {
        "cauchy": (D.Cauchy(f64(0.5), f64(2.0)), scipy.cauchy(0.5, 2.0)),
        "chi2": (D.Chi2(f64(3.0)), scipy.chi2(3.0)),
        "fisher": (D.FisherSnedecor(f64(5.0), f64(7.0)), scipy.f(5.0, 7.0)),
        "gpd": (D.GeneralizedPareto(f64(0.5), f64(2.0), f64(0.2)), scipy.genpareto(0.2, 0.5, 2.0)),
        "gpd_neg": (D.GeneralizedPareto(f64(0.0), f64(1.0), f64(-0.3)), scipy.genpareto(-0.3, 0.0, 1.0)),
        "gumbel": (D.Gumbel(f64(1.0), f64(2.0)), scipy.gumbel_r(1.0, 2.0)),
        "half_cauchy": (D.HalfCauchy(f64(1.5)), scipy.halfcauchy(0, 1.5)),
        "half_normal": (D.HalfNormal(f64(1.5)), scipy.halfnorm(0, 1.5)),
        "inverse_gamma": (D.InverseGamma(f64(3.0), f64(2.0)), scipy.invgamma(3.0, scale=2.0)),
        "pareto": (D.Pareto(f64(1.5), f64(3.0)), scipy.pareto(3.0, scale=1.5)),
        "student_t": (D.StudentT(f64(4.0), f64(1.0), f64(2.0)), scipy.t(4.0, 1.0, 2.0)),
        "von_mises": (D.VonMises(f64(1.0), f64(2.0)), scipy.vonmises(2.0, loc=1.0)),
        "weibull": (D.Weibull(f64(2.0), f64(1.5)), scipy.weibull_min(1.5, scale=2.0)),
        "kumaraswamy": (D.Kumaraswamy(f64(2.0), f64(3.0)), None),
        "cb": (D.ContinuousBernoulli(f64(0.3)), None),
        "geometric": (D.Geometric(f64(0.3)), scipy.geom(0.3, loc=-1)),
        "negbin": (D.NegativeBinomial(f64(4.0), f64(0.4)), scipy.nbinom(4.0, 0.6)),
    }


def _ks_statistic(samples, cdf):
    x = np.sort(samples)
    n = len(x)
    c = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


@pytest.mark.parametrize("name", ["cauchy", "chi2", "fisher", "gpd", "gpd_neg", "gumbel", "half_cauchy",
                                  "half_normal", "inverse_gamma", "pareto", "student_t", "von_mises",
                                  "weibull", "kumaraswamy", "cb", "geometric", "negbin"])
def test_samples_follow_the_distribution(name):
    """Kolmogorov-Smirnov distance to SciPy's CDF (or our own, checked
    against PyTorch above) for 4000 draws with a fixed seed; the bound is
    the 0.999 quantile of the statistic (1.95 / sqrt(n)); discrete families
    compare probabilities of the first values."""
    d, ref = _families()[name]
    torchlike.manual_seed(7)
    x = host_array(d.sample((4000,)))
    assert x.shape == (4000,) and x.dtype == np.float64
    assert np.all(host_array(d.support.check(f64(x))))
    if name in ("geometric", "negbin"):
        for k in range(6):
            p = np.mean(x == k)
            assert abs(p - ref.pmf(k)) < 4 * math.sqrt(ref.pmf(k) * (1 - ref.pmf(k)) / 4000) + 1e-3
        return
    if ref is not None:
        cdf = ref.cdf
        if name == "von_mises":  # scipy's draws lie in [loc - pi, loc + pi), ours in [-pi, pi)
            x = np.where(x < 1.0 - math.pi, x + 2 * math.pi, x)
    else:
        cdf = lambda v: host_array(d.cdf(f64(v)))  # noqa: E731
    assert _ks_statistic(x, cdf) < 1.95 / math.sqrt(len(x))


@pytest.mark.parametrize("expr,shape,event", [
    ("Cauchy(tensor([0.0, 1.0]), tensor([1.0, 2.0]))", (2,), ()),
    ("LKJCholesky(3, tensor([0.5, 2.0]))", (2,), (3, 3)),
    ("LogisticNormal(tensor([0.1, 0.2]), tensor([1.0, 0.5]))", (), (3,)),
    ("LowRankMultivariateNormal(tensor([0.0, 1.0, 2.0]), tensor([[1.0], [0.5], [0.1]]), tensor([1.0, 2.0, 0.5]))", (), (3,)),
    ("MixtureSameFamily(Categorical(probs=tensor([[0.3, 0.7], [0.5, 0.5]])), Normal(tensor([[0.0, 5.0], [1.0, 2.0]]), tensor([[1.0, 1.0], [0.5, 0.5]])))", (2,), ()),
    ("Multinomial(6, probs=tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]))", (2,), (3,)),
    ("OneHotCategoricalStraightThrough(probs=tensor([0.2, 0.8]))", (), (2,)),
    ("RelaxedBernoulli(tensor(0.5), probs=tensor([0.2, 0.9]))", (2,), ()),
    ("RelaxedOneHotCategorical(tensor(0.5), probs=tensor([0.2, 0.3, 0.5]))", (), (3,)),
    ("Wishart(tensor([4.0, 6.0]), covariance_matrix=tensor([[2.0, 0.3], [0.3, 1.0]]))", (2,), (2, 2)),
    ("VonMises(tensor([0.0, 3.0]), tensor([1e-6, 50.0]))", (2,), ()),
])
def test_sample_shapes_dtypes_and_support(expr, shape, event):
    d = ev(expr)
    assert tuple(d.batch_shape) == shape and tuple(d.event_shape) == event
    torchlike.manual_seed(3)
    x = d.sample((5, 4))
    assert tuple(x.shape) == (5, 4) + shape + event and x.dtype == torchlike.float64
    assert bool(d.support.check(x).all())
    assert np.all(np.isfinite(host_array(d.log_prob(x))))
    e = d.expand((3,) + shape)
    assert tuple(e.batch_shape) == (3,) + shape
    assert tuple(e.sample().shape) == (3,) + shape + event


def test_sample_means_match_moments():
    """Sample means of 20000 draws within 5 standard errors of the
    distribution's mean (checked against PyTorch above)."""
    torchlike.manual_seed(11)
    for d in (D.Multinomial(10, probs=f64([0.2, 0.3, 0.5])),
              D.Wishart(f64(5.0), covariance_matrix=f64([[2.0, 0.3], [0.3, 1.0]])),
              D.LowRankMultivariateNormal(f64([0.0, 1.0]), f64([[1.0], [0.5]]), f64([1.0, 2.0])),
              D.MixtureSameFamily(D.Categorical(f64([0.3, 0.7])), D.Normal(f64([0.0, 5.0]), f64([1.0, 1.0]))),
              D.Kumaraswamy(f64(2.0), f64(3.0)), D.LKJCholesky(3, f64(2.0))):
        x = host_array(d.sample((20000,)))
        if isinstance(d, D.LKJCholesky):  # E[L L^T] is the identity
            x = x @ np.swapaxes(x, -1, -2)
            mean, sd = np.eye(3), np.sqrt(x.var(0) + 1e-12)
        else:
            mean, sd = host_array(d.mean), np.sqrt(host_array(d.variance))
        assert np.all(np.abs(x.mean(0) - mean) < 5 * sd / math.sqrt(len(x)) + 1e-9)


def test_float32_samples_stay_float32():
    torchlike.manual_seed(0)

    def f32(v):
        return torchlike.tensor(v, dtype=torchlike.float32)

    for d in (D.StudentT(f32([3.0])), D.Gumbel(f32([0.0]), f32([1.0])), D.VonMises(f32([0.0]), f32([1.0])),
              D.Weibull(f32([1.0]), f32([2.0])), D.Wishart(f32(3.0), scale_tril=f32([[1.0, 0.0], [0.5, 1.0]])),
              D.LKJCholesky(3, f32([0.5])), D.ContinuousBernoulli(f32([0.3])), D.Geometric(f32([0.3]))):
        x = d.sample((3,))
        assert x.dtype == torchlike.float32 and d.log_prob(x).dtype == torchlike.float32


# ---- gradients ----------------------------------------------------------------

def _rsample_fn(make, sample_shape=(3,)):
    """A function of the parameters drawing with a fixed seed (the same
    uniforms every call), for gradcheck."""
    def fn(*params):
        torchlike.manual_seed(5)
        return make(*params).rsample(sample_shape)
    return fn


@pytest.mark.parametrize("make,params", [
    (lambda l, s: D.Cauchy(l, s), ([0.2, -0.5], [1.0, 2.0])),
    (lambda l, s: D.Gumbel(l, s), ([0.2, -0.5], [1.0, 2.0])),
    (lambda s: D.HalfNormal(s), ([1.0, 2.0],)),
    (lambda s, c: D.Weibull(s, c), ([1.0, 2.0], [1.5, 0.7])),
    (lambda s, a: D.Pareto(s, a), ([1.0, 2.0], [1.5, 3.0])),
    (lambda a, b: D.Kumaraswamy(a, b), ([1.0, 2.0], [1.5, 3.0])),
    (lambda l, s, c: D.GeneralizedPareto(l, s, c), ([0.0, 1.0], [1.0, 2.0], [0.3, -0.2])),
    (lambda p: D.ContinuousBernoulli(p), ([0.2, 0.8],)),
    (lambda l, s: D.LogisticNormal(l, s), ([0.2, -0.5], [1.0, 2.0])),
    (lambda p: D.RelaxedBernoulli(torchlike.tensor(0.7, dtype=torchlike.float64), probs=p), ([0.2, 0.7],)),
    (lambda p: D.RelaxedOneHotCategorical(torchlike.tensor(0.7, dtype=torchlike.float64), probs=p), ([0.2, 0.3, 0.5],)),
    (lambda l, w, dg: D.LowRankMultivariateNormal(l, w, dg), ([0.0, 1.0], [[1.0], [0.5]], [1.0, 2.0])),
])
def test_rsample_gradients_match_finite_differences(make, params):
    ts = [f64(p).requires_grad_() for p in params]
    assert torchlike.autograd.gradcheck(_rsample_fn(make), ts, eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("make,params,value", [
    (lambda df, l, s: D.StudentT(df, l, s), ([3.0, 5.0], [0.1, -0.3], [1.0, 2.0]), [0.5, -1.0]),
    (lambda a, b: D.FisherSnedecor(a, b), ([3.0, 5.0], [4.0, 7.0]), [0.5, 2.0]),
    (lambda a, b: D.InverseGamma(a, b), ([3.0, 5.0], [4.0, 7.0]), [0.5, 2.0]),
    (lambda l, c: D.VonMises(l, c), ([0.3, -1.0], [0.5, 5.0]), [0.5, 2.0]),
    (lambda c: D.LKJCholesky(3, c), ([0.5, 2.0],), [[[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]]),
    (lambda p: D.NegativeBinomial(f64([3.0, 2.5]), p), ([0.3, 0.6],), [2.0, 5.0]),
])
def test_log_prob_gradients_match_finite_differences(make, params, value):
    ts = [f64(p).requires_grad_() for p in params]
    v = f64(value)
    assert torchlike.autograd.gradcheck(lambda *a: make(*a).log_prob(v), ts, eps=1e-6, atol=1e-6)


def test_straight_through_rsample_passes_probs_gradient():
    probs = f64([0.2, 0.3, 0.5]).requires_grad_()
    d = D.OneHotCategoricalStraightThrough(probs=probs)
    torchlike.manual_seed(1)
    x = d.rsample((4,))
    assert sorted(np.unique(host_array(x.detach())).tolist()) == [0.0, 1.0]
    weights = np.array([1.0, 2.0, 3.0])
    (x * f64(weights)).sum().backward()
    # each of the 4 draws adds the gradient of <w, p / sum(p)>: w - <w, p> (sum(p) = 1)
    expected = 4 * (weights - weights @ np.array([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(host_array(probs.grad), expected, rtol=1e-12)


# ---- validation ---------------------------------------------------------------

@pytest.mark.parametrize("make,param,constraint", [
    (lambda: D.Cauchy(f64([0.0]), f64([-1.0]), validate_args=True), "scale", "GreaterThan"),
    (lambda: D.Chi2(f64([-1.0]), validate_args=True), "df", "GreaterThan"),
    (lambda: D.Gumbel(f64([0.0]), f64([0.0]), validate_args=True), "scale", "GreaterThan"),
    (lambda: D.HalfNormal(f64([-2.0]), validate_args=True), "scale", "GreaterThan"),
    (lambda: D.Pareto(f64([1.0]), f64([-1.0]), validate_args=True), "rate", "GreaterThan"),
    (lambda: D.StudentT(f64([-3.0]), validate_args=True), "df", "GreaterThan"),
    (lambda: D.Weibull(f64([1.0]), f64([-1.0]), validate_args=True), "concentration", "GreaterThan"),
    (lambda: D.VonMises(f64([1.0]), f64([-1.0]), validate_args=True), "concentration", "GreaterThan"),
    (lambda: D.Geometric(f64([1.5]), validate_args=True), "probs", "Interval"),
    (lambda: D.Geometric(f64([0.0]), validate_args=True), "probs", "GreaterThan"),
    (lambda: D.NegativeBinomial(f64([2.0]), f64([1.0]), validate_args=True), "probs", "HalfOpenInterval"),
    (lambda: D.Multinomial(3, f64([0.5, -0.5]), validate_args=True), "probs", "Simplex"),
    (lambda: D.LowRankMultivariateNormal(f64([0.0, 0.0]), f64([[1.0], [1.0]]), f64([1.0, -1.0]),
                                         validate_args=True), "cov_diag", "IndependentConstraint"),
    (lambda: D.GeneralizedPareto(f64([0.0]), f64([-1.0]), f64([0.1]), validate_args=True), "scale", "GreaterThan"),
    # as PyTorch's: its marginal Beta (validated by default) refuses first
    (lambda: D.LKJCholesky(3, f64([-1.0]), validate_args=True), "concentration", "IndependentConstraint"),
])
def test_bad_parameters_raise_pytorchs_value_error(make, param, constraint):
    with pytest.raises(ValueError, match=f"Expected parameter {param} .* to satisfy the constraint {constraint}"):
        make()


def test_bad_values_and_arguments_raise():
    with pytest.raises(ValueError, match="within the support"):
        D.HalfNormal(f64([1.0]), validate_args=True).log_prob(f64([-1.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Pareto(f64([2.0]), f64([1.0]), validate_args=True).log_prob(f64([1.0]))
    with pytest.raises(ValueError, match="The parameter probs has invalid values"):
        D.ContinuousBernoulli(f64([1.5]), validate_args=True)
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Geometric()
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1"):
        D.Wishart(f64(0.5), covariance_matrix=f64([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(f64([0.5, 0.5])), D.Normal(f64([0.0, 1.0, 2.0]), 1.0))
    with pytest.raises(ValueError, match="needs to be an  instance"):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(f64([0.0]), 1.0))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
        D.LowRankMultivariateNormal(f64([0.0, 0.0]), f64([[1.0], [1.0], [1.0]]), f64([1.0, 1.0]))
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(f64(3.0), probs=f64([0.5, 0.5]))


def test_submodules_are_pytorchs_names():
    import importlib
    for mod, cls in (("cauchy", "Cauchy"), ("chi2", "Chi2"), ("continuous_bernoulli", "ContinuousBernoulli"),
                     ("exp_family", "ExponentialFamily"), ("fishersnedecor", "FisherSnedecor"),
                     ("generalized_pareto", "GeneralizedPareto"), ("geometric", "Geometric"),
                     ("gumbel", "Gumbel"), ("half_cauchy", "HalfCauchy"), ("half_normal", "HalfNormal"),
                     ("inverse_gamma", "InverseGamma"), ("kumaraswamy", "Kumaraswamy"),
                     ("lkj_cholesky", "LKJCholesky"), ("logistic_normal", "LogisticNormal"),
                     ("lowrank_multivariate_normal", "LowRankMultivariateNormal"),
                     ("mixture_same_family", "MixtureSameFamily"), ("multinomial", "Multinomial"),
                     ("negative_binomial", "NegativeBinomial"),
                     ("one_hot_categorical", "OneHotCategoricalStraightThrough"), ("pareto", "Pareto"),
                     ("relaxed_bernoulli", "RelaxedBernoulli"), ("relaxed_categorical", "RelaxedOneHotCategorical"),
                     ("studentT", "StudentT"), ("von_mises", "VonMises"), ("weibull", "Weibull"),
                     ("wishart", "Wishart"), ("constraint_registry", "biject_to")):
        m = importlib.import_module(f"torchlike.distributions.{mod}")
        assert getattr(m, cls) is getattr(D, cls)
