"""What a quantized tensor answers and which ops it takes, as PyTorch's
QuantizedCPU backend: its attributes and quantizer accessors, the views and
copies that keep the quantizer (indexing, reshape, transpose, cat ...),
relu, comparisons of whole tensors, the repr, and PyTorch's own refusals
(arithmetic, casts, gradients).  Everything else is refused by the routing
in tensor.py."""
from .. import _C
from .._C import Tensor
from .tensor import (
    _IMPL, _channel_shape, _like, dequantize, is_q, op, per_channel, quantize_as,
    per_channel_affine, per_channel_affine_float_qparams, per_tensor, per_tensor_affine,
    scalar_type)


# ---- attributes: those of the integers, but the dtype and the gradient state -----------------

def _of_ints(name):
    """An attribute or method answered by the integer tensor."""
    kind = name.rsplit(".", 1)[-1]
    if name.endswith(".__get__"):
        attr = name.split(".")[1]
        _IMPL[name] = lambda q: getattr(q._int, attr)
    else:
        _IMPL[name] = lambda q, *a, **k: getattr(q._int, kind)(*a, **k)


for _name in ("shape", "ndim", "device", "layout", "is_cuda", "is_cpu", "is_meta", "is_sparse",
              "is_nested", "names", "is_leaf", "is_sparse_csr", "is_mkldnn"):
    _of_ints(f"Tensor.{_name}.__get__")
for _name in ("size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset",
              "is_contiguous", "data_ptr", "untyped_storage", "get_device", "__len__",
              "is_floating_point", "is_complex", "is_signed", "nbytes", "is_shared",
              "is_pinned", "_is_view", "is_set_to", "__hash__"):
    _of_ints(f"Tensor.{_name}")
_IMPL["numel"] = lambda q: q._int.numel()
_IMPL["Tensor.dtype.__get__"] = lambda q: q._qdtype
_IMPL["Tensor.is_quantized.__get__"] = lambda q: True
_IMPL["Tensor.requires_grad.__get__"] = lambda q: False
_IMPL["Tensor.grad_fn.__get__"] = lambda q: None
_IMPL["Tensor.grad.__get__"] = lambda q: None
_IMPL["Tensor.itemsize.__get__"] = lambda q: q._int.itemsize
_IMPL["Tensor.element_size"] = lambda q: q._int.element_size()
_IMPL["Tensor.is_signed"] = lambda q: q._qdtype is not _C.quint8
_IMPL["Tensor.is_floating_point"] = lambda q: False
_IMPL["is_floating_point"] = lambda q: False
_IMPL["is_complex"] = lambda q: False
_IMPL["Tensor.is_complex"] = lambda q: False
_IMPL["Tensor.nbytes.__get__"] = lambda q: q._int.nbytes


@op("Tensor.requires_grad.__set__", "Tensor.requires_grad_")
def _requires_grad(q, flag=True):
    if flag:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return q


@op("Tensor.data.__get__", "Tensor.detach", "detach", "Tensor.cpu", "Tensor.detach_")
def _self_view(q, *args, **kwargs):
    return _like(q, q._int.detach())


# ---- the quantizer ----------------------------------------------------------------------------

def _plain_refusal(q, name):
    """torch.q_scale(x) and friends of a plain tensor: PyTorch's CPU-backend refusal."""
    if not is_q(q):
        from .tensor import not_implemented
        raise NotImplementedError(not_implemented(name, "CPU"))


def _need(q, schemes, words, name):
    _plain_refusal(q, name)
    if q._qscheme not in schemes:
        raise RuntimeError(f"Expected quantizer->qscheme() == {words} to be true, but got false. "
                           f" (Could this error message be improved?  If so, please report an "
                           f"enhancement request to PyTorch.)")


_PER_CHANNEL = (per_channel_affine, per_channel_affine_float_qparams)
_PC_WORDS = "kPerChannelAffine || quantizer->qscheme() == kPerChannelAffineFloatQParams"


@op("Tensor.q_scale", "q_scale")
def q_scale(q):
    _need(q, (per_tensor_affine,), "kPerTensorAffine", "q_scale")
    return q._scale


@op("Tensor.q_zero_point", "q_zero_point")
def q_zero_point(q):
    _need(q, (per_tensor_affine,), "kPerTensorAffine", "q_zero_point")
    return q._zp


@op("Tensor.q_per_channel_scales", "q_per_channel_scales")
def q_per_channel_scales(q):
    _need(q, _PER_CHANNEL, _PC_WORDS, "q_per_channel_scales")
    return q._scales.clone()


