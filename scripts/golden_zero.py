"""Record PyTorch's ZeroRedundancyOptimizer, Join (with DDP and ZeRO on
uneven inputs), distributed.nn.functional and the smaller c10d functions
(gloo, 2 processes) as the golden file for tests/test_distributed_zero.py.

Run with a Python that has PyTorch:  python scripts/golden_zero.py
Writes tests/golden/zero.json.  The cases are in tests/zero_cases.py (no
PyTorch needed there)."""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "zero.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from golden_ranks import run_ranks, write_golden  # noqa: E402
from zero_cases import all_cases, api_cases  # noqa: E402


def _cases(rank, ws):
    return all_cases(torch, rank, ws)


def main():
    per_rank = run_ranks(_cases, 2)
    golden = {"api": api_cases(torch), "ranks": per_rank}
    write_golden(OUT, golden, indent=1)


if __name__ == "__main__":
    main()
