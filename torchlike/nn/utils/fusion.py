"""Fold an evaluation-mode BatchNorm into the convolution or linear layer
before it."""
import copy

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """``w' = w * g / sqrt(var + eps)`` (per output channel),
    ``b' = (b - mean) * g / sqrt(var + eps) + beta``."""
    with no_grad():
        if conv_b is None:
            conv_b = _C.zeros_like(bn_rm)
        if bn_w is None:
            bn_w = _C.ones_like(bn_rm)
        if bn_b is None:
            bn_b = _C.zeros_like(bn_rm)
        scale = bn_w * _C.rsqrt(bn_rv + bn_eps)
        shape = [1] * conv_w.ndim
        shape[1 if transpose else 0] = -1
        w = conv_w * scale.reshape(shape)
        b = (conv_b - bn_rm) * scale + bn_b
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_w.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` computing ``bn(conv(x))`` of the evaluation-mode pair."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` computing ``bn(linear(x))`` of the evaluation-mode pair."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
