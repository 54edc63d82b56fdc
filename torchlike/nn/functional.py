"""torchlike.nn.functional: stateless neural-network operations.

Each function here is a thin, documented entry point to a C op of
``torchlike._C``; the argument checking and the work happen there."""
from .. import _C


def pad(input, pad, mode="constant", value=None):
    r"""Pad ``input`` by the amounts in ``pad``, starting from the last dim.

    ``pad`` is ``(left, right)`` for the last dim, then ``(top, bottom)`` for the
    one before it, and so on: ``len(pad) // 2`` dims are padded.  Negative
    amounts crop.

    Modes:
      * ``"constant"`` - fill with ``value`` (default 0), any number of dims;
      * ``"reflect"`` - mirror without repeating the edge (amount < size);
      * ``"replicate"`` - repeat the edge element;
      * ``"circular"`` - wrap around (amount <= size).

    Shape: ``(*, D_k, ..., D_1)`` -> ``(*, D_k + pad_k_l + pad_k_r, ...)``.
    Unlike PyTorch, the non-constant modes are not limited to 1-3 padded
    dims with a batch/channel dim in front; they pad any trailing dims.
    """
    return _C._pad(input, pad, mode, value)
