"""Cutting a batch into microbatches and putting outputs back together.

``split_args_kwargs_into_chunks(args, kwargs, chunks, args_chunk_spec,
kwargs_chunk_spec)`` flattens the arguments (pytrees), cuts every tensor
along its ``TensorChunkSpec`` dimension with ``tensor_split`` (so sizes may
differ by one) and repeats every other value; it gives ``chunks`` tuples of
args and as many dicts of kwargs.  ``merge_chunks(chunks, spec)`` is the
inverse: tensors concatenated along their dimension, ``_CustomReducer``
leaves folded, other leaves checked equal and kept once.

Without a spec every tensor is cut (or merged) along dimension 0.  When a
tensor has fewer rows than ``chunks`` the result has fewer chunks, as
PyTorch (the schedule then reports the count it expected)."""
import operator

import torchlike
from torchlike.utils._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["TensorChunkSpec", "split_args_kwargs_into_chunks", "merge_chunks"]

DEFAULT_CHUNK_DIM = 0


class _CustomReducer:
    """Merges one leaf of every chunk with ``reduce_fn`` from ``init_value``."""

    def __init__(self, init_value, reduce_fn):
        self.init_value = init_value
        self.reduce_fn = reduce_fn


class _LossReducer(_CustomReducer):
    pass


sum_reducer = _LossReducer(torchlike.tensor(0.0), operator.add)


class TensorChunkSpec:
    """Cut (and merge) a tensor along ``split_dim``."""

    def __init__(self, split_dim):
        self.split_dim = split_dim

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__name__}({self.split_dim})"

    def __str__(self):
        return f"TensorChunkSpec({self.split_dim})"

    @staticmethod
    def from_tuple(chunk_dims):
        """A tuple of specs from a tuple of dimensions: ``(0, 0, 1)``."""
        return tuple(TensorChunkSpec(d) for d in chunk_dims)

    @staticmethod
    def from_dict(chunk_dims):
        """A dict of specs from a dict of dimensions: ``{"mask": 1}``."""
        return {k: TensorChunkSpec(d) for k, d in chunk_dims.items()}


class _Replicate:
    """Give every chunk the same value."""


def _is_replicate(spec):
    return spec is _Replicate or isinstance(spec, _Replicate)


def _split_tensor(tensor, spec, num_chunks):
    """``num_chunks`` views of ``tensor`` along ``spec.split_dim``."""
    size = tensor.size(spec.split_dim)
    if size < num_chunks:
        raise ValueError(f"Tensor size {size} is smaller than num_chunks: a tensor of shape "
                         f"{tuple(tensor.shape)} cannot be cut into {num_chunks} microbatches "
                         f"along dimension {spec.split_dim}")
    parts = torchlike.tensor_split(tensor, num_chunks, spec.split_dim)
    if tensor.requires_grad and tensor.is_leaf:
        for p in parts:  # so that a stage can read the gradient of each part
            p.retain_grad()
    return list(parts)


def _shard(values, specs, num_chunks):
    """``values`` (a dict) cut into at most ``num_chunks`` dicts by ``specs``."""
    if not values:
        return [{} for _ in range(num_chunks)]
    if set(values) != set(specs):
        raise ValueError(f"the chunk spec's keys {sorted(map(str, specs))} differ from the "
                         f"arguments' {sorted(map(str, values))}")
    specs = {k: specs[k] for k in values}  # in the values' order
    flat, tree = tree_flatten(values)
    flat_specs, spec_tree = tree_flatten(specs, is_leaf=lambda s: s is None or _is_replicate(s)
                                         or isinstance(s, TensorChunkSpec))
    if len(flat_specs) != len(flat):
        raise ValueError(f"the chunk spec {specs} does not match the arguments' structure")
    sizes = [num_chunks]
    for v, spec in zip(flat, flat_specs):
        if _is_replicate(spec):
            continue
        if isinstance(v, torchlike.Tensor) and isinstance(spec, TensorChunkSpec):
            sizes.append(v.size(spec.split_dim))
        else:
            raise ValueError(f"Unsupported chunk spec: {spec} and value: {v} combination.")
    n = min(sizes)
    columns = []
    for v, spec in zip(flat, flat_specs):
        columns.append([v] * n if _is_replicate(spec) else _split_tensor(v, spec, n))
    return [tree_unflatten([c[i] for c in columns], tree) for i in range(n)]


def _default_spec(v):
    return TensorChunkSpec(DEFAULT_CHUNK_DIM) if isinstance(v, torchlike.Tensor) else _Replicate()


def split_args_kwargs_into_chunks(args, kwargs, chunks, args_chunk_spec=None,
                                  kwargs_chunk_spec=None):
    """``(list of args tuples, list of kwargs dicts)``: the microbatches."""
    kwargs = {} if kwargs is None else kwargs
    if args_chunk_spec is None:
        args_chunk_spec = tuple(tree_map(_default_spec, a) for a in args)
    if kwargs_chunk_spec is None:
        kwargs_chunk_spec = {k: tree_map(_default_spec, v) for k, v in kwargs.items()}
    if len(args_chunk_spec) != len(args):
        raise ValueError(f"args_chunk_spec has {len(args_chunk_spec)} entries for "
                         f"{len(args)} positional arguments")
    arg_split = _shard(dict(enumerate(args)), dict(enumerate(args_chunk_spec)), chunks)
    kwarg_split = _shard(kwargs, kwargs_chunk_spec, len(arg_split))
    if len(kwarg_split) < len(arg_split):  # the kwargs allow fewer chunks
        arg_split = _shard(dict(enumerate(args)), dict(enumerate(args_chunk_spec)),
                           len(kwarg_split))
    return [tuple(a[i] for i in range(len(args))) for a in arg_split], kwarg_split


def merge_chunks(chunks, chunk_spec):
    """One value from the list ``chunks`` (each with the same structure)."""
    if chunk_spec is not None:
        flat_spec, tree = tree_flatten(chunk_spec, is_leaf=lambda s: s is None or
                                       isinstance(s, (TensorChunkSpec, _CustomReducer)))
    else:
        first, tree = tree_flatten(chunks[0])
        flat_spec = [TensorChunkSpec(DEFAULT_CHUNK_DIM)] * len(first)
    columns = [[] for _ in flat_spec]
    for chunk in chunks:
        flat, _ = tree_flatten(chunk)
        if len(flat) != len(flat_spec):
            raise ValueError(f"Chunk {chunk} did not match chunk spec {chunk_spec}")
        for col, v in zip(columns, flat):
            col.append(v)
    merged = []
    for spec, col in zip(flat_spec, columns):
        if isinstance(spec, TensorChunkSpec):
            merged.append(torchlike.cat(col, dim=spec.split_dim))
        elif isinstance(spec, _CustomReducer):
            acc = spec.init_value
            for v in col:
                acc = spec.reduce_fn(acc, v)
            merged.append(acc)
        else:
            for v in col[1:]:
                if not v == col[0]:
                    raise ValueError(f"chunks differ in a leaf the spec does not merge: "
                                     f"{col[0]!r} and {v!r}")
            merged.append(col[0])
    return tree_unflatten(merged, tree)
