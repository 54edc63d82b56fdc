"""Peak memory of one step of each benchmarks/bench_nn.py case, torchlike
against PyTorch (issue 11: "peak memory no higher").

Each (case, library) runs in a fresh interpreter: it builds the case,
gives the free memory the process holds back to the kernel (torchlike's
cached blocks and malloc's free heap: both libraries share that heap, and
the memory earlier cases freed would otherwise serve the step unseen),
resets the process's peak resident size (Linux: /proc/self/clear_refs),
runs one step, the first, so nothing is cached yet in either library's
allocator, and reports how far the peak rose above what the process held
before the step: the activations the tape keeps, the gradients and the
temporaries at their worst moment, and what either allocator holds besides.

    PYTHONPATH=. <python with torch> benchmarks/bench_nn_memory.py [substring]

Like bench_mp.py, it runs as a script: run.py finds no cases here."""
import gc
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))


def cases():
    return iter(())  # process-level measurements: see main()


def _status_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{key} not in /proc/self/status")


def _child(name, lib):
    import bench_nn
    for case, fn_tl, fn_pt, _ in bench_nn.cases():
        if case == name:
            fn = fn_tl if lib == "torchlike" else fn_pt
            gc.collect()
            bench_nn.torchlike._C._cpu_empty_cache()
            before = _status_kib("VmRSS")
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # the peak (VmHWM) starts again from the current size
            fn()
            print((_status_kib("VmHWM") - before) / 1024.0)
            return
    raise SystemExit(f"no case named {name!r}")


def main(argv):
    import bench_nn
    if bench_nn.torch is None:
        print("bench_nn_memory: PyTorch is not installed here: nothing to compare")
        return
    pattern = argv[1] if len(argv) > 1 else ""
    names = [case for case, *_ in bench_nn.cases() if pattern in case]
    print(f"{'case':48s} {'torchlike':>12s} {'torch':>12s} {'tl/torch':>9s}")
    for name in names:
        mib = {}
        for lib in ("torchlike", "torch"):
            out = subprocess.run([sys.executable, __file__, "--child", name, lib],
                                 capture_output=True, text=True, check=True)
            mib[lib] = float(out.stdout.split()[-1])
        ratio = mib["torchlike"] / mib["torch"] if mib["torch"] > 0 else float("nan")
        print(f"{name:48s} {mib['torchlike']:9.1f}MiB {mib['torch']:9.1f}MiB {ratio:8.2f}x",
              flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv)
