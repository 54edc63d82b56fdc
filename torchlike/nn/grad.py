"""torch.nn.grad: the gradients of a convolution with respect to its input
and its weight, given the gradient of its output (what conv's backward
computes), as functions.  Each runs the convolution's own backward on a
stand-in of the given size: a convolution is linear in the argument asked
for, so the stand-in's values do not matter."""
from .. import _C
from ..autograd import grad as _grad
from ..autograd.grad_mode import enable_grad
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _backward(conv, input, weight, grad_output, wrt, stride, padding, dilation, groups):
    with enable_grad():
        y = conv(input, weight, None, stride, padding, dilation, groups)
        if grad_output.ndim != y.ndim or tuple(y.shape) != tuple(grad_output.shape):
            d = next((d for d in range(y.ndim) if d >= grad_output.ndim or
                      grad_output.shape[d] != y.shape[d]), 0)
            got = grad_output.shape[d] if d < grad_output.ndim else None
            raise RuntimeError(f"Expected a tensor of dimension {y.ndim} and tensor.size[{d}] == "
                               f"{y.shape[d]} but got: dimension {grad_output.ndim} and "
                               f"tensor.size[{d}] = {got}")
        create = input.requires_grad or weight.requires_grad or grad_output.requires_grad
        (g,) = _grad(y, wrt, grad_output, create_graph=create)
    return g


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = _C.zeros(*input_size, dtype=weight.dtype, device=weight.device, requires_grad=True)
    return _backward(conv, x, weight, grad_output, x, stride, padding, dilation, groups)


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = _C.zeros(*weight_size, dtype=input.dtype, device=input.device, requires_grad=True)
    return _backward(conv, input, w, grad_output, w, stride, padding, dilation, groups)


def _input_fn(dims):
    conv = getattr(F, f"conv{dims}d")

    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation,
                           groups)
    conv_input.__name__ = conv_input.__qualname__ = f"conv{dims}d_input"
    conv_input.__doc__ = f"The gradient of conv{dims}d with respect to an input of shape input_size."
    return conv_input


def _weight_fn(dims):
    conv = getattr(F, f"conv{dims}d")

    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation,
                            groups)
    conv_weight.__name__ = conv_weight.__qualname__ = f"conv{dims}d_weight"
    conv_weight.__doc__ = f"The gradient of conv{dims}d with respect to a weight of shape weight_size."
    return conv_weight


conv1d_input, conv2d_input, conv3d_input = (_input_fn(d) for d in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_weight_fn(d) for d in (1, 2, 3))
