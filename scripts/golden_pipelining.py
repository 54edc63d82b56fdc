"""Record PyTorch's pipeline parallelism (torch.distributed.pipelining, gloo,
2 and 4 CPU processes) as the golden file for tests/test_pipelining.py.

Run with a Python that has PyTorch:  python scripts/golden_pipelining.py
Writes tests/golden/pipelining.json.  The cases are in
tests/pipelining_cases.py (no PyTorch needed there)."""
import os
import sys

import torch
import torch.distributed.pipelining as pp
import torch.distributed.pipelining.microbatch as mb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "pipelining.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from pipelining_cases import (run_errors, run_inputs, run_microbatch, run_pipe,  # noqa: E402
                              run_schedules, run_zero_bubble)
from golden_ranks import run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    return {"schedules": run_schedules(torch, pp, rank, ws),
            "pipe": run_pipe(torch, pp, rank, ws),
            "errors": run_errors(torch, pp, rank, ws),
            "inputs": run_inputs(torch, pp, rank, ws),
            "zero_bubble": run_zero_bubble(torch, pp, rank, ws)}


def main():
    golden = {"2": run_ranks(_cases, 2), "4": run_ranks(_cases, 4),
              "microbatch": run_microbatch(torch, mb)}
    write_golden(OUT, golden)


if __name__ == "__main__":
    main()
