"""torchlike.numpy.ma against numpy.ma: the same inputs through both, the
same values where unmasked, the same masks (nomask where NumPy keeps none),
dtypes, shapes (0-d, empty, non-contiguous, broadcast), fill values, repr and
exception types."""
import numpy
import numpy.ma as nma
import pytest
from hypothesis import given, strategies as st

import torchlike as tl
import torchlike.numpy as tnp
import torchlike.numpy.ma as ma

# The oracle's own warnings (numpy.ma on empty slices, masked casts); ours are
# checked where they matter.
pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning:numpy.ma.core"),
              pytest.mark.filterwarnings("ignore::UserWarning:numpy.ma.core")]


def host(t):
    if isinstance(t, tl.Tensor):
        t = t.detach().cpu()
        return (t.to(tl.float32) if t.dtype == tl.bfloat16 else t).numpy()
    return numpy.asarray(t)


def same(ours, theirs, rtol=1e-12, check_nomask=True):
    """``ours`` (our result) is NumPy's ``theirs``: masked for masked, equal
    unmasked data, masks, dtypes, shapes, fill values."""
    if isinstance(theirs, nma.MaskedArray) and theirs.ndim == 0 and \
            not isinstance(ours, ma.MaskedArray):
        # NumPy's ufuncs give 0-d masked arrays; ours, scalars (0-d tensors) or masked
        theirs = nma.masked if theirs.mask else theirs.data[()]
    if theirs is nma.masked:
        assert ours is ma.masked, ours
        return
    if isinstance(theirs, nma.MaskedArray):
        assert isinstance(ours, ma.MaskedArray), type(ours)
        assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
        od = host(ours.data)
        assert od.dtype == theirs.dtype, (od.dtype, theirs.dtype)
        tm = nma.getmaskarray(theirs)
        numpy.testing.assert_array_equal(host(ma.getmaskarray(ours)), tm)
        if check_nomask:
            assert (ours.mask is ma.nomask) == (theirs.mask is nma.nomask), \
                (ours.mask, theirs.mask)
        numpy.testing.assert_allclose(od[~tm], theirs.data[~tm], rtol=rtol, equal_nan=True)
        if theirs.dtype.kind in "biufc":
            fv, tfv = ours.fill_value, theirs.fill_value
            assert fv == tfv or (fv != fv and tfv != tfv), (fv, tfv)
        return
    # a scalar result: ours is a 0-d tensor (or a Python number for counts)
    assert not isinstance(ours, ma.MaskedArray), ours
    want = numpy.asarray(theirs)
    got = host(ours) if isinstance(ours, tl.Tensor) else numpy.asarray(ours)
    if isinstance(ours, tl.Tensor):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    numpy.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


def pair(data, mask=nma.nomask, dtype=None, **kwargs):
    """The same masked array in both libraries (ours over a tensor)."""
    data = numpy.asarray(data, dtype=dtype)
    theirs = nma.array(data, mask=mask, **kwargs)
    ours = ma.array(tnp.asarray(data.copy()), mask=mask if mask is nma.nomask
                    else numpy.asarray(mask), **kwargs)
    return ours, theirs


RNG = numpy.random.default_rng(0)
SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (4, 0)]


def cases(dtypes=("float64", "float32", "int64")):
    """(ours, theirs) masked arrays: several shapes, dtypes, masks (nomask,
    all False, some, all True) and a non-contiguous view."""
    out = []
    for shape in SHAPES:
        for dtype in dtypes:
            data = (RNG.standard_normal(shape) * 4).astype(dtype)
            for kind in ("nomask", "false", "some", "all"):
                if kind == "nomask":
                    mask = nma.nomask
                elif kind == "false":
                    mask = numpy.zeros(shape, bool)
                elif kind == "some":
                    mask = RNG.random(shape) < 0.3
                else:
                    mask = numpy.ones(shape, bool)
                out.append(pytest.param(data, mask, id=f"{shape}-{dtype}-{kind}"))
    data = RNG.standard_normal((4, 3))
    mask = RNG.random((4, 3)) < 0.4
    out.append(pytest.param(data.T, mask.T, id="transposed"))
    return out


CASES = cases()


# ---------------------------------------------------------------------------
# construction, attributes, fill values

