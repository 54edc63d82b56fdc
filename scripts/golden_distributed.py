"""Record PyTorch's torch.distributed behaviour (gloo, 2 processes) as the
golden file for tests/test_distributed.py.

Run with a Python that has PyTorch:  python scripts/golden_distributed.py
Writes tests/golden/distributed.json.  The cases are in
tests/distributed_cases.py (no PyTorch needed there)."""
import os
import sys

import torch
import torch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "distributed.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from distributed_cases import api_cases, collective_cases  # noqa: E402
from golden_ranks import run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    return collective_cases(torch, dist, rank, ws)


def main():
    per_rank = run_ranks(_cases, 2)
    golden = {"api": api_cases(torch, dist),
              "collectives": {str(r): out for r, out in enumerate(per_rank)}}
    write_golden(OUT, golden, indent=1)


if __name__ == "__main__":
    main()
