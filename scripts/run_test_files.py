"""Run test files, each in a pytest process of its own, several at a time.

The GPU check (scripts/gpu_check.sh) runs the suite this way because a CUDA
fault is sticky: after an illegal address every later CUDA call in the
process fails, and one bad kernel would turn the rest of a single pytest
run into noise.  A process per file keeps a fault inside its file, a crash
shows as the file's crash (pytest's faulthandler prints the test it was
in), and a hang costs one file its timeout, not the whole check.

    run_test_files.py [--jobs N] [--timeout S] [--deadline S] [--logs DIR]
                      [--split FILE ...] [--serial FILE ...] [--wrap CMD]
                      [--forbid-skip TEXT] [--batch N]
                      [--pytest-args ARGS] FILE ...

--split names files whose tests run each in a process of its own (a file
of a few long tests, such as the device suites, which would otherwise hold
one process for all of them).  --serial names files that must not share the machine with other test
processes (the multiprocessing tests count the files in /dev/shm); they run
alone after the others.  --wrap prefixes each pytest command (for example
`compute-sanitizer --tool memcheck --error-exitcode 1`).  --forbid-skip
fails a file that skipped a test with that reason: on a machine with a GPU,
"requires a CUDA device" means the CUDA cases did not run.  --deadline is
the wall time for everything: files not started by then are reported as
not run.  --batch N runs up to N of the remaining files in one pytest
process: a process costs about a second of interpreter start and import,
which on CI's two cores is minutes over the suite (the GPU check keeps one
file per process).  Prints a line per file as it ends, then the failures and the
test counts summed over the files; exits 1 if any file failed, crashed,
timed out or did not run.

`make test` runs the suite this way too, a process per core: on CI's two
cores that halves the suite's wall time.  The --split items start first
(they are the long ones), so no core is left alone with one at the end.
Each process gets a --basetemp of its own: pytest prunes old numbered
temporary folders, and processes sharing one root could prune each other's.
Where the environment forbids writing bytecode (PYTHONDONTWRITEBYTECODE),
the processes write it into a folder of this run instead, which goes with
it: otherwise each of them, and each worker the tests spawn, compiles the
whole package again (a second and more per process).
"""
import argparse
import collections
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SUMMARY = re.compile(r"^=*\s*(?:\d+ \w+(?:, )?)+.* in [\d.]+s", re.M)
COUNT = re.compile(r"(\d+) (\w+)")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--jobs", type=int, default=max(1, min(8, (os.cpu_count() or 2) // 2)))
    p.add_argument("--timeout", type=float, default=600, help="seconds per file")
    p.add_argument("--deadline", type=float, default=None, help="seconds for all files")
    p.add_argument("--logs", default=None, help="folder for each file's output")
    p.add_argument("--split", nargs="*", default=[])
    p.add_argument("--serial", nargs="*", default=[])
    p.add_argument("--wrap", default="")
    p.add_argument("--forbid-skip", default=None)
    p.add_argument("--batch", type=int, default=1, help="files per pytest process")
    p.add_argument("--pytest-args", default="")
    return p.parse_args(argv)


