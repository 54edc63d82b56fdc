"""torchlike.nn.functional: stateless neural-network operations.

Every function here is one entry point that a fused C kernel of ``src/nn`` can
replace without touching callers.  Most are written today over existing
torchlike ops (docs/nn.md lists which), so they run on every device and
differentiate through the tape, including ``create_graph``.

Legend for shape comments: N batch, C channels, L/H/W/D spatial sizes,
E embedding size, T/S target/source sequence lengths."""
import math
import numbers
import warnings

from .. import _C
from .._dtype_names import scalar_type_name
from . import _reduction as _Reduction
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ._convolution import (conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d,  # noqa: F401
                           conv_transpose2d, conv_transpose3d, unfold, fold)
from ._pool import (max_pool1d, max_pool2d, max_pool3d,  # noqa: F401
                    max_pool1d_with_indices, max_pool2d_with_indices,
                    max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
                    lp_pool1d, lp_pool2d, lp_pool3d, adaptive_avg_pool1d,
                    adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                    adaptive_max_pool2d, adaptive_max_pool3d, adaptive_max_pool1d_with_indices,
                    adaptive_max_pool2d_with_indices, adaptive_max_pool3d_with_indices,
                    max_unpool1d, max_unpool2d,
                    max_unpool3d, fractional_max_pool2d, fractional_max_pool3d,
                    fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices,
                    interpolate, upsample, upsample_nearest,
                    upsample_bilinear, pixel_shuffle, pixel_unshuffle, channel_shuffle,
                    affine_grid, grid_sample)
native_channel_shuffle = channel_shuffle  # PyTorch's name for the same op
from . import _backward_vjp  # noqa: F401  (installs the fused backward ops' derivatives)
from . import _pool
from ._attention import (scaled_dot_product_attention,  # noqa: F401
                         multi_head_attention_forward, _canonical_mask, _none_or_dtype,
                         _in_projection_packed, _in_projection, _mha_shape_check)

Tensor = _C.Tensor


def pad(input, pad, mode="constant", value=None):
    r"""Pad ``input`` by the amounts in ``pad``, starting from the last dim.

    ``pad`` is ``(left, right)`` for the last dim, then ``(top, bottom)`` for the
    one before it, and so on: ``len(pad) // 2`` dims are padded.  Negative
    amounts crop.

    Modes:
      * ``"constant"`` - fill with ``value`` (default 0), any number of dims;
      * ``"reflect"`` - mirror without repeating the edge (amount < size);
      * ``"replicate"`` - repeat the edge element;
      * ``"circular"`` - wrap around (amount <= size).

    Shape: ``(*, D_k, ..., D_1)`` -> ``(*, D_k + pad_k_l + pad_k_r, ...)``.
    Unlike PyTorch, the non-constant modes are not limited to 1-3 padded
    dims with a batch/channel dim in front; they pad any trailing dims.
    A channels-last input gives a channels-last result (and gradient) in
    every mode but circular, as in PyTorch.
    """
    if (mode in ("reflect", "replicate") and isinstance(pad, (tuple, list))
            and len(pad) <= 2 * (input.ndim - 2) and _pool._suggests_channels_last(input)):
        # pad the (N, *spatial, C) view, whose gradient (an index map) is then
        # channels-last too; a bad argument raises from the plain call below
        n = input.ndim
        try:
            out = _C._pad(input.permute(0, *range(2, n), 1), (0, 0, *pad), mode, value)
            return out.permute(0, n - 1, *range(1, n - 1))
        except (RuntimeError, TypeError, ValueError):
            pass
    return _C._pad(input, pad, mode, value)


# ---- helpers -------------------------------------------------------------------------

def _reduce(loss, reduction, refusal="{} is not a valid value for reduction"):
    """Apply a loss's ``reduction`` ('none' | 'mean' | 'sum'); another name is
    refused in the loss's words."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return _C.mean(loss)  # PyTorch's mean: an integer loss is refused
    if reduction == "sum":
        return loss.sum()
    raise ValueError(refusal.format(reduction))


def _mean_alias(reduction):
    """The reduction a loss that PyTorch resolves with _Reduction.get_enum
    runs: 'elementwise_mean', mean's name before PyTorch 0.4, is 'mean' with
    get_enum's UserWarning.  The losses PyTorch reduces in Python (poisson
    and gaussian NLL, multilabel soft margin, triplet with a distance
    function) refuse the old name, so they do not call this."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return "mean"
    return reduction


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    return _Reduction.legacy_get_string(size_average, reduce, stacklevel=4)


def _check_same_size(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({_size(target.shape)}) that is different to the input size "
            f"({_size(input.shape)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _size(shape):
    return str(_C.Size(tuple(int(s) for s in shape)))


def _scalar_type_name(t):
    """PyTorch's ScalarType name of a tensor's dtype ("Float", "Long" ...)."""
    return t.type().rsplit(".", 1)[-1][:-len("Tensor")]


def _cpp_type_name(dtype):
    """The C++ type name PyTorch prints for a dtype in some errors."""
    return {_C.float32: "float", _C.float64: "double", _C.float16: "c10::Half",
            _C.bfloat16: "c10::BFloat16"}.get(dtype, str(dtype).rsplit(".", 1)[-1])


def _scalar_like(value, x):
    return _C.full((), value, dtype=x.dtype, device=x.device)


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


# ---- linear -------------------------------------------------------------------------------

def _linear_dtype_error(input, weight, bias):
    """PyTorch's words for the commonest mistake: float64 data (NumPy's
    default) into a float32 layer.  With a bias its addmm names the operands
    mat1/mat2 (self for the bias, which it checks against the weight first),
    without one its mm speaks C++ types."""
    from .._dtype_names import cpp_name, scalar_type_name
    if bias is None:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_name(input.dtype)} != {cpp_name(weight.dtype)}")
    first, what = (bias, "self") if bias.dtype != weight.dtype else (input, "mat1")
    raise RuntimeError(f"{what} and mat2 must have the same dtype, but got "
                       f"{scalar_type_name(first.dtype)} and {scalar_type_name(weight.dtype)}")


