"""Record torch.utils.data behaviour for tests/test_data_golden.py.

Run with a Python that has PyTorch:  python scripts/golden_data.py
Writes tests/golden/data/expected.json: for each case in CASES, the result
(as golden_serialization.skeleton describes it) or the exception's type and
message.  Only cases whose outcome does not depend on the random generator
are recorded (torchlike's generator is not PyTorch's MT19937): collation,
sequential loading, lengths, split sizes, distributed shards without shuffle,
and error messages.  The test runs the same CASES with torchlike."""
import collections
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from golden_serialization import skeleton  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "golden", "data", "expected.json")

Point = collections.namedtuple("Point", ["x", "y"])


class Stream:
    """An IterableDataset of range(n), made for either library."""

    def __new__(cls, data, n, with_len=True):
        base = data.IterableDataset

        class _Stream(base):
            def __iter__(self):
                return iter(range(n))

        if with_len:
            _Stream.__len__ = lambda self: n
        return _Stream()


class Items:
    """A map-style dataset returning whatever `make(i)` builds."""

    def __new__(cls, data, n, make):
        class _Items(data.Dataset):
            def __getitem__(self, i):
                return make(i)

            def __len__(self):
                return n

        return _Items()


def _batches(loader):
    return list(loader)


def cases(lib):
    """name -> zero-argument callable, for lib = torch or torchlike."""
    data = lib.utils.data
    collate, convert = data.default_collate, data.default_convert
    t = lib.tensor
    tensor_ds = data.TensorDataset(lib.arange(20).reshape(10, 2), lib.arange(10.0))
    return {
        # collation of nested structures
        "collate_tensors": lambda: collate([t([1.0, 2.0]), t([3.0, 4.0])]),
        "collate_0d": lambda: collate([t(1), t(2), t(3)]),
        "collate_floats_ints_bools": lambda: [collate([1.5, 2.5]), collate([1, 2]),
                                              collate([True, False])],
        "collate_strings": lambda: [collate(["a", "b"]), collate([b"x", b"y"])],
        "collate_numpy": lambda: [collate([np.arange(3, dtype=np.float32),
                                           np.arange(3, dtype=np.float32)]),
                                  collate([np.float64(1.5), np.float64(2.5)]),
                                  collate([np.int32(1), np.int32(2)]),
                                  collate([np.bool_(True), np.bool_(False)])],
        "collate_dict_nested": lambda: collate([
            {"a": t([1, 2]), "b": {"c": 1.0, "d": ["s", 3]}},
            {"a": t([3, 4]), "b": {"c": 2.0, "d": ["u", 4]}}]),
        "collate_ordered_dict": lambda: collate([collections.OrderedDict(x=1, y=2.0),
                                                 collections.OrderedDict(x=3, y=4.0)]),
        "collate_namedtuple": lambda: collate([Point(t(1.0), 2), Point(t(3.0), 4)]),
        "collate_tuple_becomes_list": lambda: collate([(t([1]), 2.0), (t([3]), 4.0)]),
        "collate_list_of_lists": lambda: collate([[1, 2], [3, 4]]),
        "collate_mismatched_sizes": lambda: collate([t([1.0, 2.0]), t([1.0, 2.0, 3.0])]),
        "collate_mismatched_sizes_later": lambda: collate([t([[1.0]]), t([[1.0]]),
                                                           t([[1.0, 2.0]])]),
        "collate_unequal_lists": lambda: collate([[1, 2], [3]]),
        "collate_numpy_strings": lambda: collate([np.array(["a"]), np.array(["b"])]),
        "collate_unsupported": lambda: collate([{1, 2}, {3, 4}]),
        "convert": lambda: [convert(np.arange(3)), convert(np.float32(2.5)),
                            convert((np.int64(1), "s")), convert({"k": np.ones(2)}),
                            convert(Point(np.int16(1), [np.float64(2.0)])),
                            convert(np.array(["a", "b"])), convert("text"), convert(3)],
        # loading
        "loader_sequential": lambda: _batches(data.DataLoader(tensor_ds, batch_size=4)),
        "loader_drop_last": lambda: _batches(data.DataLoader(tensor_ds, batch_size=4,
                                                             drop_last=True)),
        "loader_no_batching": lambda: _batches(data.DataLoader(
            Items(data, 3, lambda i: {"x": np.full(2, i), "y": float(i)}), batch_size=None)),
        "loader_dicts": lambda: _batches(data.DataLoader(
            Items(data, 5, lambda i: {"img": np.full((2, 2), i, dtype=np.float32),
                                      "label": i, "name": f"n{i}"}), batch_size=2)),
        "loader_collate_fn": lambda: _batches(data.DataLoader(tensor_ds, batch_size=3,
                                                              collate_fn=lambda b: len(b))),
        "loader_batch_sampler": lambda: _batches(data.DataLoader(
            tensor_ds, batch_sampler=[[0, 5], [9], [1, 2, 3]])),
        "loader_sampler": lambda: _batches(data.DataLoader(tensor_ds, batch_size=2,
                                                           sampler=[9, 8, 7])),
        "loader_iterable": lambda: _batches(data.DataLoader(Stream(data, 7), batch_size=3)),
        "loader_iterable_drop_last": lambda: _batches(data.DataLoader(
            Stream(data, 7), batch_size=3, drop_last=True)),
        "loader_iterable_no_batching": lambda: _batches(data.DataLoader(Stream(data, 3),
                                                                        batch_size=None)),
        "loader_lengths": lambda: [
            len(data.DataLoader(tensor_ds, batch_size=3)),
            len(data.DataLoader(tensor_ds, batch_size=3, drop_last=True)),
            len(data.DataLoader(tensor_ds, batch_size=None)),
            len(data.DataLoader(Stream(data, 10), batch_size=3)),
            len(data.DataLoader(Stream(data, 10), batch_size=3, drop_last=True)),
            len(data.DataLoader(Stream(data, 10), batch_size=None)),
            len(data.DataLoader(tensor_ds, batch_sampler=[[0], [1, 2]]))],
        "loader_iterable_without_len": lambda: len(data.DataLoader(Stream(data, 4, False))),
        # datasets
        "concat": lambda: [len(tensor_ds + tensor_ds), (tensor_ds + tensor_ds)[13],
                           (tensor_ds + tensor_ds)[-1]],
        "concat_bad_index": lambda: (tensor_ds + tensor_ds)[-21],
        "concat_empty": lambda: data.ConcatDataset([]),
        "concat_iterable": lambda: data.ConcatDataset([Stream(data, 2)]),
        "chain": lambda: [list(Stream(data, 2) + Stream(data, 3)),
                          len(data.ChainDataset([Stream(data, 2), Stream(data, 3)]))],
        "subset": lambda: [len(data.Subset(tensor_ds, [3, 1])), data.Subset(tensor_ds, [3, 1])[1]],
        "stack_tuple": lambda: data.StackDataset(tensor_ds, lib.arange(10) * 2)[4],
        "stack_dict": lambda: _batches(data.DataLoader(
            data.StackDataset(a=tensor_ds, b=lib.arange(10) * 2), batch_size=4)),
        "stack_both": lambda: data.StackDataset(tensor_ds, b=tensor_ds),
        "stack_mismatch": lambda: data.StackDataset(tensor_ds, lib.arange(3)),
        "tensor_dataset_mismatch": lambda: data.TensorDataset(lib.ones(3), lib.ones(4)),
        "dataset_abstract": lambda: data.Dataset()[0],
        "random_split_sizes": lambda: [
            [len(s) for s in data.random_split(range(10), [3, 7])],
            [len(s) for s in data.random_split(range(10), [0.3, 0.3, 0.4])],
            [len(s) for s in data.random_split(range(7), [0.33, 0.33, 0.34])],
            [len(s) for s in data.random_split(range(5), [0.5, 0.5])],
            [len(s) for s in data.random_split(range(11), [0.1, 0.2, 0.3, 0.4])]],
        "random_split_bad_sum": lambda: data.random_split(range(10), [3, 3]),
        "random_split_bad_fraction": lambda: data.random_split(range(10), [1.5, -0.5]),
        # samplers
        "sequential_sampler": lambda: list(data.SequentialSampler(range(4))),
        "batch_sampler": lambda: [list(data.BatchSampler(range(7), 3, False)),
                                  list(data.BatchSampler(range(7), 3, True)),
                                  len(data.BatchSampler(range(7), 3, False)),
                                  len(data.BatchSampler(range(7), 3, True))],
        "batch_sampler_bad_size": lambda: data.BatchSampler(range(3), 0, False),
        "batch_sampler_bad_drop_last": lambda: data.BatchSampler(range(3), 2, "no"),
        "random_sampler_bad_replacement": lambda: data.RandomSampler(range(3), replacement=1),
        "random_sampler_bad_num_samples": lambda: data.RandomSampler(range(3), num_samples=0),
        "random_sampler_len": lambda: [len(data.RandomSampler(range(5))),
                                       len(data.RandomSampler(range(5), True, 12))],
        "weighted_sampler_2d": lambda: data.WeightedRandomSampler([[1.0, 2.0]], 2),
        "weighted_sampler_bad_num": lambda: data.WeightedRandomSampler([1.0, 2.0], -1),
        "weighted_sampler_bad_replacement": lambda: data.WeightedRandomSampler([1.0], 1, 1),
        "distributed_shards": lambda: [
            [list(data.DistributedSampler(range(10), 3, r, shuffle=False)) for r in range(3)],
            [list(data.DistributedSampler(range(10), 3, r, shuffle=False, drop_last=True))
             for r in range(3)],
            [list(data.DistributedSampler(range(2), 5, r, shuffle=False)) for r in range(5)],
            [len(data.DistributedSampler(range(10), 4, 0, drop_last=d)) for d in (False, True)]],
        "distributed_bad_rank": lambda: data.DistributedSampler(range(10), 2, 2),
        # DataLoader argument errors
        "err_sampler_shuffle": lambda: data.DataLoader(tensor_ds, sampler=[0], shuffle=True),
        "err_batch_sampler_batch_size": lambda: data.DataLoader(
            tensor_ds, batch_sampler=[[0]], batch_size=2),
        "err_batch_sampler_shuffle": lambda: data.DataLoader(
            tensor_ds, batch_sampler=[[0]], shuffle=True),
        "err_batch_sampler_drop_last": lambda: data.DataLoader(
            tensor_ds, batch_sampler=[[0]], drop_last=True),
        "err_no_batching_drop_last": lambda: data.DataLoader(tensor_ds, batch_size=None,
                                                             drop_last=True),
        "err_iterable_shuffle": lambda: data.DataLoader(Stream(data, 3), shuffle=True),
        "err_iterable_sampler": lambda: data.DataLoader(Stream(data, 3), sampler=[0]),
        "err_iterable_batch_sampler": lambda: data.DataLoader(Stream(data, 3),
                                                              batch_sampler=[[0]]),
        "err_num_workers": lambda: data.DataLoader(tensor_ds, num_workers=-1),
        "err_timeout": lambda: data.DataLoader(tensor_ds, timeout=-1),
        "err_prefetch": lambda: data.DataLoader(tensor_ds, prefetch_factor=2),
        "err_persistent": lambda: data.DataLoader(tensor_ds, persistent_workers=True),
        "err_set_batch_size": lambda: setattr(data.DataLoader(tensor_ds), "batch_size", 3),
    }


def run(case):
    try:
        return {"value": skeleton(case(), LIB[0])}
    except Exception as e:  # the outcome is the message
        return {"error": [type(e).__name__, str(e)]}


LIB = [None]


def record(lib):
    LIB[0] = lib
    return {name: run(case) for name, case in cases(lib).items()}


def main():
    import torch
    import torch.utils.data  # noqa: F401

    out = record(torch)
    out["torch_version"] = torch.__version__
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    print(f"wrote {len(out) - 1} cases to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
