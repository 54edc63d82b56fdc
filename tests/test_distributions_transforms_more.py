"""The transforms added after the first set (Abs, Softplus, Softmax,
StickBreaking, LowerCholesky, PositiveDefinite, CorrCholesky, Independent,
Reshape, Cat, Stack, CumulativeDistribution) and biject_to / transform_to,
against PyTorch's values recorded by scripts/golden_distributions_more.py:
forward, inverse, log|det J|, shapes and event dims; log|det J| also
against the Jacobian taken by autograd."""

import numpy as np
import pytest

import torchlike
import torchlike.distributions as D
from distributions_more_golden import GOLD, TOL, ev, float64_default  # noqa: F401 - the fixture is autouse
from oracle import host_array

def f64(v):
    return torchlike.tensor(v, dtype=torchlike.float64)


def check(actual, expected):
    expected = np.array(expected, dtype=np.float64)
    assert tuple(actual.shape) == expected.shape
    np.testing.assert_allclose(host_array(actual.detach()), expected, equal_nan=True, **TOL)


def check_transform(tr, rec, check_codomain=True):
    x = f64(rec["x"])
    y = tr(x)
    check(y, rec["y"])
    check(tr.inv(y), rec["inv"])
    if rec["ladj"] is not None:
        check(tr.log_abs_det_jacobian(x, y), rec["ladj"])
    assert list(tr.forward_shape(tuple(x.shape))) == rec["forward_shape"]
    assert list(tr.inverse_shape(tuple(y.shape))) == rec["inverse_shape"]
    assert tr.domain.event_dim == rec["domain_event_dim"]
    assert tr.codomain.event_dim == rec["codomain_event_dim"]
    assert tr.bijective == rec["bijective"]
    if check_codomain:
        assert bool(tr.codomain.check(y).all())


@pytest.mark.parametrize("name", sorted(GOLD["transforms"]))
def test_transform_matches_pytorch(name):
    rec = GOLD["transforms"][name]
    # constraints.cat cannot check pieces of different event dims (nor can PyTorch's)
    check_transform(ev(rec["expr"]), rec, check_codomain=name != "cat_event")


@pytest.mark.parametrize("registry,name", [(r, n) for r in ("biject_to", "transform_to") for n in sorted(GOLD[r])])
def test_constraint_registry_matches_pytorch(registry, name):
    rec = GOLD[registry][name]
    tr = getattr(D, registry)(ev(rec["expr"]))
    assert type(tr).__name__ == rec["transform"].split("(")[0]
    check_transform(tr, rec)


def test_registries_refuse_unknown_constraints_and_accept_new_ones():
    with pytest.raises(NotImplementedError, match="Cannot transform _IntegerGreaterThan constraints"):
        D.biject_to(D.constraints.nonnegative_integer)
    with pytest.raises(NotImplementedError):
        D.biject_to(D.constraints.lower_cholesky)  # transform_to only, as PyTorch

    class MyConstraint(D.constraints.Constraint):
        pass

    registry = D.constraint_registry.ConstraintRegistry()
    registry.register(MyConstraint, lambda c: D.transforms.ExpTransform())
    assert isinstance(registry(MyConstraint()), D.transforms.ExpTransform)
    with pytest.raises(TypeError):
        registry.register(int, lambda c: None)


def _jacobian(fn, x):
    """The Jacobian of fn at x, (y.numel(), x.numel()), by autograd."""
    x = x.detach().requires_grad_()
    y = fn(x).reshape(-1)
    rows = []
    for i in range(y.shape[0]):
        (g,) = torchlike.autograd.grad(y[i], x, retain_graph=True)
        rows.append(host_array(g).reshape(-1))
    return np.stack(rows)


@pytest.mark.parametrize("expr,x", [
    ("T.SoftplusTransform()", [0.3, -2.0, 4.0]),
    ("T.CorrCholeskyTransform()", [0.3, -1.2, 0.5]),
    ("T.CorrCholeskyTransform()", [0.3, -1.2, 0.5, 0.1, 2.0, -0.4]),
    ("T.StickBreakingTransform()", [0.3, -1.2, 0.5]),
    ("T.CumulativeDistributionTransform(Gumbel(tensor([0.0, 1.0]), tensor([1.0, 2.0])))", [0.3, -1.2]),
])
def test_log_abs_det_jacobian_is_the_log_determinant(expr, x):
    """For a bijection of R^n onto an n-dimensional set (the free entries of
    the corr-Cholesky factor: below the diagonal; the simplex: all but the
    last), log|det J| equals the log-determinant of autograd's Jacobian."""
    tr = ev(expr)
    x = f64(x)
    y = tr(x)
    if isinstance(tr, D.transforms.CorrCholeskyTransform):
        jac = _jacobian(lambda v: D.transforms_constrained._tril_matrix_to_vec(tr(v), -1), x)
    elif isinstance(tr, D.transforms.StickBreakingTransform):
        jac = _jacobian(lambda v: tr(v)[..., :-1], x)
    else:
        jac = np.diag(np.diag(_jacobian(tr, x)))
    ladj = host_array(tr.log_abs_det_jacobian(x, y).sum() if tr.domain.event_dim == 0
                      else tr.log_abs_det_jacobian(x, y))
    np.testing.assert_allclose(ladj, np.linalg.slogdet(jac)[1], rtol=1e-9, atol=1e-10)


def test_transforms_compare_cache_and_invert():
    T = D.transforms
    assert T.SoftplusTransform() == T.SoftplusTransform() and T.AbsTransform() != T.SoftplusTransform()
    assert hash(T.StickBreakingTransform()) == hash(T.StickBreakingTransform())
    tr = T.CatTransform([T.ExpTransform(), T.SoftplusTransform()], dim=-1, lengths=[1, 2], cache_size=1)
    x = f64([[0.5, -1.0, 2.0]])
    y = tr(x)
    assert tr.inv(y) is x  # the cache returns the very input
    st = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0).with_cache(1)
    assert st._cache_size == 1 and all(t._cache_size == 1 for t in st.transforms)
    ind = T.IndependentTransform(T.ExpTransform(), 1)
    assert repr(ind) == "IndependentTransform(ExpTransform(), 1)"
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        ind(f64(1.0))
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (4,))
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        T.CorrCholeskyTransform().forward_shape((4,))
    with pytest.raises(AssertionError, match="must equal length"):
        tr(f64([[0.5, -1.0]]))


def test_transformed_distributions_through_the_new_transforms():
    """log_prob of a TransformedDistribution built on the new transforms
    against the change-of-variables formula written out."""
    base = D.Normal(f64([0.1, -0.3, 0.5]), f64([1.0, 0.5, 2.0]))
    d = D.TransformedDistribution(base, [D.transforms.SoftplusTransform()])
    y = f64([0.7, 1.5, 0.2])
    x = torchlike.log(torchlike.expm1(y))
    expected = base.log_prob(x) - torchlike.log(torchlike.sigmoid(x))
    np.testing.assert_allclose(host_array(d.log_prob(y)), host_array(expected), rtol=1e-12)
    # StickBreaking of an Independent normal: a LogisticNormal
    sb = D.TransformedDistribution(D.Independent(base, 1), [D.transforms.StickBreakingTransform()])
    ln = D.LogisticNormal(base.loc, base.scale)
    v = f64([0.2, 0.3, 0.1, 0.4])
    np.testing.assert_allclose(host_array(sb.log_prob(v)), host_array(ln.log_prob(v)), rtol=1e-12)
