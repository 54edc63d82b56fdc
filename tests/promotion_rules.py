"""Type promotion as documented, written out independently of the C code.

Tensor with tensor: the Array API table within a kind (bool < unsigned <
signed < float < complex), an unsigned type with a signed one needs one
more bit (uint8 + int8 -> int16, uint32 + int32 -> int64, uint64 + int64 ->
float64, as NumPy); across kinds the higher kind wins and keeps its own
dtype (int32 + float16 -> float16), as in PyTorch; float16 with bfloat16
meets at float32; float with complex gives the complex of the larger
precision.

Tensor with a Python scalar (NEP 50, PyTorch): the scalar is weak.  It takes
the tensor's dtype when its kind is not higher (int8 tensor + 1 -> int8,
uint8 counts as an integer kind), otherwise the default dtype of its kind:
int -> int64, float -> the default float (float32), complex -> the complex of
the tensor's float precision (complex64 for non-float tensors)."""

BOOL = ["bool"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
SINTS = ["int8", "int16", "int32", "int64"]
INTS = UINTS + SINTS
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEXES = ["complex64", "complex128"]
ALL = BOOL + INTS + FLOATS + COMPLEXES

DEFAULT_FLOAT = "float32"


def kind(d):
    if d == "bool":
        return 0
    if d in INTS:
        return 1
    if d in FLOATS:
        return 2
    return 3


def _bits(d):
    return int(d.lstrip("uint"))


def _int_promote(a, b):
    """Same signedness: the wider.  Unsigned with signed: the narrowest signed
    type holding both (one more bit than the unsigned one has), float64 when
    the unsigned one is uint64 (NumPy's table; PyTorch refuses the wide
    unsigned types)."""
    if a == b:
        return a
    if (a in UINTS) == (b in UINTS):
        return max(a, b, key=_bits)
    u, s = (a, b) if a in UINTS else (b, a)
    need = max(_bits(s), 2 * _bits(u))
    return f"int{need}" if need <= 64 else "float64"


def promote(a, b):
    """Result dtype of tensor(a) op tensor(b) for arithmetic ops."""
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka >= 2 and kb >= 2 and ka != kb:  # float with complex: the larger precision
        return "complex128" if "float64" in (a, b) or "complex128" in (a, b) else "complex64"
    if ka != kb:
        return a if ka > kb else b
    if ka == 1:
        return _int_promote(a, b)
    if ka == 2:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=FLOATS.index)
    return "complex128" if "complex128" in (a, b) else "complex64"


def float_to_complex(d):
    return "complex128" if d == "float64" else "complex64"


def promote_weak(t, scalar):
    """tensor of dtype t op Python scalar of type `scalar` (bool/int/float/complex)."""
    k = {bool: 0, int: 1, float: 2, complex: 3}[scalar]
    if k <= kind(t):
        return t
    if k == 1:
        return "int64"
    if k == 2:
        return DEFAULT_FLOAT
    if kind(t) == 2:
        return float_to_complex(t)
    return "complex64"


def promote_float(p):
    """Result of ops that always return floating values (div, exp ...)."""
    return DEFAULT_FLOAT if kind(p) <= 1 else p
