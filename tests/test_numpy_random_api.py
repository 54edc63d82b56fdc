"""torchlike.numpy.random against NumPy's random API: every function's result
shape, dtype and scalar-ness for the same arguments (scalars, arrays,
broadcasting, size= tuples, size=0, empty parameters), NumPy's exception
types and messages for bad arguments, seeding, state and spawning.

The values differ from NumPy's (torchlike's Philox stream); their
distributions are checked in test_numpy_random_dists.py.  Where NumPy
returns a scalar the result is a 0-d tensor.  Results are compared through
.cpu(), so the file runs in the device suites too (test_device_suites)."""
import re
import warnings

import numpy as onp
import pytest

import torchlike as T
import torchlike.numpy as tnp

# name: scalar parameters valid for both APIs (a float parameter first when possible)
CONT = {
    "normal": (1.0, 2.0), "uniform": (1.0, 3.0), "lognormal": (0.5, 0.7), "laplace": (1.0, 2.0),
    "logistic": (1.0, 2.0), "gumbel": (1.0, 2.0), "exponential": (2.0,), "rayleigh": (2.0,),
    "gamma": (0.5, 2.0), "standard_gamma": (1.5,), "beta": (0.5, 2.0), "chisquare": (3.0,),
    "noncentral_chisquare": (3.0, 2.0), "f": (4.0, 7.0), "noncentral_f": (4.0, 7.0, 2.0),
    "standard_t": (3.0,), "pareto": (3.0,), "power": (2.5,), "weibull": (1.5,),
    "triangular": (0.0, 1.0, 3.0), "vonmises": (0.5, 2.0), "wald": (1.5, 2.0),
}
DISC = {
    "binomial": (20, 0.3), "negative_binomial": (3.5, 0.4), "poisson": (3.0,),
    "geometric": (0.3,), "hypergeometric": (7, 12, 5), "logseries": (0.7,), "zipf": (2.5,),
}
NOARG = ["standard_normal", "standard_exponential", "standard_cauchy", "random"]
SIZES = [None, 5, (2, 3), 0, (0, 3)]


def rngs(seed=0):
    return onp.random.default_rng(seed), tnp.random.default_rng(seed)


def states(seed=0):
    return onp.random.RandomState(seed), tnp.random.RandomState(seed)


def same_form(ours, theirs):
    """Shape and dtype of NumPy's result; a 0-d tensor where NumPy gives a scalar."""
    ref = onp.asarray(theirs)
    assert isinstance(ours, T.Tensor)
    assert tuple(ours.shape) == ref.shape
    assert ours.dtype.name == ref.dtype.name, (ours.dtype, ref.dtype)
    return ours.cpu().numpy()


def same_error(call_ours, call_theirs):
    """The same exception type and message.  NumPy's broadcast errors number the
    arguments by its internal order: only their first sentence is compared."""
    with pytest.raises(Exception) as theirs:
        call_theirs()
    message = re.escape(str(theirs.value)) + "$"
    if str(theirs.value).startswith("shape mismatch"):
        message = re.escape(str(theirs.value).split("  ")[0])
    with pytest.raises(type(theirs.value), match="^" + message):
        call_ours()


def variants(params):
    """Argument tuples: scalars, arrays of the first parameter, broadcasting the
    first against the last, an empty first parameter."""
    first, rest = params[0], params[1:]
    yield params
    yield (onp.full(3, first),) + rest
    yield (onp.full((2, 1), first),) + rest[:-1] + (onp.full(3, rest[-1]),) if rest else \
        (onp.full((2, 1), first),)
    yield (onp.full(0, first),) + rest
    yield (T.tensor([first] * 3),) + rest


