"""A checkpoint as a directory: ``.metadata`` (JSON, written last by the
coordinator, see metadata.py) and one data file per rank,
``__<rank>_0.distcp``:

    magic (8 bytes: b"TLDCP01\\n") | record | record | ...

Each record is one item's bytes: a tensor chunk's elements in C order,
little-endian, or a torchlike.save archive of a non-tensor value.  Where
each record starts and how long it is lives in the metadata, never in the
data file.  Reading checks the magic, that every record lies inside its
file and that its length is the chunk's size in bytes."""
import io
import os
import uuid
from dataclasses import replace

from ... import _C
from ...futures import Future
from .metadata import Metadata, StorageMeta, TensorStorageMetadata, _StorageInfo
from .planner import LoadItemType
from .storage import StorageReader, StorageWriter, WriteResult

__all__ = ["FileSystemWriter", "FileSystemReader"]

MAGIC = b"TLDCP01\n"
METADATA = ".metadata"


def _done(value):
    fut = Future()
    fut.set_result(value)
    return fut


def _tensor_bytes(t):
    """A buffer over ``t``'s elements in C order (a copy only if needed)."""
    t = t.detach().contiguous()
    if t.device.type != "cpu":
        t = t.cpu()
    return t.reshape(-1).view(_C.uint8).numpy()


class _Directory:
    """A checkpoint directory's storage: its path is the checkpoint id, and
    reset() may move it to another; _fresh() clears what one save or load
    kept."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._fresh()

    @property
    def checkpoint_id(self):
        return self.path

    def reset(self, checkpoint_id=None):
        if checkpoint_id is not None:
            self.path = os.fspath(checkpoint_id)
        self._fresh()


class FileSystemWriter(_Directory, StorageWriter):
    """``FileSystemWriter(path, single_file_per_rank=True, sync_files=True,
    thread_count=1, per_thread_copy_ahead=10_000_000,
    cache_staged_state_dict=False, overwrite=True)``: each rank writes one
    file (``single_file_per_rank``, ``thread_count`` and the copy-ahead
    size are accepted; there is always one file per rank, written by the
    calling thread).  ``sync_files`` fsyncs them; ``overwrite=False``
    refuses a directory that already holds a checkpoint."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False,
                 overwrite=True, **kwargs):
        _Directory.__init__(self, path)
        self.sync_files = sync_files
        self.overwrite = overwrite

    def _fresh(self):
        self.save_id = uuid.uuid4().hex

    def set_up_storage_writer(self, is_coordinator, *args, **kwargs):
        self.is_coordinator = is_coordinator

    def storage_meta(self):
        return StorageMeta(checkpoint_id=self.path, save_id=self.save_id)

    def prepare_local_plan(self, plan):
        os.makedirs(self.path, exist_ok=True)
        if not self.overwrite and os.path.exists(os.path.join(self.path, METADATA)):
            raise RuntimeError(f"Checkpoint already exists at {self.path} and overwrite=False")
        return plan

    def prepare_global_plan(self, plans):
        return [replace(p, storage_data={"prefix": f"__{i}_"}) for i, p in enumerate(plans)]

    def write_data(self, plan, planner):
        """Write this rank's items; a Future of their WriteResults."""
        name = (plan.storage_data or {}).get("prefix", "__0_") + "0.distcp"
        path = os.path.join(self.path, name)
        results = []
        with open(path + ".tmp", "wb") as f:
            f.write(MAGIC)
            for item in plan.items:
                data = planner.resolve_data(item)
                buf = data.getbuffer() if isinstance(data, io.BytesIO) else _tensor_bytes(data)
                start = f.tell()
                f.write(buf)
                n = f.tell() - start
                results.append(WriteResult(item.index, n, _StorageInfo(name, start, n)))
            f.flush()
            if self.sync_files:
                os.fsync(f.fileno())
        os.replace(path + ".tmp", path)
        return _done(results)

    def finish(self, metadata, results):
        """Record where every item went and write ``.metadata`` (atomically)."""
        metadata.storage_data = {r.index: r.storage_data for rs in results for r in rs}
        path = os.path.join(self.path, METADATA)
        with open(path + ".tmp", "w") as f:
            f.write(metadata.to_json())
            f.flush()
            if self.sync_files:
                os.fsync(f.fileno())
        os.replace(path + ".tmp", path)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return isinstance(checkpoint_id, (str, os.PathLike))