@op("Tensor.q_per_channel_zero_points", "q_per_channel_zero_points")
def q_per_channel_zero_points(q):
    _need(q, _PER_CHANNEL, _PC_WORDS, "q_per_channel_zero_points")
    return q._zps.clone()


@op("Tensor.q_per_channel_axis", "q_per_channel_axis")
def q_per_channel_axis(q):
    _need(q, _PER_CHANNEL, _PC_WORDS, "q_per_channel_axis")
    return q._axis


@op("Tensor.qscheme", "qscheme")
def qscheme_of(q):
    if not is_q(q):
        raise RuntimeError(f"qscheme() is only defined for quantized tensors; this one is "
                           f"{getattr(q, 'dtype', type(q).__name__)}")
    return q._qscheme


@op("Tensor.int_repr", "int_repr")
def int_repr(q):
    """The integers, as a new contiguous tensor (uint8, int8 or int32)."""
    _plain_refusal(q, "int_repr")
    return q._int.contiguous().clone()


_IMPL["Tensor.dequantize"] = _IMPL["dequantize"] = dequantize


@op("Tensor.item")
def _item(q):
    return dequantize(q).item()


@op("Tensor.tolist")
def _tolist(q):
    raise RuntimeError("load_scalar: invalid type")


@op("Tensor.numpy", "Tensor.__array__")
def _numpy(q, *args, **kwargs):
    raise TypeError(f"Got unsupported ScalarType {scalar_type(q._qdtype)}")


# ---- views and copies: the same integers under the same quantizer ---------------------------

def _uniform(q):
    """PyTorch sets a per-channel tensor's strides only where its channel dim stays put."""
    if q._qscheme is not per_tensor_affine:
        raise RuntimeError("Setting strides is possible only on uniformly quantized tensor")


def _reshaped(q, ints):
    """A reshape of a per-channel tensor keeps its axis, whose length must not change."""
    if q._qscheme is not per_tensor_affine:
        if ints.ndim <= q._axis or ints.shape[q._axis] != q._scales.numel():
            got = ints.shape[q._axis] if ints.ndim > q._axis else ints.numel()
            raise RuntimeError(f"length of scales must equal to channel, expected {got} got, "
                               f"{q._scales.numel()}")
    return _like(q, ints)