@pytest.mark.parametrize("api", ["generator", "legacy"])
@pytest.mark.parametrize("name", sorted(CONT) + sorted(DISC))
def test_distribution_shapes_dtypes_and_scalars_match_numpy(api, name):
    params = {**CONT, **DISC}[name]
    theirs, ours = rngs() if api == "generator" else states()
    if api == "legacy" and name == "hypergeometric":
        params = (7, 12, 5)
    for args in variants(params):
        np_args = tuple(a.cpu().numpy() if isinstance(a, T.Tensor) else a for a in args)
        for size in SIZES:
            try:
                ref = getattr(theirs, name)(*np_args, size=size)
            except (ValueError, TypeError):
                same_error(lambda: getattr(ours, name)(*args, size=size),
                           lambda: getattr(theirs, name)(*np_args, size=size))
                continue
            same_form(getattr(ours, name)(*args, size=size), ref)
        # size holding the broadcast shape with more leading axes
        shape = onp.broadcast_shapes(*(onp.shape(a) for a in np_args))
        ref = getattr(theirs, name)(*np_args, size=(4,) + shape)
        same_form(getattr(ours, name)(*args, size=(4,) + shape), ref)


@pytest.mark.parametrize("name", NOARG)
def test_parameterless_draws_match_numpy(name):
    for api in (rngs, states):
        theirs, ours = api()
        for size in SIZES:
            same_form(getattr(ours, name)(size=size), getattr(theirs, name)(size=size))


def test_broadcast_errors_are_numpys():
    theirs, ours = rngs()
    same_error(lambda: ours.normal([1, 2], 1, size=3), lambda: theirs.normal([1, 2], 1, size=3))
    same_error(lambda: ours.normal([1, 2], [1, 2, 3]), lambda: theirs.normal([1, 2], [1, 2, 3]))
    same_error(lambda: ours.normal(onp.zeros((2, 1)), 1, size=(2,)),
               lambda: theirs.normal(onp.zeros((2, 1)), 1, size=(2,)))
    same_error(lambda: ours.normal(size=-1), lambda: theirs.normal(size=-1))


BAD = {
    "beta": [(0, 1), (1, 0)], "binomial": [(-1, .5), (3, 2), (3, onp.nan)],
    "chisquare": [(0,)], "exponential": [(-1,)], "f": [(0, 1), (1, 0)],
    "gamma": [(-1,), (1, -1)], "geometric": [(0,), (2,), (onp.nan,)], "gumbel": [(0, -1)],
    "hypergeometric": [(-1, 1, 1), (1, -1, 1), (1, 1, -1), (1, 1, 3), (1, 1, 0), (10**9, 1, 3)],
    "laplace": [(0, -1)], "logistic": [(0, -1)], "lognormal": [(0, -1)],
    "logseries": [(-0.1,), (1,), (onp.nan,)],
    "negative_binomial": [(0, .5), (1, 0), (1, 1.5)], "noncentral_chisquare": [(0, 1), (1, -1)],
    "noncentral_f": [(0, 1, 1), (1, 0, 1), (1, 1, -1)], "normal": [(0, -1)], "pareto": [(0,)],
    "poisson": [(-1,), (1e19,), (onp.nan,)], "power": [(0,)], "rayleigh": [(-1,)],
    "standard_gamma": [(-1,)], "standard_t": [(0,)],
    "triangular": [(1, 0, 2), (0, 3, 2), (1, 1, 1)], "uniform": [(2, 1), (-1e308, 1e308)],
    "vonmises": [(0, -1)], "wald": [(0, 1), (1, 0)], "weibull": [(-1,)], "zipf": [(1,), (onp.nan,)],
    "dirichlet": [([0, 1],), ([-1, 1],)],
    "multinomial": [(-1, [.5, .5]), (3, [-.1, 1.1]), (3, [.8, .8, 0])],
}


