"""Record PyTorch's FullyShardedDataParallel (FSDP1, gloo, 2 processes, on
CPU) as the golden file for tests/test_fsdp.py.

Run with a Python that has PyTorch:  python scripts/golden_fsdp.py
Writes tests/golden/fsdp.json.  The cases are in tests/fsdp_cases.py (no
PyTorch needed there)."""
import os
import sys

import torch
import torch.distributed.fsdp as fsdp
import torch.distributed.fsdp.wrap as wrap

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "fsdp.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from fsdp_cases import no_group_error, run_all, run_fully_shard  # noqa: E402
from golden_ranks import run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    import torch.distributed as dist
    # PyTorch's FSDP1 wants an accelerator unless told to use the CPU
    out = run_all(torch, dist, fsdp, wrap, rank, {"device_id": torch.device("cpu")})
    out["fully_shard"] = run_fully_shard(torch, fsdp, rank)
    return out


def main():
    per_rank = run_ranks(_cases, 2)
    golden = {"no_group": no_group_error(torch, fsdp, {"device_id": torch.device("cpu")}),
              "ranks": per_rank}
    write_golden(OUT, golden)


if __name__ == "__main__":
    main()
