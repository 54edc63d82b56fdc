"""torchlike.backends.mha, as ``torch.backends.mha``: the switch of
PyTorch's inference fast paths of attention.  Its effects here are the ones
a program can see: with the switch on (the default), an eval-mode
``TransformerEncoder`` run without gradients and given a padding mask
returns zeros at the padded positions (PyTorch's nested-tensor path; see
``TransformerEncoder.forward``), and ``MultiheadAttention`` and
``TransformerEncoderLayer`` compute as PyTorch's fused kernels do (hard
masks, ``is_causal`` unread, NaN for a query with no key; see their
``_fast_forward``)."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled = True


def get_fastpath_enabled():
    """Whether the fast path may be taken (True unless switched off)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    """Switch the fast path on or off (the value is kept as given, as
    PyTorch keeps it, and read for its truth)."""
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
