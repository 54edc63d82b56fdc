"""torchlike.numpy.memmap, load(mmap_mode=) and torchlike.from_file against
NumPy: writes through our mapping are read back by numpy.memmap and
numpy.fromfile, and the other way; modes, offsets, shapes, orders;
copy-on-write leaves the file alone; a read-only mapping refuses writes."""
import os
import pathlib

import numpy
import pytest

import torchlike as tl
import torchlike.numpy as tnp

pytestmark = pytest.mark.host_only  # mapped files are host memory


def host(t):
    return numpy.asarray(t.as_subclass(tl.Tensor) if isinstance(t, tnp.memmap) else t)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "data.bin")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "uint8",
                                   "complex64", "bool"])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)])
def test_write_plus_then_numpy_reads(path, dtype, shape):
    m = tnp.memmap(path, dtype=dtype, mode="w+", shape=shape)
    assert isinstance(m, tl.Tensor) and isinstance(m, tnp.memmap)
    assert tuple(m.shape) == shape and m.dtype == tnp.dtype(dtype)
    assert m.filename == os.path.abspath(path) and m.offset == 0 and m.mode == "w+"
    values = (numpy.arange(numpy.prod(shape)).reshape(shape) % 5).astype(dtype)
    m[...] = tnp.asarray(values)
    m.flush()
    numpy.testing.assert_array_equal(numpy.fromfile(path, dtype=dtype).reshape(shape), values)
    theirs = numpy.memmap(path, dtype=dtype, mode="r", shape=shape)
    numpy.testing.assert_array_equal(theirs, values)
    # and the other way: NumPy writes, our mapping reads
    w = numpy.memmap(path, dtype=dtype, mode="r+", shape=shape)
    w[(0,) * len(shape)] = 1
    w.flush()
    numpy.testing.assert_array_equal(host(tnp.memmap(path, dtype=dtype, mode="r",
                                                     shape=shape)), numpy.asarray(w))


def test_modes_offsets_order(path):
    data = numpy.arange(20, dtype=numpy.int32)
    data.tofile(path)
    for mode in ("r", "r+", "c", "readonly", "readwrite", "copyonwrite"):
        ours = tnp.memmap(path, dtype="int32", mode=mode, offset=8, shape=(3, 2), order="F")
        theirs = numpy.memmap(path, dtype="int32", mode=mode, offset=8, shape=(3, 2),
                              order="F")
        numpy.testing.assert_array_equal(host(ours), theirs)
        assert ours.mode == theirs.mode and ours.offset == theirs.offset == 8
    # no shape: the file from the offset on, 1-d
    ours = tnp.memmap(path, dtype="int32", mode="r", offset=12)
    numpy.testing.assert_array_equal(host(ours), numpy.memmap(path, dtype="int32", mode="r",
                                                             offset=12))
    # r+ writes at the offset
    m = tnp.memmap(path, dtype="int32", mode="r+", offset=4, shape=(2,))
    m[:] = tnp.asarray([-1, -2], dtype="int32")
    m.flush()
    numpy.testing.assert_array_equal(numpy.fromfile(path, dtype=numpy.int32)[:4],
                                     [0, -1, -2, 3])


def test_copy_on_write_leaves_the_file(path):
    numpy.arange(6.0).tofile(path)
    c = tnp.memmap(path, dtype="float64", mode="c", shape=(6,))
    c[0] = 99.0
    c.flush()
    assert float(c[0]) == 99.0
    numpy.testing.assert_array_equal(numpy.fromfile(path), numpy.arange(6.0))


