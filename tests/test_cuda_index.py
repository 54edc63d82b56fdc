"""The index family on devices: advanced get/setitem, nonzero/argwhere, gather,
scatter (add, reduce), index_select/add/copy/fill, take/put, take_along_dim and
the masked ops, against NumPy references, and bad indices found by device
kernels raised at the next synchronization.

Each result test takes a `device`: "cpu" runs everywhere and checks the test
itself; "cuda" runs where a GPU is present (scripts/gpu_check.sh) and skips
with "requires a CUDA device" elsewhere; "emulated" is the fake device given
the CPU's kernels as its device kernels (_C._fake_emulate_device), in a
process of its own, which runs the index ops' device paths: index tensors
and values moved to the device, the passes through the device primitives,
and bad indices recorded in the device's error record and raised at its
next synchronization, as on CUDA."""

import numpy as np
import pytest

import torchlike as tl
from oracle import ALL_DTYPES, assert_close, random_array, run_emulated, to_tensor
# The devices (and the emulation, in the emulated run) are test_cuda_kernels's.
from test_cuda_kernels import DEVICES, EMULATED, back
from test_index_ops import full_coords, scatter_reduce_reference

RNG = np.random.default_rng(7)
# Dtypes a sum of small integer values keeps exact in any order (atomic sums
# on a GPU arrive in no fixed order).
ACC_DTYPES = [d for d in ALL_DTYPES if d != "bool"]


def on(device, a, dtype=None):
    """ndarray (or tensor) a as a tensor on device."""
    t = a if isinstance(a, tl.Tensor) else to_tensor(a, dtype)
    return t.to(device) if device != "cpu" else t


def idx(device, a):
    return on(device, np.asarray(a, dtype=np.int64))


def strided(device, a, dtype=None):
    """a on device as a non-contiguous view (every other element of a wider tensor)."""
    wide = np.repeat(np.asarray(a)[..., None], 2, axis=-1)
    t = on(device, wide, dtype)
    return t[..., 0]


def sync(device):
    """A synchronization point of the device: a device-to-host copy (the
    backend's synchronize and torchlike.cuda.synchronize check the record
    too: test_cuda_synchronize_raises_a_recorded_bad_index)."""
    if device != "cpu":
        tl.zeros(1).to(device).cpu()


