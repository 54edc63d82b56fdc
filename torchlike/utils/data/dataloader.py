"""DataLoader: batches from a dataset, in the calling process (``num_workers=0``),
as in ``torch.utils.data.dataloader``.

Indices come from a sampler (``SequentialSampler``, or ``RandomSampler`` when
``shuffle``); with auto-batching (``batch_size`` not None, or a
``batch_sampler``) a ``BatchSampler`` groups them, the samples are fetched
(``dataset.__getitems__`` when defined) and ``collate_fn`` (``default_collate``)
makes the batch.  With ``batch_size=None`` each sample goes through
``default_convert`` alone.  An IterableDataset is read from its iterator in
chunks of ``batch_size`` instead of being indexed."""
import math
import warnings

from ... import _C
from ... import random as _random
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Information about the current worker process: None in the main process
    (the only one until worker processes exist)."""
    return None


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None forever (the dataset's own
    iterator decides what comes next and when it ends)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args mirror PyTorch's: ``batch_size`` (None turns auto-batching off),
    ``shuffle``, ``sampler`` / ``batch_sampler`` (each exclusive with the
    options it replaces), ``collate_fn``, ``drop_last``, ``generator`` (for the
    RandomSampler that ``shuffle`` makes and the per-iterator seed).
    ``num_workers > 0`` and the other worker options come with
    torchlike.multiprocessing; until then they raise NotImplementedError."""

    _frozen = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if num_workers > 0:
            raise NotImplementedError(
                f"DataLoader(num_workers={num_workers}): loading in worker processes "
                f"(num_workers, worker_init_fn, prefetch_factor, persistent_workers, timeout) "
                f"comes with torchlike.multiprocessing and is not available yet; use "
                f"num_workers=0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        if pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.")
        self.__initialized = True

    def __setattr__(self, attr, value):
        if getattr(self, "_DataLoader__initialized", False) and attr in self._frozen:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _SingleProcessIter(self)

    def __len__(self):
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _SingleProcessIter:
    """One pass over a DataLoader in this process."""

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        # PyTorch draws one 64-bit seed per iterator (the workers' base seed)
        # from the loader's generator; drawing it here too keeps the sampler's
        # draws in the same place of the generator's stream.
        self._base_seed = int(_C.empty((), dtype=_C.int64).random_(
            generator=loader.generator if loader.generator is not None
            else _random.default_generator).item())
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._iterable = loader._dataset_kind == "iterable"
        self._dataset_iter = iter(self._dataset) if self._iterable else None
        self._ended = False
        self._fast_tensors = None
        if (not self._iterable and self._auto_collation and self._collate_fn is default_collate
                and type(self._dataset) is TensorDataset):
            # default_collate of TensorDataset samples is [stack(t[i] for i in batch) ...]:
            # one gather per tensor gives the same tensors without the per-row work.
            self._fast_tensors = self._dataset.tensors

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _fetch(self, index):
        if self._iterable:
            if self._auto_collation:
                data = []
                for _ in index:
                    try:
                        data.append(next(self._dataset_iter))
                    except StopIteration:
                        self._ended = True
                        break
                if not data or (self._drop_last and len(data) < len(index)):
                    raise StopIteration
            else:
                if self._ended:
                    raise StopIteration
                data = next(self._dataset_iter)
            return self._collate_fn(data)
        if self._auto_collation:
            if self._fast_tensors is not None:
                rows = _C.tensor(index, dtype=_C.int64)
                return [t[rows] for t in self._fast_tensors]
            getitems = getattr(self._dataset, "__getitems__", None)
            data = getitems(index) if callable(getitems) else [self._dataset[i] for i in index]
            return self._collate_fn(data)
        return self._collate_fn(self._dataset[index])

    def __next__(self):
        if self._iterable and self._ended:
            raise StopIteration
        index = next(self._sampler_iter)
        data = self._fetch(index)
        self._num_yielded += 1
        expected = self._loader._IterableDataset_len_called
        if self._iterable and expected is not None and self._num_yielded > expected:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{expected} (when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ")
        return data
