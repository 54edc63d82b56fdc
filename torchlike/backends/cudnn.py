"""cuDNN flags: ``enabled``, ``benchmark``, ``deterministic``, ``allow_tf32``.

They live in the extension (convolutions on CUDA read them at each call), so
setting ``torchlike.backends.cudnn.benchmark = True`` takes effect at once,
as in PyTorch; the defaults are PyTorch's."""
import contextlib
import sys
import types

from .. import _C

benchmark_limit = 10
_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def is_available():
    """Whether torchlike was built with cuDNN (convolutions on CUDA run through it)."""
    return _C._cudnn_version() is not None


def version():
    """cuDNN's version as one number (91900 for 9.19.0), None without cuDNN."""
    return _C._cudnn_version()


def _flag(i):
    def get(self):
        return _C._cudnn_flags()[i]

    def set_(self, value):
        values = list(_C._cudnn_flags())
        values[i] = bool(value)
        _C._cudnn_flags(*values)

    return property(get, set_)


class _CudnnModule(types.ModuleType):
    enabled = _flag(0)
    benchmark = _flag(1)
    deterministic = _flag(2)
    allow_tf32 = _flag(3)


sys.modules[__name__].__class__ = _CudnnModule


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the flags for the duration of a ``with`` block."""
    module = sys.modules[__name__]
    old = {n: getattr(module, n) for n in _FLAGS + ("benchmark_limit",)}
    new = dict(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
               deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        for name, value in new.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(module, name, value)
