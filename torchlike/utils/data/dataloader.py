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
from typing import Generic

from ... import _C
from ... import random as _random
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, T_co
from ._worker import _MultiProcessIter, get_worker_info

__all__ = ["DataLoader", "get_worker_info"]


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None forever (the dataset's own
    iterator decides what comes next and when it ends)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches.

    Args mirror PyTorch's: ``batch_size`` (None turns auto-batching off),
    ``shuffle``, ``sampler`` / ``batch_sampler`` (each exclusive with the
    options it replaces), ``collate_fn``, ``drop_last``, ``generator`` (for the
    RandomSampler that ``shuffle`` makes and the per-iterator seed).
    With ``num_workers > 0`` batches are made in that many worker processes
    (``multiprocessing_context``: a start method name or context; the
    default context otherwise) and reach this process through shared memory;
    ``prefetch_factor`` batches per worker are requested ahead, ``in_order``
    keeps the sampler's order whatever the workers' speed,
    ``persistent_workers`` keeps the workers between passes, ``timeout``
    bounds each wait for a batch, ``worker_init_fn(worker_id)`` runs first in
    each worker.  A worker's exception is raised here with its traceback; a
    worker that dies is a RuntimeError naming its id and signal.
    ``pin_memory`` needs CUDA: without it, it warns and does nothing."""

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
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _check_context(multiprocessing_context, num_workers)
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
        self._iterator = None
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
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset()
        return self._iterator

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


class _Fetcher:
    """Makes the batch of one index (or list of indices) from a dataset: what
    the single-process iterator does inline and each worker process does for
    its share."""

    def __init__(self, dataset, dataset_kind, auto_collation, collate_fn, drop_last):
        self._dataset = dataset
        self._auto_collation = auto_collation
        self._collate_fn = collate_fn
        self._drop_last = drop_last
        self._iterable = dataset_kind == "iterable"
        self._dataset_iter = iter(dataset) if self._iterable else None
        self.ended = False
        self._fast_tensors = None
        if (not self._iterable and auto_collation and collate_fn is default_collate
                and type(dataset) is TensorDataset):
            # default_collate of TensorDataset samples is [stack(t[i] for i in batch) ...]:
            # one gather per tensor gives the same tensors without the per-row work.
            self._fast_tensors = dataset.tensors

    def fetch(self, index):
        """The batch for ``index``; StopIteration when an IterableDataset ended."""
        if self._iterable:
            if self._auto_collation:
                data = []
                for _ in index:
                    try:
                        data.append(next(self._dataset_iter))
                    except StopIteration:
                        self.ended = True
                        break
                if not data or (self._drop_last and len(data) < len(index)):
                    raise StopIteration
            else:
                if self.ended:
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


def _draw_base_seed(loader):
    # PyTorch draws one 64-bit seed per iterator (the workers' base seed) from
    # the loader's generator; drawing it in every iterator keeps the sampler's
    # draws in the same place of the generator's stream.
    return int(_C.empty((), dtype=_C.int64).random_(
        generator=loader.generator if loader.generator is not None
        else _random.default_generator).item())


class _SingleProcessIter:
    """One pass over a DataLoader in this process."""

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._base_seed = _draw_base_seed(loader)
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._iterable = loader._dataset_kind == "iterable"
        self._fetcher = _Fetcher(loader.dataset, loader._dataset_kind, loader._auto_collation,
                                 loader.collate_fn, loader.drop_last)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        if self._iterable and self._fetcher.ended:
            raise StopIteration
        index = next(self._sampler_iter)
        data = self._fetcher.fetch(index)
        self._num_yielded += 1
        _warn_iterable_length(self)
        return data


def _warn_iterable_length(it):
    expected = it._loader._IterableDataset_len_called
    if it._iterable and expected is not None and it._num_yielded > expected:
        warnings.warn(f"Length of IterableDataset {it._dataset} was reported to be "
                      f"{expected} (when accessing len(dataloader)), but "
                      f"{it._num_yielded} samples have been fetched. ")


def _check_context(context, num_workers):
    """PyTorch's checks of multiprocessing_context: only with workers, a
    known start method (made a context) or a context object."""
    import multiprocessing
    if context is None:
        return None
    if num_workers <= 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a "
                        "string specifying the start method, but got "
                        f"multiprocessing_context={context}")
    return context
