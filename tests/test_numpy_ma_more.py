"""torchlike.numpy.ma against numpy.ma, the rest of its names: creation,
take/put/choose/compress, diff and convolution, whole rows and columns, runs
and edges, set operations, cov/corrcoef/polyfit, mr_, the core/extras
submodules, MaskedArray's ndarray methods and the structured-dtype names
torchlike refuses.  Values where unmasked, masks, dtypes, shapes (0-d, empty,
non-contiguous), fill values and exception types are NumPy's."""
import pickle
import warnings

import numpy
import numpy.ma as nma
import pytest

import torchlike as tl
import torchlike.numpy as tnp
import torchlike.numpy.ma as ma
from test_numpy_ma import host, pair, same

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning:numpy.ma.core"),
              pytest.mark.filterwarnings("ignore::UserWarning:numpy.ma.core")]

RNG = numpy.random.default_rng(7)


def same_tensor(ours, theirs):
    """A tensor result is NumPy's ndarray (values, dtype, shape)."""
    assert isinstance(ours, tl.Tensor), type(ours)
    got, want = host(ours), numpy.asarray(theirs)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    numpy.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def masked_ints(shape, p=0.3, hi=6):
    data = RNG.integers(0, hi, shape)
    return pair(data, mask=RNG.random(shape) < p)


def test_public_names_and_methods_are_numpys():
    missing = [n for n in dir(nma) if not n.startswith("_") and not hasattr(ma, n)]
    assert missing == []
    public = [n for n in dir(nma.MaskedArray) if not n.startswith("_")]
    assert [n for n in public if not hasattr(ma.MaskedArray, n)] == []
    for sub, theirs in ((ma.core, nma.core), (ma.extras, nma.extras)):
        assert sorted(sub.__all__) == sorted(theirs.__all__)
        assert all(getattr(sub, n) is getattr(ma, n) for n in sub.__all__)
    assert ma.MAError is nma.MAError and issubclass(ma.MaskError, ma.MAError)


# ---------------------------------------------------------------------------
# creation

@pytest.mark.parametrize("name,args", [
    ("zeros", ((2, 3),)), ("ones", ((4,),)), ("zeros", ((),)), ("ones", ((0, 2),)),
    ("arange", (1, 7, 2)), ("arange", (5,)), ("identity", (3,)),
    ("indices", ((2, 3),))])
def test_creation(name, args):
    same(getattr(ma, name)(*args), getattr(nma, name)(*args))
    ours = getattr(ma, name)(*args, fill_value=7, hardmask=True)
    theirs = getattr(nma, name)(*args, fill_value=7, hardmask=True)
    same(ours, theirs)
    assert ours.hardmask is theirs.hardmask is True


