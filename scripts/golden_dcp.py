"""Record PyTorch's distributed checkpoint and its state_dict helpers
(gloo, 2 processes, on CPU) as the golden file for
tests/test_distributed_checkpoint.py.

Run with a Python that has PyTorch:  python scripts/golden_dcp.py
Writes tests/golden/dcp.json.  The cases are in tests/dcp_cases.py (no
PyTorch needed there)."""
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "dcp.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from dcp_cases import errors, run_all  # noqa: E402
from golden_ranks import run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    import torch.distributed.checkpoint as dcp
    import torch.distributed.checkpoint.state_dict as sdmod
    # the ranks share one directory: named after the parent that spawned them
    ckpt = os.path.join(tempfile.gettempdir(), f"golden_dcp_{os.getppid()}")
    return run_all(torch, dcp, sdmod, rank, {"device_id": torch.device("cpu")}, ckpt)


def main():
    import torch.distributed.checkpoint as dcp
    per_rank = run_ranks(_cases, 2)
    with tempfile.TemporaryDirectory() as d:
        errs = errors(torch, dcp, d)
    golden = {"ranks": per_rank, "errors": errs}
    write_golden(OUT, golden)


if __name__ == "__main__":
    main()
