"""Record PyTorch's answers for tests/test_loss_reduction_names.py: every
loss called with reduction='elementwise_mean' (mean's old name), with names
that are no reduction, and with the legacy size_average/reduce flags.

Run with an interpreter that has PyTorch:
    python scripts/golden_loss_reduction_names.py
writes tests/golden/loss_reduction_names.json: what
tests/loss_reduction_names_cases.py's ``record(torch)`` returns."""
from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("loss_reduction_names_cases", "loss_reduction_names")
