"""The quantized tensor type: QTensor, the qscheme objects, the routing of
every op reached with a quantized argument (__torch_function__ to the table
_IMPL, PyTorch's NotImplementedError naming the QuantizedCPU backend for the
rest), and quantize / dequantize.

A QTensor *is* its integer values: its own storage, shape and strides are
those of ``_int`` (uint8 for quint8, int8 for qint8, int32 for qint32), so
views share memory as PyTorch's do.  Beside them it keeps the quantizer:

    per tensor   _qscheme, _scale (a Python float), _zp (a Python int)
    per channel  _qscheme, _scales (float64, or float32 for float qparams),
                 _zps (int64, or float32), _axis

    value = (int - zero_point) * scale

The arithmetic is PyTorch's x86 CPU kernels', bit for bit (tests/test_quantization.py):

    quantize    q = clamp(rint(float32(x * float32(1 / float32(scale)))) + zp, qmin, qmax)
                (NaN and +inf: see _quantize_ints, PyTorch's int32 overflow included)
    dequantize  float32((q - zp) * float32(scale))
    float qparams (per_channel_affine_float_qparams):
                q = clamp(rint(x * (1 / scale) + zp)), value = (q - zp) * scale"""
import warnings

from .. import _C
from .._C import Tensor
from .._op_table import registrar, route

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
           "per_channel_symmetric", "per_channel_affine_float_qparams"]


class qscheme:
    """PyTorch's torch.qscheme: how a quantized tensor's scales and zero points
    are laid out.  One object per scheme; pickles as the module attribute."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torchlike.{self.name}"

    def __reduce__(self):
        return self.name


qscheme.__module__ = "torchlike"
per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")

# quantized dtype -> (the integer dtype of its values, qmin, qmax, PyTorch's ScalarType name)
QDTYPES = {
    _C.quint8: (_C.uint8, 0, 255, "QUInt8"),
    _C.qint8: (_C.int8, -128, 127, "QInt8"),
    _C.qint32: (_C.int32, -2 ** 31, 2 ** 31 - 1, "QInt32"),
}
# the integer dtype -> the quantized dtype it stores (_make_*_quantized_tensor)
_OF_INT = {v[0]: k for k, v in QDTYPES.items()}
_PACKED = (_C.quint4x2, _C.quint2x4)
_PACKED_NAMES = {_C.quint4x2: "QUInt4x2", _C.quint2x4: "QUInt2x4"}


def scalar_type(dtype):
    """PyTorch's ScalarType name of any dtype (messages)."""
    if dtype in QDTYPES:
        return QDTYPES[dtype][3]
    if dtype in _PACKED_NAMES:
        return _PACKED_NAMES[dtype]
    from .._dtype_names import scalar_type_name
    return scalar_type_name(dtype)


class QTensor(Tensor):
    """A quantized tensor (see the module docstring)."""

    _tl_refuse_buffer = True  # NumPy must not read the integers as the values

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return route(_IMPL, func, args, kwargs or {}, _refusal)

    def __reduce_ex__(self, proto):  # plain pickle: the integers and the quantizer
        return _rebuild_quantized, (self._int.clone(), self.dtype, quantizer_params(self))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Got unsupported ScalarType {scalar_type(self._qdtype)}")

    @property
    def __array_struct__(self):
        raise TypeError(f"Got unsupported ScalarType {scalar_type(self._qdtype)}")

    def __dlpack__(self, *args, **kwargs):
        raise RuntimeError(f"Cannot pack tensors of quantized dtype {self._qdtype}: call "
                           f"dequantize() or int_repr() first")

    def __deepcopy__(self, memo):
        out = _like(self, self._int.clone())
        memo[id(self)] = out
        return out


# ---- the table of implementations ----------------------------------------------------------

_IMPL = {}


op = registrar(_IMPL)  # @op("name", ...): an implementation (_op_table.py)


_DUNDER = {"getitem": "index", "setitem": "index_put_", "invert": "bitwise_not",
           "truediv": "div", "floordiv": "floor_divide", "neg": "neg", "abs": "abs",
           "matmul": "mm"}
