"""PyTorch's names of the dtypes, as its messages and legacy type names print
them: the ScalarType names ("Float", "Long", "UInt16") and the C++ type names
("float", "long int", "short unsigned int")."""
from . import _C

# (ScalarType name, dtype), in PyTorch's order
SCALAR_NAMES = [("Float", _C.float32), ("Double", _C.float64), ("Half", _C.float16),
                ("BFloat16", _C.bfloat16), ("Byte", _C.uint8), ("Char", _C.int8),
                ("Short", _C.int16), ("Int", _C.int32), ("Long", _C.int64), ("Bool", _C.bool),
                ("ComplexFloat", _C.complex64), ("ComplexDouble", _C.complex128),
                ("UInt16", _C.uint16), ("UInt32", _C.uint32), ("UInt64", _C.uint64),
                ("Float8_e5m2", _C.float8_e5m2), ("Float8_e4m3fn", _C.float8_e4m3fn),
                ("Float8_e5m2fnuz", _C.float8_e5m2fnuz),
                ("Float8_e4m3fnuz", _C.float8_e4m3fnuz), ("Float8_e8m0fnu", _C.float8_e8m0fnu)]
_SCALAR_OF = {dtype: name for name, dtype in SCALAR_NAMES}

# dtype name -> the C++ type's name
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "uint16": "short unsigned int", "uint32": "unsigned int",
             "uint64": "long unsigned int", "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>",
             **{f"float8_{k}": f"c10::Float8_{k}" for k in ("e4m3fn", "e5m2", "e4m3fnuz",
                                                            "e5m2fnuz", "e8m0fnu")}}


def scalar_type_name(dtype):
    """'Float', 'Long' ... for a dtype; anything else as str() prints it."""
    return _SCALAR_OF.get(dtype, str(dtype)) if isinstance(dtype, _C.dtype) else str(dtype)


def cpp_name(dtype):
    """'float', 'long int' ... for a dtype."""
    return CPP_NAMES[dtype.name]
