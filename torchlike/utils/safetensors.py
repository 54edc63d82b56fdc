"""torchlike.utils.safetensors: tensors to and from .safetensors files.

Writing goes through the ``safetensors`` package (an optional extra:
``pip install safetensors``), which lays the file out.  Reading needs nothing
extra: a safetensors file is an 8-byte little-endian header length, a JSON
header (``name -> {dtype, shape, data_offsets}`` plus ``__metadata__``), then
the bytes, so ``load_file`` maps the file and every tensor is a view of the
mapping (zero-copy, copy-on-write), after checking that each tensor's byte
range fits its shape and dtype and lies inside the file, without overlaps."""
import json
import mmap
import os
import struct

from .. import _C

__all__ = ["save_file", "save", "load_file", "load", "safe_metadata"]

# dtype -> the header's code (the safetensors specification)
_CODES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32",
          "int64": "I64", "float16": "F16", "bfloat16": "BF16", "float32": "F32",
          "float64": "F64", "complex64": "C64", "uint16": "U16", "uint32": "U32", "uint64": "U64"}
_DTYPES = {code: getattr(_C, name) for name, code in _CODES.items()}
_MAX_HEADER = 100 * 1024 * 1024  # the format's own limit on the JSON header


def _package():
    try:
        import safetensors
    except ImportError:
        raise ImportError("torchlike.utils.safetensors.save_file needs the optional "
                          "`safetensors` package: pip install safetensors") from None
    return safetensors


def _specs(tensors, package):
    """The package's description of each tensor, plus what must stay alive."""
    if not isinstance(tensors, dict):
        raise TypeError(f"expected a dict of name -> Tensor, got {type(tensors).__name__}")
    seen, specs, keep = {}, {}, []
    for name, t in tensors.items():
        if not isinstance(name, str) or not isinstance(t, _C.Tensor):
            raise TypeError(f"expected a dict of str -> Tensor, got {name!r}: "
                            f"{type(t).__name__}")
        if t.dtype.name not in _CODES:
            raise TypeError(f"safetensors has no code for {t.dtype} (tensor {name!r})")
        sid = _C._storage_id(t)
        if sid in seen and t.numel():
            raise RuntimeError(f"tensors {seen[sid]!r} and {name!r} share memory: safetensors "
                               f"would store it twice; save a clone() of one of them")
        seen[sid] = name
        host = t.detach().cpu().contiguous()
        keep.append(host)
        data = memoryview(host.reshape(-1).view(_C.uint8)) if host.numel() else b""
        if hasattr(package, "TensorSpec"):  # safetensors >= 0.8: a pointer and a length
            specs[name] = package.TensorSpec(dtype=t.dtype.name, shape=list(t.shape),
                                             data_ptr=host.data_ptr() if host.numel() else 0,
                                             data_len=host.nbytes)
        else:
            specs[name] = {"dtype": _CODES[t.dtype.name], "shape": list(t.shape),
                           "data": bytes(data)}
    return specs, keep


def save_file(tensors, filename, metadata=None):
    """Write ``{name: tensor}`` to a .safetensors file (through the package)."""
    package = _package()
    specs, keep = _specs(tensors, package)
    package.serialize_file(specs, os.fspath(filename), metadata=metadata)
    del keep


def save(tensors, metadata=None):
    """The .safetensors bytes of ``{name: tensor}`` (through the package)."""
    package = _package()
    specs, keep = _specs(tensors, package)
    out = bytes(package.serialize(specs, metadata=metadata))
    del keep
    return out


def _parse(buffer, source, size=None):
    """(metadata, {name: (dtype, shape, start, end)}) with absolute byte offsets;
    `size` is the file's length when `buffer` holds only its start."""
    size = len(buffer) if size is None else size
    if size < 8:
        raise ValueError(f"{source}: not a safetensors file ({size} bytes, the header length "
                         f"alone takes 8)")
    (n,) = struct.unpack("<Q", buffer[:8])
    if n > _MAX_HEADER or 8 + n > len(buffer) or 8 + n > size:
        raise ValueError(f"{source}: header length {n} does not fit the file of {size} bytes")
    try:
        header = json.loads(bytes(buffer[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{source}: the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{source}: the header must be a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise ValueError(f"{source}: __metadata__ must map strings to strings")
    entries, ranges = {}, []
    base = 8 + n
    for name, info in header.items():
        try:
            dtype = _DTYPES[info["dtype"]]
            shape = [int(s) for s in info["shape"]]
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{source}: tensor {name!r} has a malformed or unsupported entry "
                             f"{info!r:.200}") from None
        numel = 1
        for s in shape:
            if s < 0:
                raise ValueError(f"{source}: tensor {name!r} has negative shape {shape}")
            numel *= s
        if not 0 <= begin <= end or base + end > size or end - begin != numel * dtype.itemsize:
            raise ValueError(f"{source}: tensor {name!r} ({dtype.name}, shape {shape}) has "
                             f"byte range [{begin}, {end}), which does not match its size or "
                             f"lies outside the {size - base} data bytes")
        entries[name] = (dtype, shape, base + begin, base + end)
        ranges.append((begin, end, name))
    ranges.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(ranges, ranges[1:]):
        if b1 < e0:
            raise ValueError(f"{source}: tensors {n0!r} and {n1!r} overlap")
    return metadata, entries


def _build(buffer, entries, device):
    out = {}
    for name, (dtype, shape, start, end) in entries.items():
        if end == start:
            t = _C.empty(shape, dtype=dtype, device="cpu")
        elif start % dtype.itemsize == 0:  # aligned: a view of the mapping
            t = _C.frombuffer(buffer, dtype=dtype, count=(end - start) // dtype.itemsize,
                              offset=start).reshape(shape)
        else:
            raw = _C.frombuffer(buffer, dtype=_C.uint8, count=end - start, offset=start)
            t = raw.clone().view(dtype).reshape(shape)
        out[name] = t if str(device) == "cpu" else t.to(device)
    return out


def load_file(filename, device="cpu"):
    """``{name: tensor}`` from a .safetensors file; on the CPU each tensor is a
    copy-on-write view of the mapped file."""
    with open(filename, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise ValueError(f"{os.fspath(filename)}: not a safetensors file (empty)")
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    _, entries = _parse(memoryview(mapped), os.fspath(filename))
    return _build(mapped, entries, device)


def load(data, device="cpu"):
    """``{name: tensor}`` from .safetensors bytes (the tensors copy them)."""
    buffer = bytearray(data)
    _, entries = _parse(memoryview(buffer), "<bytes>")
    return _build(buffer, entries, device)


def safe_metadata(filename):
    """The ``__metadata__`` of a .safetensors file (None when absent)."""
    with open(filename, "rb") as f:
        head = f.read(8)
        (n,) = struct.unpack("<Q", head) if len(head) == 8 else (0,)
        if len(head) != 8 or n > _MAX_HEADER:
            raise ValueError(f"{os.fspath(filename)}: not a safetensors file")
        size = os.fstat(f.fileno()).st_size
        return _parse(head + f.read(n), os.fspath(filename), size)[0]
