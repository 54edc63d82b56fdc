"""The sparse tensor type: SparseTensor, its __torch_function__ routing
to the table of implementations (_IMPL), PyTorch's NotImplementedError for
the ops without one, and the constructors of the raw type (docs/sparse.md)."""
import math
import warnings

from .. import _C
from .._C import Tensor
from .._op_table import registrar, route
from .._layout import sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, strided


_int64 = _C.int64
_COMPRESSED = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
_ROW_MAJOR = (sparse_csr, sparse_bsr)      # compressed rows (crow/col)
_BLOCKED = (sparse_bsr, sparse_bsc)
_INDEX_NAMES = {sparse_csr: ("crow_indices", "col_indices"),
                sparse_bsr: ("crow_indices", "col_indices"),
                sparse_csc: ("ccol_indices", "row_indices"),
                sparse_bsc: ("ccol_indices", "row_indices")}


class SparseTensor(Tensor):
    """A tensor in a sparse layout (see the module docstring)."""

    # the storage is a placeholder: autograd densifies such a gradient, and the
    # C buffer protocol refuses to export the tensor (NumPy calls __array__)
    _tl_placeholder_storage = True
    _tl_refuse_buffer = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return route(_IMPL, func, args, kwargs or {}, _not_implemented)

    # pickling (torchlike.save and pickle): rebuilt from the index and value tensors
    def __reduce_ex__(self, proto):
        from .create import _rebuild_sparse_tensor
        if self._layout is sparse_coo:
            data = (self._idx, self._vals.detach(), self._size, self._coalesced)
        else:
            data = (self._cidx, self._pidx, self._vals.detach(), self._size)
        return _rebuild_sparse_tensor, (self._layout._name, data, self._vals.requires_grad)

    # Entry points that are not routed by __torch_function__ and would read
    # the placeholder storage: refused.
    @property
    def __array_struct__(self):
        raise TypeError(_NO_NUMPY.format("Sparse" if self._layout is sparse_coo else "SparseCsr"))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_NO_NUMPY.format("Sparse" if self._layout is sparse_coo else "SparseCsr"))

    def __dlpack__(self, *args, **kwargs):
        raise RuntimeError("Cannot pack tensors on sparse layouts: call to_dense() first")

    def __dlpack_device__(self):
        raise RuntimeError("Cannot pack tensors on sparse layouts: call to_dense() first")

    def as_subclass(self, cls):
        raise RuntimeError(f"as_subclass: a {self._layout} tensor has no strided data to "
                           f"share; call to_dense() first")

    def __deepcopy__(self, memo):
        out = _like(self, self._vals.detach().clone())
        if self._vals.requires_grad:
            out._vals.requires_grad_(True)
        memo[id(self)] = out
        return out


def _backend(layout):
    return "SparseCPU" if layout is sparse_coo else "SparseCsrCPU"


def _not_implemented(name, args, kwargs):
    layout = next(a._layout for a in (*args, *kwargs.values(), *_flat(args))
                  if isinstance(a, SparseTensor))
    op = name.rsplit(".", 1)[-1]
    if op.startswith("__") and op.endswith("__"):
        op = op[2:-2]
        if op in _DUNDER:
            op = _DUNDER[op]
        elif op[:1] in "ri" and op[1:] in _REFLECTED:  # __rsub__, __iadd__ ...
            op = op[1:] if op[0] == "r" else op[1:] + "_"
    return (f"Could not run 'aten::{op}' with arguments from the '{_backend(layout)}' backend. "
            "This could be because the operator doesn't exist for this backend, or was "
            "omitted during the selective/custom build process (if using custom build).")


_DUNDER = {"getitem": "index", "setitem": "index_put_", "invert": "bitwise_not",
           "truediv": "div", "rtruediv": "div", "itruediv": "div_", "floordiv": "floor_divide",
           "matmul": "matmul", "rmatmul": "matmul"}


_REFLECTED = {"add", "sub", "mul", "pow", "and", "or", "xor", "lshift", "rshift", "mod",
              "floordiv", "matmul", "truediv"}


def _flat(args):
    for a in args:
        if type(a) in (list, tuple):
            yield from a


# ---- construction -----------------------------------------------------------------------

