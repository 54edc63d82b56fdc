"""The wide unsigned dtypes uint16, uint32 and uint64.

PyTorch's semantics where PyTorch 2.15 has them (tests/golden/unsigned.json,
scripts/golden_unsigned.py: construction, fill, casts, item/tolist, sums in
int64, sort, names); NumPy's values and dtypes for the arithmetic, reductions
and promotion PyTorch has no kernels for (its "not implemented for 'UInt32'"
and "Promotion for uint16, uint32, uint64 types is not supported"), through
torchlike.numpy and through the Tensor's operators."""
import io
import pickletools
import zipfile

import numpy as np
import pytest

import torchlike as T
import torchlike.numpy as tnp
from oracle import golden_calls, golden_check

CALLS, _golden = golden_calls("unsigned")

UNSIGNED = ["uint16", "uint32", "uint64"]
INTEGERS = ["bool", "uint8", "int8", "int16", "int32", "int64"] + UNSIGNED

# PyTorch refuses these; ours answers as NumPy does (checked by the tests below).
SUPERSET = {
    "T.promote_types(u16, T.bool)": ["dtype", "uint16"],
    "T.promote_types(u32, T.bool)": ["dtype", "uint32"],
    "T.promote_types(u64, T.bool)": ["dtype", "uint64"],
    # x.mean() of integers is NumPy's (float64), as for every integer dtype
    "T.tensor([1, 2], dtype=u16).mean()": ["tensor", "float64", [], 1.5],
    "T.tensor([1, 2], dtype=u32).mean()": ["tensor", "float64", [], 1.5],
    "T.tensor([1, 2], dtype=u64).mean()": ["tensor", "float64", [], 1.5],
    # floats truncate into uint64 as into every other integer dtype
    "T.tensor([1.5, 2.9], dtype=u64)": ["tensor", "uint64", [2], [1, 2]],
    # the value, which PyTorch's int() cannot convert past int64
    "int(T.tensor(18446744073709551615, dtype=u64))": ["int", 2 ** 64 - 1],
}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    if call in SUPERSET:
        assert _golden.describe(eval(call, {"T": T, **_golden.inputs(T)})) == SUPERSET[call]
        return
    golden_check(_golden, call, expected, same_wording=("value cannot be converted",
                                                        "can't convert negative"))


# ---- values against NumPy ------------------------------------------------------------

def _data(dtype, shape, seed=0):
    """Values spread over the whole range, with 0 and the maximum in it."""
    info = np.iinfo(dtype)
    a = np.random.default_rng(seed).integers(info.min, info.max, size=shape, dtype=dtype,
                                             endpoint=True)
    flat = a.reshape(-1)
    if flat.size >= 2:
        flat[:2] = info.max, 0
    return a


def _same(ours, theirs):
    theirs = np.asarray(theirs)
    got = ours.numpy() if isinstance(ours, T.Tensor) else np.asarray(ours)
    assert got.dtype == theirs.dtype, (got.dtype, theirs.dtype)
    assert got.shape == theirs.shape
    np.testing.assert_array_equal(got, theirs)