def _per_tensor_op(name, method=True):
    """A view or copy of the integers that PyTorch allows on per-tensor
    quantized tensors only."""
    def impl(q, *args, **kwargs):
        _uniform(q)
        out = getattr(q._int, name)(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(_like(q, t) for t in out)
        return _like(q, out)
    return impl


for _name in ("t", "transpose", "permute", "expand", "expand_as", "flip", "repeat", "chunk",
              "split", "unbind", "narrow", "swapaxes", "swapdims", "movedim", "index_select",
              "t_", "transpose_"):
    _IMPL[f"Tensor.{_name}"] = _per_tensor_op(_name)
for _name in ("t", "transpose", "permute", "flip", "chunk", "split", "unbind", "narrow",
              "swapaxes", "swapdims", "movedim", "index_select"):
    _IMPL[_name] = _per_tensor_op(_name)
for _name in ("T", "mT", "H", "mH"):
    _IMPL[f"Tensor.{_name}.__get__"] = (
        lambda attr: lambda q: (_uniform(q), _like(q, getattr(q._int, attr)))[1])(_name)


@op("Tensor.view", "Tensor.reshape", "reshape", "Tensor.view_as", "Tensor.reshape_as")
def _reshape(q, *shape):
    if len(shape) == 1 and isinstance(shape[0], Tensor):  # view_as / reshape_as
        shape = (tuple(shape[0].shape),)
    if len(shape) == 1 and isinstance(shape[0], _C.dtype):
        raise RuntimeError(f"view(dtype): quantized tensors are not viewed as {shape[0]}")
    return _reshaped(q, q._int.reshape(*shape))


@op("Tensor.flatten", "flatten")
def _flatten(q, start_dim=0, end_dim=-1):
    return _reshaped(q, q._int.flatten(start_dim, end_dim))


@op("Tensor.contiguous")
def _contiguous(q, memory_format=None):
    kw = {} if memory_format is None else {"memory_format": memory_format}
    return _like(q, q._int.contiguous(**kw))


@op("Tensor.clone", "clone")
def _clone(q, memory_format=None):
    kw = {} if memory_format is None else {"memory_format": memory_format}
    return _like(q, q._int.clone(**kw))


@op("Tensor.unsqueeze", "unsqueeze")
def _unsqueeze(q, dim):
    ints = q._int.unsqueeze(dim)
    if q._qscheme is per_tensor_affine:
        return _like(q, ints)
    d = dim if dim >= 0 else dim + ints.ndim
    return _like(q, ints, q._axis + (1 if d <= q._axis else 0))


@op("Tensor.squeeze", "squeeze")
def _squeeze(q, dim=None):
    ints = q._int.squeeze() if dim is None else q._int.squeeze(dim)
    if q._qscheme is per_tensor_affine:
        return _like(q, ints)
    dims = range(q.ndim) if dim is None else [d % max(q.ndim, 1) for d in
                                               (dim if isinstance(dim, (tuple, list)) else [dim])]
    gone = [d for d in dims if q._int.shape[d] == 1]
    if q._axis in gone:  # the channel dim of one channel: its quantizer, per tensor
        return _channel(q, 0, ints)
    return _like(q, ints, q._axis - sum(d < q._axis for d in gone))


def _channel(q, c, ints):
    """Channel c alone: a per-tensor quantizer with its scale and zero point."""
    return per_tensor(ints, q._qdtype, float(q._scales[c]), int(q._zps[c]))


@op("Tensor.select", "select")
def _select(q, dim, index):
    ints = q._int.select(dim, index)
    if q._qscheme is per_tensor_affine:
        return _like(q, ints)
    d = dim % q.ndim
    if d == q._axis:
        return _channel(q, index, ints)
    return _like(q, ints, q._axis - (d < q._axis))


@op("Tensor.__getitem__")
def _getitem(q, index):
    if q._qscheme is per_tensor_affine:
        return _like(q, q._int[index])
    return _per_channel_getitem(q, index)


def _per_channel_getitem(q, index):
    """Basic indexing (integers, slices, None, ...) of a per-channel tensor:
    an integer on the channel dim leaves that channel's quantizer per tensor;
    a slice there slices the scales and zero points (one channel left: per
    tensor again)."""
    items = index if isinstance(index, tuple) else (index,)
    if any(not (isinstance(i, (int, slice)) or i is None or i is Ellipsis) for i in items):
        raise NotImplementedError("indexing a per-channel quantized tensor with tensors or "
                                  "lists is not supported; dequantize() first")
    ints = q._int[index]
    if Ellipsis in items:
        at = items.index(Ellipsis)
        used = sum(i is not None for i in items) - 1
        items = items[:at] + (slice(None),) * (q.ndim - used) + items[at + 1:]
    dim, out, axis = 0, 0, None
    channel = None
    for i in items:
        if i is None:
            out += 1
            continue
        if dim == q._axis:
            if isinstance(i, int):
                channel = i % q._int.shape[dim]
            else:
                axis = out
                sl = i
        if not isinstance(i, int):
            out += 1
        dim += 1
    if channel is not None:
        return _channel(q, channel, ints)
    if axis is None:  # the channel dim was not indexed: it follows the others
        return _like(q, ints, q._axis - dim + out)
    scales, zps = q._scales[sl], q._zps[sl]
    if scales.numel() == 1:  # one channel left: PyTorch gives it per tensor
        return per_tensor(ints, q._qdtype, float(scales[0]), int(zps[0]))
    return per_channel(ints, q._qdtype, scales, zps, axis)


@op("cat", "concat", "concatenate")
def _cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    first = tensors[0]
    for t in tensors:
        if not is_q(t) or t._qscheme is not per_tensor_affine:
            raise RuntimeError("Only per-tensor quantization is supported in 'cat'!")
        if t._qdtype is not first._qdtype:
            raise RuntimeError(f"Expected all tensors to have the same dtype, got "
                               f"{first._qdtype} and {t._qdtype}")
    # PyTorch requantizes every input to the first one's scale and zero point
    ints = [t._int if _same_quantizer(t, first) else quantize_as(dequantize(t), first)
            for t in tensors]
    return _like(first, _C.cat(ints, dim))


@op("stack")
def _stack(tensors, dim=0, *, out=None):
    return _cat([t.unsqueeze(dim) for t in tensors], dim)


@op("Tensor.to")
def _to(q, *args, **kwargs):
    """.to() on the CPU keeps q; another dtype is PyTorch's refusal, another
    device torchlike's (quantized tensors live on the CPU)."""
    from .._device import device
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, _C.dtype):
            if a is not q._qdtype:
                raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                                   "torch.quint8")
        elif isinstance(a, (str, device)) and device(a).type != "cpu":
            raise NotImplementedError(f"quantized tensors live on the CPU only; got {a}")
    return q


