"""Plans: what each rank writes (SavePlan of WriteItems) or reads (LoadPlan
of ReadItems), and the planner interfaces that make them.

A save runs, on every rank: ``set_up_planner`` → ``create_local_plan``;
on the coordinator: ``create_global_plan`` over every rank's plan (which
also returns the Metadata); on every rank: ``finish_plan`` on its part of
the global plan, then the storage writer asks ``resolve_data`` for each
item.  A load is the same with ReadItems, ``resolve_tensor`` (where to copy
a tensor's bytes), ``commit_tensor`` and ``load_bytes``."""
import abc
import enum
from dataclasses import dataclass
from typing import Any, List, Optional

from .metadata import ChunkStorageMetadata, MetadataIndex, TensorProperties

__all__ = ["WriteItemType", "LoadItemType", "TensorWriteData", "WriteItem", "ReadItem",
           "SavePlan", "LoadPlan", "SavePlanner", "LoadPlanner"]


class WriteItemType(enum.Enum):
    TENSOR = enum.auto()
    SHARD = enum.auto()
    BYTE_IO = enum.auto()


class LoadItemType(enum.Enum):
    TENSOR = enum.auto()
    BYTE_IO = enum.auto()


@dataclass(frozen=True)
class TensorWriteData:
    chunk: ChunkStorageMetadata
    properties: TensorProperties
    size: Any


@dataclass(frozen=True)
class WriteItem:
    """One thing a rank writes: a whole tensor, a chunk of one, or bytes."""
    index: MetadataIndex
    type: WriteItemType
    tensor_data: Optional[TensorWriteData] = None

    def tensor_storage_size(self):
        """Bytes of the tensor chunk this item writes (None for bytes)."""
        if self.tensor_data is None:
            return None
        n = 1
        for s in self.tensor_data.chunk.sizes:
            n *= int(s)
        return n * self.tensor_data.properties.dtype.itemsize


@dataclass(frozen=True)
class ReadItem:
    """Copy ``lengths`` elements starting at ``storage_offsets`` of the saved
    chunk ``storage_index`` to ``dest_offsets`` of the tensor at
    ``dest_index`` (offsets relative to each chunk)."""
    type: LoadItemType
    dest_index: MetadataIndex
    dest_offsets: Any
    storage_index: MetadataIndex
    storage_offsets: Any
    lengths: Any


@dataclass(frozen=True)
class SavePlan:
    items: List[WriteItem]
    storage_data: Any = None
    planner_data: Any = None
    usable: bool = True


@dataclass
class LoadPlan:
    items: List[ReadItem]
    storage_data: Any = None
    planner_data: Any = None


class SavePlanner(abc.ABC):
    @abc.abstractmethod
    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        ...

    @abc.abstractmethod
    def create_local_plan(self):
        ...

    @abc.abstractmethod
    def create_global_plan(self, all_plans):
        ...

    @abc.abstractmethod
    def finish_plan(self, new_plan):
        ...

    @abc.abstractmethod
    def resolve_data(self, write_item):
        ...


class LoadPlanner(abc.ABC):
    @abc.abstractmethod
    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        ...

    @abc.abstractmethod
    def create_local_plan(self):
        ...

    @abc.abstractmethod
    def create_global_plan(self, global_plan):
        ...

    @abc.abstractmethod
    def finish_plan(self, central_plan):
        ...

    @abc.abstractmethod
    def load_bytes(self, read_item, value):
        ...

    @abc.abstractmethod
    def resolve_tensor(self, read_item):
        ...

    @abc.abstractmethod
    def commit_tensor(self, read_item, tensor):
        ...
