"""Record torch.distributions values for the families, transforms and KL
pairs of tests/test_distributions_more.py and
tests/test_distributions_transforms_more.py.

Run with a Python that has PyTorch:  python scripts/golden_distributions_more.py
Writes tests/golden/distributions/more.json. Every distribution, transform and
constraint is written as a Python expression over the names of
torch.distributions (plus ``tensor``: a float64 tensor from a list), so the
tests rebuild it by evaluating the same text against torchlike.distributions.
Values are PyTorch's, in float64 (nan and inf written as NaN and Infinity)."""
import json
import os

import numpy as np
import torch
import torch.distributions as D

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "distributions", "more.json")

rng = np.random.default_rng(4321)


def fmt(a):
    return repr(np.round(np.asarray(a, dtype=np.float64), 12).tolist())


def t(a):
    return f"tensor({fmt(a)})"


def pos(*shape, low=0.2, high=3.0):
    return rng.uniform(low, high, size=shape)


def real(*shape):
    return rng.normal(size=shape)


def unit(*shape):
    return rng.uniform(0.05, 0.95, size=shape)


def simplex(*shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


def spd(*batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def corr_cholesky(*batch, n=3):
    return np.linalg.cholesky(_corr(spd(*batch, n=n)))


def _corr(s):
    d = np.sqrt(np.diagonal(s, axis1=-2, axis2=-1))
    return s / d[..., :, None] / d[..., None, :]


ENV = {"tensor": lambda v: torch.tensor(v, dtype=torch.float64), "constraints": D.constraints,
       "T": D.transforms, **{k: getattr(D, k) for k in D.__all__}}

# name -> (expression, value, quantities); quantities name what to record
# besides log_prob (mean, variance, ... where PyTorch defines them).
MOMENTS = ["mean", "mode", "variance", "stddev", "entropy"]
CASES = {
    "cauchy": (f"Cauchy({t(real(4))}, {t(pos(4))})", real(3, 4), MOMENTS + ["cdf", "icdf"]),
    "cauchy_scalar": ("Cauchy(0.5, 2.0)", real(5), MOMENTS + ["cdf", "icdf"]),
    "chi2": (f"Chi2({t(pos(4, high=8.0))})", pos(2, 4, high=6.0), MOMENTS + ["cdf"]),
    "cb_probs": (f"ContinuousBernoulli(probs={t(np.r_[unit(4), 0.5, 0.4995])})", unit(2, 6),
                 ["mean", "variance", "stddev", "entropy", "cdf", "icdf"]),
    "cb_logits": (f"ContinuousBernoulli(logits={t(np.r_[real(4) * 2, 0.001])})", unit(2, 5),
                  ["mean", "variance", "stddev", "entropy", "cdf", "icdf"]),
    "fisher": ("FisherSnedecor(tensor([1.5, 3.0, 5.0, 8.0]), tensor([1.5, 3.0, 5.0, 10.0]))",
               pos(2, 4, high=4.0), ["mean", "mode", "variance"]),
    "gpd": ("GeneralizedPareto(tensor([0.0, 1.0, -0.5, 0.2]), tensor([1.0, 2.0, 0.5, 1.5]), "
            "tensor([0.0, 0.3, -0.25, 0.7]))", [[0.1, 1.5, -0.4, 0.5], [2.0, 3.0, 1.4, 4.0]],
            MOMENTS + ["cdf", "icdf"]),
    "geometric_probs": (f"Geometric(probs={t(unit(4))})", [[0, 1, 4, 9], [3, 0, 2, 12]],
                        ["mean", "mode", "variance", "stddev", "entropy"]),
    "geometric_logits": (f"Geometric(logits={t(real(3))})", [[0, 2, 5]],
                         ["mean", "mode", "variance", "entropy"]),
    "gumbel": (f"Gumbel({t(real(4))}, {t(pos(4))})", real(3, 4), MOMENTS + ["cdf", "icdf"]),
    "half_cauchy": (f"HalfCauchy({t(pos(4))})", pos(2, 4), MOMENTS + ["cdf", "icdf"]),
    "half_normal": (f"HalfNormal({t(pos(4))})", pos(2, 4), MOMENTS + ["cdf", "icdf"]),
    "inverse_gamma": ("InverseGamma(tensor([0.5, 1.5, 3.0, 6.0]), tensor([1.0, 2.0, 0.5, 3.0]))",
                      pos(2, 4, low=0.1, high=4.0), MOMENTS + ["cdf"]),
    "kumaraswamy": (f"Kumaraswamy({t(pos(4, low=0.5, high=4.0))}, {t(pos(4, low=0.5, high=4.0))})",
                    unit(2, 4), ["mean", "variance", "stddev", "entropy", "cdf", "icdf"]),  # mode: see the tests
    "lkj": ("LKJCholesky(3, tensor([0.5, 2.0]))", corr_cholesky(4, 2), []),
    "lkj_scalar": ("LKJCholesky(4, 1.5)", corr_cholesky(3, n=4), []),
    "logistic_normal": (f"LogisticNormal({t(real(2, 3))}, {t(pos(2, 3))})", simplex(5, 2, 4), []),
    "lowrank_mvn": (f"LowRankMultivariateNormal({t(real(2, 3))}, {t(real(2, 3, 2))}, {t(pos(2, 3))})",
                    real(4, 2, 3), ["mean", "mode", "variance", "entropy", "covariance_matrix",
                                    "precision_matrix", "scale_tril"]),
    "mixture_normal": (f"MixtureSameFamily(Categorical(probs={t(simplex(2, 3))}), "
                       f"Normal({t(real(2, 3))}, {t(pos(2, 3))}))", real(4, 2), ["mean", "variance", "cdf"]),
    "mixture_mvn": (f"MixtureSameFamily(Categorical(logits={t(real(3))}), "
                    f"Independent(Normal({t(real(3, 2))}, {t(pos(3, 2))}), 1))", real(4, 2),
                    ["mean", "variance"]),
    "multinomial": (f"Multinomial(5, probs={t(simplex(2, 3))})", [[[1, 2, 2], [0, 0, 5]], [[3, 1, 1], [2, 2, 1]]],
                    ["mean", "variance", "entropy"]),
    "multinomial_logits": (f"Multinomial(4, logits={t(real(4))})", [[1, 0, 2, 1], [0, 0, 0, 4]],
                           ["mean", "variance", "entropy"]),
    "negbin_probs": (f"NegativeBinomial({t(pos(4, high=6.0))}, probs={t(unit(4))})",
                     [[0, 1, 4, 9], [3, 0, 2, 12]], ["mean", "mode", "variance"]),
    "negbin_logits": (f"NegativeBinomial(3.0, logits={t(real(3))})", [[0, 2, 5]], ["mean", "mode", "variance"]),
    "pareto": ("Pareto(tensor([1.0, 0.5, 2.0, 1.5]), tensor([0.5, 1.5, 2.5, 4.0]))",
               [[1.5, 0.6, 2.5, 4.0], [3.0, 1.2, 2.1, 1.6]], MOMENTS + ["cdf", "icdf"]),
    "relaxed_bernoulli": (f"RelaxedBernoulli(tensor(0.7), probs={t(unit(4))})", unit(3, 4), []),
    "relaxed_bernoulli_logits": (f"RelaxedBernoulli(tensor([0.5, 2.0]), logits={t(real(2))})", unit(3, 2), []),
    "relaxed_onehot": (f"RelaxedOneHotCategorical(tensor(0.8), probs={t(simplex(2, 3))})", simplex(4, 2, 3), []),
    "student_t": (f"StudentT(tensor([0.8, 1.5, 3.0, 6.0]), {t(real(4))}, {t(pos(4))})", real(3, 4),
                  ["mean", "mode", "variance", "entropy"]),
    "student_t_df": ("StudentT(4.5)", real(6), ["mean", "mode", "variance", "entropy"]),
    "von_mises": (f"VonMises({t(real(5))}, tensor([0.5, 2.0, 3.74, 5.0, 12.0]))", real(3, 5) * 2,
                  ["mean", "mode", "variance"]),
    "weibull": (f"Weibull({t(pos(4))}, {t(pos(4, low=0.5, high=4.0))})", pos(2, 4), MOMENTS + ["cdf", "icdf"]),
    "wishart_cov": (f"Wishart(tensor([4.0, 6.5]), covariance_matrix={t(spd(2))})", spd(3, 2),
                    ["mean", "mode", "variance", "entropy"]),
    "wishart_tril": (f"Wishart(5.0, scale_tril={t(np.linalg.cholesky(spd(n=3)))})", spd(2),
                     ["mean", "variance", "entropy", "precision_matrix"]),
    "wishart_prec": (f"Wishart(tensor(3.5), precision_matrix={t(spd(n=2))})", spd(n=2),
                     ["mean", "variance", "entropy", "covariance_matrix", "scale_tril"]),
}

# Entropies through ExponentialFamily's generic Bregman form.
EXPFAMILY_ENTROPY = {
    "normal": f"Normal({t(real(3))}, {t(pos(3))})",
    "gamma": f"Gamma({t(pos(3))}, {t(pos(3))})",
    "exponential": f"Exponential({t(pos(3))})",
    "bernoulli": f"Bernoulli(probs={t(unit(3))})",
    "cb": f"ContinuousBernoulli(probs={t(unit(3))})",
    "wishart": f"Wishart(tensor([4.0, 5.0]), covariance_matrix={t(spd(2))})",
}

# (p, q) expressions
KL_PAIRS = [
    (f"Cauchy({t(real(3))}, {t(pos(3))})", f"Cauchy({t(real(3))}, {t(pos(3))})"),
    (f"ContinuousBernoulli(probs={t(np.r_[unit(3), 0.5])})", f"ContinuousBernoulli(probs={t(unit(4))})"),
    (f"Geometric(probs={t(unit(4))})", f"Geometric(probs={t(unit(4))})"),
    (f"Gumbel({t(real(3))}, {t(pos(3))})", f"Gumbel({t(real(3))}, {t(pos(3))})"),
    (f"HalfNormal({t(pos(3))})", f"HalfNormal({t(pos(3))})"),
    ("Pareto(tensor([1.0, 2.0, 0.5]), tensor([1.5, 2.0, 3.0]))", "Pareto(tensor([0.5, 1.0, 1.0]), tensor([2.0, 1.0, 0.7]))"),
    (f"LowRankMultivariateNormal({t(real(2, 3))}, {t(real(2, 3, 2))}, {t(pos(2, 3))})",
     f"LowRankMultivariateNormal({t(real(2, 3))}, {t(real(3, 1))}, {t(pos(2, 3))})"),
    (f"MultivariateNormal({t(real(2, 3))}, covariance_matrix={t(spd(2))})",
     f"LowRankMultivariateNormal({t(real(2, 3))}, {t(real(2, 3, 2))}, {t(pos(2, 3))})"),
    (f"LowRankMultivariateNormal({t(real(2, 3))}, {t(real(2, 3, 2))}, {t(pos(2, 3))})",
     f"MultivariateNormal({t(real(3))}, covariance_matrix={t(spd(n=3))})"),
    (f"Beta({t(pos(3))}, {t(pos(3))})", f"ContinuousBernoulli(probs={t(unit(3))})"),
    (f"ContinuousBernoulli(probs={t(unit(3))})", f"Exponential({t(pos(3))})"),
    (f"ContinuousBernoulli(probs={t(unit(3))})", f"Normal({t(real(3))}, {t(pos(3))})"),
    (f"ContinuousBernoulli(probs={t(unit(3))})", "Uniform(tensor([-1.0, 0.1, 0.0]), tensor([2.0, 0.9, 1.0]))"),
    (f"Exponential({t(pos(3))})", f"Gumbel({t(real(3))}, {t(pos(3))})"),
    (f"Gamma({t(pos(3))}, {t(pos(3))})", f"Gumbel({t(real(3))}, {t(pos(3))})"),
    (f"Gumbel({t(real(3))}, {t(pos(3))})", f"Normal({t(real(3))}, {t(pos(3))})"),
    (f"Normal({t(real(3))}, {t(pos(3))})", f"Gumbel({t(real(3))}, {t(pos(3))})"),
    ("Pareto(tensor([1.0, 2.0, 0.5]), tensor([0.8, 2.0, 3.0]))", f"Exponential({t(pos(3))})"),
    ("Pareto(tensor([1.0, 2.0, 0.5]), tensor([0.8, 2.0, 3.0]))", f"Gamma({t(pos(3))}, {t(pos(3))})"),
    ("Pareto(tensor([1.0, 2.0, 0.5]), tensor([1.8, 2.5, 3.0]))", f"Normal({t(real(3))}, {t(pos(3))})"),
    ("Uniform(tensor([0.1, 0.2, -0.5]), tensor([0.5, 1.0, 0.5]))", f"ContinuousBernoulli(probs={t(unit(3))})"),
    (f"Uniform(tensor([-1.0, 0.2, 0.5]), tensor([0.5, 1.0, 2.5]))", f"Gumbel({t(real(3))}, {t(pos(3))})"),
    ("Uniform(tensor([1.0, 0.2, 2.0]), tensor([1.5, 1.0, 2.5]))", "Pareto(tensor([0.5, 0.5, 1.0]), tensor([2.0, 1.0, 3.0]))"),
    (f"Wishart(tensor([4.0, 6.0]), covariance_matrix={t(spd(2))})", f"Wishart(tensor(5.0), scale_tril={t(np.linalg.cholesky(spd(n=3)))})"),
    (f"Gumbel({t(real(3))}, {t(pos(3))})", "Pareto(tensor([0.5, 0.5, 1.0]), tensor([2.0, 1.0, 3.0]))"),
    (f"Normal({t(real(3))}, {t(pos(3))})", f"ContinuousBernoulli(probs={t(unit(3))})"),
    (f"Pareto({t(pos(3))}, {t(pos(3))})", f"Beta({t(pos(3))}, {t(pos(3))})"),
]
# the generic Bregman KL, called directly on pairs that have closed forms too
EXPFAMILY_KL = [
    (f"Normal({t(real(3))}, {t(pos(3))})", f"Normal({t(real(3))}, {t(pos(3))})"),
    (f"Gamma({t(pos(3))}, {t(pos(3))})", f"Gamma({t(pos(3))}, {t(pos(3))})"),
    (f"Exponential({t(pos(3))})", f"Exponential({t(pos(3))})"),
    (f"Bernoulli(probs={t(unit(3))})", f"Bernoulli(probs={t(unit(3))})"),
    (f"Beta({t(pos(3))}, {t(pos(3))})", f"Beta({t(pos(3))}, {t(pos(3))})"),
    (f"Dirichlet({t(pos(2, 3))})", f"Dirichlet({t(pos(2, 3))})"),
    (f"Poisson({t(pos(3))})", f"Poisson({t(pos(3))})"),
]

# transform expression -> input x (in the domain)
TRANSFORMS = {
    "abs": ("T.AbsTransform()", real(2, 3)),
    "softplus": ("T.SoftplusTransform()", real(2, 3) * 3),
    "sigmoid": ("T.SigmoidTransform()", real(2, 3) * 3),
    "softmax": ("T.SoftmaxTransform()", real(2, 4)),
    "stick_breaking": ("T.StickBreakingTransform()", real(2, 3)),
    "lower_cholesky": ("T.LowerCholeskyTransform()", real(2, 3, 3)),
    "positive_definite": ("T.PositiveDefiniteTransform()", real(2, 3, 3)),
    "corr_cholesky": ("T.CorrCholeskyTransform()", real(2, 6)),
    "corr_cholesky_2": ("T.CorrCholeskyTransform()", real(4, 1)),
    "independent": ("T.IndependentTransform(T.ExpTransform(), 1)", real(2, 3)),
    "independent_affine": (f"T.IndependentTransform(T.AffineTransform(1.0, {t(pos(3))}), 2)", real(4, 2, 3)),
    "reshape": ("T.ReshapeTransform((2, 3), (3, 2))", real(4, 2, 3)),
    "cat": ("T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=-1, lengths=[2, 1])", real(4, 3)),
    "cat_dim0": ("T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0, lengths=[1, 2])", real(3, 2)),
    "cat_event": ("T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.AffineTransform(0.0, 3.0)], "
                  "dim=0, lengths=[2, 2])", real(4, 2)),
    "stack": ("T.StackTransform([T.ExpTransform(), T.SigmoidTransform(), T.AffineTransform(0.5, -1.0)], dim=-1)",
              real(2, 3)),
    "stack_dim0": ("T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0)", real(2, 4)),
    "cdf_normal": (f"T.CumulativeDistributionTransform(Normal({t(real(3))}, {t(pos(3))}))", real(2, 3)),
    "cdf_gumbel": (f"T.CumulativeDistributionTransform(Gumbel({t(real(3))}, {t(pos(3))}))", real(2, 3)),
}

CONSTRAINTS = {
    "real": ("constraints.real", real(2, 3)),
    "positive": ("constraints.positive", real(2, 3)),
    "nonnegative": ("constraints.nonnegative", real(2, 3)),
    "greater_than": ("constraints.greater_than(1.5)", real(2, 3)),
    "greater_than_eq": (f"constraints.greater_than_eq({t(real(3))})", real(2, 3)),
    "less_than": ("constraints.less_than(2.0)", real(2, 3)),
    "interval": ("constraints.interval(-1.0, 3.0)", real(2, 3)),
    "half_open_interval": ("constraints.half_open_interval(0.5, 1.5)", real(2, 3)),
    "unit_interval": ("constraints.unit_interval", real(2, 3)),
    "simplex": ("constraints.simplex", real(2, 3)),
    "corr_cholesky": ("constraints.corr_cholesky", real(2, 3)),
    "independent": ("constraints.independent(constraints.positive, 1)", real(2, 3)),
    "real_vector": ("constraints.real_vector", real(2, 3)),
    "cat": ("constraints.cat([constraints.positive, constraints.real, constraints.unit_interval], -1, [1, 1, 1])",
            real(2, 3)),
    "stack": ("constraints.stack([constraints.positive, constraints.interval(0.0, 2.0)], dim=-1)", real(3, 2)),
}
TRANSFORM_TO_ONLY = {
    "simplex": ("constraints.simplex", real(2, 3)),
    "lower_cholesky": ("constraints.lower_cholesky", real(2, 3, 3)),
    "positive_definite": ("constraints.positive_definite", real(2, 3, 3)),
    "positive_semidefinite": ("constraints.positive_semidefinite", real(2, 2, 2)),
}


def ev(expr):
    return eval(expr, ENV)  # noqa: S307 - our own fixed expressions


def arr(x):
    if isinstance(x, (int, float)):
        return x
    return x.detach().numpy().tolist()


def record_transform(tr, x):
    rec = {"y": None}
    y = tr(x)
    rec["y"] = arr(y)
    rec["inv"] = arr(tr.inv(y))
    try:
        rec["ladj"] = arr(tr.log_abs_det_jacobian(x, y))
    except NotImplementedError:
        rec["ladj"] = None
    rec["forward_shape"] = list(tr.forward_shape(x.shape))
    rec["inverse_shape"] = list(tr.inverse_shape(y.shape))
    rec["domain_event_dim"] = tr.domain.event_dim
    rec["codomain_event_dim"] = tr.codomain.event_dim
    rec["bijective"] = tr.bijective
    return rec


def main():
    torch.set_default_dtype(torch.float64)
    out = {"cases": {}, "expfamily_entropy": {}, "kl": [], "expfamily_kl": [],
           "transforms": {}, "biject_to": {}, "transform_to": {}}
    for name, (expr, value, what) in CASES.items():
        d = ev(expr)
        v = torch.tensor(np.asarray(value, dtype=np.float64))
        rec = {"expr": expr, "value": np.asarray(value, dtype=np.float64).tolist(),
               "batch_shape": list(d.batch_shape), "event_shape": list(d.event_shape),
               "log_prob": arr(d.log_prob(v))}
        for w in what:
            if w == "entropy":
                rec[w] = arr(d.entropy())
            elif w == "cdf":
                rec[w] = arr(d.cdf(v))
            elif w == "icdf":
                q = torch.linspace(0.05, 0.95, 7).reshape((7,) + (1,) * len(d.batch_shape))
                q = q.expand((7,) + tuple(d.batch_shape))
                rec["icdf_q"] = arr(q)
                rec[w] = arr(d.icdf(q))
            else:
                rec[w] = arr(getattr(d, w))
        out["cases"][name] = rec
    for name, expr in EXPFAMILY_ENTROPY.items():
        out["expfamily_entropy"][name] = {"expr": expr, "entropy": arr(D.ExponentialFamily.entropy(ev(expr)))}
    for p_expr, q_expr in KL_PAIRS:
        out["kl"].append({"p": p_expr, "q": q_expr, "kl": arr(D.kl_divergence(ev(p_expr), ev(q_expr)))})
    for p_expr, q_expr in EXPFAMILY_KL:
        kl = D.kl._kl_expfamily_expfamily(ev(p_expr), ev(q_expr))
        out["expfamily_kl"].append({"p": p_expr, "q": q_expr, "kl": arr(kl)})
    for name, (expr, x) in TRANSFORMS.items():
        rec = record_transform(ev(expr), torch.tensor(x))
        rec.update(expr=expr, x=x.tolist())
        out["transforms"][name] = rec
    for registry, table in (("biject_to", CONSTRAINTS), ("transform_to", {**CONSTRAINTS, **TRANSFORM_TO_ONLY})):
        for name, (expr, x) in table.items():
            tr = getattr(D, registry)(ev(expr))
            rec = record_transform(tr, torch.tensor(x))
            rec.update(expr=expr, x=x.tolist(), transform=repr(tr))
            out[registry][name] = rec
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0)
    print(f"wrote {len(out['cases'])} cases, {len(out['kl'])} + {len(out['expfamily_kl'])} KL pairs, "
          f"{len(out['transforms'])} transforms to tests/golden/distributions/more.json (torch {torch.__version__})")


if __name__ == "__main__":
    main()
