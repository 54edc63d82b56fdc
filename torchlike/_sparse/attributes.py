"""What a sparse tensor answers about itself: shape, dtype, layout, its
index and value tensors, autograd flags, refusals of storage access, and its
repr (PyTorch's format)."""
import math

from .. import _C
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsc
from .tensor import (
    _COMPRESSED, _IMPL, _INDEX_NAMES, _NO_NUMPY, _ROW_MAJOR, _coo, _like, _need, _op, _sp,
    _wrap_dim)
from .create import (
    _coo_of, _linear, _unravel, coalesce, to_dense, to_sparse, to_sparse_bsc, to_sparse_bsr,
    to_sparse_coo, to_sparse_csc, to_sparse_csr)
from .elementwise import detach


# ---- attributes --------------------------------------------------------------------------

def _prop(name, getter):
    _IMPL[f"Tensor.{name}.__get__"] = getter


_prop("shape", lambda s: _C.Size(s._size))
_prop("dtype", lambda s: s._vals.dtype)
_prop("device", lambda s: s._vals.device)
_prop("layout", lambda s: s._layout)
_prop("is_sparse", lambda s: s._layout is sparse_coo)
_prop("is_sparse_csr", lambda s: s._layout is sparse_csr)
_prop("requires_grad", lambda s: s._vals.requires_grad)
_prop("grad_fn", lambda s: s._vals.grad_fn)
_prop("is_leaf", lambda s: s._vals.is_leaf)
_prop("ndim", lambda s: len(s._size))
_prop("is_cuda", lambda s: False)
_prop("is_cpu", lambda s: True)
_prop("is_meta", lambda s: False)
_prop("is_quantized", lambda s: False)
_prop("is_nested", lambda s: False)
_prop("is_mkldnn", lambda s: False)
_prop("names", lambda s: (None,) * len(s._size))
_prop("data", lambda s: detach(s))
_prop("itemsize", lambda s: s._vals.itemsize)


def _get_grad(s):
    """The gradient with respect to s: its values' gradient on s's pattern.
    Every op here depends on a COO tensor only through the sum of its
    duplicates, so duplicates carry the same gradient; PyTorch gives one
    entry per position, coalesced (the dense gradient masked by s)."""
    g = s._vals.grad
    if g is None:
        return None
    if s._layout is not sparse_coo or s._coalesced or s._idx.shape[1] == 0:
        return _like(s, g)
    sizes, nnz = s._size[:s._idx.shape[0]], s._idx.shape[1]
    uniq, inv = _C.unique(_linear(s._idx, sizes), sorted=True, return_inverse=True)
    first = _C.full((uniq.shape[0],), nnz, dtype=_C.int64).scatter_reduce(
        0, inv, _C.arange(nnz), "amin")  # each position's first entry
    return _coo(_unravel(uniq, sizes), g[first], s._size, True)


def _set_grad(s, g):
    if g is None:
        s._vals.grad = None
        return
    if not _sp(g):
        raise RuntimeError("assigned grad has data of a different layout: sparse tensors "
                           "take sparse gradients")
    s._vals.grad = _coo_of(g)._vals if s._layout is not sparse_coo else g._vals


_prop("grad", _get_grad)
_IMPL["Tensor.grad.__set__"] = _set_grad


def _set_requires_grad(s, flag):
    s._vals.requires_grad = flag


_IMPL["Tensor.requires_grad.__set__"] = _set_requires_grad


@_op("Tensor.dim", "Tensor.ndimension")
def _dim(s):
    return len(s._size)


@_op("Tensor.size")
def _size_of(s, dim=None):
    if dim is None:
        return _C.Size(s._size)
    return s._size[_wrap_dim(dim, len(s._size))]


@_op("Tensor.numel", "numel", "Tensor.nelement")
def _numel(s):
    return math.prod(s._size)


@_op("Tensor.__len__")
def _len(s):
    if not s._size:
        raise TypeError("len() of a 0-d tensor")
    return s._size[0]


@_op("Tensor.is_floating_point", "is_floating_point")
def _is_fp(s):
    return s._vals.is_floating_point()


@_op("Tensor.is_complex", "is_complex")
def _is_complex(s):
    return s._vals.is_complex()


@_op("Tensor.element_size")
def _element_size(s):
    return s._vals.element_size()


@_op("Tensor.get_device")
def _get_device(s):
    return -1


@_op("Tensor.is_contiguous")
def _is_contiguous(s, memory_format=None):
    return False


@_op("Tensor._nnz")
def _nnz(s):
    return s._vals.shape[0]


@_op("Tensor.is_coalesced")
def is_coalesced(s):
    _need(s, "is_coalesced", (sparse_coo,))
    return s._coalesced


@_op("Tensor._coalesced_")
def _coalesced_(s, flag):
    _need(s, "_coalesced_", (sparse_coo,))
    s._coalesced = bool(flag)
    return s