# Integer-valued ops: NumPy's wrapping arithmetic, exactly.
BINARY = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "floordiv": lambda m, a, b: a // (b | 1), "mod": lambda m, a, b: a % (b | 1),
    "pow": lambda m, a, b: a ** (b % 4), "and": lambda m, a, b: a & b,
    "or": lambda m, a, b: a | b, "xor": lambda m, a, b: a ^ b,
    "lshift": lambda m, a, b: a << (b % 7), "rshift": lambda m, a, b: a >> (b % 7),
    "maximum": lambda m, a, b: m.maximum(a, b), "minimum": lambda m, a, b: m.minimum(a, b),
    "gcd": lambda m, a, b: m.gcd(a, b), "fmod": lambda m, a, b: m.fmod(a, b | 1),
    "lt": lambda m, a, b: a < b, "ge": lambda m, a, b: a >= b, "eq": lambda m, a, b: a == b,
    "where": lambda m, a, b: m.where(a > b, a, b),
}
UNARY = {
    "neg": lambda m, a: -a, "invert": lambda m, a: ~a, "abs": lambda m, a: m.abs(a),
    "sign": lambda m, a: m.sign(a), "square": lambda m, a: m.square(a),
    "clip": lambda m, a: m.clip(a, 5, 40000), "isnan": lambda m, a: m.isnan(a),
    "signbit": lambda m, a: m.signbit(a), "floor": lambda m, a: m.floor(a),
    "sum": lambda m, a: m.sum(a, axis=0), "sum_all": lambda m, a: m.sum(a),
    "prod": lambda m, a: m.prod(a % 5, axis=-1), "cumsum": lambda m, a: m.cumsum(a, axis=0),
    "add.reduce": lambda m, a: m.add.reduce(a, axis=-1),
    "add.accumulate": lambda m, a: m.add.accumulate(a, axis=0),
    "max": lambda m, a: m.max(a, axis=0), "min": lambda m, a: m.min(a),
    "argmax": lambda m, a: m.argmax(a, axis=-1), "argmin": lambda m, a: m.argmin(a),
    "sort": lambda m, a: m.sort(a, axis=-1), "argsort": lambda m, a: m.argsort(a, axis=0,
                                                                               kind="stable"),
    "unique": lambda m, a: m.unique(a % 9), "count_nonzero": lambda m, a: m.count_nonzero(a % 3),
    "any": lambda m, a: m.any(a, axis=0), "bincount": lambda m, a: m.bincount((a % 7).ravel()),
    "flip": lambda m, a: m.flip(a, axis=0), "diff": lambda m, a: m.diff(a, axis=-1),
    "ptp": lambda m, a: m.ptp(a), "searchsorted": lambda m, a: m.searchsorted(
        m.sort(a.ravel()), a.ravel()[::-1]),
    "to_int8": lambda m, a: a.astype(m.int8), "to_uint16": lambda m, a: a.astype(m.uint16),
    "to_float64": lambda m, a: a.astype(m.float64), "to_bool": lambda m, a: a.astype(bool),
    "add_scalar": lambda m, a: a + 3, "sub_scalar": lambda m, a: a - 1,
    "cmp_negative": lambda m, a: a > -1, "rsub_scalar": lambda m, a: 7 - a,
    "mod_scalar": lambda m, a: a % 7, "shift_scalar": lambda m, a: a << 3,
}
# 0-d, empty, a matrix; non-contiguous and broadcast operands below
SHAPES = [(), (0,), (3, 5)]


@pytest.mark.parametrize("dtype", UNSIGNED)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_numpy(dtype, name):
    fn = BINARY[name]
    for shape in SHAPES:
        a, b = _data(dtype, shape, 1), _data(dtype, shape, 2)
        _same(fn(tnp, tnp.asarray(a), tnp.asarray(b)), fn(np, a, b))
    a, b = _data(dtype, (4, 6), 3), _data(dtype, (8,), 4)
    # non-contiguous on both sides, broadcast
    _same(fn(tnp, tnp.asarray(a).T[::2], tnp.asarray(b)[::2]), fn(np, a.T[::2], b[::2]))


