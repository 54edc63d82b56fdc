"""oneDNN (MKL-DNN) flags; torchlike does not use oneDNN."""
import contextlib

enabled = True
deterministic = False


def is_available():
    return False


@contextlib.contextmanager
def flags(enabled=False, deterministic=False):
    g = globals()
    old = (g["enabled"], g["deterministic"])
    g["enabled"], g["deterministic"] = enabled, deterministic
    try:
        yield
    finally:
        g["enabled"], g["deterministic"] = old
