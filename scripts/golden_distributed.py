"""Record PyTorch's torch.distributed behaviour (gloo, 2 processes) as the
golden file for tests/test_distributed.py.

Run with a Python that has PyTorch:  python scripts/golden_distributed.py
Writes tests/golden/distributed.json.  The cases are in
tests/distributed_cases.py (no PyTorch needed there)."""
import datetime
import json
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "distributed.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from distributed_cases import api_cases, collective_cases  # noqa: E402


def _worker(rank, ws, port, queue):
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=ws, timeout=datetime.timedelta(seconds=20))
    out = collective_cases(torch, dist, rank, ws)
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
    golden = {"api": api_cases(torch, dist),
              "collectives": {str(r): per_rank[r] for r in sorted(per_rank)}}
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
