"""Record what PyTorch's __torch_function__ receives for the fixed scripts of
tests/torch_function_cases.py (a logging Tensor subclass, NotImplemented
chains, a duck type, modes), for tests/test_torch_function_golden.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_torch_function.py
writes tests/golden/torch_function.json: {case: [log, results]}."""
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import torch  # noqa: E402
from torch_function_cases import CASES  # noqa: E402


def main():
    warnings.simplefilter("ignore")
    out = {name: case(torch) for name, case in CASES.items()}
    path = os.path.join(HERE, "..", "tests", "golden", "torch_function.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
