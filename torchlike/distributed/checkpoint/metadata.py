"""What a distributed checkpoint holds: its Metadata, and the JSON form of
it written to ``<dir>/.metadata``.

``Metadata.state_dict_metadata`` maps each flattened key (``model.0.weight``,
``optim.state.0.weight.exp_avg``, ``extra.epoch``) to a
TensorStorageMetadata (dtype, global size, the chunks the ranks wrote) or a
BytesStorageMetadata (any other value, written with torchlike.save).
``storage_data`` maps each written item (MetadataIndex: key, chunk offsets)
to the file, offset and length of its bytes; ``planner_data`` maps each key
to its path in the nested state dict.

Reading the JSON back checks every field (types, sizes, dtypes, chunks
inside their tensor, file names without directories), so a damaged or
hostile file raises ValueError naming what is wrong; nothing in it is
executed."""
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ... import _C

__all__ = ["ChunkStorageMetadata", "TensorProperties", "TensorStorageMetadata",
           "BytesStorageMetadata", "MetadataIndex", "StorageMeta", "Metadata"]

FORMAT = "torchlike-dcp"
VERSION = 1
# dtype names a checkpoint may hold, with their sizes in bytes
DTYPES = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
          "uint16": 2, "uint32": 4, "uint64": 8, "float16": 2, "bfloat16": 2,
          "float32": 4, "float64": 8, "complex64": 8, "complex128": 16}


def dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def dtype_of(name):
    if name not in DTYPES:
        raise ValueError(f"not a valid distributed checkpoint: unknown dtype {name!r}")
    return getattr(_C, name)


@dataclass
class ChunkStorageMetadata:
    """One chunk of a tensor: where it starts and how big it is."""
    offsets: Any
    sizes: Any


@dataclass
class TensorProperties:
    dtype: Any = None
    requires_grad: bool = False


@dataclass
class TensorStorageMetadata:
    properties: TensorProperties
    size: Any
    chunks: List[ChunkStorageMetadata]


@dataclass
class BytesStorageMetadata:
    """A value that is not a tensor."""


@dataclass(frozen=True)
class MetadataIndex:
    """An item of a checkpoint: its key and, for a tensor, the offsets of
    its chunk (``index`` is a hint, as PyTorch's, and not compared)."""
    fqn: str
    offset: Optional[tuple] = None
    index: Optional[int] = field(default=None, hash=False, compare=False)

    def __post_init__(self):
        if self.offset is not None:
            object.__setattr__(self, "offset", tuple(int(o) for o in self.offset))


@dataclass
class StorageMeta:
    checkpoint_id: Any = None
    save_id: Optional[str] = None
    load_id: Optional[str] = None


@dataclass
class _StorageInfo:
    """Where an item's bytes are: a file of the checkpoint, offset, length."""
    relative_path: str
    offset: int
    length: int


def _overlapping(chunks):
    """Two chunks sharing an element, or None.  (Overlapping chunks would let
    a load count a tensor's elements whole while leaving some unread.)  Sorted
    by first offset, a chunk is compared only with the earlier ones whose
    first-dimension range reaches it, so dim-0 pieces cost a sort."""
    live = sorted((c for c in chunks if len(c.sizes) and all(c.sizes)),
                  key=lambda c: tuple(c.offsets))
    active = []
    for c in live:
        active = [a for a in active if a.offsets[0] + a.sizes[0] > c.offsets[0]]
        for a in active:
            if all(ao < co + cn and co < ao + an
                   for ao, an, co, cn in zip(a.offsets, a.sizes, c.offsets, c.sizes)):
                return a, c
        active.append(c)
    return None


