"""NestedTensor: a batch of tensors whose shapes differ (torch.nested).

A nested tensor of B components, each of n dims, has n + 1 dims; dim 0 is
the batch.  It holds its components as ordinary tensors (``_nt_comps``), so
an op on it is that op on each component, recorded on the tape as usual:
gradients reach the components, and through them the tensors they came
from.  Its own storage is a placeholder of the padded shape (NaN, never
read as data; NumPy's buffer protocol refuses it).

Two layouts, as PyTorch's:

- ``strided`` (the default): any dim but the batch may be irregular.
  ``size(i)`` answers a dim where all components agree and raises for an
  irregular one; ``size()`` / ``shape`` raise.
- ``jagged``: one ragged dim (dim 1 when made; transposes move it), the
  others regular.  Its components are slices of one ``values()`` buffer
  between ``offsets()`` (``lengths()`` too when there are holes, as
  ``narrow`` makes), and its shape shows the ragged dim's size as a
  ``NestedInt`` (PyTorch's ``j1``), equal only to itself: two jagged
  tensors combine only when they share it.

Ops reach it through ``__torch_function__`` (docs/subclassing.md): one
table maps each function's name to a rule; names without one raise
PyTorch's NotImplementedError for the NestedTensor backend."""
import itertools
import math

from .. import _C
from .._C import DisableTorchFunctionSubclass
from .._layout import strided, jagged
from ..overrides import short_name

Tensor = _C.Tensor

_j_numbers = itertools.count(1)


class NestedInt:
    """The size of a jagged tensor's ragged dim (PyTorch's ``j1``, ``j2`` ...).
    Equal only to itself: tensors made from the same offsets share one."""

    def __init__(self):
        self._n = next(_j_numbers)

    def __repr__(self):
        return f"j{self._n}"

    __str__ = __repr__


_SIZES_ERROR = "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
_STRIDES_ERROR = "Internal error: NestedTensorImpl doesn't support strides. Please file an issue."


class NestedTensor(Tensor):
    """A nested tensor (see the module docstring); made by torchlike.nested."""

    _tl_is_nested = True
    _tl_refuse_buffer = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = short_name(func)
        rule = _RULES.get(name)
        if rule is None:
            nt = next(a for a in (*args, *kwargs.values(), *_flat(args))
                      if isinstance(a, NestedTensor))
            rule = _JAGGED_RULES.get(name) if nt._nt_layout is jagged else None
            if rule is None:
                raise NotImplementedError(_not_implemented(name, nt))
        return rule(func, name, args, kwargs)

    def __repr__(self):
        return _repr(self)

    __str__ = __repr__

    # the jagged layout's parts (PyTorch's NestedTensor methods)
    def values(self):
        """The buffer the components are slices of (jagged); for the strided
        layout, the components' elements flattened one after another."""
        if self._nt_layout is jagged:
            return self._nt_values
        return _C.cat([c.reshape(-1) for c in self._nt_comps]) if self._nt_comps else \
            _C.empty(0, dtype=self._nt_dtype)

    def offsets(self):
        """Where each component starts in values() along the ragged dim (B + 1 entries)."""
        _need_jagged(self, "offsets")
        return self._nt_offsets

    def lengths(self):
        """Each component's length along the ragged dim where values() has
        holes (narrow, nested_tensor_from_jagged with lengths); else None."""
        _need_jagged(self, "lengths")
        return self._nt_lengths

    def _nested_tensor_size(self):
        """The components' shapes, one row each (int64)."""
        return _C.tensor([list(c.shape) for c in self._nt_comps], dtype=_C.int64)

    def __reduce_ex__(self, protocol):
        from . import as_nested_tensor
        return (as_nested_tensor, ([c.detach() for c in self._nt_comps], None, None,
                                   self._nt_layout))

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(_SIZES_ERROR)

    def __deepcopy__(self, memo):
        if self._nt_layout is jagged:
            values = self._nt_values.detach().clone()
            if self._nt_values.requires_grad and self._nt_leaf:
                values.requires_grad_(True)
            out = _jagged_from_values(values, self._nt_offsets.clone(),
                                      None if self._nt_lengths is None
                                      else self._nt_lengths.clone(),
                                      ragged=self._nt_ragged, leaf=self._nt_leaf,
                                      contiguous=self._nt_contiguous)
        else:
            comps = [c.detach().clone().requires_grad_(c.requires_grad and self._nt_leaf)
                     for c in self._nt_comps]
            out = _make(comps, strided, self._nt_dtype, self._nt_device, self._nt_dim,
                        leaf=self._nt_leaf, contiguous=self._nt_contiguous)
        memo[id(self)] = out
        return out


def _need_jagged(nt, what):
    if nt._nt_layout is not jagged:
        raise RuntimeError(f"{what}() is only defined for nested tensors of the jagged layout")


# ---- construction --------------------------------------------------------------------------

