"""Every int parameter takes a Python int, a NumPy int or a 0-d integer tensor
(and every int list a sequence of those or a 1-d integer tensor), forward and
backward alike.

The ops and their int parameters are enumerated from the declared signatures
(src/ndcore/bindings/signatures.txt, seen as torchlike._C._signatures()), so
an op declared later is fuzzed without touching this file.  Each case runs
in-process: a crash takes the test process down and fails the suite.

The oracle is the same call with plain Python ints: where it succeeds, the
call with the ints in another form must give the same values and the same
gradients; where it raises, the other forms may only raise Python
exceptions too."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchlike as tl

SIGNATURES = {name: (family, params, text)
              for name, family, params, text in tl._C._signatures()}
INT_TYPES = {"int", "int[]", "int...", "int[][]", "int|Tensor"}
INT_OPS = sorted(name for name, (_, params, _) in SIGNATURES.items()
                 if any(p[1] in INT_TYPES for p in params))
# Results that are random by design: only "no crash" is checked for them.
RANDOM_FAMILIES = {"random"}
# Results whose values are uninitialised: shapes and dtypes are compared.
UNINITIALISED = {"empty", "empty_like", "new_empty", "empty_strided"}


def find_callable(name, params):
    """The module function, or the Tensor method when there is none (its
    self is the first parameter)."""
    fn = getattr(tl._C, name, None) or getattr(tl, name, None)
    if fn is not None:
        return fn
    method = getattr(tl.Tensor, name, None)
    assert method is not None, f"{name} is declared but neither a function nor a method"
    return method


# ---- the three forms of an int ------------------------------------------------

FORMS = ["python", "numpy64", "numpy32", "tensor64", "tensor32"]


def as_form(v, form):
    if form == "python":
        return int(v)
    if form == "numpy64":
        return np.int64(v)
    if form == "numpy32":
        return np.int32(v)
    return tl.tensor(v, dtype=tl.int64 if form == "tensor64" else tl.int32)


class IntValue:
    """An int argument drawn once, then written in a chosen form."""

    def __init__(self, value, form):
        self.value, self.form = value, form

    def render(self, plain):
        return int(self.value) if plain else as_form(self.value, self.form)


class IntList:
    def __init__(self, values, forms, as_tensor, nested=False):
        self.values, self.forms, self.as_tensor, self.nested = values, forms, as_tensor, nested

    def render(self, plain):
        if self.nested:
            return [[int(v) for v in half] if plain else
                    [as_form(v, f) for v, f in zip(half, self.forms)] for half in self.values]
        if plain:
            return [int(v) for v in self.values]
        if self.as_tensor:
            return tl.tensor(self.values, dtype=tl.int64)
        return [as_form(v, f) for v, f in zip(self.values, self.forms)]


def render(v, plain):
    return v.render(plain) if isinstance(v, (IntValue, IntList)) else v


@st.composite
def int_value(draw, lo=-3, hi=3, forms=FORMS):
    return IntValue(draw(st.integers(lo, hi)), draw(st.sampled_from(forms)))


@st.composite
def int_list(draw, lo=-3, hi=3):
    n = draw(st.integers(1, 3))
    values = [draw(st.integers(lo, hi)) for _ in range(n)]
    forms = [draw(st.sampled_from(FORMS)) for _ in range(n)]
    return IntList(values, forms, draw(st.booleans()))


# ---- tensors ------------------------------------------------------------------

@st.composite
def shapes(draw):
    return tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))


def float_input(shape, seed):
    n = int(np.prod(shape)) if shape else 1
    values = (np.arange(n, dtype=np.float64) * 0.37 + seed) % 2.1 - 1.0
    return tl.tensor(values.reshape(shape), dtype=tl.float64, requires_grad=True)


@st.composite
def other_tensor(draw, shape):
    """A second tensor argument: values to scatter, or indices."""
    kind = draw(st.sampled_from(["float", "index", "index1d"]))
    if kind == "float":
        return float_input(shape, 0.5)
    if kind == "index":
        n = int(np.prod(shape)) if shape else 1
        hi = max(1, min(shape) if shape else 1)
        return tl.tensor((np.arange(n) % hi).reshape(shape), dtype=tl.int64)
    return tl.tensor([0, 1], dtype=tl.int64)


# ---- a call -------------------------------------------------------------------

@st.composite
def calls(draw, name):
    family, params, _ = SIGNATURES[name]
    shape = draw(shapes())
    sizes_only = family in ("create", "random") and params[0][1] != "Tensor"
    lo, hi = (0, 3) if sizes_only else (-3, 3)
    positional, keywords, first_tensor = [], {}, None
    kw_mode = False
    for pname, ptype, optional, default, kwonly in params:
        required = default is None
        if ptype == "Tensor":
            if first_tensor is None:
                first_tensor = float_input(shape, 0.0)
                value = first_tensor
            elif optional and draw(st.booleans()):
                continue
            else:
                value = draw(other_tensor(shape))
        elif ptype == "Tensor[]":
            first_tensor = float_input(shape, 0.0)
            value = [first_tensor, float_input(shape, 1.0)]
        elif ptype == "int":
            if not required and draw(st.booleans()):
                kw_mode = True  # a skipped parameter: later ones by keyword
                continue
            value = draw(int_value(lo, hi))
        elif ptype == "int|Tensor":
            if not required and draw(st.booleans()):
                kw_mode = True
                continue
            # a tensor here is taken as a tensor: only the int forms are ints
            value = draw(int_value(lo, hi, forms=["python", "numpy64", "numpy32"]))
        elif ptype in ("int[]", "int..."):
            if not required and draw(st.booleans()):
                kw_mode = True
                continue
            value = draw(st.one_of(int_value(lo, hi), int_list(lo, hi)))
            if (ptype == "int..." and not kwonly and isinstance(value, IntList)
                    and not value.as_tensor and not kw_mode and draw(st.booleans())):
                positional.extend(("spread", v, f) for v, f in zip(value.values, value.forms))
                kw_mode = True  # nothing positional may follow varargs
                continue
        elif ptype == "int[][]":
            if draw(st.booleans()):
                value = draw(int_value(0, 2))
            else:
                n = draw(st.integers(0, 2))
                value = IntList([list(range(n)), list(range(n))], ["tensor64"] * n, False,
                                nested=True)
        elif required:
            value = {"bool": False, "float": 1.0, "Scalar": 1, "str": "sum", "any": 0.5}.get(ptype)
            if value is None:
                return None
        elif ptype == "bool" and draw(st.booleans()):
            value = draw(st.booleans())
        else:
            kw_mode = True
            continue
        if kwonly or kw_mode or (not required and draw(st.integers(0, 3)) == 0):
            kw_mode = True
            key = {"dim": "axis", "keepdim": "keepdims"}.get(pname, pname)
            keywords[key if draw(st.booleans()) else pname] = value
        else:
            positional.append(value)
    return name, family, positional, keywords


def materialise(positional, keywords, plain):
    args = []
    for a in positional:
        if isinstance(a, tuple) and a and a[0] == "spread":
            args.append(int(a[1]) if plain else as_form(a[1], a[2]))
        else:
            args.append(render(a, plain))
    return args, {k: render(v, plain) for k, v in keywords.items()}


def leaves(args, kwargs):
    out = []
    for a in list(args) + list(kwargs.values()):
        for t in (a if isinstance(a, list) else [a]):
            if isinstance(t, tl.Tensor) and t.requires_grad and all(t is not o for o in out):
                out.append(t)
    return out


def outputs(result):
    items = result if isinstance(result, (tuple, list)) else [result]
    return [r for r in items if isinstance(r, tl.Tensor)]


def run(fn, args, kwargs):
    """(values, grads) of the call, or the exception it raised."""
    for t in leaves(args, kwargs):
        t.grad = None
    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - any Python exception is an answer
        return e
    values = [r.detach().numpy().copy() if r.dtype != tl.bfloat16 else r.float().detach().numpy()
              for r in outputs(result)]
    diff = [r for r in outputs(result) if r.requires_grad and r.grad_fn is not None]
    grads = []
    if diff:
        try:
            total = sum(r.real.sum() if r.is_complex() else r.sum() for r in diff)
            total.backward()
        except Exception as e:  # noqa: BLE001
            return e
        grads = [None if t.grad is None else t.grad.numpy().copy() for t in leaves(args, kwargs)]
    return values, grads


def fresh(positional, keywords):
    """Fresh leaf tensors for a second run (a leaf's .grad is per run)."""
    memo = {}

    def clone(a):
        if isinstance(a, tl.Tensor) and a.requires_grad:
            if id(a) not in memo:
                memo[id(a)] = a.detach().clone().requires_grad_()
            return memo[id(a)]
        if isinstance(a, list):
            return [clone(x) for x in a]
        return a
    return [clone(a) for a in positional], {k: clone(v) for k, v in keywords.items()}


def check_call(call):
    if call is None:
        return
    name, family, positional, keywords = call
    fn = find_callable(name, SIGNATURES[name][1])
    args, kwargs = materialise(positional, keywords, plain=True)
    reference = run(fn, args, kwargs)
    positional2, keywords2 = fresh(positional, keywords)
    args2, kwargs2 = materialise(positional2, keywords2, plain=False)
    got = run(fn, args2, kwargs2)
    if isinstance(reference, Exception) or family in RANDOM_FAMILIES:
        return  # only "no crash": it got here
    assert not isinstance(got, Exception), (
        f"{name}{tuple(args2)} {kwargs2} raised {got!r}; with Python ints it succeeds")
    (values, grads), (values2, grads2) = reference, got
    assert len(values) == len(values2)
    for a, b in zip(values, values2):
        assert a.shape == b.shape and a.dtype == b.dtype
        if name not in UNINITIALISED:
            np.testing.assert_array_equal(a, b)
    assert len(grads) == len(grads2)
    for a, b in zip(grads, grads2):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_int_ops_are_enumerated():
    # the families of issue 9's fuzz report are all declared
    for name in ["sum", "mean", "cumsum", "transpose", "narrow", "select", "diagonal", "roll",
                 "flip", "rot90", "tril", "triu", "tile", "movedim", "diag", "diag_embed",
                 "repeat", "permute"]:
        assert name in INT_OPS, name


@pytest.mark.parametrize("name", INT_OPS)
@settings(max_examples=25, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_int_forms_forward_and_backward(name, data):
    check_call(data.draw(calls(name)))


# The reports that opened issue 9's fuzz list, as fixed cases.
T = tl.tensor
REPORTED = [
    lambda x: x.sum(T(0)),
    lambda x: x.mean(T(1)),
    lambda x: x.cumsum(T(0)),
    lambda x: x.transpose(T(0), T(1)),
    lambda x: x.narrow(T(1), T(0), T(2)),
    lambda x: x.select(T(0), T(1)),
    lambda x: x.diagonal(T(0)),
    lambda x: x.roll(T(1), T(1)),
    lambda x: x.flip(T(0)),
    lambda x: x.rot90(T(1)),
    lambda x: x.tril(T(0)),
    lambda x: x.triu(T(0)),
    lambda x: x.tile((T(2),)),
    lambda x: x.movedim(T(0), T(1)),
    lambda x: x[0].diag(T(0)),
    lambda x: x.diag_embed(T(0)),
    lambda x: x.repeat(T([2, 1])),
    lambda x: x.permute(T([1, 0])),
]


@pytest.mark.parametrize("k", range(len(REPORTED)))
def test_reported_cases_backward(k):
    f = REPORTED[k]
    x = tl.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = f(x)
    weights = tl.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)))
    (y * weights).sum().backward()
    # the same op with Python ints: the same gradient
    x2 = tl.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    plain = {0: lambda x: x.sum(0), 1: lambda x: x.mean(1), 2: lambda x: x.cumsum(0),
             3: lambda x: x.transpose(0, 1), 4: lambda x: x.narrow(1, 0, 2),
             5: lambda x: x.select(0, 1), 6: lambda x: x.diagonal(0),
             7: lambda x: x.roll(1, 1), 8: lambda x: x.flip(0), 9: lambda x: x.rot90(1),
             10: lambda x: x.tril(0), 11: lambda x: x.triu(0), 12: lambda x: x.tile((2,)),
             13: lambda x: x.movedim(0, 1), 14: lambda x: x[0].diag(0),
             15: lambda x: x.diag_embed(0), 16: lambda x: x.repeat([2, 1]),
             17: lambda x: x.permute([1, 0])}[k]
    (plain(x2) * weights).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())


