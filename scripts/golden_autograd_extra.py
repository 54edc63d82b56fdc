"""Record PyTorch's anomaly-mode messages and forward-mode AD results as golden
data for tests/test_anomaly_mode.py and tests/test_forward_ad.py.

Run with a Python that has PyTorch:  python scripts/golden_autograd_extra.py
Writes tests/golden/autograd_extra.json.  The cases are defined in
tests/autograd_extra_cases.py (no PyTorch needed there)."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import autograd_extra_cases as cases  # noqa: E402


def main():
    out = {"anomaly": {name: fn(torch) for name, fn in cases.ANOMALY_CASES.items()},
           "forward_ad": {name: fn(torch) for name, fn in cases.FORWARD_AD_CASES.items()}}
    path = os.path.join(HERE, "..", "tests", "golden", "autograd_extra.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
