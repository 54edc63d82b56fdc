"""cuDNN flags: ``enabled``, ``benchmark``, ``deterministic``, ``allow_tf32``."""
import contextlib

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    """Whether torchlike was built with cuDNN (not yet)."""
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the flags for the duration of a ``with`` block."""
    g = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    old = {n: g[n] for n in names}
    g.update(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
             deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        yield
    finally:
        g.update(old)
