"""Run NumPy's own tests against torchlike.numpy, beside the project.

NumPy's wheels ship their test files.  This copies the chosen ones from the
installed NumPy into a scratch folder, points each file's ``np`` (the
``import numpy as np`` line) at a namespace that is torchlike.numpy, falling
back to NumPy for names torchlike.numpy lacks, and runs each file in a pytest
process of its own.  ``numpy.testing`` stays NumPy's, its assertions given host copies of the
tensors.  A file whose collection fails (module-level arrays of dtypes
torchlike lacks: object, uint64 ...) counts as one error.  Nothing of
NumPy's is kept in the project.

    numpy_test_suite.py [--control] [--timeout S] FILE ...

FILE is a path under NumPy's package, e.g. lib/tests/test_function_base.py
or _core/tests/test_numeric.py.  --control runs the same copies with NumPy
itself as ``np``: what fails there is the copy's doing, not torchlike's.
Prints each file's pytest summary and the totals.  docs/numpy.md has the
last measured counts."""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy

HEADER = '''import numpy as _numpy
import types as _types
{namespace}


class _Namespace(_types.ModuleType):
    """torchlike.numpy, with NumPy's names where it has none of its own."""

    def __getattr__(self, name):
        try:
            return getattr(_ours, name)
        except AttributeError:
            return getattr(_numpy, name)


_np = _Namespace("numpy")
'''
# numpy.testing's assertions compare two tensors wrongly (NumPy's own code
# meets Tensor methods where it expects ndarray ones): they get host arrays.
OURS = '''import torchlike.numpy as _ours
import numpy.testing as _testing


def _host(x):
    if isinstance(x, _ours.ndarray):
        return _numpy.asarray(x.detach().cpu())
    if type(x) in (list, tuple):
        return type(x)(_host(e) for e in x)
    return x


def _on_host(check):
    def checked(*args, **kwargs):
        __tracebackhide__ = True
        return check(*map(_host, args), **{k: _host(v) for k, v in kwargs.items()})
    return checked


for _name in [n for n in dir(_testing) if n.startswith("assert_")]:
    setattr(_testing, _name, _on_host(getattr(_testing, _name)))'''
CONTROL = "_ours = _numpy"
COUNT = re.compile(r"(\d+) (passed|failed|skipped|error|errors|xfailed|xpassed)\b")


def convert(src, dst, control):
    text = open(src).read()
    text = re.sub(r"^import numpy as np$", "np = _np", text, flags=re.M)
    with open(dst, "w") as f:
        f.write(HEADER.format(namespace=CONTROL if control else OURS) + text)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--control", action="store_true")
    p.add_argument("--timeout", type=float, default=900)
    args = p.parse_args(argv)
    root = os.path.dirname(numpy.__file__)
    project = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=project + os.pathsep + os.environ.get("PYTHONPATH", ""))
    totals = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="numpy_tests-") as scratch:
        for rel in args.files:
            src = os.path.join(root, rel)
            folder = os.path.join(scratch, os.path.dirname(rel))
            if not os.path.isdir(folder):  # with the data files the tests read
                shutil.copytree(os.path.dirname(src), folder,
                                ignore=shutil.ignore_patterns("test_*.py", "__pycache__"))
            dst = os.path.join(folder, os.path.basename(rel))
            convert(src, dst, args.control)
            cmd = [sys.executable, "-m", "pytest", dst, "-q", "-o", "addopts=", "-p",
                   "no:cacheprovider", "-W", "ignore", "--tb=no", "--rootdir", scratch]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=folder,
                                     timeout=args.timeout).stdout
                line = (out.strip().splitlines() or ["no output"])[-1]
            except subprocess.TimeoutExpired:
                line = f"timed out after {args.timeout:.0f} s"
            for n, what in COUNT.findall(line):
                totals["error" if what == "errors" else what] += int(n)
            print(f"{rel}: {line}", flush=True)
    print("total: " + ", ".join(f"{n} {what}" for what, n in sorted(totals.items())))


if __name__ == "__main__":
    main()
