"""Placements: how a DTensor's global value lies on one dimension of its
device mesh, as torch.distributed.tensor.placement_types.

* ``Shard(dim)``: the ranks along the mesh dimension each hold one piece of
  tensor dimension ``dim``, cut as ``torch.chunk`` cuts (pieces of
  ``ceil(size / n)``; the last ranks get a shorter or empty piece).
* ``Replicate()``: every rank holds the whole value.
* ``Partial(reduce_op="sum")``: every rank holds a tensor of the global
  shape, and the value is their sum (the reduction ``reduce_op`` of them).

``chunk_sizes(size, n)`` and ``chunk_offsets(size, n)`` give the pieces
``Shard`` cuts; the redistribution and op rules read them."""

__all__ = ["Placement", "Shard", "Replicate", "Partial"]

_REDUCE_OPS = ("sum", "avg", "max", "min", "product")


def chunk_sizes(size, n):
    """The sizes of the ``n`` pieces of a dimension of ``size`` (torch.chunk's
    cut, padded with empty pieces to ``n``)."""
    full = -(-size // n) if size else 0
    return [max(0, min(size, full * (k + 1)) - min(size, full * k)) for k in range(n)]


def chunk_offsets(size, n):
    """Where each of the ``n`` pieces of ``chunk_sizes(size, n)`` starts."""
    full = -(-size // n) if size else 0
    return [min(size, full * k) for k in range(n)]


class Placement:
    """The base of the placement types."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    """Tensor dimension ``dim`` split across the ranks of a mesh dimension."""

    __slots__ = ("dim",)

    def __init__(self, dim=0):
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"Shard(dim): dim must be an int, got {type(dim).__name__}")
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self):
        return hash(("Shard", self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """The whole value on every rank of a mesh dimension."""

    __slots__ = ()

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is Replicate

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Each rank of a mesh dimension holds a partial value; the value is
    their ``reduce_op`` (only "sum" and "avg" are redistributed)."""

    __slots__ = ("reduce_op",)

    def __init__(self, reduce_op="sum"):
        if reduce_op not in _REDUCE_OPS:
            raise ValueError(f"Partial: unknown reduce_op {reduce_op!r} (one of {_REDUCE_OPS})")
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other):
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("Partial", self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
