"""Indexing (t[idx], t[idx] = v) against NumPy: basic and advanced forms,
every dtype, non-contiguous sources, empty and 0-d cases, view-vs-copy
semantics, error cases, and random index expressions drawn by hypothesis."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as tl
from oracle import ALL_DTYPES, assert_close, layouts, noncontiguous, random_array, to_tensor

S = slice(None)
A = np.arange(4 * 5 * 6).reshape(4, 5, 6)
MASK = (A % 3 == 0)

# Index expressions valid on a (4, 5, 6) array, covering each rule.
GET_INDICES = [
    [1, 3],                                     # int list on dim 0
    ([1, 3],),
    np.array([3, -1, 0, 0]),                    # negative and repeated
    (S, [4, 0]),                                # adjacent advanced: stays in place
    (S, S, [5, -6]),
    (..., [2, 1]),
    ([0, 1], [2, 3]),                           # two arrays, one result dim
    ([[0], [3]], [[1, 2]]),                     # broadcasting index arrays
    ([0, 2], S, [1, 3]),                        # separated by a slice: first
    ([0], None, [1]),                           # separated by None: first
    (S, [0], ..., [1]),                         # separated by Ellipsis: first
    ([0], ..., [1], S),                         # zero-length Ellipsis separates too
    (1, S, [0, 2]),                             # an int counts as advanced
    (S, 1, [0, 2]),                             # int adjacent to the array
    (np.int64(2), [1, 1]),
    MASK,                                       # full mask
    (S, MASK[0]),                               # mask over dims 1, 2
    (MASK[:, :, 0],),                           # mask over dims 0, 1
    (np.array([True, False, True, False]), S, [1, 2]),                 # mask mixed with an array
    ([True, False, True, True],),               # list of bools is a mask
    True,
    False,
    (..., True),
    (S, True, [1]),
    ([0], True, [1]),
    np.array(2),                                # 0-d integer array: advanced
    (np.array(2), S, [0, 1]),
    [],                                         # empty list: an empty int index
    (S, np.array([], dtype=np.int64)),
    ([[0, 1], [2, 3]], S, S),
    (slice(None, None, -1), [2, 0]),
    (slice(3, 0, -2), S, [5, 0, 1]),
    (None, [1, 2], None),
    (np.array([1, 2], dtype=np.int8), np.array([0, 4], dtype=np.uint8)),
    (np.array([1, 2], dtype=np.int16), S, np.array([0, 4], dtype=np.int32)),
]


def ids(ix):
    return repr(ix).replace("\n", "")[:60]


def check_get(a, index, dtype=None):
    t = to_tensor(a, dtype)
    expected = a[index]
    actual = t[index]
    assert_close(actual, expected, dtype=dtype)
    return t, actual


@pytest.mark.parametrize("index", GET_INDICES, ids=ids)
def test_getitem_matches_numpy(index):
    check_get(A, index)


@pytest.mark.parametrize("index", GET_INDICES[:12], ids=ids)
def test_getitem_index_as_tensor(index):
    # The same expressions with every array given as a torchlike tensor.
    def conv(i):
        return tl.tensor(np.asarray(i)) if isinstance(i, (list, np.ndarray)) else i
    tindex = tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)
    assert_close(to_tensor(A)[tindex], A[index])


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("index", [([2, 0, 2],), (S, [1, -1]), (MASK[:, :, 0],), ([0, 1], S, [1, 0])],
                         ids=ids)
def test_getitem_dtypes(dtype, index):
    a = random_array((4, 5, 6), dtype)
    check_get(a, index, dtype=dtype)


@pytest.mark.parametrize("index_dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_index_tensor_dtypes(index_dtype):
    idx = np.array([3, 0, 2, 2])
    t = to_tensor(A)
    assert_close(t[to_tensor(idx, index_dtype)], A[idx])
    assert_close(t[:, to_tensor(idx, index_dtype)], A[:, idx])


@pytest.mark.parametrize("index", [([2, 0, 2],), (S, [1, -1]), (MASK,), ([0, 1], S, [1, 0]),
                                   (S, MASK[0]), (slice(None, None, -1), [4, 0])], ids=ids)
def test_getitem_noncontiguous_source(index):
    for label, view in layouts(A.astype(np.float32)):
        t = tl.from_numpy(view)
        assert_close(t[index], view[index])
    t = noncontiguous(to_tensor(A, "float32"))
    assert not t.is_contiguous()
    assert_close(t[index], A.astype(np.float32)[index])


def test_noncontiguous_index_tensors():
    idx = np.array([[0, 3, 1], [2, 2, 0]])
    t = to_tensor(A)
    ti = to_tensor(idx).t()               # transposed index tensor
    assert not ti.is_contiguous()
    assert_close(t[ti], A[idx.T])
    wide = tl.from_numpy(np.repeat(idx, 2, axis=1))[:, ::2]
    assert_close(t[S, wide], A[:, idx])
    mask = np.repeat(MASK, 2, axis=2)[:, :, ::2]
    assert_close(t[tl.from_numpy(mask)], A[mask])


def test_empty_cases():
    t = to_tensor(A)
    assert_close(t[[]], A[[]])
    assert_close(t[np.zeros((0, 3), dtype=np.int64)], A[np.zeros((0, 3), dtype=np.int64)])
    assert_close(t[np.zeros(A.shape, dtype=bool)], A[np.zeros(A.shape, dtype=bool)])
    e = np.zeros((0, 3))
    assert_close(to_tensor(e)[[], [0, 0][:0]], e[[], []])
    assert_close(to_tensor(e)[:, [2, 0]], e[:, [2, 0]])
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 0 with size 0"):
        to_tensor(e)[[0]]


def test_zero_dim_source():
    a = np.array(7.5, dtype=np.float32)
    t = to_tensor(a)
    for index in [None, True, False, ..., (None, True), (True, None)]:
        assert_close(t[index], a[index])
    with pytest.raises(IndexError, match="too many indices"):
        t[[0]]


def test_basic_index_is_a_view_and_advanced_a_copy():
    t = to_tensor(A, "float32")
    view = t[1:3, ::-2, np.int64(4)]           # basic (NumPy ints reach the hook)

    def storage(x):  # compared by storage: the tensors may live on a device
        return x.untyped_storage().data_ptr()
    assert storage(view) == storage(t)
    for index in [[1, 2], (S, [0]), MASK, True, np.array(1), (1, [2])]:
        r = t[index]
        assert storage(r) != storage(t), index
        before = r.cpu().numpy().copy()
        t.add_(1)
        np.testing.assert_array_equal(r.cpu().numpy(), before)


# ---- assignment ----------------------------------------------------------------------

SET_INDICES = [
    [1, 3],
    np.array([3, -1]),
    (S, [4, 0]),
    ([0, 1], [2, 3]),
    ([[0], [3]], [[1, 2]]),
    ([0, 2], S, [1, 3]),
    ([0], None, [1]),
    (1, S, [0, 2]),
    MASK,
    (S, MASK[0]),
    (np.array([True, False, True, False]), S, [1, 2]),
    True,
    False,
    np.array(2),
    [],
    (slice(None, None, -1), [2, 0]),
    (slice(3, 0, -2), S, [5, 0, 1]),
    (np.int64(1), slice(1, 3)),                 # basic, through the hook
]


@pytest.mark.parametrize("index", SET_INDICES, ids=ids)
def test_setitem_matches_numpy(index):
    rng = np.random.default_rng(1)
    shape = A[index].shape
    for value in [rng.integers(-50, 50, size=shape), 7, rng.integers(-50, 50, size=shape[-1:])]:
        a, t = A.copy(), to_tensor(A)
        a[index] = value
        t[index] = tl.tensor(value) if isinstance(value, np.ndarray) else value
        assert_close(t, a)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_setitem_dtypes_and_casts(dtype):
    a = random_array((4, 5, 6), dtype)
    for index in [([2, 0],), (S, MASK[0]), ([0, 1], S, [1, 0])]:
        shape = a[index].shape
        value = random_array(shape, dtype, rng=np.random.default_rng(3))
        expected, t = a.copy(), to_tensor(a, dtype)
        expected[index] = value
        t[index] = to_tensor(value, dtype)
        assert_close(t, expected, dtype=dtype)
    # A value of another dtype is cast to the target's.
    t = to_tensor(a, dtype)
    t[[0, 3]] = tl.ones(5, 6, dtype=tl.float64)
    expected = a.copy()
    expected[[0, 3]] = 1
    assert_close(t, expected, dtype=dtype)
    t[MASK] = 0
    expected[MASK] = 0
    assert_close(t, expected, dtype=dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_setitem_full_mask_scalar(dtype):
    # t[mask] = scalar with a mask over every dim takes the masked-fill path.
    a = random_array((3, 4, 5), dtype)
    for value in [1, np.float64(2.0), tl.tensor([3]), tl.tensor([[1]], dtype=tl.float64)]:
        expected, t = a.copy(), to_tensor(a, dtype)
        v = value.cpu().numpy() if isinstance(value, tl.Tensor) else value
        expected[MASK[:3, :4, :5]] = np.asarray(v).astype(a.dtype).reshape(-1)[0]
        t[MASK[:3, :4, :5]] = value
        assert_close(t, expected, dtype=dtype)
    b = to_tensor(np.array([True, False, True]))
    b[b] = False                                   # the mask is the target itself
    assert b.tolist() == [False, False, False]


def test_setitem_float_value_into_int_truncates():
    t = to_tensor(np.zeros(4, dtype=np.int32))
    t[[1, 2]] = tl.tensor([2.7, -3.9], dtype=tl.float64)
    assert t.tolist() == [0, 2, -3, 0]
    t[[0]] = 5.9
    assert t.tolist() == [5, 2, -3, 0]


def test_setitem_repeated_indices_last_write_wins():
    a, t = np.zeros(5), to_tensor(np.zeros(5))
    idx = [0, 2, 0, 4, 2, 0]
    value = np.arange(1.0, 7.0)
    a[idx] = value
    t[idx] = tl.tensor(value)
    assert_close(t, a)
    assert t.tolist() == [6.0, 0.0, 5.0, 0.0, 4.0]
    b, u = np.zeros((3, 4)), to_tensor(np.zeros((3, 4)))
    rows = [[2, 2], [0, 2]]
    vals = np.arange(4.0).reshape(2, 2, 1) * np.ones(4)
    b[rows] = vals
    u[rows] = tl.tensor(vals)
    assert_close(u, b)


def test_setitem_noncontiguous_target():
    a = A.astype(np.float64)
    for label, view in layouts(a):
        target = view.copy(order="K") if label == "contiguous" else view
        base = np.ascontiguousarray(view)
        t = tl.from_numpy(target)
        t[S, [1, 3], 2:] = -1.0
        base[S, [1, 3], 2:] = -1.0
        np.testing.assert_array_equal(target, base)   # shares memory with t
        t[MASK] = 0.5
        base[MASK] = 0.5
        np.testing.assert_array_equal(target, base)


def test_setitem_value_aliasing_target():
    a, t = np.arange(6.0), to_tensor(np.arange(6.0))
    a[[0, 1, 2]] = a[::-1][:3]
    t[[0, 1, 2]] = t[::-1][:3]
    assert_close(t, a)
    a[[5, 4, 3]] = a[[0, 1, 2]] * 1
    t[[5, 4, 3]] = t[0:3]
    assert_close(t, a)


def test_setitem_bumps_version():
    t = to_tensor(A)
    v = t._version
    t[[0]] = 1
    assert t._version > v


def test_setitem_value_forms():
    t, a = to_tensor(A), A.copy()
    t[[0, 2], 1] = [10, 20, 30, 40, 50, 60]
    a[[0, 2], 1] = [10, 20, 30, 40, 50, 60]
    assert_close(t, a)
    t[MASK] = np.int64(-3)
    a[MASK] = -3
    assert_close(t, a)
    t[[1]] = np.ones((1, 1, 5, 6))               # leading size-1 dims are dropped
    a[[1]] = np.ones((1, 1, 5, 6))
    assert_close(t, a)


# ---- errors ----------------------------------------------------------------------------

def expect_unchanged(t, a, exc, match, fn):
    with pytest.raises(exc, match=match):
        fn(t)
    assert_close(t, a)


@pytest.mark.host_only  # a device kernel has written the good indices when its error is raised
def test_out_of_range_raises_before_any_write():
    a = A.copy()
    t = to_tensor(a)
    msg = "index 5 is out of bounds for dimension 0 with size 4"
    with pytest.raises(IndexError, match=msg):
        t[[0, 5]]
    expect_unchanged(t, a, IndexError, msg, lambda t: t.__setitem__([0, 1, 5], 9))
    expect_unchanged(t, a, IndexError, "index -7 is out of bounds for dimension 2 with size 6",
                     lambda t: t.__setitem__((S, [0, 1], [2, -7]), 9))
    expect_unchanged(t, a, IndexError, "index 5 is out of bounds for dimension 1 with size 5",
                     lambda t: t.__setitem__(([0, 1], [2, 5]), 9))
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 2 with size 6"):
        t[0, 1, [9]]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        t[tl.tensor(4)]


@pytest.mark.parametrize("shape, index", [
    ((3, 2), (np.array([7]), np.zeros((0, 1), dtype=np.int64))),   # empty broadcast: unchecked
    ((2, 1, 0), (np.array([False, False]), Ellipsis, np.array([0]))),
    ((3, 2), (np.array(7), np.array([], dtype=np.int64))),          # 0-d: checked like an int
    ((3, 0), (5, np.array([], dtype=np.int64))),
    ((1, 0, 0), (Ellipsis, np.array(0))),
    ((0, 3), (S, [5])),                                              # empty result, B not empty
])
def test_bounds_checks_on_empty_results_follow_numpy(shape, index):
    a = np.zeros(shape, dtype=np.float32)
    t = to_tensor(a)
    try:
        expected = a[index]
    except IndexError:
        with pytest.raises(IndexError, match="out of bounds"):
            t[index]
        with pytest.raises(IndexError, match="out of bounds"):
            t[index] = 1
        return
    assert_close(t[index], expected)
    t[index] = 1
    a[index] = 1
    assert_close(t, a)


def test_mask_shape_mismatch_names_both_shapes():
    t = to_tensor(A)
    a = A.copy()
    with pytest.raises(IndexError, match=r"mask \[5, 6\].*\[4, 5\]"):
        t[MASK[0]]
    expect_unchanged(t, a, IndexError, r"mask \[3\].*\[4\]",
                     lambda t: t.__setitem__(np.array([True, False, True]), 0))


def test_bad_index_types():
    t = to_tensor(A)
    with pytest.raises(IndexError, match="must be long, int, byte or bool tensors, got float32"):
        t[tl.tensor([1.0, 2.0])]
    with pytest.raises(IndexError, match="float64"):
        t[np.array([1.0])]
    with pytest.raises(IndexError, match="valid indices"):
        t[1.5]
    with pytest.raises(IndexError, match="valid indices"):
        t[[0], "a"]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., [0], ...]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], 0, 0, 0]


def test_shape_mismatches():
    t, a = to_tensor(A), A.copy()
    with pytest.raises(IndexError, match=r"broadcast together with shapes \[2\], \[3\]"):
        t[[0, 1], [0, 1, 2]]
    expect_unchanged(t, a, RuntimeError, r"value tensor of shape \[4\] cannot be broadcast to "
                     r"indexing result of shape \[2, 5, 6\]",
                     lambda t: t.__setitem__([0, 1], tl.zeros(4, dtype=tl.int64)))


def test_readonly_target():
    arr = A.copy()
    arr.setflags(write=False)
    t = tl.from_numpy(arr)
    with pytest.raises(ValueError, match="read-only"):
        t[[0]] = 1
    np.testing.assert_array_equal(arr, A)


# ---- random expressions ---------------------------------------------------------------

@st.composite
def index_case(draw):
    """A shape, and an index expression on it mixing every kind of item.
    Index arrays hold distinct (wrapped) values, so a setitem never writes one
    place twice and its result does not depend on the write order."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    bshape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    items, dim = [], 0
    used_ellipsis = False
    for _ in range(draw(st.integers(1, 6))):
        kinds = ["array", "slice", "mask", "int", "none", "bool", "array"]
        if not used_ellipsis:
            kinds.append("ellipsis")
        kind = draw(st.sampled_from(kinds))
        left = len(shape) - dim
        if kind == "none":
            items.append(None)
        elif kind == "bool":
            items.append(draw(st.booleans()))
        elif kind == "ellipsis":
            items.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape) - draw(st.integers(0, left))   # dims left after it
        elif left == 0:
            continue
        elif kind == "int":
            n = shape[dim]
            if n == 0:
                continue
            items.append(draw(st.integers(-n, n - 1)))
            dim += 1
        elif kind == "slice":
            n = shape[dim]
            start = draw(st.none() | st.integers(-n - 2, n + 2))
            stop = draw(st.none() | st.integers(-n - 2, n + 2))
            step = draw(st.none() | st.sampled_from([1, 2, 3, -1, -2, -3]))
            items.append(slice(start, stop, step))
            dim += 1
        elif kind == "array":
            n = shape[dim]
            ashape = bshape[draw(st.integers(0, len(bshape))):]
            ashape = tuple(s if draw(st.booleans()) else 1 for s in ashape)
            count = int(np.prod(ashape, dtype=np.int64))
            if count > n:
                continue
            perm = draw(st.permutations(range(n)))[:count]
            negate = draw(st.lists(st.booleans(), min_size=count, max_size=count))
            values = [p - n if neg else p for p, neg in zip(perm, negate)]
            items.append(np.array(values, dtype=np.int64).reshape(ashape))
            dim += 1
        elif kind == "mask":
            m = draw(st.integers(1, left))
            size = int(np.prod(shape[dim:dim + m]))
            bits = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            items.append(np.array(bits, dtype=bool).reshape(shape[dim:dim + m]))
            dim += m
    index = tuple(items) if draw(st.booleans()) or len(items) != 1 else items[0]
    return shape, index


def numpy_result(a, index):
    try:
        return a[index], None
    except (IndexError, ValueError) as e:
        return None, type(e)


@given(index_case(), st.booleans())
def test_random_getitem_matches_numpy(case, strided):
    shape, index = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    expected, error = numpy_result(a, index)
    t = noncontiguous(to_tensor(a)) if strided else to_tensor(a)
    if error is not None:
        with pytest.raises(IndexError):
            t[index]
        return
    actual = t[index]
    assert_close(actual, expected)


@given(index_case(), st.booleans(), st.booleans())
def test_random_setitem_matches_numpy(case, broadcast_value, strided):
    shape, index = case
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    target, error = numpy_result(a, index)
    t = noncontiguous(to_tensor(a)) if strided else to_tensor(a)
    if error is not None:
        with pytest.raises(IndexError):
            t[index] = 1
        assert_close(t, a)
        return
    rshape = target.shape[-1:] if broadcast_value else target.shape
    value = -1 - np.arange(int(np.prod(rshape)), dtype=np.int64).reshape(rshape)
    a[index] = value
    t[index] = tl.tensor(value)
    assert_close(t, a)
