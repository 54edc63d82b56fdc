"""torchlike.special: PyTorch's torch.special names for elementwise ops that
torchlike has under their plain names (each the very op object)."""
from . import _C

sinc = _C.sinc
erf, erfc, erfinv = _C.erf, _C.erfc, _C.erfinv
expit = _C.sigmoid
exp2, expm1, log1p = _C.exp2, _C.expm1, _C.log1p
i0, i0e, i1, i1e = _C.i0, _C.i0e, _C.i1, _C.i1e
digamma = psi = _C.digamma
gammaln = _C.lgamma
xlogy = _C.xlogy

__all__ = ["sinc", "erf", "erfc", "erfinv", "expit", "exp2", "expm1", "log1p", "i0", "i0e",
           "i1", "i1e", "digamma", "psi", "gammaln", "xlogy"]
