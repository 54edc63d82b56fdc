"""The distributions of torchlike.numpy.random against the exact ones
(scipy.stats): a Kolmogorov-Smirnov test for continuous draws, a chi-square
test against the exact pmf (tail cells with fewer than 5 expected draws
merged) for discrete ones.

The seeds are fixed, so each test is deterministic; the thresholds
(p-value above 1e-4 with 20000 draws) would fail a correct sampler with
probability 1e-4 for a random seed, while a wrong parameterisation (a
scale read as a rate, a shape off by one) gives p-values below 1e-50.
Parameters are chosen to reach every branch of the samplers (gamma's
boost below 1, binomial's inversion and BTRS with and without the flip at
p > 1/2, hypergeometric's direct and ratio-of-uniforms paths, ...)."""
import numpy as onp
import pytest
from scipy import stats

import torchlike.numpy as tnp

N = 20000
P_MIN = 1e-4


def draw(name, *args, seed=0, size=N, api="generator", **kw):
    rng = tnp.random.default_rng(seed) if api == "generator" else tnp.random.RandomState(seed)
    return getattr(rng, name)(*args, size=size, **kw).cpu().numpy()


def ks(sample, cdf):
    p = stats.kstest(sample, cdf).pvalue
    assert p > P_MIN, p


def chi2(sample, pmf, support, cdf=None):
    """Chi-square of the counts at ``support`` against ``pmf``.  With ``cdf`` the
    support holds the bulk and the end cells take the tails beyond it; without,
    it is the whole support."""
    sample = onp.asarray(sample)
    lo, hi = support[0], support[-1]
    clipped = onp.clip(sample, lo, hi)
    assert onp.isin(clipped, support).all()  # no draw outside the support
    counts = onp.bincount(onp.searchsorted(support, clipped), minlength=len(support)).astype(float)
    assert counts.sum() == len(sample)
    ends = (cdf(lo), 1 - cdf(hi - 1)) if cdf else (pmf(lo), pmf(hi))
    expected = onp.array([ends[0]] + [pmf(k) for k in support[1:-1]] + [ends[1]]) * len(sample)
    # merge neighbouring cells until each expects at least 5 draws
    c, e = [], []
    acc_c = acc_e = 0.0
    for ci, ei in zip(counts, expected):
        acc_c += ci
        acc_e += ei
        if acc_e >= 5:
            c.append(acc_c)
            e.append(acc_e)
            acc_c = acc_e = 0.0
    c[-1] += acc_c
    e[-1] += acc_e
    c, e = onp.array(c), onp.array(e)
    p = stats.chi2.sf(((c - e) ** 2 / e).sum(), len(c) - 1)
    assert p > P_MIN, (p, c, e)


CONTINUOUS = [
    ("normal", (1.5, 2.0), stats.norm(1.5, 2.0)),
    ("uniform", (-1.0, 3.0), stats.uniform(-1.0, 4.0)),
    ("lognormal", (0.5, 0.7), stats.lognorm(0.7, scale=onp.exp(0.5))),
    ("laplace", (1.0, 2.0), stats.laplace(1.0, 2.0)),
    ("logistic", (1.0, 2.0), stats.logistic(1.0, 2.0)),
    ("gumbel", (1.0, 2.0), stats.gumbel_r(1.0, 2.0)),
    ("exponential", (2.0,), stats.expon(scale=2.0)),
    ("rayleigh", (2.0,), stats.rayleigh(scale=2.0)),
    ("gamma", (0.3, 2.0), stats.gamma(0.3, scale=2.0)),
    ("gamma", (5.0, 2.0), stats.gamma(5.0, scale=2.0)),
    ("standard_gamma", (1.0,), stats.gamma(1.0)),
    ("beta", (0.2, 0.3), stats.beta(0.2, 0.3)),
    ("beta", (2.0, 5.0), stats.beta(2.0, 5.0)),
    ("chisquare", (3.0,), stats.chi2(3.0)),
    ("noncentral_chisquare", (3.0, 2.0), stats.ncx2(3.0, 2.0)),
    ("noncentral_chisquare", (0.5, 1.0), stats.ncx2(0.5, 1.0)),
    ("f", (4.0, 7.0), stats.f(4.0, 7.0)),
    ("noncentral_f", (4.0, 7.0, 2.0), stats.ncf(4.0, 7.0, 2.0)),
    ("standard_t", (3.0,), stats.t(3.0)),
    ("standard_cauchy", (), stats.cauchy()),
    ("pareto", (3.0,), stats.lomax(3.0)),
    ("power", (2.5,), stats.powerlaw(2.5)),
    ("weibull", (1.5,), stats.weibull_min(1.5)),
    ("triangular", (0.0, 1.0, 3.0), stats.triang(1 / 3, 0.0, 3.0)),
    ("vonmises", (0.0, 2.0), stats.vonmises(2.0)),
    ("vonmises", (0.0, 1e-6), stats.vonmises(1e-6)),
    ("wald", (1.5, 2.0), stats.invgauss(0.75, scale=2.0)),
    ("standard_normal", (), stats.norm()),
    ("standard_exponential", (), stats.expon()),
    ("random", (), stats.uniform()),
]


