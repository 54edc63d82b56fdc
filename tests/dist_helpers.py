"""Run a function in a world of real processes for the distributed tests.

``spawn_world(fn, nprocs, tmp_path, *args)`` starts ``nprocs`` processes
(the "spawn" start method, through torchlike.multiprocessing.spawn) running
``fn(rank, nprocs, init_method, outdir, *args)``; ``init_method`` is a
``file://`` URL in ``tmp_path`` (no port to race for).  A child's failed
assertion comes back as ProcessRaisedException with its traceback.  What a
child writes with ``put(outdir, rank, obj)`` the parent reads with
``results(outdir, nprocs)``."""
import json
import os

import torchlike.multiprocessing as tmp


def spawn_world(fn, nprocs, tmp_path, *args):
    outdir = str(tmp_path)
    init = f"file://{os.path.join(outdir, 'rendezvous')}"
    tmp.spawn(fn, args=(nprocs, init, outdir) + tuple(args), nprocs=nprocs)
    return outdir


def put(outdir, rank, obj):
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(obj, f)


def results(outdir, nprocs):
    out = []
    for r in range(nprocs):
        with open(os.path.join(outdir, f"rank{r}.json")) as f:
            out.append(json.load(f))
    return out
