"""Record PyTorch's FullyShardedDataParallel (FSDP1, gloo, 2 processes, on
CPU) as the golden file for tests/test_fsdp.py.

Run with a Python that has PyTorch:  python scripts/golden_fsdp.py
Writes tests/golden/fsdp.json.  The cases are in tests/fsdp_cases.py (no
PyTorch needed there)."""
import datetime
import json
import os
import socket
import sys
import warnings

import torch
import torch.distributed as dist
import torch.distributed.fsdp as fsdp
import torch.distributed.fsdp.wrap as wrap
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "fsdp.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from fsdp_cases import no_group_error, run_all, run_fully_shard  # noqa: E402


def _worker(rank, ws, port, queue):
    warnings.simplefilter("ignore")
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=ws, timeout=datetime.timedelta(seconds=60))
    # PyTorch's FSDP1 wants an accelerator unless told to use the CPU
    out = run_all(torch, dist, fsdp, wrap, rank, {"device_id": torch.device("cpu")})
    out["fully_shard"] = run_fully_shard(torch, fsdp, rank)
    dist.barrier()
    queue.put((rank, out))
    dist.destroy_process_group()


def main():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(_worker, args=(2, port, queue), nprocs=2)
    per_rank = dict(queue.get() for _ in range(2))
    golden = {"no_group": no_group_error(torch, fsdp, {"device_id": torch.device("cpu")}),
              "ranks": [per_rank[r] for r in sorted(per_rank)]}
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
