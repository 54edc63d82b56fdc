"""The integer arithmetic of quantized modules, as PyTorch's x86 (fbgemm)
CPU kernels compute it (torch.ao.nn.quantized.functional).

Legend: x activations (uint8 values xq, scale sx, zero point zx), w weights
(int8 values wq, per-tensor or per-output-channel sw, zw), acc the int32 sum.

    linear, conv    acc = sum (xq - zx) * (wq - zw)          (exact: float32 products
                    summed in runs short enough to stay below 2^24, _exact_sums)
                    r   = float32(acc) * float32(sx * sw) + bias   (float32)
                    out = clamp(rint(r * float32(1 / so)) + zo)    (max with zo for relu)
    add, add_relu   each side dequantized, summed in float32, quantized as
                    quantize_per_tensor does; see _dequant_for_add for the
                    two dequantizations PyTorch's kernel uses
    mul             c = (aq - za) * (bq - zb); out = rint(float32(c) * m) + zo,
                    m = float32(sa * sb) * float32(1 / so)
    dynamic linear  x quantized per tensor from its min and max (range reduced),
                    out = float32(acc) * float32(sx * sw) + bias, float32
    float16 linear  weights rounded to float16 (saturated at +-65504) and held
                    as float32; out = x @ w.T + bias in float32
    conv_transpose  as conv, the int32 sums of the transposed convolution
                    (per-tensor weights only, as PyTorch's x86 engine)
    hardswish, elu, leaky_relu, sigmoid, softmax, the norms
                    out = quantize(float op(dequantize(x)), scale, zero_point):
                    PyTorch's kernels give exactly that (on the recorded
                    cases); its float op may differ from ours by an ulp,
                    which moves a value one step where it falls on a tie"""
from .... import _C, _quantized as _q
from ...._quantized.tensor import _quantize_ints, per_tensor, quantize_as, QDTYPES

__all__ = ["linear", "linear_dynamic", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
           "conv_transpose2d", "conv_transpose3d", "prelu", "hardswish", "elu", "leaky_relu",
           "relu6", "hardtanh", "add", "add_relu", "mul", "add_scalar", "mul_scalar", "cat",
           "quantize_dynamic_input", "linear_dynamic_fp16", "to_fp16_weight"]

_F32, _F64 = _C.float32, _C.float64


def _f32(v):
    return _C.tensor(v, dtype=_F32)


def _centered_bound(q):
    """The largest |q - zero point| q's dtype allows (its values need not be read)."""
    _, lo, hi, _ = QDTYPES[q.dtype]
    zps = [q._zp] if q.qscheme() is _q.per_tensor_affine else q._zps.tolist()
    return max(max(z - lo, hi - z) for z in zps)


def _weight_parts(w, out_dim_shape):
    """(integers minus zero points as float32, scales float32 shaped for the
    output, the bound of the first)."""
    if w.qscheme() is _q.per_tensor_affine:
        return w._int.float() - w._zp, _f32(w._scale), _centered_bound(w)
    shape = [1] * w.ndim
    shape[w._axis] = -1
    centered = w._int.float() - w._zps.float().reshape(shape)
    return centered, w._scales.float().reshape(out_dim_shape), _centered_bound(w)


# A float32 sum of integer products is exact while every partial sum stays
# below 2^24, whatever the order BLAS adds in: products bounded by b are
# summed exactly in runs of 2^24 // b (1024 for uint8 activations with
# zero point 128 and symmetric int8 weights; 258 at worst).  Each run is
# one float32 GEMM (or convolution), twice as fast as float64 and then
# some; the runs are added in float64, exact too.
_F32_EXACT = 2 ** 24


