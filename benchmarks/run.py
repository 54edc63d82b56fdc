"""Run every benchmarks/bench_*.py and print torchlike/peer time ratios.

Each bench module defines `cases()`, yielding (name, torchlike_fn, peer_fn,
peer_name).  Both run in this process, timed as the best of several repeats;
the ratio is peer_time / torchlike_time, so > 1 means torchlike is faster.
`python benchmarks/run.py [substring]` runs only matching cases; set
BENCH_THREADS=1 to pin torchlike to one thread, BENCH_QUICK=1 for shorter
timings, BENCH_CPU_TIME=1 to time CPU time of the process instead of wall
time (steadier on a machine other jobs load; meaningful with one thread per
library)."""
import glob
import importlib.util
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402


# BENCH_QUICK=1 (the GPU check, whose time is short) times each row about
# four times faster, with fewer and shorter repeats.
QUICK = bool(os.environ.get("BENCH_QUICK"))
CLOCK = time.process_time if os.environ.get("BENCH_CPU_TIME") else time.perf_counter


def best_time(fn, min_time=0.05 if QUICK else 0.2, repeat=3 if QUICK else 5):
    """Seconds per call: best of `repeat` runs of enough calls for min_time."""
    fn()
    timer = timeit.Timer(fn, timer=CLOCK)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def load_modules():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "bench_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module


def main(argv):
    pattern = argv[1] if len(argv) > 1 else ""
    threads = os.environ.get("BENCH_THREADS")
    if threads:
        torchlike.set_num_threads(int(threads))
    print(f"torchlike threads: {torchlike.get_num_threads()}")
    print(f"{'case':48s} {'torchlike':>12s} {'peer':>12s} {'peer/tl':>8s}")
    # A row that raises is reported and the others still run (a module whose
    # setup raises loses its remaining rows only): on a first run on new
    # hardware one broken kernel should not hide every other figure.
    errors = 0
    for module in load_modules():
        rows = module.cases()
        while True:
            try:
                name, fn_tl, fn_peer, peer = next(rows)
            except StopIteration:
                break
            except Exception as e:  # noqa: BLE001 - reported, counted, exit status
                errors += 1
                print(f"{module.__name__}: setup error: {type(e).__name__}: {e}", flush=True)
                break
            if pattern not in name:
                continue
            try:
                t_tl = best_time(fn_tl)
                t_peer = best_time(fn_peer)
            except Exception as e:  # noqa: BLE001
                errors += 1
                print(f"{name:48s} error: {type(e).__name__}: {e}", flush=True)
                continue
            print(f"{name:48s} {t_tl * 1e6:10.2f}us {t_peer * 1e6:10.2f}us {t_peer / t_tl:7.2f}x"
                  f"  ({peer})", flush=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
