"""load and the older load_state_dict: in-place loading of a state dict
from a distributed checkpoint, whatever world size or sharding saved it."""
import warnings

from ._coordinate import Coordinator
from .default_planner import DefaultLoadPlanner
from .filesystem import FileSystemReader, storage_for
from .state_dict_saver import _use_dist
from .stateful import give_back, to_state_dicts

__all__ = ["load", "load_state_dict"]


def _load(state_dict, reader, planner, coord):
    def local_step():
        metadata = reader.read_metadata()
        planner.set_up_planner(state_dict, metadata, coord.is_coordinator)
        reader.set_up_storage_reader(metadata, coord.is_coordinator)
        return reader.prepare_local_plan(planner.create_local_plan())

    def global_step(all_plans):
        return reader.prepare_global_plan(planner.create_global_plan(all_plans))

    central = coord.reduce_scatter("plan", local_step, global_step)

    def read():
        final = planner.finish_plan(central)
        reader.read_data(final, planner).wait()
    coord.all_gather_step("read", read)


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None,
         process_group=None, no_dist=False):
    """Load a checkpoint into ``state_dict`` in place: every tensor (or the
    piece of it this rank holds) is copied into, other values are replaced
    in their dict or list.  A key of ``state_dict`` the checkpoint lacks
    raises (CheckpointException naming it); keys only the checkpoint has
    are skipped.  A top-level Stateful value loads its ``state_dict()``,
    then takes it back through ``load_state_dict``."""
    reader = storage_for(checkpoint_id, storage_reader, FileSystemReader)
    planner = DefaultLoadPlanner() if planner is None else planner
    loaded = to_state_dicts(state_dict)
    _load(loaded, reader, planner, Coordinator(process_group, _use_dist(no_dist)))
    give_back(state_dict, loaded)


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated: ``load(state_dict, storage_reader=...)``."""
    warnings.warn("'load_state_dict' is deprecated and will be removed in future versions. "
                  "Please use 'load' instead.", FutureWarning, stacklevel=2)
    storage_reader.reset()
    planner = DefaultLoadPlanner() if planner is None else planner
    _load(state_dict, storage_reader, planner,
          Coordinator(process_group, _use_dist(no_dist), coordinator_rank))
