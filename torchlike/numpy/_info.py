"""Data type functions and inspection: finfo, iinfo, isdtype, result_type,
can_cast and ``__array_namespace_info__`` (Array API).

The namespace's dtypes are torchlike's own dtype objects; a NumPy dtype, a
NumPy scalar type or a name is accepted wherever a dtype is expected."""
import builtins

import numpy as np

from .. import _C
from .._array_function import np_dtype, tl_dtype

Tensor = _C.Tensor

BOOL = (_C.bool,)
SIGNED = (_C.int8, _C.int16, _C.int32, _C.int64)
UNSIGNED = (_C.uint8,)
REAL_FLOATING = (_C.float16, _C.bfloat16, _C.float32, _C.float64)
COMPLEX_FLOATING = (_C.complex64, _C.complex128)
_KINDS = {
    "bool": BOOL, "signed integer": SIGNED, "unsigned integer": UNSIGNED,
    "integral": SIGNED + UNSIGNED, "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": SIGNED + UNSIGNED + REAL_FLOATING + COMPLEX_FLOATING,
}


def _as_dtype(x):
    if isinstance(x, Tensor):
        return x.dtype
    return tl_dtype(x)


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name, or a tuple of them."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"isdtype() expects a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"Unrecognized data type kind: {kind!r}")
        return dtype in _KINDS[kind]
    return dtype == _as_dtype(kind)


class finfo:
    """Machine limits of a floating-point dtype (Python floats, as the standard asks)."""

    def __init__(self, type, /):
        dtype = _as_dtype(type)
        if dtype not in REAL_FLOATING + COMPLEX_FLOATING:
            raise ValueError(f"data type {dtype} not inexact")
        info = np.finfo(np_dtype(dtype)) if dtype != _C.bfloat16 else None
        if info is None:  # bfloat16: 8 exponent bits, 7 mantissa bits
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float.fromhex("0x1.fep127")
            self.smallest_normal, self.resolution = 2.0 ** -126, 0.01
        else:
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.smallest_normal, self.resolution = float(info.smallest_normal), \
                float(info.resolution)
            if dtype.is_complex:
                self.bits = info.bits
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = dtype.to_real() if dtype.is_complex else dtype

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
                f"eps={self.eps}, smallest_normal={self.smallest_normal}, "
                f"bits={self.bits}, dtype={self.dtype.name})")


class iinfo:
    """Machine limits of an integer dtype (Python ints)."""

    def __init__(self, type, /):
        dtype = _as_dtype(type)
        if dtype not in SIGNED + UNSIGNED:
            raise ValueError(f"Invalid integer data type {dtype.name!r}.")
        info = np.iinfo(np_dtype(dtype))
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), \
            dtype

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype.name})"


def result_type(*arrays_and_dtypes):
    """Array API promotion of arrays, dtypes and (weak) Python scalars."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    strong = [a.dtype if isinstance(a, Tensor) else _as_dtype(a) for a in arrays_and_dtypes
              if not isinstance(a, (builtins.bool, int, float, complex))]
    scalars = [a for a in arrays_and_dtypes if isinstance(a, (builtins.bool, int, float,
                                                                complex))]
    if not strong:
        raise ValueError("at least one array or dtype is required")
    dtype = strong[0]
    for d in strong[1:]:
        dtype = _C.promote_types(dtype, d)
    for s in scalars:
        dtype = _C.result_type(_C.empty((0,), dtype=dtype), s)
    return dtype


def can_cast(from_, to, /, casting="safe"):
    """Whether ``from_`` (an array or dtype) casts to ``to`` under NumPy's rules."""
    if from_ is None or to is None:  # tl_dtype would read None as "no dtype given"
        raise TypeError(f"can_cast(): argument '{'from_' if from_ is None else 'to'}' must be "
                        f"an array or a dtype, not None")
    src = from_.dtype if isinstance(from_, Tensor) else _as_dtype(from_)
    dst = _as_dtype(to)
    if src == _C.bfloat16 or dst == _C.bfloat16:
        return _C.can_cast(src, dst)
    return builtins.bool(np.can_cast(np_dtype(src), np_dtype(dst), casting))


class _Info:
    """What ``__array_namespace_info__()`` returns: capabilities, devices,
    default dtypes and the dtypes of each kind."""
    __module__ = "torchlike.numpy"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        return _device("cpu")

    def devices(self):
        found = [_device("cpu")]
        from .. import cuda
        if cuda.is_available():
            found += [_device("cuda", i) for i in range(cuda.device_count())]
        return tuple(found)

    def default_dtypes(self, *, device=None):
        return {"real floating": _C.float64, "complex floating": _C.complex128,
                "integral": _C.int64, "indexing": _C.int64}

    def dtypes(self, *, device=None, kind=None):
        every = {d.name: d for d in BOOL + SIGNED + UNSIGNED + (_C.float32, _C.float64)
                 + COMPLEX_FLOATING}
        if kind is None:
            return every
        return {name: d for name, d in every.items() if isdtype(d, kind)}


def _device(*args):
    from .._device import device
    return device(*args)


def __array_namespace_info__():
    return _Info()
