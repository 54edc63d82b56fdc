"""torchlike.version, as ``torch.version``: the library's version and the
toolkits it was built with (scripts print them and branch on ``cuda``/``hip``).

``cuda`` is None in a build without CUDA; in a CUDA build it is the CUDA
runtime's version ("12.4"), asked of the runtime library (None if that
cannot be read)."""
from . import _C

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
debug = False
git_version = "Unknown"
hip = None
rocm = None
xpu = None


def _cuda_runtime_version():
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("cudart")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        v = ctypes.c_int(0)
        if lib.cudaRuntimeGetVersion(ctypes.byref(v)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return f"{v.value // 1000}.{v.value % 1000 // 10}"


cuda = _cuda_runtime_version() if _C._cuda_compiled() else None
