"""The indexing ops (gather, scatter family, index_*, masked_*, take, put,
nonzero, where(cond)) against NumPy references, with PyTorch's signatures,
in-place twins, dtypes, layouts, 0-d and empty cases, and error cases."""
import numpy as np
import pytest

import torchlike as tl
from oracle import (ALL_DTYPES, assert_close, golden_calls, golden_check, noncontiguous, random_array,
                    to_tensor)

RNG = np.random.default_rng(7)


def full_coords(idx, dim):
    """Coordinates an element-wise (gather/scatter) index addresses."""
    coords = list(np.indices(idx.shape, sparse=False))
    coords[dim] = idx
    return tuple(coords)


def cut(a, shape):
    return a[tuple(slice(0, n) for n in shape)]


# ---- gather / take_along_dim --------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_gather_all_dtypes(dtype):
    a = random_array((4, 5), dtype)
    idx = RNG.integers(0, 4, size=(3, 5))
    assert_close(tl.gather(to_tensor(a, dtype), 0, tl.tensor(idx)),
                 np.take_along_axis(a, idx, 0), dtype=dtype)
    idx1 = RNG.integers(-5, 5, size=(4, 7))       # negative indices wrap
    assert_close(to_tensor(a, dtype).gather(1, tl.tensor(idx1)),
                 np.take_along_axis(a, idx1 % 5, 1), dtype=dtype)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_smaller_index_and_layouts(dim):
    a = random_array((4, 5, 6), "float32")
    shape = [3, 4, 5]
    shape[dim] = 7
    idx = RNG.integers(0, a.shape[dim], size=shape)
    expected = np.take_along_axis(cut(a, [n if d != dim % 3 else a.shape[d]
                                          for d, n in enumerate(shape)]), idx, dim)
    for t in [to_tensor(a), noncontiguous(to_tensor(a)), to_tensor(a).permute(2, 1, 0).permute(2, 1, 0)]:
        assert_close(tl.gather(t, dim, tl.tensor(idx)), expected)
    ti = noncontiguous(tl.tensor(idx))
    assert_close(tl.gather(to_tensor(a), dim, ti), expected)
    for index_dtype in ["int32", "int16", "uint8"]:
        assert_close(tl.gather(to_tensor(a), dim, to_tensor(idx, index_dtype)), expected)


def test_gather_zero_dim_and_empty():
    t = tl.tensor(3.5)
    assert_close(tl.gather(t, 0, tl.tensor(0)), np.array(3.5, dtype=np.float32))
    a = random_array((3, 4), "float64")
    e = np.zeros((0, 4), dtype=np.int64)
    assert_close(tl.gather(to_tensor(a), 0, tl.tensor(e)), np.zeros((0, 4)))
    # an empty index whose strides are all 0 (as NumPy makes empty arrays) holds no offset
    hollow = tl.zeros(1, 0, 4, dtype=tl.int64).as_strided((1, 0, 4), (0, 0, 0))
    b = to_tensor(random_array((3, 0, 4), "float32"))
    assert_close(tl.gather(b, 0, hollow), np.zeros((1, 0, 4), np.float32))
    assert_close(tl.take_along_dim(b, hollow, 0), np.zeros((1, 0, 4), np.float32))
    assert_close(b.clone().scatter_add_(0, hollow, tl.ones(1, 0, 4)), np.zeros((3, 0, 4), np.float32))


