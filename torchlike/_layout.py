"""torchlike.layout and torchlike.memory_format: the values factories accept
for layout= and memory_format= (torch.strided, torch.contiguous_format ...).

Dense tensors are strided; memory_format= lays a new tensor's dims out
(clone, contiguous, to, empty and the _like forms; the core reads these four
objects, docs/shapes.md "Memory layouts").  The sparse layouts (sparse_coo, sparse_csr ...) are those of torchlike._sparse's
SparseTensor (docs/sparse.md)."""

from ._C import Tensor


class layout:
    """The memory layout kind of a tensor: strided, or a sparse layout."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torchlike.{self._name}"

    def __reduce__(self):  # pickles as the module attribute of that name
        return self._name


class memory_format:
    """How a tensor's dimensions are ordered in memory."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torchlike.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")  # torchlike.nested's layout with one ragged dim (docs/nested.md)
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

if not hasattr(Tensor, "layout"):
    Tensor.layout = property(lambda self: strided,
                             doc="torchlike.strided (a sparse tensor answers its own layout).")

__all__ = ["layout", "memory_format", "strided", "sparse_coo", "sparse_csr", "sparse_csc",
           "sparse_bsr", "sparse_bsc", "jagged", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d"]
