"""torchlike.distributed.checkpoint: PyTorch's distributed checkpoint (DCP).

``save(state_dict, checkpoint_id=dir)`` has every rank write what it holds
(FSDP's pieces as chunks of their global tensors, replicated values once)
and the coordinator write ``.metadata``; ``load(state_dict,
checkpoint_id=dir)`` fills a state dict in place, in any world size or
sharding.  The format is torchlike's own (filesystem.py, metadata.py) and
loading executes nothing from the files.  ``state_dict`` holds
get_state_dict / set_state_dict for plain, DDP and FSDP models."""
from .api import CheckpointException  # noqa: F401
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner  # noqa: F401
from .filesystem import FileSystemReader, FileSystemWriter  # noqa: F401
from .metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata,  # noqa: F401
                       MetadataIndex, TensorProperties, TensorStorageMetadata)
from .planner import (LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner,  # noqa: F401
                      WriteItem)
from .state_dict_loader import load, load_state_dict  # noqa: F401
from .state_dict_saver import async_save, save, save_state_dict  # noqa: F401
from .stateful import Stateful  # noqa: F401
from .storage import StorageReader, StorageWriter  # noqa: F401
