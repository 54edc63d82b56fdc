"""Record PyTorch's DTensor and tensor parallelism (gloo, 4 processes, on
CPU) as the golden file for tests/test_dtensor.py.

Run with a Python that has PyTorch:  python scripts/golden_dtensor.py
Writes tests/golden/dtensor.json.  The cases are in tests/dtensor_cases.py
(no PyTorch needed there)."""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "dtensor.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from dtensor_cases import WORLD, run_all  # noqa: E402
from golden_ranks import run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    import torch.distributed.tensor  # noqa: F401
    import torch.distributed.tensor.parallel  # noqa: F401
    import torch.distributed.tensor.debug  # noqa: F401
    return run_all(torch, rank)


def main():
    write_golden(OUT, {"ranks": run_ranks(_cases, WORLD), "torch": torch.__version__})


if __name__ == "__main__":
    main()
