"""torchlike.scipy.special: the functions of torchlike.numpy.special, re-exported
(one implementation serves scipy.special's default mode, its array-API mode and
this namespace)."""
from ..numpy import special as _special

__all__ = [n for n in dir(_special) if not n.startswith("_") and n not in ("math", "np")
           and callable(getattr(_special, n))]
globals().update({n: getattr(_special, n) for n in __all__})
