"""PyTorch's small Tensor predicates and utilities, as methods and (where
PyTorch has them) torch-level functions: is_conj/is_neg and their resolves,
is_signed, is_same_size, is_inference, isreal, get_device, typename,
fill_diagonal_, tril_/triu_, cumsum_/cumprod_, new_empty_strided, new,
sum_to_size, resize_/resize_as_, split_with_sizes and the unsafe_ splits,
apply_/map_/map2_, nonzero_static, as_strided_scatter, dim_order and the
deprecated range.

torchlike has no lazy conjugate or negative bits (conj() and neg() make the
values), so is_conj/is_neg are False and the resolves return the tensor."""
import builtins
import math
import numbers
import operator
import warnings

from . import _C, _layout
from ._composites import _need_tensor
from ._dtype_names import CPP_NAMES as _CPP_NAMES  # what in-place dtype errors print
from ._inplace_functions import take_input

Tensor = _C.Tensor

__all__ = ["is_conj", "is_neg", "resolve_conj", "resolve_neg", "is_signed", "is_same_size",
           "is_inference", "isreal", "get_device", "typename", "split_with_sizes",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "nonzero_static",
           "as_strided_scatter", "range"]


def _tensor_arg(func, name, position, value):
    """value, once _need_tensor has checked it is a Tensor."""
    _need_tensor(func, name, value, position)
    return value


def _size_args(sizes):
    """f(2, 3), f((2, 3)) and f(Size) alike."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    return tuple(operator.index(s) for s in sizes)


# ---- predicates --------------------------------------------------------------------------

def _false(self):
    return False


def _self(self):
    return self


def _is_signed(self):
    """Whether the dtype holds negative values (complex and floating types do)."""
    return self.dtype.is_signed


def _is_same_size(self, other):
    """Whether ``other`` has this tensor's shape."""
    return self.shape == _tensor_arg("is_same_size", "other", 1, other).shape


def _isreal(self):
    """Elementwise: is the imaginary part zero (every element of a real tensor is real)?"""
    if self.dtype.is_complex:
        return _C.imag(self) == 0
    return _C.ones_like(self, dtype=_C.bool)


def _get_device(self):
    """The device index of a CUDA tensor, -1 on the CPU and the meta device."""
    return -1 if self.device.index is None else self.device.index


def _function(method, name):
    def function(*args, **kwargs):
        input, args, kwargs = take_input(name, args, kwargs)
        return method(input, *args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


def typename(obj):
    """A tensor's type string (``x.type()``), else the dotted name of ``obj``
    (a class or function) or of its class, without ``builtins.``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module, name = getattr(obj, "__module__", None) or "", getattr(obj, "__qualname__", None)
    if name is None:
        name = getattr(obj, "__name__", None)
    if name is None:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


# ---- in-place writers ---------------------------------------------------------------------

def _fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal, or a 2-D matrix; a tall
    matrix's diagonal restarts every ncols + 1 rows when ``wrap``)."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    n = self.shape[0]
    if self.ndim > 2 and any(s != n for s in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.ndim == 2:
        rows, cols = self.shape
        steps = min(rows, cols)
        if wrap and rows > cols + 1:  # NumPy's fill_diagonal: every (cols + 1)-th element
            steps = (rows * cols + cols) // (cols + 1)
        flat = _C.arange(steps, device=self.device) * (cols + 1)
        index = (flat // cols, flat % cols) if cols else (flat, flat)
    else:
        index = (_C.arange(n, device=self.device),) * self.ndim
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    self[index] = fill_value
    return self


def _inplace_of(op):
    def method(self, *args, **kwargs):
        return self.copy_(op(self, *args, **kwargs))
    method.__name__ = op.__name__ + "_"
    method.__doc__ = f"``{op.__name__}`` written into this tensor."
    return method


def _scan_inplace(op):
    def method(self, dim, *, dtype=None):
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{_CPP_NAMES[self.dtype.name]} and output tensor dtype "
                               f"{_CPP_NAMES[dtype.name]} should match")
        return self.copy_(op(self, dim))
    method.__name__ = op.__name__ + "_"
    method.__doc__ = f"``{op.__name__}`` along ``dim`` written into this tensor."
    return method


# ---- new tensors ---------------------------------------------------------------------------

def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                       layout=None, pin_memory=False):
    """An uninitialised tensor of ``size``/``stride``, with this tensor's dtype
    and device unless given."""
    return _C.empty_strided(size, stride, dtype=dtype or self.dtype,
                            device=device or self.device, requires_grad=requires_grad)


def _options(dtype, device):
    return (f"TensorOptions(dtype={_CPP_NAMES[dtype.name]}, device={device}, layout=Strided, "
            f"requires_grad=false (default), pinned_memory=false (default), "
            f"memory_format=(nullopt))")


def _new(self, *args, device=None):
    """The legacy constructor: ``x.new()`` (empty), ``x.new(2, 3)`` or
    ``x.new(Size)`` (uninitialised), ``x.new(sequence)`` (data), in x's dtype."""
    device = device or self.device
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype or other.device != device:
            raise TypeError(f"expected {_options(self.dtype, device)} (got "
                            f"{_options(other.dtype, other.device)})")
        return other.detach()
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and \
            not isinstance(args[0], _C.Size):
        return _C.tensor(args[0], dtype=self.dtype, device=device)
    sizes = _size_args(args) if args else (0,)
    return _C.empty(sizes, dtype=self.dtype, device=device)


# ---- shapes --------------------------------------------------------------------------------

def _sum_to_size(self, *size):
    """Sum this tensor down to ``size``, a shape it broadcasts from."""
    size = _size_args(size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(shape)}}}.")
    dims = [d for d in builtins.range(len(shape))
            if d < lead or (size[d - lead] == 1 and shape[d] != 1)]
    result = self.sum(dims, keepdim=True) if dims else self
    return result.reshape(size) if lead else result



