"""torch.nn.modules.utils: the argument helpers custom layers import
(``from torch.nn.modules.utils import _pair``)."""
import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    """A parser that repeats a single value n times and turns any iterable
    into a tuple as it is (its length unchecked, as in PyTorch)."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Each element of t repeated n times, in reverse order: the padding
    tuple F.pad takes from a conv's per-dim padding."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """out_size with each None replaced by the matching trailing size of
    defaults (adaptive pooling's output_size)."""
    if isinstance(out_size, (int, float)):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip prefix (e.g. "module." left by DataParallel) from the keys of
    state_dict and of its _metadata, in place."""
    keys = list(state_dict.keys())
    for key in keys:
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):  # "module", "module.x"
                metadata[key[len(prefix):]] = metadata.pop(key)
