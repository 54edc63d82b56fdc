"""default_collate and default_convert, as in ``torch.utils.data._utils.collate``:
how the DataLoader turns a list of samples into a batch (auto-batching) or a
single sample into tensors (``batch_size=None``).

The recursion follows the first sample's type: tensors stack along a new first
dimension, NumPy arrays and scalars become tensors (then stack), Python floats
become float64 and ints int64 tensors, strings stay lists, and mappings,
named tuples and sequences are collated field by field."""
import collections.abc
import copy
import re

import numpy as _np

from ... import _C
from ..._C import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

# NumPy dtype codes of strings and objects, which have no tensor form.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                           "dicts or lists; found {}")


def _is_numpy_array(x):
    return type(x).__module__ == "numpy" and type(x).__name__ in ("ndarray", "memmap")


def _is_numpy_scalar(x):
    return (type(x).__module__ == "numpy" and not isinstance(x, (str, bytes))
            and getattr(x, "shape", None) == ())


def _like_mapping(template, items):
    """`items` (a dict) in a mapping of template's type: a copy of it updated
    when mutable, else the type built from the dict, else the dict itself."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)
            clone.update(items)
            return clone
        return type(template)(items)
    except TypeError:
        return items


def _like_sequence(template, values):
    """`values` (a list) in a sequence of template's type, as _like_mapping."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(template)(values)
    except TypeError:
        return values


def default_convert(data):
    """NumPy arrays and scalars inside ``data`` become tensors; containers keep
    their type (tuples become lists, as in PyTorch); other values stay."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy_array(data) or _is_numpy_scalar(data):
        if _is_numpy_array(data) and _np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _C.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _like_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _like_sequence(data, [default_convert(d) for d in data])
    return data


def _stack(batch):
    first = batch[0].shape
    for i, t in enumerate(batch):
        if t.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t.shape)} at entry {i}")
    return _C.stack(batch, 0)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return _stack(batch)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(_collate_err_msg_format.format(batch[0].dtype))
    return collate([_C.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _C.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return _C.tensor(batch, dtype=_C.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _C.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# The leaf collators default_collate uses, by the first sample's type (a key
# may be a tuple of types). Code that collates its own types adds entries here
# or passes a map of its own to collate().
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    _np.ndarray: collate_numpy_array_fn,
    (_np.bool_, _np.number, _np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _leaf_collator(elem, collate_fn_map):
    """The collator collate_fn_map holds for elem's type: its exact type
    first, then the first key elem is an instance of."""
    if collate_fn_map is None:
        return None
    fn = collate_fn_map.get(type(elem))
    if fn is not None:
        return fn
    for key, fn in collate_fn_map.items():
        if isinstance(elem, key):
            return fn
    return None


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples: a leaf type through its collator in
    collate_fn_map, mappings, named tuples and sequences field by field (each
    field collated with the same map). Sequences of unequal lengths raise
    RuntimeError; a type with no collator raises TypeError."""
    elem = batch[0]
    elem_type = type(elem)
    fn = _leaf_collator(elem, collate_fn_map)
    if fn is not None:
        return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _like_mapping(elem, {key: collate([d[key] for d in batch],
                                                 collate_fn_map=collate_fn_map) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        return collated if isinstance(elem, tuple) else _like_sequence(elem, collated)
    raise TypeError(_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Collate a list of samples into a batch (see the module docstring):
    collate() with default_collate_fn_map.

    Tensors of unequal shapes raise RuntimeError naming both shapes; sequences
    of unequal lengths raise RuntimeError; other types raise TypeError."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