def _tensor_args(func, *args):
    """PyTorch's parser's TypeError for a positional argument that is not a
    tensor (``linear(): argument 'input' (position 1) must be Tensor, not
    NoneType``); args are (name, value) pairs in position order.  An object
    with ``__torch_function__`` (an fx Proxy, a tensor-like) passes, as the
    parser hands it to its override."""
    for pos, (name, value) in enumerate(args, 1):
        if not isinstance(value, _C.Tensor) and not hasattr(type(value), "__torch_function__"):
            raise TypeError(f"{func}(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(value).__name__}")


def linear(input, weight, bias=None):
    r"""``input @ weight.T + bias``.  Shapes: input (*, in), weight (out, in),
    bias (out,) -> (*, out)."""
    _tensor_args("linear", ("input", input), ("weight", weight))
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if input.shape[-1:] != weight.shape[-1:] and weight.ndim == 2:
        raise RuntimeError(
            f"{'addmm' if bias is not None else 'mm'}: "
            f"mat1 and mat2 shapes cannot be multiplied "
            f"({math.prod(input.shape[:-1]) if input.ndim > 1 else 1}x{input.shape[-1]} and "
            f"{weight.shape[1]}x{weight.shape[0]})")
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != weight.dtype):
        _linear_dtype_error(input, weight, bias)
    if input.ndim == 2 and bias is not None:
        return _C.addmm(bias, input, weight.t())
    if input.ndim > 2 and weight.ndim == 2 and (bias is None or bias.ndim == 1):
        # the leading dims folded into rows: one GEMM (and its backward two)
        # whatever the input's strides (a transposed (L, N, E) view is copied
        # once instead of multiplied as L small products), the bias fused
        lead = tuple(input.shape[:-1])
        rows = input.reshape(math.prod(lead), input.shape[-1])
        out = (_C.addmm(bias, rows, weight.t()) if bias is not None
               else _C.matmul(rows, weight.t()))
        return out.reshape(*lead, weight.shape[0])
    out = _C.matmul(input, weight.t() if weight.ndim == 2 else weight)
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    r"""``y_k = x1 @ W_k @ x2 + b_k``.  Shapes: input1 (*, in1), input2 (*, in2),
    weight (out, in1, in2), bias (out,) -> (*, out)."""
    from .._einsum import einsum
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + \
        ([("bias", bias)] if bias is not None else [])
    if any(t.dtype != input1.dtype for _, t in named):
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {_cpp_type_name(t.dtype)}" for n, t in named))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: "
                               f"got {input1.shape[d]} and {input2.shape[d]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[-1]} but expected {weight.shape[0]}")
    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


def identity(input):
    return input


# ---- activations --------------------------------------------------------------------------

def _inplace(input, result, inplace):
    """Write ``result`` into ``input`` for the ``inplace=True`` spellings."""
    if not inplace:
        return result
    return input.copy_(result)


# The fused activations of src/nn/activation.  The in-place spellings write
# the input through the kernel's out=; with a graph to record, _inplace_op
# records that write as the activation's own in-place call, so the input
# gets PyTorch's node (ReluBackward0, EluBackward1 ...) over its old history,
# with the leaf check and version bump of any in-place write.
def _act(op, input, inplace, *args, **kwargs):
    if not inplace:
        return op(input, *args, **kwargs)
    return _C._inplace_op(op, input, *args, **kwargs)


def threshold(input, threshold, value, inplace=False):
    """``y = x if x > threshold else value``."""
    if _integral(input, "threshold"):
        # PyTorch converts the scalars to the integer dtype (truncating)
        return _inplace(input, _C.where(input > int(threshold), input, int(value)), inplace)
    return _act(_C.threshold, input, inplace, float(threshold), float(value))


_BOOL_REFUSALS = {"relu": "Boolean inputs not supported for relu",
                  "hardtanh": "Bool inputs not supported for hardtanh",
                  "threshold": "\"threshold_cpu\" not implemented for 'Bool'"}


def _integral(input, name):
    """Whether input is an integer tensor, which relu, hardtanh (relu6) and
    threshold take as PyTorch does; a bool one is refused in its words."""
    if input.dtype == _C.bool:
        raise NotImplementedError(_BOOL_REFUSALS[name])
    return not (input.is_floating_point() or input.is_complex())


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, True)


def relu(input, inplace=False):
    """``max(0, x)``."""
    _tensor_args("relu", ("input", input))
    if _integral(input, "relu"):
        return _inplace(input, input.clamp(min=0), inplace)
    return _act(_C.relu, input, inplace)


