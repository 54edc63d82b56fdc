"""Which error NumPy raises first for an out= that is wrong twice over (its
shape and its dtype), with dtype=, signature=, where= or casting= given or
not: torchlike.numpy's functions and NumPy's ufuncs called on tensors must
raise the same exception type with the same message as NumPy itself does on
ndarrays (NumPy is the live oracle here).

The grid: ufuncs (unary, binary, a comparison, the gufunc matmul, np.clip) and the
reductions and accumulations with out= (np.sum, np.max, np.add.reduce,
np.cumsum, np.add.accumulate) x {nothing, dtype=,
signature=, where= (fitting or not), casting=} x {wrong shape, wrong dtype,
both, a larger out}.  NumPy resolves the loop first (a result its out=
cannot take is a TypeError before any shape is looked at), then broadcasts
the operands, out and the where= mask together (a ValueError naming all
their shapes); a reduction's out= is checked for its number of dims and
its shape before anything else.  Cases still answered otherwise are listed
in KNOWN (strict xfail: they must keep failing until fixed)."""
import itertools
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.numpy as tnp

X = np.linspace(0.1, 0.9, 12).reshape(3, 4)
Y = np.linspace(1.1, 2.0, 4)
XI = np.arange(12, dtype=np.int64).reshape(3, 4)

OUTS = {
    "shape": ((2, 4), np.float64),
    "dtype": ((3, 4), np.int32),
    "both": ((2, 4), np.int32),
    "both_1d": ((4,), np.int64),
    "both_bool": ((5, 4), np.bool_),
    "larger": ((2, 3, 4), np.int32),
}
EXTRAS = {
    "none": {},
    "dtype": {"dtype": np.float32},
    "dtype_int": {"dtype": np.int64},
    "signature": {"signature": (None, None, np.float64)},
    "where": {"where": np.array([True, False, True, True])},
    "where_misfit": {"where": np.array([True, False])},
    "unsafe": {"casting": "unsafe"},
    "no": {"casting": "no"},
    "safe": {"casting": "safe"},
}
CALLS = {
    "sin": (lambda m, a, b, **k: m.sin(a, **k), X, None),
    "negative_int": (lambda m, a, b, **k: m.negative(a, **k), XI, None),
    "add": (lambda m, a, b, **k: m.add(a, b, **k), X, Y),
    "add_int": (lambda m, a, b, **k: m.add(a, b, **k), XI, XI),
    "maximum": (lambda m, a, b, **k: m.maximum(a, b, **k), X, Y),
    "greater": (lambda m, a, b, **k: m.greater(a, b, **k), X, Y),
    "matmul": (lambda m, a, b, **k: m.matmul(a, b, **k), X, X.T),
    "clip": (lambda m, a, b, **k: m.clip(a, 0.2, 0.5, **k), X, None),
    "add.reduce": (lambda m, a, b, **k: m.add.reduce(a, axis=0, **k), X, None),
    "sum": (lambda m, a, b, **k: m.sum(a, axis=0, **k), X, None),
    "max": (lambda m, a, b, **k: m.max(a, axis=0, **k), X, None),
    "cumsum": (lambda m, a, b, **k: m.cumsum(a, axis=0, **k), X, None),
    "add.accumulate": (lambda m, a, b, **k: m.add.accumulate(a, axis=0, **k), X, None),
}
# the functions that are not ufuncs take no signature= (NumPy's TypeError
# names the keyword: compared all the same)
UNARY_SIGNATURE = ("sin", "negative_int")

# (call, out, extra, path) still answered otherwise than NumPy, and why
KNOWN = {}