def test_constructor_and_attributes():
    ours, theirs = pair([1.0, 2.0, 3.0], mask=[0, 1, 0])
    same(ours, theirs)
    assert isinstance(ours.data, tl.Tensor) and isinstance(ours.mask, tl.Tensor)
    assert ours.mask.dtype == tl.bool
    assert ma.array([1, 2]).mask is ma.nomask is nma.nomask
    same(ma.array([1, 2], mask=False), nma.array([1, 2], mask=False))
    same(ma.array([1, 2], mask=True), nma.array([1, 2], mask=True))
    same(ma.array([[1, 2], [3, 4]], mask=[1, 0, 0, 1]),
         nma.array([[1, 2], [3, 4]], mask=[1, 0, 0, 1]))
    same(ma.array([1, ma.masked, 3]), nma.array([1, nma.masked, 3]))
    same(ma.array(5.0), nma.array(5.0))
    same(ma.masked_array([1, 2], dtype="float32"), nma.masked_array([1, 2], dtype="float32"))
    t = tnp.arange(4.0)
    x = ma.array(t, mask=[0, 1, 0, 0])
    assert x.data is t  # no copy
    assert ma.array(t, copy=True).data is not t
    # keep_mask joins masks; keep_mask=False replaces
    y = ma.array(x, mask=[1, 0, 0, 0])
    same(y, nma.array(nma.array(numpy.arange(4.0), mask=[0, 1, 0, 0]), mask=[1, 0, 0, 0]))
    z = ma.array(x, mask=[1, 0, 0, 0], keep_mask=False)
    assert host(z.mask).tolist() == [True, False, False, False]
    with pytest.raises(nma.MaskError):
        ma.array([1, 2, 3], mask=[0, 1])
    with pytest.raises(nma.MaskError):
        nma.array([1, 2, 3], mask=[0, 1])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint8", "float16",
                                   "float32", "float64", "complex64", "complex128"])
def test_default_fill_values(dtype):
    ours, theirs = pair(numpy.zeros(3, dtype), mask=[0, 1, 0])
    assert ours.fill_value == theirs.fill_value
    assert type(ours.fill_value) is type(theirs.fill_value)
    assert ma.default_fill_value(ours) == nma.default_fill_value(theirs)
    assert ma.minimum_fill_value(ours) == nma.minimum_fill_value(theirs)
    assert ma.maximum_fill_value(ours) == nma.maximum_fill_value(theirs)
    numpy.testing.assert_array_equal(host(ours.filled()), theirs.filled())


def test_fill_value_setting_and_errors():
    ours, theirs = pair([1, 2, 3], mask=[0, 1, 0])
    ours.fill_value = 7
    theirs.fill_value = 7
    assert ours.fill_value == theirs.fill_value
    numpy.testing.assert_array_equal(host(ours.filled()), theirs.filled())
    numpy.testing.assert_array_equal(host(ours.filled(-1)), theirs.filled(-1))
    with pytest.raises(TypeError):
        theirs.fill_value = "x"
    with pytest.raises(TypeError):
        ours.fill_value = "x"
    x = ma.array([1.0, 2.0], fill_value=-9.0)
    assert x.fill_value == nma.array([1.0, 2.0], fill_value=-9.0).fill_value
    # an int8 array filled with 999999 holds what NumPy's cast gives
    o8, t8 = pair(numpy.zeros(2, "int8"), mask=[1, 0])
    numpy.testing.assert_array_equal(host(o8.filled()), t8.filled())


def test_masked_constant():
    assert repr(ma.masked) == "masked" and str(ma.masked) == "--"
    assert ma.masked is ma.MaskedConstant()
    assert ma.array([1.0, 2.0])[0] is not ma.masked
    assert ma.array([1.0, 2.0], mask=[1, 0])[0] is ma.masked
    assert (ma.masked + 1) is ma.masked
    assert ma.is_masked(ma.masked)


@pytest.mark.parametrize("data,mask", CASES)
def test_repr_str_tolist(data, mask):
    ours, theirs = pair(data, mask)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert ours.tolist() == theirs.tolist()