def _resize_(self, *sizes, memory_format=None):
    """Make this tensor contiguous of ``sizes`` over its storage from its
    offset: the values there are kept in storage order; a larger size grows
    the storage (new elements uninitialised)."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    sizes = _size_args(sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError("numel: integer multiplication overflow")
    offset = self.storage_offset()
    need = (offset + math.prod(sizes)) * self.element_size()
    if need > _C._storage_bytes(self).numel():
        _C._grow_storage(self, need)
    return self.as_strided_(sizes, _contiguous_strides(sizes), offset)


def _resize_as_(self, the_template, *, memory_format=None):
    """``resize_`` to ``the_template``'s shape."""
    return self.resize_(_tensor_arg("resize_as_", "the_template", 1, the_template).shape)


def _split_with_sizes(self, split_sizes, dim=0):
    """Views of consecutive pieces of ``split_sizes`` along ``dim`` (they must sum
    to its length)."""
    split_sizes = [operator.index(s) for s in split_sizes]
    length = self.shape[dim]
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={split_sizes}")
    if sum(split_sizes) != length:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={split_sizes}")
    return self.split(split_sizes, dim)


# ---- Python callables over the elements (CPU) ----------------------------------------------

def _element_cast(dtype):
    """PyTorch's conversion of a callable's result to an element of dtype."""
    def cast(value):
        if dtype.is_complex:
            return complex(value)
        if dtype.is_floating_point:
            if not isinstance(value, numbers.Real):
                raise TypeError(f"must be real number, not {type(value).__name__}")
            return float(value)
        if dtype == _C.bool:
            return bool(value)
        return int(value) if isinstance(value, float) else operator.index(value)
    return cast


def _apply_elements(self, name, fn, others):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    columns = [self.flatten().tolist()] + [o.expand_as(self).flatten().tolist()
                                           for o in others]
    cast = _element_cast(self.dtype)
    values = [cast(fn(*args)) for args in zip(*columns)]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _apply_(self, callable):
    """Replace each element by ``callable(element)`` (CPU; slow, for tests and scripts)."""
    return _apply_elements(self, "apply_", callable, ())


def _map_(self, tensor, callable):
    """Replace each element by ``callable(element, other)``, tensor broadcast to this shape."""
    return _apply_elements(self, "map_", callable, (tensor,))


def _map2_(self, x, y, callable):
    """Replace each element by ``callable(element, x_i, y_i)``."""
    return _apply_elements(self, "map2_", callable, (x, y))


# ---- torch-level functions -----------------------------------------------------------------

def split_with_sizes(input, split_sizes, dim=0):
    """``input.split_with_sizes(split_sizes, dim)``."""
    return _split_with_sizes(_tensor_arg("split_with_sizes", "input", 1, input), split_sizes,
                             dim)


