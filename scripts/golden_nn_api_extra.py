"""Record PyTorch's behaviour for tests/test_nn_api_extra.py: hook-based
weight/spectral norm, gradient-norm helpers, pruning masks,
AdaptiveLogSoftmaxWithLoss, the Lazy modules, CrossMapLRN2d and the
DataParallel/SyncBatchNorm wrappers, plus the error messages of bad calls.
The cases live in tests/nn_api_extra_cases.py (no PyTorch needed there).

Run with a Python that has PyTorch:  python scripts/golden_nn_api_extra.py
Writes tests/golden/nn/api_extra.npz (arrays) and api_extra.json (facts)."""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "nn")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from nn_api_extra_cases import CASES, ERRORS  # noqa: E402


def main():
    arrays, facts = {}, {"cases": {}, "errors": {}}
    for name, fn in CASES.items():
        torch.manual_seed(0)
        a, info = fn(torch)
        for k, t in a.items():
            arrays[f"{name}.{k}"] = t.detach().numpy()
        facts["cases"][name] = info
    for name, fn in ERRORS.items():
        try:
            fn(torch)
        except Exception as e:  # noqa: BLE001 - the type is what is recorded
            facts["errors"][name] = [type(e).__name__, str(e)]
        else:
            raise SystemExit(f"{name} did not raise")
    np.savez_compressed(os.path.join(OUT, "api_extra.npz"), **arrays)
    with open(os.path.join(OUT, "api_extra.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True, default=str)
    print(f"wrote {len(arrays)} arrays, {len(facts['errors'])} errors")


if __name__ == "__main__":
    main()
