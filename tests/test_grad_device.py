"""Autograd is device-clean: forward and backward of recorded ops on the fake
test device (host memory behind its own backend, lent the CPU's kernels) keep
every gradient on that device, equal to the CPU's.  Runs in a subprocess: the
lending hook changes the process's dispatch table."""
import subprocess
import sys
import textwrap

import pytest

import torchlike as T

CASES = {
    "elementwise": "(x.exp() * y.sin() + x / (y.abs() + 1)).sum()",
    "broadcast": "(x * y[0]).tanh().mean()",
    "reduction": "x.var(1).sum() + x.amax(0).sum() + x.logsumexp(0).sum()",
    "matmul": "(x @ y.T).square().sum()",
    "linalg": "T.linalg.inv(x @ x.T + T.eye(3, dtype=x.dtype).to(x.device)).sum()",
    "index": "x[:, [0, 2]].sum() + x.gather(1, T.tensor([[0], [1], [2]]).to(x.device)).sum()",
    "shape": "T.cat([x, y]).flip(0).transpose(0, 1).reshape(-1)[::2].sum()",
    "where": "T.where(x > 0, x, y * 2).sum()",
    "cumsum": "x.cumsum(1).sum()",
    "sort": "x.sort(1).values[:, 0].sum()",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_stay_on_the_inputs_device_and_equal_the_cpus(name):
    code = textwrap.dedent(f"""
        import numpy as np
        import torchlike as T
        C = T._C
        C._fake_enable()
        C._dispatch_lend_cpu_kernels("fake", True)
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
        grads = {{}}
        for dev in ("cpu", "fake"):
            x = T.from_numpy(a.copy()).to(dev).requires_grad_()
            y = T.from_numpy(b.copy()).to(dev).requires_grad_()
            loss = {CASES[name]}
            assert str(loss.device) == ("fake:0" if dev == "fake" else "cpu"), loss.device
            loss.backward()
            for t in (x, y):
                if t.grad is not None:
                    assert str(t.grad.device) == str(t.device), (t.grad.device, t.device)
            grads[dev] = [None if t.grad is None else t.grad.cpu().numpy() for t in (x, y)]
        for g_cpu, g_fake in zip(grads["cpu"], grads["fake"]):
            assert (g_cpu is None) == (g_fake is None)
            if g_cpu is not None:
                np.testing.assert_allclose(g_fake, g_cpu, rtol=1e-12, atol=1e-12)
        print("ok")
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-3000:]
