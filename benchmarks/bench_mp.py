"""Multiprocessing benchmarks: a standalone table (run.py finds no cases here).

    python benchmarks/bench_mp.py [--lib torchlike|torch|both]

Rows, for each library importable in this interpreter:
  * round trip of a shared tensor to a child process and back through two
    Queues, 1 MB and 100 MB: zero-copy, so the time does not grow with size
    (the first send, which moves the storage into shared memory, is shown
    apart);
  * DataLoader samples/s with 0 and 2 workers on a dataset whose
    __getitem__ spends ~1 ms in Python, and one that sleeps ~1 ms (second
    epoch of persistent workers);
  * Hogwild SGD steps/s on one shared model, 1 process and 2 processes."""
import argparse
import importlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cases():
    return iter(())  # process-level timings: see main()


def _echo(q_in, q_out):
    while True:
        t = q_in.get()
        if t is None:
            return
        q_out.put(t)


def bench_roundtrip(lib, mp, nbytes, reps=20):
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_echo, args=(q_in, q_out))
    p.start()
    t = lib.ones(nbytes // 4)
    start = time.perf_counter()
    q_in.put(t)
    q_out.get()
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        q_in.put(t)
        back = q_out.get()
        best = min(best, time.perf_counter() - start)
        del back
    q_in.put(None)
    p.join()
    return first, best


class BusyDataset:
    """~1 ms per sample: of Python work (busy), or of waiting (sleep, as
    reading a file would)."""

    def __init__(self, lib, n, sleep=False):
        self.lib, self.n, self.sleep = lib, n, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.sleep:
            time.sleep(1e-3)
        else:
            end = time.perf_counter() + 1e-3
            acc = 0
            while time.perf_counter() < end:
                acc += 1
        return self.lib.full((64,), float(i)), i


def bench_loader(lib, data, workers, n=400, sleep=False):
    ds = BusyDataset(lib, n, sleep)
    kw = dict(persistent_workers=True, multiprocessing_context="fork") if workers else {}
    loader = data.DataLoader(ds, batch_size=16, num_workers=workers, **kw)
    for _ in loader:  # first epoch: starts the workers
        pass
    start = time.perf_counter()
    for _ in loader:
        pass
    rate = n / (time.perf_counter() - start)
    del loader
    return rate


def _hogwild_worker(lib, w1, w2, X, y, steps):
    for k in range(steps):
        rows = slice((k * 32) % 480, (k * 32) % 480 + 32)
        for w in (w1, w2):
            w.requires_grad_(True)
        loss = ((lib.tanh(X[rows] @ w1) @ w2 - y[rows]) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            w1 -= 0.01 * w1.grad
            w2 -= 0.01 * w2.grad
        for w in (w1, w2):
            w.grad = None
            w.requires_grad_(False)


def bench_hogwild(lib, mp, nprocs, steps=300):
    lib.manual_seed(0)
    X, y = lib.randn(512, 32), lib.randn(512, 1)
    w1, w2 = lib.randn(32, 64) * 0.1, lib.randn(64, 1) * 0.1
    for t in (X, y, w1, w2):
        t.share_memory_()
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_hogwild_worker, args=(lib, w1, w2, X, y, steps))
             for _ in range(nprocs)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    return nprocs * steps / (time.perf_counter() - start)


def run(name):
    lib = importlib.import_module(name)
    lib.set_num_threads(1)  # one core per process: what the comparison is about
    mp = importlib.import_module(name + ".multiprocessing")
    data = importlib.import_module(name + ".utils.data")
    rows = []
    for mb in (1, 100):
        first, rt = bench_roundtrip(lib, mp, mb << 20)
        rows.append((f"{mb} MB tensor to a child and back", f"{rt * 1e3:.3f} ms",
                     f"first send {first * 1e3:.1f} ms"))
    for sleep in (False, True):
        kind = "sleep" if sleep else "Python"
        r0 = bench_loader(lib, data, 0, sleep=sleep)
        r2 = bench_loader(lib, data, 2, sleep=sleep)
        rows.append((f"DataLoader 0 workers (1 ms {kind}/sample)", f"{r0:.0f} samples/s", ""))
        rows.append((f"DataLoader 2 workers (1 ms {kind}/sample)", f"{r2:.0f} samples/s",
                     f"{r2 / r0:.2f}x of 0 workers"))
    h1 = bench_hogwild(lib, mp, 1)
    h2 = bench_hogwild(lib, mp, 2)
    rows.append(("Hogwild 1 process", f"{h1:.0f} steps/s", ""))
    rows.append(("Hogwild 2 processes", f"{h2:.0f} steps/s", f"{h2 / h1:.2f}x of 1 process"))
    for row in rows:
        print(f"{name:10s} {row[0]:44s} {row[1]:>18s}  {row[2]}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="both", choices=["torchlike", "torch", "both"])
    args = parser.parse_args()
    names = ["torchlike", "torch"] if args.lib == "both" else [args.lib]
    print(f"cpus: {os.cpu_count()}")
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            print(f"{name}: not importable here, skipped")
            continue
        run(name)


if __name__ == "__main__":
    main()
