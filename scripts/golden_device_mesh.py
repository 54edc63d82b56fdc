"""Record PyTorch's DeviceMesh (gloo, 4 processes, on CPU) as the golden
file for tests/test_device_mesh.py.

Run with a Python that has PyTorch:  python scripts/golden_device_mesh.py
Writes tests/golden/device_mesh.json.  The cases are in
tests/device_mesh_cases.py (no PyTorch needed there)."""
import json
import os
import subprocess
import sys

import torch
import torch.distributed as dist
import torch.distributed.device_mesh as dm
import torch.distributed.fsdp as fsdp
import torch.distributed.fsdp.wrap as wrap

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "device_mesh.json")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from device_mesh_cases import (BEFORE_INIT, WORLD, run_flatten, run_fsdp,  # noqa: E402
                               run_from_group, run_meshes)
from golden_ranks import free_port, run_ranks, write_golden  # noqa: E402


def _cases(rank, ws):
    return {"meshes": run_meshes(torch, dist, dm), "flatten": run_flatten(torch, dist, dm),
            "from_group": run_from_group(torch, dist, dm),
            "fsdp": run_fsdp(torch, dist, dm, fsdp, wrap, rank)}


def main():
    per_rank = run_ranks(_cases, WORLD)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")}
    before = subprocess.run([sys.executable, "-W", "ignore", "-c",
                             BEFORE_INIT.replace("LIB", "torch"), str(free_port())],
                            env=env, capture_output=True, text=True, check=True)
    golden = {"ranks": per_rank,
              "before_init": json.loads(before.stdout.strip().splitlines()[-1])}
    write_golden(OUT, golden)


if __name__ == "__main__":
    main()