def relu_(input):
    return relu(input, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(x, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if _integral(input, "hardtanh"):
        # the bounds converted to the integer dtype (truncating), as PyTorch's
        return _inplace(input, input.clamp(int(min_val), int(max_val)), inplace)
    return _act(_C.hardtanh, input, inplace, float(min_val), float(max_val))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x if x >= 0 else negative_slope * x``."""
    return _act(_C.leaky_relu, input, inplace, float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    """``x if x > 0 else alpha * (exp(x) - 1)``."""
    return _act(_C.elu, input, inplace, float(alpha), 1.0, 1.0)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""
    return _act(_C.elu, input, inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")  # PyTorch's words
    return _act(_C.elu, input, inplace, float(alpha), 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def gelu(input, approximate="none"):
    """``x * Phi(x)`` (exact, with erf) or its tanh approximation."""
    return _C.gelu(input, approximate=approximate)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def silu(input, inplace=False):
    """``x * sigmoid(x)``."""
    return _act(_C.silu, input, inplace)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    return _act(_C.mish, input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    return _C.softplus(input, float(beta), float(threshold))


def softsign(input):
    """``x / (1 + |x|)``."""
    return _C.softsign(input)


def hardsigmoid(input, inplace=False):
    """``clamp(x / 6 + 1 / 2, 0, 1)``."""
    return _act(_C.hardsigmoid, input, inplace)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    return _act(_C.hardswish, input, inplace)


def hardshrink(input, lambd=0.5):
    """``x if |x| > lambd else 0``."""
    return _C.hardshrink(input, float(lambd))


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    return _C.softshrink(input, float(lambd))


def tanhshrink(input):
    """``x - tanh(x)``."""
    return _C.tanhshrink(input)


def logsigmoid(input):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large |x|."""
    if isinstance(input, Tensor) and not (input.is_floating_point() or input.is_complex()):
        _loss_kernel_refused(_BCE_LOGITS, input.dtype, input.device)
    return _C.log_sigmoid(input)


def prelu(input, weight):
    """``x if x >= 0 else weight * x``; ``weight`` has 1 or C (dim 1) entries."""
    if weight.dtype != input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{_scalar_type_name(input)} and {_scalar_type_name(weight)}")
    if weight.ndim != 1 and weight.numel() != 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    w = weight.reshape(-1)
    if weight.numel() != 1:
        if input.ndim < 2 or input.shape[1] != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = "
                f"{input.shape[1] if input.ndim >= 2 else 1}.")
        w = w.reshape((-1,) + (1,) * (input.ndim - 2))
    return _C._prelu_kernel(input, w)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element
    in training, and is ``(lower + upper) / 2`` in evaluation."""
    if lower > upper:  # PyTorch checks the bounds in evaluation too
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    with no_grad():
        noise = _C.empty_like(input).uniform_(lower, upper)
    source = input.clone() if inplace and input.requires_grad else input
    return _inplace(input, _C._prelu_kernel(source, noise), inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def glu(input, dim=-1):
    """``a * sigmoid(b)`` where ``a, b`` are the two halves of ``input`` along ``dim``."""
    return _C.glu(input, dim)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably in one pass
    (src/nn/softmax)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x)`` along ``dim`` (src/nn/softmax)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _C.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)``."""
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    return softmax(-input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """``softmax((logits + g) / tau)`` with Gumbel(0, 1) noise ``g``; ``hard``
    returns the one-hot argmax with the soft sample's gradient
    (straight-through).  ``eps`` is deprecated and unused, as in PyTorch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_C.empty_like(logits).exponential_().log()
    y = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y
    index = y.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y.detach() + y


# ---- dropout ------------------------------------------------------------------------------------

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, batch_dims, alpha, inplace):
    """The fused kernel (src/nn/dropout): mask drawn and applied in one pass;
    the tape keeps the mask, not the input."""
    if not inplace:
        return _C._fused_dropout(input, p, batch_dims, alpha)[0]
    if _C.is_grad_enabled() and input.requires_grad:
        return input.copy_(_C._fused_dropout(input, p, batch_dims, alpha)[0])
    return _C._fused_dropout(input, p, batch_dims, alpha, out=input)[0]


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1-p)."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _dropout(input, p, 0, False, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) input."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    if not training or p == 0.0:
        return input
    # one draw per (sample, channel), applied to the channel's whole run
    return _dropout(input, p, 2 if input.ndim == 3 else 1, False, inplace)


def _feature_dropout_warn(name, ndim, spatial):
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result "
        "in an error in a future release. To retain the behavior and silence this warning, "
        f"please use dropout instead. Note that {name} exists to provide channel-wise "
        f"dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an "
        f"optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels.  As in PyTorch, a 3-D input is read as (N, C, L)
    (channel-wise 1-D dropout, with a warning), not as an unbatched (C, H, W),
    and other ranks warn and draw per (dim 0, dim 1)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        _feature_dropout_warn("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    if not training or p == 0.0:
        return input
    return _dropout(input, p, min(2, input.ndim), False, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input; other
    ranks warn, and all but 5-D are read as unbatched (a draw per dim 0)."""
    _check_p(p)
    if input.ndim not in (4, 5):
        _feature_dropout_warn("dropout3d", input.ndim, 3)
    if not training or p == 0.0:
        return input
    return _dropout(input, p, 2 if input.ndim == 5 else min(1, input.ndim), False, inplace)


def _alpha_dropout(input, p, training, inplace, batch_dims):
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _dropout(input, p, batch_dims, True, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance."""
    return _alpha_dropout(input, p, training, inplace, 0)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: one draw per (sample, channel)."""
    return _alpha_dropout(input, p, training, inplace, min(2, input.ndim))


# ---- normalisation ---------------------------------------------------------------------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise over every dim but 1 (channels).  In training the batch
    statistics are used and the running ones updated in place:
    ``running = (1 - momentum) * running + momentum * batch`` (unbiased var).
    One fused op (``native_batch_norm``), which also returns the mean and
    rstd its backward reads."""
    _tensor_args("batch_norm", ("input", input))
    if input.ndim < 2:
        raise ValueError(f"expected 2D or more input (got {input.ndim}D input)")
    # PyTorch's _verify_batch_size: exactly one value per channel is refused,
    # an empty batch is not (its output is empty, the running stats stay)
    if training and math.prod(input.shape[:1] + input.shape[2:]) == 1:
        raise ValueError("Expected more than 1 value per channel when training, got "
                         f"input size {_size(input.shape)}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.numel() == 0:
        # as ATen: no statistics to take (the running ones stay), the output
        # still depends on weight and bias so the graph reaches them
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if momentum is None:
        # PyTorch's parser: the modules' momentum=None (a cumulative average)
        # is theirs to turn into a factor
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, "
                        "not NoneType")
    return _C.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                momentum, eps)[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its spatial dims: batch_norm of
    the (1, N*C, *) view, the running statistics averaged over the batch."""
    N, C = input.shape[0], input.shape[1]
    # PyTorch's checks, in its order and words
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    if momentum is None:
        raise TypeError("instance_norm(): argument 'momentum' (position 7) must be float, "
                        "not NoneType")
    if use_input_stats and math.prod(input.shape[2:]) <= 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{_size(input.shape)}")

    def repeat(t):
        return None if t is None else t.repeat(N)
    rm, rv = repeat(running_mean), repeat(running_var)
    out = _C.native_batch_norm(input.reshape((1, N * C) + tuple(input.shape[2:])),
                               repeat(weight), repeat(bias), rm, rv, use_input_stats,
                               momentum, eps)[0]
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(N, C).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(N, C).mean(0))
    return out.reshape(input.shape)


def _shape_list(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return [int(normalized_shape)]
    return [int(n) for n in normalized_shape]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dims (``native_layer_norm``)."""
    return _C.native_layer_norm(input, _shape_list(normalized_shape), weight, bias, eps)[0]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps)`` over the trailing dims (eps defaults to the
    dtype's machine epsilon); ``_fused_rms_norm``."""
    return _C._fused_rms_norm(input, _shape_list(normalized_shape), weight, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample's channels in ``num_groups`` groups (``native_group_norm``)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    N, C = input.shape[0], input.shape[1]
    HxW = math.prod(input.shape[2:])
    if HxW == 0:   # PyTorch's first check, even of an empty batch
        raise RuntimeError(f"Expected HxW to be greater than 0, got {HxW}")
    return _C.native_group_norm(input, weight, bias, N, C, HxW, num_groups, eps)[0]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha/size * sum of x^2 over ``size`` neighbouring channels)^beta``
    (op ``_local_response_norm``, its derivative ``_local_response_norm_backward``)."""
    if input.ndim < 3:
        # PyTorch's words, with the run of spaces its source's line break leaves
        raise ValueError("Expected 3D or higher dimensionality" + " " * 26 +
                         f"input (got {input.ndim} dimensions)")
    return _C._local_response_norm(input, int(size), float(alpha), float(beta), float(k))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim`` (into ``out`` when given)."""
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom if out is None else _C.div(input, denom, out=out)


# ---- embedding ----------------------------------------------------------------------------------

def _padding_idx(padding_idx, num_embeddings, word="Padding_idx"):
    """PyTorch's checks; -1 stands for none in the kernels.  Embedding's
    assertion capitalizes the word, EmbeddingBag's does not."""
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        if padding_idx >= num_embeddings:
            raise AssertionError(f"{word} must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -num_embeddings:
            raise AssertionError(f"{word} must be within num_embeddings")
        padding_idx += num_embeddings
    return padding_idx


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescale, in place, the rows of ``weight`` that ``input`` picks whose
    ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm``."""
    with no_grad():
        rows = _C.unique(input.reshape(-1))
        picked = weight.index_select(0, rows)
        norms = picked.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
        weight.index_copy_(0, rows, picked * scale)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer ``input``: (*) -> (*, E)
    (src/nn/embedding).  The ``padding_idx`` row gets no gradient; with
    ``max_norm`` the picked rows are renormalised in place first;
    ``scale_grad_by_freq`` divides each row's gradient by its count in the
    batch.  ``sparse``: weight's gradient is a sparse COO tensor, one row
    per index (docs/sparse.md)."""
    pad = _padding_idx(padding_idx, weight.shape[0]) if weight.ndim == 2 else -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse and weight.requires_grad and _C.is_grad_enabled():
        from .. import _sparse
        return _sparse.sparse_embedding.apply(weight, input, pad, scale_grad_by_freq)
    return _C.embedding(weight, input, pad, scale_grad_by_freq, sparse)


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxes of bags of embeddings (src/nn/embedding): 2-D
    ``input`` (B, n) is B bags; 1-D ``input`` with ``offsets`` gives the bag
    starts (``include_last_offset``: the last offset ends the last bag).
    ``per_sample_weights`` scale the rows (sum only); the ``padding_idx``
    row is left out of its bags (and of their mean's count).  Empty bags
    give zeros."""
    # PyTorch's F.embedding_bag checks the weights' shape before all else and
    # their mode last (the op checks the shape again for its direct callers)
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if input.ndim == 1 and offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if input.ndim == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                         "mini-batch of fixed length sequences. However, found offsets of type "
                         f"{type(offsets)}")
    n = weight.shape[0] if weight.ndim == 2 else 0
    if padding_idx is not None and weight.ndim == 2 and not -n <= padding_idx < n:
        # the functional form is checked by PyTorch's kernel, in its words
        raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} through "
                           f"{n - 1}, but got {padding_idx}")
    pad = _padding_idx(padding_idx, n) if weight.ndim == 2 else -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse and weight.requires_grad and _C.is_grad_enabled():
        if mode == "max":
            raise ValueError("max mode does not support sparse weights")
        from .. import _sparse
        return _sparse.sparse_embedding_bag.apply(
            weight, input, offsets, mode, per_sample_weights, include_last_offset,
            pad if pad >= 0 else None, scale_grad_by_freq)
    if scale_grad_by_freq and weight.requires_grad and _C.is_grad_enabled():
        weight = _RowGradScale.apply(weight, input)
    return _C._embedding_bag(weight, input, offsets, _BAG_MODES[mode], per_sample_weights,
                             include_last_offset, pad)[0]


class _RowGradScale(Function):
    """Identity on an embedding table whose backward divides row v's
    gradient by v's count among the indices: scale_grad_by_freq of a sum or
    mean bag, where every occurrence of v adds to row v alone."""

    @staticmethod
    def forward(ctx, weight, indices):
        ctx.save_for_backward(indices)
        ctx.num_weights = weight.shape[0]
        return weight.view_as(weight)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        counts = _C.bincount(indices.reshape(-1), minlength=ctx.num_weights)
        scale = counts.clamp(min=1).to(dtype=grad.dtype).reshape((-1,) + (1,) * (grad.ndim - 1))
        return grad / scale, None


def one_hot(tensor, num_classes=-1):
    """(*) int64 -> (*, num_classes) int64 with a single 1 per row."""
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if not tensor.numel() and num_classes <= 0:  # PyTorch's words, 0 classes included
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1
    # a meta tensor has no values to check (PyTorch skips the checks there too)
    check = tensor.numel() and not tensor.is_meta
    if check and int(tensor.min().item()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if check and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _C.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(dtype=_C.int64)


# ---- distances ---------------------------------------------------------------------------------

def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dim."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``, in
    the operands' common dtype, which must be a real floating one."""
    common = _C.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        from .._dtype_names import scalar_type_name
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{scalar_type_name(common)}")
    x1, x2 = x1.to(common), x2.to(common)
    n1 = x1.norm(2, dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 (*, P, M) and x2 (*, R, M).
    For p = 2 PyTorch takes the squared distances from one matmul,
    ``|a|^2 - 2 a.b + |b|^2`` clamped at 1e-30, when either side has more
    than 25 rows (or when ``compute_mode`` asks): so do we, which also spares
    the (*, P, R, M) difference tensor; else the norms of the differences."""
    mode = _CDIST_MODES.get(compute_mode)
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_scalar_type_name(t)}")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type_name(x1)} but found "
                           f"{_scalar_type_name(x2)}")
    if x1.shape[-1] == 0:  # no columns: every distance is 0 (PyTorch's early exit)
        return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).sum(-1) * 0
    if p == 2 and (mode == 1 or (mode == 0 and (x1.shape[-2] > 25 or x2.shape[-2] > 25))):
        n1 = x1.pow(2).sum(-1, keepdim=True)
        n2 = x2.pow(2).sum(-1, keepdim=True)
        a = _C.cat([x1 * -2, n1, _C.ones_like(n1)], -1)
        b = _C.cat([x2, _C.ones_like(n2), n2], -1)
        return a.matmul(b.transpose(-2, -1)).clamp(min=1e-30).sqrt()
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, -1)


def pdist(input, p=2):
    n = input.shape[0]
    i, j = _C.triu_indices(n, n, 1)
    return (input[i] - input[j]).norm(p, -1)


# ---- losses ------------------------------------------------------------------------------

def _class_dim_target(input, target):
    """Check the (N, C, d1...) (or unbatched (C,)) input against the
    (N, d1...) (or 0-d) target."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        # a 0-d target, or a 1-d one of one element (PyTorch's checks)
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
        return
    target_batch = target.shape[0] if target.ndim else 0
    if input.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target_batch}).")
    if input.ndim == 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tuple(input.shape[2:]) != tuple(target.shape[1:]):
        # PyTorch's words (as the C cross entropy's): lists, and for 2-d
        # spatial inputs (its nll_loss2d) the rank first, then its unbalanced
        # "size mismatch ("
        if input.ndim == 4 and target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.ndim}")
        if input.ndim == 4:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
        expected = [input.shape[0]] + list(input.shape[2:])
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")


_REDUCTIONS = _Reduction._ENUMS


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``-input[n, target[n]] * weight[target[n]]``; mean divides by the sum of
    the weights of the targets not ignored.  input (N, C, *) or (C,).  One
    fused op (``nll_loss_nd``) that also returns the total weight."""
    reduction = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _class_dim_target(input, target)
    if input.ndim == 1 and target.ndim == 1:
        target = target.reshape(())   # its one class: the 'none' loss is 0-d, as PyTorch's
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        _not_differentiable_in_weight("nll_loss_forward")
    if target.dtype in (_C.int64, _C.uint8):  # (the op refuses other targets first)
        _refuse_integral_input("nll_loss_out_frame" if input.ndim <= 2 else
                               "nll_loss2d_forward_out_frame", input)
    return _C.nll_loss_nd(input, target, weight, _REDUCTIONS[reduction], ignore_index)[0]


def _not_differentiable_in_weight(function):
    raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                       "argument 'weight'. This input cannot have requires_grad True.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; for
    class probabilities (target shaped like input), ``-sum(target * log_softmax)``.
    ``label_smoothing`` mixes the target with the uniform distribution.  One
    fused op (``_cross_entropy``, one pass per row), which checks the class
    indices against the input as nll_loss does."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    reduction = _mean_alias(reduction)
    r = _REDUCTIONS.get(reduction)
    if r is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    # PyTorch's log_softmax over the class dim refuses an integer input first
    _refuse_integral_input("log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else
                           "log_softmax_kernel_impl", input)
    # class probabilities (a float target of another shape is read as class
    # indices, and the op's checks say what is wrong, as PyTorch's do)
    probs = target.is_floating_point() and tuple(target.shape) == tuple(input.shape)
    if not probs and tuple(target.shape) == tuple(input.shape):
        # PyTorch reads a target shaped like the input as probabilities
        from .._dtype_names import scalar_type_name
        raise RuntimeError("Expected floating point type for target with class "
                           f"probabilities, got {scalar_type_name(target.dtype)}")
    if label_smoothing < 0:  # PyTorch bounds it above only: a negative one smooths nothing
        label_smoothing = 0.0
    if probs and ignore_index >= 0:   # PyTorch's: probabilities have no class to ignore
        raise RuntimeError("ignore_index is not supported for floating point target")
    if probs and (target.dtype != input.dtype or
                  (weight is not None and weight.dtype != input.dtype)):
        # PyTorch composes the probabilities' loss of ops that promote: the
        # result takes the dtype of input, target and weight together
        dtype = _C.promote_types(input.dtype, target.dtype)
        if weight is not None:
            dtype = _C.promote_types(dtype, weight.dtype)
            weight = weight.to(dtype)
        input, target = input.to(dtype), target.to(dtype)
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        if not probs:
            _not_differentiable_in_weight("nll_loss_forward")
        # PyTorch differentiates the class weights of probabilities: composed
        cdim = 0 if input.ndim == 1 else 1
        n_cls = input.shape[cdim]
        q = target * (1 - label_smoothing) + label_smoothing / n_cls
        w = weight.reshape((n_cls,) + (1,) * (input.ndim - cdim - 1))
        loss = -(log_softmax(input, cdim) * q * w).sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // n_cls if input.numel() else float("nan"))
        return _reduce(loss, reduction)
    if not probs and not label_smoothing and input.dtype in (_C.float16, _C.bfloat16) and \
            input.ndim > 0:
        # PyTorch's composition, whose half-precision log_softmax rounds the
        # row's sum and log to the dtype: the same losses bit for bit
        return nll_loss(log_softmax(input, 0 if input.ndim == 1 else 1), target, weight,
                        ignore_index=ignore_index, reduction=reduction)
    return _C._cross_entropy(input, target, weight, r, ignore_index, label_smoothing)[0]


# the elementwise losses of src/nn/loss (tl_loss_kind)
_MSE, _L1, _SMOOTH_L1, _HUBER, _BCE, _BCE_LOGITS, _KL_DIV = range(7)


def _loss_kernel_refused(kind, dtype, device):
    """PyTorch has no complex kernel for these losses (a cast to a real
    dtype would drop the imaginary parts silently), nor an integer one for
    mse, smooth_l1 and huber: its errors."""
    if kind == _KL_DIV:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    names = {_MSE: "mse", _L1: "l1", _SMOOTH_L1: "smooth_l1", _HUBER: "huber",
             _BCE_LOGITS: "log_sigmoid"}
    name = "binary_cross_entropy" if kind == _BCE else f"{names[kind]}_{device.type}"
    raise NotImplementedError(f'"{name}" not implemented for \'{scalar_type_name(dtype)}\'')


_BOOL_SUB = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
             "`^` or `logical_xor()` operator instead.")
_BOOL_SUB_ONE = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                 "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
             "to invert a mask, use the `~` or `logical_not()` operator instead.")


def _refuse_bool_sub(a, b):
    """PyTorch's refusal of a - b with a bool operand (torchlike's tensors
    subtract bools as NumPy does; PyTorch's losses compose a - b)."""
    a_bool, b_bool = a.dtype == _C.bool, b.dtype == _C.bool
    if a_bool and b_bool:
        raise NotImplementedError(_BOOL_SUB)
    if a_bool or b_bool:
        raise NotImplementedError(_BOOL_SUB_ONE)


def _refuse_integral_input(kernel, input):
    """PyTorch's float-only kernel refusing an integer or bool input."""
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{scalar_type_name(input.dtype)}'")


def _fused_loss(kind, input, target, reduction, param=0.0, weight=None, pos_weight=None):
    """One ``_pointwise_loss`` call: input and target (and weight, pos_weight)
    broadcast to one shape and promoted to one floating dtype."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dtype = _C.promote_types(input.dtype, target.dtype)
    if dtype.is_complex or (not dtype.is_floating_point and kind in (_MSE, _SMOOTH_L1, _HUBER)):
        _loss_kernel_refused(kind, dtype, input.device)
    if not dtype.is_floating_point:
        dtype = _C.get_default_dtype()
    extra = [t for t in (weight, pos_weight) if t is not None]
    tensors = _C.broadcast_tensors(input.to(dtype), target.to(dtype), *[t.to(dtype) for t in extra])
    input, target = tensors[0], tensors[1]
    rest = iter(tensors[2:])
    weight = next(rest) if weight is not None else None
    pos_weight = next(rest) if pos_weight is not None else None
    return _C._pointwise_loss(input, target, weight, pos_weight, kind, float(param),
                              _REDUCTIONS[reduction])


def _as_input_dtype(target, input):
    """target in a floating input's dtype: the losses PyTorch computes into a
    tensor made like the input (huber, soft margin) give the input's dtype,
    whatever the target's, and refuse an integer input, whose dtype cannot
    hold the loss."""
    if not (input.is_floating_point() or input.is_complex()):
        result = _C.promote_types(input.dtype, target.dtype)
        result = result if result.is_floating_point else _C.get_default_dtype()
        raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired "
                           f"output type {scalar_type_name(input.dtype)}")
    if input.is_floating_point() and target.dtype != input.dtype:
        return target.to(input.dtype)
    return target


def _weighted_loss(kind, input, target, reduction, weight, param=0.0):
    """The loss, times an elementwise ``weight`` when one is given."""
    _check_same_size(input, target)
    if weight is None:
        return _fused_loss(kind, input, target, reduction, param)
    return _reduce(_fused_loss(kind, input, target, "none", param) * weight, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``(input - target)^2``."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    return _weighted_loss(_MSE, input, target, r, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``|input - target|``; for complex operands the modulus of the
    difference (real)."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if weight is None:
        _refuse_bool_sub(input, target)
    dtype = _C.promote_types(input.dtype, target.dtype)
    if weight is None and (dtype.is_complex or (dtype != _C.bool and not dtype.is_floating_point)):
        # PyTorch's composite |input - target|: integers stay integers, and
        # their mean is refused as its mean() refuses it
        _check_same_size(input, target)
        if r not in _REDUCTIONS:
            raise ValueError(f"{r} is not a valid value for reduction")
        if r == "mean" and not dtype.is_complex:
            raise NotImplementedError(f"mean(): could not infer output dtype. Input dtype must be "
                                      f"either a floating point or complex dtype. Got: "
                                      f"{scalar_type_name(dtype)}")
        return _reduce(_C.abs(input - target), r)
    return _weighted_loss(_L1, input, target, r, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=r)
    return _weighted_loss(_SMOOTH_L1, input, target, r, None, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    reduction = _mean_alias(reduction)
    if not _C.promote_types(input.dtype, target.dtype).is_floating_point:
        return _weighted_loss(_HUBER, input, target, reduction, weight, delta)  # refused there
    return _weighted_loss(_HUBER, input, _as_input_dtype(target, input), reduction, weight,
                          delta)


def _broadcast_shape(a, b):
    """The broadcast of shapes a and b, refused in PyTorch's elementwise words
    (tensor a named first, the dim counted in the result, the last mismatch)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                               f"({b[i]}) at non-singleton dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _inplace_shape(out, other):
    """Refuse ``out.op_(other)`` as PyTorch does where other broadcasts out
    past its own shape (an in-place result cannot grow)."""
    shape = _broadcast_shape(out, other)
    if shape != tuple(out):
        raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast shape "
                           f"{list(shape)}")


def _tensor_or_none(fn, name, position, value):
    """PyTorch's binding refuses a weight that is no tensor (a float, a list)."""
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _bce_logits_shapes(input, target, weight, pos_weight):
    """Check the operands' shapes in the order of PyTorch's formula, so that
    the one that disagrees is named (as tensor a or b) as PyTorch names it:
    ``log_sigmoid(input) *= (pos_weight - 1) * target + 1``, then
    ``loss = (1 - target) * input - that`` in target's shape, then
    ``loss *= weight``."""
    if pos_weight is not None:
        _inplace_shape(tuple(input.shape), _broadcast_shape(pos_weight.shape, target.shape))
    _inplace_shape(tuple(target.shape), tuple(input.shape))
    if weight is not None:
        _inplace_shape(tuple(target.shape), tuple(weight.shape))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-w (t log x + (1 - t) log(1 - x))`` with the logs clamped at -100."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_size(target.shape)}) that is different to "
                         f"the input size ({_size(input.shape)}) is deprecated. Please ensure "
                         "they have the same size.")
    if weight is not None:
        # PyTorch expands the weight to the target's broadcast with it first
        # (its words), and its kernel then refuses a weight that grows the loss
        _inplace_shape(tuple(target.shape), tuple(_C.broadcast_shapes(target.shape, weight.shape)))
    if target.dtype != input.dtype:  # PyTorch's kernel takes no other target dtype
        raise RuntimeError(f"Found dtype {scalar_type_name(target.dtype)} but expected "
                           f"{scalar_type_name(input.dtype)}")
    return _fused_loss(_BCE, input, target, r, weight=weight)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """``-w (pos_weight t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))``, stable."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_size(target.shape)}) must be the same as input size "
                         f"({_size(input.shape)})")
    _tensor_or_none("binary_cross_entropy_with_logits", "weight", 3, weight)
    _tensor_or_none("binary_cross_entropy_with_logits", "pos_weight", 4, pos_weight)
    _bce_logits_shapes(input, target, weight, pos_weight)
    if not (input.is_floating_point() or input.is_complex()):
        _loss_kernel_refused(_BCE_LOGITS, input.dtype, input.device)
    # PyTorch computes the loss into (1 - target): an integer or bool target
    # is refused as that in-place product refuses it, and a float target's
    # dtype is the loss's
    if target.dtype == _C.bool:
        raise NotImplementedError("Subtraction, the `-` operator, with two bool tensors is not "
                                  "supported. Use the `^` or `logical_xor()` operator instead.")
    if not (target.is_floating_point() or target.is_complex()):
        raise RuntimeError(f"result type "
                           f"{scalar_type_name(_C.promote_types(input.dtype, target.dtype))} "
                           f"can't be cast to the desired output type "
                           f"{scalar_type_name(target.dtype)}")
    if target.is_floating_point() and input.is_floating_point() and target.dtype != input.dtype:
        loss = _fused_loss(_BCE_LOGITS, input, target, "none", weight=weight,
                           pos_weight=pos_weight)
        return _reduce(loss.to(target.dtype), r)
    return _fused_loss(_BCE_LOGITS, input, target, r, weight=weight, pos_weight=pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log target - input)`` (input is log-probabilities)."""
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if not (input.is_floating_point() or input.is_complex()) or \
            not (target.is_floating_point() or target.is_complex()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if r == "batchmean":
        loss = _fused_loss(_KL_DIV, input, target, "sum", float(log_target))
        return loss / input.shape[0] if input.ndim else loss
    return _fused_loss(_KL_DIV, input, target, r, float(log_target))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """``exp(x) - t x`` (log input) or ``x - t log(x + eps)``; ``full`` adds
    Stirling's term for t > 1."""
    r = _legacy_reduction(size_average, reduce, reduction)
    if log_input and input.dtype == target.dtype == _C.bool:
        raise NotImplementedError(_BOOL_SUB_ONE)  # PyTorch's exp(x) - (t x), t x a bool
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:
        stirling = target * _C.log(target) - target + 0.5 * _C.log(2 * math.pi * target)
        loss = loss + _C.where(target > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, r)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 (log max(var, eps) + (input - target)^2 / max(var, eps))``."""
    if var.ndim == input.ndim - 1 and tuple(var.shape) == tuple(input.shape[:-1]):
        var = var.unsqueeze(-1)
    elif tuple(var.shape) != tuple(input.shape) and not (
            var.ndim == input.ndim and var.shape[-1] == 1
            and tuple(var.shape[:-1]) == tuple(input.shape[:-1])):
        raise ValueError("var is of incorrect size")
    if (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    if not (var.is_floating_point() or var.is_complex()):
        # PyTorch clamps a copy of var in place, to a float eps
        from .._dtype_names import cpp_name
        raise RuntimeError(f"result type {scalar_type_name(_C.get_default_dtype())} can't be "
                           f"cast to the desired output type {cpp_name(var.dtype)}")
    # NOTE: the clamp is not differentiated (as in PyTorch): the gradient w.r.t.
    # var passes as if var had not been clamped.
    v = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (_C.log(v) + (input - target) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "{} is not valid")  # PyTorch's words here


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -y (x1 - x2) + margin)``; the three operands of one rank
    (PyTorch's check: a 0-d target is not broadcast)."""
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), r)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``x`` where y = 1, ``max(0, margin - x)`` where y = -1.

    As PyTorch's formula: the input where y != -1 plus the margin term where
    y != 1 (a target of 0 or 2 adds both), the margin a tensor like the
    input's (an integer input truncates it, a bool one is refused)."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if input.dtype == _C.bool:
        raise NotImplementedError(_BOOL_SUB)
    zero = _scalar_like(0, input)
    margin_term = (_C.full_like(input, margin) - input).clamp(min=0)
    loss = _C.where(target != 1, margin_term, zero) + _C.where(target != -1, input, zero)
    return _reduce(loss, r)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y x))``."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if input.dtype == _C.bool:
        raise NotImplementedError(_BOOL_NEG)
    return _reduce(softplus(-_as_input_dtype(target, input) * input), r)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    r = _legacy_reduction(size_average, reduce, reduction)
    _refuse_integral_input("log_sigmoid_" + input.device.type, input)
    if target.dtype == _C.bool:
        raise NotImplementedError(_BOOL_SUB_ONE)  # PyTorch's (1 - target)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), r, "{} is not valid")  # PyTorch's words here


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``sum_{j in targets, i not in targets} max(0, 1 - (x_j - x_i)) / C``; the
    targets of a row are its entries before the first -1 (``_multilabel_margin_loss``)."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction")
    _refuse_integral_input("multilabel_margin_loss_forward_out_frame", input)
    return _C._multilabel_margin_loss(input, target, _REDUCTIONS[r])[0]


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """``sum_{i != y} max(0, margin - x_y + x_i)^p / C`` (times weight[y])
    (``_multi_margin_loss``)."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction")
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.requires_grad and _C.is_grad_enabled():
        _not_differentiable_in_weight("multi_margin_loss")
    _refuse_integral_input("multi_margin_loss_cpu_kernel", input)
    return _C._multi_margin_loss(input, target, p, margin, weight, _REDUCTIONS[r])


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos`` where y = 1, ``max(0, cos - margin)`` where y = -1."""
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    # PyTorch's checks: a 0-d target pairs with 1-d inputs, a 1-d one with 2-d
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != target.ndim + 1 or input2.ndim != target.ndim + 1:
        raise RuntimeError(f"{target.ndim}D target tensor expects {target.ndim + 1}D input "
                           f"tensors, but found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    eps = 1e-12
    dot = (input1 * input2).sum(-1)
    m1 = (input1 * input1).sum(-1) + eps
    m2 = (input2 * input2).sum(-1) + eps
    cos = dot / _C.sqrt(m1 * m2)
    zero = _scalar_like(0, cos)
    loss = _C.where(target == 1, 1 - cos, zero) + \
        _C.where(target == -1, (cos - margin).clamp(min=0), zero)
    return _reduce(loss, r)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise distance."""
    if margin <= 0:  # PyTorch's check, before any other
        raise ValueError(f"margin must be greater than 0, got {margin}")
    r = _mean_alias(_legacy_reduction(size_average, reduce, reduction))
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), r)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    if margin <= 0:  # PyTorch's check, before any other
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dist = distance_function or pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification: ``-log`` of the total probability
    of every alignment of each target.  log_probs (T, N, C) (or (T, C)),
    targets (N, S) or concatenated (sum(target_lengths),).  The alpha and
    beta recursions are the ``_ctc_loss`` op; the reduction is PyTorch's:
    'mean' divides each loss by its target length (at least 1), then
    averages."""
    reduction = _mean_alias(reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_probs.device.type == "cpu" and log_probs.dtype not in (_C.float32, _C.float64):
        # PyTorch's CPU kernel dispatches over float and double only
        from .._dtype_names import scalar_type_name
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{scalar_type_name(log_probs.dtype)}'")
    if isinstance(targets, Tensor) and targets.dtype not in (_C.int64, _C.int32):
        targets = targets.to(_C.int64)  # PyTorch reads any targets as int64
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
    tg_len = _int_list(target_lengths)
    loss = _C._ctc_loss(log_probs, targets, _int_list(input_lengths), tg_len, blank,
                        bool(zero_infinity))[0]
    if zero_infinity:
        loss = _C.where(loss == float("inf"), _C.zeros_like(loss), loss)
    if unbatched:
        loss = loss.squeeze(0)
    if reduction == "mean":
        tl = _C.tensor(tg_len, dtype=loss.dtype, device=loss.device).clamp(min=1)
        return (loss / tl).mean()
    return _reduce(loss, reduction)


def _int_list(lengths):
    """Lengths given as an int, a sequence or a tensor, as a list of ints."""
    if isinstance(lengths, Tensor):
        lengths = lengths.tolist()
    if isinstance(lengths, int):
        return [lengths]
    return [int(v) for v in lengths]


# PyTorch 2.15's MoE grouped GEMM and fused linear + cross entropy (their own files).
from ._grouped_mm import grouped_mm  # noqa: E402,F401
from ._linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401