# composite ops PyTorch decomposes before the backend refuses them
_DECOMPOSED = {"matmul": "mm", "Tensor.matmul": "mm", "linear": "mm", "nn.functional.linear": "mm"}
_REFLECTED = {"add", "sub", "mul", "pow", "and", "or", "xor", "lshift", "rshift", "mod",
              "floordiv", "matmul", "truediv"}


def aten_name(name):
    """The aten operator PyTorch's message names for a torchlike function name."""
    if name in _DECOMPOSED:
        return _DECOMPOSED[name]
    op_name = name.rsplit(".", 1)[-1]
    if op_name.startswith("__") and op_name.endswith("__"):
        op_name = op_name[2:-2]
        if op_name in _DUNDER:
            op_name = _DUNDER[op_name]
        elif op_name[:1] in "ri" and op_name[1:] in _REFLECTED:  # __rsub__, __iadd__
            op_name = _DUNDER.get(op_name[1:], op_name[1:]) + ("_" if op_name[0] == "i" else "")
    return op_name


def not_implemented(name, backend="QuantizedCPU"):
    return (f"Could not run 'aten::{aten_name(name)}' with arguments from the '{backend}' "
            "backend. This could be because the operator doesn't exist for this backend, or was "
            "omitted during the selective/custom build process (if using custom build).")


def _refusal(name, args, kwargs):
    """__torch_function__'s words for an op the table lacks."""
    return not_implemented(name)


# ---- construction ---------------------------------------------------------------------------

def _new(ints, qdtype, scheme, scale=None, zp=None, scales=None, zps=None, axis=None):
    q = Tensor._make_subclass(QTensor, ints, False)
    q._int, q._qdtype, q._qscheme = ints, qdtype, scheme
    q._scale, q._zp, q._scales, q._zps, q._axis = scale, zp, scales, zps, axis
    return q


def per_tensor(ints, qdtype, scale, zp):
    return _new(ints, qdtype, per_tensor_affine, scale=float(scale), zp=int(zp))


def per_channel(ints, qdtype, scales, zps, axis):
    scheme = per_channel_affine_float_qparams if zps.is_floating_point() else per_channel_affine
    return _new(ints, qdtype, scheme, scales=scales, zps=zps, axis=int(axis))


def _like(q, ints, axis=None):
    """q's quantizer over other integers (a view or copy of q's); a per-channel
    quantizer moves to ``axis`` when given."""
    if q._qscheme is per_tensor_affine:
        return per_tensor(ints, q._qdtype, q._scale, q._zp)
    return per_channel(ints, q._qdtype, q._scales, q._zps, q._axis if axis is None else axis)


def quantizer_params(q):
    """PyTorch's pickled quantizer: (qscheme, scale, zero_point) or
    (qscheme, scales, zero_points, axis)."""
    if q._qscheme is per_tensor_affine:
        return (q._qscheme, q._scale, q._zp)
    return (q._qscheme, q._scales, q._zps, q._axis)


def _rebuild_quantized(ints, qdtype, params):
    if params[0] is per_tensor_affine:
        return per_tensor(ints, qdtype, params[1], params[2])
    return per_channel(ints, qdtype, params[1], params[2], params[3])


def is_q(x):
    return isinstance(x, QTensor)


# ---- quantize / dequantize --------------------------------------------------------------------

_warned = False