def _exact_sums(products, x, w, bound, dim_x, dim_w, per_index=1):
    """products(x, w) -- a float32 GEMM or convolution summing over x's dim_x
    and w's dim_w, per_index products per index of those dims -- computed
    exactly, in runs of as many indices as float32 sums exactly."""
    k = x.shape[dim_x]
    run = max(1, _F32_EXACT // max(1, bound * per_index))
    if k <= run:
        return products(x, w)
    total = None
    for start in range(0, k, run):
        part = products(x.narrow(dim_x, start, min(run, k - start)),
                        w.narrow(dim_w, start, min(run, k - start))).double()
        total = part if total is None else total + part
    return total


def _requantize(acc, sx, sw, bias, scale, zero_point, relu, dtype=_C.quint8):
    """The float32 requantization of an int32 accumulator (module docstring)."""
    aws = (_f32(sx) * sw).float()
    r = acc.float() * aws
    if bias is not None:  # shaped by the caller to broadcast along the output channels
        r = r + bias.float()
    ints = _quantize_ints(r, _f32(scale), _C.tensor(float(zero_point), dtype=_F64), dtype)
    if relu:
        ints = _C.maximum(ints, _C.tensor(int(zero_point), dtype=ints.dtype))
    return per_tensor(ints, dtype, scale, zero_point)


def _check_input(x, what):
    if not isinstance(x, _q.QTensor) or x.dtype is not _C.quint8:
        got = x.dtype if isinstance(x, _C.Tensor) else type(x).__name__
        raise RuntimeError(f"{what}: expected a quint8 quantized input (quantize it with "
                           f"nn.quantized.Quantize or torch.quantize_per_tensor), got {got}")


def linear(input, weight, bias=None, scale=None, zero_point=None, _relu=False):
    """input (quint8, ..., K) @ weight (qint8, N, K).T + bias -> quint8 with
    scale and zero_point (the input's when None)."""
    _check_input(input, "quantized::linear")
    scale = input.q_scale() if scale is None else scale
    zero_point = input.q_zero_point() if zero_point is None else zero_point
    if input.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"quantized::linear: input's last dim {input.shape[-1]} does not "
                           f"match weight {tuple(weight.shape)}")
    x = input._int.float() - input._zp
    w, sw, bw = _weight_parts(weight, (-1,))
    acc = _exact_sums(lambda a, b: _C.matmul(a, b.t()), x, w, _centered_bound(input) * bw, -1, 1)
    return _requantize(acc, input._scale, sw, bias, scale, zero_point, _relu)


def _conv(input, weight, bias, stride, padding, dilation, groups, scale, zero_point, relu,
          conv, what):
    _check_input(input, what)
    x = input._int.float() - input._zp  # zero padding is the zero point, as PyTorch pads
    w, sw, bw = _weight_parts(weight, [-1] + [1] * (weight.ndim - 2))
    window = 1
    for size in weight.shape[2:]:
        window *= size
    bound = _centered_bound(input) * bw

    def products(a, b):
        return conv(a, b, None, stride, padding, dilation, groups)
    if groups == 1:  # runs of input channels; grouped ones: one run per group's channels
        acc = _exact_sums(products, x, w, bound, 1, 1, window)
    elif weight.shape[1] * window * bound < _F32_EXACT:
        acc = products(x, w)
    else:
        acc = products(x.double(), w.double())
    return _requantize(acc, input._scale, sw, bias if bias is None else
                       bias.reshape([-1] + [1] * (weight.ndim - 2)),
                       scale, zero_point, relu)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=_C.quint8, _relu=False):
    """A quantized 2-d convolution: input (N, C, H, W) quint8, weight
    (O, C/groups, kH, kW) qint8 -> quint8 with scale and zero_point."""
    from ....nn import functional as F
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    return _conv(input, weight, bias, stride, padding, dilation, groups, scale, zero_point,
                 _relu, F.conv2d, "quantized::conv2d")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=_C.quint8, _relu=False):
    from ....nn import functional as F
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    return _conv(input, weight, bias, stride, padding, dilation, groups, scale, zero_point,
                 _relu, F.conv1d, "quantized::conv1d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=_C.quint8, _relu=False):
    from ....nn import functional as F
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    return _conv(input, weight, bias, stride, padding, dilation, groups, scale, zero_point,
                 _relu, F.conv3d, "quantized::conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    scale, zero_point, conv, what):
    """The transposed convolution's int32 sums (weight (C_in, C_out/groups, k...)),
    requantized as conv's: float32 runs of input channels, or float64 for groups."""
    _check_input(input, what)
    if weight.qscheme() is not _q.per_tensor_affine:
        raise RuntimeError("Per Channel Quantization is currently disabled for transposed conv")
    x = input._int.float() - input._zp
    w = weight._int.float() - weight._zp
    window = 1
    for size in weight.shape[2:]:
        window *= size

    def products(a, b):
        return conv(a, b, None, stride, padding, output_padding, groups, dilation)
    if groups == 1:
        acc = _exact_sums(products, x, w, _centered_bound(input) * _centered_bound(weight), 1, 0,
                          window)
    else:  # float64 sums of integer products below 2^53: exact
        acc = products(x.double(), w.double())
    return _requantize(acc, input._scale, _f32(weight._scale),
                       None if bias is None else bias.reshape([-1] + [1] * (weight.ndim - 2)),
                       scale, zero_point, False)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, scale=1.0, zero_point=0):
    from ....nn import functional as F
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, scale, zero_point, F.conv_transpose1d,
                           "quantized::conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, scale=1.0, zero_point=0):
    from ....nn import functional as F
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, scale, zero_point, F.conv_transpose2d,
                           "quantized::conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, scale=1.0, zero_point=0):
    from ....nn import functional as F
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, scale, zero_point, F.conv_transpose3d,
                           "quantized::conv_transpose3d")