def test_creation_of_dtype_buffer_function_like():
    same(ma.zeros((2,), dtype="int8"), nma.zeros((2,), dtype="int8"))
    assert ma.empty((2, 3), dtype="float32").shape == (2, 3)
    assert ma.empty((2, 3), dtype="float32").dtype == tl.float32
    buf = numpy.arange(4, dtype="int32").tobytes()
    same(ma.frombuffer(buf, dtype="int32"), nma.frombuffer(buf, dtype="int32"))
    same(ma.frombuffer(numpy.ones(2).tobytes()), nma.frombuffer(numpy.ones(2).tobytes()))
    fn = lambda i, j: i * 10 + j  # noqa: E731
    same(ma.fromfunction(fn, (2, 3)), nma.fromfunction(fn, (2, 3)))
    ours, theirs = pair([[1.5, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    e, te = ma.empty_like(ours), nma.empty_like(theirs)
    assert e.shape == te.shape and e.dtype == tl.float64
    numpy.testing.assert_array_equal(host(e.mask), te.mask)
    assert ma.empty_like(tnp.ones(3)).mask is ma.nomask
    c = ma.copy(ours)
    same(c, nma.copy(theirs))
    c[0, 0] = 9.0
    assert float(host(ours.data)[0, 0]) == 1.5
    with pytest.raises(TypeError, match="sparse"):
        ma.indices((2, 2), sparse=True)


# ---------------------------------------------------------------------------
# picking and placing

@pytest.mark.parametrize("mask", [nma.nomask, [[0, 1, 0], [0, 0, 0]], [[1, 1, 1], [1, 1, 1]]])
def test_diag_diagflat_take_compress_resize(mask):
    ours, theirs = pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], mask=mask, fill_value=3.5)
    for k in (-1, 0, 1):
        same(ma.diag(ours, k), nma.diag(theirs, k))
        same(ma.diag(ours[0], k), nma.diag(theirs[0], k))
        same(ma.diagflat(ours, k), nma.diagflat(theirs, k))
    for idx, axis in [([0, 4], None), ([2, 0, 2], 1), ([1], 0), (3, None)]:
        same(ma.take(ours, idx, axis=axis), nma.take(theirs, idx, axis=axis))
        same(ours.take(idx, axis=axis), theirs.take(idx, axis=axis))
    mi = nma.array([2, 0, 1], mask=[0, 1, 0])
    same(ma.take(ours, ma.array(tnp.asarray([2, 0, 1]), mask=[0, 1, 0])), nma.take(theirs, mi))
    same(ma.take(ours, [7, -9], mode="wrap"), nma.take(theirs, [7, -9], mode="wrap"))
    same(ma.take(ours, [7, -9], mode="clip"), nma.take(theirs, [7, -9], mode="clip"))
    with pytest.raises(IndexError):  # on a device, found there and raised at the sync
        ma.take(ours, [6]).data.cpu()
    for cond, axis in [([True, False, True], 1), ([0, 1], 0), ([1, 0, 0, 1], None),
                       ([False, False], 0)]:
        same(ma.compress(cond, ours, axis=axis), nma.compress(cond, theirs, axis=axis))
        same(ours.compress(cond, axis=axis), theirs.compress(cond, axis=axis))
    for shape in [(3, 3), (4,), (0,), (1, 2)]:
        same(ma.resize(ours, shape), nma.resize(theirs, shape))
    with pytest.raises(ValueError, match="resize"):
        ours.resize((3, 3))


def test_take_non_contiguous_and_0d():
    data = RNG.standard_normal((4, 3))
    mask = RNG.random((4, 3)) < 0.4
    ours, theirs = pair(data.T, mask=mask.T)
    same(ma.take(ours, [0, 3], axis=1), nma.take(theirs, [0, 3], axis=1))
    ours, theirs = pair([1.0, 2.0], mask=[1, 0])
    assert ma.take(ours, 0) is ma.masked and nma.take(theirs, 0) is nma.masked
    same(ma.take(ours, 1), nma.take(theirs, 1))


@pytest.mark.parametrize("hard", [False, True])
def test_put_and_putmask(hard):
    def both(mask, fn_ours, fn_theirs):
        ours, theirs = pair([1.0, 2.0, 3.0, 4.0], mask=mask, hard_mask=hard)
        fn_ours(ours)
        fn_theirs(theirs)
        same(ours, theirs)
    for mask in (nma.nomask, [0, 1, 0, 1]):
        both(mask, lambda x: ma.put(x, [0, 3], [9.0, 8.0]),
             lambda x: nma.put(x, [0, 3], [9.0, 8.0]))
        if not (hard and mask is not nma.nomask):  # (NumPy's fails there)
            both(mask, lambda x: ma.put(x, [1, 3], ma.array(tnp.asarray([9.0, 8.0]),
                                                            mask=[1, 0])),
                 lambda x: nma.put(x, [1, 3], nma.array([9.0, 8.0], mask=[1, 0])))
        if not hard:  # (NumPy's hard-mask put reads the mask at the raw indices)
            both(mask, lambda x: x.put([-1, 5], [7.0, 6.0], mode="wrap"),
                 lambda x: x.put([-1, 5], [7.0, 6.0], mode="wrap"))
        both(mask, lambda x: ma.putmask(x, [True, True, False, True], 5.0),
             lambda x: nma.putmask(x, [True, True, False, True], 5.0))
        vals = [5.0, 6.0, 7.0, 8.0]
        both(mask, lambda x: ma.putmask(x, [True, True, False, True],
                                        ma.array(tnp.asarray(vals), mask=[0, 0, 0, 1])),
             lambda x: nma.putmask(x, [True, True, False, True],
                                   nma.array(vals, mask=[0, 0, 0, 1])))
    ours, theirs = pair([1, 2, 3], mask=[0, 1, 0])
    with pytest.raises(TypeError):
        nma.putmask(theirs, [True, False, True], 1.5)
    with pytest.raises(TypeError):
        ma.putmask(ours, [True, False, True], 1.5)
    t = tnp.asarray([1.0, 2.0, 3.0])
    ma.putmask(t, tnp.asarray([True, False, True]), 0.0)
    ma.put(t, [1], [7.0])
    numpy.testing.assert_array_equal(host(t), [0.0, 7.0, 0.0])


def test_choose_trace_outer():
    idx_o, idx_t = pair([0, 1, 2, 1], mask=[0, 0, 1, 0])
    c0o, c0t = pair([1, 2, 3, 4], mask=[0, 1, 0, 0])
    choices_o = [c0o, tnp.asarray([10, 20, 30, 40]), ma.masked]
    choices_t = [c0t, [10, 20, 30, 40], nma.masked]
    same(ma.choose(idx_o, choices_o), nma.choose(idx_t, choices_t))
    # (NumPy's method is ndarray's, which reads masked as 0; ours is ma.choose)
    same(idx_o.choose(choices_o), nma.choose(idx_t, choices_t))
    plain_o, plain_t = pair([1, 0, 1])
    same(ma.choose(plain_o, [tnp.asarray([1.5, 2.5, 3.5]), tnp.asarray([7.0, 8.0, 9.0])]),
         nma.choose(plain_t, [[1.5, 2.5, 3.5], [7.0, 8.0, 9.0]]))
    with pytest.raises(ValueError):
        ma.choose(tnp.asarray([0, 3]), [tnp.asarray([1, 2]), tnp.asarray([3, 4])])
    for mask in (nma.nomask, [[0, 1, 0], [0, 0, 0], [1, 0, 0]]):
        for dtype in ("int64", "float32"):
            ours, theirs = pair(numpy.arange(9).reshape(3, 3), mask=mask, dtype=dtype)
            for kw in ({}, {"offset": 1}, {"dtype": "int32"}):
                same(ma.trace(ours, **kw), nma.trace(theirs, **kw))
                same(ours.trace(**kw), theirs.trace(**kw))
    ao, at = pair([1.0, 2.0, 3.0], mask=[0, 1, 0])
    bo, bt = pair([[4.0, 5.0]], mask=[[1, 0]])
    same(ma.outer(ao, bo), nma.outer(at, bt))
    same(ma.outerproduct(ao, tnp.asarray([1.0, 2.0])), nma.outerproduct(at, [1.0, 2.0]))
    po, pt = pair([1.0, 2.0])
    same(ma.outer(po, po), nma.outer(pt, pt))
    assert ma.innerproduct is ma.inner


def test_diff_append_ediff1d():
    data = RNG.integers(-5, 5, (3, 5))
    mask = RNG.random((3, 5)) < 0.3
    for dtype in ("int64", "float32", "bool"):
        ours, theirs = pair(data, mask=mask, dtype=dtype)
        one = numpy.array(1, dtype)
        for kw in ({}, {"n": 2}, {"axis": 0}, {"n": 0}, {"prepend": tnp.asarray(one), "axis": 0},
                   {"append": ma.array(tnp.asarray([[1], [2], [3]]).astype(dtype),
                                       mask=[[1], [0], [0]])}):
            kt = dict(kw)
            if isinstance(kw.get("append"), ma.MaskedArray):
                kt["append"] = kw["append"].to_numpy()
            if "prepend" in kw:
                kt["prepend"] = one
            same(ma.diff(ours, **kw), nma.diff(theirs, **kt))
    ours, theirs = pair(numpy.arange(6.0).reshape(2, 3).T, mask=numpy.eye(2, 3, dtype=bool).T)
    same(ma.diff(ours), nma.diff(theirs))
    with pytest.raises(ValueError):
        ma.diff(ours, n=-1)
    with pytest.raises(ValueError):
        ma.diff(ma.array(tnp.asarray(1.0)))
    a_o, a_t = pair([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    same(ma.append(a_o, [5, 6]), nma.append(a_t, [5, 6]))
    same(ma.append(a_o, a_o, axis=0), nma.append(a_t, a_t, axis=0))
    same(ma.append(a_o, a_o, axis=1), nma.append(a_t, a_t, axis=1))
    e_o, e_t = pair([1, 2, 2, 3, 5], mask=[0, 0, 1, 0, 1])
    same(ma.ediff1d(e_o), nma.ediff1d(e_t))
    same(ma.ediff1d(e_o, to_end=[9], to_begin=ma.array(tnp.asarray([7]), mask=[1])),
         nma.ediff1d(e_t, to_end=[9], to_begin=nma.array([7], mask=[1])))
    f_o, f_t = pair([[1.0, 2.0], [4.0, 8.0]])
    same(ma.ediff1d(f_o, to_begin=0.5), nma.ediff1d(f_t, to_begin=0.5))
    same(ma.ediff1d(ma.array(tnp.asarray([3.0]))), nma.ediff1d(nma.array([3.0])))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("propagate", [True, False])
def test_convolve_correlate(mode, propagate):
    a_o, a_t = pair([1.0, 2.0, 3.0, 4.0, 5.0], mask=[0, 1, 0, 0, 0])
    v_o, v_t = pair([1.0, 0.5, 2.0], mask=[0, 0, 1])
    for fo, ft in ((ma.convolve, nma.convolve), (ma.correlate, nma.correlate)):
        same(fo(a_o, v_o, mode, propagate), ft(a_t, v_t, mode, propagate))
        same(fo(v_o, a_o, mode, propagate), ft(v_t, a_t, mode, propagate))
    with pytest.raises(ValueError):
        ma.convolve(ma.array(tnp.asarray([1.0])), ma.array(tnp.zeros(0)))


# integer convolutions are NumPy's own loop in the namespace: CPU tensors only
@pytest.mark.host_only
def test_integer_convolve_correlate():
    i_o, i_t = pair([1, 2, 3, 4], mask=[0, 0, 1, 0])
    j_o, j_t = pair([2, -1])
    for mode in ("full", "same", "valid"):
        for propagate in (True, False):
            same(ma.convolve(i_o, j_o, mode, propagate), nma.convolve(i_t, j_t, mode, propagate))
            same(ma.correlate(j_o, i_o, mode, propagate),
                 nma.correlate(j_t, i_t, mode, propagate))


def test_numpy_functions_run_the_masked_ones():
    """numpy.diff/take/compress/trace/put on our masked arrays run ours (so
    on any device), as NumPy's on its masked arrays run numpy.ma's."""
    ours, theirs = pair([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]], mask=[[0, 1, 0], [0, 0, 0]])
    same(numpy.diff(ours), numpy.diff(theirs))
    same(numpy.diff(ours, axis=0), numpy.diff(theirs, axis=0))
    same(numpy.take(ours, [1, 3]), numpy.take(theirs, [1, 3]))
    same(numpy.compress([1, 0, 1], ours, axis=1), numpy.compress([1, 0, 1], theirs, axis=1))
    same(numpy.trace(ours), numpy.trace(theirs))
    numpy.put(ours, [0, 1], [7.0, 8.0])
    numpy.put(theirs, [0, 1], [7.0, 8.0])
    same(ours, theirs)


def test_alltrue_sometrue():
    data = RNG.integers(0, 2, (3, 4))
    for mask in (nma.nomask, RNG.random((3, 4)) < 0.4, [[1] * 4, [0] * 4, [1, 0, 1, 0]]):
        ours, theirs = pair(data, mask=mask)
        for axis in (0, 1, None, -1):
            same(ma.alltrue(ours, axis), nma.alltrue(theirs, axis))
            same(ma.sometrue(ours, axis), nma.sometrue(theirs, axis))
    same(ma.alltrue(ma.array(tnp.asarray(5.0))), nma.alltrue(nma.array(5.0)))
    assert ma.sometrue(ma.array(tnp.asarray([0, 0]), mask=[1, 1])) is ma.masked
    with pytest.raises(TypeError):
        ma.alltrue(ours, 0, dtype="int32")


# ---------------------------------------------------------------------------
# rows, columns, runs, edges

ROWCOL_MASKS = [nma.nomask, [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]],
                [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], numpy.ones((3, 4), bool)]


@pytest.mark.parametrize("mask", ROWCOL_MASKS)
def test_rowcols(mask):
    ours, theirs = pair(numpy.arange(12.0).reshape(3, 4), mask=mask)
    for axis in (None, 0, 1, -1):
        same(ma.mask_rowcols(ours, axis), nma.mask_rowcols(theirs, axis))
        same_tensor(ma.compress_rowcols(ours, axis), nma.compress_rowcols(theirs, axis))
        same_tensor(ma.compress_nd(ours, axis), nma.compress_nd(theirs, axis))
    same(ma.mask_rows(ours), nma.mask_rows(theirs))
    same(ma.mask_cols(ours), nma.mask_cols(theirs))
    same_tensor(ma.compress_rows(ours), nma.compress_rows(theirs))
    same_tensor(ma.compress_cols(ours), nma.compress_cols(theirs))
    t_o, t_t = pair(numpy.arange(12.0).reshape(3, 4).T, mask=mask if mask is nma.nomask
                    else numpy.asarray(mask).T)
    same(ma.mask_rowcols(t_o), nma.mask_rowcols(t_t))


def test_compress_nd_and_rowcol_errors():
    data = numpy.arange(24.0).reshape(2, 3, 4)
    mask = numpy.zeros((2, 3, 4), bool)
    mask[1, 2, 0] = mask[0, 0, 3] = True
    ours, theirs = pair(data, mask=mask)
    for axis in (None, 0, (0, 2), -1, ()):
        same_tensor(ma.compress_nd(ours, axis), nma.compress_nd(theirs, axis))
    for fn in ("mask_rowcols", "compress_rowcols", "compress_rows", "compress_cols"):
        with pytest.raises(NotImplementedError):
            getattr(nma, fn)(theirs)
        with pytest.raises(NotImplementedError):
            getattr(ma, fn)(ours)
    with pytest.raises(numpy.exceptions.AxisError):
        ma.compress_nd(ours, 3)
    with pytest.raises(NotImplementedError):
        ma.notmasked_contiguous(ours)


RUN_MASKS = [nma.nomask, [1, 1, 0, 0, 1, 0, 0, 0, 1, 1], [0] * 10, [1] * 10,
             [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]]


def _clump_outcome(fn, a):
    """The slices as NumPy prints them (its bounds' types: NumPy ints inside
    the array, Python ints at its ends), or the exception and its words."""
    try:
        return "ok", repr(fn(a))
    except Exception as error:  # noqa: BLE001 - the refusal is compared
        return type(error).__name__, str(error)


@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "bool", "float32"])
@pytest.mark.parametrize("shape,mask", [
    ((10,), RUN_MASKS[1]), ((10,), RUN_MASKS[2]), ((10,), RUN_MASKS[3]), ((10,), RUN_MASKS[4]),
    ((10,), nma.nomask), ((2, 5), RUN_MASKS[1]), ((0,), []), ((), True), ((), False),
])
def test_clumps_of_integer_masked_arrays(dtype, shape, mask):
    """clump_masked/clump_unmasked as NumPy gives them, bounds' types
    included, and its IndexError for an empty or a 0-d mask."""
    data = numpy.arange(int(numpy.prod(shape))).reshape(shape).astype(dtype)
    ours, theirs = pair(data, mask=mask if mask is nma.nomask else
                        numpy.asarray(mask, bool).reshape(shape))
    for name in ("clump_masked", "clump_unmasked"):
        want = _clump_outcome(getattr(nma, name), theirs)
        assert _clump_outcome(getattr(ma, name), ours) == want, name


