"""DataLoader and checkpoint benchmarks against PyTorch and the disk.

    python benchmarks/bench_data.py [--torch-python PATH]

Rows:
  * one epoch of DataLoader over a TensorDataset of 10^5 rows (32 float32
    features + an int64 label) at batch 64, shuffled and sequential, and over
    a map-style Dataset returning (tensor, int) pairs (the generic per-sample
    path: fetch + default_collate);
  * save and load of a 100 MB state dict (25 float32 tensors of 1M values),
    next to writing and reading the same 100 MB as raw bytes in the same
    directory (the disk speed, through the page cache as the checkpoints go).

PyTorch's rows run the same code under PyTorch in a child process (this
interpreter if it imports torch, else --torch-python or $TORCH_PYTHON) and are
left out when PyTorch is not installed.  Times are the best of 3 runs.

Also importable by benchmarks/run.py: cases() yields the DataLoader rows when
torch imports in this process."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROWS, FEATURES, BATCH = 100_000, 32, 64
STATE_TENSORS, STATE_NUMEL = 25, 1 << 20  # 25 x 4 MiB = 100 MiB


def best(fn, repeat=3):
    fn()  # warm up (first-touch, imports)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def loader_rows(lib):
    """{row name: seconds} for lib = torch or torchlike."""
    data = lib.utils.data
    g = lib.Generator().manual_seed(0)
    x = lib.randn(ROWS, FEATURES, generator=g)
    y = lib.randint(0, 10, (ROWS,), generator=g)
    dataset = data.TensorDataset(x, y)

    class Pairs(data.Dataset):
        def __getitem__(self, i):
            return x[i], int(i % 10)

        def __len__(self):
            return ROWS

    def epoch(ds, shuffle):
        def run():
            loader = data.DataLoader(ds, batch_size=BATCH, shuffle=shuffle,
                                     generator=lib.Generator().manual_seed(1))
            n = 0
            for _ in loader:
                n += 1
            assert n == (ROWS + BATCH - 1) // BATCH
        return run

    return {
        "DataLoader TensorDataset 1e5x32, batch 64, shuffle": best(epoch(dataset, True)),
        "DataLoader TensorDataset 1e5x32, batch 64, sequential": best(epoch(dataset, False)),
        "DataLoader map Dataset (tensor, int) 1e5, batch 64, shuffle": best(epoch(Pairs(), True)),
    }


def checkpoint_rows(lib, directory):
    state = {f"layer{i}.weight": lib.randn(STATE_NUMEL) for i in range(STATE_TENSORS)}
    path = os.path.join(directory, f"state_{lib.__name__}.pt")
    rows = {"save 100 MB state dict": best(lambda: lib.save(state, path))}
    lib.serialization.set_crc32_options(False)
    rows["save 100 MB state dict, set_crc32_options(False)"] = best(lambda: lib.save(state, path))
    lib.serialization.set_crc32_options(True)
    rows["load 100 MB state dict"] = best(lambda: lib.load(path, weights_only=True))
    rows["load 100 MB state dict, mmap=True"] = best(
        lambda: lib.load(path, weights_only=True, mmap=True))
    os.remove(path)
    return rows


def disk_rows(directory):
    payload = os.urandom(STATE_TENSORS * STATE_NUMEL * 4)
    path = os.path.join(directory, "raw.bin")

    def write():
        with open(path, "wb") as f:
            f.write(payload)

    def read():
        with open(path, "rb") as f:
            buf = bytearray(len(payload))
            f.readinto(buf)

    rows = {"save 100 MB state dict": best(write), "load 100 MB state dict": best(read)}
    rows["save 100 MB state dict, set_crc32_options(False)"] = rows["save 100 MB state dict"]
    os.remove(path)
    return rows


def measure(lib_name, directory):
    if lib_name == "torch":
        import torch as lib
        import torch.utils.data  # noqa: F401
        lib.set_num_threads(int(os.environ.get("BENCH_THREADS", lib.get_num_threads())))
    else:
        import torchlike as lib
    rows = loader_rows(lib)
    rows.update(checkpoint_rows(lib, directory))
    return rows


def torch_python(explicit):
    for exe in (explicit, os.environ.get("TORCH_PYTHON"), sys.executable):
        if exe and subprocess.run([exe, "-c", "import torch"], capture_output=True).returncode == 0:
            return exe
    return None


def cases():
    try:
        import torch
        import torch.utils.data  # noqa: F401
    except ImportError:
        return
    import torchlike
    for name, (ours, theirs) in {"shuffle": (True, True)}.items():
        def make(lib):
            ds = lib.utils.data.TensorDataset(lib.randn(ROWS, FEATURES), lib.arange(ROWS))
            return lambda: [None for _ in lib.utils.data.DataLoader(ds, batch_size=BATCH,
                                                                   shuffle=ours)]
        yield f"DataLoader TensorDataset 1e5 batch 64 {name}", make(torchlike), make(torch), \
            "torch"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python")
    parser.add_argument("--measure", choices=["torch", "torchlike"], help=argparse.SUPPRESS)
    parser.add_argument("--dir", default=None, help="where checkpoints are written "
                        "(default: the system's temporary directory)")
    args = parser.parse_args()
    directory = args.dir or tempfile.gettempdir()
    if args.measure:  # the child process
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        print(json.dumps(measure(args.measure, directory)))
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ours = measure("torchlike", directory)
    disk = disk_rows(directory)
    exe = torch_python(args.torch_python)
    theirs = {}
    if exe is not None:
        run = subprocess.run([exe, os.path.abspath(__file__), "--measure", "torch", "--dir",
                              directory], capture_output=True, text=True)
        if run.returncode == 0:
            theirs = json.loads(run.stdout.strip().splitlines()[-1])
        else:
            print(run.stderr, file=sys.stderr)
    print(f"{'case':62s} {'torchlike':>10s} {'PyTorch':>10s} {'ratio':>6s} {'raw disk':>9s}")
    for name, t in ours.items():
        peer = theirs.get(name)
        raw = disk.get(name)
        cols = [f"{t * 1e3:8.1f}ms",
                f"{peer * 1e3:8.1f}ms" if peer else f"{'-':>10s}",
                f"{peer / t:6.2f}" if peer else f"{'-':>6s}",
                f"{raw * 1e3:7.1f}ms" if raw else f"{'':>9s}"]
        print(f"{name:62s} " + " ".join(cols))
    print("ratio = PyTorch time / torchlike time (> 1: torchlike faster); raw disk = the same "
          "bytes written/read as one file" + ("" if theirs else "; PyTorch not installed"))


if __name__ == "__main__":
    main()
