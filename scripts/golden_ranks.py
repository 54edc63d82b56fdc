"""The world of PyTorch processes the distributed golden scripts record in
(golden_distributed.py, golden_fsdp.py, golden_device_mesh.py): each rank
joins one gloo group over TCP, runs the script's cases and writes what they
return to a file of its own (a pipe would block a child once its result
outgrew the buffer, and the parent reads only after joining)."""
import datetime
import faulthandler
import json
import os
import socket
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, ws, port, outdir, cases):
    import torch.distributed as dist
    warnings.simplefilter("ignore")
    faulthandler.dump_traceback_later(180, exit=True)  # a hung run shows where, then ends
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=ws, timeout=datetime.timedelta(seconds=60))
    out = cases(rank, ws)
    dist.barrier()
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()


def run_ranks(cases, nprocs):
    """[cases(rank, nprocs) for each rank], run in nprocs spawned processes
    (cases: a module-level function of the calling script)."""
    import torch.multiprocessing as mp
    with tempfile.TemporaryDirectory() as outdir:
        mp.spawn(_worker, args=(nprocs, free_port(), outdir, cases), nprocs=nprocs)
        per_rank = []
        for r in range(nprocs):
            with open(os.path.join(outdir, f"rank{r}.json")) as f:
                per_rank.append(json.load(f))
    return per_rank


def write_golden(path, golden, indent=None):
    """The golden file: sorted keys, one trailing newline."""
    with open(path, "w") as f:
        json.dump(golden, f, indent=indent, sort_keys=True)
        f.write("\n")
    print("wrote", path)
