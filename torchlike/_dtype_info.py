"""``torchlike.finfo`` and ``torchlike.iinfo``: PyTorch's machine limits of a dtype.

They differ from the NumPy namespace's ``torchlike.numpy.finfo`` (Array API)
on purpose, as PyTorch's do from NumPy's: ``dtype`` is the dtype's name (a
str), ``resolution`` is exactly ``10 ** -digits10`` (1e-06 for float32, not
float32's nearest value to it), the repr is printed with six significant
digits, the objects are read-only, compare equal (and hash alike) when their
dtypes do, and take only a torchlike dtype."""
from . import _C

_FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64, _C.float8_e4m3fn, _C.float8_e5m2,
           _C.float8_e4m3fnuz, _C.float8_e5m2fnuz, _C.float8_e8m0fnu)
_INTS = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.uint16, _C.uint32, _C.uint64)

# dtype -> (bits, eps, max, smallest normal, decimal digits always kept):
# IEEE binary16/32/64 and bfloat16 (binary32's exponent, 7 mantissa bits).
_FLOAT_LIMITS = {
    "float16": (16, 2.0 ** -10, float.fromhex("0x1.ffcp15"), 2.0 ** -14, 3),
    "bfloat16": (16, 2.0 ** -7, float.fromhex("0x1.fep127"), 2.0 ** -126, 2),
    "float32": (32, 2.0 ** -23, float.fromhex("0x1.fffffep127"), 2.0 ** -126, 6),
    "float64": (64, 2.0 ** -52, float.fromhex("0x1.fffffffffffffp1023"), 2.0 ** -1022, 15),
    # float8 (src/ndcore/tensor/tl_float8.h): no decimal digit is always kept
    "float8_e4m3fn": (8, 2.0 ** -3, 448.0, 2.0 ** -6, 0),
    "float8_e5m2": (8, 2.0 ** -2, 57344.0, 2.0 ** -14, 0),
    "float8_e4m3fnuz": (8, 2.0 ** -3, 240.0, 2.0 ** -7, 0),
    "float8_e5m2fnuz": (8, 2.0 ** -2, 57344.0, 2.0 ** -15, 0),
    "float8_e8m0fnu": (8, 1.0, 2.0 ** 127, 2.0 ** -127, 0),
}
# e8m0fnu has no sign: its lowest value is its smallest, not -max
_UNSIGNED_FLOATS = ("float8_e8m0fnu",)


def _type_name(x):
    return "torchlike.dtype" if isinstance(x, _C.dtype) else type(x).__name__


def _parse(name, args, kwargs, default_ok):
    """The dtype argument of finfo()/iinfo(), with PyTorch's errors for the rest."""
    if len(args) + len(kwargs) > 1 or (kwargs and "type" not in kwargs):
        if not default_ok:  # iinfo is a plain function of one positional-or-keyword arg
            if len(args) > 1:
                raise TypeError(f"{name}() takes 1 positional argument but {len(args)} "
                                f"were given")
            extra = next((k for k in kwargs if k != "type"), None)
            if extra is not None and args:
                raise TypeError(f"{name}() got an unexpected keyword argument '{extra}'")
            raise TypeError(f'{name}() missing 1 required positional arguments: "type"')
        got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:\n * (torchlike.dtype type)\n"
                        f" * ()\n")
    if not args and not kwargs:
        if not default_ok:
            raise TypeError(f'{name}() missing 1 required positional arguments: "type"')
        return _C.get_default_dtype()
    dtype = args[0] if args else kwargs["type"]
    if not isinstance(dtype, _C.dtype):
        where = "(position 1) " if args else ""
        raise TypeError(f"{name}(): argument 'type' {where}must be torchlike.dtype, not "
                        f"{type(dtype).__name__}")
    return dtype


class _Info:
    """Read-only attributes, equality and hash by dtype, no subclasses."""
    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        if cls.__module__ != __name__:
            raise TypeError(f"type 'torchlike.{cls.__mro__[1].__name__}' is not an acceptable "
                            f"base type")
        super().__init_subclass__(**kwargs)

    def _set(self, **values):
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        if key in type(self).__slots__:
            raise AttributeError(f"attribute '{key}' of 'torchlike.{type(self).__name__}' "
                                 f"objects is not writable")
        raise AttributeError(f"'torchlike.{type(self).__name__}' object has no attribute "
                             f"'{key}'")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self.dtype == other.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))

    def __str__(self):
        return repr(self)


class finfo(_Info):
    """``finfo(type=default dtype)``: the limits of a floating-point dtype
    (of a complex dtype's real part), as Python floats."""
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                 "dtype")

    def __init__(self, *args, **kwargs):
        dtype = _parse("finfo", args, kwargs, default_ok=True)
        if dtype.is_complex:
            dtype = dtype.to_real()
        if dtype not in _FLOATS:
            raise TypeError("torchlike.finfo() requires a floating point input type. Use "
                            "torchlike.iinfo to handle 'torchlike.finfo'")
        bits, eps, big, normal, digits = _FLOAT_LIMITS[dtype.name]
        low = normal if dtype.name in _UNSIGNED_FLOATS else -big
        self._set(bits=bits, eps=eps, max=big, min=low, tiny=normal, smallest_normal=normal,
                  resolution=10.0 ** -digits, dtype=dtype.name)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(_Info):
    """``iinfo(type)``: the limits of an integer dtype, as Python ints."""
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, *args, **kwargs):
        dtype = _parse("iinfo", args, kwargs, default_ok=False)
        if dtype == _C.bool:
            raise TypeError("torchlike.bool is not supported by torchlike.iinfo")
        if dtype not in _INTS:
            raise TypeError("torchlike.iinfo() requires an integer input type. Use "
                            "torchlike.finfo to handle 'torchlike.iinfo'")
        bits = 8 * dtype.itemsize
        signed = dtype.is_signed
        self._set(bits=bits, min=-(1 << (bits - 1)) if signed else 0,
                  max=(1 << (bits - 1 if signed else bits)) - 1, dtype=dtype.name)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "torchlike"
