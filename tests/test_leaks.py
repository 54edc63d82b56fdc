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


def registry_calls():
    """(label, zero-argument callable, inputs whose refcounts must not move)
    for every registry op that accepts one of three small argument lists."""
    x, y = _operands()
    mask = tl.tensor(np.arange(64).reshape(8, 8) % 3 == 0)
    for name in sorted(dir(tl._C)):
        fn = getattr(tl._C, name)
        if type(fn).__name__ != "op":
            continue
        for args in [(x,), (x, y), (mask, x, y)]:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - only calls that work are leak-checked
                continue
            yield name, (lambda fn=fn, args=args: fn(*args)), [x, y, mask]
            break


def _operands():
    x = tl.tensor(np.linspace(0.1, 0.9, 64, dtype=np.float32).reshape(8, 8))
    y = tl.tensor(np.linspace(1.0, 2.0, 64, dtype=np.float32).reshape(8, 8))
    return x, y


def op_calls():
    """The Python-facing paths around the ops: conversion, indexing, errors."""
    x, y = _operands()
    a = np.arange(64.0).reshape(8, 8)
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
    yield "resize_ grows the storage", lambda: tl.arange(4.0).resize_(8, 8), []
    yield "post-accumulate-grad hook", _post_hook_backward, []


def _post_hook_backward():
    w = tl.ones(8, requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda t: None)
    (w * 2).sum().backward()


def _raises(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        return
    raise AssertionError("expected an error")


def run_case(label, calls=op_calls):
    """Run calls()'s case `label` in a loop; AssertionError on growth."""
    call, inputs = next((c, i) for name, c, i in calls() if name == label)
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


def run_registry():
    """Every registry op in turn, in this process; one line per failure."""
    failures = []
    for label, _, _ in registry_calls():
        try:
            run_case(label, registry_calls)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


def _fresh(code):
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(here), here]))
    r = subprocess.run([sys.executable, "-c", f"import test_leaks; {code}"],
                       cwd=here, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-4000:]


# Each case runs in a fresh interpreter: the resident size is the process's,
# and after the rest of the suite it also moves with what earlier tests left.
@pytest.mark.parametrize("label", [name for name, _, _ in op_calls()])
def test_op_does_not_leak(label):
    _fresh(f"test_leaks.run_case({label!r})")


def test_registry_ops_do_not_leak():
    # about 150 ops, one interpreter: a few seconds.
    assert sum(1 for _ in registry_calls()) > 100  # the argument lists still fit most ops
    _fresh("test_leaks.run_registry()")
