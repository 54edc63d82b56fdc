"""Record PyTorch's DeviceMesh (gloo, 4 processes, on CPU) as the golden
file for tests/test_device_mesh.py.

Run with a Python that has PyTorch:  python scripts/golden_device_mesh.py
Writes tests/golden/device_mesh.json.  The cases are in
tests/device_mesh_cases.py (no PyTorch needed there)."""
import datetime
import faulthandler
import json
import os
import socket
import subprocess
import sys
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.device_mesh as dm
import torch.distributed.fsdp as fsdp
import torch.distributed.fsdp.wrap as wrap
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "device_mesh.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from device_mesh_cases import (BEFORE_INIT, WORLD, run_flatten, run_fsdp,  # noqa: E402
                               run_from_group, run_meshes)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, ws, port, outdir):
    warnings.simplefilter("ignore")
    faulthandler.dump_traceback_later(180, exit=True)  # a hung run shows where, then ends
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=ws, timeout=datetime.timedelta(seconds=60))
    out = {"meshes": run_meshes(torch, dist, dm), "flatten": run_flatten(torch, dist, dm),
           "from_group": run_from_group(torch, dist, dm),
           "fsdp": run_fsdp(torch, dist, dm, fsdp, wrap, rank)}
    dist.barrier()
    # a file, not a pipe: a result larger than the pipe's buffer would block
    # the child until the parent reads, and the parent reads after joining
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()


def main():
    with tempfile.TemporaryDirectory() as outdir:
        mp.spawn(_worker, args=(WORLD, _free_port(), outdir), nprocs=WORLD)
        per_rank = []
        for r in range(WORLD):
            with open(os.path.join(outdir, f"rank{r}.json")) as f:
                per_rank.append(json.load(f))
    env = {k: v for k, v in os.environ.items()
           if k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")}
    before = subprocess.run([sys.executable, "-W", "ignore", "-c",
                             BEFORE_INIT.replace("LIB", "torch"), str(_free_port())],
                            env=env, capture_output=True, text=True, check=True)
    golden = {"ranks": per_rank,
              "before_init": json.loads(before.stdout.strip().splitlines()[-1])}
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
