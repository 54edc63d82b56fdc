"""Fused float modules (torch.ao.nn.intrinsic): a sequence that convert
turns into one quantized module (conv + relu, linear + relu ...)."""
from ....nn.modules.container import Sequential
from ....nn.modules.conv import Conv1d, Conv2d
from ....nn.modules.linear import Linear
from ....nn.modules.activation import ReLU

__all__ = ["_FusedModule", "ConvReLU1d", "ConvReLU2d", "LinearReLU"]


class _FusedModule(Sequential):
    """A Sequential that prepare observes as one module (its output only)."""


def _fused(name, first, doc):
    def __init__(self, a, b):
        if type(a) is not first or type(b) is not ReLU:
            raise AssertionError(f"Incorrect types for input modules{type(a)}{type(b)}")
        _FusedModule.__init__(self, a, b)
    return type(name, (_FusedModule,), {"__init__": __init__, "__doc__": doc,
                                        "_FLOAT_MODULE": first})


ConvReLU1d = _fused("ConvReLU1d", Conv1d, "Conv1d then ReLU, as one module.")
ConvReLU2d = _fused("ConvReLU2d", Conv2d, "Conv2d then ReLU, as one module.")
LinearReLU = _fused("LinearReLU", Linear, "Linear then ReLU, as one module.")
for _cls in (ConvReLU1d, ConvReLU2d, LinearReLU):
    _cls.__module__ = __name__
from . import quantized  # noqa: E402,F401  (torch.ao.nn.intrinsic.quantized)
