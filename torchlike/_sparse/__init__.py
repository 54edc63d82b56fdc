"""Sparse tensors: the COO and compressed (CSR, CSC, BSR, BSC) layouts
(docs/sparse.md).

A sparse tensor is a :class:`SparseTensor` (``tensor.py``), a Tensor
subclass that holds plain tensors: COO keeps ``_idx`` (sparse_dim, nnz)
int64 and ``_vals`` (nnz, *dense_shape); the compressed layouts keep
``_cidx`` (compressed indices), ``_pidx`` (plain indices) and ``_vals``.
Its own dense storage is a placeholder and is never read as data: every
function, method, operator and property reached with a sparse argument goes
through ``SparseTensor.__torch_function__``, which runs the implementation
registered for it (``_IMPL``, filled by the modules below) or raises
PyTorch's NotImplementedError naming the op and the backend.

Every implementation is written with dense ops on the index and value
tensors, so the autograd tape differentiates through ``_vals``: gradients
reach the values of sparse inputs and the dense operands.

    tensor.py         the type, the routing, the raw constructors
    create.py         factories, invariant checks, coalesce, layout conversions
    attributes.py     shape/dtype/layout/parts, autograd flags, repr
    elementwise.py    copies and casts, add/sub/mul/div/pow, zero-preserving unary ops
    products.py       mm / matmul / addmm / sampled_addmm
    reductions.py     sum, norms, softmax
    shapes.py         transpose, permute, narrow_copy, index_select, sparse_mask, spdiags
    dense_methods.py  the sparse API's methods on strided tensors
    grads.py          sparse gradients of embedding tables"""
from .tensor import SparseTensor, _coo, _compressed, _like, _IMPL  # noqa: F401
from .create import (sparse_coo_tensor, sparse_compressed_tensor, sparse_csr_tensor,  # noqa: F401
                     sparse_csc_tensor, sparse_bsr_tensor, sparse_bsc_tensor, coalesce,
                     to_dense, _rebuild_sparse_tensor)
from . import attributes  # noqa: F401  (registers the attribute implementations)
from .elementwise import add, add_  # noqa: F401
from .products import mm, addmm, sampled_addmm  # noqa: F401
from .reductions import sum, softmax, log_softmax  # noqa: F401
from .shapes import spdiags  # noqa: F401
from . import dense_methods  # noqa: F401  (the methods of strided tensors)
from .grads import deliver_grad, sparse_embedding, sparse_embedding_bag  # noqa: F401
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc  # noqa: F401
