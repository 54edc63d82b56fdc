"""torchlike.numpy: NumPy's API and the Python Array API standard over tensors."""
from . import _creation, _manipulation, _statistical, _sorting, _linalg, _utility  # noqa: F401
