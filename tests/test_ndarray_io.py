"""The ndarray memory and file methods on tensors (torchlike/_ndarray_io.py),
with NumPy as the oracle: byteswap values (every dtype, in place and not,
non-contiguous), dump/dumps round trips, tofile read back by numpy.fromfile
(binary; text compared byte for byte with NumPy's; torchlike.numpy.fromfile
is NumPy's own through the namespace's fallback, not called here so that
the fallback cache stays as the fuzz tests expect), resize in place (grow with
zeros, shrink, refcheck) beside PyTorch's deprecated view form, setflags
(read-only memory, undoing it, refusing what cannot be), getfield/setfield
views (complex parts, integer halves, strided)."""
import io
import pickle

import numpy
import pytest

import torchlike as T

pytestmark = pytest.mark.filterwarnings("ignore:non-inplace resize")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _sample(dt):
    a = numpy.arange(12).reshape(3, 4) * 37 - 5
    if dt.startswith("complex"):
        return (a + 1j * (a[::-1] + 0.5)).astype(dt)
    return (a % 2 if dt == "bool" else a).astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_byteswap_matches_numpy(dt):
    a = _sample(dt)
    t = T.tensor(a)
    got = t.byteswap()
    assert got.dtype == t.dtype and numpy.array_equal(t.numpy(), a)     # t untouched
    numpy.testing.assert_array_equal(got.numpy().view("u1"), a.byteswap().view("u1"))
    strided = T.tensor(a).T
    swapped = strided.byteswap()
    assert swapped.numpy().strides == a.T.byteswap().strides   # laid out as NumPy's copy
    numpy.testing.assert_array_equal(numpy.ascontiguousarray(swapped.numpy()).view("u1"),
                                     numpy.ascontiguousarray(a.T.byteswap()).view("u1"))
    r = strided.byteswap(inplace=True)
    assert r is strided
    numpy.testing.assert_array_equal(strided.byteswap(True).numpy(), a.T)   # twice: back


def test_byteswap_bfloat16_swaps_the_16_bit_pattern():
    t = T.tensor([1.0, -2.5, 3.0], dtype=T.bfloat16)
    bits = t.view(T.int16).numpy()
    numpy.testing.assert_array_equal(t.byteswap().view(T.int16).numpy(), bits.byteswap())


def test_dump_and_dumps_round_trip(tmp_path):
    t = T.tensor(_sample("float32"))[:, 1:]
    back = pickle.loads(t.dumps())
    assert isinstance(back, T.Tensor) and numpy.array_equal(back.numpy(), t.numpy())
    path = tmp_path / "t.pkl"
    t.dump(str(path))
    with open(path, "rb") as f:
        assert numpy.array_equal(pickle.load(f).numpy(), t.numpy())
    buf = io.BytesIO()
    t.dump(buf)
    assert numpy.array_equal(pickle.loads(buf.getvalue()).numpy(), t.numpy())


@pytest.mark.parametrize("dt", DTYPES)
def test_tofile_binary_reads_back(dt, tmp_path):
    a = _sample(dt)
    path = tmp_path / "x.bin"
    T.tensor(a).T.tofile(str(path))                          # non-contiguous: C order
    want = path.with_suffix(".np")
    numpy.ascontiguousarray(a.T).tofile(str(want))
    assert path.read_bytes() == want.read_bytes()
    numpy.testing.assert_array_equal(numpy.fromfile(str(path), dtype=dt), a.T.ravel())


@pytest.mark.parametrize("sep,fmt", [(" ", "%s"), (",", "%.3f"), ("\n", "%g")])
def test_tofile_text_matches_numpy(sep, fmt, tmp_path):
    a = _sample("float64") / 7
    ours, theirs = tmp_path / "ours.txt", tmp_path / "theirs.txt"
    T.tensor(a).tofile(str(ours), sep=sep, format=fmt)
    a.tofile(str(theirs), sep=sep, format=fmt)
    assert ours.read_text() == theirs.read_text()
    with open(ours, "w") as f:                               # a file object too
        T.tensor(a).tofile(f, sep=sep, format=fmt)
    assert ours.read_text() == theirs.read_text()


@pytest.mark.parametrize("shape", [(2, 8), (5,), (3, 2), (0,), 4])
def test_resize_in_place_matches_numpy(shape):
    a = numpy.arange(12.0)
    t = T.tensor(a)
    assert t.resize(shape, refcheck=False) is None
    a.resize(shape, refcheck=False)
    numpy.testing.assert_array_equal(t.numpy(), a)


def test_resize_spellings():
    t = T.arange(6.0)
    assert t.resize(7) is None and t.shape == (7,) and t[6].item() == 0.0   # NumPy's: grows
    v = T.arange(6.0)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = v.resize(2, 3)                                  # PyTorch's: a view, v unchanged
    assert r.shape == (2, 3) and v.shape == (6,)
    base = T.arange(6.0)
    with pytest.raises(ValueError, match="does not own its data"):
        base[1:].resize(10)
    with pytest.raises(ValueError, match="negative dimensions"):
        T.arange(3.0).resize((-1, 2), refcheck=False)


def test_setflags_write():
    t = T.arange(4.0)
    view = t[1:]
    view.setflags(write=False)
    assert not view.flags.writeable and not t.flags.writeable    # the memory is read-only
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        view.add_(1)
    view.setflags(write=True)
    t[0] = 5.0
    assert t[0].item() == 5.0
    ro = numpy.arange(3.0)
    ro.setflags(write=False)
    imported = T.from_numpy(ro)
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
        imported.setflags(write=True)
    with pytest.raises(ValueError, match="always aligned"):
        t.setflags(align=False)
    with pytest.raises(ValueError, match="WRITEBACKIFCOPY"):
        t.setflags(uic=True)
    t.setflags(align=True, uic=False)


def test_getfield_setfield_match_numpy():
    a = _sample("complex128")
    t = T.tensor(a)
    numpy.testing.assert_array_equal(t.getfield(numpy.float64, 8).numpy(), a.getfield(numpy.float64, 8))
    numpy.testing.assert_array_equal(t.T.getfield(T.float64).numpy(), a.T.getfield(numpy.float64))
    t.setfield(-1.5, numpy.float64, 8)
    a.setfield(-1.5, numpy.float64, 8)
    numpy.testing.assert_array_equal(t.numpy(), a)
    i = numpy.array([0x12345678, -7], dtype=numpy.int32)
    ti = T.tensor(i)[::-1]
    for off in (0, 2):
        numpy.testing.assert_array_equal(ti.getfield(numpy.int16, off).numpy(),
                                         i[::-1].getfield(numpy.int16, off))
    field = ti.getfield(numpy.int16, 2)                      # a view: writes reach ti
    field.fill_(0)
    assert ti.numpy().tolist() == [i[1] & 0xFFFF, i[0] & 0xFFFF]
    with pytest.raises(ValueError, match="Need 0 <= offset <= 4"):
        T.zeros(2, dtype=T.float64).getfield(numpy.float32, 6)
    with pytest.raises(ValueError, match="not a multiple"):
        T.zeros(2, dtype=T.int64).getfield(numpy.int32, 2)
