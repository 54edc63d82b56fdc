"""torchlike.nn: neural-network building blocks (``import torchlike.nn as nn``).

Only the functional namespace exists so far; modules, parameters and the
layer library are added as they are written."""
from . import functional  # noqa: F401
