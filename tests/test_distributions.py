"""torchlike.distributions against PyTorch's values: log_prob, entropy,
moments, cdf/icdf and kl_divergence recorded by
scripts/golden_distributions.py (real PyTorch, float64)."""
import json
import os

import numpy as np
import pytest

import torchlike
import torchlike.distributions as D
from oracle import host_array

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "distributions")
with open(os.path.join(GOLDEN, "cases.json")) as f:
    GOLD = json.load(f)
with open(os.path.join(GOLDEN, "kl.json")) as f:
    KL = json.load(f)
CASES = GOLD["cases"]
TOL = dict(rtol=1e-10, atol=1e-12)


@pytest.fixture(autouse=True)
def float64_default():
    """The golden files were recorded with float64 as the default dtype (it
    decides the dtype of parameters given as Python numbers)."""
    old = torchlike.get_default_dtype()
    torchlike.set_default_dtype(torchlike.float64)
    yield
    torchlike.set_default_dtype(old)


def convert(v):
    if isinstance(v, dict) and "num" in v:
        return v["num"]
    return torchlike.tensor(v, dtype=torchlike.float64)


def build_transform(name):
    cls, kw = GOLD["transforms"][name]
    return getattr(D.transforms, cls)(**{k: convert(v) for k, v in kw.items()})


def build(family, kwargs):
    if family == "Independent":
        base = build(*GOLD["bases"][kwargs["base"]])
        return D.Independent(base, kwargs["reinterpreted_batch_ndims"]["num"])
    if family == "TransformedDistribution":
        base = build(*GOLD["bases"][kwargs["base"]])
        return D.TransformedDistribution(base, [build_transform(t) for t in kwargs["transforms"]])
    return getattr(D, family)(**{k: convert(v) for k, v in kwargs.items()})


def check(actual, expected, tol=TOL):
    assert actual.dtype == torchlike.float64 or expected is None
    np.testing.assert_allclose(host_array(actual.detach()), np.array(expected, dtype=np.float64), **tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_shapes_match_pytorch(name):
    rec = CASES[name]
    d = build(rec["family"], rec["kwargs"])
    assert list(d.batch_shape) == rec["batch_shape"]
    assert list(d.event_shape) == rec["event_shape"]
    value = torchlike.tensor(rec["value"], dtype=torchlike.float64)
    lp = d.log_prob(value)
    assert lp.dtype == torchlike.float64
    expected = np.array(rec["log_prob"])
    assert tuple(lp.shape) == expected.shape
    check(lp, expected)


@pytest.mark.parametrize("name,what", [(n, w) for n in sorted(CASES)
                                         for w in ("entropy", "mean", "variance", "stddev")
                                         if CASES[n].get(w) is not None])
def test_entropy_and_moments_match_pytorch(name, what):
    rec = CASES[name]
    d = build(rec["family"], rec["kwargs"])
    value = d.entropy() if what == "entropy" else getattr(d, what)
    expected = np.array(rec[what], dtype=np.float64)
    assert tuple(value.shape) == expected.shape
    np.testing.assert_allclose(host_array(value.detach()), expected, rtol=1e-10, atol=1e-12,
                               equal_nan=True)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "cdf" in CASES[n]))
def test_cdf_matches_pytorch(name):
    rec = CASES[name]
    d = build(rec["family"], rec["kwargs"])
    value = torchlike.tensor(rec["value"], dtype=torchlike.float64)
    tol = dict(rtol=1e-9, atol=1e-12) if rec["family"] == "Gamma" else TOL
    check(d.cdf(value), rec["cdf"], tol)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "icdf" in CASES[n]))
def test_icdf_matches_pytorch_and_inverts_cdf(name):
    rec = CASES[name]
    d = build(rec["family"], rec["kwargs"])
    q = torchlike.tensor(rec["icdf_q"], dtype=torchlike.float64)
    x = d.icdf(q)
    check(x, rec["icdf"], dict(rtol=1e-9, atol=1e-11))
    np.testing.assert_allclose(host_array(d.cdf(x)), host_array(q), rtol=1e-9, atol=1e-11)


def _kl_q(pair):
    if pair["q_family"] == "Independent":
        loc, scale = GOLD["bases"]["normal_2x3"][1]["loc"], GOLD["bases"]["normal_2x3"][1]["scale"]
        kw = pair["q_kwargs"]
        return D.Independent(D.Normal(convert(loc) + kw["shift"], convert(scale) * kw["stretch"]), 1)
    return build(pair["q_family"], pair["q_kwargs"])


@pytest.mark.parametrize("pair", KL, ids=[f"{p['p']}-{p['q_family']}" for p in KL])
def test_kl_divergence_matches_pytorch(pair):
    p = build(CASES[pair["p"]]["family"], CASES[pair["p"]]["kwargs"])
    q = _kl_q(pair)
    kl = D.kl_divergence(p, q)
    expected = np.array(pair["kl"], dtype=np.float64)
    assert tuple(kl.shape) == expected.shape
    np.testing.assert_allclose(host_array(kl), expected, rtol=1e-9, atol=1e-11)


def test_kl_of_a_distribution_with_itself_is_zero():
    for name in ("normal", "gamma", "dirichlet", "mvn_cov", "categorical_logits", "beta"):
        d = build(CASES[name]["family"], CASES[name]["kwargs"])
        np.testing.assert_allclose(host_array(D.kl_divergence(d, d)), 0.0, atol=1e-12)


def test_kl_without_registered_pair_names_both_types():
    with pytest.raises(NotImplementedError, match="p type Poisson and q type Laplace"):
        D.kl_divergence(D.Poisson(torchlike.tensor([1.0])), D.Laplace(0.0, 1.0))


def test_register_kl_most_specific_pair_wins():
    class MyNormal(D.Normal):
        pass

    calls = []

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        calls.append((p, q))
        return torchlike.zeros(())

    try:
        p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
        assert float(D.kl_divergence(p, q)) == 0.0 and calls
        # the plain pair still uses the closed form
        assert float(D.kl_divergence(D.Normal(0.0, 1.0), q)) > 0
    finally:
        from torchlike.distributions import kl as _kl
        del _kl._KL_REGISTRY[MyNormal, D.Normal]
        _kl._KL_MEMOIZE.clear()
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)