def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` (PyTorch's skips the view checks that this library never needs)."""
    return _tensor_arg("unsafe_chunk", "input", 1, input).chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """``split`` (see unsafe_chunk)."""
    return _tensor_arg("unsafe_split", "input", 1, input).split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` (see unsafe_chunk)."""
    return split_with_sizes(input, split_sizes, dim)


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero()`` cut or padded (with ``fill_value``) to ``size`` rows."""
    input = _tensor_arg("nonzero_static", "input", 1, input)
    size = operator.index(size)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size]
    pad = _C.full((size - found.shape[0], found.shape[1]), fill_value, dtype=found.dtype,
                  device=found.device)
    return _C.cat([found, pad])


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size,
    stride, storage_offset)`` looks: through input's storage, so an element
    of the strided view that is no element of input is dropped."""
    input = _tensor_arg("as_strided_scatter", "input", 1, input)
    src = _tensor_arg("as_strided_scatter", "src", 2, src)
    size, stride = tuple(size), tuple(stride)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(size)}")
    # Storage positions of input's elements and of src's: each element of
    # input takes the src element written at its position, if any (ints
    # only, so the result is where()/gather of input and src, differentiable).
    span = max(_last_element(input.shape, input.stride(), input.storage_offset()),
               _last_element(size, stride, offset)) + 1
    positions = _C.arange(span, device=input.device)
    written = _C.full((span,), -1, dtype=positions.dtype, device=input.device)
    written[positions.as_strided(size, stride, offset).flatten()] = _C.arange(
        src.numel(), device=input.device)
    source = written[positions.as_strided(input.shape, input.stride(), input.storage_offset())]
    taken = src.flatten()[source.clamp(min=0)].to(input.dtype)  # copy_'s cast
    return _C.where(source >= 0, taken, input)


def _last_element(shape, strides, offset):
    if 0 in tuple(shape):
        return offset
    return offset + sum((n - 1) * st for n, st in zip(shape, strides))


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= max(size, 1)
    return tuple(strides)


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).")


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated: ``start, start + step, ...`` up to and including ``end``
    (the default float dtype unless ``dtype``)."""
    warnings.warn(_RANGE_WARNING.replace("torch.", "torchlike."), UserWarning, stacklevel=2)
    values = [float(v.item()) if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    result = (_C.arange(count, dtype=_C.float64, device=device) * step + start).to(
        dtype or _C.get_default_dtype())
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result.requires_grad_(requires_grad) if requires_grad else result


# ---- dim_order -------------------------------------------------------------------------
# The dims from outermost to innermost in memory.  A layout can fit several
# orders (a size-1 dim goes anywhere, equal or zero strides tie); without a
# check one of them is returned, chosen as PyTorch chooses: the two layouts
# every kernel knows (contiguous, channels-last) directly, any other by an
# insertion sort on the strides, ties broken by size.

_BAD_CHECK = "The ambiguity_check argument must be a bool or a list of memory formats."
_NOT_UNIQUE = ("The tensor does not have unique dim order, or cannot map to exact one of the "
               "given memory formats.")


def _dense_in(shape, strides, inner_to_outer):
    """Whether the dims, walked innermost first, are densely packed (size-1
    dims skipped, as their stride is never used)."""
    expected = 1
    for d in inner_to_outer:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _in_format(shape, strides, fmt):
    """Tensor.is_contiguous(memory_format=fmt) from a shape and strides."""
    n = len(shape)
    if fmt is _layout.channels_last or fmt is _layout.channels_last_3d:
        if n != (4 if fmt is _layout.channels_last else 5):
            return False
        return _dense_in(shape, strides, [1, *builtins.range(n - 1, 1, -1), 0])
    return 0 in shape or _dense_in(shape, strides, builtins.range(n - 1, -1, -1))


def _stride_order(shape, strides, a, b):
    """For dim a placed just inside dim b: 1 when a belongs outside b (its
    stride is larger, or equal with a longer dim), -1 when it rightly lies
    inside, 0 when nothing decides (a zero stride, or equal strides and the
    outer dim at least as long)."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        na, nb = shape[a], shape[b]
        return 0 if na == 0 or nb != 0 and nb >= na else 1
    return 1 if sa > sb else -1


def _dim_order(self, *, ambiguity_check=False):
    formats = []
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or not all(
                isinstance(f, _layout.memory_format) for f in ambiguity_check):
            raise TypeError(_BAD_CHECK)
        formats = ambiguity_check
    shape, strides = tuple(self.shape), self.stride()
    n = len(shape)
    if ambiguity_check is not False:  # True, or a list of formats (even an empty one)
        several = 1 in shape or any(strides[i] == strides[i + 1] for i in builtins.range(n - 1))
        if several and sum(_in_format(shape, strides, f) for f in formats) != 1:
            raise RuntimeError(_NOT_UNIQUE)
    if n < 2:
        return tuple(builtins.range(n))
    contiguous = _in_format(shape, strides, _layout.contiguous_format)
    last = _in_format(shape, strides, _layout.channels_last)
    if contiguous != last:
        return tuple(builtins.range(n)) if contiguous else (0, *builtins.range(2, n), 1)
    # insertion sort over the dims innermost first: each dim moves inward past
    # the dims that belong outside it, stops at the first that rightly lies
    # inside it, and steps over an undecided pair
    order = list(builtins.range(n - 1, -1, -1))
    for i in builtins.range(1, n):
        j = i
        for k in builtins.range(i - 1, -1, -1):
            c = _stride_order(shape, strides, order[k], order[j])
            if c > 0:
                order[k], order[j] = order[j], order[k]
                j = k
            elif c < 0:
                break
    if ambiguity_check and any(  # True or a non-empty list: the order must be strict
            _stride_order(shape, strides, order[k], order[k + 1]) != -1
            for k in builtins.range(n - 1)):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(order))


_dim_order.__name__, _dim_order.__qualname__ = "dim_order", "Tensor.dim_order"


def _module_load(self, other, assign=False):
    """The tensor nn.Module.load_state_dict puts in self's place when it
    swaps parameters: other itself (detached) under ``assign``, else self
    with other's values copied in (detached)."""
    return other.detach() if assign else self.copy_(other).detach()


def _volatile(self):
    """Always False: volatile was removed from PyTorch's autograd."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


# The devices and layouts torchlike has none of: PyTorch's predicates answer False.
_NEVER = ("is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_xla", "is_mtia",
          "is_maia", "is_mkldnn", "is_quantized")


# ---- installation --------------------------------------------------------------------------

_METHODS = {
    "is_conj": _false, "is_neg": _false, "resolve_conj": _self, "resolve_neg": _self,
    "is_signed": _is_signed, "is_same_size": _is_same_size, "isreal": _isreal,
    "get_device": _get_device, "fill_diagonal_": _fill_diagonal_,
    "tril_": _inplace_of(_C.tril), "triu_": _inplace_of(_C.triu),
    "cumsum_": _scan_inplace(_C.cumsum), "cumprod_": _scan_inplace(_C.cumprod),
    "new_empty_strided": _new_empty_strided, "new": _new, "sum_to_size": _sum_to_size,
    "resize_": _resize_, "resize_as_": _resize_as_, "split_with_sizes": _split_with_sizes,
    "unsafe_chunk": Tensor.chunk, "unsafe_split": Tensor.split,
    "unsafe_split_with_sizes": _split_with_sizes, "apply_": _apply_, "map_": _map_,
    "map2_": _map2_, "as_strided_scatter": as_strided_scatter,
    "nonzero_static": nonzero_static, "module_load": _module_load,
    "const_data_ptr": Tensor.data_ptr, "dim_order": _dim_order,
}
for _name, _method in _METHODS.items():
    setattr(Tensor, _name, _method)
for _name in _NEVER:
    setattr(Tensor, _name, property(_false, doc="False: torchlike has no such device or layout."))
Tensor.volatile = property(_volatile)
# True for torchlike.nested's tensors (their class sets _tl_is_nested)
Tensor.is_nested = property(lambda self: getattr(type(self), "_tl_is_nested", False),
                            doc="True for a nested tensor (torchlike.nested).")
Tensor.is_distributed = _false

is_conj, is_neg = _function(_false, "is_conj"), _function(_false, "is_neg")
resolve_conj, resolve_neg = _function(_self, "resolve_conj"), _function(_self, "resolve_neg")
is_signed = _function(_is_signed, "is_signed")
is_same_size = _function(_is_same_size, "is_same_size")
isreal, get_device = _function(_isreal, "isreal"), _function(_get_device, "get_device")
is_inference = _function(lambda input: input.is_inference(), "is_inference")