@pytest.mark.parametrize("name,args,dist", CONTINUOUS,
                         ids=[f"{c[0]}{c[1]}" for c in CONTINUOUS])
def test_continuous_draws_follow_the_distribution(name, args, dist):
    ks(draw(name, *args), dist.cdf)


@pytest.mark.parametrize("name,args,dist", [CONTINUOUS[0], CONTINUOUS[8], CONTINUOUS[16]],
                         ids=["normal", "gamma", "f"])
def test_legacy_draws_follow_the_distribution(name, args, dist):
    ks(draw(name, *args, api="legacy"), dist.cdf)


def test_vonmises_wraps_its_mean_into_minus_pi_pi():
    x = draw("vonmises", 3.0, 4.0)
    assert x.min() >= -onp.pi and x.max() < onp.pi
    ks((x - 3.0 + onp.pi) % (2 * onp.pi) - onp.pi, stats.vonmises(4.0).cdf)
    ks(draw("vonmises", 0.0, 1e7), stats.norm(0, 1 / onp.sqrt(1e7)).cdf)


DISCRETE = [
    ("binomial", (20, 0.3), stats.binom(20, 0.3)),
    ("binomial", (10, 0.8), stats.binom(10, 0.8)),
    ("binomial", (1000, 0.4), stats.binom(1000, 0.4)),
    ("binomial", (300, 0.9), stats.binom(300, 0.9)),
    ("binomial", (10**9, 3e-8), stats.binom(10**9, 3e-8)),
    ("poisson", (3.0,), stats.poisson(3.0)),
    ("poisson", (250.0,), stats.poisson(250.0)),
    ("geometric", (0.3,), stats.geom(0.3)),
    ("negative_binomial", (3.5, 0.4), stats.nbinom(3.5, 0.4)),
    ("hypergeometric", (7, 12, 8), stats.hypergeom(19, 7, 8)),
    ("hypergeometric", (300, 500, 200), stats.hypergeom(800, 300, 200)),
    ("hypergeometric", (500, 300, 600), stats.hypergeom(800, 500, 600)),
    ("hypergeometric", (20, 30, 45), stats.hypergeom(50, 20, 45)),
    ("logseries", (0.7,), stats.logser(0.7)),
    ("logseries", (0.999,), stats.logser(0.999)),
    ("zipf", (2.5,), stats.zipf(2.5)),
    ("zipf", (1.3,), stats.zipf(1.3)),
]


def _support(dist):
    """The bulk of the support; zipf's tail is too heavy for scipy's ppf to search,
    so its cells stop at 300 (the last one takes the tail)."""
    if dist.dist.name == "zipf":
        return onp.arange(1, 301)
    lo, hi = dist.ppf(1e-4), dist.ppf(1 - 1e-4)
    return onp.arange(int(lo), int(hi) + 1)


@pytest.mark.parametrize("name,args,dist", DISCRETE, ids=[f"{c[0]}{c[1]}" for c in DISCRETE])
def test_discrete_draws_follow_the_pmf(name, args, dist):
    x = draw(name, *args)
    assert x.dtype == onp.int64
    chi2(x, dist.pmf, _support(dist), dist.cdf)