def _placeholder(size, dtype):
    """The subclass's own storage: one element seen with the tensor's shape,
    NaN where the dtype has one, so that a read which escapes the routing
    (inside DisableTorchFunction) shows rather than passing for zeros.  A
    write into it fails (its elements share one memory location)."""
    fill = math.nan if dtype.is_floating_point or dtype.is_complex else 0
    return _C.full((), fill, dtype=dtype).expand(tuple(size))


def _new(layout, size, vals, **parts):
    s = Tensor._make_subclass(SparseTensor, _placeholder(size, vals.dtype), False)
    s._layout = layout
    s._size = tuple(int(n) for n in size)
    s._vals = vals
    s._idx = parts.get("idx")
    s._cidx = parts.get("cidx")
    s._pidx = parts.get("pidx")
    s._coalesced = bool(parts.get("coalesced", False))
    return s


def _coo(idx, vals, size, coalesced=False):
    return _new(sparse_coo, size, vals, idx=idx, coalesced=coalesced)


_compressed_warned = False   # PyTorch's beta notice, once per process


def _compressed(layout, cidx, pidx, vals, size):
    global _compressed_warned
    if not _compressed_warned:
        _compressed_warned = True
        warnings.warn("Sparse CSR tensor support is in beta state. If you miss a functionality "
                      "in the sparse tensor support, please submit a feature request to "
                      "https://github.com/pytorch/pytorch/issues.", stacklevel=3)
    return _new(layout, size, vals, cidx=cidx, pidx=pidx)


def _like(s, vals):
    """s's pattern with other values."""
    if s._layout is sparse_coo:
        return _coo(s._idx, vals, s._size[:s._idx.shape[0]] + tuple(vals.shape[1:]),
                    s._coalesced)
    return _compressed(s._layout, s._cidx, s._pidx, vals, s._size)


def _set(s, other):
    """s takes other's contents (the in-place ops).  A leaf that requires
    grad stays one (a parameter stepped by an optimizer under no_grad); in
    grad mode that is PyTorch's in-place error on a leaf."""
    vals = other._vals
    if s._vals.requires_grad and s._vals.is_leaf and vals is not s._vals:
        if _C.is_grad_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        vals = vals.detach().requires_grad_(True)
    s._layout, s._size, s._vals = other._layout, other._size, vals
    s._idx, s._cidx, s._pidx, s._coalesced = other._idx, other._cidx, other._pidx, \
        other._coalesced
    return s


def _need(s, op, layouts):
    """PyTorch's refusal of a tensor in another layout."""
    if not isinstance(s, SparseTensor) or s._layout not in layouts:
        got = _LAYOUT_WORDS[s._layout if isinstance(s, SparseTensor) else strided]
        raise RuntimeError(f"{op} expected {_kind(layouts)} tensor layout but got {got}")


_LAYOUT_WORDS = {strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr",
                 sparse_csc: "SparseCsc", sparse_bsr: "SparseBsr", sparse_bsc: "SparseBsc"}


def _kind(layouts):
    return {(sparse_coo,): "sparse coordinate", _ROW_MAJOR: "sparse row compressed",
            (sparse_csc, sparse_bsc): "sparse column compressed"}.get(
        tuple(layouts), "sparse" if len(layouts) > 2 else
        " or ".join(str(x)[len("torchlike."):] for x in layouts))


def _block(s):
    return tuple(s._vals.shape[1:3]) if s._layout in _BLOCKED else (1, 1)


# ---- the table of implementations --------------------------------------------------------

_IMPL = {}


_op = registrar(_IMPL)  # @_op("name", ...): an implementation (_op_table.py)


def _sp(x):
    return isinstance(x, SparseTensor)


def _wrap_dim(d, nd):
    if not -max(nd, 1) <= d < max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {d})")
    return d % max(nd, 1)


_NO_NUMPY = "can't convert {} layout tensor to numpy. Use Tensor.to_dense() first."


@_op("Tensor.sparse_dim")
def sparse_dim(s):
    return s._idx.shape[0] if s._layout is sparse_coo else 2


@_op("Tensor.dense_dim")
def dense_dim(s):
    return len(s._size) - sparse_dim(s)
