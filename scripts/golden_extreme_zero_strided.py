"""Record PyTorch's answers for tests/test_extreme_zero_strided.py: which of
tied -0.0 and +0.0 its CPU amax()/amin() (whole, along dims, keepdim),
max()/min()/aminmax() and max/min along a dim return over transposed,
permuted, stepped, offset and expanded views, for float32, float16,
bfloat16 and float64.

Run with an interpreter that has PyTorch:
    python scripts/golden_extreme_zero_strided.py
writes tests/golden/extreme_zero_strided.json: what
tests/extreme_zero_strided_cases.py's ``record(torch)`` returns (on two
threads, which it sets)."""
from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("extreme_zero_strided_cases", "extreme_zero_strided")