def _deprecation_warning():
    """PyTorch 2.10+'s warning (once per process, as its TORCH_WARN_ONCE)."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized "
                      "tensor creation functions that produce tensors with dtype torch.quint8, "
                      "torch.qint8, and torch.qint32 are deprecated and will be removed in a "
                      "future PyTorch release.", UserWarning, stacklevel=3)


def check_qdtype(dtype, where="new_qtensor"):
    if dtype in _PACKED:
        raise NotImplementedError(f"{dtype} (values packed in bytes) is not supported by "
                                  f"torchlike; use torchlike.quint8")
    if dtype not in QDTYPES:
        name = scalar_type(dtype) if isinstance(dtype, _C.dtype) else repr(dtype)
        raise RuntimeError(f"ScalarType {name} is not supported in {where}.")


_INT32_FLOAT_MAX = 2147483520.0  # the largest float32 below 2**31


def _quantize_ints(x, scale, zp, qdtype):
    """The integers of x quantized with scale and zp (tensors that broadcast
    against x: float32 scale, float64 integer zp), PyTorch's rounding."""
    _, lo, hi, _ = QDTYPES[qdtype]
    inv = (1.0 / scale.float()).float()
    p = x * inv  # float32, rounded once as PyTorch's kernel
    if qdtype is _C.qint32:  # PyTorch's scalar kernel: NaN casts to the lowest integer
        q = _C.round(p).double() + zp
        q = _C.nan_to_num(q, nan=float(lo), posinf=float(hi), neginf=float(lo))
        return q.clamp(lo, hi).to(_C.int32)
    # the common case, finite products well inside int32: clamped into the
    # grid first (its bounds are integers, so rounding commutes with that),
    # rounded, shifted, all in float32 (exact for 8-bit grids)
    if p.numel() and float(p.abs().max()) < 2.0 ** 30:  # False for NaN
        if zp.numel() == 1:  # per tensor: bounds and shift as numbers
            z = float(zp)
            return (_C.round(p.clamp(lo - z, hi - z)) + z).to(QDTYPES[qdtype][0])
        zp32 = zp.float()
        return (_C.round(p.clamp(lo - zp32, hi - zp32)) + zp32).to(QDTYPES[qdtype][0])
    # the vector kernel of 8-bit dtypes: the product is capped below 2**31
    # (NaN too), rounded to int32 (-2**31 below range), and the zero point
    # added in int32, which wraps: so NaN and +inf give qmax, or qmin when
    # the zero point overflows the cap
    p = _C.where(_C.isnan(p) | (p > _INT32_FLOAT_MAX), _C.full_like(p, _INT32_FLOAT_MAX), p)
    q = _C.round(p).double().clamp(-2.0 ** 31, None) + zp
    q = _C.where(q > 2.0 ** 31 - 1, q - 2.0 ** 32, _C.where(q < -2.0 ** 31, q + 2.0 ** 32, q))
    return q.clamp(lo, hi).to(QDTYPES[qdtype][0])


def quantize_as(values, q):
    """values (float32, broadcasting against q) quantized with q's quantizer:
    the integers (requantization, clamp bounds, copy_)."""
    if q._qscheme is per_tensor_affine:
        return _quantize_ints(values, _C.tensor(q._scale, dtype=_C.float32),
                              _C.tensor(float(q._zp), dtype=_C.float64), q._qdtype)
    shape = _channel_shape(q.ndim, q._axis)
    if q._qscheme is per_channel_affine_float_qparams:
        return _quantize_float_qparams(values, q._scales.reshape(shape), q._zps.reshape(shape),
                                       q._qdtype)
    return _quantize_ints(values, q._scales.reshape(shape), q._zps.double().reshape(shape),
                          q._qdtype)


def _dequantize_ints(ints, scale, zp):
    """float32((q - zp) * float32(scale)); q - zp in int32, which wraps (qint32)."""
    d = ints.double() - zp
    d = _C.where(d > 2.0 ** 31 - 1, d - 2.0 ** 32, _C.where(d < -2.0 ** 31, d + 2.0 ** 32, d))
    return (d.float() * scale.float()).float()