@pytest.mark.filterwarnings("ignore:overflow encountered")  # NumPy's own, for 1e308 - -1e308
@pytest.mark.parametrize("api", ["generator", "legacy"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_parameters_raise_numpys_errors(api, name):
    theirs, ours = rngs() if api == "generator" else states()
    for args in BAD[name]:
        try:
            getattr(theirs, name)(*args)
        except Exception:
            same_error(lambda: getattr(ours, name)(*args), lambda: getattr(theirs, name)(*args))
            # the bad value inside an array parameter
            if name not in ("dirichlet", "multinomial"):
                arr = (onp.asarray([args[0], args[0]]),) + args[1:]
                arr_t = (T.tensor(arr[0].tolist()),) + args[1:]
                same_error(lambda: getattr(ours, name)(*arr_t),
                           lambda: getattr(theirs, name)(*arr))
        else:
            same_form(getattr(ours, name)(*args), getattr(theirs, name)(*args))


def test_integers_bounds_dtypes_and_endpoint():
    theirs, ours = rngs()
    for args, kw in [((5,), {}), ((5,), {"size": 3}), ((-3, 7), {"size": (2, 2)}),
                     (([1, 2], [5, 10]), {}), ((0, [[3], [4]]), {"size": (2, 3)}),
                     ((0, 255), {"dtype": onp.uint8, "endpoint": True}),
                     ((-128, 127), {"dtype": "int8", "endpoint": True, "size": 4}),
                     ((0, 2), {"dtype": bool, "size": 3}), ((2,), {"dtype": onp.int32}),
                     ((-2**63, 2**63 - 1), {"endpoint": True, "size": 4}),
                     (([-2**63, 0], [2**63 - 1, 2**62 + 5]), {"endpoint": True})]:
        same_form(ours.integers(*args, **kw), theirs.integers(*args, **kw))
    for args, kw in [((0, 300), {"dtype": onp.int8}), ((-1, 3), {"dtype": onp.uint8}),
                     ((3, 3), {}), ((3, 2), {"endpoint": True}), (([3, 1], [2, 5]), {})]:
        same_error(lambda: ours.integers(*args, **kw), lambda: theirs.integers(*args, **kw))
    wide = ours.integers([-2**63, 5], [2**63 - 1, 9], size=(1000, 2), endpoint=True).cpu().numpy()
    assert wide[:, 1].min() >= 5 and wide[:, 1].max() <= 9
    assert (wide[:, 0] < 0).any() and (wide[:, 0] > 0).any()
    rs_t, rs_o = states()
    same_form(rs_o.randint(5), rs_t.randint(5))
    same_form(rs_o.randint(2, 9, size=(3,), dtype=onp.int16),
              rs_t.randint(2, 9, size=(3,), dtype=onp.int16))
    same_form(rs_o.tomaxint(3), rs_t.tomaxint(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        same_form(rs_o.random_integers(5, size=4), rs_t.random_integers(5, size=4))
        v = rs_o.random_integers(1, 3, size=400).cpu().numpy()
    assert set(v.tolist()) == {1, 2, 3}
    with pytest.warns(DeprecationWarning):
        rs_o.random_integers(5)


def test_dtype_and_out_of_the_standard_draws():
    theirs, ours = rngs()
    for name in ("random", "standard_normal", "standard_exponential"):
        r = getattr(ours, name)(3, dtype=onp.float32)
        same_form(r, getattr(theirs, name)(3, dtype=onp.float32))
        out = T.empty((2, 3), dtype=T.float64)
        assert getattr(ours, name)(out=out) is out
        same_error(lambda: getattr(ours, name)(dtype=onp.int32),
                   lambda: getattr(theirs, name)(dtype=onp.int32))
        same_error(lambda: getattr(ours, name)(size=4, out=T.empty(3, dtype=T.float64)),
                   lambda: getattr(theirs, name)(size=4, out=onp.empty(3)))
    out = T.empty((4,), dtype=T.float32)
    assert ours.standard_gamma(2.0, dtype="float32", out=out) is out
    assert float(out.min()) > 0
    same_form(ours.standard_gamma([1.0, 2.0], dtype=onp.float32),
              theirs.standard_gamma([1.0, 2.0], dtype=onp.float32))
    same_form(ours.standard_exponential(3, method="inv"),
              theirs.standard_exponential(3, method="inv"))


def test_choice_matches_numpys_shapes_and_errors():
    theirs, ours = rngs()
    a2 = onp.arange(12.0).reshape(3, 4)
    cases = [((5,), {}), ((5, 3), {}), ((5, (2, 2)), {}), ((5, 3), {"replace": False}),
             (([1.5, 2.5, 3.5],), {}), (([1, 2, 3], 4), {"p": [0.2, 0.3, 0.5]}),
             ((4, 3), {"replace": False, "p": [0.1, 0.2, 0.3, 0.4]}), ((a2,), {}),
             ((a2, 2), {"axis": 1}), ((a2, (2, 2)), {"axis": -1}), ((0, 0), {}),
             (([], 0), {}), ((10**6, 5), {"replace": False}), ((5, 0), {"replace": False})]
    for args, kw in cases:
        same_form(ours.choice(*args, **kw), theirs.choice(*args, **kw))
    for args, kw in [((0,), {}), (([],), {}), ((5,), {"p": [0.5, 0.5]}),
                     ((2,), {"p": [[0.5, 0.5]]}), ((2,), {"p": [-0.5, 1.5]}),
                     ((2,), {"p": [0.5, 0.6]}), ((3, 4), {"replace": False}),
                     ((3, 2), {"replace": False, "p": [1, 0, 0]}), ((-1,), {}), ((2.5,), {})]:
        same_error(lambda: ours.choice(*args, **kw), lambda: theirs.choice(*args, **kw))
    # NumPy raises a bare IndexError ("tuple index out of range"); AxisError is one
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ours.choice(a2, 2, axis=2)
    rs_t, rs_o = states()
    for args, kw in [((5,), {}), ((5, 3), {"replace": False}), (([1, 2, 3], 4), {"p": [.2, .3, .5]})]:
        same_form(rs_o.choice(*args, **kw), rs_t.choice(*args, **kw))
    for args, kw in [((a2,), {}), ((0,), {}), ((-1,), {}), ((2,), {"p": [0.5, 0.6]}),
                     ((2,), {"p": [-0.5, 1.5]}), ((3, 4), {"replace": False}),
                     ((5,), {"p": [0.5, 0.5]})]:
        same_error(lambda: rs_o.choice(*args, **kw), lambda: rs_t.choice(*args, **kw))
    picked = ours.choice(onp.arange(100), 100, replace=False).cpu().numpy()
    assert sorted(picked.tolist()) == list(range(100))
    picked = ours.choice(10**6, 1000, replace=False).cpu().numpy()
    assert len(set(picked.tolist())) == 1000 and picked.min() >= 0 and picked.max() < 10**6


def test_permutation_shuffle_and_permuted():
    theirs, ours = rngs()
    a = onp.arange(24).reshape(2, 3, 4)
    same_form(ours.permutation(7), theirs.permutation(7))
    p = ours.permutation(a, axis=1)
    same_form(p, theirs.permutation(a, axis=1))
    got = p.cpu().numpy()
    assert sorted(map(tuple, got.transpose(1, 0, 2).reshape(3, -1).tolist())) == \
        sorted(map(tuple, a.transpose(1, 0, 2).reshape(3, -1).tolist()))
    same_error(lambda: ours.permutation(onp.zeros(())), lambda: theirs.permutation(onp.zeros(())))
    same_error(lambda: ours.permuted(a, axis=5), lambda: theirs.permuted(a, axis=5))
    for axis in (None, 0, 2):
        r = ours.permuted(a, axis=axis)
        same_form(r, theirs.permuted(a, axis=axis))
        r = r.cpu().numpy()
        if axis is None:
            assert sorted(r.ravel().tolist()) == list(range(24))
        else:
            assert (onp.sort(r, axis=axis) == a).all()
    out = T.empty((2, 3, 4), dtype=T.int64)
    assert ours.permuted(a, axis=1, out=out) is out
    t = T.arange(12).reshape(3, 4)
    assert ours.shuffle(t, axis=1) is None
    assert (onp.sort(t.cpu().numpy(), axis=1) == onp.arange(12).reshape(3, 4)).all()
    lst = list(range(10))
    ours.shuffle(lst)
    assert sorted(lst) == list(range(10))
    rs_t, rs_o = states()
    same_form(rs_o.permutation(onp.arange(6.0)), rs_t.permutation(onp.arange(6.0)))


def test_multivariate_shapes_and_errors():
    theirs, ours = rngs()
    cov = [[1.0, 0.5], [0.5, 2.0]]
    for method in ("svd", "eigh", "cholesky"):
        for size in (None, 3, (2, 4)):
            same_form(ours.multivariate_normal([0, 1], cov, size=size, method=method),
                      theirs.multivariate_normal([0, 1], cov, size=size, method=method))
    for args, kw in [(([[0, 0]], cov), {}), (([0, 0, 0], cov), {}),
                     (([0, 0], [[1, 2], [2, 1]]), {"check_valid": "raise"}),
                     (([0, 0], cov), {"method": "x"}), (([0, 0], cov), {"check_valid": "x"}),
                     (([0, 0], [1.0, 2.0]), {})]:
        same_error(lambda: ours.multivariate_normal(*args, **kw),
                   lambda: theirs.multivariate_normal(*args, **kw))
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        ours.multivariate_normal([0, 0], [[1, 2], [2, 1]])
    for n, pvals, size in [(3, [0.2, 0.8], None), (3, [0.2, 0.3, 0.5], (4, 2)),
                           ([3, 4], [[0.5, 0.5]], None), (3, [[0.5, 0.5], [0.2, 0.8]], (4, 2)),
                           (0, [0.5, 0.5], 3), (5, [1.0], None)]:
        same_form(ours.multinomial(n, pvals, size=size), theirs.multinomial(n, pvals, size=size))
    for args, kw in [((3, 0.5), {}), ((3, []), {}), ((3, [[0.5, 0.5], [0.2, 0.8]]), {"size": (4, 3)})]:
        same_error(lambda: ours.multinomial(*args, **kw), lambda: theirs.multinomial(*args, **kw))
    for alpha, size in [([1.0, 2.0, 3.0], None), ([0.5, 0.5], (3, 2)), ([0.0, 1.0], 4)]:
        same_form(ours.dirichlet(alpha, size=size), theirs.dirichlet(alpha, size=size))
    assert (ours.dirichlet([0.0, 1.0], 4).cpu().numpy()[:, 0] == 0).all()
    for colors, nsample, size, method in [([3, 4, 5], 6, None, "marginals"),
                                          ([3, 4, 5], 6, (2, 3), "count"), ([0, 7], 7, 2, "marginals"),
                                          ([], 0, 2, "marginals")]:
        same_form(ours.multivariate_hypergeometric(colors, nsample, size, method),
                  theirs.multivariate_hypergeometric(colors, nsample, size, method))
    for args, kw in [(([1, 2], 4), {}), (([1, 2], -1), {}), (([[1, 2]], 1), {}),
                     (([1, -2], 1), {}), (([1, 2], 1), {"method": "x"}), (([1, 2], 1.5), {})]:
        try:
            theirs.multivariate_hypergeometric(*args, **kw)
        except ValueError:
            same_error(lambda: ours.multivariate_hypergeometric(*args, **kw),
                       lambda: theirs.multivariate_hypergeometric(*args, **kw))
    draws = ours.multivariate_hypergeometric([3, 4, 5], 6, size=200).cpu().numpy()
    assert (draws.sum(1) == 6).all() and (draws <= [3, 4, 5]).all()
    rs_t, rs_o = states()
    same_form(rs_o.multinomial(5, [0.3, 0.7], size=3), rs_t.multinomial(5, [0.3, 0.7], size=3))
    same_form(rs_o.dirichlet([1.0, 2.0], 3), rs_t.dirichlet([1.0, 2.0], 3))
    same_form(rs_o.multivariate_normal([0, 0], cov, 3), rs_t.multivariate_normal([0, 0], cov, 3))


def test_legacy_only_functions_and_module_aliases():
    for name in ("rand", "randn"):
        same_form(getattr(tnp.random, name)(2, 3), getattr(onp.random, name)(2, 3))
        same_form(getattr(tnp.random, name)(), getattr(onp.random, name)())
    for name in ("random", "random_sample", "ranf", "sample"):
        same_form(getattr(tnp.random, name)((2, 2)), getattr(onp.random, name)((2, 2)))
    assert isinstance(tnp.random.bytes(5), bytes) and len(tnp.random.bytes(5)) == 5
    assert len(tnp.random.default_rng(0).bytes(7)) == 7
    missing = set(onp.random.__all__) - set(dir(tnp.random))
    assert not missing
    for cls, ref in ((tnp.random.Generator, onp.random.Generator),
                     (tnp.random.RandomState, onp.random.RandomState)):
        names = {n for n in dir(ref) if not n.startswith("_")}
        assert not names - set(dir(cls)), names - set(dir(cls))
        assert not {n for n in dir(cls) if not n.startswith("_")} - names


def test_seeds_reproduce_and_differ():
    a = tnp.random.default_rng(5).normal(size=50).cpu().numpy()
    b = tnp.random.default_rng(5).normal(size=50).cpu().numpy()
    c = tnp.random.default_rng(6).normal(size=50).cpu().numpy()
    assert (a == b).all() and not (a == c).any()
    same = [tnp.random.Generator(tnp.random.PCG64(5)), tnp.random.default_rng(tnp.random.SeedSequence(5)),
            tnp.random.Generator(tnp.random.MT19937(5)), tnp.random.default_rng(tnp.random.SFC64(5))]
    for g in same:
        assert (g.normal(size=50).cpu().numpy() == a).all()
    g = tnp.random.default_rng(5)
    assert tnp.random.default_rng(g) is g
    assert not (tnp.random.default_rng([5, 1]).normal(size=50).cpu().numpy() == a).any()
    assert not (tnp.random.default_rng().normal(size=50).cpu().numpy() == a).any()
    same_error(lambda: tnp.random.default_rng(-1), lambda: onp.random.default_rng(-1))
    same_error(lambda: tnp.random.default_rng(1.5), lambda: onp.random.default_rng(1.5))
    for bad in (-1, 2**32, [], [[1, 2]], [1, -1]):
        same_error(lambda: tnp.random.RandomState(bad), lambda: onp.random.RandomState(bad))
    same_error(lambda: tnp.random.RandomState(1.5), lambda: onp.random.RandomState(1.5))
    tnp.random.seed(3)
    first = tnp.random.standard_normal(20).cpu().numpy()
    tnp.random.seed(3)
    assert (tnp.random.standard_normal(20).cpu().numpy() == first).all()
    assert (tnp.random.RandomState(3).standard_normal(20).cpu().numpy() == first).all()
    r = tnp.random.RandomState([1, 2])
    r.seed(3)
    assert (r.standard_normal(20).cpu().numpy() == first).all()


def test_states_round_trip():
    r = tnp.random.RandomState(9)
    r.normal(size=7)
    state = r.get_state()
    assert state[0] == "MT19937" and len(state) == 5
    first = r.normal(size=30).cpu().numpy()
    r.set_state(state)
    assert (r.normal(size=30).cpu().numpy() == first).all()
    r.set_state(r.get_state(legacy=False))
    again = r.normal(size=5).cpu().numpy()
    r2 = tnp.random.RandomState(0)
    r2.set_state(state)
    r2.normal(size=30)
    assert (r2.normal(size=5).cpu().numpy() == again).all()
    with pytest.raises(ValueError, match="MT19937"):
        r.set_state(("PCG64",) + state[1:])
    saved = tnp.random.get_state()
    x = tnp.random.rand(4).cpu().numpy()
    tnp.random.set_state(saved)
    assert (tnp.random.rand(4).cpu().numpy() == x).all()
    g = tnp.random.default_rng(4)
    st = g.bit_generator.state
    y = g.random(6).cpu().numpy()
    g.bit_generator.state = st
    assert (g.random(6).cpu().numpy() == y).all()
    with pytest.raises(ValueError):
        g.bit_generator.state = {"bit_generator": "MT19937", "state": st["state"]}


def test_bit_generator_of_the_module_functions():
    old = tnp.random.get_bit_generator()
    try:
        tnp.random.set_bit_generator(tnp.random.PCG64(11))
        a = tnp.random.random(5).cpu().numpy()
        assert (a == tnp.random.Generator(tnp.random.PCG64(11)).random(5).cpu().numpy()).all()
        with pytest.raises(TypeError):
            tnp.random.set_bit_generator(3)
    finally:
        tnp.random.set_bit_generator(old)
    assert tnp.random.get_bit_generator() is old


def test_spawn_gives_independent_streams():
    g = tnp.random.default_rng(21)
    kids = g.spawn(3)
    draws = [k.standard_normal(4000).cpu().numpy() for k in kids] + \
        [g.standard_normal(4000).cpu().numpy()]
    corr = onp.corrcoef(draws)
    off = corr[~onp.eye(4, dtype=bool)]
    assert onp.abs(off).max() < 5 / onp.sqrt(4000)  # 5 sigma for independent streams
    again = tnp.random.default_rng(21).spawn(3)
    assert (again[1].standard_normal(4000).cpu().numpy() == draws[1]).all()
    bgs = tnp.random.PCG64(21).spawn(2)
    assert all(isinstance(b, tnp.random.PCG64) for b in bgs)
    assert (tnp.random.Generator(bgs[0]).standard_normal(4000).cpu().numpy() == draws[0]).all()


class _NoSpawn:
    def generate_state(self, n, dtype):
        return onp.arange(n, dtype=dtype)


def test_spawning_needs_a_seed_sequence_that_spawns():
    with pytest.raises(TypeError, match="spawning"):
        tnp.random.PCG64(_NoSpawn()).spawn(1)


def test_tensor_parameters_and_the_draw_device():
    """Tensor parameters are accepted; the draws land on the Generator's device (by
    default the tensor parameters', else the default device), and the stream is the
    same on every device."""
    loc = T.tensor([0.0, 10.0, 20.0], dtype=T.float64)
    r = tnp.random.default_rng(2).normal(loc, 1.0)
    assert r.device == loc.device and r.shape == (3,)
    assert (onp.abs(r.cpu().numpy() - [0, 10, 20]) < 6).all()
    dev = T.get_default_device()
    on_default = tnp.random.default_rng(8).gamma(2.0, size=100)
    assert str(on_default.device) == str(T.device(dev))
    on_cpu = tnp.random.default_rng(8, device="cpu").gamma(2.0, size=100)
    assert on_cpu.device.type == "cpu"
    assert (on_default.cpu().numpy() == on_cpu.numpy()).all()
    g = tnp.random.default_rng(8, device=dev)
    assert str(g.binomial(T.tensor([5, 500]), 0.5).device) == str(T.device(dev))
    both = tnp.random.default_rng(1)
    x = both.normal(size=3)
    y = tnp.random.Generator(tnp.random.PCG64(1), device="cpu").normal(size=3)
    assert (x.cpu().numpy() == y.numpy()).all()


def test_generator_state_is_read_from_a_cpu_tensor():
    """set_state reads the 16 bytes on the host: a state tensor on a device is
    refused (it used to be read through a device pointer)."""
    state = T.zeros(16, dtype=T.uint8)  # on the default device
    g = T.Generator()
    if state.device.type == "cpu":
        g.set_state(state)
        assert g.get_state().tolist() == [0] * 16
    else:
        with pytest.raises(RuntimeError, match="expected a CPU state tensor"):
            g.set_state(state)
        g.set_state(state.cpu())


def test_generators_copy_and_pickle_with_their_state():
    import copy
    import pickle
    g = tnp.random.default_rng(3)
    g.normal(size=5)
    h = copy.deepcopy(g)
    assert (h.normal(size=9).cpu().numpy() == g.normal(size=9).cpu().numpy()).all()
    r = tnp.random.RandomState(4)
    r.rand(2)
    r2 = pickle.loads(pickle.dumps(r))
    assert (r2.rand(3).cpu().numpy() == r.rand(3).cpu().numpy()).all()
    assert tnp.random.Generator(0).random(2).shape == (2,)  # a seed in place of a bit generator
