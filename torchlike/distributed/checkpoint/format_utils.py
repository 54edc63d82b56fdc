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
    root = {}
    for key, value in flat.items():
        path = paths.get(key, (key,))
        node = root
        for here, nxt in zip(path[:-1], path[1:]):
            empty = [] if isinstance(nxt, int) else {}
            if isinstance(node, list):
                node.extend([None] * (here + 1 - len(node)))
                if node[here] is None:
                    node[here] = empty
            else:
                node.setdefault(here, empty)
            node = node[here]
        last = path[-1]
        if isinstance(node, list):
            node.extend([None] * (last + 1 - len(node)))
        node[last] = value
    return root


def dcp_to_torch_save(dcp_checkpoint_dir, torch_save_path):
    """Read every tensor of the checkpoint whole and every other value, and
    write the nested state dict with torchlike.save."""
    from ...serialization import save as tl_save
    reader = FileSystemReader(dcp_checkpoint_dir)
    md = reader.read_metadata()
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
