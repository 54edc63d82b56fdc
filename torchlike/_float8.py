"""``torch._scaled_mm``: the product of two float8 matrices with scales, as
PyTorch computes it on the CPU (docs/dtypes.md).

The matrices are widened to float32 (exactly), multiplied, scaled by
scale_a * scale_b (one value each, or a column of rows' scales and a row of
columns' scales), biased, and converted to out_dtype.  A float8 result does
not saturate as ``.to()`` does: past the format's largest value it is NaN
(of the value's sign) for e4m3fn, inf for e5m2.  scale_result and use_fast_accum change nothing
on PyTorch's CPU, nor here."""
import math

from . import _C

_INPUTS = (_C.float8_e4m3fn, _C.float8_e5m2)
_OUTPUTS = (_C.float32, _C.float16, _C.bfloat16, _C.float8_e4m3fn, _C.float8_e5m2)
# e4m3fn's largest value, 448, is 1.75 * 2^8: a float above 464 (the tie
# with the next step, which goes to the even 448) rounds past it.
_E4M3FN_TOP = 464.0


def _scalar_type(dtype):
    from ._dtype_names import scalar_type_name
    return scalar_type_name(dtype)


def _check(self, mat2, scale_a, scale_b, bias, out_dtype):
    for name, t in (("self", self), ("mat2", mat2)):
        if t.dim() != 2:
            raise RuntimeError(f"_scaled_mm: {name} must be a matrix, got {t.dim()}-D tensor")
    float8 = [t.dtype in _INPUTS for t in (self, mat2)]
    if float8 == [True, False] or float8 == [False, True]:  # PyTorch finds no scaling recipe
        raise ValueError("Invalid scaling configuration.\n- For TensorWise scaling, a and b "
                         "should be float8")
    for name, t in (("mat1", self), ("mat2", mat2)):
        if t.dtype not in _INPUTS:
            raise RuntimeError(f"Expected {name} to be Float8 matrix got "
                               f"{_scalar_type(t.dtype)} (the CPU takes float8_e4m3fn and "
                               f"float8_e5m2)")
    m, k = self.shape
    k2, n = mat2.shape
    if k != k2:
        raise RuntimeError(f"_scaled_mm: mat1 and mat2 shapes cannot be multiplied "
                           f"({m}x{k} and {k2}x{n})")
    tensorwise = scale_a.numel() == 1 and scale_b.numel() == 1
    rowwise = tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n)
    if not (tensorwise or rowwise):
        raise ValueError("Invalid scaling configuration.")
    if bias is not None and bias.numel() != n:
        raise RuntimeError(f"Bias must be size {n} but got {bias.numel()}")
    if out_dtype not in _OUTPUTS:
        raise RuntimeError(f"_scaled_mm: out_dtype must be float32, float16, bfloat16, "
                           f"float8_e4m3fn or float8_e5m2, got {_scalar_type(out_dtype)}")


def _scaled_mm(self, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
               use_fast_accum=False):
    """``(self @ mat2) * scale_a * scale_b + bias`` as out_dtype (self's dtype
    by default).  self: (M, K) and mat2: (K, N), float8_e4m3fn or float8_e5m2;
    scale_a, scale_b: one value each, or (M, 1) and (1, N); bias: (N,)."""
    out_dtype = self.dtype if out_dtype is None else out_dtype
    _check(self, mat2, scale_a, scale_b, bias, out_dtype)
    acc = _C.matmul(self.float(), mat2.float()) * (scale_a.float() * scale_b.float())
    if bias is not None:
        acc = acc + bias.float()
    if out_dtype == _C.float8_e4m3fn:  # no saturation: past 448 is NaN, of acc's sign
        nan = _C.copysign(_C.full_like(acc, math.nan), acc)
        acc = _C.where(acc.abs() > _E4M3FN_TOP, nan, acc)
    return acc.to(out_dtype)
