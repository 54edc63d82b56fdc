"""Pickling of tensors and torchlike.save/load: sharing, dtypes, the file
layout PyTorch expects, weights-only safety, map_location, mmap, byte order."""
import collections
import copy
import io
import os
import pickle
import pickletools
import struct
import zipfile

import numpy as np
import pytest

import torchlike as tl
from torchlike import serialization

ALL_DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16,
              tl.bfloat16, tl.float32, tl.float64, tl.complex64, tl.complex128]


def raw(t):
    """The tensor's elements as bytes (row-major), for exact comparison."""
    flat = t.detach().reshape(-1).contiguous().cpu()
    return bytes(memoryview(flat.view(tl.uint8))) if flat.numel() else b""


def sample(dtype, shape=(3, 4)):
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 1.5 - 4
    if dtype == tl.bool:
        return tl.tensor(values > 0)
    if dtype.is_complex:
        return tl.tensor(values + 1j * (values * 0.5 + 3), dtype=dtype)
    return tl.tensor(values, dtype=tl.float64).to(dtype)


def same_storage(a, b):
    return a.untyped_storage() is b.untyped_storage()


def roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    tl.save(obj, buf, **kwargs)
    buf.seek(0)
    return tl.load(buf)


# ---- pickle and copy ---------------------------------------------------------------

@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_keeps_views_sharing_storage(protocol):
    base = tl.arange(12.0).reshape(3, 4)
    views = [base, base.t(), base[1], base[:, 2], base[::2, 1::2]]
    out = pickle.loads(pickle.dumps(views, protocol=protocol))
    for v, w in zip(views, out):
        assert (w.shape, w.stride(), w.storage_offset()) == (v.shape, v.stride(),
                                                             v.storage_offset())
        assert raw(w) == raw(v)
        assert same_storage(w, out[0])
    assert not same_storage(out[0], base)
    out[0][1, 2] = 100.0
    assert out[1][2, 1].item() == 100.0 and out[3][1].item() == 100.0


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_pickle_every_dtype(dtype):
    for t in (sample(dtype), sample(dtype)[:, ::2], sample(dtype, ()), sample(dtype, (0, 3))):
        out = pickle.loads(pickle.dumps(t))
        assert out.dtype == dtype and out.shape == t.shape and raw(out) == raw(t)


def test_pickle_keeps_requires_grad():
    leaf = tl.ones(3, requires_grad=True)
    plain = tl.ones(3)
    a, b = pickle.loads(pickle.dumps((leaf, plain)))
    assert a.requires_grad and a.is_leaf and not b.requires_grad


@pytest.mark.host_only  # zero-copy out-of-band buffers of host memory
def test_pickle_protocol5_out_of_band_buffers_are_zero_copy():
    t = tl.arange(1000.0)
    buffers = []
    data = pickle.dumps(t, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 1000
    held = bytearray(buffers[0].raw())
    out = pickle.loads(data, buffers=[held])
    held[0:4] = struct.pack("<f", 42.0)
    assert out[0].item() == 42.0


def test_copy_copy_shares_and_deepcopy_does_not():
    base = tl.arange(6.0).reshape(2, 3)
    shallow = copy.copy(base)
    assert same_storage(shallow, base)
    deep = copy.deepcopy([base, base.t()])
    assert same_storage(deep[0], deep[1]) and not same_storage(deep[0], base)
    deep[0][0, 1] = -1.0
    assert deep[1][1, 0].item() == -1.0 and base[0, 1].item() == 1.0


def test_deepcopy_copies_grad_and_refuses_non_leaves():
    x = tl.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    y = copy.deepcopy(x)
    assert y.requires_grad and y.grad is not None and y.grad.tolist() == [3.0, 3.0]
    assert not same_storage(y.grad, x.grad)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


class Tagged(tl.Tensor):
    """A user subclass: pickles as its class, with its attributes."""


def test_subclass_pickles_as_its_class_with_attributes():
    t = tl.Tensor._make_subclass(Tagged, tl.arange(4.0), True)
    t.note = "hello"
    for out in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert type(out) is Tagged and out.note == "hello" and out.requires_grad
        assert out.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_attributes_of_a_plain_tensor_survive_pickle():
    t = tl.zeros(2)
    t.meta = {"k": 1}
    out = pickle.loads(pickle.dumps(t))
    assert type(out) is tl.Tensor and out.meta == {"k": 1}


class Holder:
    """A module-like object: tensors as attributes, one a view of another."""

    def __init__(self):
        self.weight = tl.arange(6.0).reshape(2, 3)
        self.row = self.weight[0]


def test_objects_holding_tensors_pickle_and_deepcopy():
    for out in (pickle.loads(pickle.dumps(Holder())), copy.deepcopy(Holder())):
        assert same_storage(out.weight, out.row)
        out.weight[0, 0] = 9.0
        assert out.row[0].item() == 9.0


def test_parameters_pickle_when_nn_has_them():
    param_cls = getattr(tl.nn, "Parameter", None)
    if param_cls is None:
        t = tl.ones(2, requires_grad=True)
        assert roundtrip({"p": t})["p"].requires_grad
        return
    p = param_cls(tl.ones(2))
    for out in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), roundtrip(p)):
        assert type(out) is param_cls and out.requires_grad


