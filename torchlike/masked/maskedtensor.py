"""MaskedTensor: a tensor whose elements are each present or masked out.

torchlike has no ``__torch_dispatch__``, so a MaskedTensor *is* its data
tensor (a Tensor subclass sharing the data's storage and autograd history)
with a bool ``mask`` of the same shape beside it.  Everything reaches it
through ``__torch_function__`` (docs/subclassing.md), where one table maps
the function's name to what it does on (data, mask):

- elementwise unary ops run on the data and keep the mask;
- binary ops need both masks equal (a plain tensor or a number is taken as
  fully present) and keep it; comparisons too;
- reductions (sum, prod, amax, amin, argmax, argmin, mean, var, std, all)
  reduce the present elements, and an output element is present where any
  of its inputs was;
- views and copies (reshape, transpose, indexing, clone, detach, to) apply
  to data and mask alike;
- metadata (shape, dtype, device, requires_grad, ...) and autograd
  (backward, grad) read the data; ``grad`` comes back as a MaskedTensor
  with the tensor's mask, as PyTorch gives it.

Anything else raises a TypeError naming the function, as PyTorch's
MaskedTensor refuses the ops it has no rule for."""
from .. import _C
from .._C import DisableTorchFunctionSubclass
from . import _ops
from ..overrides import resolve_name, short_name

Tensor = _C.Tensor

# the dtypes PyTorch's MaskedTensor accepts
_DTYPES = (_C.bool, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16, _C.float32, _C.float64)


def is_masked_tensor(obj):
    """True for a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


def _validate(data, mask):
    if not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    if mask.dtype != _C.bool:
        raise TypeError("mask must have dtype bool.")
    if data.ndim != mask.ndim:
        raise ValueError("data.dim() must equal mask.dim()")
    if tuple(data.shape) != tuple(mask.shape):
        raise ValueError("data.size() must equal mask.size()")
    if data.dtype not in _DTYPES:
        raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
    if data.device != mask.device:
        raise ValueError("data and mask must be on the same device")


def _plain(t):
    """t's data as a plain Tensor on the tape (t itself when already plain)."""
    if type(t) is Tensor or not isinstance(t, Tensor):
        return t
    with DisableTorchFunctionSubclass():
        return Tensor.as_subclass(t, Tensor)


def _wrap(data, mask):
    """A MaskedTensor over data (a plain tensor, its history kept) and mask."""
    with DisableTorchFunctionSubclass():
        out = Tensor.as_subclass(data, MaskedTensor)
    if tuple(mask.shape) != tuple(data.shape):
        mask = mask.expand(data.shape)
    out._masked_mask = mask
    return out


