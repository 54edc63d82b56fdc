"""torchlike.utils.dlpack: PyTorch's DLPack helpers.

``to_dlpack`` gives the legacy ``"dltensor"`` capsule older consumers expect;
``from_dlpack`` takes a capsule or any object with ``__dlpack__``.  See
docs/interop.md for what is shared and what is copied."""
from .. import _C

__all__ = ["to_dlpack", "from_dlpack"]

from_dlpack = _C.from_dlpack


def to_dlpack(tensor):
    """A legacy DLPack capsule viewing ``tensor`` (consumed once, zero-copy).

    Read-only tensors can't be exported this way, since the legacy format has no
    read-only flag: use ``tensor.__dlpack__(max_version=(1, 0))`` instead."""
    if not hasattr(tensor, "__dlpack__"):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()