# ---- save / load -----------------------------------------------------------------

def test_save_load_roundtrip_nested_containers_and_sharing(tmp_path):
    base = tl.arange(24.0).reshape(4, 6)
    obj = {
        "tensors": {str(d): sample(d) for d in ALL_DTYPES},
        "views": [base, base[1], base.t(), base[::2, ::3], tl.ones(3).expand(2, 3)],
        "scalars": (1, 2.5, "s", None, True, b"\x00\xff", 3 + 4j, 2 ** 70),
        "od": collections.OrderedDict(a=tl.tensor(7), b={1, 2}),
        "zero_d": tl.tensor(1.5, dtype=tl.float64),
        "empty": tl.empty(0, 3),
        "grad": tl.ones(2, requires_grad=True),
        "dtype": tl.bfloat16, "device": tl.device("cpu"), "size": tl.Size([2, 3]),
    }
    for target in (tmp_path / "ckpt.pt", str(tmp_path / "ckpt2.pt")):
        for zip_format in (True, False):
            tl.save(obj, target, _use_new_zipfile_serialization=zip_format)
            out = tl.load(target)
            for key, t in obj["tensors"].items():
                assert out["tensors"][key].dtype == t.dtype and raw(out["tensors"][key]) == raw(t)
            views = out["views"]
            for v, w in zip(obj["views"], views):
                assert (w.shape, w.stride(), w.storage_offset()) == (v.shape, v.stride(),
                                                                     v.storage_offset())
                assert raw(w) == raw(v)
            assert all(same_storage(views[0], v) for v in views[1:4])
            assert out["scalars"] == obj["scalars"] and type(out["od"]) is collections.OrderedDict
            assert out["od"]["b"] == {1, 2} and out["od"]["a"].item() == 7
            assert out["zero_d"].shape == () and out["zero_d"].dtype == tl.float64
            assert out["empty"].shape == (0, 3) and out["grad"].requires_grad
            assert (out["dtype"], out["device"], out["size"]) == (tl.bfloat16, tl.device("cpu"),
                                                                  tl.Size([2, 3]))
            assert type(out["size"]) is tl.Size


