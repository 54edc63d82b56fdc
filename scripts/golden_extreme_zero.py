"""Record PyTorch's answers for tests/test_extreme_zero.py: which of tied -0.0
and +0.0 its CPU max()/min()/amax()/amin()/aminmax() and max/min along a
dim return, and NaN among them, for float32, float16, bfloat16 and float64.

Run with an interpreter that has PyTorch:
    python scripts/golden_extreme_zero.py
writes tests/golden/extreme_zero.json: what tests/extreme_zero_cases.py's
``record(torch)`` returns (on two threads, which it sets)."""
from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("extreme_zero_cases", "extreme_zero")
