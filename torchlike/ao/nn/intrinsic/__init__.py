"""Fused float modules (torch.ao.nn.intrinsic): a sequence that convert
turns into one quantized module (conv + relu, linear + relu ...)."""
from ....nn.modules.container import Sequential
from ....nn.modules.conv import Conv1d, Conv2d, Conv3d
from ....nn.modules.linear import Linear
from ....nn.modules.activation import ReLU, LeakyReLU, Tanh
from ....nn.modules.batchnorm import BatchNorm2d, BatchNorm3d

__all__ = ["_FusedModule", "ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU",
           "BNReLU2d", "BNReLU3d", "LinearLeakyReLU", "LinearTanh", "ConvAdd2d",
           "ConvAddReLU2d"]


class _FusedModule(Sequential):
    """A Sequential that prepare observes as one module (its output only)."""


def _fused(name, first, second, doc):
    def __init__(self, a, b):
        if type(a) is not first or type(b) is not second:
            raise AssertionError(f"Incorrect types for input modules{type(a)}{type(b)}")
        _FusedModule.__init__(self, a, b)
    cls = type(name, (_FusedModule,), {"__init__": __init__, "__doc__": doc,
                                       "_FLOAT_MODULE": first})
    cls.__module__ = __name__
    return cls


ConvReLU1d = _fused("ConvReLU1d", Conv1d, ReLU, "Conv1d then ReLU, as one module.")
ConvReLU2d = _fused("ConvReLU2d", Conv2d, ReLU, "Conv2d then ReLU, as one module.")
ConvReLU3d = _fused("ConvReLU3d", Conv3d, ReLU, "Conv3d then ReLU, as one module.")
LinearReLU = _fused("LinearReLU", Linear, ReLU, "Linear then ReLU, as one module.")
BNReLU2d = _fused("BNReLU2d", BatchNorm2d, ReLU, "BatchNorm2d then ReLU, as one module.")
BNReLU3d = _fused("BNReLU3d", BatchNorm3d, ReLU, "BatchNorm3d then ReLU, as one module.")
LinearLeakyReLU = _fused("LinearLeakyReLU", Linear, LeakyReLU,
                         "Linear then LeakyReLU, as one module (onednn's pattern).")
LinearTanh = _fused("LinearTanh", Linear, Tanh, "Linear then Tanh, as one module.")


class ConvAdd2d(_FusedModule):
    """add(conv(x1), x2), as one module (onednn's pattern); ``add`` is the
    function (torch.add)."""

    def __init__(self, conv, add):
        super().__init__(conv)
        self.add = add

    def forward(self, x1, x2):
        return self.add(self[0](x1), x2)


class ConvAddReLU2d(_FusedModule):
    """relu(add(conv(x1), x2)), as one module."""

    def __init__(self, conv, add, relu):
        super().__init__(conv)
        self.add, self.relu = add, relu

    def forward(self, x1, x2):
        return self.relu(self.add(self[0](x1), x2))


from . import quantized  # noqa: E402,F401  (torch.ao.nn.intrinsic.quantized)