def _part(name, layouts, attr, coalesced_only=False):
    """The getter of one of a sparse tensor's parts, registered as
    Tensor.<name>; coalesced_only: PyTorch's indices() and values() refuse an
    uncoalesced COO tensor (its parts would not be unique)."""
    def get(s):
        _need(s, name, layouts)
        if coalesced_only and s._layout is sparse_coo and not s._coalesced:
            raise RuntimeError(f"Cannot get {name} on an uncoalesced tensor, please call "
                               f".coalesce() first")
        return getattr(s, attr)
    get.__name__ = get.__qualname__ = name
    _IMPL[f"Tensor.{name}"] = get
    return get


indices = _part("indices", (sparse_coo,), "_idx", coalesced_only=True)
_indices = _part("_indices", (sparse_coo,), "_idx")
values = _part("values", (sparse_coo,) + _COMPRESSED, "_vals", coalesced_only=True)
_values = _part("_values", (sparse_coo,), "_vals")
crow_indices = _part("crow_indices", _ROW_MAJOR, "_cidx")
col_indices = _part("col_indices", _ROW_MAJOR, "_pidx")
ccol_indices = _part("ccol_indices", (sparse_csc, sparse_bsc), "_cidx")
row_indices = _part("row_indices", (sparse_csc, sparse_bsc), "_pidx")


@_op("Tensor.coalesce")
def _coalesce_method(s):
    return coalesce(s)


_op("Tensor.to_dense")(to_dense)
_op("Tensor.to_sparse")(to_sparse)
_op("Tensor.to_sparse_coo")(to_sparse_coo)
_op("Tensor.to_sparse_csr")(to_sparse_csr)
_op("Tensor.to_sparse_csc")(to_sparse_csc)
_op("Tensor.to_sparse_bsr")(to_sparse_bsr)
_op("Tensor.to_sparse_bsc")(to_sparse_bsc)


@_op("Tensor.numpy", "Tensor.__array__")
def _numpy(s, *args, **kwargs):
    raise TypeError(_NO_NUMPY.format("Sparse" if s._layout is sparse_coo else "SparseCsr"))


_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


@_op("Tensor.tolist", "Tensor.data_ptr", "Tensor.__float__", "Tensor.__int__",
     "Tensor.__index__", "Tensor.__complex__")
def _no_storage(s, *args, **kwargs):
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.item")
def _item(s):
    n = math.prod(s._size)
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.__bool__")
def _bool(s):
    if math.prod(s._size) > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    raise RuntimeError(_NO_STORAGE)


@_op("Tensor.storage", "Tensor.untyped_storage", "Tensor.stride")
def _no_storage_impl(s, *args, **kwargs):
    impl = "SparseTensorImpl" if s._layout is sparse_coo else "SparseCsrTensorImpl"
    raise NotImplementedError(f"Cannot access storage of {impl}")


# ---- printing ----------------------------------------------------------------------------

def _inner(t, indent):
    """The body PyTorch prints for an index or value tensor inside a sparse repr."""
    from .._tensor_str import _body_str, _PRINT_DTYPES
    t = t.detach()
    arr = (t.float() if t.dtype == _C.bfloat16 else t).numpy()
    np_dtype = _PRINT_DTYPES.get(str(t.dtype).split(".")[-1])
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if arr.size == 0:
        return "[], size=" + str(tuple(arr.shape))
    return _body_str(arr, indent)


@_op("Tensor.__repr__", "Tensor.__str__")
def _repr(s, *, tensor_contents=None):
    from .._tensor_str import _add_suffixes
    from .. import get_default_dtype
    indent = len("tensor(")
    suffixes = [f"size={tuple(s._size)}", f"nnz={s._vals.shape[0]}"]
    dt = s._vals.dtype
    default = get_default_dtype()
    defaults = (default, _C.complex128 if default == _C.float64 else _C.complex64,
                _C.int64, _C.bool)
    if dt not in defaults:
        suffixes.append(f"dtype={dt}")
    suffixes.append(f"layout={s._layout}")
    if s._layout is sparse_coo:
        parts = [("indices", s._idx), ("values", s._vals)]
    else:
        cname, pname = _INDEX_NAMES[s._layout]
        parts = [(cname, s._cidx), (pname, s._pidx), ("values", s._vals)]
    body = (",\n" + " " * indent).join(
        f"{name}=tensor(" + _inner(t, indent + len(name) + len("=tensor(")) + ")"
        for name, t in parts)
    gf = s._vals.grad_fn
    if gf is not None:
        suffixes.append(f"grad_fn=<{type(gf).__name__}>")
    elif s._vals.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, suffixes, indent, s._layout is sparse_coo)


@_op("Tensor.__format__")
def _format(s, spec):
    return _repr(s)
