"""torch.ops.quantized.{add, add_relu, mul, mul_relu, linear, linear_relu}:
the quantized operators convert_fx's graphs call (PyTorch's names and
argument orders; a packed Linear weight is a LinearPackedParamsBase
ScriptObject).  The arithmetic is torchlike.ao.nn.quantized.functional's."""
from .... import library
from ...._quantized.script_object import unpack_linear
from ...nn.quantized import functional as qF

_LIB = library.Library("quantized", "FRAGMENT")


def _qparams(scale, zero_point):
    return float(scale), int(zero_point)


# Each takes two quantized tensors and the output's scale and zero point, or
# (PyTorch's Scalar overloads) a quantized tensor and a number.
def _add(qa, qb, scale=None, zero_point=None):
    if scale is None:
        return qF.add_scalar(qa, qb)
    return qF.add(qa, qb, *_qparams(scale, zero_point))


def _add_relu(qa, qb, scale=None, zero_point=None):
    if scale is None:
        return qF.add_scalar(qa, qb, _relu=True)
    return qF.add_relu(qa, qb, *_qparams(scale, zero_point))


def _mul(qa, qb, scale=None, zero_point=None):
    if scale is None:
        return qF.mul_scalar(qa, qb)
    return qF.mul(qa, qb, *_qparams(scale, zero_point))


def _mul_relu(qa, qb, scale=None, zero_point=None):
    if scale is None:
        return qF.mul_scalar(qa, qb, _relu=True)
    # PyTorch's kernel clamps the requantized product at the zero point: a relu after mul
    return qF.mul(qa, qb, *_qparams(scale, zero_point)).relu()


def _linear(x, packed, scale, zero_point):
    weight, bias = unpack_linear(packed, "quantized::linear")
    return qF.linear(x, weight, bias, *_qparams(scale, zero_point))


def _linear_relu(x, packed, scale, zero_point):
    weight, bias = unpack_linear(packed, "quantized::linear_relu")
    return qF.linear(x, weight, bias, *_qparams(scale, zero_point), _relu=True)


for _name, _fn in (("add", _add), ("add_relu", _add_relu), ("mul", _mul),
                   ("mul_relu", _mul_relu)):
    _LIB.define(f"{_name}(Tensor qa, Any qb, Any scale=None, Any zero_point=None) "
                f"-> Tensor qc")
    _LIB.impl(_name, _fn, "CompositeImplicitAutograd")
for _name, _fn in (("linear", _linear), ("linear_relu", _linear_relu)):
    _LIB.define(f"{_name}(Tensor X, Any W_prepack, float Y_scale_i, int Y_zero_point_i) "
                f"-> Tensor Y")
    _LIB.impl(_name, _fn, "CompositeImplicitAutograd")
