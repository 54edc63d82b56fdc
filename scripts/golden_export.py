"""Record PyTorch's torch.export answers for tests/test_export.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_export.py
writes tests/golden/export.json: what tests/export_cases.py's
``record(torch)`` returns - per model the graph signature (kinds,
placeholder names, targets, persistence), output kinds, state_dict and
constants keys, range constraints and the start of ``str(ep)``; the
exception class and message of each error case."""
import json
import os
import sys

import torch
import torch.export  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import export_cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "golden", "export.json")


def main():
    torch.manual_seed(0)
    data = export_cases.record(torch)
    data["torch_version"] = torch.__version__
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
