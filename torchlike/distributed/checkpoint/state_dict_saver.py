"""save, async_save and the older save_state_dict.

Every rank plans what it holds; the coordinator (rank 0 of the group)
merges the plans (each replicated item written once) and makes the
Metadata; every rank writes its data file; the coordinator writes
``.metadata`` last, once every rank has written, so a directory with a
``.metadata`` file is a complete checkpoint."""
import copy
import json
import os
import threading
import time
import warnings
from collections.abc import Mapping

from ... import _C
from ... import distributed as dist
from .. import _shard_spec
from ._coordinate import Coordinator
from .api import CheckpointException, _Failure
from .default_planner import DefaultSavePlanner
from .filesystem import FileSystemWriter, storage_for
from .metadata import MetadataIndex, _StorageInfo
from .stateful import to_state_dicts
from .storage import WriteResult

__all__ = ["save", "async_save", "save_state_dict"]


def _use_dist(no_dist):
    return not no_dist and dist.is_available() and dist.is_initialized()


def _plan(state_dict, writer, planner, coord):
    """The plan step: this rank's part of the global plan, and the Metadata
    (on the coordinator; None elsewhere)."""
    box = [None]

    def local_step():
        writer.set_up_storage_writer(coord.is_coordinator)
        planner.set_up_planner(state_dict, writer.storage_meta(), coord.is_coordinator)
        return writer.prepare_local_plan(planner.create_local_plan())

    def global_step(all_plans):
        all_plans, box[0] = planner.create_global_plan(all_plans)
        return writer.prepare_global_plan(all_plans)

    central = coord.reduce_scatter("plan", local_step, global_step)
    return central, box[0]


