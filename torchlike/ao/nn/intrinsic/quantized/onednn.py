"""The quantized fused modules of PyTorch's onednn patterns (linear +
leaky_relu / tanh, conv + add (+ relu)).  On the x86 engine, the only one
torchlike computes, PyTorch has no kernel for them: they build, convert and
save as PyTorch's do, and their forward raises PyTorch's RuntimeError."""
from ..... import backends
from ...quantized.modules import Linear, Conv2d


def _no_engine(op, sep):
    raise RuntimeError(f"Didn't find engine for operation {op}{sep}"
                       f"{backends.quantized.engine.upper()}")


class LinearLeakyReLU(Linear):
    def __init__(self, in_features, out_features, negative_slope, bias=True, dtype=None):
        super().__init__(in_features, out_features, bias)
        self.negative_slope = negative_slope

    def forward(self, x):
        _no_engine("quantized::linear_leaky_relu", " ")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        out = super().from_float.__func__(cls, mod)
        out.negative_slope = mod[1].negative_slope
        return out


class LinearTanh(Linear):
    def forward(self, x):
        _no_engine("quantized::linear_tanh", " ")


class ConvAdd2d(Conv2d):
    def forward(self, input, extra_input):
        _no_engine("quantized::conv2d_add", ".")


class ConvAddReLU2d(Conv2d):
    def forward(self, input, extra_input):
        _no_engine("quantized::conv2d_add", ".")