def test_one_record_per_storage_and_the_records_pytorch_expects(tmp_path):
    base = tl.arange(10.0)
    path = tmp_path / "model.pt"
    tl.save({"a": base, "b": base[2:5], "c": tl.zeros(3, dtype=tl.int64)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names == ["model/data.pkl", "model/.format_version", "model/.storage_alignment",
                         "model/byteorder", "model/data/0", "model/data/1", "model/version",
                         "model/.data/serialization_id"]
        assert zf.read("model/byteorder") == b"little" and zf.read("model/version") == b"3\n"
        assert zf.read("model/.format_version") == b"1"
        assert zf.read("model/data/0") == base.cpu().numpy().tobytes()
        with open(path, "rb") as f:
            for name in ("model/data/0", "model/data/1"):
                info = zf.getinfo(name)
                f.seek(info.header_offset + 26)
                n, m = struct.unpack("<HH", f.read(4))
                assert (info.header_offset + 30 + n + m) % 64 == 0
                assert info.compress_type == zipfile.ZIP_STORED
        globals_, pids = set(), []
        ops = list(pickletools.genops(zf.read("model/data.pkl")))
    for op, arg, _ in ops:
        if op.name == "GLOBAL":
            globals_.add(arg)
    assert globals_ == {"torch._utils _rebuild_tensor_v2", "torch FloatStorage",
                        "torch LongStorage", "collections OrderedDict"}
    assert ops[0][0].name == "PROTO" and ops[0][1] == 2


def test_views_as_different_dtypes_of_one_storage_are_refused():
    x = tl.zeros(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        roundtrip([x, x.view(tl.int32)])


def test_load_from_file_objects_and_bad_arguments(tmp_path):
    buf = io.BytesIO()
    tl.save([tl.ones(2)], buf)
    # PyTorch 2.15's words: bytes and other objects without seek() are
    # refused by their missing attribute, a save target without write() too
    with pytest.raises(AttributeError) as info:
        tl.load(buf.getvalue())
    assert str(info.value) == ("'bytes' object has no attribute 'seek'. You can only torch.load "
                               "from a file that is seekable. Please pre-load the data into a "
                               "buffer like io.BytesIO and try to load from it instead.")
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'seek'"):
        tl.load(3)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        tl.load(io.BytesIO(buf.getvalue()), pickle_module=pickle, weights_only=True)
    assert tl.load(io.BytesIO(buf.getvalue()), pickle_module=pickle,
                   weights_only=False)[0].tolist() == [1.0, 1.0]
    with pytest.raises(AttributeError) as info:
        tl.save(1, 3)
    assert str(info.value) == ("expected 'f' to be string, path, or a file-like object with a "
                               "'write' attribute")
    # a checkpoint directory not made yet
    missing = tmp_path / "no_such_dir" / "ckpt.pt"
    with pytest.raises(RuntimeError) as info:
        tl.save(1, missing)
    assert str(info.value) == f"Parent directory {missing.parent} does not exist."
    tl.save(1, tmp_path / "ckpt.pt")
    assert tl.load(tmp_path / "ckpt.pt") == 1


# ---- weights_only -------------------------------------------------------------------

MARKER = "torchlike_test_weights_only_marker"


class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


class Config:
    def __init__(self, lr):
        self.lr = lr


def test_weights_only_refuses_os_system_and_runs_nothing(tmp_path):
    marker = tmp_path / MARKER
    for zip_format in (True, False):
        buf = io.BytesIO()
        tl.save({"w": tl.ones(2), "x": Evil(marker)}, buf,
                _use_new_zipfile_serialization=zip_format)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError,
                           match=r"GLOBAL (posix|nt|os)\.system was not an allowed global"):
            tl.load(buf)
    assert not marker.exists()


def test_safe_globals_allow_what_the_user_trusts():
    buf = io.BytesIO()
    tl.save({"cfg": Config(0.5), "w": tl.ones(1)}, buf)
    data = buf.getvalue()
    name = f"{__name__}.Config"
    with pytest.raises(pickle.UnpicklingError, match=name.replace(".", r"\.")):
        tl.load(io.BytesIO(data))
    assert tl.load(io.BytesIO(data), weights_only=False)["cfg"].lr == 0.5
    with serialization.safe_globals([Config]):
        assert Config in serialization.get_safe_globals()
        assert tl.load(io.BytesIO(data))["cfg"].lr == 0.5
    assert Config not in serialization.get_safe_globals()
    serialization.add_safe_globals([(Config, name)])
    try:
        assert tl.load(io.BytesIO(data))["cfg"].lr == 0.5
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(TypeError):
        serialization.add_safe_globals(Config)


# ---- map_location -------------------------------------------------------------------

@pytest.fixture
def cuda_tagged(monkeypatch):
    """A checkpoint whose storages say they were on cuda:0."""
    monkeypatch.setattr(serialization, "_location_tag", lambda dev: "cuda:0")
    buf = io.BytesIO()
    tl.save({"w": tl.arange(3.0)}, buf)
    monkeypatch.undo()
    return buf.getvalue()


def test_map_location_forms(cuda_tagged):
    if not tl.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location=torchlike.device\\('cpu'\\)"):
            tl.load(io.BytesIO(cuda_tagged))
    seen = []

    def to_cpu(storage, location):
        seen.append(location)
        return storage

    for where in ("cpu", b"cpu", tl.device("cpu"), {"cuda:0": "cpu"}, to_cpu):
        out = tl.load(io.BytesIO(cuda_tagged), map_location=where)
        assert out["w"].tolist() == [0.0, 1.0, 2.0] and out["w"].device == tl.device("cpu")
    assert seen == ["cuda:0"]
    with pytest.raises(TypeError, match="map_location"):
        tl.load(io.BytesIO(cuda_tagged), map_location=3)
    with pytest.raises(TypeError, match="expected a storage"):
        tl.load(io.BytesIO(cuda_tagged), map_location=lambda s, loc: "cpu")


# ---- mmap -----------------------------------------------------------------------------

@pytest.mark.host_only  # host views of a mapped file
def test_mmap_storages_are_views_of_the_file(tmp_path):
    path = tmp_path / "big.pt"
    tl.save({"w": tl.arange(1000.0), "v": tl.arange(10, dtype=tl.int64)}, path)
    out = tl.load(path, mmap=True)
    assert out["w"][999].item() == 999.0
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("big/data/0")
    with open(path, "rb") as f:
        f.seek(info.header_offset + 26)
        n, m = struct.unpack("<HH", f.read(4))
    # The mapping is private: another writer's change to the file shows through
    # (the pages were never copied) ...
    with open(path, "r+b") as f:
        f.seek(info.header_offset + 30 + n + m)
        f.write(struct.pack("<f", -5.0))
    assert out["w"][0].item() == -5.0
    # ... while our writes stay in memory (copy-on-write) and never reach the file.
    out["w"][1] = 77.0
    with open(path, "rb") as f:
        f.seek(info.header_offset + 30 + n + m + 4)
        assert struct.unpack("<f", f.read(4))[0] == 1.0
    with pytest.raises(RuntimeError, match="mmap"):
        buf = io.BytesIO()
        tl.save([1], buf, _use_new_zipfile_serialization=False)
        buf.seek(0)
        tl.load(buf, mmap=True)


# ---- byte order --------------------------------------------------------------------------

def test_default_load_endianness_applies_without_a_byteorder_record():
    t = tl.tensor([1.0, 2.0], dtype=tl.float32)
    buf = io.BytesIO()
    tl.save(t, buf, _disable_byteorder_record=True)
    swapped = np.array([1.0, 2.0], dtype="<f4").byteswap().view("<f4").tolist()
    assert serialization.get_default_load_endianness() is None
    try:
        for endian, want in ((None, [1.0, 2.0]), (serialization.LoadEndianness.LITTLE, [1.0, 2.0]),
                             (serialization.LoadEndianness.NATIVE, [1.0, 2.0]),
                             (serialization.LoadEndianness.BIG, swapped)):
            serialization.set_default_load_endianness(endian)
            assert serialization.get_default_load_endianness() is endian
            assert tl.load(io.BytesIO(buf.getvalue())).tolist() == want
        with pytest.raises(TypeError):
            serialization.set_default_load_endianness("big")
    finally:
        serialization.set_default_load_endianness(None)


# ---- bad files ---------------------------------------------------------------------------

def test_bad_files_raise_clear_errors(tmp_path):
    good = io.BytesIO()
    tl.save({"w": tl.arange(100.0)}, good)
    data = good.getvalue()
    with pytest.raises(EOFError):
        tl.load(io.BytesIO(b""))
    with pytest.raises(RuntimeError, match="neither a zip archive nor a pickle"):
        tl.load(io.BytesIO(b"hello world"))
    for cut in (10, len(data) // 2, len(data) - 10):
        with pytest.raises(RuntimeError, match="not a valid checkpoint"):
            tl.load(io.BytesIO(data[:cut]))
    # A record shorter than data.pkl says: refused before any tensor is built.
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info)
            zout.writestr(info.filename, body[:8] if info.filename.endswith("data/0") else body)
    with pytest.raises(RuntimeError, match="holds 8 bytes.*400 bytes"):
        tl.load(io.BytesIO(out.getvalue()))
    legacy = io.BytesIO()
    tl.save({"w": tl.arange(100.0)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="truncated"):
        tl.load(io.BytesIO(legacy.getvalue()[:-20]))


def test_a_view_reaching_outside_its_storage_is_refused():
    storage = serialization.UntypedStorage(16)
    typed = serialization.TypedStorage(storage, tl.float32)
    with pytest.raises(RuntimeError, match="reaches element 4 of a float32 storage of only 4"):
        serialization._rebuild_tensor_v2(typed, 1, (2, 2), (2, 1))
    with pytest.raises(RuntimeError, match="negative"):
        serialization._rebuild_tensor_v2(typed, 0, (2,), (-1,))
    assert serialization._rebuild_tensor_v2(typed, 0, (2, 2), (2, 1)).shape == (2, 2)


def test_zip64_records_and_directory_read_back(monkeypatch):
    # Lower the zip64 threshold so a small checkpoint takes every zip64 path.
    monkeypatch.setattr(serialization._ZipWriter, "LIMIT", 64)
    obj = {"w": tl.arange(100.0), "v": tl.arange(3, dtype=tl.int16)}
    buf = io.BytesIO()
    tl.save(obj, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert zf.testzip() is None  # every CRC checks out
        assert zf.read("archive/data/0") == obj["w"].cpu().numpy().tobytes()
    buf.seek(0)
    out = tl.load(buf)
    assert out["w"].tolist() == obj["w"].tolist() and out["v"].tolist() == [0, 1, 2]


def test_crc32_options_and_damaged_pickles():
    assert serialization.get_crc32_options() is True
    obj = {"w": tl.arange(4.0)}
    serialization.set_crc32_options(False)
    try:
        buf = io.BytesIO()
        tl.save(obj, buf)
    finally:
        serialization.set_crc32_options(True)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert all(info.CRC == 0 for info in zf.infolist())
    buf.seek(0)
    assert tl.load(buf)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    # With CRCs written, a flipped byte in data.pkl is caught before unpickling.
    good = io.BytesIO()
    tl.save(obj, good)
    data = bytearray(good.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("archive/data.pkl")
    data[info.header_offset + 30 + len("archive/data.pkl") + 5] ^= 0xFF
    with pytest.raises(RuntimeError, match="data.pkl fails its CRC-32 check"):
        tl.load(io.BytesIO(bytes(data)))


def test_hostile_length_prefix_is_refused_before_allocating():
    """BYTEARRAY8 with an absurd length: an UnpicklingError, not a huge allocation."""
    import pickle
    import struct
    from torchlike.serialization import _WeightsUnpickler
    data = b"\x80\x05" + pickle.BYTEARRAY8 + struct.pack("<Q", 0x0A68637260000000) + b"xy."
    with pytest.raises(pickle.UnpicklingError, match="BYTEARRAY8"):
        _WeightsUnpickler(io.BytesIO(data), lambda pid: None).load()
    ok = pickle.dumps(bytearray(b"abc"), protocol=5)
    assert _WeightsUnpickler(io.BytesIO(ok), lambda pid: None).load() == bytearray(b"abc")


def test_storage_classes_under_pytorchs_module_path():
    """Code that names torch.storage.UntypedStorage (type hints, isinstance
    checks, pickled class paths) finds the storage classes there."""
    import torchlike.storage
    t = torchlike.arange(4.0)
    assert torchlike.storage.UntypedStorage is torchlike.UntypedStorage
    assert torchlike.storage.TypedStorage is torchlike.TypedStorage
    assert isinstance(t.untyped_storage(), torchlike.storage.UntypedStorage)
    assert torchlike.storage.UntypedStorage.__module__.startswith("torchlike")


def _checkpoint_of(pickle_bytes):
    """A zip checkpoint whose data.pkl is these bytes (and no storages)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle_bytes)
    buf.seek(0)
    return buf


def test_weights_only_build_cannot_rewrite_allowed_classes_or_functions():
    """BUILD sets attributes on the object under it; an allowed global is that
    object itself, so a hostile file could replace Tensor.__repr__ (or a rebuild
    function's attributes) for the whole process.  Only instances build."""
    repr_before = tl.Tensor.__repr__
    on_class = (b"\x80\x02ctorch\nTensor\nN}X\x08\x00\x00\x00__repr__"
                b"ccollections\nCounter\ns\x86b.")
    with pytest.raises(pickle.UnpicklingError, match="BUILD .* not of the class Tensor"):
        tl.load(_checkpoint_of(on_class))
    assert tl.Tensor.__repr__ is repr_before
    on_function = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n}X\x0a\x00\x00\x00__module__"
                   b"X\x01\x00\x00\x00xsb.")
    with pytest.raises(pickle.UnpicklingError, match="BUILD .* not of a function"):
        tl.load(_checkpoint_of(on_function))
    assert serialization._rebuild_tensor_v2.__module__ == "torchlike.serialization"
    # what save writes still loads: an OrderedDict's attributes, a subclass's state
    state = collections.OrderedDict(w=tl.ones(2))
    state._metadata = {"": {"version": 1}}
    buf = io.BytesIO()
    tl.save(state, buf)
    buf.seek(0)
    assert tl.load(buf)._metadata == {"": {"version": 1}}


@pytest.mark.parametrize("data, message", [
    (b"\x80\x02N", "truncated"),                # no STOP
    (b"X\x05\x00\x00\x00ab", "truncated"),      # a string shorter than its length
    (b"J\x01", "truncated"),                    # a BININT of one byte (struct.error)
    (b"K", "truncated|malformed"),              # BININT1 with no byte
    (b"0.", "malformed"),                       # POP of an empty stack
    (b"b.", "malformed"),                       # BUILD of an empty stack
    (b"t.", "malformed"),                       # TUPLE without a MARK
])
def test_malformed_pickles_are_unpickling_errors(data, message):
    """The pure-Python unpickler's bare EOFError, struct.error and stack
    IndexError become an UnpicklingError saying what is wrong."""
    with pytest.raises(pickle.UnpicklingError, match=f"not a valid checkpoint: .*({message})"):
        tl.load(_checkpoint_of(data))


@pytest.mark.parametrize("compress", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_storage_record_whose_directory_size_lies_is_refused(compress):
    """data.pkl and the central directory both say data/0 holds 2**30 bytes,
    the record holds 16: a deflated record's short output reached a
    memoryview assignment ('lvalue and rvalue have different structures'), a
    stored one was allocated at the stated size before being found short."""
    buf = io.BytesIO()
    tl.save({"w": tl.arange(4.0)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        pkl = zf.read("archive/data.pkl")
    numel = 2 ** 28  # float32 elements
    assert pkl.count(b"K\x04t") == 1  # the storage id's element count, BININT1 4
    pkl = pkl.replace(b"K\x04t", b"J" + struct.pack("<i", numel) + b"t")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr(zipfile.ZipInfo("archive/data/0"), tl.arange(4.0).cpu().numpy().tobytes(),
                    compress_type=compress)
    raw = bytearray(out.getvalue())
    entry = raw.rfind(b"archive/data/0") - 46  # its central directory header
    assert raw[entry:entry + 4] == b"PK\x01\x02"
    raw[entry + 24:entry + 28] = struct.pack("<I", numel * 4)  # uncompressed size
    if compress == zipfile.ZIP_STORED:
        raw[entry + 20:entry + 24] = struct.pack("<I", numel * 4)  # compressed size
    message = "runs past the end of the file" if compress == zipfile.ZIP_STORED else \
        "decompresses to 16 bytes, but its directory entry and data.pkl say 1073741824"
    with pytest.raises(RuntimeError, match=f"record data/0 .*{message}"):
        tl.load(io.BytesIO(bytes(raw)))


def test_a_legacy_storage_without_its_data_record_is_refused():
    """The legacy format lists the storages whose bytes follow; one the
    pickle uses but the list leaves out was never filled, and its tensors
    showed whatever memory the allocation held."""
    buf = io.BytesIO()
    tl.save({"w": tl.arange(4.0)}, buf, _use_new_zipfile_serialization=False)
    good = buf.getvalue()

    class Skim(pickle.Unpickler):  # walks the object pickle without building anything
        def persistent_load(self, pid):
            return None

        def find_class(self, module, name):
            return lambda *args, **kwargs: None

    f = io.BytesIO(good)
    for _ in range(3):  # magic number, protocol, system info
        pickle.load(f)
    Skim(f).load()
    start = f.tell()
    assert pickle.load(f) == ["0"]
    bad = good[:start] + pickle.dumps([], protocol=2) + good[f.tell():]
    with pytest.raises(RuntimeError, match="storage 0 is used by the pickle but the file holds "
                                           "no data for it"):
        tl.load(io.BytesIO(bad))
    assert tl.load(io.BytesIO(good))["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
