"""Two Python threads running large ops at once against one thread running
them all.  Kernels let go of the GIL, so the two threads overlap: the ratio
(one thread's time / two threads' time, for the same total work) is the
speed-up, ~2x at best on two free cores.

Run it with BENCH_THREADS=1 (`make bench` does), so the intra-op pool does
not already spread each op over the cores and hide the effect:
    BENCH_THREADS=1 python benchmarks/run.py "2 threads"
"""
import threading

import torchlike as tl

REPEAT = 4  # ops per thread per timed call


class ThreadPair:
    """Two threads kept alive between calls: run(fn) runs fn on both at once."""

    def __init__(self):
        self.fn = None
        self.start = threading.Barrier(3)
        self.end = threading.Barrier(3)
        for _ in range(2):
            threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self):
        while True:
            self.start.wait()
            self.fn()
            self.end.wait()

    def run(self, fn):
        self.fn = fn
        self.start.wait()
        self.end.wait()


def cases():
    pair = ThreadPair()
    # Sizes that stay in cache: two cores share one memory bus, so a large
    # memory-bound op (a 2^24 add) is bandwidth-limited, with one thread or two.
    x = tl.rand(1 << 18)
    xd = tl.rand(1 << 20, dtype=tl.float64)
    m = tl.rand(256, 256)
    a = tl.rand(256, 256, dtype=tl.float64) + 256 * tl.eye(256, dtype=tl.float64)
    keys = tl.randint(0, 1 << 30, (1 << 18,))
    g = tl.Generator().manual_seed(0)
    ops = {
        "exp 2^18 float32": lambda: x.exp(),
        "sin 2^20 float64": lambda: xd.sin(),
        "lgamma 2^18 float32": lambda: x.lgamma(),
        "sum 2^20 float64": lambda: xd.sum(),
        "matmul 256x256 float32": lambda: m @ m,
        "linalg.inv 256x256 float64": lambda: tl.linalg.inv(a),
        "sort 2^18 int64": lambda: keys.sort(),
        "randn 2^20 float32": lambda: tl.randn(1 << 20, generator=g),
    }
    for name, op in ops.items():
        def each(op=op):
            for _ in range(REPEAT):
                op()

        def alone(op=op):
            for _ in range(2 * REPEAT):
                op()

        yield (f"2 threads x {REPEAT} {name}", lambda each=each: pair.run(each), alone,
               f"1 thread x {2 * REPEAT}")
