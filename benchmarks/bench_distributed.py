"""Distributed benchmark: a standalone table (run.py finds no cases here).

    python benchmarks/bench_distributed.py [--lib torchlike|torch|both] [--reps N]

all_reduce (SUM) of float32 tensors of 8 bytes (latency), 1 MiB and 64 MiB
between 2 processes
on this machine (loopback TCP), for torchlike and for PyTorch's gloo backend
when PyTorch is importable, under the same conditions: each library's
processes are started apart, rendezvous by tcp://, warm up, then time
``reps`` calls, each after a barrier.  Printed: the median and best time per
call per library, and PyTorch's median over torchlike's (> 1: torchlike is
faster)."""
import argparse
import datetime
import importlib
import multiprocessing
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIZES = {"8 B": 8, "1 MiB": 1 << 20, "64 MiB": 64 << 20}


def cases():
    return iter(())  # process-level timings: see main()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, lib_name, port, reps, queue):
    lib = importlib.import_module(lib_name)
    dist = importlib.import_module(lib_name + ".distributed")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2, timeout=datetime.timedelta(seconds=120))
    out = {}
    for label, nbytes in SIZES.items():
        t = lib.ones(nbytes // 4)
        n = reps if nbytes < (8 << 20) else max(3, reps // 5)
        for _ in range(2):
            dist.all_reduce(t)
        times = []
        for _ in range(n):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            times.append(time.perf_counter() - start)
        out[label] = (statistics.median(times), min(times))
    if rank == 0:
        queue.put(out)
    dist.barrier()
    dist.destroy_process_group()


def run(lib_name, reps):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.SimpleQueue()
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(r, lib_name, port, reps, queue))
             for r in range(2)]
    for p in procs:
        p.start()
    result = queue.get()
    for p in procs:
        p.join()
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="both", choices=["torchlike", "torch", "both"])
    ap.add_argument("--reps", type=int, default=40)
    args = ap.parse_args()
    libs = ["torchlike", "torch"] if args.lib == "both" else [args.lib]
    rows = {}
    for lib in libs:
        try:
            importlib.import_module(lib)
        except ImportError:
            print(f"{lib}: not importable here, skipped")
            continue
        rows[lib] = run(lib, args.reps)
    print(f"{'all_reduce, 2 processes':28s} " + " ".join(f"{lib + ' median/best':>26s}"
                                                      for lib in rows) + "  torch/torchlike")
    for label in SIZES:
        cells = " ".join(f"{rows[lib][label][0] * 1e3:11.2f}ms/{rows[lib][label][1] * 1e3:8.2f}ms"
                         + " " * 4 for lib in rows)
        ratio = ""
        if "torch" in rows and "torchlike" in rows:
            ratio = f"{rows['torch'][label][0] / rows['torchlike'][label][0]:8.2f}x"
        print(f"float32 {label:20s} {cells} {ratio}")


if __name__ == "__main__":
    main()