@dataclass
class Metadata:
    state_dict_metadata: Dict[str, Any]
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: Optional[StorageMeta] = None

    # ---- JSON ----------------------------------------------------------------------
    def to_json(self):
        md = {}
        for fqn, m in self.state_dict_metadata.items():
            if isinstance(m, TensorStorageMetadata):
                md[fqn] = {"type": "tensor", "dtype": dtype_name(m.properties.dtype),
                           "requires_grad": bool(m.properties.requires_grad),
                           "size": [int(s) for s in m.size],
                           "chunks": [{"offsets": [int(o) for o in c.offsets],
                                       "sizes": [int(s) for s in c.sizes]} for c in m.chunks]}
            else:
                md[fqn] = {"type": "bytes"}
        storage = [{"fqn": idx.fqn,
                    "offset": None if idx.offset is None else list(idx.offset),
                    "path": info.relative_path, "start": int(info.offset),
                    "length": int(info.length)}
                   for idx, info in (self.storage_data or {}).items()]
        planner = None if self.planner_data is None else \
            {k: list(v) for k, v in self.planner_data.items()}
        return json.dumps({"format": FORMAT, "version": VERSION, "byteorder": "little",
                           "state_dict_metadata": md, "storage_data": storage,
                           "planner_data": planner})

    @classmethod
    def from_json(cls, text):
        """Parse and check ``text``; ValueError("not a valid distributed
        checkpoint: ...") on anything unexpected."""
        def bad(why):
            return ValueError(f"not a valid distributed checkpoint: {why}")
        try:
            doc = json.loads(text)
        except (ValueError, UnicodeDecodeError) as e:
            raise bad(f"the metadata is not JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise bad("the metadata file is not a torchlike checkpoint's")
        if doc.get("version") != VERSION:
            raise bad(f"format version {doc.get('version')!r} (this torchlike reads {VERSION})")
        if doc.get("byteorder") != "little":
            raise bad(f"byte order {doc.get('byteorder')!r}")

        def ints(v, what):
            if not isinstance(v, list) or not all(type(x) is int and x >= 0 for x in v):
                raise bad(f"{what} must be a list of non-negative integers, got {v!r}")
            return tuple(v)

        md = doc.get("state_dict_metadata")
        if not isinstance(md, dict):
            raise bad("no state_dict_metadata")
        out = {}
        for fqn, m in md.items():
            if not isinstance(m, dict) or m.get("type") not in ("tensor", "bytes"):
                raise bad(f"entry {fqn!r} is neither a tensor nor bytes")
            if m["type"] == "bytes":
                out[fqn] = BytesStorageMetadata()
                continue
            size = ints(m.get("size"), f"the size of {fqn!r}")
            chunks = []
            for c in m.get("chunks") if isinstance(m.get("chunks"), list) else [None]:
                if not isinstance(c, dict):
                    raise bad(f"a chunk of {fqn!r} is malformed")
                off = ints(c.get("offsets"), f"a chunk offset of {fqn!r}")
                sz = ints(c.get("sizes"), f"a chunk size of {fqn!r}")
                if len(off) != len(size) or len(sz) != len(size) or \
                        any(o + s > g for o, s, g in zip(off, sz, size)):
                    raise bad(f"a chunk of {fqn!r} (offsets {list(off)}, sizes {list(sz)}) "
                              f"lies outside its tensor of size {list(size)}")
                chunks.append(ChunkStorageMetadata(_C.Size(off), _C.Size(sz)))
            overlap = _overlapping(chunks)
            if overlap:
                a, b = overlap
                raise bad(f"chunks of {fqn!r} overlap: offsets {list(a.offsets)} sizes "
                          f"{list(a.sizes)} and offsets {list(b.offsets)} sizes {list(b.sizes)}")
            props = TensorProperties(dtype_of(m.get("dtype")), bool(m.get("requires_grad")))
            out[fqn] = TensorStorageMetadata(props, _C.Size(size), chunks)
        storage = {}
        entries = doc.get("storage_data")
        if not isinstance(entries, list):
            raise bad("no storage_data")
        for e in entries:
            if not isinstance(e, dict) or not isinstance(e.get("fqn"), str):
                raise bad("a storage entry is malformed")
            path = e.get("path")
            # only plain file names in the checkpoint's own directory
            if not isinstance(path, str) or not path or "/" in path or "\\" in path or \
                    path in (".", "..") or "\x00" in path:
                raise bad(f"storage file name {path!r}")
            start, length = e.get("start"), e.get("length")
            if type(start) is not int or type(length) is not int or start < 0 or length < 0:
                raise bad(f"the extent of {e['fqn']!r} ({start!r}, {length!r})")
            off = e.get("offset")
            off = None if off is None else ints(off, f"the storage offset of {e['fqn']!r}")
            storage[MetadataIndex(e["fqn"], off)] = _StorageInfo(path, start, length)
        # every chunk has a record of exactly its size in bytes (so nothing
        # is allocated from a size the data files do not back)
        for fqn, m in out.items():
            if not isinstance(m, TensorStorageMetadata):
                continue
            for c in m.chunks:
                info = storage.get(MetadataIndex(fqn, tuple(c.offsets)))
                if info is None:
                    raise bad(f"no data recorded for {fqn!r} at offsets {list(c.offsets)}")
                n = 1
                for x in c.sizes:
                    n *= x
                need = n * m.properties.dtype.itemsize
                if info.length != need:
                    raise bad(f"the record of {fqn!r} has {info.length} bytes, its chunk of "
                              f"sizes {list(c.sizes)} ({m.properties.dtype}) needs {need}")
        planner = doc.get("planner_data")
        if planner is None:
            return cls(out, None, storage)
        # a path is dict keys and list indices
        if not isinstance(planner, dict) or not all(
                isinstance(v, list) and v and all(isinstance(p, str) or type(p) is int
                                                  for p in v)
                for v in planner.values()):
            raise bad("planner_data is malformed")
        return cls(out, {k: tuple(v) for k, v in planner.items()}, storage)
