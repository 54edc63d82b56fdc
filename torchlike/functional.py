"""torchlike.functional, as ``torch.functional``: the module where PyTorch
keeps a few of its top-level functions written in Python.  Code that imports
them from here (``from torch.functional import einsum``) gets torchlike's
own top-level functions, looked up when asked for (the package wraps some
of them after this module is imported)."""

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]


def __getattr__(name):
    if name in __all__:
        import torchlike
        return getattr(torchlike, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
