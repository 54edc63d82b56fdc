"""torchlike.backends.mha, as ``torch.backends.mha``: the switch of the
inference fast path of the Transformer encoder.  Its one effect here is the
one a program can see: with the switch on (the default), an eval-mode
``TransformerEncoder`` run without gradients and given a padding mask
returns zeros at the padded positions (PyTorch's nested-tensor path); see
``TransformerEncoder.forward``."""

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
