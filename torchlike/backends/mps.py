"""torchlike.backends.mps, as ``torch.backends.mps``: torchlike has no Metal
backend, so scripts that pick a device with ``mps.is_available()`` take
their next choice."""

__all__ = ["is_available", "is_built"]


def is_available():
    """False: no MPS device."""
    return False


def is_built():
    """False: built without MPS."""
    return False

