"""NumPy's type vocabulary over torchlike's dtypes: the abstract scalar type
hierarchy (``np.floating`` ...), ``np.dtype``, ``np.issubdtype`` and the
tables NumPy code reads (``typecodes``, ``ScalarType``, ``sctypeDict``).

The namespace's concrete types are torchlike dtype objects (``np.float32 is
torchlike.float32``); their ``.type`` is NumPy's scalar type, so the abstract
classes are NumPy's own (``issubclass(x.dtype.type, np.floating)`` is plain
Python).  bfloat16, which NumPy lacks, answers as a floating type of its own.
Only the 15 dtypes torchlike has appear here: longdouble, datetime, str,
bytes and object types are not provided."""
import types

import numpy as np

from .. import _C
from .._array_function import tl_dtype

# The abstract scalar types: NumPy's classes, so ndarrays' dtypes, NumPy's
# scalars and torchlike dtypes are tested against one hierarchy.
generic, number, integer, signedinteger, unsignedinteger = \
    np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger
inexact, floating, complexfloating = np.inexact, np.floating, np.complexfloating
flexible, character = np.flexible, np.character  # no torchlike dtype is one of these

little_endian = np.little_endian


class _bfloat16_type(np.floating):
    """The scalar type bfloat16 stands for in ``issubdtype``: a floating type
    that is no NumPy type (torchlike.bfloat16.type is float32, the type its
    values come back as)."""


def _scalar_type(x):
    """NumPy's reading of an ``issubdtype`` argument: a scalar type as it is,
    anything else through ``np.dtype(x).type`` (torchlike dtypes included)."""
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    if x is _C.bfloat16 or (isinstance(x, str) and x == "bfloat16"):
        return _bfloat16_type
    if isinstance(x, _C.dtype):
        return x.type
    return np.dtype(x).type


def issubdtype(arg1, arg2):
    """Whether ``arg1`` is a subtype of ``arg2`` in NumPy's hierarchy
    (``np.issubdtype(x.dtype, np.floating)``); each argument a dtype, a type,
    or a name."""
    return issubclass(_scalar_type(arg1), _scalar_type(arg2))


class _DtypeMeta(type):
    """``isinstance(x.dtype, np.dtype)`` holds for torchlike's and NumPy's dtypes."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, (_C.dtype, np.dtype))

    def __subclasscheck__(cls, sub):
        return issubclass(sub, (_C.dtype, np.dtype))


class dtype(metaclass=_DtypeMeta):
    """``np.dtype(obj)``: the torchlike dtype NumPy's ``np.dtype(obj)`` names
    (``np.dtype("float32") is np.float32``); a TypeError, as NumPy's, for what
    is no dtype, and for the NumPy dtypes torchlike does not have."""

    def __new__(cls, obj=None, align=False, copy=False, metadata=None):
        if obj is None:
            return _C.float64  # NumPy's default
        if isinstance(obj, _C.Tensor):
            raise TypeError("Cannot construct a dtype from an array")
        if isinstance(obj, str) and obj == "bfloat16":
            return _C.bfloat16
        try:
            np.dtype(obj)
        except TypeError:
            raise TypeError(f"data type {obj!r} not understood") from None
        return tl_dtype(obj)

    __class_getitem__ = classmethod(types.GenericAlias)  # np.dtype[np.float64] in annotations


long = _C.int64  # NumPy 2's C long: int64 on 64-bit Linux and macOS


def _ours(code):
    """Whether NumPy's type code names a dtype torchlike has."""
    try:
        tl_dtype(code)
    except TypeError:
        return False
    return True


# NumPy's tables, limited to torchlike's dtypes (so every code in them makes one)
typecodes = {kind: "".join(c for c in codes if _ours(c)) for kind, codes in np.typecodes.items()}
sctypeDict = {name: tl_dtype(t) for name, t in np.sctypeDict.items() if _ours(t)}
sctypeDict["bfloat16"] = _C.bfloat16
ScalarType = (int, float, complex, bool) + tuple(
    t for t in np.ScalarType if isinstance(t, type) and issubclass(t, np.generic) and _ours(t))