@pytest.mark.parametrize("mask", RUN_MASKS)
def test_runs_and_flat_edges(mask):
    ours, theirs = pair(numpy.arange(10.0), mask=mask)
    for name in ("clump_masked", "clump_unmasked", "flatnotmasked_contiguous",
                 "notmasked_contiguous"):
        assert getattr(ma, name)(ours) == getattr(nma, name)(theirs), name
    edges, want = ma.flatnotmasked_edges(ours), nma.flatnotmasked_edges(theirs)
    if want is None:
        assert edges is None
    else:
        same_tensor(edges, want)
        same_tensor(ma.notmasked_edges(ours), nma.notmasked_edges(theirs))


@pytest.mark.parametrize("mask", ROWCOL_MASKS)
def test_edges_and_runs_along_axes(mask):
    ours, theirs = pair(numpy.arange(12).reshape(3, 4), mask=mask)
    for axis in (0, 1, -1):
        assert ma.notmasked_contiguous(ours, axis) == nma.notmasked_contiguous(theirs, axis)
        got, want = ma.notmasked_edges(ours, axis), nma.notmasked_edges(theirs, axis)
        for g, w in zip(got, want):
            for gi, wi in zip(g, w):
                same_tensor(gi, wi)


# ---------------------------------------------------------------------------
# set operations