def _make(comps, layout, dtype, device, dim, *, leaf=False, contiguous=True, jag=None):
    """A NestedTensor over comps (plain tensors of one dtype, device and ndim).
    jag: for the jagged layout, dict(values, offsets, lengths, ragged, j)."""
    comps = tuple(comps)
    if comps:
        padded = [len(comps)] + [max(int(c.shape[d]) for c in comps) for d in range(dim - 1)]
    else:
        padded = [0]
    fill = math.nan if (dtype.is_floating_point or dtype.is_complex) else 0
    with DisableTorchFunctionSubclass():
        holder = _C.full((), fill, dtype=dtype, device=device).expand(padded)
        nt = Tensor._make_subclass(NestedTensor, holder, False)
    nt._nt_comps = comps
    nt._nt_layout = layout
    nt._nt_dtype = dtype
    nt._nt_device = holder.device
    nt._nt_dim = dim
    nt._nt_leaf = leaf
    nt._nt_contiguous = contiguous
    if layout is jagged:
        nt._nt_values = jag["values"]
        nt._nt_offsets = jag["offsets"]
        nt._nt_lengths = jag.get("lengths")
        nt._nt_ragged = jag.get("ragged", 1)
        nt._nt_j = jag.get("j") or NestedInt()
    return nt


def _jagged_from_values(values, offsets, lengths=None, *, ragged=1, j=None, leaf=False,
                        contiguous=None):
    """A jagged tensor whose components are values[offsets[i] : offsets[i] + len_i]
    along dim ragged - 1 of values."""
    offs = [int(v) for v in offsets.tolist()]
    lens = [int(v) for v in lengths.tolist()] if lengths is not None else \
        [b - a for a, b in zip(offs[:-1], offs[1:])]
    axis = ragged - 1
    comps = [values.narrow(axis, start, n) for start, n in zip(offs, lens)]
    if contiguous is None:
        contiguous = lengths is None
    return _make(comps, jagged, values.dtype, values.device, values.ndim + 1, leaf=leaf,
                 contiguous=contiguous,
                 jag=dict(values=values, offsets=offsets, lengths=lengths, ragged=ragged, j=j))


def _like(nt, comps, *, dtype=None, contiguous=None, ragged=None):
    """A nested tensor of nt's layout and structure over new components."""
    comps = list(comps)
    dtype = dtype or (comps[0].dtype if comps else nt._nt_dtype)
    device = comps[0].device if comps else nt._nt_device
    dim = (comps[0].ndim + 1) if comps else nt._nt_dim
    if contiguous is None:
        contiguous = nt._nt_contiguous
    if nt._nt_layout is not jagged:
        return _make(comps, strided, dtype, device, dim, contiguous=contiguous)
    ragged = nt._nt_ragged if ragged is None else ragged
    axis = ragged - 1
    values = _C.cat(comps, axis) if comps else nt._nt_values
    lens = [int(c.shape[axis]) for c in comps]
    offsets = _C.tensor([0] + list(itertools.accumulate(lens)), dtype=_C.int64,
                        device=nt._nt_offsets.device)
    # the components become slices of the new buffer (one autograd path)
    return _jagged_from_values(values, offsets, ragged=ragged, j=nt._nt_j,
                               contiguous=contiguous)


# ---- naming and refusals ---------------------------------------------------------------------

def _flat(args):
    for a in args:
        if type(a) in (list, tuple):
            yield from a


_ATEN = {"__getitem__": "index", "__setitem__": "index_put_", "__invert__": "bitwise_not",
         "__pow__": "pow", "__rpow__": "pow", "__mod__": "remainder", "__floordiv__":
         "floor_divide", "__lt__": "lt", "__le__": "le", "__ne__": "ne", "__and__":
         "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__rsub__": "rsub",
         "log_softmax": "_log_softmax"}


def _not_implemented(name, nt):
    op = _ATEN.get(name, name.strip("_") if not name.startswith("get:") else name[4:])
    if nt._nt_layout is jagged:
        # PyTorch's jagged tensors are Python subclasses: they name the aten op only
        return f"aten.{op}.default"
    device = "CUDA" if nt._nt_device.type == "cuda" else "CPU"
    return (f"Could not run 'aten::{op}' with arguments from the 'NestedTensor{device}' "
            "backend. This could be because the operator doesn't exist for this backend, or "
            "was omitted during the selective/custom build process (if using custom build).")


def _dim(nt, d):
    n = nt._nt_dim
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n


# ---- metadata ------------------------------------------------------------------------------

def _shape(nt):
    if nt._nt_layout is not jagged:
        raise RuntimeError(_SIZES_ERROR)
    return _C.Size([_size_of(nt, d) for d in range(nt._nt_dim)])


def _size_of(nt, d):
    if d == 0:
        return len(nt._nt_comps)
    if nt._nt_layout is jagged and d == nt._nt_ragged:
        return nt._nt_j
    sizes = {int(c.shape[d - 1]) for c in nt._nt_comps}
    if len(sizes) != 1:
        raise RuntimeError(f"Given dimension {d} is irregular and does not have a size.")
    return sizes.pop()


def _r_size(func, name, args, kwargs):
    nt = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    if d is None:
        return _shape(nt)
    return _size_of(nt, _dim(nt, d))


def _leaves(nt):
    return [nt._nt_values] if nt._nt_layout is jagged else list(nt._nt_comps)


def _requires_grad(nt):
    return any(c.requires_grad for c in nt._nt_comps)


def _grad(nt):
    if nt._nt_layout is jagged:
        g = nt._nt_values.grad
        if g is None:
            return None
        return _jagged_from_values(g, nt._nt_offsets, nt._nt_lengths, ragged=nt._nt_ragged)
    grads = [c.grad for c in nt._nt_comps]
    if all(g is None for g in grads):
        return None
    grads = [g if g is not None else _C.zeros_like(c) for g, c in zip(grads, nt._nt_comps)]
    return _make(grads, strided, nt._nt_dtype, nt._nt_device, nt._nt_dim)


