"""Fold an evaluation-mode BatchNorm into the convolution or linear layer
before it."""
import copy

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _bn_defaults(bias, bn_rm, bn_w, bn_b):
    return (_C.zeros_like(bn_rm) if bias is None else bias,
            _C.ones_like(bn_rm) if bn_w is None else bn_w,
            _C.zeros_like(bn_rm) if bn_b is None else bn_b)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """``w' = w * g / sqrt(var + eps)`` (per output channel: dim 1 of a
    transposed convolution's weight), ``b' = (b - mean) * g / sqrt(var + eps)
    + beta``; in the convolution's dtypes.  As PyTorch, the fused bias requires
    grad only if the convolution had a bias that did."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    with no_grad():
        conv_b, bn_w, bn_b = _bn_defaults(conv_b, bn_rm, bn_w, bn_b)
        rstd = _C.rsqrt(bn_rv + bn_eps)
        shape = [1] * conv_w.ndim
        shape[1 if transpose else 0] = -1
        w = (conv_w * (bn_w * rstd).reshape(shape)).to(dtype=w_dtype)
        b = ((conv_b - bn_rm) * rstd * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The linear layer's ``w'`` and ``b'`` as ``fuse_conv_bn_weights``; a
    one-feature BatchNorm scales every output."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    with no_grad():
        linear_b, bn_w, bn_b = _bn_defaults(linear_b, bn_rm, bn_w, bn_b)
        scale = bn_w * _C.rsqrt(bn_rv + bn_eps)
        w = (linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)).to(dtype=w_dtype)
        b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` computing ``bn(conv(x))`` of the evaluation-mode pair."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` computing ``bn(linear(x))`` of the evaluation-mode
    pair (the BatchNorm's features: the linear's outputs, or one)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