def _write(writer, planner, central):
    final = planner.finish_plan(central)
    return writer.write_data(final, planner).wait()


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
         process_group=None, no_dist=False):
    """Write ``state_dict`` (nested dicts and lists of tensors and other
    values) as a distributed checkpoint: to the directory ``checkpoint_id``
    or through ``storage_writer``.  Collective over ``process_group`` when
    a process group is initialized; a tensor FSDP cut into pieces is
    written as its piece; a top-level value with ``state_dict()`` and
    ``load_state_dict()`` (a module, an optimizer: Stateful) is saved as its
    ``state_dict()``.  Returns the Metadata."""
    writer = storage_for(checkpoint_id, storage_writer, FileSystemWriter)
    return _save(to_state_dicts(state_dict), writer, planner,
                 Coordinator(process_group, _use_dist(no_dist)))


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated: ``save(state_dict, storage_writer=...)``."""
    warnings.warn("'save_state_dict' is deprecated and will be removed in future versions. "
                  "Please use 'save' instead.", FutureWarning, stacklevel=2)
    storage_writer.reset()
    return _save(state_dict, storage_writer, planner,
                 Coordinator(process_group, _use_dist(no_dist), coordinator_rank))


def _save(state_dict, writer, planner, coord):
    """Plan, write, and let the coordinator finish the checkpoint (its
    metadata); returns the Metadata."""
    planner = DefaultSavePlanner() if planner is None else planner
    central, metadata = _plan(state_dict, writer, planner, coord)

    def finish(results):
        writer.finish(metadata=metadata, results=results)
        return metadata
    return coord.all_reduce("write", lambda: _write(writer, planner, central), finish)


def _stage(obj):
    """A copy of the state dict that later training steps do not change:
    tensors cloned (with their piece records), containers rebuilt."""
    if isinstance(obj, _C.Tensor):
        c = obj.detach().clone()
        spec = _shard_spec.spec_of(obj)
        if spec is not None:
            _shard_spec.tag(c, spec.global_size, spec.offsets)
        return c
    if isinstance(obj, Mapping):
        out = copy.copy(obj)  # keeps OrderedDict and its _metadata
        for k, v in obj.items():
            out[k] = _stage(v)
        return out
    if isinstance(obj, list):
        return [_stage(v) for v in obj]
    return copy.deepcopy(obj)


# ---- async_save ----------------------------------------------------------------------
# The background thread issues no collective: collectives of a process run
# in issue order on one worker thread, and one issued from another thread
# could interleave differently on each rank.  So the plan is made before
# async_save returns; each rank's thread writes its file, then a small JSON
# note beside it (``__<rank>_0.distcp.done``: where its records went, or
# its error); the coordinator's thread waits for every note, writes
# ``.metadata`` and answers each note with the outcome, which the other
# ranks wait for.  Every rank's Future completes once the checkpoint is
# whole (or failed), and each rank removes its own note.

def _note_path(writer, rank):
    return os.path.join(writer.path, f"__{rank}_0.distcp.done")


def _put_note(path, payload):
    with open(path + ".tmp", "w") as f:
        json.dump(payload, f)
    os.replace(path + ".tmp", path)


def _wait_note(path, keys, deadline, what):
    """The note at ``path`` once it holds one of ``keys``."""
    while True:
        try:
            with open(path) as f:
                note = json.load(f)
            if any(k in note for k in keys):
                return note
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"async_save: {what} did not finish in time")
        time.sleep(0.005)


def _results_json(results):
    return [{"fqn": r.index.fqn, "offset": None if r.index.offset is None
             else list(r.index.offset), "size": r.size_in_bytes,
             "path": r.storage_data.relative_path, "start": r.storage_data.offset,
             "length": r.storage_data.length} for r in results]


def _results_from_json(items):
    return [WriteResult(MetadataIndex(i["fqn"], i["offset"]), i["size"],
                        _StorageInfo(i["path"], i["start"], i["length"])) for i in items]


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
               process_group=None, no_dist=False, timeout=1800.0, **kwargs):
    """Copy ``state_dict`` now, plan the save now (collectively), write it
    on a background thread; returns a ``concurrent.futures.Future`` whose
    result is the Metadata, on every rank once the checkpoint is complete.
    Only FileSystemWriter is supported; training may change the state dict
    as soon as this returns."""
    from concurrent.futures import Future
    writer = storage_for(checkpoint_id, storage_writer, FileSystemWriter)
    if not isinstance(writer, FileSystemWriter):
        raise NotImplementedError("async_save supports FileSystemWriter only")
    planner = DefaultSavePlanner() if planner is None else planner
    coord = Coordinator(process_group, _use_dist(no_dist))
    staged = _stage(to_state_dicts(state_dict))
    central, metadata = _plan(staged, writer, planner, coord)
    if coord.is_coordinator:
        for r in range(coord.world):  # notes an interrupted save left behind
            if os.path.exists(_note_path(writer, r)):
                os.remove(_note_path(writer, r))
    # every rank gets the plan's Metadata (the coordinator fills its
    # storage_data at the end); and no note is written before the old ones
    # are gone
    metadata = coord.broadcast(metadata)
    fut = Future()
    deadline = time.monotonic() + timeout

    def run():
        mine = _note_path(writer, coord.rank)
        try:
            try:
                note = {"results": _results_json(_write(writer, planner, central))}
            except Exception as e:  # noqa: BLE001 - reported through the note
                note = {"error": _Failure(e).text}
            _put_note(mine, note)
            if coord.is_coordinator:
                result = _finish_async(writer, coord, metadata, deadline)
            else:
                answer = _wait_note(mine, ("status",), deadline, "the coordinator")
                os.remove(mine)
                if answer["status"] != "ok":
                    raise CheckpointException("write", {coord.rank: RuntimeError(
                        answer.get("error", "the save failed on another rank"))})
                result = metadata
            fut.set_result(result)
        except BaseException as e:  # noqa: BLE001 - the Future carries it
            fut.set_exception(e)

    threading.Thread(target=run, name="dcp-async-save", daemon=True).start()
    return fut


def _finish_async(writer, coord, metadata, deadline):
    notes, outcome, error = [], {"status": "ok"}, None
    try:
        for r in range(coord.world):
            notes.append(_wait_note(_note_path(writer, r), ("results", "error"), deadline,
                                    f"rank {r}"))
        bad = {r: RuntimeError(n["error"]) for r, n in enumerate(notes) if "error" in n}
        if bad:
            raise CheckpointException("write", bad)
        writer.finish(metadata=metadata,
                      results=[_results_from_json(n["results"]) for n in notes])
    except BaseException as e:  # noqa: BLE001 - answered to every rank, then raised
        outcome, error = {"status": "failed", "error": str(e)}, e
    if os.path.exists(_note_path(writer, coord.rank)):
        os.remove(_note_path(writer, coord.rank))
    for r in range(coord.world):
        if r != coord.rank:
            _put_note(_note_path(writer, r), outcome)
    if error is not None:
        raise error
    return metadata
