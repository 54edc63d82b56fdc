"""The bulk Philox words (src/ndcore/kernels/philox_words.c) on every path.

The CPU draws its counter blocks through an AVX-512 or an AVX2 schedule, or
the portable lanes, picked once per process from the CPU, and
TORCHLIKE_PHILOX_SIMD narrows the pick.  Each path runs here in a child
process and its draws must equal, bit for bit, the per-element host
reference (`_C._random_reference`, the function the CUDA kernel runs), which
shares no code with them.  Lengths cover the 32-block vector step, the
scalar tail, and counters that carry from the low into the high word."""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C

UNIFORM, NORMAL, INTEGER, BERNOULLI = 0, 1, 2, 3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# First counter block, the draw's length, its dtype and kind: 2^32 - 5 makes
# the low word of the counter wrap inside a vector.
CASES = [(0, 1, "float64", UNIFORM), (0, 63, "float64", UNIFORM), (3, 1030, "float32", UNIFORM),
         (2**32 - 5, 777, "float64", UNIFORM), (2**32 - 40, 5000, "float32", NORMAL),
         (2**40 + 17, 2049, "int64", INTEGER), (1, 4099, "float32", BERNOULLI)]

CHILD = r"""
import sys
import numpy as np
import torchlike as tl
from test_philox_paths import CASES, draw
np.savez(sys.argv[1], *[draw(*c) for c in CASES])
"""


def generator_at(block):
    """A generator (seed 1234) whose next draw starts at counter block `block`."""
    g = tl.Generator().manual_seed(1234)
    state = np.asarray(g.get_state()).copy()
    state[8:16] = np.frombuffer(np.uint64(block).tobytes(), np.uint8)
    g.set_state(tl.tensor(state))
    return g


def draw(block, n, dtype, kind):
    g = generator_at(block)
    if kind == UNIFORM:
        t = tl.rand(n, dtype=getattr(tl, dtype), generator=g)
    elif kind == NORMAL:
        t = tl.randn(n, dtype=getattr(tl, dtype), generator=g)
    elif kind == INTEGER:
        t = tl.randint(-7, 2**40, (n,), generator=g)
    else:
        t = tl.empty(n, dtype=getattr(tl, dtype)).bernoulli_(0.3, generator=g)
    return np.asarray(t)


def reference(block, n, dtype, kind):
    like = tl.empty(n, dtype=getattr(tl, dtype))
    low, range_ = (-7, 2**40 + 7) if kind == INTEGER else (0, 0)
    a = 0.3 if kind == BERNOULLI else 0.0
    ref = _C._random_reference(generator_at(block), like, kind, a, 1.0, low, range_)
    return np.asarray(ref.to(like.dtype))


@pytest.mark.parametrize("path", ["avx512", "avx2", "0"])
def test_every_path_draws_the_reference_stream(path, tmp_path):
    env = dict(os.environ, TORCHLIKE_PHILOX_SIMD=path,
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    out = tmp_path / "draws.npz"
    subprocess.run([sys.executable, "-c", CHILD, str(out)], env=env, check=True, cwd=ROOT)
    got = np.load(out)
    for i, case in enumerate(CASES):
        np.testing.assert_array_equal(got[f"arr_{i}"], reference(*case), strict=True,
                                      err_msg=f"path {path}, case {case}")


def test_the_default_path_draws_the_reference_stream():
    for case in CASES:
        np.testing.assert_array_equal(draw(*case), reference(*case), strict=True,
                                      err_msg=f"case {case}")
