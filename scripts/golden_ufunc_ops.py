"""Record PyTorch's results for gcd, lcm, heaviside, sinc, ldexp and frexp at
their edges (sign conventions, integer extremes, zeros, infinities, NaN,
subnormals, dtypes, refusals), and for float16/bfloat16 tensors with a Python
scalar on either side (the scalar rounded to the half dtype first, except
where PyTorch's kernel reads its full value: x * s, x / s, x // s), into
tests/golden/ufunc_ops.json.  Run with an
interpreter that has PyTorch:

    python scripts/golden_ufunc_ops.py

Each call is an expression over `torch`; tests/test_ufunc_ops.py evaluates it
with torchlike in its place and compares describe() of both.  Left out, as
torchlike follows NumPy there (docs/elementwise.md): gcd(INT_MIN, even x != 0)
(PyTorch's signed Euclid gives the gcd negated) and heaviside(NaN, v) (PyTorch
gives 0, NumPy NaN).
"""
import json
import math
import pathlib

I64_MIN, I64_MAX = -2**63, 2**63 - 1
FLOATS = "[0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-30, -7.0, 1e30, float('inf'), float('-inf')]"
CALLS = [
    f"torch.gcd(torch.tensor([{I64_MIN}, {I64_MIN}, {I64_MIN}, 0, -4, 4, -12, 18, {I64_MAX}, 7]), "
    f"torch.tensor([0, {I64_MIN}, 1, 0, -6, 0, 0, -12, {I64_MAX}, -1]))",
    f"torch.lcm(torch.tensor([{I64_MIN}, {I64_MIN}, {I64_MIN}, 0, -4, 4, -3, 3, {I64_MAX}, -7]), "
    f"torch.tensor([0, 6, {I64_MIN}, 0, -6, 0, -4, -4, 2, -1]))",
]
for dtype in ("int8", "int16", "int32", "uint8"):
    lo = {"int8": -128, "int16": -32768, "int32": -2**31, "uint8": 255}[dtype]
    CALLS += [f"torch.gcd(torch.tensor([{lo}, {lo}, 100, -12, 9, 0], dtype=torch.{dtype}), "
              f"torch.tensor([0, {lo}, 15, 8, -3 if {lo} < 0 else 3, 0], dtype=torch.{dtype}))",
              f"torch.lcm(torch.tensor([{lo}, {lo}, 100, -12, 9, 0, 120], dtype=torch.{dtype}), "
              f"torch.tensor([0, 3, 3, 8, 6, 5, 7], dtype=torch.{dtype}))"]
CALLS += [
    "torch.gcd(torch.tensor([[12], [18]], dtype=torch.int16), torch.tensor([8, 27, -6], dtype=torch.int16))",
    "torch.gcd(torch.tensor([], dtype=torch.int32), torch.tensor([], dtype=torch.int32))",
    "torch.lcm(torch.tensor(4), torch.tensor([6, 10]))",
    "torch.gcd(torch.tensor([1.0]), torch.tensor([2.0]))",
    "torch.heaviside(torch.tensor([-1.5, -0.0, 0.0, 2.0, float('inf'), float('-inf')]), torch.tensor([0.25]))",
    "torch.heaviside(torch.tensor([-3, 0, 5], dtype=torch.int8), torch.tensor([7], dtype=torch.int8))",
    "torch.heaviside(torch.tensor([True, False]), torch.tensor([True, False]))",
    "torch.heaviside(torch.tensor([0.0, 1.0], dtype=torch.float64), torch.tensor([[2.0], [3.0]], dtype=torch.float64))",
    "torch.heaviside(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))",
    "torch.heaviside(torch.tensor([1]), torch.tensor([1.0]))",
    f"torch.sinc(torch.tensor({FLOATS}))",
    f"torch.sinc(torch.tensor({FLOATS}, dtype=torch.float64))",
    "torch.sinc(torch.tensor([0, 1, 2, -3]))",
    "torch.special.sinc(torch.tensor([0.25, -0.5, 100.5], dtype=torch.float64))",
    "torch.sinc(torch.tensor([0j, 1 + 1j, -0.5j], dtype=torch.complex128))",
    "torch.ldexp(torch.tensor([1.0, 5e-324, 1.0, 3.0, -2.0], dtype=torch.float64), torch.tensor([1100, 1074, -1075, -1, 3]))",
    "torch.ldexp(torch.tensor([1.0, 1.5]), torch.tensor([0.5, -1.5], dtype=torch.float64))",
    "torch.ldexp(torch.tensor([1, 2]), torch.tensor([3, 4]))",
    "torch.ldexp(torch.tensor([1.0, 3.0], dtype=torch.float16), torch.tensor([3, 20]))",
    "torch.ldexp(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([3.0, 4.0], dtype=torch.float16))",
    "torch.ldexp(torch.tensor([1.0], dtype=torch.bfloat16), torch.tensor([2.0], dtype=torch.float16))",
    f"torch.frexp(torch.tensor({FLOATS} + [float('nan'), 1e-45, 3.4e38]))",
    f"torch.frexp(torch.tensor({FLOATS} + [5e-324, 1.7976931348623157e308], dtype=torch.float64))",
    "torch.frexp(torch.tensor([1.0, 6.0, -0.0, 6e-8], dtype=torch.float16))",
    "torch.frexp(torch.tensor([1.0, 6.0], dtype=torch.bfloat16))",
    "torch.frexp(torch.tensor([1, 2]))",
    "torch.frexp(torch.tensor([1.0, 2.0]), out=(torch.empty(2), torch.empty(2, dtype=torch.int64)))",
    "torch.frexp(torch.tensor([1.0, 2.0]), out=(torch.empty(2, dtype=torch.float64), torch.empty(2, dtype=torch.int32)))",
    "torch.frexp(torch.tensor([3.0, -0.75]), out=(torch.empty(2), torch.empty(2, dtype=torch.int32)))",
]