@pytest.mark.parametrize("dtype", UNSIGNED)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_and_reductions_match_numpy(dtype, name):
    fn = UNARY[name]
    for shape in [(3, 5), (6, 4)]:
        a = _data(dtype, shape, 5)
        _same(fn(tnp, tnp.asarray(a)), fn(np, a))
        _same(fn(tnp, tnp.asarray(a.T.copy()).T), fn(np, a))  # non-contiguous


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_upper_half_of_uint64_orders_and_converts(dtype):
    """Values above the signed range of their width are large, not negative."""
    top = np.iinfo(dtype).max
    a = np.array([top, 1, top // 2 + 1, 0, top - 1, top // 2], dtype=dtype)
    t = T.tensor(a.tolist(), dtype=getattr(T, dtype))
    _same(t.sort().values, np.sort(a))
    _same(t.sort(descending=True).indices, np.argsort(-a.astype(np.float64), kind="stable"))
    _same(t.topk(2).values, np.sort(a)[::-1][:2])
    _same(t.max(), a.max())
    _same(t.argmax(), np.argmax(a))
    _same(t.cummax(0).values, np.maximum.accumulate(a))
    _same(t.to(T.float64), a.astype(np.float64))
    _same(t.unique(), np.unique(a))
    assert t.tolist() == a.tolist() and t[0].item() == int(top) and int(t[0]) == int(top)
    assert (t > 0).tolist() == (a > 0).tolist()
    low = t[t <= top // 2]  # float64 rounds the top ones up past the dtype's range
    _same(low.double().to(getattr(T, dtype)), a[a <= top // 2].astype(np.float64).astype(dtype))


# ---- promotion --------------------------------------------------------------------

@pytest.mark.parametrize("a", INTEGERS)
@pytest.mark.parametrize("b", UNSIGNED)
def test_promotion_of_integer_dtypes_is_numpys(a, b):
    """uint16 + int16 -> int32, uint32 + int32 -> int64, uint64 + any signed
    type -> float64 (NumPy's table; PyTorch refuses all of these)."""
    want = np.result_type(a, b).name
    assert T.promote_types(getattr(T, a), getattr(T, b)) == getattr(T, want)
    x, y = T.ones(2, dtype=getattr(T, a)), T.ones(2, dtype=getattr(T, b))
    assert (x + y).dtype == getattr(T, want) and (y * x).dtype == getattr(T, want)


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_python_scalars_are_weak_and_checked(dtype):
    d = getattr(T, dtype)
    top = int(np.iinfo(dtype).max)
    assert (T.ones(2, dtype=d) + 1).dtype == d
    assert (T.ones(2, dtype=d) * 1.5).dtype == T.get_default_dtype()
    assert (T.tensor([top], dtype=d) + 1).tolist() == [0]  # wraps, as NumPy
    with pytest.raises(OverflowError, match=f"Python integer -1 out of bounds for {dtype}"):
        T.ones(2, dtype=d) + (-1)
    with pytest.raises(OverflowError, match=f"Python integer {top + 1} (is )?out of bounds"):
        T.ones(2, dtype=d) + (top + 1)
    # a comparison answers whatever the scalar: all of them exceed -1
    assert (T.tensor([0, top], dtype=d) > -1).tolist() == [True, True]
    assert (T.tensor([0, top], dtype=d) <= 2 ** 64 - 1).tolist() == [True, True]


def test_python_ints_past_int64():
    big = 2 ** 63 + 5
    u = T.tensor([1, 2], dtype=T.uint64)
    assert (u + big).tolist() == [big + 1, big + 2]
    assert (u < big).tolist() == [True, True]
    assert T.full((2,), big, dtype=T.uint64).tolist() == [big, big]
    assert (T.ones(2) + big).dtype == T.float32
    with pytest.raises(OverflowError, match="Python integer 9223372036854775813 out of bounds "
                                            "for int64"):
        T.ones(2, dtype=T.int64) + big
    assert (T.tensor([1]) > big).tolist() == [False]
    assert tnp.asarray([big]).dtype == T.uint64 and np.asarray([big]).dtype == np.uint64
    _same(tnp.full(2, big), np.full(2, big))


def test_numpy_accumulates_unsigned_in_uint64_and_torch_in_int64():
    a = np.array([2 ** 32 - 1, 2 ** 32 - 1], dtype=np.uint32)
    t = T.from_numpy(a)
    assert t.sum().dtype == T.int64 and t.sum().item() == int(a.astype(np.int64).sum())
    _same(tnp.sum(t), np.sum(a))
    _same(tnp.cumsum(t), np.cumsum(a))
    _same(tnp.prod(t), np.prod(a))


# ---- interop -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", UNSIGNED)
def test_numpy_dlpack_and_buffer_share_memory(dtype):
    a = _data(dtype, (3, 4), 7)
    t = T.from_numpy(a)
    assert t.dtype == getattr(T, dtype)
    a[0, 0] = 9
    assert t[0, 0].item() == 9
    assert np.shares_memory(t.numpy(), a)
    back = np.from_dlpack(t)
    assert back.dtype == a.dtype and np.shares_memory(back, a)
    _same(T.from_dlpack(back), a)
    view = memoryview(t)
    assert view.format == {"uint16": "H", "uint32": "I", "uint64": "Q"}[dtype]
    assert view.itemsize == a.itemsize and np.array_equal(np.asarray(view), a)
    assert T.tensor(a.T).is_contiguous() and T.tensor(a.T).tolist() == a.T.tolist()


def test_numpy_namespace_has_the_dtypes_and_their_aliases():
    assert tnp.uint16 is T.uint16 and tnp.uint32 is T.uint32 and tnp.uint64 is T.uint64
    assert tnp.uintp is T.uint64 and tnp.ushort is T.uint16 and tnp.uintc is T.uint32
    assert tnp.dtype("uint32") is T.uint32 and tnp.dtype(np.uint64) is T.uint64
    assert tnp.issubdtype(tnp.uint32, tnp.unsignedinteger)
    assert tnp.iinfo(tnp.uint64).max == 2 ** 64 - 1
    assert tnp.arange(5, dtype=tnp.uint32).dtype == T.uint32
    _same(tnp.frombuffer(np.arange(4, dtype=np.uint16).tobytes(), dtype=tnp.uint16),
          np.arange(4, dtype=np.uint16))
    rng = tnp.random.default_rng(0)
    x = rng.integers(0, 10, size=100, dtype=tnp.uint32)
    assert x.dtype == T.uint32 and 0 <= int(x.min()) and int(x.max()) < 10


def test_indexing_scatter_and_random_take_the_dtypes():
    base = np.arange(12, dtype=np.uint32).reshape(3, 4) * 1000003
    t = T.from_numpy(base.copy())
    idx = T.tensor([[2, 0, 1, 0]])
    _same(t.gather(0, idx), np.take_along_axis(base, idx.numpy(), 0))
    t[t > 5000000] = 7
    b = base.copy()
    b[b > 5000000] = 7
    _same(t, b)
    src = T.tensor([[2 ** 32 - 1, 5, 6, 9]], dtype=T.uint32)
    out = T.zeros(3, 4, dtype=T.uint32).scatter_reduce(0, idx, src, "amax")
    want = np.zeros((3, 4), np.uint32)
    np.maximum.at(want, (idx.numpy()[0], np.arange(4)), src.numpy()[0])
    _same(out, want)
    r = T.randint(0, 2 ** 31, (1000,), dtype=T.uint32)
    assert r.dtype == T.uint32 and int(r.max()) < 2 ** 31
    with pytest.raises(RuntimeError, match="random_ expects"):
        T.randint(-1, 5, (2,), dtype=T.uint16)


def _saved_globals(obj):
    buf = io.BytesIO()
    T.save(obj, buf)
    with zipfile.ZipFile(buf) as z:
        pkl = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    return {arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"}


def test_saved_as_pytorch_saves_them():
    """An untyped storage and _rebuild_tensor_v3 with the dtype, as PyTorch
    writes these dtypes (it has no typed storage classes for them); the
    other dtypes keep their typed storages (tests/test_serialization_golden.py
    loads PyTorch's own files of both kinds)."""
    names = _saved_globals(T.tensor([1, 2], dtype=T.uint32))
    assert {"torch._utils _rebuild_tensor_v3", "torch.storage UntypedStorage",
            "torch uint32"} <= names
    assert "torch._utils _rebuild_tensor_v2" in _saved_globals(T.tensor([1, 2], dtype=T.uint8))


def test_bincount_names_a_uint64_bin_past_int64():
    """A uint64 value of 2**63 or more is no bin a count array could reach:
    the error names the value as it is, not as the int64 it reads as."""
    x = tnp.asarray([1, 2**63 + 5], dtype=tnp.uint64)
    with pytest.raises(RuntimeError, match=r"input\[1\] is 9223372036854775813, too large"):
        tnp.bincount(x)


def test_random_uint64_integers_reach_past_int64():
    """Generator.integers and randint draw uint64 values from all of
    [0, 2**64): bounds past int64's range are kept, the upper half is drawn
    as often as the lower, a seed repeats its draws, and bounds past the
    dtype's are NumPy's ValueError."""
    rng = tnp.random.default_rng(3)
    x = rng.integers(0, 2**64, size=4000, dtype=tnp.uint64)
    assert x.dtype == T.uint64 and x.shape == (4000,)
    upper = float((x >= 2**63).sum()) / 4000
    assert 0.45 < upper < 0.55, upper
    top = rng.integers(2**64 - 3, 2**64, size=300, dtype=tnp.uint64)
    assert sorted(set(top.tolist())) == [2**64 - 3, 2**64 - 2, 2**64 - 1]
    closed = rng.integers(2**63, 2**64 - 1, size=50, dtype=tnp.uint64, endpoint=True)
    assert all(2**63 <= v <= 2**64 - 1 for v in closed.tolist())
    again = tnp.random.default_rng(3).integers(0, 2**64, size=4000, dtype=tnp.uint64)
    assert T.equal(again, x)
    assert tnp.random.randint(2**63, 2**64, size=5, dtype=tnp.uint64).min() >= 2**63
    with pytest.raises(ValueError, match="high is out of bounds for uint64"):
        rng.integers(2**65, dtype=tnp.uint64)
    with pytest.raises(ValueError, match="low is out of bounds for uint64"):
        rng.integers(-1, 2**64, dtype=tnp.uint64)