def _float_input(x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype is not _C.float32 or is_q(x):
        got = scalar_type(x._qdtype if is_q(x) else x.dtype)
        if what == "quantize_per_channel":
            raise RuntimeError(f"quantize_tensor_per_channel_affine expects a Float Tensor, "
                               f"got {got}")
        raise RuntimeError(f"Quantize only works on Float Tensor, got {got}")


def _check_zero_point(zp, qdtype, what="quantize_tensor_per_tensor_affine"):
    _, lo, hi, _ = QDTYPES[qdtype]
    if zp > hi:
        raise RuntimeError(f"{what} zero_point {zp} is above upper bound.")
    if zp < lo:
        raise RuntimeError(f"{what} zero_point {zp} is below lower bound.")


def _scalar(t, kind):
    if t.numel() != 1:
        raise RuntimeError(f"a Tensor with {t.numel()} elements cannot be converted to Scalar")
    return kind(t.reshape(()).item())


def quantize_per_tensor(input, scale, zero_point, dtype):
    """input (float32) as a quantized tensor of ``dtype`` (quint8, qint8,
    qint32): ``clamp(round(input / scale) + zero_point)``.  scale and
    zero_point are numbers or one-element tensors; a list of tensors with
    tensors of scales and zero points gives a tuple, one per tensor."""
    if isinstance(input, (list, tuple)):
        if not isinstance(scale, Tensor) or not isinstance(zero_point, Tensor):
            raise TypeError("quantize_per_tensor(): a list of tensors takes tensors of scales "
                            "and zero points")
        if scale.numel() != len(input) or zero_point.numel() != len(input):
            raise RuntimeError(f"quantize_per_tensor: {len(input)} tensors but "
                               f"{scale.numel()} scales and {zero_point.numel()} zero points")
        return tuple(quantize_per_tensor(t, s, z, dtype)
                     for t, s, z in zip(input, scale.reshape(-1).unbind(0),
                                        zero_point.reshape(-1).unbind(0)))
    _float_input(input, "quantize_per_tensor")
    check_qdtype(dtype)
    if isinstance(scale, Tensor):  # read as float32 and int64, as PyTorch's Tensor overload
        scale = float(_scalar(scale.float(), float))
    if isinstance(zero_point, Tensor):
        zero_point = _scalar(zero_point.long(), int)
    scale, zero_point = float(scale), int(zero_point)
    _check_zero_point(zero_point, dtype)
    _deprecation_warning()
    ints = _quantize_ints(input, _C.tensor(scale, dtype=_C.float32),
                          _C.tensor(float(zero_point), dtype=_C.float64), dtype)
    return per_tensor(ints.contiguous(), dtype, scale, zero_point)  # contiguous, as PyTorch's


def _channel_shape(ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return shape


def quantize_per_channel(input, scales, zero_points, axis, dtype):
    """input (float32) quantized with one scale and zero point per index of
    dim ``axis``.  Integer zero points give per_channel_affine; float ones
    per_channel_affine_float_qparams (added before rounding)."""
    _float_input(input, "quantize_per_channel")
    check_qdtype(dtype)
    if not isinstance(scales, Tensor) or not isinstance(zero_points, Tensor):
        raise TypeError("quantize_per_channel(): scales and zero_points must be Tensors")
    if not 0 <= axis < input.ndim:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. "
                           f"Got: {axis}Expected: [0, {input.ndim})")
    channels = input.shape[axis]
    if scales.numel() != channels:
        raise RuntimeError(f"length of scales must equal to channel, expected {channels} got, "
                           f"{scales.numel()}")
    if zero_points.numel() != channels:
        raise RuntimeError(f"length of zero_points must equal to channel expected {channels} "
                           f"got, {zero_points.numel()}")
    _deprecation_warning()
    shape = _channel_shape(input.ndim, axis)
    if zero_points.is_floating_point():  # float qparams: the zero point is added before rounding
        scales, zps = scales.float().reshape(-1), zero_points.float().reshape(-1)
        ints = _quantize_float_qparams(input, scales.reshape(shape), zps.reshape(shape), dtype)
        return per_channel(ints.contiguous(), dtype, scales, zps, axis)
    scales, zps = scales.double().reshape(-1), zero_points.long().reshape(-1)
    for z in zps.tolist():
        _check_zero_point(z, dtype, "quantize_val_per_channel")
    ints = _quantize_ints(input, scales.reshape(shape), zps.double().reshape(shape), dtype)
    return per_channel(ints.contiguous(), dtype, scales, zps, axis)


def _quantize_float_qparams(x, scale, zp, qdtype):
    _, lo, hi, _ = QDTYPES[qdtype]
    inv = (1.0 / scale).float()
    q = _C.round(x * inv + zp).double()
    q = _C.nan_to_num(q, nan=float(lo), posinf=float(hi), neginf=float(lo))
    return q.clamp(lo, hi).to(QDTYPES[qdtype][0])


def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    """input quantized per tensor with the scale and zero point its min and
    max choose (PyTorch's choose_qparams: the range always holds zero)."""
    from ..ao.quantization.observer import _choose_qparams_dynamic
    _float_input(input, "quantize_per_tensor_dynamic")
    if dtype not in (_C.quint8, _C.qint8):
        raise RuntimeError(f"Expected dtype to be quint8 or qint8, got {scalar_type(dtype)}"
                           if isinstance(dtype, _C.dtype) else f"bad dtype {dtype!r}")
    scale, zp = _choose_qparams_dynamic(input, dtype, bool(reduce_range))
    return quantize_per_tensor(input, scale, zp, dtype)


def dequantize(tensor):
    """The float32 values of a quantized tensor (a float tensor is returned
    as it is; a list gives a tuple)."""
    if isinstance(tensor, (list, tuple)):
        return tuple(dequantize(t) for t in tensor)
    if not is_q(tensor):
        if isinstance(tensor, Tensor) and tensor.is_floating_point():
            return tensor
        got = scalar_type(tensor.dtype) if isinstance(tensor, Tensor) else type(tensor).__name__
        raise RuntimeError(f"dequantize: expected a quantized or float tensor, got {got}")
    q = tensor
    if q._qscheme is per_tensor_affine:
        return _dequantize_ints(q._int, _C.tensor(q._scale, dtype=_C.float32),
                                _C.tensor(float(q._zp), dtype=_C.float64))
    shape = _channel_shape(q.ndim, q._axis)
    if q._qscheme is per_channel_affine_float_qparams:
        return (q._int.float() - q._zps.reshape(shape)) * q._scales.reshape(shape)
    # per channel: (q - zp) * scale in float64, then rounded to float32
    return ((q._int.double() - q._zps.double().reshape(shape)) *
            q._scales.double().reshape(shape)).float()


def _make_per_tensor_quantized_tensor(input, scale, zero_point):
    """A quantized tensor over these integers (uint8 -> quint8, int8 -> qint8,
    int32 -> qint32), sharing their memory."""
    if not isinstance(input, Tensor) or input.dtype not in _OF_INT or is_q(input):
        got = scalar_type(input.dtype) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"_make_per_tensor_quantized_tensor expects a Byte, Char or Int "
                           f"tensor, got {got}")
    return per_tensor(input, _OF_INT[input.dtype], float(scale), int(zero_point))