def _set_pairs():
    out = [(pair([1, 2, 2, 3, 5], mask=[0, 0, 1, 0, 1]), pair([2, 3, 4, 7], mask=[0, 1, 0, 0])),
           (pair([5, 1]), pair([1], mask=[1])),
           (pair([9, 9, 3], mask=[0, 1, 1]), pair([1, 5])),
           (pair([1.5, numpy.nan, 2.0, numpy.nan]), pair([2.0, numpy.nan], mask=[0, 1])),
           (pair(numpy.zeros(0, "int64")), pair([1, 2], mask=[1, 0]))]
    for _ in range(4):
        out.append((masked_ints(7), masked_ints(5)))
    return out


SET_PAIRS = _set_pairs()


@pytest.mark.parametrize("k", range(len(SET_PAIRS)))
def test_set_operations(k):
    (a_o, a_t), (b_o, b_t) = SET_PAIRS[k]
    for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d", "in1d"):
        same(getattr(ma, name)(a_o, b_o), getattr(nma, name)(a_t, b_t))
    for invert in (False, True):
        same(ma.in1d(a_o, b_o, invert=invert), nma.in1d(a_t, b_t, invert=invert))
        same(ma.isin(a_o, b_o, invert=invert), nma.isin(a_t, b_t, invert=invert))
    ua_o, ua_t = ma.unique(a_o), nma.unique(a_t)
    ub_o, ub_t = ma.unique(b_o), nma.unique(b_t)
    for name in ("intersect1d", "setdiff1d", "setxor1d"):
        same(getattr(ma, name)(ua_o, ub_o, assume_unique=True),
             getattr(nma, name)(ua_t, ub_t, assume_unique=True))
    same(ma.in1d(ua_o, ub_o, assume_unique=True), nma.in1d(ua_t, ub_t, assume_unique=True))
    got = ma.unique(a_o, return_index=True, return_inverse=True)
    want = nma.unique(a_t, return_index=True, return_inverse=True)
    same(got[0], want[0])
    same_tensor(got[1], want[1])
    same_tensor(got[2], want[2])