def _grad_fn(nt):
    if _is_leaf(nt):
        return None
    source = nt._nt_values if nt._nt_layout is jagged else nt._nt_comps[0]
    return source.grad_fn


def _is_leaf(nt):
    if not _requires_grad(nt):
        return True
    return nt._nt_leaf


def _requires_grad_(func, name, args, kwargs):
    nt = args[0]
    flag = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
    if not _is_leaf(nt):
        raise RuntimeError("you can only change requires_grad flags of leaf variables.")
    for leaf in _leaves(nt):
        leaf.requires_grad_(flag)
    if nt._nt_layout is jagged:   # the components are slices of the values leaf
        nt._nt_comps = _jagged_from_values(nt._nt_values, nt._nt_offsets,
                                           nt._nt_lengths, ragged=nt._nt_ragged)._nt_comps
    nt._nt_leaf = True
    return nt


def _backward(func, name, args, kwargs):
    nt = args[0]
    gradient = args[1] if len(args) > 1 else kwargs.pop("gradient", None)
    if gradient is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if not isinstance(gradient, NestedTensor):
        raise RuntimeError("backward of a nested tensor takes a nested gradient of its structure")
    from ..autograd import backward
    rest = {k: v for k, v in kwargs.items() if k in ("retain_graph", "create_graph")}
    backward(list(nt._nt_comps), list(gradient._nt_comps), **rest)


def _numel(nt):
    return sum(c.numel() for c in nt._nt_comps)


def _is_contiguous(func, name, args, kwargs):
    return args[0]._nt_contiguous


_PROPERTIES = {
    "get:shape": _shape, "get:dtype": lambda nt: nt._nt_dtype,
    "get:device": lambda nt: nt._nt_device, "get:layout": lambda nt: nt._nt_layout,
    "get:ndim": lambda nt: nt._nt_dim, "get:is_nested": lambda nt: True,
    "get:requires_grad": _requires_grad, "get:is_leaf": _is_leaf, "get:grad": _grad,
    "get:grad_fn": _grad_fn, "get:is_sparse": lambda nt: False,
    "get:is_cuda": lambda nt: nt._nt_device.type == "cuda",
    "get:is_cpu": lambda nt: nt._nt_device.type == "cpu",
    "get:is_quantized": lambda nt: False, "get:is_meta": lambda nt: False,
    "get:itemsize": lambda nt: _C.empty(0, dtype=nt._nt_dtype).itemsize,
}


def _property_rule(getter):
    return lambda func, name, args, kwargs: getter(args[0])


def _method_rule(getter):
    return lambda func, name, args, kwargs: getter(args[0])


def _refuse(message):
    def rule(func, name, args, kwargs):
        if args[0]._nt_layout is jagged and name == "__len__":
            return len(args[0]._nt_comps)
        raise RuntimeError(message)
    return rule


# ---- elementwise ---------------------------------------------------------------------------

def _plain_args(args, i):
    """args with the nested ones replaced by their component i."""
    return [a._nt_comps[i] if isinstance(a, NestedTensor) else a for a in args]


def _per_component(func, nt, args, kwargs):
    with DisableTorchFunctionSubclass():
        return [func(*_plain_args(args, i), **{k: (v._nt_comps[i] if isinstance(v, NestedTensor)
                                                  else v) for k, v in kwargs.items()})
                for i in range(len(nt._nt_comps))]


def _flat_jagged(nt):
    """True for a jagged tensor whose values() holds exactly its components
    in order (no holes, not transposed): elementwise ops run on values()."""
    return nt._nt_layout is jagged and nt._nt_lengths is None and nt._nt_ragged == 1 \
        and nt._nt_contiguous


def _on_values(func, nt, args, kwargs):
    """func over values() in one call (the nested arguments replaced by their
    values), the result sharing nt's offsets and ragged size."""
    with DisableTorchFunctionSubclass():
        values = func(*[a._nt_values if isinstance(a, NestedTensor) else a for a in args],
                      **kwargs)
    return _jagged_from_values(values, nt._nt_offsets, ragged=1, j=nt._nt_j)


def _unary(func, name, args, kwargs):
    nt = args[0]
    if _flat_jagged(nt):
        return _on_values(func, nt, args, kwargs)
    comps = _per_component(func, nt, args, kwargs)
    return _like(nt, comps)


def _same_structure(a, b):
    if len(a._nt_comps) != len(b._nt_comps):
        return False
    return all(tuple(x.shape) == tuple(y.shape) for x, y in zip(a._nt_comps, b._nt_comps))


_BINARY_NAMES = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub",
                 "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div",
                 "__rtruediv__": "div", "true_divide": "div", "divide": "div",
                 "multiply": "mul", "subtract": "sub", "__eq__": "eq", "__gt__": "gt",
                 "__ge__": "ge", "__lt__": "lt", "__le__": "le", "__ne__": "ne",
                 "__pow__": "pow", "__mod__": "remainder", "greater": "gt",
                 "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne"}


