"""torchlike.utils.safetensors: reading the format (always: files built here
byte by byte, as the specification lays them out) and writing through the
optional `safetensors` package (when it is installed)."""
import json
import struct

import numpy as np
import pytest

import torchlike as tl
from torchlike.utils import safetensors as st

CODES = {tl.bool: "BOOL", tl.uint8: "U8", tl.int8: "I8", tl.int16: "I16", tl.int32: "I32",
         tl.int64: "I64", tl.float16: "F16", tl.bfloat16: "BF16", tl.float32: "F32",
         tl.float64: "F64", tl.complex64: "C64"}


def build_file(tensors, metadata=None, pad_to=8, aligned=True):
    """A .safetensors file per the specification (header padded with spaces;
    largest items first, as the package lays them out, so every tensor is aligned)."""
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    items = tensors.items()
    for name, t in sorted(items, key=lambda kv: -kv[1].itemsize) if aligned else items:
        data = bytes(memoryview(t.reshape(-1).contiguous().view(tl.uint8).cpu())) if t.numel() \
            else b""
        header[name] = {"dtype": CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-(8 + len(text)) % pad_to)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def sample_tensors():
    return {str(d).split(".")[-1]: (tl.arange(6, dtype=tl.float64) - 2).reshape(2, 3).to(d)
            for d in CODES} | {"scalar": tl.tensor(2.5), "empty": tl.empty(0, 4)}


def raw(t):
    return bytes(memoryview(t.reshape(-1).contiguous().view(tl.uint8).cpu())) if t.numel() else b""


def test_load_file_reads_every_dtype_zero_copy(tmp_path):
    tensors = sample_tensors()
    path = tmp_path / "m.safetensors"
    path.write_bytes(build_file(tensors, {"format": "pt"}))
    out = st.load_file(path)
    assert set(out) == set(tensors)
    for name, t in tensors.items():
        assert out[name].dtype == t.dtype and out[name].shape == t.shape
        assert raw(out[name]) == raw(t)
    assert st.safe_metadata(path) == {"format": "pt"}
    # Views of the mapping: a change to the file shows through, our writes stay private.
    data = bytearray(path.read_bytes())
    start = 8 + struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:start])
    off = start + header["float32"]["data_offsets"][0]
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack("<f", 99.0))
    assert out["float32"][0, 0].item() == 99.0
    out["float32"][0, 1] = 5.0
    assert struct.unpack("<f", path.read_bytes()[off + 4:off + 8])[0] == -1.0
    assert st.load(path.read_bytes())["int64"].tolist() == [[-2, -1, 0], [1, 2, 3]]


def test_unaligned_tensors_are_copied(tmp_path):
    tensors = {"a": tl.ones(3, dtype=tl.uint8), "b": tl.arange(3, dtype=tl.float32)}
    path = tmp_path / "u.safetensors"
    path.write_bytes(build_file(tensors, aligned=False))
    out = st.load_file(path)
    assert out["b"].tolist() == [0.0, 1.0, 2.0] and out["b"].data_ptr() % 4 == 0


@pytest.mark.parametrize("mutate, message", [
    (lambda h: h["w"].update(dtype="F8"), "malformed or unsupported"),
    (lambda h: h["w"].update(shape=[5]), "does not match its size"),
    (lambda h: h["w"].update(data_offsets=[0, 400]), "does not match its size"),
    (lambda h: h["w"].update(shape=[-2, -2]), "negative shape"),
    (lambda h: h.update(v={"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}), "overlap"),
    (lambda h: h.update(__metadata__={"k": 1}), "__metadata__"),
])
def test_bad_headers_are_refused(tmp_path, mutate, message):
    good = build_file({"w": tl.arange(4.0)})
    n = struct.unpack("<Q", good[:8])[0]
    header = json.loads(good[8:8 + n])
    mutate(header)
    text = json.dumps(header).encode()
    path = tmp_path / "bad.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + good[8 + n:])
    with pytest.raises(ValueError, match=message):
        st.load_file(path)


def test_truncated_files_are_refused(tmp_path):
    good = build_file({"w": tl.arange(4.0)})
    for cut in (0, 5, 12, len(good) - 1):
        path = tmp_path / f"t{cut}.safetensors"
        path.write_bytes(good[:cut])
        with pytest.raises(ValueError, match="safetensors|does not"):
            st.load_file(path)


def test_save_file_through_the_package(tmp_path):
    import safetensors  # an optional extra of torchlike; make test installs it
    tensors = sample_tensors()
    tensors["strided"] = tl.arange(12.0).reshape(3, 4).t()
    path = tmp_path / "p.safetensors"
    st.save_file(tensors, path, metadata={"who": "torchlike"})
    out = st.load_file(path)
    for name, t in tensors.items():
        assert out[name].dtype == t.dtype and raw(out[name]) == raw(t)
    assert st.safe_metadata(path) == {"who": "torchlike"}
    assert st.load(st.save({"x": tl.ones(2)}))["x"].tolist() == [1.0, 1.0]
    # and the package reads our layout back (NumPy framework)
    with safetensors.safe_open(str(path), framework="numpy") as f:
        np.testing.assert_array_equal(f.get_tensor("float32"), tensors["float32"].cpu().numpy())
    base = tl.zeros(4)
    with pytest.raises(RuntimeError, match="share memory"):
        st.save_file({"a": base, "b": base[1:]}, tmp_path / "s.safetensors")


def test_save_without_the_package_says_how_to_get_it(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_safetensors(name, *args, **kwargs):
        if name == "safetensors":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_safetensors)
    with pytest.raises(ImportError, match="pip install safetensors"):
        st.save_file({"a": tl.ones(1)}, "unused.safetensors")
