"""Record PyTorch's answers about views and their base (_base, _is_view, and
in-place writes through views under autograd) as tests/golden/view_base.json
for tests/test_view_base.py.

Run with a Python that has PyTorch:  python scripts/golden_view_base.py
The cases are defined in tests/view_base_cases.py (no PyTorch needed there)."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "view_base.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from view_base_cases import facts_of  # noqa: E402


def main():
    facts = facts_of(torch)
    facts["torch_version"] = torch.__version__
    with open(OUT, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