def test_tensorsolve_with_tensor_dims():
    m = np.eye(6) + 0.1 * np.arange(36.0).reshape(6, 6) / 36
    a = tl.tensor(m, requires_grad=True)
    b = tl.ones(6, dtype=tl.float64)
    tl.linalg.tensorsolve(a, b, dims=(T(0),)).sum().backward()
    a2 = tl.tensor(m, requires_grad=True)
    tl.linalg.tensorsolve(a2, b, dims=(0,)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy(), rtol=1e-12)


# ---- what this fuzzing found besides the ints --------------------------------------

def test_pad_cropping_more_than_the_input_raises():
    # (-3, 2) on one element: the output size 1 - 3 + 2 = 0 is fine, but the
    # crop of 3 leaves nothing to copy: it wrote before the output's memory
    x = tl.tensor([[-1.0], [-0.63]], dtype=tl.float64)
    with pytest.raises(RuntimeError, match="crops more than"):
        tl._C._pad(x, [-3, 2])
    assert tl._C._pad(x, [-1, 2]).shape == (2, 2)
    np.testing.assert_array_equal(tl._C._pad(x, [-1, 2]).numpy(), np.zeros((2, 2)))


def test_topk_of_a_0d_tensor_is_its_element():
    # PyTorch: a 0-d input gives a 0-d result for k = 0 or 1; k = 0 left it
    # uninitialised, and backward then indexed with garbage
    x = tl.tensor(-1.0, dtype=tl.float64, requires_grad=True)
    for k in (0, 1):
        values, indices = x.topk(k)
        assert values.shape == () and values.item() == -1.0 and indices.item() == 0
    x.topk(0).values.backward()
    assert x.grad.item() == 1.0


