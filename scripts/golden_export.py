"""Record PyTorch's torch.export answers for tests/test_export.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_export.py
writes tests/golden/export.json: what tests/export_cases.py's
``record(torch)`` returns - per model the graph signature (kinds,
placeholder names, targets, persistence), output kinds, state_dict and
constants keys, range constraints and the start of ``str(ep)``; the
exception class and message of each error case."""
import torch.export  # noqa: F401

from golden_calls import record_cases

if __name__ == "__main__":
    record_cases("export_cases", "export")