def test_unique_inverse_keeps_the_shape_and_isin_2d():
    ours, theirs = pair([[3, 1, 3], [2, 1, 5]], mask=[[0, 0, 1], [0, 1, 1]])
    got, want = ma.unique(ours, return_inverse=True), nma.unique(theirs, return_inverse=True)
    same(got[0], want[0])
    same_tensor(got[1], want[1])
    b_o, b_t = pair([1, 5, 7], mask=[0, 1, 0])
    same(ma.isin(ours, b_o), nma.isin(theirs, b_t))
    same(ma.in1d(ours, b_o), nma.in1d(theirs, b_t))


def test_masked_equality_data_is_numpys():
    a_o, a_t = pair([1, 2, 5], mask=[1, 1, 0])
    b_o, b_t = pair([7, 3, 5], mask=[1, 0, 0])
    for got, want in [(a_o == b_o, a_t == b_t), (a_o != b_o, a_t != b_t),
                      (a_o == 3, a_t == 3), (a_o != 3, a_t != 3)]:
        numpy.testing.assert_array_equal(host(got.data), want.data)
        numpy.testing.assert_array_equal(host(got.mask), want.mask)


# ---------------------------------------------------------------------------
# statistics

COV_MASKS = [nma.nomask, [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]],
             [[0, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]]]


@pytest.mark.parametrize("mask", COV_MASKS)
def test_cov_corrcoef(mask):
    data = RNG.standard_normal((3, 4))
    ours, theirs = pair(data, mask=mask)
    for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 2}, {"ddof": 3}):
        same(ma.cov(ours, **kw), nma.cov(theirs, **kw))
    same(ma.cov(ours[0], ours[1]), nma.cov(theirs[0], theirs[1]))
    same(ma.cov(ours, ours[::-1]), nma.cov(theirs, theirs[::-1]))
    same(ma.cov(ours[0]), nma.cov(theirs[0]))
    same(ma.cov(ours.T.astype("float32"), rowvar=False),
         nma.cov(theirs.T.astype("float32"), rowvar=False))
    same(ma.corrcoef(ours), nma.corrcoef(theirs))
    same(ma.corrcoef(ours, rowvar=False), nma.corrcoef(theirs, rowvar=False))
    assert ma.corrcoef(ours[0]) is ma.masked
    with pytest.raises(ValueError):
        ma.cov(ours, ddof=1.5)
    if mask is not nma.nomask:
        with pytest.raises(ValueError, match="masked"):
            ma.cov(ours, allow_masked=False)
    with pytest.warns(DeprecationWarning):
        ma.corrcoef(ours, bias=True)


def test_polyfit_vander():
    x = numpy.array([0.0, 1.0, 2.0, 3.0, 4.0])
    y = numpy.array([1.0, 3.2, 4.9, 7.1, 9.0])
    x_o, x_t = pair(x, mask=[0, 0, 1, 0, 0])
    y_o, y_t = pair(y, mask=[0, 0, 0, 0, 1])
    same_tensor(ma.polyfit(x_o, y_o, 1), nma.polyfit(x_t, y_t, 1))
    same_tensor(ma.polyfit(x_o, tnp.asarray(y), 2), nma.polyfit(x_t, y, 2))
    w_o, w_t = pair([1.0, 2.0, 1.0, 1.0, 3.0], mask=[1, 0, 0, 0, 0])
    same_tensor(ma.polyfit(x_o, y_o, 1, w=w_o), nma.polyfit(x_t, y_t, 1, w=w_t))
    y2 = numpy.stack([y, 2 * y], axis=1)
    y2_o, y2_t = pair(y2, mask=[[0, 0], [0, 1], [0, 0], [0, 0], [0, 0]])
    same_tensor(ma.polyfit(x_o, y2_o, 1), nma.polyfit(x_t, y2_t, 1))
    with pytest.raises(TypeError):
        ma.polyfit(x_o, ma.zeros((5, 2, 2)), 1)
    with pytest.raises(TypeError):
        ma.polyfit(x_o, y_o, 1, w=tnp.ones(3))
    for n in (None, 2, 4):
        same_tensor(ma.vander(x_o, n), nma.vander(x_t, n))
    i_o, i_t = pair([1, 2, 3], mask=[0, 1, 0])
    same_tensor(ma.vander(i_o), nma.vander(i_t))


# ---------------------------------------------------------------------------
# mr_, apply_over_axes, ndenumerate, hsplit

