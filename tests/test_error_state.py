"""The C core's thread-local error (tl_error.h) never outlives the call that
set it.

tl_error_set keeps only the first error until it is cleared, so a failure
that a caller handled without clearing it (a fallback, a probe, an error
raised in other words) would become the message of the next, unrelated
failure on the thread.  These tests provoke each kind of handled failure,
check that nothing is left pending (_C._core_error), then run a different
failing op and check its own exception, then a succeeding op against NumPy.
They also check the entries from Python (ops, operators, indexing, the
generated method and function binders) start clean when an error was left
pending anyway (_C._core_error_leave plays the forgetful call).
"""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import torchlike
import torchlike.nn.functional as F
from torchlike import _C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STALE = "stale: left pending by an earlier call"


@pytest.fixture(autouse=True)
def clean_state():
    _C._core_error_leave(None)
    yield
    _C._core_error_leave(None)


def own_failure_then_success():
    """A failure of its own after whatever came before, then a right result."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for dimension 0 with size 2"):
        torchlike.tensor(a)[7]
    assert _C._core_error() is None
    r = torchlike.tensor(a).T @ torchlike.tensor(a)
    np.testing.assert_allclose(r.numpy(), a.T @ a)


# ---- failures handled where they happen ---------------------------------------------
# Each call fails inside the core, and the failing function or its caller
# replaces that first error with its own message (clearing it first, since
# tl_error_set keeps the first): the user sees the op's own wording, and
# nothing stays pending for the next op.

def _sdpa_with_a_bad_mask():
    # the kernel itself (F.scaled_dot_product_attention refuses such a mask
    # before it, in PyTorch's broadcasting words)
    q = torchlike.ones(2, 4, 8)
    _C._scaled_dot_product_flash_attention_for_cpu(
        q, q, q, attn_mask=torchlike.ones(3, 4, 4, dtype=torchlike.bool))


HANDLED = [
    # (what, the call, its exception, its own message)
    ("matmul batch dims", lambda: torchlike.ones(2, 3, 4) @ torchlike.ones(5, 4, 2), RuntimeError,
     r"^matmul: batch dimensions of \[2, 3, 4\] and \[5, 4, 2\] do not broadcast$"),
    ("addmm input", lambda: torchlike.addmm(torchlike.ones(5, 7), torchlike.ones(2, 3),
                                            torchlike.ones(3, 4)), RuntimeError,
     r"^addmm: the input of shape \[5, 7\] cannot be broadcast to the result shape \[2, 4\]$"),
    ("linalg.solve batch dims", lambda: torchlike.linalg.solve(
        torchlike.eye(3).expand(2, 3, 3), torchlike.ones(4, 3, 1)), RuntimeError,
     r"^linalg.solve: batch dimensions of A \[2, 3, 3\] and B \[4, 3, 1\] do not broadcast$"),
    ("linalg.cross", lambda: torchlike.linalg.cross(torchlike.ones(2, 3), torchlike.ones(4, 3)),
     RuntimeError, r"^linalg.cross: inputs of shapes \[2, 3\] and \[4, 3\] do not broadcast$"),
    ("masked_fill_ mask", lambda: torchlike.ones(2, 3).masked_fill_(
        torchlike.ones(2, 1, 3, dtype=torchlike.bool), 0.0), RuntimeError,
     r"^masked_fill_: the mask of shape \[2, 1, 3\] cannot be broadcast to the shape \[2, 3\]"),
    ("masked_scatter_ mask", lambda: torchlike.ones(2, 3).masked_scatter_(
        torchlike.ones(4, dtype=torchlike.bool), torchlike.ones(6)), RuntimeError,
     r"^masked_scatter_: the mask of shape \[4\] cannot be broadcast to the shape \[2, 3\]"),
    ("masked_select mask", lambda: torchlike.ones(2, 3).masked_select(
        torchlike.ones(4, dtype=torchlike.bool)), RuntimeError,
     r"^masked_select\(\): the shape of the mask \[4\] and the shape of input \[2, 3\] cannot"),
    ("advanced index shapes", lambda: torchlike.ones(4, 5)[torchlike.tensor([0, 1]),
                                                            torchlike.tensor([0, 1, 2])],
     IndexError, r"^shape mismatch: indexing tensors could not be broadcast together with "
                 r"shapes \[2\], \[3\]$"),
    ("too many indexed dims", lambda: torchlike.ones(1)[(None,) * 70], IndexError,
     r"^indexing would give more than \d+ dimensions$"),
    ("prelu weight", lambda: _C._prelu_kernel(torchlike.ones(2, 3, 4), torchlike.ones(2, 2)),
     RuntimeError, r"^_prelu_kernel\(\): weight of shape \[2, 2\] does not broadcast to the "
                   r"input's shape \[2, 3, 4\]$"),
    ("attention mask", _sdpa_with_a_bad_mask, RuntimeError,
     r"attn_mask of shape \[3, 4, 4\] cannot be broadcast to the attention scores' shape"),
    ("adaptive pool size", lambda: F.adaptive_avg_pool2d(torchlike.ones(1, 1, 4, 4),
                                                         (2 ** 40, 2 ** 40)), RuntimeError,
     r"Storage size calculation overflowed with sizes=\[1, 1, 1099511627776, 1099511627776\]$"),
]


@pytest.mark.parametrize("what,call,exc,message", HANDLED, ids=[h[0] for h in HANDLED])
def test_reworded_failure_keeps_its_message_and_leaves_nothing(what, call, exc, message):
    with pytest.raises(exc, match=message):
        call()
    assert _C._core_error() is None
    own_failure_then_success()


def test_bad_allocator_setting_leaves_no_error():
    """A bad TORCHLIKE_CUDA_ALLOC_CONF falls back to the defaults when a
    device pool is made (the fake device's, made once per process, so in a
    process of its own): that parse failure must not become the next
    failure's message."""
    code = textwrap.dedent("""
        import torchlike
        from torchlike import _C
        assert not _C._fake_enabled()
        _C._fake_enable()
        assert _C._core_error() is None, _C._core_error()
        try:
            torchlike.ones(2)[7]
        except IndexError as e:
            assert "index 7 is out of bounds for dimension 0 with size 2" in str(e), e
        assert _C._core_error() is None
        print((torchlike.ones(2, 3).T @ torchlike.ones(2, 3)).sum().item())
    """)
    env = dict(os.environ, TORCHLIKE_CUDA_ALLOC_CONF="no_such_option:1",
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    env.pop("TORCHLIKE_TEST_DEVICE", None)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and p.stdout.split() == ["18.0"], p.stdout + p.stderr


# ---- the entries start clean -------------------------------------------------------

def _setitem_out_of_range():
    x = torchlike.zeros(2)
    x[5] = 1.0


ENTRIES = [
    # (entry kind, the failing call, its exception, a piece of its own message)
    ("registry op", lambda: torchlike.ones(2, 3).sum(dim=5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    ("binary operator", lambda: torchlike.ones(2, 3) + torchlike.ones(4), ValueError,
     r"shapes \[2, 3\] and \[4\] cannot be broadcast"),
    ("unary operator", lambda: -torchlike.ones(2, dtype=torchlike.bool), TypeError,
     r"neg\(\) with bool tensors is not supported"),
    ("getitem", lambda: torchlike.ones(2)[5], IndexError,
     r"index 5 is out of bounds for dimension 0 with size 2"),
    ("setitem", _setitem_out_of_range, IndexError,
     r"index 5 is out of bounds for dimension 0 with size 2"),
    ("generated method", lambda: torchlike.ones(6).view(4), RuntimeError,
     r"shape '\[4\]' is invalid for input of size 6"),
    ("generated function", lambda: torchlike.ones(2, 3) @ torchlike.ones(2, 3), RuntimeError,
     r"shapes cannot be multiplied \(2x3 and 2x3\)"),
]


@pytest.mark.parametrize("kind,call,exc,message", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_entry_drops_an_error_left_pending(kind, call, exc, message):
    _C._core_error_leave(STALE)
    assert _C._core_error() == STALE
    with pytest.raises(exc, match=message):
        call()
    assert _C._core_error() is None
    own_failure_then_success()


@pytest.mark.parametrize("call", [
    lambda: torchlike.ones(2, 3) + torchlike.ones(2, 3),
    lambda: torchlike.ones(2, 3).sum(dim=1),
    lambda: torchlike.ones(2, 3)[1],
    lambda: torchlike.ones(6).view(3, 2),
], ids=["operator", "op", "getitem", "method"])
def test_succeeding_entry_leaves_no_error(call):
    _C._core_error_leave(STALE)
    call()
    assert _C._core_error() is None


def test_errors_are_per_thread():
    """A pending error belongs to its thread: another thread neither sees it nor
    reports it, and its own failures keep their messages."""
    _C._core_error_leave(STALE)
    seen = {}
    start = threading.Barrier(2)

    def worker():
        seen["pending"] = _C._core_error()
        start.wait()
        for _ in range(50):
            try:
                torchlike.ones(3)[9]
            except IndexError as e:
                seen.setdefault("messages", set()).add(str(e))
        _C._core_error_leave("the worker's own")
        seen["left"] = _C._core_error()
        _C._core_error_leave(None)  # a thread ending with one pending would keep the
        # entries' shortcut (tl_error_maybe_pending) off for the rest of the process

    t = threading.Thread(target=worker)
    t.start()
    start.wait()
    for _ in range(50):  # failing at the same time on this thread
        with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 6"):
            torchlike.ones(6).view(5)
    t.join()
    assert seen["pending"] is None
    assert seen["messages"] == {"index 9 is out of bounds for dimension 0 with size 3"}
    assert seen["left"] == "the worker's own"
    assert _C._core_error() is None  # our view() dropped STALE; the worker's stayed there
    own_failure_then_success()