def _binary(func, name, args, kwargs):
    """An elementwise op of two operands, one nested: both nested (the same
    structure), or a number / 0-d tensor for the other; the jagged layout
    also takes a dense tensor that broadcasts over the regular trailing dims."""
    a, b = args[0], args[1]
    nt = a if isinstance(a, NestedTensor) else b
    other = b if nt is a else a
    op = _BINARY_NAMES.get(name, name)
    layout = nt._nt_layout
    if isinstance(other, NestedTensor):
        if layout is jagged or other._nt_layout is jagged:
            if other._nt_layout is not layout:
                raise RuntimeError(_SIZES_ERROR)
            # the same ragged size; the regular dims broadcast component by component
            if other._nt_j is not nt._nt_j or len(other._nt_comps) != len(nt._nt_comps) \
                    or other._nt_ragged != nt._nt_ragged:
                raise RuntimeError(f"cannot call binary pointwise function {op}.Tensor with "
                                   f"inputs of shapes {_shape_text(a)} and {_shape_text(b)}")
        elif op in ("eq",):
            raise RuntimeError(f"{op} does not support nested tensor as other value.")
        elif op not in ("add", "sub", "mul", "div"):
            raise NotImplementedError(_not_implemented(name, nt))
        elif not _same_structure(nt, other):
            raise RuntimeError(f"{op} does not support broadcasting when given a NestedTensor")
    elif isinstance(other, Tensor) and other.ndim > 0:
        if layout is not jagged:
            raise RuntimeError("Expected both self and other to be nested, but got a nested "
                               "self and non-nested other")
        if other.ndim > nt._nt_dim - 1 - nt._nt_ragged:
            raise RuntimeError(f"cannot call binary pointwise function {op}.Tensor with inputs "
                               f"of shapes {_shape_text(a, True)} and {_shape_text(b, True)}")
    elif layout is not jagged and op not in _STRIDED_SCALAR_OPS:
        raise NotImplementedError(_not_implemented(name, nt))
    if _flat_jagged(nt) and (not isinstance(other, NestedTensor) or _flat_jagged(other)):
        return _on_values(func, nt, args, kwargs)
    return _like(nt, _per_component(func, nt, args, kwargs))


def _shape_text(t, sized=False):
    if isinstance(t, NestedTensor):
        dims = tuple(_size_of(t, d) for d in range(t._nt_dim))
        return f"{_C.Size(dims)}" if sized else "(" + ", ".join(map(str, dims)) + ")"
    return f"{_C.Size(tuple(t.shape))}" if sized else str(tuple(t.shape))


# the strided layout's ops with a number (PyTorch's NestedTensor kernels)
_STRIDED_SCALAR_OPS = {"add", "sub", "mul", "div", "eq", "gt", "ge"}


def _masked_fill(func, name, args, kwargs):
    nt, mask, value = (list(args) + [kwargs.get("mask"), kwargs.get("value")])[:3] \
        if len(args) < 3 else args[:3]
    if not isinstance(mask, NestedTensor) or not _same_structure(nt, mask):
        raise RuntimeError("masked_fill: mask must be a nested tensor of the input's structure")
    with DisableTorchFunctionSubclass():
        comps = [c.masked_fill(m, value) for c, m in zip(nt._nt_comps, mask._nt_comps)]
    return _like(nt, comps)


# ---- per-component ops with a dim ------------------------------------------------------------

def _softmax(func, name, args, kwargs):
    nt = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    dtype = kwargs.get("dtype")
    if len(args) > 2 and name == "softmax" and not isinstance(args[2], int):
        dtype = args[2]
    if d is None:
        raise RuntimeError(f"{name}(): a dim is required for nested tensors")
    d = _dim(nt, d)
    if d == 0:
        if nt._nt_layout is jagged:
            raise RuntimeError(f"{name}(): not supported when reducing across the batch "
                               "dimension for NestedTensor")
        raise RuntimeError(f"Cannot apply {name} across nested dimension 0")
    op = _C.softmax if name == "softmax" else _C.log_softmax
    with DisableTorchFunctionSubclass():
        comps = [op(c, d - 1, dtype=dtype) for c in nt._nt_comps]
    return _like(nt, comps)


def _transpose(func, name, args, kwargs):
    nt = args[0]
    d0 = args[1] if len(args) > 1 else kwargs.get("dim0")
    d1 = args[2] if len(args) > 2 else kwargs.get("dim1")
    d0, d1 = _dim(nt, d0), _dim(nt, d1)
    if 0 in (d0, d1) and d0 != d1:
        if nt._nt_layout is jagged:
            raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
        raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
    with DisableTorchFunctionSubclass():
        comps = [c.transpose(d0 - 1, d1 - 1) for c in nt._nt_comps]
    ragged = None
    if nt._nt_layout is jagged:
        ragged = {d0: d1, d1: d0}.get(nt._nt_ragged, nt._nt_ragged)
    return _like(nt, comps, contiguous=d0 == d1 and nt._nt_contiguous, ragged=ragged)


def _unbind(func, name, args, kwargs):
    nt = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    if d != 0:
        raise RuntimeError(f"NestedTensor can only be unbound along dimension 0 got dimension "
                           f"{d} instead.")
    return tuple(nt._nt_comps)


def _getitem(func, name, args, kwargs):
    nt, index = args[0], args[1]
    rest = ()
    if isinstance(index, tuple):
        index, rest = index[0], index[1:]
    if isinstance(index, Tensor) and index.ndim == 0 and not index.dtype.is_floating_point:
        index = int(index)
    if not isinstance(index, int) or isinstance(index, bool):
        raise NotImplementedError(_not_implemented("slice.Tensor", nt))
    n = len(nt._nt_comps)
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size {n}")
    comp = nt._nt_comps[index]
    if rest:
        with DisableTorchFunctionSubclass():
            comp = comp[rest if len(rest) > 1 else rest[0]]
    return comp