def test_getters_and_mask_helpers():
    ours, theirs = pair([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    numpy.testing.assert_array_equal(host(ma.getdata(ours)), nma.getdata(theirs))
    numpy.testing.assert_array_equal(host(ma.getmask(ours)), nma.getmask(theirs))
    numpy.testing.assert_array_equal(host(ma.getmaskarray(ma.array([1, 2]))),
                                     nma.getmaskarray(nma.array([1, 2])))
    assert ma.getmask(tnp.asarray([1, 2])) is ma.nomask
    assert ma.is_masked(ours) and not ma.is_masked(ma.array([1, 2], mask=[0, 0]))
    assert ma.make_mask([0, 0]) is ma.nomask
    assert host(ma.make_mask([0, 1])).tolist() == [False, True]
    assert host(ma.make_mask([0, 0], shrink=False)).tolist() == [False, False]
    assert host(ma.make_mask_none((2, 3))).shape == (2, 3)
    assert ma.mask_or(ma.nomask, ma.nomask) is ma.nomask
    numpy.testing.assert_array_equal(
        host(ma.mask_or(ma.make_mask([0, 1, 0]), ma.make_mask([1, 0, 0]))),
        nma.mask_or(nma.make_mask([0, 1, 0]), nma.make_mask([1, 0, 0])))
    assert ma.count(ours) == nma.count(theirs)
    same(ma.count(ours, axis=0), nma.count(theirs, axis=0))
    same(ma.compressed(ours), nma.compressed(theirs).view(numpy.ndarray))
    assert ma.isMaskedArray(ours) and not ma.isMaskedArray(tnp.zeros(2))


# ---------------------------------------------------------------------------
# masking by conditions

@pytest.mark.parametrize("name", ["masked_greater", "masked_greater_equal", "masked_less",
                                  "masked_less_equal", "masked_equal", "masked_not_equal"])
def test_masked_by_value(name):
    data = numpy.array([[1, 2, 3], [3, 2, 1]])
    same(getattr(ma, name)(tnp.asarray(data), 2), getattr(nma, name)(data, 2))
    prior_o, prior_t = pair(data, mask=[[1, 0, 0], [0, 0, 0]])
    same(getattr(ma, name)(prior_o, 2), getattr(nma, name)(prior_t, 2))


def test_masked_where_inside_outside_invalid_values():
    data = numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0, numpy.nan, numpy.inf])
    t = tnp.asarray(data)
    same(ma.masked_where(t > 0, t), nma.masked_where(data > 0, data))
    same(ma.masked_where(t > 10, t), nma.masked_where(data > 10, data))
    same(ma.masked_inside(t, 1, -1), nma.masked_inside(data, 1, -1))
    same(ma.masked_outside(t, -1, 1), nma.masked_outside(data, -1, 1))
    same(ma.masked_invalid(t), nma.masked_invalid(data))
    vals = numpy.array([1.0, 1.1, 2.0, 1.0 + 1e-9])
    same(ma.masked_values(tnp.asarray(vals), 1.0), nma.masked_values(vals, 1.0))
    same(ma.masked_values(tnp.asarray([1, 2, 1]), 1), nma.masked_values([1, 2, 1], 1))
    same(ma.masked_values(tnp.asarray([3.0, 2.0]), 1.0), nma.masked_values([3.0, 2.0], 1.0))
    with pytest.raises(IndexError):
        nma.masked_where([True, False], numpy.zeros(3))
    with pytest.raises(IndexError):
        ma.masked_where([True, False], tnp.zeros(3))


# ---------------------------------------------------------------------------
# elementwise: mask propagation and domains