def _no_float_cast(q, *args, **kwargs):
    raise RuntimeError("Creation of quantized tensor requires quantized dtype like torch.quint8")


for _name in ("float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte",
              "bool", "type_as"):
    _IMPL[f"Tensor.{_name}"] = _no_float_cast


# ---- values: relu, comparisons of whole tensors, in-place copies ----------------------------

@op("relu", "Tensor.relu", "nn.functional.relu")
def relu(q, inplace=False):
    """max(q, zero_point): zero is exact in the quantized grid."""
    out = _like(q, _C.maximum(q._int, _zero_points_like(q)))
    if inplace:
        q._int.copy_(out._int)
        return q
    return out


@op("clamp", "Tensor.clamp", "clip", "Tensor.clip")
def clamp(q, min=None, max=None):
    """The bounds quantized with q's quantizer, the integers clamped to them
    (per tensor, as PyTorch's quantized clamp)."""
    _uniform(q)
    ints = q._int
    for bound, pick in ((min, _C.maximum), (max, _C.minimum)):
        if bound is not None:
            ints = pick(ints, quantize_as(_C.tensor(float(bound)), q))
    return _like(q, ints)


# ---- ops with a fixed output range: PyTorch's kernels quantize to fixed qparams -------------

def _fixed_qparams(name, fn_name, quint8, qint8):
    """quantize(fn(dequantize(q))) at the qparams PyTorch's kernel fixes for
    the dtype: (scale, zero point) for quint8 and for qint8."""
    def impl(q, *args, **kwargs):
        from ..ao.nn.quantized.functional import requantize_float
        from .. import nn
        _uniform(q)
        fn = getattr(nn.functional, fn_name)
        scale, zp = quint8 if q._qdtype is _C.quint8 else qint8
        return requantize_float(q, lambda x: fn(x, *args, **kwargs), scale, zp,
                                f"quantized::{name}")
    return impl


for _name, _fixed in (("sigmoid", ((1 / 256, 0), (1 / 256, -128))),
                      ("tanh", ((2 / 256, 128), (2 / 256, 0))),
                      ("hardsigmoid", ((1 / 256, 0), (1 / 256, -128)))):
    _impl = _fixed_qparams(_name, _name, *_fixed)
    for _key in (_name, f"Tensor.{_name}", f"nn.functional.{_name}"):
        _IMPL[_key] = _impl


# ---- pooling and means: on the integers, in the same grid ----------------------------------

def _on_integers(compute, centered):
    """An op PyTorch's QuantizedCPU runs on the integers, the result keeping
    q's quantizer: max pooling on the integers themselves; averages
    (centered) on q - zero_point, padding counting as zero_point, rounded
    half to even: round(mean(q - zp)) + zp."""
    def impl(q, *args, **kwargs):
        from .tensor import QDTYPES
        _uniform(q)
        shift = float(q._zp) if centered else 0.0
        out = compute(q._int.double() - shift, *args, **kwargs)
        values, rest = (out[0], tuple(out[1:])) if isinstance(out, tuple) else (out, ())
        _, lo, hi, _ = QDTYPES[q._qdtype]
        ints = (_C.round(values) + shift).clamp(lo, hi).to(q._int.dtype)
        return (_like(q, ints),) + rest if rest else _like(q, ints)
    return impl


def _functional(name):
    def call(*args, **kwargs):
        from ..nn import functional as F
        return getattr(F, name)(*args, **kwargs)
    return call


for _name in ("max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices"):
    _IMPL[f"nn.functional.{_name}"] = _on_integers(_functional(_name), False)
for _name in ("avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d"):
    _IMPL[f"nn.functional.{_name}"] = _on_integers(_functional(_name), True)
# what the pooling modules reach (they call the functional forms unwrapped)
_IMPL["_max_pool"] = _on_integers(lambda x, *a: _C._max_pool(x, *a), False)
_IMPL["_avg_pool"] = _on_integers(lambda x, *a: _C._avg_pool(x, *a), True)
_IMPL["_adaptive_avg_pool"] = _on_integers(lambda x, *a: _C._adaptive_avg_pool(x, *a), True)
_IMPL["mean"] = _IMPL["Tensor.mean"] = _on_integers(lambda x, *a, **k: x.mean(*a, **k), True)


