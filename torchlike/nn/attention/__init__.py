"""torchlike.nn.attention: ``SDPBackend`` and ``sdpa_kernel``, which choose
how ``F.scaled_dot_product_attention`` runs (see _backends.py), and
``flex_attention`` (a submodule, computed densely) and ``bias`` (causal
masks for unequal query and key lengths)."""
from ._backends import SDPBackend, sdpa_kernel  # noqa: F401

__all__ = ["SDPBackend", "sdpa_kernel", "flex_attention", "bias"]


def __getattr__(name):
    # torch.nn.attention.flex_attention and .bias, imported on first use (they
    # need nn.functional)
    if name in ("flex_attention", "bias"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