def _unsqueeze(func, name, args, kwargs):
    nt = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    n = nt._nt_dim + 1
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    d %= n
    if d == 0:
        raise RuntimeError("unsqueeze(): For nested tensors, unsqueezing dimension 0 is not "
                           "supported at the moment if you need this feature, please open an "
                           "issue on github describing your use case.")
    with DisableTorchFunctionSubclass():
        comps = [c.unsqueeze(d - 1) for c in nt._nt_comps]
    ragged = None
    if nt._nt_layout is jagged:
        ragged = nt._nt_ragged + (1 if d <= nt._nt_ragged else 0)
    return _like(nt, comps, ragged=ragged)


def _squeeze(func, name, args, kwargs):
    nt = args[0]
    d = args[1] if len(args) > 1 else kwargs.get("dim")
    if d is None:
        raise RuntimeError("squeeze(): For nested tensors, squeeze without the dim argument is "
                           "not supported at the moment, however you can use squeeze(Tensor "
                           "self, int dim) instead if you need this feature, please open an "
                           "issue on github describing your use case.")
    d = _dim(nt, d)
    if d == 0:
        raise RuntimeError("squeeze(): For nested tensors, squeezing dimension 0 is not "
                           "supported at the moment if you need this feature, please open an "
                           "issue on github describing your use case.")
    if nt._nt_layout is jagged and d == nt._nt_ragged:
        raise NotImplementedError(_not_implemented("squeeze", nt))
    with DisableTorchFunctionSubclass():
        comps = [c.squeeze(d - 1) for c in nt._nt_comps]
    ragged = None
    if nt._nt_layout is jagged:
        ragged = nt._nt_ragged - (1 if d < nt._nt_ragged and comps[0].ndim < nt._nt_dim - 1
                                  else 0)
    return _like(nt, comps, ragged=ragged)


def _reshape(func, name, args, kwargs):
    """reshape/view of the strided layout: the batch size first (kept as it
    is), then each component's new shape, where -1 keeps that component's
    size in the dim (PyTorch's rule for nested tensors)."""
    nt = args[0]
    shape = args[1:] if len(args) > 2 or not isinstance(args[1], (tuple, list)) else args[1]
    shape = list(shape) or list(kwargs.get("shape", ()))
    if nt._nt_layout is jagged:
        raise NotImplementedError(_not_implemented(name, nt))
    if not shape or shape[0] != len(nt._nt_comps):
        raise RuntimeError(f"{name}: For now nested {name} cannot change or infer the implicit "
                           "batch dimension")
    comps = []
    with DisableTorchFunctionSubclass():
        for c in nt._nt_comps:
            new = [int(c.shape[i]) if s == -1 and i < c.ndim else s
                   for i, s in enumerate(shape[1:])]
            size = 1
            for s in new:
                size *= s
            if -1 in new or size != c.numel():
                raise RuntimeError(f"shape '{shape}' is invalid for input of size {c.numel()}")
            comps.append(c.reshape(new))
    return _like(nt, comps)


_REDUCE_OPS = {"sum": "sum", "mean": "mean", "amax": "amax", "amin": "amin", "prod": "prod"}


def _reduce(func, name, args, kwargs):
    """sum/mean/amax/amin/prod of a jagged tensor: all of it (a 0-d tensor),
    along the ragged dim (a dense (B, ...) tensor), or along regular dims
    (a jagged tensor of the same ragged size).  The strided layout has
    sum(dim, keepdim=True) only, as PyTorch's."""
    nt = args[0]
    params = dict(zip(("dim", "keepdim"), args[1:]))
    params.update(kwargs)
    dim, keepdim, dtype = params.get("dim"), bool(params.get("keepdim", False)), \
        params.get("dtype")
    op = getattr(_C, _REDUCE_OPS[name])
    extra = {"dtype": dtype} if dtype is not None else {}
    if nt._nt_layout is not jagged:
        if name != "sum" or dim is None:
            raise NotImplementedError(_not_implemented(name, nt))
        if not keepdim:
            raise RuntimeError("NestedTensor always requires keepdim=True for now.")
        last = [_dim(nt, d) for d in ((dim,) if isinstance(dim, int) else dim)]
        if last != [nt._nt_dim - 1]:
            raise RuntimeError("NestedTensor can only be reduced across the last dimension "
                               f"for now got dimension {last[0]} instead.")
    if dim is None:
        if nt._nt_layout is not jagged:
            raise NotImplementedError(_not_implemented(name, nt))
        with DisableTorchFunctionSubclass():
            values = nt._nt_values if _flat_jagged(nt) else \
                _C.cat([c.reshape(-1) for c in nt._nt_comps])
            return op(values.reshape(-1), 0, **extra) if name == "prod" else op(values, **extra)
    dims = sorted({_dim(nt, d) for d in ((dim,) if isinstance(dim, int) else dim)})
    ragged = nt._nt_ragged if nt._nt_layout is jagged else -1
    if 0 in dims and ragged not in dims:
        raise RuntimeError(f"{name}(): reducing along the batch dimension but not the ragged "
                           "dimension is not supported for nested tensors")
    if ragged in dims and dims != [ragged]:
        raise RuntimeError(f"{name}(): reducing along a ragged and non-batch dimension is not "
                           "supported for nested tensors")
    if len(dims) > 1 and name == "prod":
        raise NotImplementedError(_not_implemented(name, nt))
    with DisableTorchFunctionSubclass():
        comps = []
        for c in nt._nt_comps:
            for d in reversed(dims):
                c = op(c, d - 1, keepdim=keepdim, **extra)
            comps.append(c)
        if dims == [ragged]:
            return _C.stack(comps)     # the ragged dim is gone: a dense tensor
    shift = 0 if keepdim else sum(1 for d in dims if d < ragged)
    return _like(nt, comps, ragged=None if ragged < 0 else ragged - shift)