# ---- advanced get/setitem ----------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_getitem_every_dtype(device, dtype):
    a = random_array((4, 5), dtype)
    rows = np.array([3, -1, 0, 3])
    assert_close(back(on(device, a, dtype)[idx(device, rows)]), a[rows], dtype=dtype)
    mask = RNG.integers(0, 2, size=(4, 5)).astype(bool)
    assert_close(back(on(device, a, dtype)[on(device, mask)]), a[mask], dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_getitem_rules(device):
    a = np.arange(4 * 4 * 4 * 5, dtype=np.float32).reshape(4, 4, 4, 5)
    t = on(device, a)
    i = np.array([[0, -1], [2, 1]])
    j = np.array([3, 0])  # broadcasts against i
    cases = [
        (lambda x, I, J: x[:, I], lambda: a[:, i]),
        (lambda x, I, J: x[:, I, J], lambda: a[:, i, j]),          # adjacent: stay in place
        (lambda x, I, J: x[I, :, J], lambda: a[i, :, j]),          # separated: move to front
        (lambda x, I, J: x[1, I, ..., J], lambda: a[1, i, ..., j]),
        (lambda x, I, J: x[None, :, J], lambda: a[None, :, j]),
        (lambda x, I, J: x[:, I[:0]], lambda: a[:, i[:0]]),         # empty index
    ]
    for got, want in cases:
        assert_close(back(got(t, idx(device, i), idx(device, j))), want())
    # non-contiguous source and index; an index tensor left on the CPU
    ts = on(device, np.ascontiguousarray(a.transpose(3, 2, 1, 0))).permute(3, 2, 1, 0)
    si = strided(device, i.astype(np.int64))
    assert_close(back(ts[:, si, j]), a[:, i, j])
    assert_close(back(t[:, tl.tensor(i)]), a[:, i])
    # bool masks: over several dims, 0-d, with other items; empty source
    m = RNG.integers(0, 2, size=(4, 4)).astype(bool)
    assert_close(back(t[:, on(device, m)]), a[:, m])
    assert_close(back(t[on(device, np.array(True))]), a[np.array(True)])
    assert_close(back(t[on(device, np.array(False))]), a[np.array(False)])
    assert_close(back(t[1, on(device, m), 2]), a[1, m, 2])
    e = np.zeros((0, 3), np.float32)
    assert_close(back(on(device, e)[:, idx(device, [0, 2])]), e[:, [0, 2]])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_setitem_every_dtype(device, dtype):
    a = random_array((4, 5), dtype)
    v = random_array((3, 5), dtype, rng=np.random.default_rng(3))
    rows = np.array([2, -4, 3])  # distinct: which duplicate wins is unspecified on a GPU
    expected = a.copy()
    expected[rows] = v
    t = on(device, a, dtype)
    t[idx(device, rows)] = on(device, v, dtype)
    assert_close(back(t), expected, dtype=dtype)
    mask = RNG.integers(0, 2, size=(4, 5)).astype(bool)
    expected[mask] = 1
    t[on(device, mask)] = 1
    assert_close(back(t), expected, dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ACC_DTYPES)
def test_index_put_accumulates_duplicates(device, dtype):
    a = random_array((6, 3), dtype, low=0, high=3)
    vals = random_array((8, 3), dtype, rng=np.random.default_rng(9), low=0, high=3)
    rows = np.array([0, 1, 0, 5, -1, 5, 2, 0])
    expected = a.copy()
    np.add.at(expected, rows, vals)
    t = on(device, a, dtype)
    t.index_put_((idx(device, rows),), on(device, vals, dtype), accumulate=True)
    assert_close(back(t), expected, dtype=dtype)
    # basic items with accumulate: every offset zero
    t = on(device, a, dtype)
    t.index_put_((None,), on(device, vals[:6], dtype), accumulate=True)
    assert_close(back(t), a + vals[:6], dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_rules(device):
    a = np.arange(24.0).reshape(2, 3, 4)
    i, j = np.array([[0], [2]]), np.array([1, 3])
    expected = a.copy()
    expected[:, i, j] = -np.arange(4.0).reshape(2, 2)
    t = on(device, a)
    t[:, idx(device, i), idx(device, j)] = on(device, -np.arange(4.0).reshape(2, 2))
    assert_close(back(t), expected)
    # a strided target, a CPU index, a broadcast value
    base = on(device, np.zeros((4, 6)))
    view = base[:, ::2]
    view[tl.tensor([1, 3])] = on(device, np.array([1.0, 2.0, 3.0]))
    want = np.zeros((4, 6))
    want[[1, 3], ::2] = [1.0, 2.0, 3.0]
    assert_close(back(base), want)
    # a mask whose shape is self's, with a tensor value of one element
    m = a > 10
    expected = a.copy()
    expected[m] = 5
    t = on(device, a)
    t[on(device, m)] = on(device, np.array(5.0))
    assert_close(back(t), expected)


# ---- nonzero, argwhere ------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float32", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 33)])
def test_nonzero(device, dtype, shape):
    a = random_array(shape, dtype, low=-1, high=2)
    t = on(device, a, dtype)
    assert_close(back(tl.nonzero(t)), np.argwhere(a))
    assert_close(back(t.argwhere()), np.argwhere(a))
    for got, want in zip(t.nonzero(as_tuple=True), np.nonzero(np.atleast_1d(a))):
        assert_close(back(got), want)


@pytest.mark.parametrize("device", DEVICES)
def test_nonzero_non_contiguous(device):
    a = np.array([[0.0, np.nan, -0.0], [1e-30, 0.0, -np.inf]])
    t = on(device, np.ascontiguousarray(a.T)).t()
    assert_close(back(t.nonzero()), np.argwhere(a))


# ---- gather, scatter ---------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_gather_and_take_along_dim(device, dtype):
    a = random_array((4, 5), dtype)
    index = RNG.integers(-4, 4, size=(3, 5))
    want = a[full_coords(index % 4, 0)]
    assert_close(back(on(device, a, dtype).gather(0, idx(device, index))), want, dtype=dtype)
    assert_close(back(strided(device, a, dtype).gather(0, strided(device, index))), want,
                 dtype=dtype)
    index1 = RNG.integers(0, 5, size=(4, 2))
    assert_close(back(tl.take_along_dim(on(device, a, dtype), idx(device, index1), dim=1)),
                 np.take_along_axis(a, index1, axis=1), dtype=dtype)
    # broadcasting apart from dim, and the flattened form
    index2 = RNG.integers(0, 4, size=(2, 1))
    assert_close(back(tl.take_along_dim(on(device, a, dtype), idx(device, index2), dim=0)),
                 np.take_along_axis(a, np.broadcast_to(index2, (2, 5)), axis=0), dtype=dtype)
    flat = np.array([0, 19, -1])
    assert_close(back(tl.take_along_dim(on(device, a, dtype), idx(device, flat))),
                 a.ravel()[flat], dtype=dtype)
    e = np.zeros((0, 5), np.int64)
    assert_close(back(on(device, a, dtype).gather(0, idx(device, e))), a[:0], dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_and_scatter_add(device, dtype):
    a = random_array((5, 4), dtype, low=0, high=3)
    src = random_array((3, 4), dtype, rng=np.random.default_rng(4), low=0, high=3)
    # distinct targets per column for plain scatter
    index = np.stack([RNG.permutation(5)[:3] for _ in range(4)], axis=1)
    expected = a.copy()
    expected[full_coords(index, 0)] = src
    t = on(device, a, dtype)
    t.scatter_(0, idx(device, index), on(device, src, dtype))
    assert_close(back(t), expected, dtype=dtype)
    # a fill value (a CPU scalar moved to the device)
    expected = a.copy()
    expected[full_coords(index, 0)] = 1
    assert_close(back(on(device, a, dtype).scatter(0, idx(device, index), 1)), expected,
                 dtype=dtype)
    if dtype == "bool":
        return
    dup = RNG.integers(-5, 5, size=(6, 4))
    src6 = random_array((6, 4), dtype, rng=np.random.default_rng(5), low=0, high=3)
    expected = a.copy()
    np.add.at(expected, full_coords(dup % 5, 0), src6)
    got = on(device, a, dtype).scatter_add(0, strided(device, dup), strided(device, src6, dtype))
    assert_close(back(got), expected, dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_scatter_reduce(device, reduce, include_self, dtype):
    if dtype.startswith("complex") and reduce in ("amax", "amin"):
        return
    a = random_array((5, 4), dtype, low=1, high=3)
    src = random_array((6, 4), dtype, rng=np.random.default_rng(4), low=1, high=3)
    index = RNG.integers(0, 5, size=(6, 3))
    ref_dtype = np.float32 if dtype == "bfloat16" else None
    expected = scatter_reduce_reference(a, 0, index, src, reduce, include_self)
    got = on(device, a, dtype).scatter_reduce(0, idx(device, index), on(device, src, dtype), reduce,
                                              include_self=include_self)
    assert_close(back(got), expected if ref_dtype is None else expected.astype(ref_dtype),
                 dtype=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_scatter_reduce_nan_propagates(device):
    src = np.array([1.0, np.nan, 2.0, -np.nan], dtype=np.float32)
    for reduce, fn in (("amax", np.maximum), ("amin", np.minimum)):
        got = tl.scatter_reduce(on(device, np.zeros(3, np.float32)), 0, idx(device, [0, 0, 1, 2]),
                                on(device, src), reduce)
        want = np.zeros(3, np.float32)
        with np.errstate(invalid="ignore"):
            fn.at(want, [0, 0, 1, 2], src)
        assert_close(back(got), want)


# ---- index_select, index_add/copy/fill -------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_select_add_copy_fill(device, dtype):
    a = random_array((4, 5), dtype, low=0, high=3)
    sel = np.array([4, -5, 2, 4])
    assert_close(back(on(device, a, dtype).index_select(1, idx(device, sel))), a[:, sel],
                 dtype=dtype)
    assert_close(back(strided(device, a, dtype).index_select(0, strided(device, sel % 4))),
                 a[sel % 4], dtype=dtype)
    rows = np.array([3, 0])
    src = random_array((2, 5), dtype, rng=np.random.default_rng(2), low=0, high=3)
    expected = a.copy()
    expected[rows] = src
    assert_close(back(on(device, a, dtype).index_copy(0, idx(device, rows), on(device, src, dtype))),
                 expected, dtype=dtype)
    expected = a.copy()
    expected[:, [1, 3]] = 1
    assert_close(back(on(device, a, dtype).index_fill(1, idx(device, [1, -2]), 1)), expected,
                 dtype=dtype)
    if dtype == "bool":
        return
    dup = np.array([1, 1, 3, -1])
    src4 = random_array((4, 5), dtype, rng=np.random.default_rng(6), low=0, high=3)
    expected = a.copy()
    np.add.at(expected, dup, src4)
    assert_close(back(on(device, a, dtype).index_add(0, idx(device, dup), on(device, src4, dtype))),
                 expected, dtype=dtype)
    expected = a.copy()
    np.add.at(expected, dup, src4 * np.array(2, dtype=a.dtype))
    got = on(device, a, dtype).index_add(0, idx(device, dup), on(device, src4, dtype), alpha=2)
    assert_close(back(got), expected, dtype=dtype)


# ---- take, put ----------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_take_and_put(device, dtype):
    a = random_array((3, 4), dtype, low=0, high=3)
    index = np.array([[0, -1], [5, 5]])
    assert_close(back(tl.take(on(device, a, dtype), idx(device, index))), np.take(a, index),
                 dtype=dtype)
    assert_close(back(strided(device, a, dtype).take(idx(device, index))), np.take(a, index),
                 dtype=dtype)
    src = random_array((2, 2), dtype, rng=np.random.default_rng(1), low=0, high=3)
    distinct = np.array([[0, 11], [-2, 5]])
    expected = a.copy()
    np.put(expected, distinct, src)
    assert_close(back(on(device, a, dtype).put(idx(device, distinct), on(device, src, dtype))),
                 expected, dtype=dtype)
    if dtype == "bool":
        return
    expected = a.copy()
    np.add.at(expected.reshape(-1), index % 12, src)
    t = on(device, np.ascontiguousarray(a.T), dtype).t()  # written through a copy
    t.put_(idx(device, index), on(device, src, dtype), accumulate=True)
    assert_close(back(t), expected, dtype=dtype)


# ---- masks ------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_fill_select_scatter(device, dtype):
    a = random_array((3, 4), dtype)
    mask = RNG.integers(0, 2, size=(4,)).astype(bool)   # broadcast over rows
    expected = np.where(mask, np.array(1, dtype=a.dtype), a)
    assert_close(back(on(device, a, dtype).masked_fill(on(device, mask), 1)), expected, dtype=dtype)
    t = strided(device, a, dtype)
    t.masked_fill_(on(device, mask), on(device, np.array(1), dtype))  # a device value
    assert_close(back(t), expected, dtype=dtype)
    mb = np.broadcast_to(mask, a.shape)
    assert_close(back(tl.masked_select(on(device, a, dtype), on(device, mask))), a[mb], dtype=dtype)
    src = random_array((12,), dtype, rng=np.random.default_rng(8))
    expected = a.copy()
    expected[mb] = src[:mb.sum()]
    got = on(device, a, dtype).masked_scatter(on(device, mask), on(device, src, dtype))
    assert_close(back(got), expected, dtype=dtype)


# ---- bad indices -----------------------------------------------------------------------------

BAD = [
    ("index", IndexError, lambda d: on(d, np.zeros((3, 2)))[idx(d, [0, 3])], 3, 0, 3),
    ("index_put_", IndexError,
     lambda d: on(d, np.zeros(3)).index_put_((idx(d, [-4]),), on(d, np.ones(1))), -4, 0, 3),
    ("gather", RuntimeError, lambda d: on(d, np.zeros((3, 2))).gather(0, idx(d, [[5, 0]])), 5, 0, 3),
    ("scatter_add", RuntimeError,
     lambda d: on(d, np.zeros(3)).scatter_add(0, idx(d, [1, 7]), on(d, np.ones(2))), 7, 0, 3),
    ("index_select", IndexError,
     lambda d: on(d, np.zeros((2, 4))).index_select(1, idx(d, [4])), 4, 1, 4),
    ("index_add", IndexError,
     lambda d: on(d, np.zeros((2, 4))).index_add(0, idx(d, [2]), on(d, np.ones((1, 4)))), 2, 0, 2),
    ("take", IndexError, lambda d: tl.take(on(d, np.zeros((3, 4))), idx(d, [12])), 12, 0, 12),
    ("put_", IndexError,
     lambda d: on(d, np.zeros(4)).put_(idx(d, [0, -9]), on(d, np.ones(2)), accumulate=True), -9, 0, 4),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op, exc, run, value, dim, size", BAD, ids=[b[0] for b in BAD])
def test_bad_index_raises_in_the_cpus_words(device, op, exc, run, value, dim, size):
    """On the CPU at once; on a device at the next synchronization, naming the
    op, and only once: the record is cleared when raised."""
    words = f"index {value} is out of bounds for dimension {dim} with size {size}"
    if device == "cpu":
        with pytest.raises(exc, match=words):
            run(device)
        return
    run(device)  # queued: a kernel cannot raise
    with pytest.raises(exc, match=words) as info:
        sync(device)
    assert op in str(info.value)
    sync(device)  # clean again
    # the first bad index wins, and an item() read is a synchronization too
    on(device, np.zeros(3)).gather(0, idx(device, [4, 9, 11]))
    with pytest.raises(RuntimeError, match="index (4|9|11) is out of bounds.*gather"):
        on(device, np.ones(2)).sum().item()


@pytest.mark.skipif(not tl.cuda.is_available(), reason="requires a CUDA device")
def test_cuda_synchronize_raises_a_recorded_bad_index():
    """torchlike.cuda.synchronize() is a synchronization too (it waited
    without reading the record)."""
    x = tl.arange(4.0, device="cuda")
    x[tl.tensor([9], device="cuda")]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        tl.cuda.synchronize()
    tl.cuda.synchronize()  # cleared


@pytest.mark.parametrize("device", DEVICES)
def test_bad_index_in_nonzero_shaped_op_raises_at_its_own_sync(device):
    """masked_select reads nonzero's count (a synchronization): an earlier
    kernel's bad index comes out there."""
    x = on(device, np.arange(4.0))
    if device == "cpu":
        with pytest.raises(IndexError):
            x[idx(device, [9])]
        return
    x[idx(device, [9])]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        back(tl.masked_select(x, on(device, np.array([True, False, True, True]))))
    assert_close(back(tl.masked_select(x, on(device, np.array([True, False, True, True])))),
                 np.array([0.0, 2.0, 3.0]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_put_checks_the_values_shape_before_reading_the_indices(device, accumulate):
    """PyTorch's order: a value that does not broadcast to the indexing result
    is refused before any index is read, so a bad index among them is never
    recorded on a device for a later, unrelated op to raise."""
    x = on(device, np.zeros((2, 3)))
    for shape in [(5,), (2, 2), (3, 2, 3)]:
        with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape "
                           rf"\[{', '.join(map(str, shape))}\] cannot be broadcast to "
                           r"indexing result of shape \[2, 3\]"):
            x.index_put_((idx(device, [0, 3]),), on(device, np.ones(shape)),
                         accumulate=accumulate)
        sync(device)                            # nothing left on the error record
    assert_close(back(x), np.zeros((2, 3)))


LAUNCH_BLOCKING = """
import sys
import numpy as np
import torchlike as tl
sys.path.insert(0, "tests")
device = sys.argv[1]
if device == "fake":
    tl._C._fake_enable()
    tl._C._fake_emulate_device()
from test_cuda_index import BAD
for op, exc, run, value, dim, size, in BAD:
    try:
        run(device)
    except exc as e:
        assert f"index {value} is out of bounds" in str(e) and op in str(e), (op, e)
    else:
        raise AssertionError(op + " did not raise at the op")
print("ok")
"""


@pytest.mark.skipif(EMULATED, reason="starts processes of its own")
@pytest.mark.parametrize("device", [
    pytest.param("fake", id="emulated"),
    pytest.param("cuda", marks=pytest.mark.skipif(not tl.cuda.is_available(),
                                                  reason="requires a CUDA device"))])
def test_launch_blocking_raises_a_bad_index_at_its_op(device):
    """CUDA_LAUNCH_BLOCKING=1 (read once per process): each index op waits
    for its device and raises its bad index there, naming it."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, "-c", LAUNCH_BLOCKING, device], capture_output=True,
                       text=True, cwd=root, timeout=120,
                       env={**os.environ, "CUDA_LAUNCH_BLOCKING": "1", "TORCHLIKE_FAKE_GUARD": "1"})
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stdout + p.stderr[-3000:]


# ---- the emulated run -------------------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above on the emulated fake device, in a
    process of its own (the emulation cannot be undone)."""
    run_emulated(__file__)