class MaskedTensor(Tensor):
    """MaskedTensor(data, mask, requires_grad=False): data's values with a
    bool mask of the same shape (True: present).  A leaf of its own (the
    data is not on its tape): use as_masked_tensor to keep data's history."""

    def __new__(cls, data, mask, requires_grad=False):
        _validate(data, mask)
        out = Tensor._make_subclass(cls, data, requires_grad)
        out._masked_mask = mask
        return out

    def __init__(self, *args, **kwargs):
        pass

    # ---- the two parts ----------------------------------------------------------------

    def _masked_data(self):
        return _plain(self)

    def get_data(self):
        """The data, masked-out elements included (on the tape)."""
        return _plain(self)

    def get_mask(self):
        """The bool mask: True where an element is present."""
        return self._masked_mask

    def to_tensor(self, value):
        """A plain tensor: the data where present, value elsewhere."""
        data = _plain(self)
        return _C.where(self._masked_mask, data,
                        _C.full((), value, dtype=data.dtype, device=data.device))

    def __repr__(self):
        return _masked_repr(_plain(self).detach(), self._masked_mask)

    __str__ = __repr__

    # NumPy reads no data from it (that would show masked-out values): the
    # buffer protocol refuses and __array__ raises, as PyTorch's .numpy() does
    _tl_refuse_buffer = True

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")

    def __deepcopy__(self, memo):
        data = _plain(self).detach().clone()
        out = MaskedTensor(data, self._masked_mask.clone(), self.requires_grad and self.is_leaf)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        return (MaskedTensor, (_plain(self).detach(), self._masked_mask, self.requires_grad))

    # ---- dispatch ------------------------------------------------------------------------

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = short_name(func)
        rule = _RULES.get(name)
        if name in _DUNDER_REFUSED:
            return NotImplemented
        if rule is None:
            if name.endswith("_") and name[:-1] in _UNARY and not name.startswith("__"):
                rule = _unary_inplace
            elif name.endswith("_") and name[:-1] in _BINARY and not name.startswith("__"):
                rule = _binary_inplace
            else:
                raise TypeError(f"MaskedTensor does not support {_qualified(func)}: no rule "
                                "for it says what it does with masked-out elements")
        return rule(func, name, args, kwargs)


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor over data and mask, a leaf of its own (detached from data)."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor over data and mask that keeps data's autograd history,
    so gradients through it reach data."""
    _validate(data, mask)
    return _wrap(data, mask)


# ---- naming ----------------------------------------------------------------------------------

def _qualified(func):
    return resolve_name(func) or repr(func)


# ---- rules -----------------------------------------------------------------------------------

def _mask_of(t):
    return t._masked_mask if isinstance(t, MaskedTensor) else None


def _passthrough(func, name, args, kwargs):
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


def _grad(func, name, args, kwargs):
    with DisableTorchFunctionSubclass():
        g = func(*args, **kwargs)
    if g is None or isinstance(g, MaskedTensor):
        return g
    return _wrap(g, args[0]._masked_mask)


def _refuse_host(func, name, args, kwargs):
    # PyTorch's two wordings
    tail = ", got MaskedTensor" if name == "tolist" else "."
    raise RuntimeError(f".{name}() is not supported for tensor subclasses{tail}")


def _unary(func, name, args, kwargs):
    self = args[0]
    rest = [_plain(a) for a in args[1:]]
    with DisableTorchFunctionSubclass():
        out = func(_plain(self), *rest, **kwargs)
    return _wrap(out, self._masked_mask)


def _unary_inplace(func, name, args, kwargs):
    self = args[0]
    with DisableTorchFunctionSubclass():
        func(self, *[_plain(a) for a in args[1:]], **kwargs)
    return self


def _common_mask(a, b):
    """The mask two operands share: equal masks, or the MaskedTensor's when
    the other is a plain tensor or a number."""
    ma, mb = _mask_of(a), _mask_of(b)
    if ma is not None and mb is not None:
        if tuple(ma.shape) != tuple(mb.shape) or not bool(_C.all(ma == mb)):
            raise ValueError("Input masks must match. If you need support for this, please "
                             "open an issue on Github.")
    return ma if ma is not None else mb


def _binary(func, name, args, kwargs):
    if kwargs:
        raise ValueError("len(kwargs) must equal 0")
    if len(args) != 2:
        raise ValueError(f"{name} on MaskedTensor takes two operands, got {len(args)}")
    a, b = args
    mask = _common_mask(a, b)
    with DisableTorchFunctionSubclass():
        out = func(_plain(a), _plain(b))
    if out is NotImplemented:
        return out
    return _wrap(out, mask)


def _binary_inplace(func, name, args, kwargs):
    if kwargs:
        raise ValueError("len(kwargs) must equal 0")
    a, b = args
    _common_mask(a, b)
    with DisableTorchFunctionSubclass():
        func(a, _plain(b))
    return a


def _reduction(func, name, args, kwargs):
    """sum/prod/amax/... of a MaskedTensor: the masked reduction of the data,
    present where any reduced element was."""
    self = args[0]
    params = dict(zip(("dim", "keepdim", "dtype"), args[1:]))
    for key, value in kwargs.items():
        if key in ("dim", "keepdim", "dtype") and key not in params:
            params[key] = value
        elif key == "axis":
            params["dim"] = value
        else:
            raise TypeError(f"_reduce_dim_args() got an unexpected keyword argument '{key}'")
    dim, keepdim = params.get("dim"), bool(params.get("keepdim", False))
    dtype = params.get("dtype")
    mask = self._masked_mask
    data = _plain(self)
    out = getattr(_ops, name)(data, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    present = _ops._reduce(_C.any, mask, dim, keepdim) if mask.ndim else mask
    return _wrap(out, present)


def _all(func, name, args, kwargs):
    self = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    mask = self._masked_mask
    filled = _C.where(mask, _plain(self).to(_C.bool), _C.ones((), dtype=_C.bool))
    out = _ops._reduce(_C.all, filled, dim, keepdim)
    present = _ops._reduce(_C.any, mask, dim, keepdim)
    return _wrap(out, present)


def _softmax(func, name, args, kwargs):
    self = args[0]
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    dtype = args[2] if len(args) > 2 else kwargs.get("dtype")
    out = _ops.softmax(_plain(self), dim, dtype=dtype, mask=self._masked_mask)
    return _wrap(out, self._masked_mask)


def _where(func, name, args, kwargs):
    # torchlike.where(condition, input, other); Tensor.where(input, condition, other)
    names = ("input", "condition", "other") if func is Tensor.where else \
        ("condition", "input", "other")
    vals = dict(zip(names, args))
    vals.update(kwargs)
    cond, a, b = vals["condition"], vals["input"], vals["other"]
    cond = _plain(cond)
    device = next(x.device for x in (a, b) if isinstance(x, MaskedTensor))
    parts = []
    for x in (a, b):
        if isinstance(x, MaskedTensor):
            parts.append((_plain(x), x._masked_mask))
        else:
            data = x if isinstance(x, Tensor) else _C.tensor(x, device=device)
            parts.append((data, _C.ones(data.shape, dtype=_C.bool, device=data.device)))
    (da, ma), (db, mb) = parts
    return _wrap(_C.where(cond, da, db), _C.where(cond, ma, mb))


def _view(func, name, args, kwargs):
    """A view or copy that moves elements: the same call on data and mask."""
    self = args[0]
    rest = [_plain(a) for a in args[1:]]
    with DisableTorchFunctionSubclass():
        data = func(_plain(self), *rest, **kwargs)
        mask = func(self._masked_mask, *rest, **kwargs)
    return _wrap(data, mask)


def _convert(func, name, args, kwargs):
    """dtype/device conversions: on the data; the mask follows the device."""
    self = args[0]
    with DisableTorchFunctionSubclass():
        data = func(_plain(self), *args[1:], **kwargs)
    mask = self._masked_mask
    if mask.device != data.device:
        mask = mask.to(data.device)
    return _wrap(data, mask)


def _requires_grad_(func, name, args, kwargs):
    with DisableTorchFunctionSubclass():
        func(*args, **kwargs)
    return args[0]


# Names, as the functions and methods call themselves, that act elementwise.
_UNARY = set("""abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh atan
arctan atanh arctanh bitwise_not ceil clamp clip conj_physical cos cosh deg2rad digamma erf
erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit i0 isnan
nan_to_num neg negative positive pow rad2deg reciprocal round rsqrt sigmoid sign sgn signbit
sin sinc sinh sqrt square tan tanh trunc relu __neg__ __abs__ __pos__ __invert__""".split())
_BINARY = set("""add atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift div divide floor_divide fmod logaddexp logaddexp2 mul multiply nextafter
remainder sub subtract true_divide eq ne le ge greater greater_equal gt less_equal lt less
maximum minimum fmax fmin not_equal""".split())
_DUNDER_BINARY = set("""__add__ __radd__ __sub__ __mul__ __rmul__ __truediv__ __rtruediv__
__floordiv__ __mod__ __pow__ __and__ __rand__ __or__ __ror__ __xor__ __rxor__ __lshift__
__rshift__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__""".split())
# PyTorch's MaskedTensor has no rule for these: Python's "unsupported operand" error
_DUNDER_REFUSED = set("""__rsub__ __rpow__ __rfloordiv__ __rmod__ __matmul__ __rmatmul__
__rlshift__ __rrshift__""".split())
_DUNDER_INPLACE = set("""__iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__
__ipow__ __iand__ __ior__ __ixor__ __ilshift__ __irshift__""".split())
_REDUCTIONS = ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "var", "std")
_VIEWS = ("t", "transpose", "reshape", "view", "__getitem__", "unsqueeze", "expand",
          "contiguous", "clone", "detach")
_CONVERSIONS = ("to", "float", "double", "half", "int", "long", "short", "bool", "char",
                "cpu", "cuda", "type_as")
_PASSTHROUGH = set("""get:shape get:dtype get:device get:ndim get:requires_grad get:is_leaf
get:grad_fn get:layout get:is_sparse get:is_cuda get:is_cpu get:is_nested get:is_quantized
get:is_meta get:names get:output_nr get:_version get:itemsize get:nbytes get:data
set:requires_grad get:is_mkldnn get:is_sparse_csr get:_base size dim ndimension numel
nelement __len__ data_ptr element_size is_contiguous is_floating_point is_complex
retain_grad backward register_hook item __bool__ __float__ __int__ __index__ __format__
get_device storage_offset stride __hash__ __array_priority__""".split())

_RULES = {}
for _n in _UNARY:
    _RULES[_n] = _unary
for _n in _BINARY | _DUNDER_BINARY:
    _RULES[_n] = _binary
for _n in _DUNDER_INPLACE:
    _RULES[_n] = _binary_inplace
for _n in _REDUCTIONS:
    _RULES[_n] = _reduction
for _n in _VIEWS:
    _RULES[_n] = _view
for _n in _CONVERSIONS:
    _RULES[_n] = _convert
for _n in _PASSTHROUGH:
    _RULES[_n] = _passthrough
_RULES.update({"get:grad": _grad, "all": _all, "softmax": _softmax, "where": _where,
               "_where": _where,
               "requires_grad_": _requires_grad_, "tolist": _refuse_host,
               "numpy": _refuse_host})


# ---- printing --------------------------------------------------------------------------------

def _format_value(value, present, is_float):
    if not present:
        return "      --"
    if is_float:
        return f"{value:8.4f}"
    return str(value)


def _format_rows(values, present, is_float, indent):
    pad = " " * indent
    if not values or not isinstance(values[0], list):
        items = [_format_value(v, p, is_float) for v, p in zip(values, present)]
        return pad + "[" + ", ".join(items) + "]"
    rows = [_format_rows(v, p, is_float, indent + 2) for v, p in zip(values, present)]
    return pad + "[\n" + ",\n".join(rows) + "\n" + pad + "]"


def _masked_repr(data, mask):
    """PyTorch's layout: one bracketed row per innermost dim, four decimals
    for floats in eight columns, "--" for a masked-out element."""
    data = data.cpu()
    is_float = data.dtype.is_floating_point
    if is_float and data.dtype != _C.float64:
        data = data.double()
    values, present = data.tolist(), mask.cpu().tolist()
    if data.ndim == 0:
        shown = _format_value(values, present, is_float) if present else "--"
        return f"MaskedTensor({shown}, {present})"
    if data.numel() == 0:
        raise ValueError("max() arg is an empty sequence")
    return "MaskedTensor(\n" + _format_rows(values, present, is_float, 2) + "\n)"
