"""The GPU floors of the issue "The CUDA backend", each measured and judged.

benchmarks/bench_cuda.py prints time ratios against PyTorch; some floors are
absolute instead (a fraction of the device's measured bandwidth, a time
under a microsecond).  This prints one line per floor: what was measured,
the floor, and "ok" or "BELOW".  Bandwidths count the bytes an op must move
(an add of two 1 GiB operands: 3 GiB); the device's copy bandwidth is
PyTorch's `copy_` between two 1 GiB buffers (2 GiB moved), the best of the
repeats.  Each time is the best of several repeats of enough calls to fill
about 0.2 s, the device synchronized on both sides of the timing.

    python benchmarks/cuda_targets.py [--device cpu --scale 8]

--device cpu with --scale runs the same code on the CPU with sizes divided
by 2**scale: it checks this script, not any floor.  Exit status 1 when a
floor is missed."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--scale", type=int, default=0, help="divide the sizes by 2**scale")
    return p.parse_args(argv)


class Bench:
    def __init__(self, torch, device, scale):
        self.torch, self.device, self.scale = torch, device, scale
        self.cuda = device == "cuda"
        self.missed = 0

    def sync(self):
        if self.cuda:
            torchlike.cuda.synchronize()
            self.torch.cuda.synchronize()

    def seconds(self, fn, min_time=0.2, repeat=5):
        """Seconds per call: the best of `repeat` runs of enough calls."""
        fn()
        self.sync()
        number, took = 1, 0.0
        while took < min_time / 4:
            number *= 2
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            self.sync()
            took = time.perf_counter() - t0
        number = max(1, int(number * min_time / took))
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            self.sync()
            best = min(best, time.perf_counter() - t0)
        return best / number

    def n(self, log2):
        return 1 << max(4, log2 - self.scale)

    def judge(self, name, value, floor, unit, higher_is_better=True):
        ok = value >= floor if higher_is_better else value <= floor
        self.missed += not ok
        sign = ">=" if higher_is_better else "<="
        print(f"{name:52s} {value:10.3f} {unit:8s} floor {sign} {floor:<6g} "
              f"{'ok' if ok else 'BELOW'}", flush=True)


def elementwise_and_sum(b):
    """add/mul/exp of 2^28 float32 at >= 90% of the copy bandwidth; a sum
    at >= 90% of it too (the device's read bandwidth, measured as its copy
    bandwidth: a read-only stream is no slower per byte)."""
    torch, dev, n = b.torch, b.device, b.n(28)
    gib = 4 * n / 2**30
    src, dst = torch.ones(n, device=dev), torch.empty(n, device=dev)
    copy = 2 * gib / b.seconds(lambda: dst.copy_(src))
    del src, dst
    print(f"{'device copy bandwidth (PyTorch copy_)':52s} {copy:10.1f} GiB/s")
    x = torchlike.ones(n, device=dev)
    y = torchlike.full((n,), 2.0, device=dev)
    for name, fn, moved in (("add", lambda: x + y, 3), ("mul", lambda: x * y, 3),
                            ("exp", lambda: torchlike.exp(x), 2), ("sum", lambda: x.sum(), 1)):
        bandwidth = moved * gib / b.seconds(fn)
        b.judge(f"{name} 2^{28 - b.scale} f32, fraction of copy bandwidth", bandwidth / copy,
                0.90, "")


def allocator(b):
    """A cached alloc+free of 1 MiB: under 1 us, and no slower than PyTorch."""
    torch, dev, n = b.torch, b.device, b.n(18)
    ours = b.seconds(lambda: torchlike.empty(n, device=dev), min_time=0.1)
    theirs = b.seconds(lambda: torch.empty(n, device=dev), min_time=0.1)
    b.judge("cached alloc+free 1 MiB, microseconds", ours * 1e6, 1.0, "us", False)
    b.judge("cached alloc+free 1 MiB, PyTorch time / ours", theirs / ours, 1.0, "x")


def ratios(b):
    """Time ratios (PyTorch / ours) with the issue's floors."""
    torch, dev = b.torch, b.device
    rows = []
    for name, dtype, k in (("sgemm", "float32", 13), ("bf16 GEMM", "bfloat16", 13)):
        m = b.n(k)
        ta = torchlike.ones(m, m, dtype=getattr(torchlike, dtype), device=dev)
        pa = torch.ones(m, m, dtype=getattr(torch, dtype), device=dev)
        rows.append((f"{name} {m}^3", lambda t=ta: t @ t, lambda t=pa: t @ t, 0.98))
    g = torch.Generator().manual_seed(0)
    keys = torch.randn(b.n(26), generator=g)
    mine = torchlike.from_numpy(keys.numpy()).to(dev)
    theirs = keys.to(dev)
    rows.append((f"sort 2^{26 - b.scale} f32", lambda: mine.sort(), lambda: theirs.sort(), 1.0))
    if b.cuda:
        n = b.n(26)
        th, ph = torchlike.empty(n).pin_memory(), torch.empty(n).pin_memory()
        td, pd = th.to(dev), ph.to(dev)
        rows.append(("pinned h2d 256 MiB (bandwidth ratio)", lambda: th.to(dev, non_blocking=True),
                     lambda: ph.to(dev, non_blocking=True), 0.90))
        rows.append(("pinned d2h 256 MiB (bandwidth ratio)", lambda: td.cpu(), lambda: pd.cpu(),
                     0.90))
    tiny, ptiny = torchlike.ones(4, device=dev), torch.ones(4, device=dev)

    def chain(t):
        for _ in range(100):
            t = t + 1
        return t
    rows.append(("100 adds on 4 elements (launch overhead)", lambda: chain(tiny),
                 lambda: chain(ptiny), 1.0))
    for name, ours, peer, floor in rows:
        b.judge(f"{name}, PyTorch time / ours", b.seconds(peer) / b.seconds(ours), floor, "x")


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: nothing to compare with")
        return 0
    if args.device == "cuda" and not (torchlike.cuda.is_available() and torch.cuda.is_available()):
        print("no CUDA device: nothing measured")
        return 0
    b = Bench(torch, args.device, args.scale)
    for part in (elementwise_and_sum, allocator, ratios):
        try:
            part(b)
        except Exception as e:  # noqa: BLE001 - reported and counted
            b.missed += 1
            print(f"{part.__name__}: error: {type(e).__name__}: {e}", flush=True)
    print(f"{b.missed} floor(s) missed" if b.missed else "every floor met")
    return 1 if b.missed else 0


if __name__ == "__main__":
    sys.exit(main())
