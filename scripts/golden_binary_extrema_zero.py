"""Record PyTorch's answers for tests/test_binary_extrema_zero.py: which of
tied -0.0 and +0.0 (and NaN) torch.maximum/minimum/fmax/fmin return, for
float32 and float64, contiguous, strided and broadcast, tails and long runs.

Run with an interpreter that has PyTorch:
    python scripts/golden_binary_extrema_zero.py
writes tests/golden/binary_extrema_zero.json: what
tests/binary_extrema_zero_cases.py's ``record(torch)`` returns."""
from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("binary_extrema_zero_cases", "binary_extrema_zero")