def prelu(input, weight, scale, zero_point):
    """quantized::prelu, all in integers as PyTorch's kernel: with w1 the
    weight's integer for 1.0, acc = (max(xq, zx) - zx) * (w1 - zw) +
    (min(xq, zx) - zx) * (wq - zw), out = zo + rint(float32(acc) * m),
    m = float32(float32(sx * sw) * float32(1 / so)).  The weight (quint8
    per tensor, one value or one per channel) broadcasts over dim 1."""
    _check_input(input, "quantized::prelu")
    if input.ndim == 0:
        raise RuntimeError("qprelu: zero-dim input tensor is not allowed.")
    if weight.qscheme() is not _q.per_tensor_affine:
        raise RuntimeError("quantized::prelu: the weight must be quantized per tensor, got "
                           f"{weight.qscheme()}")
    n = weight.numel()
    if n != 1 and (input.ndim < 2 or input.shape[1] != n):  # PyTorch's broadcasting words
        raise RuntimeError(f"The size of tensor a ({input.shape[1] if input.ndim > 1 else 1}) "
                           f"must match the size of tensor b ({n}) at non-singleton dimension 1")
    zx, zw = float(input._zp), float(weight._zp)
    shape = [1] * input.ndim
    if input.ndim > 1:
        shape[1] = n
    w = weight._int.double().reshape(shape if n != 1 else [1] * input.ndim)
    one = float(_quantize_ints(_f32(1.0), _f32(weight._scale), _C.tensor(zw, dtype=_F64),
                               weight.dtype))
    x = input._int.double()
    acc = (_C.clamp(x, min=zx) - zx) * (one - zw) + (_C.clamp(x, max=zx) - zx) * (w - zw)
    m = (_f32(input._scale) * _f32(weight._scale)).float() * (1.0 / _f32(scale)).float()
    _, lo, hi, _ = QDTYPES[input.dtype]
    ints = (_C.round(acc.float() * m).double() + zero_point).clamp(lo, hi).to(input._int.dtype)
    return per_tensor(ints, input.dtype, scale, zero_point)


def requantize_float(input, fn, scale, zero_point, what):
    """fn(dequantized input) quantized to (scale, zero_point) in input's dtype."""
    _check_input(input, what)
    values = fn(input.dequantize())
    ints = _quantize_ints(values, _f32(scale), _C.tensor(float(zero_point), dtype=_F64),
                          input.dtype)
    return per_tensor(ints, input.dtype, float(scale), int(zero_point))


