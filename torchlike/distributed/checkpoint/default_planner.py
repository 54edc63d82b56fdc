"""DefaultSavePlanner and DefaultLoadPlanner: nested state dicts flattened
to dotted keys, tensors written as chunks of their global tensor, and read
back by overlapping the chunks a rank wants with the chunks the checkpoint
holds (which is what lets a checkpoint saved by N ranks load into M).

Flattening: dict keys and the indices of lists that hold tensors or dicts
are joined with "." (``{"optim": {"state": {0: {"exp_avg": t}}}}`` →
``optim.state.0.exp_avg``); any other value (numbers, strings, tuples,
lists of those) is one item, written with torchlike.save and read back
with torchlike.load(weights_only=True)."""
import io
from collections.abc import Mapping
from dataclasses import replace

from ... import _C
from .. import _shard_spec
from .metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata, MetadataIndex,
                       TensorProperties, TensorStorageMetadata, _overlapping)
from .planner import (LoadItemType, LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner,
                      TensorWriteData, WriteItem, WriteItemType)

__all__ = ["DefaultSavePlanner", "DefaultLoadPlanner", "create_default_local_save_plan",
           "create_default_local_load_plan", "flatten_state_dict", "set_element"]

Tensor = _C.Tensor


def _branches(value):
    """Whether flattening goes inside ``value``."""
    if isinstance(value, Mapping):
        return True
    if isinstance(value, list):
        return any(isinstance(v, Tensor) or _branches(v) for v in value)
    return False


def flatten_state_dict(state_dict):
    """({dotted key: leaf}, {dotted key: path}) for a nested state dict."""
    flat, paths = {}, {}

    def walk(value, path):
        if path and not _branches(value):
            key = ".".join(str(p) for p in path)
            if key in flat:
                raise ValueError(f"the state dict has two values under the key {key!r} once "
                                 "flattened")
            flat[key], paths[key] = value, path
            return
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        for k, v in items:
            walk(v, path + (k,))
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"a state dict must be a dict, got {type(state_dict).__name__}")
    walk(state_dict, ())
    return flat, paths


def set_element(root, path, value):
    """root[path[0]][path[1]]... = value."""
    for p in path[:-1]:
        root = root[p]
    root[path[-1]] = value


def _pieces(flat, for_load):
    """The flat state dict with each DTensor as its local piece (sharing
    its storage), recorded as a piece of the global tensor."""
    if not any(getattr(type(v), "_tl_dcp_piece", None) for v in flat.values()):
        return flat
    return {k: v._tl_dcp_piece(for_load) if getattr(type(v), "_tl_dcp_piece", None) else v
            for k, v in flat.items()}


def _chunk_of(t):
    """(offsets, global size) of the part of its global tensor ``t`` holds."""
    spec = _shard_spec.spec_of(t)
    if spec is not None:
        return spec.offsets, spec.global_size
    return (0,) * t.dim(), tuple(t.shape)


def _write_item(fqn, obj):
    if not isinstance(obj, Tensor):
        return WriteItem(MetadataIndex(fqn), WriteItemType.BYTE_IO)
    offsets, size = _chunk_of(obj)
    kind = WriteItemType.TENSOR if _shard_spec.spec_of(obj) is None else WriteItemType.SHARD
    props = TensorProperties(obj.dtype, bool(obj.requires_grad))
    chunk = ChunkStorageMetadata(_C.Size(offsets), _C.Size(tuple(obj.shape)))
    return WriteItem(MetadataIndex(fqn, offsets), kind,
                     TensorWriteData(chunk, props, _C.Size(size)))


def create_default_local_save_plan(state_dict, is_coordinator=False):
    return SavePlan([_write_item(fqn, obj) for fqn, obj in state_dict.items()])


def _same_tensor_item(a, b):
    ta, tb = a.tensor_data, b.tensor_data
    return ta.properties.dtype == tb.properties.dtype and tuple(ta.size) == tuple(tb.size) \
        and tuple(ta.chunk.sizes) == tuple(tb.chunk.sizes)