class FileSystemReader(_Directory, StorageReader):
    """``FileSystemReader(path)``: reads what FileSystemWriter wrote."""

    def _fresh(self):
        self.storage_data = {}
        self._sizes = {}

    def read_metadata(self, *args, **kwargs):
        path = os.path.join(self.path, METADATA)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no distributed checkpoint at {self.path!r}: it has no "
                                    f"{METADATA} file")
        with open(path, "rb") as f:
            text = f.read()
        md = Metadata.from_json(text)
        md.storage_meta = StorageMeta(checkpoint_id=self.path)
        return md

    def set_up_storage_reader(self, metadata, is_coordinator, *args, **kwargs):
        self.metadata = metadata
        self.storage_data = metadata.storage_data or {}
        self._sizes = {}  # fqn -> {offsets: sizes}, made when a chunk of it is first read

    def prepare_local_plan(self, plan):
        return plan

    def prepare_global_plan(self, plans):
        return plans

    def _record(self, files, index):
        info = self.storage_data.get(index)
        if info is None:
            raise ValueError(f"not a valid distributed checkpoint: no data recorded for "
                             f"{index.fqn!r} at offsets {index.offset}")
        f = files.get(info.relative_path)
        if f is None:
            f = open(os.path.join(self.path, info.relative_path), "rb")
            files[info.relative_path] = f
            if f.read(len(MAGIC)) != MAGIC:
                raise ValueError(f"not a valid distributed checkpoint: "
                                 f"{info.relative_path} is not a torchlike checkpoint file")
        size = os.fstat(f.fileno()).st_size
        if info.offset < len(MAGIC) or info.offset + info.length > size:
            raise ValueError(f"not a valid distributed checkpoint: the record of {index.fqn!r} "
                             f"(bytes {info.offset}..{info.offset + info.length}) lies outside "
                             f"{info.relative_path} ({size} bytes; truncated?)")
        f.seek(info.offset)
        buf = bytearray(info.length)
        if f.readinto(buf) != info.length:
            raise ValueError(f"not a valid distributed checkpoint: {info.relative_path} ended "
                             f"inside the record of {index.fqn!r}")
        return buf

    def _chunk(self, files, index):
        """The saved chunk ``index`` as a tensor of its sizes."""
        md = self.metadata.state_dict_metadata.get(index.fqn)
        if not isinstance(md, TensorStorageMetadata):
            raise ValueError(f"not a valid distributed checkpoint: {index.fqn!r} is not a tensor")
        # one dict per tensor: a tensor of many chunks is read in a pass over
        # them, not a pass per chunk read
        by_offsets = self._sizes.get(index.fqn)
        if by_offsets is None:
            by_offsets = self._sizes[index.fqn] = {tuple(c.offsets): c.sizes for c in md.chunks}
        sizes = by_offsets.get(index.offset)
        if sizes is None:
            raise ValueError(f"not a valid distributed checkpoint: {index.fqn!r} has no chunk "
                             f"at offsets {index.offset}")
        dtype = md.properties.dtype
        n = 1
        for s in sizes:
            n *= int(s)
        buf = self._record(files, index)
        if len(buf) != n * dtype.itemsize:
            raise ValueError(f"not a valid distributed checkpoint: the record of {index.fqn!r} "
                             f"has {len(buf)} bytes, its chunk of sizes {list(sizes)} "
                             f"({dtype}) needs {n * dtype.itemsize}")
        if n == 0:
            return _C.empty(tuple(sizes), dtype=dtype)
        return _C.frombuffer(buf, dtype=_C.uint8).view(dtype).reshape(tuple(sizes))

    def read_data(self, plan, planner):
        from .default_planner import narrow
        files = {}
        try:
            for item in plan.items:
                if item.type == LoadItemType.BYTE_IO:
                    planner.load_bytes(item, io.BytesIO(self._record(files, item.storage_index)))
                    continue
                src = narrow(self._chunk(files, item.storage_index), item.storage_offsets,
                             item.lengths)
                target = planner.resolve_tensor(item).detach()
                if tuple(target.shape) != tuple(src.shape):
                    raise RuntimeError(f"the region of {item.dest_index.fqn!r} to load has shape "
                                       f"{tuple(target.shape)}, the checkpoint's "
                                       f"{tuple(src.shape)}")
                target.copy_(src)
                planner.commit_tensor(item, target)
        finally:
            for f in files.values():
                f.close()
        return _done(None)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return isinstance(checkpoint_id, (str, os.PathLike))


def storage_for(checkpoint_id, storage, directory_kind):
    """The storage a save or load uses: the one given (moved to
    ``checkpoint_id`` when one is given too), else ``directory_kind`` (the
    FileSystemWriter or FileSystemReader) on the directory ``checkpoint_id``."""
    if storage is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specified if "
                               "storage_reader/storage_writer is None.")
        return directory_kind(checkpoint_id)
    if checkpoint_id is not None:
        storage.reset(checkpoint_id)
    return storage