@op("nn.functional.dropout")
def _dropout(q, p=0.5, training=True, inplace=False):
    """Identity when not training (nn.Dropout in eval mode), as PyTorch."""
    if training and p:
        from .tensor import not_implemented
        raise NotImplementedError(not_implemented("dropout"))
    return q


@op("relu_", "Tensor.relu_")
def relu_(q):
    return relu(q, inplace=True)


def _zero_points_like(q):
    if q._qscheme is per_tensor_affine:
        return _C.tensor(q._zp, dtype=q._int.dtype)
    return q._zps.round().to(q._int.dtype).reshape(_channel_shape(q.ndim, q._axis))


@op("equal", "Tensor.equal")
def _equal(a, b):
    """Same quantizer and the same integers (PyTorch's quantized equal)."""
    return is_q(a) and is_q(b) and _same_quantizer(a, b) and _same(a._int, b._int)


def _same_quantizer(a, b):
    if a._qdtype is not b._qdtype or a._qscheme is not b._qscheme:
        return False
    if a._qscheme is per_tensor_affine:
        return (a._scale, a._zp) == (b._scale, b._zp)
    return a._axis == b._axis and _same(a._scales, b._scales) and _same(a._zps, b._zps)


def _same(a, b):
    return tuple(a.shape) == tuple(b.shape) and bool((a == b).all())


@op("Tensor.copy_")
def _copy_(q, src, non_blocking=False):
    """src's integers under the same quantizer; otherwise its values
    (dequantized, or a float tensor's) quantized with q's quantizer."""
    if is_q(src) and _same_quantizer(q, src):
        q._int.copy_(src._int)
    else:
        q._int.copy_(quantize_as(dequantize(src) if is_q(src) else src.float(), q))
    return q


@op("Tensor.fill_")
def _fill_(q, value):
    return _copy_(q, _C.full(tuple(q.shape), float(value)))


# PyTorch's own refusal of an op with a Python number: it cannot make the result
_EMPTY_STRIDED = ("empty_strided not supported on quantized tensors yet see "
                  "https://github.com/pytorch/pytorch/issues/74540")


def _scalar_refusal(name):
    """An arithmetic op: PyTorch fails to allocate the result when a Python
    number takes part, and has no QuantizedCPU kernel otherwise."""
    def impl(*args, **kwargs):
        if any(isinstance(a, (int, float, complex)) and not isinstance(a, bool) for a in args):
            raise RuntimeError(_EMPTY_STRIDED)
        from .tensor import not_implemented
        raise NotImplementedError(not_implemented(name))
    return impl


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "add", "sub", "mul", "div"):
    _IMPL[f"Tensor.{_name}"] = _scalar_refusal(_name)


# ---- repr ------------------------------------------------------------------------------------

@op("Tensor.__repr__", "Tensor.__str__")
def _repr(q, *, tensor_contents=None):
    """PyTorch's: the dequantized values, then size, dtype and the quantizer."""
    from .._tensor_str import _add_suffixes, _body_str, _DTYPE_PREFIX
    indent = len("tensor(")
    values = dequantize(q).numpy()
    body = "[]" if values.size == 0 else _body_str(values, indent)
    suffixes = [f"size={tuple(q.shape)}", f"dtype={_DTYPE_PREFIX}{q._qdtype.name}",
                f"quantization_scheme={q._qscheme}"]
    if q._qscheme is per_tensor_affine:
        suffixes += [f"scale={q._scale}", f"zero_point={q._zp}"]
    else:
        suffixes += [f"scale={q._scales!r}", f"zero_point={q._zps!r}", f"axis={q._axis}"]
    return _add_suffixes("tensor(" + body, suffixes, indent)


@op("Tensor.__format__")
def _format(q, spec):
    return _repr(q)


@op("Tensor.__reduce_ex__")
def _reduce_ex(q, proto):
    return type(q).__reduce_ex__(q, proto)


_IMPL["Tensor.__deepcopy__"] = lambda q, memo: type(q).__deepcopy__(q, memo)


def _install_methods():
    """The quantizer accessors as methods of every tensor: on a plain tensor
    they raise PyTorch's refusals; dequantize() of a float tensor is the
    tensor itself (is_quantized of a plain tensor is False: _tensor_utils)."""
    for f in (int_repr, q_scale, q_zero_point, q_per_channel_scales, q_per_channel_zero_points,
              q_per_channel_axis):
        setattr(Tensor, f.__name__, f)
    Tensor.qscheme = qscheme_of
    Tensor.dequantize = dequantize


_install_methods()