def _dedup(all_plans):
    """Each item written once: an item several ranks hold (a replicated
    tensor, a number) goes to the holder with the fewest bytes so far."""
    holders, first = {}, {}
    for rank, plan in enumerate(all_plans):
        for item in plan.items:
            if item.index in first:
                a = first[item.index]
                if a.type != item.type or (a.tensor_data is not None and
                                            not _same_tensor_item(a, item)):
                    raise ValueError(
                        f"ranks disagree on the key {item.index.fqn!r}: "
                        f"{_describe(a)} on rank {holders[item.index][0]}, "
                        f"{_describe(item)} on rank {rank}")
            else:
                first[item.index] = item
            holders.setdefault(item.index, []).append(rank)
    load = [0] * len(all_plans)
    keep = [[] for _ in all_plans]
    for index, ranks in holders.items():
        item = first[index]
        rank = min(ranks, key=lambda r: (load[r], r))
        load[rank] += item.tensor_storage_size() or 1
        keep[rank].append(index)
    out = []
    for rank, plan in enumerate(all_plans):
        mine = set(keep[rank])
        out.append(replace(plan, items=[i for i in plan.items if i.index in mine]))
    return out


def _describe(item):
    if item.tensor_data is None:
        return "a non-tensor value"
    td = item.tensor_data
    return (f"a {td.properties.dtype} tensor of size {list(td.size)} (chunk sizes "
            f"{list(td.chunk.sizes)})")


def _overlap(a_off, a_size, b_off, b_size):
    """(start, stop) per dimension of the intersection, or None."""
    out = []
    for ao, an, bo, bn in zip(a_off, a_size, b_off, b_size):
        lo, hi = max(ao, bo), min(ao + an, bo + bn)
        if hi <= lo:
            return None
        out.append((lo, hi))
    return out


def create_default_global_save_plan(all_plans):
    """The deduplicated plans and the Metadata they describe."""
    all_plans = _dedup(all_plans)
    md, planner_data = {}, {}
    for plan in all_plans:
        planner_data.update(plan.planner_data or {})
        for item in plan.items:
            fqn = item.index.fqn
            if item.tensor_data is None:
                md[fqn] = BytesStorageMetadata()
                continue
            td = item.tensor_data
            m = md.get(fqn)
            if m is None:
                m = md[fqn] = TensorStorageMetadata(td.properties, td.size, [])
            elif not isinstance(m, TensorStorageMetadata) or \
                    m.properties.dtype != td.properties.dtype or tuple(m.size) != tuple(td.size):
                raise ValueError(f"ranks disagree on the key {fqn!r}: a "
                                 f"{getattr(m.properties, 'dtype', None)} tensor of size "
                                 f"{list(getattr(m, 'size', []))} and {_describe(item)}")
            m.chunks.append(td.chunk)
    for fqn, m in md.items():
        if not isinstance(m, TensorStorageMetadata):
            continue
        pair = _overlapping(m.chunks)  # the sweep a load's check uses: no all-pairs loop
        if pair:
            a, b = pair
            raise ValueError(f"the pieces of {fqn!r} overlap: offsets {list(a.offsets)} sizes "
                             f"{list(a.sizes)} and offsets {list(b.offsets)} sizes "
                             f"{list(b.sizes)}")
    return all_plans, Metadata(md, planner_data=planner_data)


