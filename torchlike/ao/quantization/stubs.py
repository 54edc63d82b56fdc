"""QuantStub, DeQuantStub and QuantWrapper: where a float model's
quantized region starts and ends (convert swaps the stubs for
nn.quantized.Quantize and DeQuantize)."""
from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]


class _Stub(Module):
    """The identity, holding the qconfig it is given."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_Stub):
    """The identity before convert; an observer chooses its scale and zero point."""


class DeQuantStub(_Stub):
    """The identity before convert; dequantizes after."""


class QuantWrapper(Module):
    """module between a QuantStub and a DeQuantStub (module's qconfig applies to both)."""

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X):
        return self.dequant(self.module(self.quant(X)))