def _arg_reduce(func, name, args, kwargs):
    """argmax/argmin of a jagged tensor along one dim: the ragged dim gives a
    dense (B, ...) tensor of indices, a regular dim a jagged one."""
    nt = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = bool(args[2] if len(args) > 2 else kwargs.get("keepdim", False))
    if dim is None:
        raise NotImplementedError(_not_implemented(name, nt))
    d = _dim(nt, dim)
    if d == 0:
        raise RuntimeError(f"{name}(): reducing along the batch dimension but not the ragged "
                           "dimension is not supported for nested tensors")
    op = _C.argmax if name == "argmax" else _C.argmin
    with DisableTorchFunctionSubclass():
        comps = [op(c, d - 1, keepdim=keepdim) for c in nt._nt_comps]
        if d == nt._nt_ragged:
            return _C.stack(comps)
    return _like(nt, comps)


def _layer_norm(func, name, args, kwargs):
    """F.layer_norm per component (the normalised dims are regular ones); the
    strided layout needs weight and bias, as PyTorch's."""
    names = ("input", "normalized_shape", "weight", "bias", "eps")
    p = dict(zip(names, args))
    p.update(kwargs)
    nt = p["input"]
    weight, bias, eps = p.get("weight"), p.get("bias"), p.get("eps", 1e-5)
    if nt._nt_layout is not jagged and (weight is None or bias is None):
        raise ValueError("NestedTensor layer_norm requires weight and bias")
    from ..nn import functional as F
    if _flat_jagged(nt):
        return _on_values(lambda v: F.layer_norm(v, p["normalized_shape"], weight, bias, eps),
                          nt, (nt,), {})
    with DisableTorchFunctionSubclass():
        comps = [F.layer_norm(c, p["normalized_shape"], weight, bias, eps)
                 for c in nt._nt_comps]
    return _like(nt, comps)


def _where(func, name, args, kwargs):
    """where(condition, input, other) of jagged tensors (other may be a
    number) per component; the strided layout has none, as PyTorch's."""
    names = ("input", "condition", "other") if func is Tensor.where else \
        ("condition", "input", "other")
    p = dict(zip(names, args))
    p.update(kwargs)
    cond, a, b = p["condition"], p["input"], p.get("other")
    nts = [t for t in (cond, a, b) if isinstance(t, NestedTensor)]
    if any(t._nt_layout is not jagged for t in nts):
        if not isinstance(b, NestedTensor):
            raise RuntimeError("other must be nested")
        raise RuntimeError("self must not be nested")
    ref = nts[0]
    if any(t._nt_j is not ref._nt_j for t in nts):
        raise RuntimeError("where(): the nested operands must share their ragged size")
    with DisableTorchFunctionSubclass():
        comps = [_C.where(*[t._nt_comps[i] if isinstance(t, NestedTensor) else t
                            for t in (cond, a, b)]) for i in range(len(ref._nt_comps))]
    return _like(ref, comps)


# ---- products ------------------------------------------------------------------------------

def _bmm(func, name, args, kwargs):
    a, b = args[0], args[1]
    if not isinstance(a, NestedTensor):
        raise RuntimeError("Expected both to be nested, but got a non-nested self and nested "
                           "other")
    if a._nt_dim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    n = len(a._nt_comps)
    if isinstance(b, NestedTensor):
        if b._nt_dim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        others = b._nt_comps
    else:
        if b.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        with DisableTorchFunctionSubclass():
            others = [b[i] for i in range(b.shape[0])]
    if len(others) != n:
        raise RuntimeError(f"Expected size for the 1st dimension of batch2 tensor to be: {n} "
                           f"but got: {len(others)}.")
    comps = []
    with DisableTorchFunctionSubclass():
        for i, (x, y) in enumerate(zip(a._nt_comps, others)):
            if x.shape[1] != y.shape[0]:
                raise RuntimeError(f"{i}-th nested matrices in batch cannot be multiplied "
                                   f"({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})")
            comps.append(_C.matmul(x, y))
    return _like(a, comps)


def _matmul(func, name, args, kwargs):
    a, b = args[0], args[1]
    nt = a if isinstance(a, NestedTensor) else b
    if nt._nt_layout is jagged:
        if isinstance(a, NestedTensor) and not isinstance(b, NestedTensor):
            with DisableTorchFunctionSubclass():
                return _like(a, [_C.matmul(c, b) for c in a._nt_comps])
        if isinstance(a, NestedTensor) and isinstance(b, NestedTensor) and \
                len(a._nt_comps) == len(b._nt_comps):
            with DisableTorchFunctionSubclass():
                return _like(a, [_C.matmul(x, y) for x, y in zip(a._nt_comps, b._nt_comps)])
        raise NotImplementedError(_not_implemented("matmul", nt))
    if not (isinstance(a, NestedTensor) and isinstance(b, NestedTensor)):
        which = "a nested self and non-nested other" if isinstance(a, NestedTensor) else \
            "a non-nested self and nested other"
        raise RuntimeError(f"Expected both to be nested, but got {which}")
    if len(a._nt_comps) != len(b._nt_comps):
        raise RuntimeError("matmul: Expected size for first two dimensions of batch2 tensor to "
                           f"be: [{len(a._nt_comps)}] but got: [{len(b._nt_comps)}].")
    comps = []
    with DisableTorchFunctionSubclass():
        for x, y in zip(a._nt_comps, b._nt_comps):
            if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
                # PyTorch's words, with the sizes as lists rather than printed LongTensors
                last = [int(c.shape[-1]) for c in a._nt_comps]
                second = [int(c.shape[-2]) for c in b._nt_comps]
                raise RuntimeError(f"matmul: Nested tensors cannot be matrix multiplied, last "
                                   f"dimension of self has sizes {last}, second last dimension "
                                   f"of mat2 has sizes {second}")
            comps.append(_C.matmul(x, y))
    return _like(a, comps)