def hardswish(input, scale, zero_point):
    from ....nn import functional as F
    return requantize_float(input, F.hardswish, scale, zero_point, "quantized::hardswish")


def elu(input, scale, zero_point, alpha=1.0):
    from ....nn import functional as F
    return requantize_float(input, lambda v: F.elu(v, alpha), scale, zero_point,
                            "quantized::elu")


def leaky_relu(input, negative_slope=0.01, inplace=False, scale=None, zero_point=None):
    from ....nn import functional as F
    scale = input.q_scale() if scale is None else scale
    zero_point = input.q_zero_point() if zero_point is None else zero_point
    return requantize_float(input, lambda v: F.leaky_relu(v, negative_slope), scale,
                            zero_point, "quantized::leaky_relu")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp in the quantized grid: the bounds quantized with input's quantizer."""
    lo, hi = quantize_as(_f32(min_val), input), quantize_as(_f32(max_val), input)
    ints = _C.minimum(_C.maximum(input._int, lo), hi)
    if inplace:
        input._int.copy_(ints)
        return input
    return per_tensor(ints, input.dtype, input._scale, input._zp)


def relu6(input, inplace=False):
    """min(max(q, zero_point), quantized 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _dequant_for_add(q):
    """PyTorch's add kernel dequantizes blocks of 64 elements (its AVX-512
    vector of uint8) as fma(q, s, -(zp * s)) and the rest as (q - zp) * s."""
    flat = q._int.contiguous().reshape(-1)
    n = flat.shape[0]
    s = _f32(q._scale)
    head = (n // 64) * 64
    pre = -(_f32(float(q._zp)) * s)
    fma = (flat[:head].double() * s.double() + pre.double()).float()
    sub = (flat[head:].double() - q._zp).float() * s
    return _C.cat([fma, sub]).reshape(tuple(q.shape))


def _binary_check(a, b, what):
    for t in (a, b):
        _check_input(t, what)
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{what}: the shapes {tuple(a.shape)} and {tuple(b.shape)} differ "
                           f"(quantized add takes tensors of one shape)")


def add(qa, qb, scale, zero_point, _relu=False):
    """quantized::add: qa + qb requantized to (scale, zero_point)."""
    _binary_check(qa, qb, "quantized::add")
    c = _dequant_for_add(qa) + _dequant_for_add(qb)
    if _relu:
        c = _C.maximum(c, _f32(0.0))
    ints = _quantize_ints(c, _f32(scale), _C.tensor(float(zero_point), dtype=_F64), qa.dtype)
    return per_tensor(ints, qa.dtype, scale, zero_point)


def add_relu(qa, qb, scale, zero_point):
    return add(qa, qb, scale, zero_point, _relu=True)


def add_scalar(q, c, _relu=False):
    """quantized::add of a tensor and a number, as PyTorch's kernel: the
    output keeps the scale and moves the zero point by c_q = round(c / s);
    when z - c_q leaves the dtype's range the zero point sits at its end and
    the scale grows, the integers requantized:
    out = z' + rint(float32((q - z) + c_q) * float32(s / s'))."""
    _check_input(q, "quantized::add")
    _, lo, hi, _ = QDTYPES[q.dtype]
    s, z = q._scale, q._zp
    c_q = int(round(float(c) / s))  # nearbyint: half to even, as Python's round
    shifted = z - c_q
    if lo <= shifted <= hi:
        out = per_tensor(q._int.clone(), q.dtype, s, shifted)
        return out.relu() if _relu else out
    if shifted < lo:
        s_new, z_new = (float(hi) - shifted) / (float(hi) - lo) * s, lo
    else:
        s_new, z_new = (float(shifted) - lo) / (float(hi) - lo) * s, hi
    m = (_f32(s) * (1.0 / _f32(s_new)).float()).float()
    acc = (q._int.double() - z + c_q).float()
    ints = (_C.round(acc * m).double() + z_new).clamp(lo, hi)
    if _relu:
        ints = ints.clamp(min=z_new)
    return per_tensor(ints.to(q._int.dtype), q.dtype, s_new, z_new)


def mul_scalar(q, c, _relu=False):
    """quantized::mul of a tensor and a number, as PyTorch's kernel: c > 0
    scales the scale (integers kept), c == 0 gives zeros at scale 1 and zero
    point 0, c < 0 reflects the integers (q' = qmax + qmin - q) about the
    range with scale |c| s and zero point qmax - (z - qmin)."""
    _check_input(q, "quantized::mul")
    _, lo, hi, _ = QDTYPES[q.dtype]
    c = float(c)
    if c > 0:
        out = per_tensor(q._int.clone(), q.dtype, c * q._scale, q._zp)
    elif c == 0:
        return per_tensor(_C.zeros_like(q._int), q.dtype, 1.0, 0)
    else:
        zp = hi - (q._zp - lo)
        out = per_tensor((hi + lo - q._int.long()).to(q._int.dtype), q.dtype, -c * q._scale, zp)
    return out.relu() if _relu else out


def mul(qa, qb, scale, zero_point):
    """quantized::mul: the integer product requantized (module docstring)."""
    _binary_check(qa, qb, "quantized::mul")
    c = (qa._int.double() - qa._zp) * (qb._int.double() - qb._zp)
    m = (_f32(qa._scale) * _f32(qb._scale)).float() * (1.0 / _f32(scale)).float()
    _, lo, hi, _ = QDTYPES[qa.dtype]
    ints = (_C.round(c.float() * m).double() + zero_point).clamp(lo, hi).to(qa._int.dtype)
    return per_tensor(ints, qa.dtype, scale, zero_point)


def cat(tensors, dim=0, scale=None, zero_point=None):
    """The tensors' values requantized to (scale, zero_point) and concatenated."""
    tensors = list(tensors)
    scale = tensors[0].q_scale() if scale is None else scale
    zero_point = tensors[0].q_zero_point() if zero_point is None else zero_point
    parts = [_quantize_ints(t.dequantize(), _f32(scale), _C.tensor(float(zero_point), dtype=_F64),
                            t.dtype) for t in tensors]
    return per_tensor(_C.cat(parts, dim), tensors[0].dtype, scale, zero_point)


def linear_dynamic(x, weight, bias=None, reduce_range=True):
    """float32 x (*, K) @ weight (qint8, N, K).T + bias with x quantized on
    the fly (PyTorch's quantized::linear_dynamic): float32 out."""
    xq = quantize_dynamic_input(x, reduce_range)
    w, sw, bw = _weight_parts(weight, (-1,))
    acc = _exact_sums(lambda a, b: _C.matmul(a, b.t()), xq._int.float() - xq._zp, w,
                      _centered_bound(xq) * bw, -1, 1)
    out = acc.float() * (_f32(xq._scale) * sw).float()
    return out if bias is None else out + bias


_FP16_MAX = 65504.0


def to_fp16_weight(weight):
    """A float weight as PyTorch's float16 packing keeps it: saturated to
    float16's range, rounded to float16, held as float32."""
    return weight.detach().float().clamp(-_FP16_MAX, _FP16_MAX).half().float()


def linear_dynamic_fp16(x, weight, bias=None):
    """x (*, K) float32 @ weight (N, K, float16 values as float32).T + bias:
    PyTorch's quantized::linear_dynamic_fp16, whose fbgemm GEMM widens the
    float16 weights and sums in float32 (in its own order: agrees to ~1e-6)."""
    out = _C.matmul(x, weight.t())
    return out if bias is None else out + bias


def quantize_dynamic_input(x, reduce_range):
    """x (float32) quantized as PyTorch's dynamic linear quantizes its input."""
    from ...quantization.observer import _choose_qparams_dynamic
    scale, zp = _choose_qparams_dynamic(x, _C.quint8, reduce_range)
    ints = _quantize_ints(x.float(), _f32(scale), _C.tensor(float(zp), dtype=_F64), _C.quint8)
    return per_tensor(ints, _C.quint8, scale, zp)
