"""Run a function in a world of real processes for the distributed tests.

``spawn_world(fn, nprocs, tmp_path, *args)`` starts ``nprocs`` processes
(the "spawn" start method, through torchlike.multiprocessing.spawn) running
``fn(rank, nprocs, init_method, outdir, *args)``; ``init_method`` is a
``file://`` URL in ``tmp_path`` (no port to race for).  A child's failed
assertion comes back as ProcessRaisedException with its traceback.  What a
child writes with ``put(outdir, rank, obj)`` the parent reads with
``results(outdir, nprocs)``; ``close_tree`` compares such results with
recorded ones."""
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


def close_tree(got, want, path, tol=1e-9, errors_by_type=False):
    """got equals want, a tree of dicts and lists, floats to `tol` relative;
    errors_by_type: an ``[exception name, message]`` pair compares by the
    name alone.  A failure names the path of the first difference."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), (path, sorted(got), sorted(want))
        for k in want:
            close_tree(got[k], want[k], f"{path}.{k}", tol, errors_by_type)
    elif errors_by_type and isinstance(want, list) and len(want) == 2 and \
            isinstance(want[0], str) and want[0].endswith(("Error", "Exception")) and \
            isinstance(want[1], str):
        assert isinstance(got, list) and got[0] == want[0], (path, got, want)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (a, b) in enumerate(zip(got, want)):
            close_tree(a, b, f"{path}[{i}]", tol, errors_by_type)
    elif isinstance(want, float):
        assert abs(got - want) <= tol + tol * abs(want) or want != want and got != got, \
            (path, got, want)
    else:
        assert got == want, (path, got, want)