def test_gather_errors():
    t = to_tensor(random_array((3, 4), "float32"))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        tl.gather(t, 0, tl.tensor([[0, 3]]))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        tl.gather(t, 0, tl.tensor([0, 1]))
    with pytest.raises(RuntimeError, match=r"index \[2, 5\].*input \[3, 4\]"):
        tl.gather(t, 0, tl.zeros(2, 5, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="integer index tensor.*float32"):
        tl.gather(t, 0, tl.zeros(2, 2))
    with pytest.raises(IndexError, match="Dimension out of range|out of range"):
        tl.gather(t, 2, tl.zeros(2, 2, dtype=tl.int64))


def test_gather_out():
    t = to_tensor(np.arange(6.0).reshape(2, 3))
    out = tl.empty(2, 2, dtype=tl.float64)
    r = tl.gather(t, 1, tl.tensor([[2, 0], [1, 1]]), out=out)
    assert r is out
    assert out.tolist() == [[2.0, 0.0], [4.0, 4.0]]
    with pytest.raises(RuntimeError, match="out= has shape"):
        tl.gather(t, 1, tl.tensor([[2, 0]]), out=out)


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_take_along_dim(dim):
    a = random_array((3, 4), "int32")
    if dim is None:
        idx = RNG.integers(-12, 12, size=(5,))
        expected = np.take_along_axis(a.ravel(), idx % 12, 0)
        assert_close(tl.take_along_dim(to_tensor(a), tl.tensor(idx)), expected)
        return
    idx = RNG.integers(0, a.shape[dim], size=(1, 6) if dim in (1, -1) else (6, 1))
    expected = np.take_along_axis(a, idx, dim)     # NumPy broadcasts the other dim too
    assert_close(to_tensor(a).take_along_dim(tl.tensor(idx), dim), expected)


def test_take_along_dim_errors():
    t = to_tensor(random_array((3, 4), "float32"))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        tl.take_along_dim(t, tl.tensor([0]), 1)
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        tl.take_along_dim(t, tl.zeros(2, 1, dtype=tl.int64), 1)


# ---- scatter family ---------------------------------------------------------------------

def scatter_reference(a, dim, idx, src, op):
    out = a.copy()
    coords = full_coords(idx, dim)
    values = cut(src, idx.shape) if np.ndim(src) else np.broadcast_to(src, idx.shape)
    if op is None:
        for p in np.ndindex(idx.shape):          # C order: the last write wins
            out[tuple(c[p] for c in coords)] = values[p]
    else:
        op.at(out, coords, values)
    return out


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_all_dtypes(dtype):
    a = random_array((4, 5), dtype)
    src = random_array((3, 5), dtype, rng=np.random.default_rng(2))
    idx = np.stack([RNG.permutation(4)[:3] for _ in range(5)], axis=1)   # distinct per column
    expected = scatter_reference(a, 0, idx, src, None)
    t = to_tensor(a, dtype)
    assert_close(t.scatter(0, tl.tensor(idx), to_tensor(src, dtype)), expected, dtype=dtype)
    assert_close(t, a, dtype=dtype)                       # out of place left it alone
    r = t.scatter_(0, tl.tensor(idx), to_tensor(src, dtype))
    assert r is t
    assert_close(t, expected, dtype=dtype)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_add_and_value(dim):
    a = random_array((4, 6), "float64")
    src = random_array((5, 7), "float64", rng=np.random.default_rng(3))
    shape = (3, 5) if dim == 0 else (4, 5)
    idx = RNG.integers(-a.shape[dim], a.shape[dim], size=shape)  # repeated, negative
    wrapped = idx % a.shape[dim]
    assert_close(to_tensor(a).scatter_add(dim, tl.tensor(idx), to_tensor(src)),
                 scatter_reference(a, dim, wrapped, src, np.add))
    assert_close(tl.scatter(to_tensor(a), dim, tl.tensor(idx), 2.5),
                 scatter_reference(a, dim, wrapped, 2.5, None))
    assert_close(to_tensor(a).scatter(dim, tl.tensor(idx), value=-1),
                 scatter_reference(a, dim, wrapped, -1.0, None))
    assert_close(to_tensor(a).scatter(dim, tl.tensor(idx), to_tensor(src), reduce="add"),
                 scatter_reference(a, dim, wrapped, src, np.add))
    assert_close(to_tensor(a).scatter(dim, tl.tensor(idx), to_tensor(src), reduce="multiply"),
                 scatter_reference(a, dim, wrapped, src, np.multiply))


def scatter_reduce_reference(a, dim, idx, src, reduce, include_self):
    out = a.copy()
    coords = full_coords(idx, dim)
    values = cut(src, idx.shape)
    hit = np.zeros(a.shape, dtype=bool)
    hit[coords] = True
    if reduce == "mean":
        wide = {"f": np.float64, "c": np.complex128}.get(a.dtype.kind, np.int64)
        total = np.where(hit & ~include_self, 0, a).astype(wide)
        count = np.where(hit & ~include_self, 0, 1)
        np.add.at(total, coords, values)
        np.add.at(count, coords, 1)
        if a.dtype.kind in "fc":
            mean = total / np.maximum(count, 1)
        else:
            mean = np.floor_divide(total, np.maximum(count, 1))
        return np.where(hit, mean, a).astype(a.dtype)
    ufunc = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    if not include_self:
        first = {"sum": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
        if a.dtype.kind in "iu":
            info = np.iinfo(a.dtype)
            first = {"amax": info.min, "amin": info.max}.get(reduce, first)
        out[hit] = first
    ufunc.at(out, coords, values)
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("reduce", [None, "sum", "prod", "mean", "amax", "amin"])
def test_expanded_index_moves_whole_slices(dim, reduce):
    """idx.unsqueeze(-1).expand_as(src), the common spelling: its offsets are
    computed once per row and expanded back, and the result equals the same
    index made contiguous and NumPy's, duplicates included (a plain scatter
    keeps the last value, in the index's order)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 6, 4))
    d = dim % 3
    shape = list(a.shape)
    shape[d] = 7
    src = rng.standard_normal(shape)
    rows = rng.integers(0, a.shape[d], 7)
    view = [1, 1, 1]
    view[d] = 7
    idx = tl.tensor(rows).reshape(view).expand(*shape)
    assert 0 in idx.stride()
    dense = np.broadcast_to(rows.reshape(view), shape)
    t, s = to_tensor(a), to_tensor(src)
    if reduce is None:
        want = a.copy()
        np.put_along_axis(want, dense, src, axis=d)  # NumPy's order: the last duplicate wins
        got = t.scatter(dim, idx, s)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
        np.testing.assert_array_equal(t.gather(dim, idx).cpu().numpy(),
                                      np.take_along_axis(a, dense, axis=d))
    else:
        want = scatter_reduce_reference(a, d, dense, src, reduce, True)
        got = t.scatter_reduce(dim, idx, s, reduce)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(
        got.cpu().numpy(), (t.scatter(dim, idx.contiguous(), s) if reduce is None
                      else t.scatter_reduce(dim, idx.contiguous(), s, reduce)).cpu().numpy())


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8"])
def test_scatter_reduce(reduce, include_self, dtype):
    a = random_array((5, 4), dtype, low=1, high=4)
    src = random_array((6, 4), dtype, rng=np.random.default_rng(4), low=1, high=4)
    idx = RNG.integers(0, 5, size=(6, 3))
    expected = scatter_reduce_reference(a, 0, idx, src, reduce, include_self)
    actual = to_tensor(a, dtype).scatter_reduce(0, tl.tensor(idx), to_tensor(src, dtype), reduce,
                                                include_self=include_self)
    assert_close(actual, expected, dtype=dtype)
    t = to_tensor(a, dtype)
    t.scatter_reduce_(0, tl.tensor(idx), to_tensor(src, dtype), reduce=reduce,
                      include_self=include_self)
    assert_close(t, expected, dtype=dtype)


def test_scatter_reduce_nan_propagates():
    a = np.zeros(3, dtype=np.float32)
    src = np.array([1.0, np.nan, 2.0], dtype=np.float32)
    r = tl.scatter_reduce(to_tensor(a), 0, tl.tensor([0, 0, 1]), to_tensor(src), "amax")
    assert np.isnan(r.cpu().numpy()[0]) and r.cpu().numpy()[1] == 2.0


def test_scatter_src_aliasing_self():
    a = np.arange(6.0)
    t = to_tensor(a)
    t.scatter_(0, tl.tensor([5, 4, 3, 2, 1, 0]), t)
    assert_close(t, a[::-1])


@pytest.mark.host_only  # a device kernel has written the good indices when its error is raised
def test_scatter_errors_leave_target_unchanged():
    a = random_array((3, 4), "float32")
    t = to_tensor(a)
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 3"):
        t.scatter_(0, tl.tensor([[0, 1, 7, 2]]), tl.ones(1, 4))
    assert_close(t, a)
    with pytest.raises(RuntimeError, match="self.dtype to be equal to src.dtype"):
        t.scatter_(0, tl.tensor([[0]]), tl.ones(1, 1, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="no larger than src"):
        t.scatter_(0, tl.zeros(2, 4, dtype=tl.int64), tl.ones(1, 4))
    with pytest.raises(RuntimeError, match="reduce argument"):
        t.scatter_(0, tl.zeros(1, 4, dtype=tl.int64), tl.ones(1, 4), reduce="max")
    with pytest.raises(RuntimeError, match="reduce argument"):
        t.scatter_reduce_(0, tl.zeros(1, 4, dtype=tl.int64), tl.ones(1, 4), "add")
    with pytest.raises(TypeError, match="missing required argument 'reduce'"):
        t.scatter_reduce(0, tl.zeros(1, 4, dtype=tl.int64), tl.ones(1, 4))
    assert_close(t, a)
    c = tl.zeros(3, dtype=tl.complex64)
    with pytest.raises(RuntimeError, match="complex"):
        c.scatter_reduce_(0, tl.tensor([0]), tl.ones(1, dtype=tl.complex64), "amax")


# ---- index_select / index_add / index_copy / index_fill --------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dtype, dim):
    a = random_array((4, 5, 3), dtype)
    idx = np.array([2, 0, 2, -1])
    expected = np.take(a, idx % a.shape[dim], axis=dim)
    assert_close(tl.index_select(to_tensor(a, dtype), dim, tl.tensor(idx)), expected, dtype=dtype)
    assert_close(noncontiguous(to_tensor(a, dtype)).index_select(dim, tl.tensor(idx)), expected,
                 dtype=dtype)


def test_index_select_shapes_and_errors():
    a = random_array((4, 5), "float32")
    t = to_tensor(a)
    assert_close(t.index_select(0, tl.tensor(1)), a[[1]])           # 0-d index: one row
    assert_close(t.index_select(1, tl.tensor([], dtype=tl.int64)), a[:, []])
    assert_close(tl.tensor(2.0).index_select(0, tl.tensor([0])), np.array(2.0, np.float32))
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        t.index_select(0, tl.tensor([4]))
    with pytest.raises(IndexError, match="vector"):
        t.index_select(0, tl.zeros(2, 2, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="integer index tensor.*bool"):
        t.index_select(0, tl.tensor([True, False]))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_add_copy_fill(dtype):
    a = random_array((4, 3), dtype)
    src = random_array((5, 3), dtype, rng=np.random.default_rng(5))
    idx = np.array([1, 3, 1, 0, 1])
    t = to_tensor(a, dtype)
    expected = a.copy()
    np.add.at(expected, idx, src)
    assert_close(t.index_add(0, tl.tensor(idx), to_tensor(src, dtype)), expected, dtype=dtype)
    uniq = np.array([2, 0, 3])
    expected = a.copy()
    expected[uniq] = src[:3]
    assert_close(t.index_copy(0, tl.tensor(uniq), to_tensor(src[:3], dtype)), expected, dtype=dtype)
    expected = a.copy()
    expected[:, [0, 2]] = 1
    assert_close(t.index_fill(1, tl.tensor([0, 2]), 1), expected, dtype=dtype)
    assert_close(t, a, dtype=dtype)                       # the out-of-place forms copied


def test_index_add_alpha_and_inplace():
    a = np.arange(12.0).reshape(3, 4)
    src = np.ones((3, 2))
    t = to_tensor(a)
    r = t.index_add_(1, tl.tensor([3, 3]), to_tensor(src), alpha=-2.5)
    assert r is t
    expected = a.copy()
    expected[:, 3] -= 5.0
    assert_close(t, expected)
    i = to_tensor(np.arange(6).reshape(3, 2))
    i.index_add_(0, tl.tensor([0, 0]), tl.ones(2, 2, dtype=tl.int64), alpha=3)
    assert i.tolist() == [[6, 7], [2, 3], [4, 5]]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        i.index_add_(0, tl.tensor([0]), tl.ones(1, 2, dtype=tl.int64), alpha=1.5)


def test_index_fill_tensor_value_and_inplace():
    t = to_tensor(np.zeros((2, 3)))
    t.index_fill_(1, tl.tensor([-1]), tl.tensor(4.0))
    assert t.tolist() == [[0.0, 0.0, 4.0], [0.0, 0.0, 4.0]]
    with pytest.raises(RuntimeError, match="0-dimensional"):
        t.index_fill_(1, tl.tensor([0]), tl.tensor([1.0]))


@pytest.mark.host_only  # a device kernel has written the good indices when its error is raised
def test_index_add_copy_errors_leave_target_unchanged():
    a = np.arange(12.0).reshape(3, 4)
    t = to_tensor(a)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t.index_add_(0, tl.tensor([0, 3]), tl.ones(2, 4, dtype=tl.float64))
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        t.index_copy_(1, tl.tensor([9]), tl.ones(3, 1, dtype=tl.float64))
    with pytest.raises(RuntimeError, match=r"source \[2, 4\] must have the shape of self \[3, 4\]"):
        t.index_add_(0, tl.tensor([0]), tl.ones(2, 4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="same scalar type"):
        t.index_copy_(0, tl.tensor([0]), tl.ones(1, 4))
    assert_close(t, a)


# ---- index_put ----------------------------------------------------------------------

def test_index_put():
    a = np.arange(20.0).reshape(4, 5)
    rows, cols = np.array([0, 3, 0]), np.array([1, 4, 1])
    vals = np.array([10.0, 20.0, 30.0])
    expected = a.copy()
    expected[rows, cols] = vals
    t = to_tensor(a)
    assert_close(t.index_put((tl.tensor(rows), tl.tensor(cols)), to_tensor(vals)), expected)
    expected = a.copy()
    np.add.at(expected, (rows, cols), vals)
    assert_close(tl.index_put(t, [tl.tensor(rows), tl.tensor(cols)], to_tensor(vals),
                              accumulate=True), expected)
    assert_close(t, a)
    r = t.index_put_((None, tl.tensor([0, 2])), tl.tensor(-1.0, dtype=tl.float64))
    assert r is t
    expected = a.copy()
    expected[:, [0, 2]] = -1
    assert_close(t, expected)
    mask = a > 10
    t = to_tensor(a)
    t.index_put_((tl.tensor(mask),), tl.tensor(0.0, dtype=tl.float64), accumulate=True)
    assert_close(t, a)
    with pytest.raises(RuntimeError, match="dtypes match"):
        t.index_put_((tl.tensor([0]),), tl.tensor(1.0))
    with pytest.raises(IndexError, match="out of bounds"):
        t.index_put_((tl.tensor([0, 9]),), tl.tensor(1.0, dtype=tl.float64))


@pytest.mark.host_only  # a device kernel has written the good indices when its error is raised
def test_index_put_errors_leave_target_unchanged():
    a = np.arange(20.0).reshape(4, 5)
    t = to_tensor(a)
    with pytest.raises(IndexError, match="out of bounds"):
        t.index_put_((tl.tensor([0, 9]),), tl.tensor(1.0, dtype=tl.float64))
    with pytest.raises(IndexError, match="out of bounds"):
        t.index_put_((tl.tensor([1, 2]), tl.tensor([0, 5])), tl.tensor(1.0, dtype=tl.float64),
                     accumulate=True)
    assert_close(t, a)


def test_index_put_accumulate_all_dtypes():
    for dtype in ALL_DTYPES:
        if dtype == "bool":
            continue
        a = random_array((6,), dtype)
        vals = random_array((8,), dtype, rng=np.random.default_rng(9), low=0, high=3)
        idx = np.array([0, 1, 0, 5, 5, 5, 2, 0])
        expected = a.copy()
        np.add.at(expected, idx, vals)
        t = to_tensor(a, dtype)
        t.index_put_((tl.tensor(idx),), to_tensor(vals, dtype), accumulate=True)
        assert_close(t, expected, dtype=dtype)


# ---- masks --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_fill(dtype):
    a = random_array((3, 4), dtype)
    mask = RNG.integers(0, 2, size=(4,)).astype(bool)      # broadcast over rows
    expected = np.where(mask, np.array(1, dtype=a.dtype), a)
    t = to_tensor(a, dtype)
    assert_close(t.masked_fill(tl.tensor(mask), 1), expected, dtype=dtype)
    assert_close(t, a, dtype=dtype)
    r = t.masked_fill_(tl.tensor(mask), tl.tensor(1))
    assert r is t
    assert_close(t, expected, dtype=dtype)


def test_masked_fill_broadcasts_out_of_place_and_errors():
    a = np.arange(4.0, dtype=np.float32)
    mask = np.array([[True], [False]])
    assert_close(tl.masked_fill(to_tensor(a), tl.tensor(mask), -1.0),
                 np.where(mask, np.float32(-1), a))
    t = to_tensor(a)
    with pytest.raises(RuntimeError, match=r"mask of shape \[2, 1\] cannot be broadcast"):
        t.masked_fill_(tl.tensor(mask), 0)
    with pytest.raises(RuntimeError, match="boolean masks"):
        t.masked_fill_(tl.tensor([1, 0, 1, 0]), 0)
    with pytest.raises(RuntimeError, match="0-dimensional value"):
        t.masked_fill_(tl.tensor([True, False, True, False]), tl.tensor([1.0]))
    assert_close(t, a)
    nc = noncontiguous(to_tensor(a))
    nc.masked_fill_(tl.tensor([True, False, True, False]), 9)
    assert_close(nc, np.array([9, 1, 9, 3], dtype=np.float32))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128"])
def test_masked_select(dtype):
    a = random_array((3, 4), dtype)
    mask = RNG.integers(0, 2, size=(3, 1)).astype(bool)
    ab, mb = np.broadcast_arrays(a, mask)
    assert_close(tl.masked_select(to_tensor(a, dtype), tl.tensor(mask)), ab[mb], dtype=dtype)
    assert_close(to_tensor(a, dtype).masked_select(tl.tensor(True)), a.ravel(), dtype=dtype)
    assert_close(tl.tensor(5).masked_select(tl.tensor(False)), np.zeros(0, np.int64))


def test_masked_scatter():
    a = np.arange(12.0).reshape(3, 4)
    mask = np.array([True, False, True, True])
    src = np.arange(100.0, 120.0)
    mb = np.broadcast_to(mask, a.shape)
    expected = a.copy()
    expected[mb] = src[:mb.sum()]
    t = to_tensor(a)
    assert_close(t.masked_scatter(tl.tensor(mask), to_tensor(src)), expected)
    r = t.masked_scatter_(tl.tensor(mask), to_tensor(src.reshape(4, 5)))
    assert r is t
    assert_close(t, expected)
    with pytest.raises(RuntimeError, match="at least 9 elements.*got 3"):
        to_tensor(a).masked_scatter_(tl.tensor(mask), tl.ones(3, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        to_tensor(a).masked_scatter_(tl.tensor(mask), tl.ones(20))


# ---- take / put ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_take(dtype):
    a = random_array((3, 4), dtype)
    idx = np.array([[0, -1], [5, 5]])
    assert_close(tl.take(to_tensor(a, dtype), tl.tensor(idx)), np.take(a, idx), dtype=dtype)
    assert_close(noncontiguous(to_tensor(a, dtype)).take(tl.tensor(idx)), np.take(a, idx),
                 dtype=dtype)
    assert_close(to_tensor(a, dtype).take(tl.tensor(3)), np.take(a, 3), dtype=dtype)
    with pytest.raises(IndexError, match="index 12 is out of bounds for dimension 0 with size 12"):
        to_tensor(a, dtype).take(tl.tensor([12]))


@pytest.mark.parametrize("contiguous", [True, False])
def test_put(contiguous):
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([[0, 11], [-1, 5]])
    src = np.array([[1.0, 2.0], [3.0, 4.0]])
    t = to_tensor(a) if contiguous else to_tensor(np.ascontiguousarray(a.T)).t()
    expected = a.copy()
    np.put(expected, idx, src)
    assert_close(t.put(tl.tensor(idx), to_tensor(src)), expected)
    expected = a.copy()
    np.add.at(expected.reshape(-1), idx % 12, src)
    r = t.put_(tl.tensor(idx), to_tensor(src), accumulate=True)
    assert r is t
    assert_close(t, expected)
    with pytest.raises(IndexError, match="index 12 is out of bounds"):
        t.put_(tl.tensor([0, 12]), tl.tensor([1.0, 2.0], dtype=tl.float64))
    with pytest.raises(RuntimeError, match="same number of elements"):
        t.put_(tl.tensor([0, 1]), tl.tensor([1.0], dtype=tl.float64))


@pytest.mark.host_only  # a device kernel has written the good indices when its error is raised
@pytest.mark.parametrize("accumulate", [False, True])
def test_put_errors_leave_target_unchanged(accumulate):
    a = np.arange(12.0).reshape(3, 4)
    t = to_tensor(a)
    with pytest.raises(IndexError, match="index 12 is out of bounds"):
        t.put_(tl.tensor([0, 12]), tl.tensor([1.0, 2.0], dtype=tl.float64), accumulate=accumulate)
    with pytest.raises(RuntimeError, match="same number of elements"):
        t.put_(tl.tensor([0, 1]), tl.tensor([1.0], dtype=tl.float64), accumulate=accumulate)
    assert_close(t, a)


# ---- nonzero / argwhere / where(cond) ------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_nonzero(dtype, shape):
    a = random_array(shape, dtype, low=-1, high=2)
    t = to_tensor(a, dtype)
    assert_close(tl.nonzero(t), np.argwhere(a))
    assert_close(t.argwhere(), np.argwhere(a))
    expected = np.nonzero(np.atleast_1d(a))
    for got in [t.nonzero(as_tuple=True), tl.where(t)]:
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g, e)


def test_nonzero_noncontiguous_and_special_values():
    a = np.array([[0.0, np.nan, -0.0], [1e-30, 0.0, -np.inf]])
    t = to_tensor(a)
    assert_close(t.nonzero(), np.argwhere(a))
    nc = noncontiguous(t)
    assert_close(nc.nonzero(), np.argwhere(a))
    assert_close(to_tensor(a).t().nonzero(), np.argwhere(a.T))
    out = tl.empty(3, 2, dtype=tl.int64)
    assert tl.nonzero(t, out=out) is out
    assert_close(out, np.argwhere(a))
    assert_close(tl.where(np.array([0, 3, 0, 4]))[0], np.array([1, 3]))


# ---- refusals of an index of another dtype, by PyTorch's class -------------------------

REFUSALS, _refusals = golden_calls("index_refusals")


@pytest.mark.parametrize("call,expected", REFUSALS, ids=[c for c, _ in REFUSALS])
def test_index_dtype_refusals_raise_pytorchs_class(call, expected):
    golden_check(_refusals, call, expected)


def test_index_select_along_an_empty_dim_of_a_matrix_is_pytorchs_runtime_error():
    # fuzz_torch_api --strict, seed 20261203 case 1872: PyTorch refuses a
    # non-empty index along an empty dim of a matrix or more before any bounds
    # check (RuntimeError); a vector's index is bounds-checked (IndexError)
    for x, dim in [(tl.zeros(0, 3, dtype=tl.float16), -2), (tl.zeros(3, 0), 1)]:
        with pytest.raises(RuntimeError, match="self indexing axis dim should be positive") as e:
            x.index_select(dim, tl.tensor([0]))
        assert not isinstance(e.value, IndexError)
    assert tuple(tl.zeros(0, 3).index_select(0, tl.tensor([], dtype=tl.int64)).shape) == (0, 3)
    assert tuple(tl.zeros(0, 3).index_select(1, tl.tensor([2])).shape) == (0, 1)
    with pytest.raises(IndexError):
        tl.zeros(0).index_select(0, tl.tensor([0]))