UNARY = ["sqrt", "log", "log2", "log10", "exp", "sin", "cos", "tan", "arcsin", "arccos",
         "arctan", "arccosh", "arctanh", "sinh", "tanh", "absolute", "negative", "floor",
         "ceil", "logical_not"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("data,mask", CASES[::3])
def test_unary(name, data, mask):
    ours, theirs = pair(data, mask)
    with numpy.errstate(all="ignore"):
        want = getattr(nma, name)(theirs)
    same(getattr(ma, name)(ours), want, rtol=1e-5)
    # NumPy's ufunc and the namespace's function on a masked array keep the mask
    # (NumPy's ufunc makes a full mask of nomask where numpy.ma's function does
    # not; ours are one function)
    with numpy.errstate(all="ignore"):
        same(getattr(numpy, name)(ours), getattr(numpy, name)(theirs), rtol=1e-5,
             check_nomask=False)
    same(getattr(tnp, name)(ours), want, rtol=1e-5)


def test_domains():
    data = numpy.array([-1.0, 0.0, 0.5, 1.0, 4.0])
    ours, theirs = pair(data, mask=[0, 0, 0, 0, 1])
    with numpy.errstate(all="ignore"):
        for name in ["sqrt", "log", "log10", "arcsin", "arccosh", "arctanh"]:
            same(getattr(ma, name)(ours), getattr(nma, name)(theirs))
        same(ours / ma.array([0.0, 1.0, 0.0, 2.0, 1.0]), theirs / nma.array([0.0, 1.0, 0.0,
                                                                              2.0, 1.0]))
        same(1.0 / ours, 1.0 / theirs)
        same(ours // 0.0, theirs // 0.0)
        same(ours % 0, theirs % 0)
        same(ours ** 0.5, theirs ** 0.5)
        same(ma.power(ours, -1), nma.power(theirs, -1))
    # float64's domain is |a| * tiny >= |b|: a finite quotient can be masked
    for dtype in ("float64", "float32"):
        num = numpy.array([1e10, 1.0, 3.0, 0.0], dtype)
        den = numpy.array([1e-300 if dtype == "float64" else 1e-40, 1e-300 if dtype ==
                           "float64" else 1e-38, 0.0, 0.0], dtype)
        with numpy.errstate(all="ignore"):
            same(ma.array(tnp.asarray(num)) / ma.array(tnp.asarray(den)),
                 nma.array(num) / nma.array(den))
            same(ma.remainder(tnp.asarray(num), ma.array(tnp.asarray(den))),
                 nma.remainder(num, nma.array(den)))
    # integer division by zero
    io, it = pair([1, 2, 3], mask=[0, 0, 1])
    same(io / ma.array([0, 1, 1]), it / nma.array([0, 1, 1]))
    same(io // ma.array([0, 1, 1]), it // nma.array([0, 1, 1]))
    # under the mask, division leaves the dividend (NumPy's rule)
    r = io / ma.array([0, 1, 1])
    numpy.testing.assert_array_equal(host(r.data), (it / nma.array([0, 1, 1])).data)


BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
          "remainder", "fmod", "arctan2", "hypot", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "maximum", "minimum", "logical_and",
          "logical_or"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcast(name):
    a = RNG.standard_normal((3, 4))
    b = RNG.standard_normal((4,))
    b[1] = 0.0
    ma_ = RNG.random((3, 4)) < 0.3
    mb = numpy.array([0, 0, 1, 0], bool)
    oa, ta = pair(a, ma_)
    ob, tb = pair(b, mb)
    with numpy.errstate(all="ignore"):
        same(getattr(ma, name)(oa, ob), getattr(nma, name)(ta, tb))
        same(getattr(numpy, name)(oa, ob), getattr(numpy, name)(ta, tb), check_nomask=False)
        same(getattr(ma, name)(oa, 2.0), getattr(nma, name)(ta, 2.0))
        if ob.device.type == "cpu":  # an ndarray operand: zero-copy with CPU data
            same(getattr(ma, name)(a, ob), getattr(nma, name)(a, tb))
        else:  # refused next to device data, as the namespace refuses it
            with pytest.raises(TypeError, match="host memory"):
                getattr(ma, name)(a, ob)
        same(getattr(ma, name)(a.tolist(), ob), getattr(nma, name)(a.tolist(), tb))
        # a 0-d result: a scalar, or masked
        same(getattr(ma, name)(oa[0, 0], ob[0]), getattr(nma, name)(ta[0, 0], tb[0]))


def test_operators():
    oa, ta = pair([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    ob, tb = pair([10.0, 0.0], mask=[1, 0])
    with numpy.errstate(all="ignore"):
        for f in [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
                  lambda x, y: x / y, lambda x, y: y / x, lambda x, y: x ** 2,
                  lambda x, y: 2 - x, lambda x, y: -x, lambda x, y: abs(x),
                  lambda x, y: x == y, lambda x, y: x != y, lambda x, y: x < y,
                  lambda x, y: x >= 2]:
            same(f(oa, ob), f(ta, tb))
    ib, tib = pair([True, False, True], mask=[0, 0, 1])
    same(~ib, ~tib)
    same(ib & True, tib & True)
    # in place: the identity is kept, the mask joined
    x, y = oa.copy(), ta.copy()
    x += ob
    y += tb
    same(x, y)
    x, y = oa.copy(), ta.copy()
    x *= 3
    y *= 3
    same(x, y)
    # a tensor on the left hands over to the masked array
    same(tnp.asarray([1.0, 2.0]) + ob, numpy.array([1.0, 2.0]) + tb)


# ---------------------------------------------------------------------------
# reductions

REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "all", "any", "argmin",
              "argmax", "ptp"]


def _reduce(lib, name, x, **kw):
    with numpy.errstate(all="ignore"):
        return getattr(lib, name)(x, **kw)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("data,mask", CASES)
def test_reductions(name, data, mask):
    ours, theirs = pair(data, mask)
    empty = theirs.size == 0
    axes = [None] + list(range(-theirs.ndim, theirs.ndim))
    for axis in axes:
        for keepdims in (False, True):
            kw = {"axis": axis}
            if name not in ("ptp",) and (keepdims or name not in ("argmin", "argmax")):
                kw["keepdims"] = keepdims
            elif keepdims:
                continue
            try:
                want = _reduce(nma, name, theirs, **kw)
            except (ValueError, IndexError) as error:
                with pytest.raises(type(error)):
                    _reduce(ma, name, ours, **kw)
                continue
            if empty and name in ("min", "max", "ptp", "argmin", "argmax"):
                continue
            got = _reduce(ma, name, ours, **kw)
            rtol = 1e-5 if data.dtype == numpy.float32 else 1e-10
            same(got, want, rtol=rtol, check_nomask=name not in ("argmin", "argmax"))
            # the method, NumPy's function and the namespace's agree
            same(getattr(ours, name)(**kw), want, rtol=rtol,
                 check_nomask=name not in ("argmin", "argmax"))
    if name in ("sum", "mean", "max", "std") and not empty:
        same(getattr(numpy, name)(ours, axis=0 if ours.ndim else None),
             getattr(numpy, name)(theirs, axis=0 if theirs.ndim else None), rtol=1e-5)
        same(getattr(tnp, name)(ours), getattr(numpy, name)(theirs), rtol=1e-5)


@pytest.mark.parametrize("ddof", [0, 1, 3])
def test_var_ddof(ddof):
    ours, theirs = pair(RNG.standard_normal((3, 4)), RNG.random((3, 4)) < 0.4)
    for axis in (None, 0, 1):
        same(ours.var(axis=axis, ddof=ddof), theirs.var(axis=axis, ddof=ddof))
        same(ma.std(ours, axis=axis, ddof=ddof), nma.std(theirs, axis=axis, ddof=ddof))


@pytest.mark.parametrize("data,mask", CASES)
def test_count_cumulative_median(data, mask):
    ours, theirs = pair(data, mask)
    same(ours.count(), theirs.count())
    for axis in range(theirs.ndim):
        same(ours.count(axis=axis), numpy.asarray(theirs.count(axis=axis)))
        same(ma.cumsum(ours, axis=axis), nma.cumsum(theirs, axis=axis), rtol=1e-5)
        same(ours.cumprod(axis=axis), theirs.cumprod(axis=axis), rtol=1e-5)
    if theirs.ndim:
        same(ours.cumsum(), theirs.cumsum(), rtol=1e-5)
    if theirs.size and data.dtype != numpy.int64:
        for axis in [None] + list(range(theirs.ndim)):
            same(ma.median(ours, axis=axis), nma.median(theirs, axis=axis), rtol=1e-6)


@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.booleans()), min_size=1, max_size=30))
def test_reductions_hypothesis(items):
    data = numpy.array([v for v, _ in items])
    mask = numpy.array([m for _, m in items])
    ours, theirs = pair(data, mask)
    for name in ("sum", "mean", "var", "min", "max", "median"):
        same(getattr(ma, name)(ours), getattr(nma, name)(theirs), rtol=1e-9)
    same(ma.average(ours), nma.average(theirs), rtol=1e-9)


def test_average_weights():
    ours, theirs = pair(RNG.standard_normal((3, 4)), RNG.random((3, 4)) < 0.3)
    w = RNG.random((3, 4))
    same(ma.average(ours, weights=tnp.asarray(w)), nma.average(theirs, weights=w))
    same(ma.average(ours, axis=1, weights=tnp.asarray(w)),
         nma.average(theirs, axis=1, weights=w))
    w1 = RNG.random(4)
    same(ma.average(ours, axis=1, weights=tnp.asarray(w1)),
         nma.average(theirs, axis=1, weights=w1))
    avg, scl = ma.average(ours, axis=0, returned=True)
    tavg, tscl = nma.average(theirs, axis=0, returned=True)
    same(avg, tavg)
    numpy.testing.assert_allclose(host(scl), tscl)


# ---------------------------------------------------------------------------
# shapes, joining, sorting, where, dot

def test_shape_functions():
    ours, theirs = pair(RNG.standard_normal((2, 3)), RNG.random((2, 3)) < 0.4)
    same(ours.reshape(3, 2), theirs.reshape(3, 2))
    same(ma.reshape(ours, (6,)), nma.reshape(theirs, (6,)))
    same(ours.T, theirs.T)
    same(ma.transpose(ours), nma.transpose(theirs))
    same(ours.ravel(), theirs.ravel())
    same(ma.expand_dims(ours, 0), nma.expand_dims(theirs, 0))
    same(ma.squeeze(ours.reshape(1, 2, 3)), nma.squeeze(theirs.reshape(1, 2, 3)))
    same(ours.flatten(), theirs.flatten())
    same(ours.swapaxes(0, 1), theirs.swapaxes(0, 1))
    same(numpy.reshape(ours, (3, 2)), numpy.reshape(theirs, (3, 2)))
    same(numpy.transpose(ours), numpy.transpose(theirs))


def test_join():
    oa, ta = pair([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    ob, tb = pair([[5, 6]])
    same(ma.concatenate([oa, ob]), nma.concatenate([ta, tb]))
    same(ma.concatenate([ob, ob]), nma.concatenate([tb, tb]))  # nomask stays nomask
    same(numpy.concatenate([oa, ob]), nma.concatenate([ta, tb]))
    same(ma.stack([oa, oa], axis=1), nma.stack([ta, ta], axis=1))
    same(ma.vstack([oa, ob]), nma.vstack([ta, tb]))
    same(ma.hstack([oa, oa]), nma.hstack([ta, ta]))
    same(tnp.concatenate([oa, ob]), nma.concatenate([ta, tb]))


def test_where_dot():
    oa, ta = pair([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    ob, tb = pair([[5.0, 6.0], [7.0, 8.0]], mask=[[0, 0], [1, 0]])
    cond = numpy.array([[True, False], [False, True]])
    same(ma.where(tnp.asarray(cond), oa, ob), nma.where(cond, ta, tb))
    same(ma.where(tnp.asarray(cond), oa, 0.0), nma.where(cond, ta, 0.0))
    same(ma.where(tnp.asarray(cond), ma.masked, ob), nma.where(cond, nma.masked, tb))
    same(ma.where(oa > 2, oa, ob), nma.where(ta > 2, ta, tb))
    same(ma.dot(oa, ob), nma.dot(ta, tb))
    same(ma.dot(oa, ob, strict=True), nma.dot(ta, tb, strict=True))
    same(ma.dot(oa, tnp.asarray([1.0, 1.0])), nma.dot(ta, numpy.array([1.0, 1.0])))
    oz, tz = pair([[1.0, 2.0], [3.0, 4.0]], mask=[[1, 1], [0, 0]])
    same(ma.dot(oz, ob), nma.dot(tz, tb))


@pytest.mark.parametrize("data,mask", [c for c in CASES if len(c.values[0].shape) >= 1])
def test_sort_argsort(data, mask):
    ours, theirs = pair(data, mask)
    for axis in [None, -1, 0]:
        same(ma.sort(ours, axis=axis), nma.sort(theirs, axis=axis))
        # NumPy's default sort is not stable: equal keys may come in either order,
        # so the indices are checked by what they pick
        got = host(ma.argsort(ours, axis=axis))
        want = nma.argsort(theirs, axis=axis)
        flat = theirs.ravel() if axis is None else theirs
        ax = 0 if axis is None else axis
        for a in (flat.filled(0), nma.getmaskarray(flat)):
            numpy.testing.assert_array_equal(numpy.take_along_axis(a, got, ax),
                                             numpy.take_along_axis(a, want, ax))
        same(ma.sort(ours, axis=axis, endwith=False), nma.sort(theirs, axis=axis,
                                                               endwith=False))
    x, y = ours.copy(), theirs.copy()
    x.sort()
    y.sort()
    same(x, y)


def test_unique():
    data = numpy.array([3, 1, 2, 1000, 2, 3, 7])
    mask = [0, 0, 0, 1, 0, 0, 1]
    ours, theirs = pair(data, mask)
    same(ma.unique(ours), nma.unique(theirs), check_nomask=False)
    same(ma.unique(pair(data)[0]), nma.unique(data).view(nma.MaskedArray),
         check_nomask=False)


def test_allclose_allequal():
    oa, ta = pair([1.0, 2.0, 3.0], mask=[0, 0, 1])
    ob, tb = pair([1.0, 2.0 + 1e-9, 30.0])
    assert ma.allclose(oa, ob) is bool(nma.allclose(ta, tb)) is True
    assert ma.allclose(oa, ob, masked_equal=False) == nma.allclose(ta, tb, masked_equal=False)
    assert ma.allequal(oa, ob) == nma.allequal(ta, tb)
    oc, tc = pair([1.0, 2.0, 5.0], mask=[0, 0, 1])
    assert ma.allequal(oa, oc) is bool(nma.allequal(ta, tc)) is True
    assert ma.allequal(oa, oc, fill_value=False) == nma.allequal(ta, tc, fill_value=False)
    inf = pair([numpy.inf, 1.0])
    assert ma.allclose(inf[0], inf[0]) == nma.allclose(inf[1], inf[1])


def test_apply_along_axis():
    ours, theirs = pair(RNG.standard_normal((3, 4)), RNG.random((3, 4)) < 0.3)
    same(ma.apply_along_axis(ma.sum, 1, ours), nma.apply_along_axis(nma.sum, 1, theirs),
         check_nomask=False)
    same(ma.apply_along_axis(lambda v: v * 2, 0, ours),
         nma.apply_along_axis(lambda v: v * 2, 0, theirs), check_nomask=False)


# ---------------------------------------------------------------------------
# indexing and assignment

def test_indexing():
    ours, theirs = pair(numpy.arange(12.0).reshape(3, 4), numpy.arange(12).reshape(3, 4) % 5 == 0)
    for index in [0, (1, 2), (0, 0), slice(1, None), (slice(None), 1), (Ellipsis, -1),
                  [0, 2], (numpy.array([0, 2]), numpy.array([1, 3]))]:
        same(ours[index], theirs[index])
    same(ours[ours > 4], theirs[theirs > 4])
    with pytest.raises(IndexError):
        ours[5]


def test_assignment():
    ours, theirs = pair(numpy.arange(6.0), [0, 1, 0, 0, 0, 0])
    ours[0] = ma.masked
    theirs[0] = nma.masked
    same(ours, theirs)
    ours[1] = 9.0  # a value unmasks (soft mask)
    theirs[1] = 9.0
    same(ours, theirs)
    ours[2:4] = ma.array([7.0, 8.0], mask=[1, 0])
    theirs[2:4] = nma.array([7.0, 8.0], mask=[1, 0])
    same(ours, theirs)
    # a hard mask keeps its masked elements
    ours.harden_mask()
    theirs.harden_mask()
    ours[0:3] = -1.0
    theirs[0:3] = -1.0
    same(ours, theirs)
    numpy.testing.assert_array_equal(host(ours.data), theirs.data)
    ours.soften_mask()
    theirs.soften_mask()
    ours[0] = 5.0
    theirs[0] = 5.0
    same(ours, theirs)
    x, y = pair([1, 2, 3])
    x[1] = ma.masked
    y[1] = nma.masked
    same(x, y)
    # views share data with the base
    base = ma.array(tnp.arange(4.0))
    base[1:][0] = 42.0
    assert float(base.data[1]) == 42.0


# ---------------------------------------------------------------------------
# conversions to and from numpy.ma

def test_numpy_conversions():
    theirs = nma.array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]], fill_value=-5.0)
    ours = ma.array(theirs)
    same(ours, theirs)
    back = nma.asarray(ours)
    assert isinstance(back, nma.MaskedArray)
    numpy.testing.assert_array_equal(back.mask, theirs.mask)
    numpy.testing.assert_array_equal(back.data, theirs.data)
    t = ours.to_numpy()
    assert t.fill_value == -5.0
    numpy.testing.assert_array_equal(t.mask, theirs.mask)
    numpy.testing.assert_array_equal(numpy.asarray(ours), theirs.data)
    # NumPy functions with no masked implementation here run numpy.ma on a copy
    if ours.device.type == "cpu":
        same(numpy.gradient(ours, axis=0), numpy.gradient(theirs, axis=0))
    else:  # no host copy of device data behind the caller's back
        with pytest.raises(TypeError, match="no torchlike implementation"):
            numpy.gradient(ours, axis=0)


def test_device_tensor_refused_by_host_fallback(monkeypatch):
    ours = ma.array(tnp.asarray([1.0, 2.0]), mask=[0, 1])
    ours.data.requires_grad_(True)
    with pytest.raises(TypeError, match="autograd"):
        numpy.percentile(ours, 50)


def test_namespace_functions_keep_the_mask():
    """torchlike.numpy's functions (and NumPy's ufunc methods) on masked
    arrays run the masked implementations, also where the namespace's own
    implementation calls another one (median calls quantile)."""
    ours, theirs = pair([[1.0, -2.0, 5.0], [3.0, 4.0, -1.0]], mask=[[1, 0, 0], [0, 0, 1]])
    with numpy.errstate(all="ignore"):
        for got, want in [
                (tnp.median(ours), nma.median(theirs)),
                (tnp.median(ours, axis=1), nma.median(theirs, axis=1)),
                (tnp.where(ours > 0, ours, 0.0), nma.where(theirs > 0, theirs, 0.0)),
                (tnp.clip(ours, 0, 2), nma.clip(theirs, 0, 2)),
                (tnp.maximum(ours, 0.0), nma.maximum(theirs, 0.0)),
                (tnp.sort(ours, axis=None), nma.sort(theirs, axis=None)),
                (tnp.mean(ours, axis=0), nma.mean(theirs, axis=0)),
                (tnp.sqrt(ours), nma.sqrt(theirs)),
                (tnp.round(ours), nma.round(theirs)),
                # NumPy's own ufunc.reduce reads through a masked array's mask;
                # ours is numpy.ma's masked reduce, and accumulate is cumprod
                (numpy.add.reduce(ours, axis=1), nma.add.reduce(theirs, axis=1)),
                (numpy.multiply.accumulate(ours), theirs.cumprod(axis=0)),
                (numpy.maximum.reduce(ours), nma.maximum.reduce(theirs, axis=0))]:
            same(got, want, check_nomask=False)


def test_item_bool_float():
    ours, theirs = pair([[1, 2], [3, 4]], mask=[[1, 0], [0, 0]])
    for args in [(0,), (3,), (1, 1)]:
        assert ours.item(*args) == theirs.item(*args)
    assert float(ma.array([2.5])) == 2.5
    assert numpy.isnan(float(ma.array([2.5], mask=[1])))
    assert bool(ma.array([1])) is True
    with pytest.raises(ValueError):
        bool(ma.array([1, 2]))
    assert len(ours) == 2 and [r.tolist() for r in ours] == [r.tolist() for r in theirs]


def test_gradients_through_masked_arrays():
    """Ops on masked arrays are torchlike ops, so they are recorded: masked
    elements get zero gradients, also where the op is outside its domain
    there (no 0 * inf), and the reductions pass gradcheck in float64."""
    data = numpy.array([1.0, 4.0, 9.0, -1.0, 0.25, 2.0])
    mask = numpy.array([0, 1, 0, 0, 0, 0], bool)
    x = tnp.asarray(data.copy())
    x.requires_grad_(True)
    ma.sqrt(ma.array(x, mask=mask)).sum().backward()
    valid = ~mask & (data > 0)
    want = numpy.where(valid, 0.5 / numpy.sqrt(numpy.where(valid, data, 1.0)), 0.0)
    numpy.testing.assert_allclose(host(x.grad), want)
    x.grad = None
    den = tnp.asarray([2.0, 1.0, 0.0, 4.0, 5.0, 1.0])
    (ma.array(x, mask=mask) / den).sum().backward()
    numpy.testing.assert_allclose(host(x.grad), [0.5, 0.0, 0.0, 0.25, 0.2, 1.0])  # 9/0 masked
    m2 = RNG.random((3, 4)) < 0.3
    w = tnp.asarray(RNG.random((3, 4)) + 0.1)
    for fn in (lambda t: ma.mean(ma.array(t, mask=m2), axis=1).filled(0.0),
               lambda t: ma.array(t, mask=m2).var(axis=0, ddof=1).filled(0.0),
               lambda t: ma.array(t, mask=m2).std().reshape(1),
               lambda t: ma.average(ma.array(t, mask=m2), axis=0,
                                    weights=w).filled(0.0),
               lambda t: ma.log(ma.array(t, mask=m2) - 1.0).sum().reshape(1)):
        t = tnp.asarray(RNG.random((3, 4)) + 0.5)
        t.requires_grad_(True)
        assert tl.autograd.gradcheck(fn, (t,))


def test_count_of_a_masked_array_is_an_int64_scalar():
    # NumPy: with a mask, count() is the intp sum of the mask's complement (a
    # NumPy int64, here a 0-d int64 tensor); without one, the size as an int;
    # of the masked constant, 0
    ours, theirs = pair(numpy.arange(6.0).reshape(2, 3), numpy.array([[1, 0, 0], [0, 1, 1]], bool))
    assert isinstance(theirs.count(), numpy.int64)
    got = ours.count()
    assert isinstance(got, tl.Tensor) and got.dtype == tl.int64
    assert got.shape == () and int(got) == int(theirs.count()) == 3
    assert type(ma.count(ours)) is type(got)
    plain = ma.array(tl.arange(4.0))
    assert type(plain.count()) is int and plain.count() == nma.array(numpy.arange(4.0)).count()
    assert ma.masked.count() == nma.masked.count() == 0
