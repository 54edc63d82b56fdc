"""Memory stays flat: every op run in a loop leaves refcounts of its inputs
unchanged and the process's resident memory bounded.  Outputs are discarded
each time, so any growth is a leak in the op's path."""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl
from oracle import UNDER_ASAN, rss_bytes

LOOPS = 3000  # calls per round
ROUNDS = 3
RSS_SLACK = 2 << 20


def op_calls():
    """(label, zero-argument callable, inputs whose refcounts must not move)."""
    x = tl.tensor(np.linspace(0.1, 0.9, 64, dtype=np.float32).reshape(8, 8))
    y = tl.tensor(np.linspace(1.0, 2.0, 64, dtype=np.float32).reshape(8, 8))
    a = np.arange(64.0).reshape(8, 8)
    for name in sorted(dir(tl._C)):
        fn = getattr(tl._C, name)
        if type(fn).__name__ != "op":
            continue
        mask = tl.tensor(np.arange(64).reshape(8, 8) % 3 == 0)
    for args in [(x,), (x, y), (mask, x, y)]:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - only calls that work are leak-checked
                continue
            yield name, (lambda fn=fn, args=args: fn(*args)), [x, y]
            break
    yield "from_numpy", lambda: tl.from_numpy(a), [a]
    yield "numpy", lambda: x.numpy(), [x]
    yield "__array__", lambda: np.asarray(x), [x]
    yield "tensor", lambda: tl.tensor([[1.0, 2.0], [3.0, 4.0]]), []
    yield "getitem", lambda: x[1:5:2, None, ..., -1], [x]
    yield "setitem", lambda: x.__setitem__((slice(0, 2),), 0.5), [x]
    yield "operators", lambda: (x + 1) * y - x / 2, [x, y]
    yield "reshape-copy", lambda: x.T.reshape(64), [x]
    yield "tolist", lambda: x.tolist(), [x]
    yield "repr", lambda: repr(x), [x]
    yield "error path", lambda: _raises(lambda: x + tl.zeros(3)), [x]
    yield "error path convert", lambda: _raises(lambda: tl.tensor([[1], [2, 3]])), []


def _raises(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        return
    raise AssertionError("expected an error")


def run_case(label):
    """Run op_calls()'s case `label` in a loop; AssertionError on growth."""
    call, inputs = next((c, i) for name, c, i in op_calls() if name == label)
    for _ in range(50):  # warm caches, pools, interned objects
        call()
    gc.collect()
    refs = [sys.getrefcount(o) for o in inputs]
    # A leak grows the heap in every round; a one-off jump (a malloc arena)
    # shows in one round only, so the flattest round is the one judged.
    growth = []
    for _ in range(ROUNDS):
        before = rss_bytes()
        for _ in range(LOOPS):
            call()
        gc.collect()
        growth.append(rss_bytes() - before)
    assert [sys.getrefcount(o) for o in inputs] == refs, f"{label} leaks references"
    assert UNDER_ASAN or min(growth) < RSS_SLACK, f"{label}: RSS grew by {growth} bytes per round"


# Each case runs in a fresh interpreter: the resident size is the process's,
# and after the rest of the suite it also moves with what earlier tests left.
@pytest.mark.parametrize("label", [name for name, _, _ in op_calls()])
def test_op_does_not_leak(label):
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(here), here]))
    r = subprocess.run([sys.executable, "-c", f"import test_leaks; test_leaks.run_case({label!r})"],
                       cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
