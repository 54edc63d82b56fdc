"""torch.backends.quantized: the engine of the quantized kernels.  torchlike
computes PyTorch's x86 (fbgemm) arithmetic only (docs/quantization.md), so
the engines it accepts are "x86" and "fbgemm"; "qnnpack" and "onednn",
whose results differ, are refused rather than silently computed as x86's."""
import sys
import types

_ENGINES = ["x86", "fbgemm"]


class _QuantizedBackend(types.ModuleType):
    _engine = "x86"

    @property
    def engine(self):
        return type(self)._engine

    @engine.setter
    def engine(self, value):
        if value not in _ENGINES:
            raise RuntimeError(f"{value} is not a valid value for quantized engine (torchlike "
                               f"computes the x86 engine's arithmetic: {_ENGINES})")
        type(self)._engine = value

    @property
    def supported_engines(self):
        return list(_ENGINES)


sys.modules[__name__].__class__ = _QuantizedBackend