def test_read_only_refuses_writes(path):
    numpy.arange(4.0).tofile(path)
    r = tnp.memmap(path, dtype="float64", mode="r")
    with pytest.raises(ValueError, match="read-only"):
        r[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        r.add_(1.0)
    with pytest.raises(ValueError, match="read-only"):
        r[1:].zero_()
    numpy.testing.assert_array_equal(numpy.fromfile(path), numpy.arange(4.0))


def test_errors_are_numpys(path):
    for kwargs, exc in [({"mode": "w+"}, ValueError), ({"mode": "x"}, ValueError),
                        ({"mode": "r", "shape": (100,)}, ValueError)]:
        numpy.arange(4.0).tofile(path)
        with pytest.raises(exc):
            numpy.memmap(path, dtype="float64", **kwargs)
        with pytest.raises(exc):
            tnp.memmap(path, dtype="float64", **kwargs)
    with pytest.raises(FileNotFoundError):
        tnp.memmap(path + ".missing", mode="r")
    with pytest.raises(TypeError):
        tnp.memmap(path, dtype="U3", mode="r")


def test_views_stay_memmaps_results_do_not(path):
    m = tnp.memmap(path, dtype="float32", mode="w+", shape=(4, 3))
    v = m[1:3]
    assert isinstance(v, tnp.memmap) and v.filename == m.filename and v.mode == "w+"
    assert isinstance(m.T, tnp.memmap) and isinstance(m.reshape(12), tnp.memmap)
    v[0, 0] = 5.0  # a view writes the file too
    m.flush()
    assert numpy.fromfile(path, dtype=numpy.float32)[3] == 5.0
    for r in (m + 1, m.sum(), tnp.sin(m), m.clone()):
        assert type(r) is tl.Tensor
    assert not hasattr(m + 1, "filename")


def test_bfloat16(path):
    m = tnp.memmap(path, dtype="bfloat16", mode="w+", shape=(3,))
    m[:] = tl.tensor([1.5, -2.0, 3.0], dtype=tl.bfloat16)
    m.flush()
    back = tnp.memmap(path, dtype=tl.bfloat16, mode="r")
    assert back.dtype == tl.bfloat16 and back.tolist() == [1.5, -2.0, 3.0]


@pytest.mark.parametrize("mmap_mode", ["r", "r+", "c"])
def test_load_mmap_mode(tmp_path, mmap_mode):
    f = str(tmp_path / "x.npy")
    a = numpy.arange(12.0, dtype=numpy.float32).reshape(3, 4)
    numpy.save(f, a)
    ours = tnp.load(f, mmap_mode=mmap_mode)
    theirs = numpy.load(f, mmap_mode=mmap_mode)
    assert isinstance(ours, tnp.memmap) and ours.mode == theirs.mode
    assert ours.offset == theirs.offset and tuple(ours.shape) == theirs.shape
    numpy.testing.assert_array_equal(host(ours), theirs)
    if mmap_mode == "r":
        with pytest.raises(ValueError):
            ours[0, 0] = 1.0
        return
    ours[0, 0] = 42.0
    ours.flush()
    want = 42.0 if mmap_mode == "r+" else 0.0
    assert numpy.load(f)[0, 0] == want
    # without mmap_mode: a plain tensor
    plain = tnp.load(f)
    assert type(plain) is tl.Tensor


def test_from_file(path):
    numpy.arange(5, dtype=numpy.float32).tofile(path)
    t = tl.from_file(path, size=5)
    assert type(t) is tl.Tensor and t.dtype == tl.float32
    numpy.testing.assert_array_equal(t.numpy(), numpy.arange(5, dtype=numpy.float32))
    t[0] = 10.0  # private: the file is unchanged
    assert numpy.fromfile(path, dtype=numpy.float32)[0] == 0.0
    s = tl.from_file(path, shared=True, size=5, dtype=tl.float32)
    s[1] = -1.0
    assert numpy.fromfile(path, dtype=numpy.float32)[1] == -1.0
    i = tl.from_file(path, size=2, dtype=tl.int64)
    numpy.testing.assert_array_equal(i.numpy(), numpy.fromfile(path, dtype=numpy.int64,
                                                               count=2))
    # PyTorch's errors (its words, recorded from torch.from_file)
    with pytest.raises(RuntimeError, match=r"size <20> is smaller than the required "
                                           r"mapping size <24>"):
        tl.from_file(path, size=6, dtype=tl.float32)
    with pytest.raises(RuntimeError, match=r"unable to mmap -4 bytes from file"):
        tl.from_file(path, size=-1)
    assert tl.from_file(path, size=0).numel() == 0
    # shared grows the file to the size asked
    g = path + ".grown"
    z = tl.from_file(g, shared=True, size=4, dtype=tl.int32)
    assert os.path.getsize(g) == 16 and z.tolist() == [0, 0, 0, 0]
    with pytest.raises(RuntimeError, match="unable to open file .* in read-only mode: No "
                                           "such file or directory"):
        tl.from_file(path + ".missing", size=1)
    for name in (tl.ones(2), pathlib.Path(path), None):  # PyTorch's: a str only
        with pytest.raises(TypeError, match=r"from_file\(\): argument 'filename' \(position "
                                            rf"1\) must be str, not {type(name).__name__}"):
            tl.from_file(name)
    assert tl.from_file(path, True, 2).dtype == tl.float32  # positional shared, size