class Runner:
    def __init__(self, args):
        self.args = args
        self.start = time.monotonic()
        self.results = {}
        self.counts = collections.Counter()
        self.print_lock = threading.Lock()
        self.temp = tempfile.mkdtemp(prefix="run_test_files-")
        self.env = dict(os.environ)
        if self.env.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
            self.env["PYTHONPYCACHEPREFIX"] = os.path.join(self.temp, "pycache")
        if args.logs:
            os.makedirs(args.logs, exist_ok=True)

    def left(self):
        if self.args.deadline is None:
            return self.args.timeout
        return min(self.args.timeout, self.args.deadline - (time.monotonic() - self.start))

    def run(self, unit):
        """Runs one unit: a file, a test id, or a batch of files (a tuple)."""
        paths = list(unit) if isinstance(unit, tuple) else [unit]
        path = " ".join(paths)
        budget = self.left()
        if budget <= 1:
            return self.record(path, "not run", "the deadline passed before it started", "")
        basetemp = tempfile.mkdtemp(dir=self.temp)
        cmd = [*shlex.split(self.args.wrap), sys.executable, "-m", "pytest", *paths, "-o", "addopts=", "-q",
               "-p", "no:cacheprovider", "-rfEs", f"--basetemp={basetemp}",
               *shlex.split(self.args.pytest_args)]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=budget, env=self.env)
            out, rc = p.stdout + p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
                else (e.stdout or "")
            return self.record(path, "timed out", f"after {budget:.0f} s", out)
        took = f"{time.monotonic() - t0:.0f} s"
        summary = SUMMARY.findall(out)
        line = summary[-1].strip("= ") if summary else ""
        for n, what in COUNT.findall(line.rsplit(" in ", 1)[0]):
            self.counts[what] += int(n)
        if rc == 5:
            return self.record(path, "ok", f"no tests selected, {took}", out)
        if rc < 0 or not summary:  # a signal, or pytest itself failed
            return self.record(path, "crashed" if rc < 0 else "error", f"rc {rc}, {took}", out)
        forbidden = self.args.forbid_skip
        if rc == 0 and forbidden and re.search(r"^SKIPPED .*" + re.escape(forbidden), out, re.M):
            return self.record(path, "failed", f"skipped with '{forbidden}': {line}", out)
        return self.record(path, "ok" if rc == 0 else "failed", f"{line} ({took})", out)

    def record(self, path, state, detail, out):
        self.results[path] = (state, detail, out, len(path.split()))
        with self.print_lock:  # print() writes the text and its newline apart: threads could interleave them
            print(f"{state:9s} {path}: {detail}", flush=True)
        if self.args.logs:
            name = re.sub(r"[^\w.-]+", "_", os.path.basename(path).replace(".py", "")) + ".log"
            with open(os.path.join(self.args.logs, name), "w") as f:
                f.write(out)
        return state

    def report(self):
        bad = {p: r for p, r in self.results.items() if r[0] != "ok"}
        for path, (state, detail, out, _) in sorted(bad.items()):
            print(f"\n---- {path}: {state}, {detail}")
            lines = out.splitlines()
            failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
            print("\n".join(failed[:40] if failed else lines[-40:]))
        n_files = sum(r[3] for r in self.results.values())
        n_ok = n_files - sum(r[3] for r in bad.values())
        tests = ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items()))
        print(f"\n{n_ok} of {n_files} files ok ({tests or 'no tests'}); "
              f"{time.monotonic() - self.start:.0f} s")
        shutil.rmtree(self.temp, ignore_errors=True)
        return 1 if bad else 0


def node_ids(path):
    """The test ids pytest collects from path (the path itself if none)."""
    p = subprocess.run([sys.executable, "-m", "pytest", path, "--collect-only", "-q",
                        "-o", "addopts=", "-p", "no:cacheprovider"], capture_output=True, text=True)
    ids = [ln for ln in p.stdout.splitlines() if "::" in ln]
    return ids or [path]


def batches(files, n):
    """Groups files n at a time, the largest first: size is a rough guide to
    time, and starting the long processes first keeps both cores busy to the end."""
    if n <= 1:
        return files
    files = sorted(files, key=lambda f: -os.path.getsize(f) if os.path.isfile(f) else 0)
    return [tuple(files[i:i + n]) for i in range(0, len(files), n)]


def main(argv=None):
    args = parse_args(argv)
    split, files = [], []
    for f in args.files:
        if f in set(args.split):
            split += node_ids(f)
        else:
            files.append(f)
    serial = [f for f in files if f in set(args.serial)]
    parallel = split + batches([f for f in files if f not in set(serial)], args.batch)
    runner = Runner(args)
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(runner.run, parallel))
    for f in serial:
        runner.run(f)
    return runner.report()


if __name__ == "__main__":
    sys.exit(main())
