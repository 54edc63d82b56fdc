"""Which part of a global tensor a local tensor holds.

torchlike has no ShardedTensor or DTensor: FSDP's sharded state dicts hold
plain tensors, each this rank's piece of a parameter.  The code that cuts
a piece records here the whole tensor's size and the piece's offsets, so
that torchlike.distributed.checkpoint writes the piece as a chunk of the
global tensor (and reads back only the part a rank holds, whatever the
world size of the save).  The record is kept beside the tensor, not on it
(an attribute would travel into torchlike.save's pickles), keyed by the
tensor's identity and dropped when the tensor dies."""
import weakref

__all__ = ["ShardSpec", "tag", "spec_of", "dim0_piece"]


class ShardSpec:
    """``global_size`` (tuple) of the whole tensor and ``offsets`` (tuple, one
    per dimension) of the piece inside it; the piece's sizes are its shape."""

    __slots__ = ("global_size", "offsets")

    def __init__(self, global_size, offsets):
        self.global_size = tuple(int(s) for s in global_size)
        self.offsets = tuple(int(o) for o in offsets)

    def __repr__(self):
        return f"ShardSpec(global_size={self.global_size}, offsets={self.offsets})"


_SPECS = {}   # id(tensor) -> (weakref to it, ShardSpec)


def tag(t, global_size, offsets):
    """Record that ``t`` is the piece at ``offsets`` of a tensor of
    ``global_size``; returns ``t``."""
    key = id(t)
    if len(global_size) != t.dim() or len(offsets) != t.dim():
        raise ValueError(f"a piece of shape {tuple(t.shape)} cannot sit at offsets "
                         f"{tuple(offsets)} of a tensor of size {tuple(global_size)}")
    for o, n, g in zip(offsets, t.shape, global_size):
        if o < 0 or o + n > g:
            raise ValueError(f"a piece of shape {tuple(t.shape)} at offsets {tuple(offsets)} "
                             f"lies outside a tensor of size {tuple(global_size)}")
    _SPECS[key] = (weakref.ref(t, lambda _r, k=key: _SPECS.pop(k, None)),
                   ShardSpec(global_size, offsets))
    return t


def spec_of(t):
    """The ShardSpec recorded for ``t``, or None (a whole tensor)."""
    entry = _SPECS.get(id(t))
    if entry is None or entry[0]() is not t:
        return None
    return entry[1]


def dim0_piece(whole_size, rank, world):
    """(start, length) of rank's piece when dim 0 of ``whole_size`` is cut as
    ``torch.chunk(world)`` cuts it (later ranks may get less, or nothing)."""
    n = whole_size[0]
    step = -(-n // world) if n else 0
    lo = min(n, rank * step)
    return lo, min(n, lo + step) - lo