def _linear(func, name, args, kwargs):
    nt = args[0]
    weight = args[1] if len(args) > 1 else kwargs.get("weight")
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    if isinstance(weight, NestedTensor) or isinstance(bias, NestedTensor):
        raise RuntimeError("Linear requires weight and bias to be dense tensors")
    from ..nn import functional as F
    with DisableTorchFunctionSubclass():
        comps = [F.linear(c, weight, bias) for c in nt._nt_comps]
    return _like(nt, comps)


def _sdpa(func, name, args, kwargs):
    """scaled_dot_product_attention per component: query, key and value
    nested tensors of one batch, each component (..., L, E); an attn_mask,
    if any, nested too."""
    names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
    p = dict(zip(names, args))
    p.update(kwargs)
    q, k, v, mask = p["query"], p["key"], p["value"], p.get("attn_mask")
    for t in (q, k, v):
        if not isinstance(t, NestedTensor) or len(t._nt_comps) != len(q._nt_comps):
            raise RuntimeError("scaled_dot_product_attention: query, key and value must be "
                               "nested tensors of the same batch size")
    if mask is not None and not isinstance(mask, NestedTensor):
        raise RuntimeError("scaled_dot_product_attention: a nested query takes a nested "
                           "attn_mask or none")
    rest = {key: p[key] for key in ("dropout_p", "is_causal", "scale") if key in p}
    rest.update({key: kwargs[key] for key in kwargs if key == "enable_gqa"})
    from ..nn import functional as F
    with DisableTorchFunctionSubclass():
        comps = [F.scaled_dot_product_attention(
            q._nt_comps[i], k._nt_comps[i], v._nt_comps[i],
            attn_mask=None if mask is None else mask._nt_comps[i], **rest)
            for i in range(len(q._nt_comps))]
    return _like(q, comps)


# ---- copies --------------------------------------------------------------------------------

def _copy(func, name, args, kwargs):
    nt = args[0]
    comps = _per_component(func, nt, args, kwargs)
    out = _like(nt, comps, contiguous=True if name == "contiguous" else None)
    return out


def _detach(func, name, args, kwargs):
    nt = args[0]
    if nt._nt_layout is jagged:
        return _jagged_from_values(nt._nt_values.detach(), nt._nt_offsets, nt._nt_lengths,
                                   ragged=nt._nt_ragged, j=nt._nt_j,
                                   contiguous=nt._nt_contiguous)
    return _make([c.detach() for c in nt._nt_comps], strided, nt._nt_dtype, nt._nt_device,
                 nt._nt_dim, contiguous=nt._nt_contiguous)


def _cat(func, name, args, kwargs):
    tensors = args[0] if args else kwargs.get("tensors")
    d = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    first = tensors[0]
    if d != 0 or not all(isinstance(t, NestedTensor) for t in tensors) or \
            first._nt_layout is jagged:
        raise NotImplementedError(_not_implemented("cat", first))
    comps = [c for t in tensors for c in t._nt_comps]
    return _like(first, comps)


def _to_padded_tensor(func, name, args, kwargs):
    nt = args[0]
    padding = args[1] if len(args) > 1 else kwargs.get("padding")
    output_size = args[2] if len(args) > 2 else kwargs.get("output_size")
    return to_padded(nt, padding, output_size)


def to_padded(nt, padding, output_size=None):
    """A dense tensor of the components padded with `padding` to the
    largest size in each dim (or to output_size), stacked on dim 0."""
    if nt._nt_layout is jagged and nt._nt_lengths is not None:
        raise RuntimeError("to_padded_tensor(): not supported for nested tensors with holes")
    if nt._nt_layout is not jagged and not nt._nt_contiguous:
        raise RuntimeError("for now to_padded_tensor only supports contiguous nested tensor")
    comps = nt._nt_comps
    inner = nt._nt_dim - 1
    padded = [max(int(c.shape[d]) for c in comps) if comps else 0 for d in range(inner)]
    target = padded
    if output_size is not None:
        output_size = list(output_size)
        if len(output_size) != nt._nt_dim:
            raise RuntimeError("Length of output_size does not match NestedTensor dims. "
                               "Broadcasting is not supported.")
        if output_size[0] != len(comps) or any(o < p for o, p in zip(output_size[1:], padded)):
            raise RuntimeError("Value in output_size is less than NestedTensor padded size. "
                               "Truncation is not supported.")
        target = output_size[1:]
    from ..nn import functional as F
    rows = []
    with DisableTorchFunctionSubclass():
        for c in comps:
            widths = []
            for d in reversed(range(inner)):
                widths += [0, int(target[d]) - int(c.shape[d])]
            rows.append(F.pad(c, widths, value=padding) if widths and any(widths) else c)
        if not rows:
            return _C.empty([0] + target, dtype=nt._nt_dtype, device=nt._nt_device)
        return _C.stack(rows)