def _outcome(f):
    """("ok", None) or (the builtin exception type's name, the message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f()
        return ("ok", None)
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        kind = type(e)
        while kind.__module__ != "builtins":  # NumPy's _UFuncOutputCastingError is a TypeError
            kind = kind.__base__
        return (kind.__name__, str(e))


def _tensor(v):
    return torch.tensor(v) if isinstance(v, np.ndarray) else v


def _cases():
    for (call, (fn, a, b)), out, extra, path in itertools.product(
            CALLS.items(), OUTS, EXTRAS, ("namespace", "ufunc")):
        if call in ("sum", "max", "cumsum") and (extra == "signature" or path == "ufunc"):
            continue  # not ufuncs: no signature=, no ufunc path of their own
        if call == "max" and extra in ("dtype", "dtype_int"):
            continue  # np.max takes no dtype= (the same TypeError, compared above)
        marks = ()
        if (call, out, extra, path) in KNOWN:
            marks = pytest.mark.xfail(strict=True, reason=KNOWN[(call, out, extra, path)])
        yield pytest.param(call, out, extra, path, id=f"{call}-{out}-{extra}-{path}", marks=marks)


@pytest.mark.parametrize("call,out,extra,path", list(_cases()))
def test_out_refusal_matches_numpy(call, out, extra, path):
    fn, a, b = CALLS[call]
    shape, dtype = OUTS[out]
    kwargs = EXTRAS[extra]
    want = _outcome(lambda: fn(np, a, b, out=np.empty(shape, dtype), **kwargs))
    module = tnp if path == "namespace" else np
    t_kwargs = {k: _tensor(v) for k, v in kwargs.items()}
    got = _outcome(lambda: fn(module, _tensor(a), _tensor(b),
                              out=torch.empty(shape, dtype=torch.from_numpy(
                                  np.empty(0, dtype)).dtype), **t_kwargs))
    assert got == want


def test_grid_sees_both_orders():
    """The grid holds calls where NumPy names the dtype first and calls
    where it names the shape first (so a fixed order fails it)."""
    firsts = set()
    for call, out, extra in (("sin", "both", "none"), ("negative_int", "both", "where"),
                             ("add.reduce", "both", "none")):
        fn, a, b = CALLS[call]
        shape, dtype = OUTS[out]
        firsts.add(_outcome(lambda: fn(np, a, b, out=np.empty(shape, dtype),
                                       **EXTRAS[extra]))[0])
    assert firsts == {"TypeError", "ValueError"}


@pytest.mark.parametrize("axis,out_shape,keepdims,where", [
    ((0, 2), (5,), False, None), ((1, 2), (5,), False, None), (2, (2, 5), False, None),
    (1, (2, 1, 5), True, None), (1, (1, 4), False, None), (None, (2,), False, None),
    (1, (2, 4), False, (2,)), (1, (2, 5), False, (4,)), (0, (3, 4), False, (2, 1, 2)),
])
def test_reduction_out_words(axis, out_shape, keepdims, where):
    """A reduction's out= of the wrong shape over a 3-d input: NumPy's words
    (the remapped shapes, the missing reduction, the number of dims)."""
    x = np.ones((2, 3, 4))
    kw = {"axis": axis, "keepdims": keepdims}
    t_kw = dict(kw)
    if where is not None:
        kw["where"] = np.ones(where, bool)
        t_kw["where"] = torch.ones(where, dtype=torch.bool)
    for name in ("sum", "max"):
        want = _outcome(lambda: getattr(np, name)(x, out=np.empty(out_shape), **kw,
                                                   **({"initial": 0.0} if name == "max" else {})))
        got = _outcome(lambda: getattr(tnp, name)(torch.tensor(x), out=torch.empty(out_shape),
                                                  **t_kw,
                                                  **({"initial": 0.0} if name == "max" else {})))
        assert want[0] == "ValueError"
        assert got == want



@pytest.mark.parametrize("shape,axis,out_shape", [
    ((3, 4), 0, (4,)), ((3, 4), 1, ()), ((3, 4), 0, (1,)), ((2, 3, 4), 0, (3, 4)),
    ((2, 3, 4), 2, (4,)), ((2, 3, 4), 1, (5, 3)), ((2, 3, 4), 0, (2, 3, 5)),
    ((4,), 0, (2, 4)),
])
@pytest.mark.parametrize("scan", ["cumsum", "add.accumulate"])
def test_accumulation_out_words(scan, shape, axis, out_shape):
    """An accumulation's out= of the wrong shape: NumPy's words (an out
    with fewer dims than an N-d input fails in its iterator's axis map).
    (A 0-d out of a 1-d input crashes NumPy, so it is not asked here.)"""
    def call(m, x, out):
        fn = m.cumsum if scan == "cumsum" else m.add.accumulate
        return fn(x, axis=axis, out=out)
    x = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    want = _outcome(lambda: call(np, x, np.empty(out_shape)))
    assert want[0] == "ValueError"
    for module in (tnp, np):
        assert _outcome(lambda: call(module, torch.tensor(x), torch.empty(out_shape))) == want
