"""torch.signal: window functions (torchlike.signal.windows)."""
from . import windows  # noqa: F401
