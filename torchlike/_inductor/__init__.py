"""torchlike._inductor: ``config``, the settings scripts set for PyTorch's
compiler (``torch._inductor.config.coordinate_descent_tuning = True``).
Nothing is compiled here (see torchlike.compiler), so they are kept and
read back only."""
from . import config  # noqa: F401