def _make_per_channel_quantized_tensor(input, scale, zero_point, axis):
    if not isinstance(input, Tensor) or input.dtype not in _OF_INT or is_q(input):
        got = scalar_type(input.dtype) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"_make_per_channel_quantized_tensor expects a Byte, Char or Int "
                           f"tensor, got {got}")
    if not 0 <= axis < input.ndim:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. "
                           f"Got: {axis}Expected: [0, {input.ndim})")
    if scale.numel() != input.shape[axis] or zero_point.numel() != input.shape[axis]:
        raise RuntimeError(f"length of scales must equal to channel, expected "
                           f"{input.shape[axis]} got, {scale.numel()}")
    zps = zero_point.float() if zero_point.is_floating_point() else zero_point.long()
    scales = scale.float() if zero_point.is_floating_point() else scale.double()
    return per_channel(input, _OF_INT[input.dtype], scales.reshape(-1), zps.reshape(-1), axis)


@op("empty_quantized")
def empty_quantized(size, qtensor, *, dtype=None, layout=None, device=None, pin_memory=None,
                    memory_format=None):
    """An uninitialised quantized tensor of ``size`` with qtensor's quantizer."""
    if not is_q(qtensor):
        raise RuntimeError("empty_quantized: the second argument must be a quantized tensor")
    ints = _C.zeros(tuple(size), dtype=QDTYPES[qtensor._qdtype][0])
    if qtensor._qscheme is not per_tensor_affine and \
            ints.shape[qtensor._axis] != qtensor._scales.numel():
        raise RuntimeError(f"length of scales must equal to channel, expected "
                           f"{ints.shape[qtensor._axis]} got, {qtensor._scales.numel()}")
    return _like(qtensor, ints)