class DefaultSavePlanner(SavePlanner):
    """Flattens the state dict, writes every tensor as its chunk, and writes
    each replicated item once."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 dedup_replicated_tensors=None, dedup_save_to_lowest_rank=False,
                 enable_plan_caching=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.mappings = {}

    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        if self.flatten_state_dict:
            state_dict, self.mappings = flatten_state_dict(state_dict)
        elif not isinstance(state_dict, Mapping):
            raise TypeError(f"a state dict must be a dict, got {type(state_dict).__name__}")
        self.state_dict = _pieces(dict(state_dict), for_load=False)
        self.is_coordinator = is_coordinator
        self.storage_meta = storage_meta

    def create_local_plan(self):
        plan = create_default_local_save_plan(self.state_dict, self.is_coordinator)
        if self.flatten_state_dict:
            plan = replace(plan, planner_data=self.mappings)
        self.plan = plan
        return plan

    def create_global_plan(self, all_plans):
        plans, metadata = create_default_global_save_plan(all_plans)
        if not self.flatten_state_dict:
            metadata.planner_data = None
        metadata.storage_meta = self.storage_meta
        self.global_plan, self.metadata = plans, metadata
        return plans, metadata

    def finish_plan(self, new_plan):
        self.plan = new_plan
        return new_plan

    def resolve_data(self, write_item):
        obj = self.state_dict[write_item.index.fqn]
        if isinstance(obj, Tensor):
            return obj.detach().contiguous()
        from ...serialization import save
        buf = io.BytesIO()
        save(obj, buf)
        buf.seek(0)
        return buf


def create_default_local_load_plan(state_dict, metadata, strict=True):
    """ReadItems for every key of ``state_dict``: each tensor's part read
    from the saved chunks that overlap it."""
    items = []
    for fqn, obj in state_dict.items():
        md = metadata.state_dict_metadata.get(fqn)
        if md is None:
            if strict:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
            continue
        if not isinstance(obj, Tensor):
            if isinstance(md, TensorStorageMetadata):
                raise RuntimeError(f"{fqn} is a tensor in the checkpoint but a "
                                   f"{type(obj).__name__} in the state dict to load")
            items.append(ReadItem(LoadItemType.BYTE_IO, MetadataIndex(fqn), (0,),
                                  MetadataIndex(fqn), (0,), (0,)))
            continue
        if not isinstance(md, TensorStorageMetadata):
            raise RuntimeError(f"{fqn} is a tensor in the state dict to load but not in the "
                               "checkpoint")
        offsets, size = _chunk_of(obj)
        if tuple(size) != tuple(md.size):
            raise ValueError(f"Size mismatch between saved {md.size} and current: "
                             f"{_C.Size(size)} for {fqn}")
        local = tuple(obj.shape)
        want = 1
        for s in local:
            want *= s
        got = 0
        for c in md.chunks:
            ov = _overlap(offsets, local, c.offsets, c.sizes)
            if ov is None:
                continue
            lengths = tuple(hi - lo for lo, hi in ov)
            n = 1
            for s in lengths:
                n *= s
            if n == 0:
                continue
            got += n
            items.append(ReadItem(LoadItemType.TENSOR, MetadataIndex(fqn, offsets),
                                  _C.Size(lo - o for (lo, _), o in zip(ov, offsets)),
                                  MetadataIndex(fqn, c.offsets),
                                  _C.Size(lo - o for (lo, _), o in zip(ov, c.offsets)),
                                  _C.Size(lengths)))
        if got != want:
            raise RuntimeError(f"the checkpoint does not hold all of {fqn}: its chunks cover "
                               f"{got} of the {want} elements at offsets {list(offsets)} "
                               f"sizes {list(local)}")
    return LoadPlan(items)


def narrow(t, offsets, lengths):
    for d, (o, n) in enumerate(zip(offsets, lengths)):
        t = t.narrow(d, int(o), int(n))
    return t


class DefaultLoadPlanner(LoadPlanner):
    """Loads in place into the given state dict: tensors are copied into
    (the part each rank holds), other values replaced.  A key of the state
    dict missing from the checkpoint raises, unless ``allow_partial_load``;
    keys only the checkpoint has are not read."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 allow_partial_load=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load
        self.mappings = {}

    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        self.original_state_dict = state_dict
        if self.flatten_state_dict:
            state_dict, self.mappings = flatten_state_dict(state_dict)
        elif not isinstance(state_dict, Mapping):
            raise TypeError(f"a state dict must be a dict, got {type(state_dict).__name__}")
        self.state_dict = _pieces(state_dict, for_load=True)
        self.metadata = metadata
        self.is_coordinator = is_coordinator

    def create_local_plan(self):
        return create_default_local_load_plan(self.state_dict, self.metadata,
                                              not self.allow_partial_load)

    def create_global_plan(self, global_plan):
        return global_plan

    def finish_plan(self, new_plan):
        return new_plan

    def load_bytes(self, read_item, value):
        from ...serialization import load
        obj = load(value, weights_only=True)
        fqn = read_item.dest_index.fqn
        if self.flatten_state_dict:
            set_element(self.original_state_dict, self.mappings[fqn], obj)
        else:
            self.state_dict[fqn] = obj

    def resolve_tensor(self, read_item):
        t = self.state_dict[read_item.dest_index.fqn]
        return narrow(t.detach(), read_item.dest_offsets, read_item.lengths)

    def commit_tensor(self, read_item, tensor):
        pass
