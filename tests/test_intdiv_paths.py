"""64-bit a // d and a % d by one positive integer d, against NumPy, on
each of intdiv_simd.c's paths (AVX-512, AVX2, scalar: TORCHLIKE_INTDIV_SIMD
forces the narrower ones, read once per process, so each path runs in a
child).  The dividends cover both ends of the dtype, zero and small
negatives; the divisors sit around the 32-bit halves the vector multiply
splits into (2^31, 2^32 + 1, 2^40 + 7) and at the dtype's top, where the
magic number takes its largest shift.  Lengths around the vector widths
reach the scalar tail."""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DIVISORS = [1, 2, 3, 7, 10, 641, 2**31, 2**32 + 1, 2**40 + 7, 6 * 10**18 + 1]
LENGTHS = [0, 1, 3, 4, 5, 8, 9, 15, 16, 17, 1031]


def dividends(dtype, n):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(n)
    edges = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        edges += [-1, -2, -7, -8, 7, info.min + 1]
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    x[:min(n, len(edges))] = edges[:n]
    return x


def cases():
    for dtype in (np.int64, np.uint64):
        top = int(np.iinfo(dtype).max)
        for d in DIVISORS + [top, top - 1]:
            for n in LENGTHS:
                yield dtype, d, n


def check_all():
    """The first wrong answer, or None."""
    for dtype, d, n in cases():
        x = dividends(dtype, n)
        for op in (np.floor_divide, np.remainder):
            expected = op(x, dtype(d))
            got = op(tl.from_numpy(x), d).numpy()
            if got.dtype != expected.dtype or not np.array_equal(got, expected):
                return f"{op.__name__} {np.dtype(dtype).name} by {d}, length {n}"
    return None


CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from test_intdiv_paths import check_all
print(check_all() or "ok")
"""


@pytest.mark.parametrize("path", ["widest", "avx2", "0"])
def test_every_path_divides_as_numpy(path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    if path != "widest":
        env["TORCHLIKE_INTDIV_SIMD"] = path
    out = subprocess.run([sys.executable, "-c", CHILD, os.path.join(ROOT, "tests")], env=env,
                         check=True, cwd=ROOT, capture_output=True, text=True).stdout
    assert out.strip() == "ok", f"path {path}: {out.strip()}"


def test_strided_and_broadcast_lines_divide_as_numpy():
    # the strided loop and a broadcast divisor row keep the scalar code
    x = dividends(np.int64, 64).reshape(8, 8)
    d = np.array([7, 2**33 + 3, 1, 5, 9, 11, 13, 2**62], dtype=np.int64)
    for a in (x[:, ::2], x.T, x[::3]):
        for b in (7, d[: a.shape[1]]):
            np.testing.assert_array_equal(tl.from_numpy(a) // tl.as_tensor(b), a // b,
                                          strict=True)
            np.testing.assert_array_equal(tl.from_numpy(a) % tl.as_tensor(b), a % b, strict=True)
