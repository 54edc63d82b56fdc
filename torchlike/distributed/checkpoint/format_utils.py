"""Conversions between a distributed checkpoint directory and one
torchlike.save file, in a single process (no process group needed)."""
import os

from ... import _C
from .default_planner import DefaultLoadPlanner
from .filesystem import FileSystemReader
from .metadata import TensorStorageMetadata
from .state_dict_loader import load
from .state_dict_saver import save

__all__ = ["dcp_to_torch_save", "torch_save_to_dcp"]


def _nest(flat, paths):
    """The nested state dict whose leaves ``flat`` holds at ``paths``
    (integer path elements are list indices)."""
    try:
        return _nest_paths(flat, paths)
    except (TypeError, KeyError, IndexError, AttributeError) as e:
        raise ValueError(f"not a valid distributed checkpoint: its keys' paths conflict "
                         f"({type(e).__name__}: {e})") from None


class _Node(dict):
    """A container being built (a leaf may be a dict too)."""


def _nest_paths(flat, paths):
    root = _Node()
    for key, value in flat.items():
        path = paths.get(key, (key,))
        node = root
        for k in path[:-1]:
            child = node.get(k)
            if child is None:
                child = node[k] = _Node()
            elif not isinstance(child, _Node):
                raise TypeError(f"{k!r} is both a value and a container")
            node = child
        if path[-1] in node:
            raise TypeError(f"two values at {'.'.join(map(str, path))}")
        node[path[-1]] = value
    return {k: _built(v) for k, v in root.items()}


def _built(value):
    """Containers whose keys are 0..n-1 become lists, the others dicts."""
    if not isinstance(value, _Node):
        return value
    items = {k: _built(v) for k, v in value.items()}
    if all(type(k) is int for k in items) and sorted(items) == list(range(len(items))):
        return [items[i] for i in range(len(items))]
    return dict(items)


def _numel(sizes):
    n = 1
    for s in sizes:
        n *= int(s)
    return n


def dcp_to_torch_save(dcp_checkpoint_dir, torch_save_path):
    """Read every tensor of the checkpoint whole and every other value, and
    write the nested state dict with torchlike.save."""
    from ...serialization import save as tl_save
    reader = FileSystemReader(dcp_checkpoint_dir)
    md = reader.read_metadata()
    # allocate nothing the files do not back: every record inside its file,
    # no two records sharing bytes, a tensor's chunks at distinct offsets and
    # as many elements as the tensor (records read twice would let a small
    # file stand for a tensor of any size)
    sizes, extents = {}, {}
    for info in (md.storage_data or {}).values():
        if info.relative_path not in sizes:
            sizes[info.relative_path] = os.path.getsize(
                os.path.join(reader.path, info.relative_path))
        if info.offset + info.length > sizes[info.relative_path]:
            raise ValueError(f"not a valid distributed checkpoint: a record lies outside "
                             f"{info.relative_path} (truncated?)")
        extents.setdefault(info.relative_path, []).append(
            (info.offset, info.offset + info.length))
    for path, spans in extents.items():
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            if start < end:
                raise ValueError(f"not a valid distributed checkpoint: two records share "
                                 f"bytes {start}..{end} of {path}")
    for key, m in md.state_dict_metadata.items():
        if isinstance(m, TensorStorageMetadata):
            if len({tuple(c.offsets) for c in m.chunks}) != len(m.chunks):
                raise ValueError(f"not a valid distributed checkpoint: {key!r} lists a chunk "
                                 f"twice")
            have = sum(_numel(c.sizes) for c in m.chunks)
            if have != _numel(m.size):
                raise ValueError(f"not a valid distributed checkpoint: the chunks of {key!r} "
                                 f"hold {have} of its {_numel(m.size)} elements")
    flat = {k: (_C.empty(tuple(m.size), dtype=m.properties.dtype)
                if isinstance(m, TensorStorageMetadata) else None)
            for k, m in md.state_dict_metadata.items()}
    load(flat, storage_reader=reader, planner=DefaultLoadPlanner(flatten_state_dict=False),
         no_dist=True)
    tl_save(_nest(flat, md.planner_data or {}), os.fspath(torch_save_path))


def torch_save_to_dcp(torch_save_path, dcp_checkpoint_dir):
    """A torchlike.save / torch.save file (loaded with weights_only=True) as
    a distributed checkpoint."""
    from ...serialization import load as tl_load
    state_dict = tl_load(os.fspath(torch_save_path), weights_only=True)
    save(state_dict, checkpoint_id=dcp_checkpoint_dir, no_dist=True)