def test_integers_choice_and_permutation_are_uniform():
    x = draw("integers", -3, 7)
    chi2(x, stats.randint(-3, 7).pmf, onp.arange(-3, 7))
    x = draw("integers", -3, 7, endpoint=True)
    chi2(x, stats.randint(-3, 8).pmf, onp.arange(-3, 8))
    g = tnp.random.default_rng(3)
    x = g.integers([0, 10], [5, 13], size=(N, 2)).cpu().numpy()
    chi2(x[:, 0], stats.randint(0, 5).pmf, onp.arange(5))
    chi2(x[:, 1], stats.randint(10, 13).pmf, onp.arange(10, 13))
    p = onp.array([0.1, 0.2, 0.3, 0.4])
    x = g.choice(4, N, p=p).cpu().numpy()
    chi2(x, lambda k: p[onp.asarray(k)], onp.arange(4))
    # without replacement the first pick follows p, the second p among the rest
    picks = onp.stack([g.choice(4, 2, replace=False, p=p).cpu().numpy() for _ in range(2000)])
    chi2(picks[:, 0], lambda k: p[onp.asarray(k)], onp.arange(4))
    second = onp.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j)
                        for j in range(4)])
    chi2(picks[:, 1], lambda k: second[onp.asarray(k)], onp.arange(4))
    perms = onp.stack([g.permutation(3).cpu().numpy() for _ in range(600)])
    codes = perms[:, 0] * 3 + perms[:, 1]
    chi2(codes, lambda k: onp.where(onp.isin(k, [1, 2, 3, 5, 6, 7]), 1 / 6, 0.0),
         onp.array([1, 2, 3, 5, 6, 7]))


def test_multivariate_draws_have_the_right_marginals():
    g = tnp.random.default_rng(4)
    x = g.multinomial(30, [0.2, 0.3, 0.5], size=N).cpu().numpy()
    assert (x.sum(1) == 30).all()
    for j, pj in enumerate([0.2, 0.3, 0.5]):
        d = stats.binom(30, pj)
        chi2(x[:, j], d.pmf, _support(d), d.cdf)
    alpha = onp.array([0.3, 2.0, 5.0])
    x = g.dirichlet(alpha, N).cpu().numpy()
    assert onp.allclose(x.sum(1), 1)
    for j in range(3):
        ks(x[:, j], stats.beta(alpha[j], alpha.sum() - alpha[j]).cdf)
    mean, cov = onp.array([1.0, -2.0]), onp.array([[2.0, 0.6], [0.6, 1.0]])
    w = onp.array([0.7, -1.3])
    for method in ("svd", "eigh", "cholesky"):
        x = g.multivariate_normal(mean, cov, N, method=method).cpu().numpy()
        ks(x @ w, stats.norm(w @ mean, onp.sqrt(w @ cov @ w)).cdf)
        ks(x[:, 0], stats.norm(mean[0], onp.sqrt(cov[0, 0])).cdf)
    colors = [5, 12, 30]
    x = g.multivariate_hypergeometric(colors, 20, size=N).cpu().numpy()
    assert (x.sum(1) == 20).all()
    for j in range(3):
        d = stats.hypergeom(sum(colors), colors[j], 20)
        chi2(x[:, j], d.pmf, _support(d), d.cdf)


def test_broadcast_parameters_draw_each_lanes_distribution():
    g = tnp.random.default_rng(5)
    x = g.gamma([[0.5], [4.0]], [1.0, 3.0], size=(N // 4, 2, 2)).cpu().numpy()
    for i, k in enumerate([0.5, 4.0]):
        for j, s in enumerate([1.0, 3.0]):
            ks(x[:, i, j], stats.gamma(k, scale=s).cdf)
    x = g.binomial([5, 2000], [0.5, 0.7], size=(N // 2, 2)).cpu().numpy()
    chi2(x[:, 0], stats.binom(5, 0.5).pmf, onp.arange(6))
    d = stats.binom(2000, 0.7)
    chi2(x[:, 1], d.pmf, _support(d), d.cdf)


def test_a_wrong_parameterisation_fails_these_tests():
    """The mutation check kept as a test: a rate read as a scale, a shape off by one."""
    with pytest.raises(AssertionError):
        ks(draw("exponential", 2.0), stats.expon(scale=0.5).cdf)
    with pytest.raises(AssertionError):
        ks(draw("gamma", 5.0, 2.0), stats.gamma(4.0, scale=2.0).cdf)
    with pytest.raises(AssertionError):
        d = stats.binom(1000, 0.41)
        chi2(draw("binomial", 1000, 0.4), d.pmf, _support(d), d.cdf)
    with pytest.raises(AssertionError):
        d = stats.hypergeom(800, 310, 200)
        chi2(draw("hypergeometric", 300, 500, 200), d.pmf, _support(d), d.cdf)