# A float16/bfloat16 tensor with a Python scalar: values where rounding the
# scalar to the half dtype first changes the answer (2.77 is 2.7695 in
# float16; 70000.0 is inf there), on both sides of each op that takes it.
# Left out, as torchlike differs on purpose (docs/elementwise.md): s / x
# (PyTorch multiplies s by x's reciprocal, torchlike divides), alpha= (its
# product with the scalar is rounded to the half dtype or not, by the
# element's place in PyTorch's vector loop), x ** n (PyTorch refuses an
# exponent past float16's range, and cubes bfloat16 by rounded products), and
# a zero remainder (its sign is the divisor's, as NumPy's).
HALF = "[4.58203125, -4.25, 3.072265625, 1.0, -0.7, 1000.0]"
for dtype in ("float16", "bfloat16"):
    x = f"torch.tensor({HALF}, dtype=torch.{dtype})"
    for s in ("2.77", "1e-4", "70000.0", "3", "100001"):
        CALLS += [f"{x} + {s}", f"{s} + {x}", f"{x} - {s}", f"{s} - {x}", f"{x} * {s}",
                  f"{s} * {x}", f"torch.mul({s}, {x})", f"{x} / {s}", f"{x} // {s}",
                  f"{s} // {x}", f"{x} % {s}", f"{s} % {x}", f"torch.fmod({x}, {s})",
                  f"torch.remainder({s}, {x})", f"torch.div({x}, {s}, rounding_mode='trunc')",
                  f"torch.copysign({x}, -{s})", f"{x} < {s}", f"{x} == {s}", f"{s} >= {x}"]
        if "." in s and s != "70000.0":
            CALLS += [f"{x} ** {s}", f"{s} ** {x}"]
    # integers (a tensor, a 0-d tensor) meet half data rounded to it as well,
    # but a 0-d one multiplying or dividing from the right keeps its value
    ints = "torch.tensor([257, 1023, 4097, 65535, -3, 2049], dtype=torch.int32)"
    for i in (ints, "torch.tensor(257)"):
        CALLS += [f"{x} * {i}", f"{i} * {x}", f"{x} + {i}", f"{x} / {i}", f"{i} / {x}",
                  f"torch.remainder({i}, {x})", f"torch.remainder({x}, {i})", f"{x} < {i}"]

def describe(result):
    """A tensor (or a tuple of them) as dtype, shape and exact values (floats as
    repr, so -0.0, inf and nan survive), or an error as its type and message."""
    if isinstance(result, tuple):
        return [describe(r) for r in result]
    values = result.detach().reshape(-1).tolist()
    return {"dtype": str(result.dtype).split(".")[-1], "shape": list(result.shape),
            "values": [repr(v) if isinstance(v, (float, complex)) else v for v in values]}


def outcome(expr, env):
    try:
        return describe(eval(expr, env))
    except Exception as error:  # noqa: BLE001  (the refusal is the recorded outcome)
        return {"error": type(error).__name__, "message": str(error)}


def main():
    import torch
    calls = [[expr, outcome(expr, {"torch": torch, "math": math})] for expr in CALLS]
    out = pathlib.Path(__file__).resolve().parent.parent / "tests/golden/ufunc_ops.json"
    out.write_text(json.dumps({"torch": torch.__version__, "calls": calls}, indent=1) + "\n")


if __name__ == "__main__":
    main()
