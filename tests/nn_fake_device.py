"""Shared by the tests of src/nn's families: run a script against the fake
device in a subprocess (a kernel that touched fake memory would kill the
interpreter; the test then fails with the script's stderr)."""
import subprocess
import sys
import textwrap

PRELUDE = """
import numpy as np
import torchlike as T
import torchlike.nn.functional as F
C = T._C
C._fake_enable()

def expect_no_kernel(call, op):
    try:
        call()
    except NotImplementedError as e:
        assert str(e) == op + "(): no kernel for device fake:0 and dtype float32", e
    else:
        raise AssertionError("ran without a kernel")
"""


def run_on_fake_device(body):
    """Run PRELUDE + body (dedented); it must print "ok" last."""
    code = PRELUDE + textwrap.dedent(body)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-3000:]
