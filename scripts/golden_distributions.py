"""Record torch.distributions values as golden files for
tests/test_distributions*.py.

Run with a Python that has PyTorch:  python scripts/golden_distributions.py
Writes tests/golden/distributions/{cases.json, kl.json}: for each case the
constructor arguments, a value tensor, and PyTorch's log_prob, entropy,
mean, variance, stddev, cdf and icdf (where the family defines them), all in
float64; and kl_divergence for pairs of cases."""
import json
import os

import numpy as np
import torch
import torch.distributions as D

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "distributions")

rng = np.random.default_rng(1234)


def pos(*shape, low=0.2, high=3.0):
    return rng.uniform(low, high, size=shape).tolist()


def real(*shape):
    return rng.normal(size=shape).tolist()


def unit(*shape):
    return rng.uniform(0.05, 0.95, size=shape).tolist()


def simplex(*shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return (p / p.sum(-1, keepdims=True)).tolist()


def spd(*batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).tolist()


def tril(*batch, n=3):
    a = np.tril(rng.normal(size=batch + (n, n)))
    idx = np.arange(n)
    a[..., idx, idx] = np.abs(a[..., idx, idx]) + 0.5
    return a.tolist()


# name -> (family, kwargs, value); kwargs given as lists become float64 tensors,
# {"int": x} stays a Python number; transforms are described by name.
CASES = {
    "normal": ("Normal", {"loc": real(4), "scale": pos(4)}, real(3, 4)),
    "normal_scalar": ("Normal", {"loc": {"num": 0.5}, "scale": {"num": 2.0}}, real(5)),
    "laplace": ("Laplace", {"loc": real(2, 3), "scale": pos(2, 3)}, real(2, 3)),
    "exponential": ("Exponential", {"rate": pos(4)}, pos(2, 4)),
    "uniform": ("Uniform", {"low": [-1.0, 0.0, 2.0], "high": [1.0, 0.5, 5.0]}, [[0.5, 0.25, 3.0], [-0.9, 0.1, 4.9]]),
    "bernoulli_probs": ("Bernoulli", {"probs": unit(5)}, [[0.0, 1.0, 1.0, 0.0, 1.0]]),
    "bernoulli_logits": ("Bernoulli", {"logits": (np.array(real(5)) * 3).tolist()}, [[1.0, 1.0, 0.0, 0.0, 1.0]]),
    "categorical_probs": ("Categorical", {"probs": simplex(3, 4)}, [[0, 3, 1], [2, 2, 0]]),
    "categorical_logits": ("Categorical", {"logits": real(2, 5)}, [[4, 0], [1, 3], [2, 2]]),
    "onehot_probs": ("OneHotCategorical", {"probs": simplex(2, 3)}, [[[0, 1, 0], [1, 0, 0]], [[0, 0, 1], [0, 1, 0]]]),
    "beta": ("Beta", {"concentration1": pos(4), "concentration0": pos(4)}, unit(2, 4)),
    "gamma": ("Gamma", {"concentration": pos(4, low=0.3, high=6.0), "rate": pos(4)}, pos(2, 4, low=0.05, high=8.0)),
    "gamma_small": ("Gamma", {"concentration": [0.3, 0.7, 1.0], "rate": [1.0, 2.0, 0.5]}, [[0.01, 0.5, 3.0]]),
    "dirichlet": ("Dirichlet", {"concentration": pos(2, 4)}, simplex(3, 2, 4)),
    "poisson": ("Poisson", {"rate": pos(4, high=8.0)}, [[0, 1, 4, 9], [3, 0, 2, 12]]),
    "binomial_probs": ("Binomial", {"total_count": {"num": 10}, "probs": unit(4)}, [[0, 3, 10, 7]]),
    "binomial_logits": ("Binomial", {"total_count": [5.0, 8.0, 12.0], "logits": real(3)}, [[0, 8, 6], [5, 1, 12]]),
    "mvn_cov": ("MultivariateNormal", {"loc": real(2, 3), "covariance_matrix": spd(2)}, real(4, 2, 3)),
    "mvn_tril": ("MultivariateNormal", {"loc": real(3), "scale_tril": tril(2)}, real(5, 2, 3)),
    "mvn_prec": ("MultivariateNormal", {"loc": real(3), "precision_matrix": spd()}, real(4, 3)),
    "lognormal": ("LogNormal", {"loc": real(3), "scale": pos(3)}, pos(2, 3)),
    "independent_normal": ("Independent", {"base": "normal_2x3", "reinterpreted_batch_ndims": {"num": 1}}, real(4, 2, 3)),
    "transformed_affine_exp": ("TransformedDistribution",
                               {"base": "normal_3", "transforms": ["affine", "exp"]}, pos(2, 3)),
    "transformed_sigmoid": ("TransformedDistribution",
                            {"base": "normal_3", "transforms": ["sigmoid"]}, unit(2, 3)),
    "transformed_tanh": ("TransformedDistribution",
                         {"base": "normal_3", "transforms": ["tanh"]}, (np.array(unit(2, 3)) * 1.8 - 0.9).tolist()),
    "transformed_power": ("TransformedDistribution",
                          {"base": "exponential_3", "transforms": ["power"]}, pos(2, 3)),
    "transformed_neg_affine": ("TransformedDistribution",
                               {"base": "normal_3", "transforms": ["neg_affine"]}, real(2, 3)),
}

# Shared pieces of the transformed cases (fixed numbers, rebuilt identically in the tests).
BASES = {
    "normal_2x3": ("Normal", {"loc": [[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]], "scale": [[1.0, 0.5, 2.0], [0.7, 1.3, 0.9]]}),
    "normal_3": ("Normal", {"loc": [0.1, -0.4, 0.6], "scale": [0.8, 1.2, 0.5]}),
    "exponential_3": ("Exponential", {"rate": [0.5, 1.0, 2.0]}),
}
TRANSFORMS = {
    "affine": ("AffineTransform", {"loc": [0.5, -1.0, 0.0], "scale": [2.0, 0.5, 1.5]}),
    "neg_affine": ("AffineTransform", {"loc": {"num": 1.0}, "scale": {"num": -2.0}}),
    "exp": ("ExpTransform", {}),
    "sigmoid": ("SigmoidTransform", {}),
    "tanh": ("TanhTransform", {}),
    "power": ("PowerTransform", {"exponent": {"num": 2.0}}),
}

KL_PAIRS = [
    ("normal", "normal", {"loc": real(4), "scale": pos(4)}),
    ("laplace", "laplace", {"loc": real(2, 3), "scale": pos(2, 3)}),
    ("exponential", "exponential", {"rate": pos(4)}),
    ("uniform", "uniform", {"low": [-2.0, 0.1, 1.0], "high": [2.0, 0.4, 6.0]}),
    ("bernoulli_probs", "bernoulli_probs", {"probs": unit(5)}),
    ("categorical_probs", "categorical_probs", {"probs": simplex(3, 4)}),
    ("onehot_probs", "onehot_probs", {"probs": simplex(2, 3)}),
    ("beta", "beta", {"concentration1": pos(4), "concentration0": pos(4)}),
    ("gamma", "gamma", {"concentration": pos(4), "rate": pos(4)}),
    ("dirichlet", "dirichlet", {"concentration": pos(2, 4)}),
    ("poisson", "poisson", {"rate": pos(4)}),
    ("binomial_probs", "binomial_probs", {"total_count": {"num": 10}, "probs": unit(4)}),
    ("mvn_cov", "mvn_cov", {"loc": real(2, 3), "scale_tril": tril(2)}),
    ("lognormal", "lognormal", {"loc": real(3), "scale": pos(3)}),
    ("independent_normal", "independent_normal", None),
    ("normal", "laplace", {"loc": real(4), "scale": pos(4)}),
    ("laplace", "normal", {"loc": real(2, 3), "scale": pos(2, 3)}),
    ("exponential", "gamma", {"concentration": pos(4), "rate": pos(4)}),
    ("exponential", "normal", {"loc": real(4), "scale": pos(4)}),
    ("gamma", "exponential", {"rate": pos(4)}),
    ("gamma", "normal", {"loc": real(4), "scale": pos(4)}),
    ("beta", "normal", {"loc": real(4), "scale": pos(4)}),
    ("beta", "gamma", {"concentration": pos(4), "rate": pos(4)}),
    ("beta", "exponential", {"rate": pos(4)}),
    ("beta", "uniform", {"low": [-0.5, 0.0, -1.0, 0.2], "high": [1.0, 2.0, 1.5, 1.0]}),
    ("uniform", "normal", {"loc": real(3), "scale": pos(3)}),
    ("uniform", "exponential", {"rate": [1.0, 2.0, 0.5]}),
    ("uniform", "gamma", {"concentration": pos(3), "rate": pos(3)}),
    ("bernoulli_probs", "poisson", {"rate": pos(5)}),
    ("normal", "uniform", {"low": [-1.0] * 4, "high": [1.0] * 4}),
    ("exponential", "beta", {"concentration1": pos(4), "concentration0": pos(4)}),
]
# the q family of each KL pair, by case name
KL_FAMILY = {"normal": "Normal", "laplace": "Laplace", "exponential": "Exponential",
             "uniform": "Uniform", "bernoulli_probs": "Bernoulli", "categorical_probs": "Categorical",
             "onehot_probs": "OneHotCategorical", "beta": "Beta", "gamma": "Gamma",
             "dirichlet": "Dirichlet", "poisson": "Poisson", "binomial_probs": "Binomial",
             "mvn_cov": "MultivariateNormal", "lognormal": "LogNormal"}


def convert(v):
    if isinstance(v, dict) and "num" in v:
        return v["num"]
    return torch.tensor(v, dtype=torch.float64)


def build_transform(name):
    cls, kw = TRANSFORMS[name]
    return getattr(D.transforms, cls)(**{k: convert(v) for k, v in kw.items()})


def build(family, kwargs):
    if family == "Independent":
        base = build(*BASES[kwargs["base"]])
        return D.Independent(base, kwargs["reinterpreted_batch_ndims"]["num"])
    if family == "TransformedDistribution":
        base = build(*BASES[kwargs["base"]])
        return D.TransformedDistribution(base, [build_transform(t) for t in kwargs["transforms"]])
    return getattr(D, family)(**{k: convert(v) for k, v in kwargs.items()})


def try_value(fn):
    try:
        out = fn()
    except NotImplementedError:
        return None
    return out.detach().numpy().tolist()


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    cases = {}
    for name, (family, kwargs, value) in CASES.items():
        d = build(family, kwargs)
        v = torch.tensor(value, dtype=torch.float64)
        rec = {"family": family, "kwargs": kwargs, "value": value,
               "batch_shape": list(d.batch_shape), "event_shape": list(d.event_shape),
               "log_prob": try_value(lambda: d.log_prob(v)),
               "entropy": try_value(d.entropy) if family not in ("Poisson", "TransformedDistribution") else None,
               "mean": try_value(lambda: d.mean) if family != "TransformedDistribution" else None,
               "variance": try_value(lambda: d.variance) if family != "TransformedDistribution" else None,
               "stddev": try_value(lambda: d.stddev) if family != "TransformedDistribution" else None}
        if family in ("Normal", "Laplace", "Exponential", "Uniform", "Gamma", "LogNormal",
                      "TransformedDistribution"):
            if not (family == "TransformedDistribution" and kwargs["transforms"] == ["power"]):
                rec["cdf"] = try_value(lambda: d.cdf(v))
        if family in ("Normal", "Laplace", "Exponential", "Uniform", "LogNormal", "TransformedDistribution"):
            q = torch.tensor(np.linspace(0.05, 0.95, 9), dtype=torch.float64).reshape((9,) + (1,) * len(d.batch_shape))
            q = q.expand((9,) + tuple(d.batch_shape))
            if not (family == "TransformedDistribution" and kwargs["transforms"] == ["power"]):
                rec["icdf_q"] = q.numpy().tolist()
                rec["icdf"] = try_value(lambda: d.icdf(q))
        cases[name] = rec
    kls = []
    for p_name, q_name, q_kwargs in KL_PAIRS:
        p = build(CASES[p_name][0], CASES[p_name][1])
        if q_kwargs is None:
            q_family, q_kwargs = "Independent", {"base": "normal_2x3", "reinterpreted_batch_ndims": {"num": 1}}
            q = D.Independent(D.Normal(torch.tensor(BASES["normal_2x3"][1]["loc"]) + 0.3,
                                       torch.tensor(BASES["normal_2x3"][1]["scale"]) * 1.4), 1)
            q_kwargs = {"shift": 0.3, "stretch": 1.4}
        else:
            q_family = KL_FAMILY[q_name]
            q = build(q_family, q_kwargs)
        kl = D.kl_divergence(p, q)
        kls.append({"p": p_name, "q_family": q_family, "q_kwargs": q_kwargs,
                    "kl": kl.numpy().tolist()})
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"bases": BASES, "transforms": TRANSFORMS, "cases": cases}, f, indent=0)
    with open(os.path.join(OUT, "kl.json"), "w") as f:
        json.dump(kls, f, indent=0)
    print(f"wrote {len(cases)} cases and {len(kls)} KL pairs to tests/golden/distributions "
          f"(torch {torch.__version__})")


if __name__ == "__main__":
    main()
