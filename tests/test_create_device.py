"""Creation on a device: the tensor is allocated there and filled there by the
device's FILL and RANDOM kernels (the kernel table), never made on the host
and copied, and never filled by a host loop on device memory.

The fake device (host memory behind tagged pointers: a host loop touching them
crashes) has no kernels of its own, so every fill refuses with the kernel
table's NotImplementedError naming the function, the device and the dtype;
with the CPU's kernels lent to it, the results land on fake:0 with the CPU's
values, and the same generator seed draws the same numbers.  Each run is a
subprocess, so a host loop on fake memory fails the test instead of killing
the test run."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# One call per function; DEV is "cpu" or "fake", x a float32 2x3 tensor on DEV.
CALLS = {
    "zeros": "T.zeros(2, 3, device=DEV)",
    "ones": "T.ones((2, 3), device=DEV, dtype=T.int32)",
    "full": "T.full((2, 2), 1.5, device=DEV)",
    "arange": "T.arange(1, 7, 2, device=DEV)",
    "linspace": "T.linspace(0, 1, 5, device=DEV)",
    "logspace": "T.logspace(0, 2, 3, device=DEV, dtype=T.float64)",
    "eye": "T.eye(2, 3, device=DEV)",
    "scalar_tensor": "T.scalar_tensor(2.5, device=DEV)",
    "rand": "T.rand(2, 3, device=DEV)",
    "randn": "T.randn(4, device=DEV, dtype=T.float64)",
    "randint": "T.randint(0, 10, (5,), device=DEV)",
    "randperm": "T.randperm(6, device=DEV)",
    "normal": "T.normal(1.0, 2.0, (3,), device=DEV)",
    "zeros_like": "T.zeros_like(x)",
    "ones_like": "T.ones_like(x)",
    "full_like": "T.full_like(x, 7)",
    "rand_like": "T.rand_like(x)",
    "randn_like": "T.randn_like(x)",
    "randint_like": "T.randint_like(x, 5)",
    "new_zeros": "x.new_zeros(2)",
    "new_ones": "x.new_ones(2)",
    "new_full": "x.new_full((2,), 3.0)",
}
# What needs no fill kernel: allocation alone, and data copied from the host.
NO_KERNEL_NEEDED = {
    "empty": "T.empty(2, 3, device=DEV)",
    "empty_like": "T.empty_like(x)",
    "new_empty": "x.new_empty(3)",
    "empty_strided": "T.empty_strided((2, 2), (1, 2), device=DEV)",
    "tensor": "T.tensor([1.0, 2.0], device=DEV)",
    "new_tensor": "x.new_tensor([1, 2])",
}
DTYPES = {"ones": "int32", "logspace": "float64", "randn": "float64", "randint": "int64",
          "randperm": "int64", "arange": "int64"}

SCRIPT = """
import json, sys
import numpy as np
import torchlike as T
C = T._C
C._fake_enable()
if sys.argv[1] == "lend":
    C._dispatch_lend_cpu_kernels("fake", True)
calls = json.loads(sys.stdin.read())
for name, call in calls.items():
    print("RUN " + name, flush=True)
    out = {}
    for dev in ("cpu", "fake"):
        T.manual_seed(0)
        env = {"T": T, "DEV": dev, "x": T.ones(2, 3).to(dev) if dev == "cpu" else None}
        if dev == "fake":
            env["x"] = T.tensor([[1.0] * 3] * 2).to("fake")  # copied there: no kernel
        try:
            r = eval(call, env)
            out[dev] = ["ok", str(r.device), str(r.dtype).split(".")[-1], list(r.shape),
                        r.cpu().numpy().tolist() if not name.startswith(("empty", "new_empty"))
                        else None]
        except Exception as e:
            out[dev] = ["raised", type(e).__name__, str(e)]
    print("DONE " + json.dumps([name, out["fake"], out["cpu"]]), flush=True)
"""


def run(mode, calls):
    p = subprocess.run([sys.executable, "-c", SCRIPT, mode], input=json.dumps(calls),
                       capture_output=True, text=True, timeout=120)
    out = p.stdout.splitlines()
    if p.returncode != 0:
        running = [ln[4:] for ln in out if ln.startswith("RUN ")]
        pytest.fail(f"the run died (code {p.returncode}) in {running[-1]!r}: host code touched "
                    f"fake memory\n{p.stderr[-3000:]}")
    done = [json.loads(ln[5:]) for ln in out if ln.startswith("DONE ")]
    assert len(done) == len(calls)
    return {name: (fake, cpu) for name, fake, cpu in done}


def test_fills_refuse_on_a_device_without_kernels():
    results = run("own", CALLS)
    for name, (fake, cpu) in results.items():
        assert cpu[0] == "ok", (name, cpu)
        dtype = DTYPES.get(name, "float32")
        assert fake == ["raised", "NotImplementedError",
                        f"{name}(): no kernel for device fake:0 and dtype {dtype}"], name


def test_fills_run_on_the_device_with_its_kernels_and_match_the_cpu():
    results = run("lend", CALLS)
    for name, (fake, cpu) in results.items():
        assert cpu[0] == "ok" and cpu[1] == "cpu", (name, cpu)
        assert fake[0] == "ok" and fake[1] == "fake:0", (name, fake)
        assert fake[2:4] == cpu[2:4], name  # dtype and shape
        # same values; for the draws, the same seed gives the same numbers
        np.testing.assert_array_equal(np.array(fake[4]), np.array(cpu[4]), err_msg=name)


def test_allocation_and_copies_need_no_fill_kernel():
    for mode in ("own", "lend"):
        results = run(mode, NO_KERNEL_NEEDED)
        for name, (fake, cpu) in results.items():
            assert fake[0] == "ok" and fake[1] == "fake:0", (mode, name, fake)
            assert fake[2:4] == cpu[2:4], name
            if fake[4] is not None:
                assert fake[4] == cpu[4], name


def test_in_place_draws_and_rate_draws_on_the_device():
    code = SCRIPT.split("calls = json")[0] + textwrap.dedent("""
        out = {}
        for dev in ("cpu", "fake"):
            g = T.Generator().manual_seed(5)
            x = T.tensor([[0.2, 0.9], [0.5, 0.1]]).to(dev)
            r = [x.clone().uniform_(2, 3, generator=g), x.clone().normal_(generator=g),
                 x.clone().random_(7, generator=g), x.clone().bernoulli_(0.5, generator=g),
                 x.clone().exponential_(generator=g), T.bernoulli(x, generator=g),
                 T.normal(x, 1.0, generator=g), T.poisson(x, generator=g)]
            out[dev] = [[str(t.device), t.cpu().numpy().tolist()] for t in r]
        print(json.dumps(out))
    """)
    p = subprocess.run([sys.executable, "-c", code, "lend"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)
    for (dev_f, vf), (dev_c, vc) in zip(out["fake"], out["cpu"]):
        assert dev_f == "fake:0" and dev_c == "cpu"
        assert vf == vc
