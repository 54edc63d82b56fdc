"""The sparse API's methods on strided tensors (to_sparse, to_dense,
is_sparse ...) and their PyTorch refusals (a strided tensor has no indices)."""
from .._C import Tensor
from .._layout import sparse_coo, sparse_csc, sparse_bsc
from .tensor import _COMPRESSED, _IMPL, _ROW_MAJOR, _need, _sp
from .create import (
    to_sparse, to_sparse_bsc, to_sparse_bsr, to_sparse_coo, to_sparse_csc, to_sparse_csr)


# ---- the methods a strided tensor has for the sparse API ---------------------------------

def _dense_refusal(name, layouts):
    def refuse(self, *args, **kwargs):
        if _sp(self):  # private names (_values, _nnz ...) are not routed by __torch_function__
            return _IMPL[f"Tensor.{name}"](self, *args, **kwargs)
        if layouts is None:  # no layout check in PyTorch: the dispatcher refuses
            raise NotImplementedError(
                f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This "
                f"could be because the operator doesn't exist for this backend, or was omitted "
                f"during the selective/custom build process (if using custom build).")
        _need(self, name, layouts)
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__module__ = __name__
    refuse.__doc__ = f"Sparse tensors only: a strided tensor has no {name}()."
    return refuse


def _dense_sparse_mask(self, mask):
    """A strided tensor's values at mask's entries (mask must be sparse)."""
    raise RuntimeError("sparse_mask: expected mask to be a sparse tensor, got a strided one")


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    """A strided tensor is its own dense form."""
    return self if dtype is None else self.to(dtype)


def _dense_sparse_dim(self):
    """0: a strided tensor has no sparse dimensions."""
    return 0


def _dense_dense_dim(self):
    """All of a strided tensor's dimensions are dense."""
    return self.ndim


def _install_tensor_methods():
    methods = {"to_sparse": to_sparse, "to_sparse_coo": to_sparse_coo,
               "to_sparse_csr": to_sparse_csr, "to_sparse_csc": to_sparse_csc,
               "to_sparse_bsr": to_sparse_bsr, "to_sparse_bsc": to_sparse_bsc,
               "to_dense": _dense_to_dense, "sparse_mask": _dense_sparse_mask,
               "sparse_dim": _dense_sparse_dim, "dense_dim": _dense_dense_dim}
    coo, cols = (sparse_coo,), (sparse_csc, sparse_bsc)
    for name, layouts in (("indices", coo), ("_indices", coo), ("_values", coo),
                          ("coalesce", coo), ("is_coalesced", coo), ("_coalesced_", coo),
                          ("sparse_resize_", coo), ("sparse_resize_and_clear_", coo),
                          ("values", coo + _COMPRESSED), ("_nnz", None),
                          ("crow_indices", _ROW_MAJOR), ("col_indices", _ROW_MAJOR),
                          ("ccol_indices", cols), ("row_indices", cols)):
        methods[name] = _dense_refusal(name, layouts)
    for name, f in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, f)
    for name in ("is_sparse", "is_sparse_csr"):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(lambda self: False,
                                           doc="False: a strided tensor (sparse ones say True)."))


_install_tensor_methods()
