"""torch.sym_int, sym_float, sym_max, sym_min, sym_not, sym_ite, sym_sum,
sym_sqrt, sym_fresh_size and sym_constrain_range(_for_size): PyTorch's
helpers for code that must run both traced (symbolic sizes) and eagerly.
Nothing here is symbolic, so they are the plain Python operations with
PyTorch's eager results: sym_max of an int and a float is a float, sym_ite
wants a bool and two values of one type, the range checks raise as
PyTorch's; what PyTorch asserts (a tensor given to sym_max) is a TypeError
with its words.  Also the old build flags (has_lapack ...), which PyTorch still
answers."""
import builtins
import math

import numpy as np

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sum",
           "sym_sqrt", "sym_fresh_size", "sym_constrain_range", "sym_constrain_range_for_size",
           "has_lapack", "has_mkl", "has_openmp", "has_spectral", "compiled_with_cxx11_abi",
           "init_num_threads"]

_NUMBERS = (np.integer, np.floating, int, float)
_INT64_MAX = 2 ** 63 - 1

has_lapack = True  # OpenBLAS's LAPACK
has_mkl = has_openmp = has_spectral = True  # as PyTorch's CPU build answers (deprecated names)


def sym_int(a):
    """int(a); a float truncated toward zero."""
    return math.trunc(a) if isinstance(a, float) else builtins.int(a)


def sym_float(a):
    return builtins.float(a)


def _number(x):
    if not isinstance(x, _NUMBERS):  # (PyTorch's assert: an AssertionError there)
        raise TypeError(f"expected {_NUMBERS}, got {type(x)}")


def _extreme(pick, a, b):
    _number(a)
    _number(b)
    result = pick(a, b)
    # either side a float: a float (sym_max(2.0, 3) is 3.0)
    return builtins.float(result) if isinstance(a, (float, np.floating)) or \
        isinstance(b, (float, np.floating)) else result


def sym_max(a, b):
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    return _extreme(builtins.min, a, b)


def sym_not(a):
    return not a


def sym_ite(b, t, f):
    """t if b else f, for a bool b and values of one type."""
    if not isinstance(b, builtins.bool):  # (PyTorch asserts: AssertionErrors there)
        raise TypeError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise TypeError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    """The sum of the numbers given, or of the one list or tuple given."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    return math.sqrt(a)


def sym_fresh_size(expr):
    return expr


def sym_constrain_range(size, min=None, max=None):
    """Checks min <= size <= max (each bound optional) for an int size."""
    _check_range(size, -_INT64_MAX - 1 if min is None else min,
                 _INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size, min=None, max=None):
    """As sym_constrain_range, the lower bound 0 unless given: a size."""
    _check_range(size, 0 if min is None else min, _INT64_MAX if max is None else max)


def _check_range(size, low, high):
    if isinstance(size, builtins.int) and not low <= size <= high:
        raise RuntimeError(f"Invalid value range for {size} between [{low}, {high}].")


def compiled_with_cxx11_abi():
    return True


def init_num_threads():
    """Nothing to start: the thread pool starts with its first parallel loop."""
    return None