# ---- printing ------------------------------------------------------------------------------

def _repr(nt):
    if nt._nt_layout is jagged:
        dims = ", ".join(str(_size_of(nt, d)) for d in range(nt._nt_dim))
        parts = [f"size=({dims})", f"offsets={nt._nt_offsets!r}"]
        if _requires_grad(nt):
            if _is_leaf(nt):
                parts.append("requires_grad=True")
            else:
                parts.append(f"grad_fn={_grad_fn(nt)!r}")
        parts.append(f"contiguous={nt._nt_contiguous}")
        return "NestedTensor(" + ", ".join(parts) + ")"
    grad = _requires_grad(nt)
    lines = []
    for c in nt._nt_comps:
        shown = c.detach()
        if grad:
            shown = shown.requires_grad_(True)   # PyTorch shows each with requires_grad=True
        lines.append("\n".join("  " + line for line in repr(shown).split("\n")))
    tail = ""
    if grad:
        tail = ", requires_grad=True" if _is_leaf(nt) else f", grad_fn=<{type(_grad_fn(nt)).__name__}>"
    return "nested_tensor([\n" + ",\n".join(lines) + "\n]" + tail + ")"


# ---- the tables ----------------------------------------------------------------------------

# unary ops PyTorch's strided layout has kernels for; the jagged layout takes all of _JAGGED_UNARY
_STRIDED_UNARY = set("""abs absolute cos isnan isinf neg negative positive sgn sin sqrt tanh
relu logical_not gelu silu dropout __neg__ __abs__ __pos__""".split())
_JAGGED_UNARY = _STRIDED_UNARY | set("""acos arccos acosh arccosh asin arcsin asinh arcsinh
atan arctan atanh arctanh ceil cosh deg2rad digamma erf erfc erfinv exp exp2 expm1 fix floor
frac lgamma log log10 log1p log2 logit i0 isfinite nan_to_num rad2deg reciprocal round rsqrt
sigmoid sign signbit sinc sinh square tan trunc softplus leaky_relu elu hardtanh clamp clip
""".split())
_STRIDED_BINARY = set("""add sub mul div true_divide divide multiply subtract eq gt ge greater
greater_equal __add__ __radd__ __sub__ __mul__ __rmul__ __truediv__ __eq__ __gt__
__ge__""".split())
_JAGGED_BINARY = _STRIDED_BINARY | set("""remainder fmod pow atan2 arctan2 maximum minimum ne
lt le less less_equal not_equal logical_and logical_or __pow__ __mod__ __lt__ __le__ __ne__
__rtruediv__ __rsub__""".split())

_RULES = {}
for _n, _g in _PROPERTIES.items():
    _RULES[_n] = _property_rule(_g)
_RULES.update({
    "size": _r_size, "dim": _method_rule(lambda nt: nt._nt_dim),
    "ndimension": _method_rule(lambda nt: nt._nt_dim), "numel": _method_rule(_numel),
    "nelement": _method_rule(_numel), "is_contiguous": _is_contiguous,
    "is_floating_point": _method_rule(lambda nt: nt._nt_dtype.is_floating_point),
    "is_complex": _method_rule(lambda nt: nt._nt_dtype.is_complex),
    "element_size": _method_rule(lambda nt: _C.empty(0, dtype=nt._nt_dtype).element_size()),
    "get_device": _method_rule(lambda nt: -1 if nt._nt_device.type == "cpu"
                               else nt._nt_device.index),
    "requires_grad_": _requires_grad_, "backward": _backward,
    "stride": _refuse(_STRIDES_ERROR), "tolist": _refuse(_STRIDES_ERROR),
    "numpy": _refuse(_SIZES_ERROR), "__len__": _refuse(_SIZES_ERROR),
    "data_ptr": _refuse(_SIZES_ERROR),
    "unbind": _unbind, "__getitem__": _getitem,
    "softmax": _softmax, "transpose": _transpose, "swapaxes": _transpose,
    "swapdims": _transpose,
    "bmm": _bmm, "matmul": _matmul, "__matmul__": _matmul, "linear": _linear,
    "clone": _copy, "contiguous": _copy, "to": _copy, "float": _copy, "double": _copy,
    "half": _copy, "int": _copy, "long": _copy, "bool": _copy, "cpu": _copy, "cuda": _copy,
    "detach": _detach, "cat": _cat, "to_padded_tensor": _to_padded_tensor,
    "masked_fill": _masked_fill, "unsqueeze": _unsqueeze, "squeeze": _squeeze,
    "reshape": _reshape, "view": _reshape, "layer_norm": _layer_norm, "where": _where,
    "_where": _where, "scaled_dot_product_attention": _sdpa,
})
for _n in _STRIDED_UNARY:
    _RULES[_n] = _unary
for _n in _STRIDED_BINARY:
    _RULES[_n] = _binary

# what the jagged layout adds
_JAGGED_RULES = {"log_softmax": _softmax, "__len__": _refuse(_SIZES_ERROR)}
for _n in _REDUCE_OPS:
    _JAGGED_RULES[_n] = _reduce
_JAGGED_RULES["argmax"] = _JAGGED_RULES["argmin"] = _arg_reduce
_RULES["sum"] = _reduce
for _n in _JAGGED_UNARY - _STRIDED_UNARY:
    _JAGGED_RULES[_n] = _unary
for _n in _JAGGED_BINARY - _STRIDED_BINARY:
    _JAGGED_RULES[_n] = _binary