def test_sizes_as_a_1d_int_tensor():
    # NumPy takes an integer array for a shape; so do the factories and view
    assert tl.zeros(tl.tensor([2, 3])).shape == (2, 3)
    assert tl.ones(6).reshape(tl.tensor([3, 2])).shape == (3, 2)


# Without autograd the recorder does not normalise the call: the generated
# binders themselves must take every int form (the hand parsers they replaced
# refused 0-d tensors for gather's dim, max's dim, median's dim ...).
NO_GRAD_CASES = [
    ("gather", lambda x, i: x.gather(i(1), tl.tensor([[0], [2]]))),
    ("index_select", lambda x, i: x.index_select(i(1), tl.tensor([2, 0]))),
    ("scatter_add", lambda x, i: x.scatter_add(i(0), tl.tensor([[1, 0, 1]]),
                                             tl.ones(1, 3, dtype=tl.float64))),
    ("var", lambda x, i: x.var(i(0))),
    ("median", lambda x, i: x.median(i(1)).indices),
    ("kthvalue", lambda x, i: x.kthvalue(i(2), i(1)).values),
    ("unique", lambda x, i: tl.unique(x, dim=i(0))),
    ("split", lambda x, i: x.split(i(1), i(1))[2]),
    ("tensor_split", lambda x, i: x.tensor_split(i(3), dim=i(1))[1]),
    ("view", lambda x, i: x.view(i(3), i(2))),
    ("permute", lambda x, i: x.permute(i(1), i(0))),
    ("as_strided", lambda x, i: x.as_strided((i(2), i(2)), (i(1), i(2)))),
    ("tensordot", lambda x, i: tl.tensordot(x, x.t(), dims=i(1))),
    ("matrix_power", lambda x, i: tl.linalg.matrix_power(x[:, :2], 2)),
]


@pytest.mark.parametrize("k", range(len(NO_GRAD_CASES)))
@pytest.mark.parametrize("form", FORMS)
def test_int_forms_without_grad(k, form):
    name, f = NO_GRAD_CASES[k]
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    expected = f(x, int).numpy()
    got = f(x, lambda v: as_form(v, form)).numpy()
    np.testing.assert_array_equal(got, expected, err_msg=name)
