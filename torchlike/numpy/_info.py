"""Data type functions and inspection: finfo, iinfo, isdtype, result_type,
can_cast and ``__array_namespace_info__`` (Array API).

The namespace's dtypes are torchlike's own dtype objects; a NumPy dtype, a
NumPy scalar type or a name is accepted wherever a dtype is expected."""
import builtins
import types

import numpy as np

from .. import _C
from .._array_function import np_dtype, tl_dtype

Tensor = _C.Tensor

BOOL = (_C.bool,)
SIGNED = (_C.int8, _C.int16, _C.int32, _C.int64)
UNSIGNED = (_C.uint8, _C.uint16, _C.uint32, _C.uint64)
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


def _info_dtype(type):
    """The dtype finfo/iinfo describe: a dtype, a tensor's, or a number's (a NumPy
    scalar's own dtype, Python ``int``/``float``/``complex`` values as NumPy reads
    them), as NumPy's finfo/iinfo take instances too."""
    if isinstance(type, np.generic):
        return tl_dtype(type.dtype)
    if isinstance(type, (builtins.bool, int, float, complex)):
        return tl_dtype(builtins.type(type))
    try:
        return _as_dtype(type)
    except TypeError:
        try:  # a NumPy dtype torchlike lacks: NumPy's ValueError where it is no
            kind = np.dtype(type).kind  # float (strings, records, objects)
        except TypeError:
            kind = None
        if kind not in (None, "f", "c", "i", "u"):
            return np.dtype(type)  # refused by the caller with NumPy's ValueError
        raise


# bfloat16, which NumPy lacks: 8 exponent bits, 7 stored mantissa bits (the
# values of ml_dtypes' finfo, NumPy's bfloat16: its resolution is 0.01 rounded
# to bfloat16, as float16's is 0.001 rounded to float16)
_BFLOAT16 = dict(bits=16, eps=2.0 ** -7, epsneg=2.0 ** -8, machep=-7, negep=-8,
                 minexp=-126, maxexp=128, nexp=8, nmant=7, iexp=8, precision=2,
                 resolution=float.fromhex("0x1.48p-7"), max=float.fromhex("0x1.fep127"),
                 smallest_normal=2.0 ** -126, smallest_subnormal=2.0 ** -133)


class finfo:
    """Machine limits of a floating-point dtype, with NumPy's attributes (``eps
    epsneg max min tiny smallest_normal smallest_subnormal resolution bits
    precision machep negep minexp maxexp nexp nmant iexp dtype``).  The float
    values are Python floats, as the Array API standard asks; one instance per
    dtype, as NumPy keeps.  A complex dtype describes its real part."""
    _cache = {}

    def __new__(cls, type, /):
        dtype = _info_dtype(type)
        if dtype not in REAL_FLOATING + COMPLEX_FLOATING:
            raise ValueError(f"data type {dtype} not inexact")
        real = dtype.to_real() if dtype.is_complex else dtype
        self = cls._cache.get(real)
        if self is None:
            self = cls._cache[real] = super().__new__(cls)
            self._fill(real)
        return self

    def _fill(self, dtype):
        if dtype == _C.bfloat16:
            values = dict(_BFLOAT16)
        else:
            info = np.finfo(np_dtype(dtype))
            values = {name: getattr(info, name) for name in _BFLOAT16}
            for name, value in values.items():
                values[name] = int(value) if isinstance(value, (int, np.integer)) \
                    else float(value)
        self.__dict__.update(values)
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = dtype

    def __repr__(self):
        if self.dtype != _C.bfloat16:
            return repr(np.finfo(np_dtype(self.dtype)))
        # NumPy's finfo of ml_dtypes' bfloat16: a dtype without NumPy's
        # format prints its values as the scalars print (C++'s 6 digits)
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, "
                f"max={self.max:g}, dtype=bfloat16)")

    def __str__(self):
        if self.dtype != _C.bfloat16:
            return str(np.finfo(np_dtype(self.dtype)))
        # NumPy's layout (numpy/_core/getlimits.py), the values as above
        return ("Machine parameters for bfloat16\n"
                "---------------------------------------------------------------\n"
                f"precision = {self.precision}   resolution = {self.resolution:g}\n"
                f"machep = {self.machep}   eps =        {self.eps:g}\n"
                f"negep =  {self.negep}   epsneg =     {self.epsneg:g}\n"
                f"minexp = {self.minexp}   tiny =       {self.tiny:g}\n"
                f"maxexp = {self.maxexp}   max =        {self.max:g}\n"
                f"nexp =   {self.nexp}   min =        -max\n"
                f"smallest_normal = {self.smallest_normal:g}   "
                f"smallest_subnormal = {self.smallest_subnormal:g}\n"
                "---------------------------------------------------------------\n")

    __class_getitem__ = classmethod(types.GenericAlias)


class iinfo:
    """Machine limits of an integer dtype (Python ints), one instance per dtype."""
    _cache = {}

    def __new__(cls, type, /):
        dtype = _info_dtype(type)
        if dtype not in SIGNED + UNSIGNED:
            raise ValueError(f"Invalid integer data type {getattr(dtype, 'kind', dtype)!r}.")
        self = cls._cache.get(dtype)
        if self is None:
            info = np.iinfo(np_dtype(dtype))
            self = cls._cache[dtype] = super().__new__(cls)
            self.bits, self.min, self.max, self.dtype = \
                info.bits, int(info.min), int(info.max), dtype
            self.kind, self.key = info.kind, info.key
        return self

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"

    def __str__(self):
        return str(np.iinfo(np_dtype(self.dtype)))

    __class_getitem__ = classmethod(types.GenericAlias)


def result_type(*arrays_and_dtypes):
    """Array API promotion of arrays, dtypes and (weak) Python scalars."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    strong = [a.dtype if isinstance(a, Tensor) else _as_dtype(a) for a in arrays_and_dtypes
              if not isinstance(a, (builtins.bool, int, float, complex))]
    scalars = [a for a in arrays_and_dtypes if isinstance(a, (builtins.bool, int, float,
                                                                complex))]
    if not strong:  # Python numbers alone: NumPy's answer for them (3.0 with -2 is float64)
        return _as_dtype(np.result_type(*scalars))
    dtype = strong[0]
    for d in strong[1:]:
        dtype = _C.promote_types(dtype, d)
    for s in scalars:
        # NumPy's weak scalars count by kind, never by value: result_type(uint8, 300)
        # is uint8, so a zero of the scalar's kind stands in for it
        zero = (False if isinstance(s, builtins.bool) else 0 if isinstance(s, int)
                else 0.0 if isinstance(s, float) else 0j)
        dtype = _C.result_type(_C.empty((0,), dtype=dtype), zero)
    return dtype


def can_cast(from_, to, casting="safe"):
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