def test_mr_():
    x_o, x_t = pair([1.0, 2.0, 3.0], mask=[0, 1, 0])
    y_o, y_t = pair([7, 8], mask=[1, 0])
    same(ma.mr_[x_o, 0, y_o], nma.mr_[x_t, 0, y_t])
    same(ma.mr_[1:4], nma.mr_[1:4])
    same(ma.mr_[y_o, 0:6:3j], nma.mr_[y_t, 0:6:3j])
    same(ma.mr_[tnp.asarray([1, 2]), y_o, 5:7], nma.mr_[numpy.array([1, 2]), y_t, 5:7])
    m_o, m_t = pair([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    same(ma.mr_["1", m_o, m_o], nma.mr_["1", m_t, m_t])
    same(ma.mr_["0,2", y_o, y_o], nma.mr_["0,2", y_t, y_t])
    with pytest.raises(NotImplementedError):
        ma.mr_["r", y_o]


def test_apply_over_axes_ndenumerate_hsplit():
    ours, theirs = pair(numpy.arange(24).reshape(2, 3, 4), mask=RNG.random((2, 3, 4)) < 0.3)
    for axes in ([0, 2], 1, [-1], [0, 1, 2]):
        same(ma.apply_over_axes(ma.sum, ours, axes), nma.apply_over_axes(nma.sum, theirs, axes))
    with pytest.raises(ValueError):
        ma.apply_over_axes(lambda a, ax: a.reshape(-1), ours, [0])
    m_o, m_t = pair([[1, 2, 3], [4, 5, 6]], mask=[[0, 1, 0], [0, 0, 1]])
    for compressed in (True, False):
        got = list(ma.ndenumerate(m_o, compressed))
        want = list(nma.ndenumerate(m_t, compressed))
        assert [i for i, _ in got] == [i for i, _ in want]
        for (_, g), (_, w) in zip(got, want):
            assert (g is ma.masked) == (w is nma.masked)
            if w is not nma.masked:
                assert host(g) == w
    same(ma.hsplit(m_o, 3), nma.hsplit(m_t, 3))
    same(ma.hsplit(m_o, [1, 2]), nma.hsplit(m_t, [1, 2]))
    with pytest.raises(ValueError):
        ma.hsplit(m_o, [1])
    numpy.testing.assert_array_equal(host(ma.flatten_mask(tnp.asarray([0, 1]) > 0)),
                                     nma.flatten_mask([False, True]))


def test_masked_object_harden_soften_ids():
    ours, theirs = pair([1.0, 2.0, 3.0, 2.0], mask=[1, 0, 0, 0])
    same(ma.masked_object(ours, 2.0), nma.masked_object(theirs, 2.0))
    same(ma.masked_object(tnp.asarray([1, 5]), 9), nma.masked_object(numpy.array([1, 5]), 9))
    assert ma.harden_mask(ours) is ours and ours.hardmask
    assert ma.soften_mask(ours) is ours and not ours.hardmask
    d, m = ma.ids(ours)
    assert d == ours.data.data_ptr() and m == ours.mask.data_ptr()
    assert ma.ids(ma.array(tnp.ones(2)))[1] == id(ma.nomask)


# ---------------------------------------------------------------------------
# methods

def test_ndarray_methods():
    ours, theirs = pair([3.0, 1.0, 2.0, 5.0], mask=[0, 1, 0, 0])
    ours.fill(7.0)
    theirs.fill(7.0)
    same(ours, theirs)
    ours, theirs = pair([1.0, 2.0, 4.0, 5.0], mask=[0, 1, 0, 0])
    same_tensor(ours.searchsorted(tnp.asarray([0.5, 4.5])), theirs.searchsorted([0.5, 4.5]))
    same_tensor(ours.searchsorted(2.0, side="right"),
                numpy.asarray(theirs.searchsorted(2.0, side="right")))
    ours, theirs = pair([3, 9, 1, 7, 5], mask=[0, 1, 0, 0, 0])
    with pytest.warns(UserWarning, match="partition"):
        ours.partition(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.partition(2)
    assert int(host(ours.data)[2]) == int(theirs.data[2])
    numpy.testing.assert_array_equal(host(ours.mask), theirs.mask)
    with pytest.warns(UserWarning, match="argpartition"):
        idx = ours.argpartition(1)
    assert host(ours.data)[host(idx)][1] == numpy.sort(host(ours.data))[1]
    m_o, m_t = pair([[1, 2, 3]], mask=[[0, 1, 0]])
    same(m_o.mT, m_t.mT)
    with pytest.raises(ValueError):
        m_o[0].mT
    assert 3 in m_o and 2 not in m_o and (3 in m_t) and (2 not in m_t)
    with pytest.raises(ValueError):
        del m_o[0]
    assert [1, 2, 3][ma.array(tnp.asarray(2))] == 3
    with pytest.raises(TypeError):
        [1][ma.array(tnp.asarray(1.0))]
    assert complex(ma.array(tnp.asarray(2.0))) == 2 + 0j
    with pytest.raises(TypeError):
        complex(m_o)
    a_o, a_t = pair([5, 7, -3], mask=[0, 1, 0])
    for got, want in zip(divmod(a_o, 2), divmod(a_t, 2)):
        same(got, want)
    for got, want in zip(divmod(11, a_o), divmod(11, a_t)):
        same(got, want)
    b_o, b_t = pair([1, 256, 3], mask=[0, 1, 0], dtype="int32")
    same(b_o.byteswap(), b_t.byteswap())
    assert m_o.base is m_o.data and m_o.strides == m_t.strides
    sq_o, sq_t = pair([[1, 2], [3, 4]])
    assert sq_o.iscontiguous() == sq_t.iscontiguous()
    assert sq_o.T.iscontiguous() == sq_t.T.iscontiguous()
    assert m_o.flags["C_CONTIGUOUS"]
    same(m_o.get_real(), m_t.get_real())
    same(m_o.get_imag(), m_t.get_imag())
    same(m_o.to_device(m_o.device), m_t)
    back = pickle.loads(m_o.dumps())  # NumPy's masked array (a host copy)
    numpy.testing.assert_array_equal(back.mask, m_t.mask)
    numpy.testing.assert_array_equal(back.data, m_t.data)
    with pytest.raises(NotImplementedError):
        m_o.tofile("x")
    with pytest.raises(TypeError):
        m_o.getfield("int32")
    assert ma.MaskedArray[int] is not None


def test_imatmul():
    ours, theirs = pair([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    eye_o, eye_t = pair([[1.0, 0.0], [0.0, 1.0]])
    ours @= eye_o
    want = nma.dot(theirs, eye_t)
    same(ours, want)


# ---------------------------------------------------------------------------
# structured dtypes and the test runner: refused, saying why

def test_structured_names():
    assert ma.make_mask_descr(tl.float32) == tl.bool
    assert ma.make_mask_descr(numpy.float64) == tl.bool
    assert ma.bool_ == tl.bool and ma.MaskType == tl.bool
    with pytest.raises(TypeError, match="structured"):
        ma.make_mask_descr(numpy.dtype([("a", int), ("b", float)]))
    with pytest.raises(TypeError, match="structured"):
        ma.flatten_structured_array(ma.array(tnp.ones(2)))
    with pytest.raises(TypeError, match="structured"):
        ma.mvoid(1)
    with pytest.raises(NotImplementedError, match="test suite"):
        ma.test()
    ours, theirs = pair([1.5, 2.0, 3.0], mask=[0, 1, 0])
    flex = ours.toflex()
    assert flex.dtype == theirs.toflex().dtype
    same(ma.fromflex(flex), nma.fromflex(theirs.toflex()))
    with pytest.raises(TypeError, match="_data"):
        ma.fromflex(numpy.ones(2))
    assert ma.masked_print_option is nma.masked_print_option


# ---------------------------------------------------------------------------
# every shape: 0-d, empty, non-contiguous, several dtypes and masks

from test_numpy_ma import CASES  # noqa: E402


@pytest.mark.parametrize("data,mask", CASES)
def test_shape_generic_functions(data, mask):
    ours, theirs = pair(data, mask=mask)
    n = theirs.size
    same(ma.copy(ours), nma.copy(theirs))
    same(ma.resize(ours, (2, 3)), nma.resize(theirs, (2, 3))) if n else None
    same(ma.compress(numpy.arange(n) % 2 == 0, ours), nma.compress(numpy.arange(n) % 2 == 0,
                                                                     theirs))
    if n:
        same(ma.take(ours, [0, n - 1]), nma.take(theirs, [0, n - 1]))
    if theirs.ndim or theirs.mask is nma.nomask:  # (NumPy's fails on masked 0-d ones)
        same(ma.alltrue(ours, None), nma.alltrue(theirs, None))
        same(ma.sometrue(ours, None), nma.sometrue(theirs, None))
    same(ma.diagflat(ours), nma.diagflat(theirs))
    same(ma.append(ours, ours), nma.append(theirs, theirs))
    same(ma.ediff1d(ours), nma.ediff1d(theirs))
    same(ma.ediff1d(ours, to_begin=[1]), nma.ediff1d(theirs, to_begin=[1]))  # int64 joins
    same(ma.outer(ours, ours), nma.outer(theirs, theirs))
    if theirs.ndim == 1:
        same_tensor(ma.vander(ours, 3), nma.vander(theirs, 3))
    same(ma.union1d(ours, ours[..., :1] if theirs.ndim else ours),
         nma.union1d(theirs, theirs[..., :1] if theirs.ndim else theirs))
    same(ma.in1d(ours, ours), nma.in1d(theirs, theirs))
    got, want = ma.unique(ours, True, True), nma.unique(theirs, True, True)
    same(got[0], want[0])
    same_tensor(got[1], want[1])
    same_tensor(got[2], want[2])
    if theirs.ndim and n:  # (NumPy's clumps fail on 0-d and empty masks)
        for name in ("clump_masked", "clump_unmasked", "flatnotmasked_contiguous"):
            assert getattr(ma, name)(ours) == getattr(nma, name)(theirs), name
    edges, want = ma.flatnotmasked_edges(ours), nma.flatnotmasked_edges(theirs)
    assert (edges is None) == (want is None)
    if want is not None:
        same_tensor(edges, want)
    if theirs.ndim:
        same(ma.diff(ours), nma.diff(theirs))
        same(ma.mr_[ours.ravel(), 1, ours.ravel()], nma.mr_[theirs.ravel(), 1, theirs.ravel()])
    if theirs.ndim == 2:
        for axis in (None, 0, 1):
            same(ma.mask_rowcols(ours, axis), nma.mask_rowcols(theirs, axis))
            same_tensor(ma.compress_rowcols(ours, axis), nma.compress_rowcols(theirs, axis))
        same(ma.diag(ours), nma.diag(theirs))
        same(ma.trace(ours), nma.trace(theirs))
        assert ma.notmasked_contiguous(ours, 0) == nma.notmasked_contiguous(theirs, 0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint8", "int64", "bool"])
def test_python_scalars_promote_as_numpy_mas(dtype):
    """numpy.ma's functions and its own operators make a Python scalar a 0-d
    array (a float32 masked array times 2 is float64); the operators it
    leaves to ndarray (%, &, ...) and NumPy's ufuncs keep it weak."""
    ours, theirs = pair(numpy.array([1, 0, 1]).astype(dtype), mask=[0, 1, 0])
    calls = [lambda x, m: x * 2, lambda x, m: 2 * x, lambda x, m: x - 1.5,
             lambda x, m: x / 2, lambda x, m: x ** 2, lambda x, m: 3.0 - x,
             lambda x, m: m.add(x, 2), lambda x, m: m.multiply(x, True),
             lambda x, m: numpy.multiply(x, 2)]
    calls.append(lambda x, m: x % 2)
    if dtype not in ("float32", "float16"):
        calls += [lambda x, m: x & 1, lambda x, m: x // 2]
    with numpy.errstate(all="ignore"):
        for fn in calls:
            same(fn(ours, ma), fn(theirs, nma))


def test_joins_promote_as_numpy():
    f_o, f_t = pair(numpy.ones(2, "float32"), mask=[0, 1])
    i_o, i_t = pair(numpy.arange(2))
    for name in ("concatenate", "hstack", "vstack", "stack", "append"):
        fo, ft = getattr(ma, name), getattr(nma, name)
        if name == "append":
            same(fo(f_o, i_o), ft(f_t, i_t))
        else:
            same(fo([f_o, i_o]), ft([f_t, i_t]))
    same(ma.mr_[f_o, i_o, 2.5], nma.mr_[f_t, i_t, 2.5])


def test_writes_through_a_transposed_view():
    mask = numpy.zeros((3, 4), bool)
    mask[0, 1] = mask[2, 3] = True
    ours, theirs = pair(numpy.arange(12.0).reshape(3, 4), mask=mask)
    ov, tv = ours.T, theirs.T
    ma.put(ov, [0, 5], [100.0, 200.0])
    nma.put(tv, [0, 5], [100.0, 200.0])
    same(ov, tv)
    same(ours, theirs)
    where = numpy.arange(12).reshape(4, 3) % 5 == 0
    ma.putmask(ov, where, ma.array(tnp.asarray(7.0), mask=True))
    nma.putmask(tv, where, nma.array(7.0, mask=True))
    same(ov, tv)
    same(ours, theirs)
    ov.fill(1.0)
    tv.fill(1.0)
    same(ours, theirs)


def test_in_place_writes_reach_the_base_mask():
    """putmask and the in-place operators on a view write its mask in place,
    so the base sees the change, as NumPy's."""
    mask = [[0, 1, 0], [0, 0, 0]]
    for hard in (False, True):
        ours, theirs = pair(numpy.arange(6.0).reshape(2, 3), mask=mask, hard_mask=hard)
        cond = numpy.array([[True, False], [False, False], [False, True]])
        ma.putmask(ours.T, cond, ma.array(tnp.asarray(7.0), mask=True))
        nma.putmask(theirs.T, cond, nma.array(7.0, mask=True))
        same(ours, theirs)
    ours, theirs = pair(numpy.arange(6.0).reshape(2, 3), mask=mask)
    ov, tv = ours[1], theirs[1]
    ov += ma.array(tnp.asarray([1.0, 2.0, 3.0]), mask=[1, 0, 0])
    tv += nma.array([1.0, 2.0, 3.0], mask=[1, 0, 0])
    same(ours, theirs)
    ov /= 0.0
    tv /= 0.0
    same(ours, theirs)


# ---------------------------------------------------------------------------
# the ufunc methods of the binary operations (np.ma.add.reduce ...)

def test_binary_operations_carry_numpys_methods():
    for name in dir(nma):
        theirs = getattr(nma, name)
        for method in ("reduce", "accumulate", "outer"):
            if hasattr(theirs, "reduce") and hasattr(theirs, "outer"):
                assert hasattr(getattr(ma, name), method) == hasattr(theirs, method), \
                    (name, method)


@pytest.mark.parametrize("name,axis", [("add", 0), ("add", 1), ("add", None), ("multiply", 0),
                                       ("subtract", 1), ("maximum", 0), ("minimum", 1),
                                       ("maximum", None), ("bitwise_or", 0),
                                       ("logical_and", 1), ("hypot", 0)])
def test_masked_reduce_fills_masked_elements_as_numpys(name, axis):
    # masked elements take the operation's neutral value (NumPy ma's filly);
    # a result is masked where all it reduces is (row 2 is all masked)
    data = RNG.integers(1, 9, (4, 5)) if name in ("bitwise_or", "logical_and") else \
        RNG.uniform(0.5, 2.0, (4, 5))
    mask = RNG.random((4, 5)) < 0.3
    mask[2] = True
    ours, theirs = pair(data, mask=mask)
    if axis is None and name in ("maximum", "minimum"):  # the default, with NumPy's warning
        with pytest.warns(nma.core.MaskedArrayFutureWarning, match="default for ma.maximum"):
            want = getattr(nma, name).reduce(theirs)
        with pytest.warns(nma.core.MaskedArrayFutureWarning, match="default for ma.maximum"):
            same(getattr(ma, name).reduce(ours), want)
    same(getattr(ma, name).reduce(ours, axis=axis), getattr(nma, name).reduce(theirs, axis=axis))
    if name not in ("maximum", "minimum"):
        same(getattr(ma, name).accumulate(ours, axis=axis or 0),
             getattr(nma, name).accumulate(theirs, axis=axis or 0))


def test_masked_outer_masks_where_either_operand_is():
    a, na = pair([1.0, 2.0, 3.0], mask=[False, True, False])
    b, nb = pair([10.0, 20.0], mask=[True, False])
    # NumPy's own outer raises once a mask is set (it copies a's data into the
    # result without broadcasting it): its parts are checked instead
    got = ma.add.outer(a, b)
    want = nma.masked_array(numpy.add.outer(na.data, nb.data),
                            mask=numpy.logical_or.outer(na.mask, nb.mask))
    same(ma.masked_array(got.data, mask=ma.getmaskarray(got)), want)
    same(ma.multiply.outer(tnp.arange(3.0), tnp.arange(2.0)),
         nma.multiply.outer(numpy.arange(3.0), numpy.arange(2.0)))
    same(ma.less.outer(a, tnp.arange(2.0)).filled(False),
         numpy.less.outer(na.data, numpy.arange(2.0)) & ~na.mask[:, None])
