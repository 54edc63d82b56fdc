"""nn.parallel's pieces, torchlike.cpu's device module, allow_mutation_on_
saved_tensors and queue_callback, utils.hooks, func.debug_unwrap,
accelerator.get_device_capability, random.thread_safe_generator,
optim.swap_in_optimizer_params_and_state and torchlike.cuda's small queries:
PyTorch's recorded answers (scripts/golden_namespace_gaps.py ->
tests/golden/namespace_gaps.json, made on a machine without a GPU), the
emulated device for what PyTorch needs a GPU for, NumPy and finite
differences for values and gradients, /proc/cpuinfo for the CPU's
capabilities."""
import os
import platform
import sys
import types

import numpy as np
import pytest

import torchlike as T
from torchlike import _C
from oracle import golden_calls
from test_saved_tensor_hooks import run_emulated_code

CALLS, _golden = golden_calls("namespace_gaps")

# Where torchlike answers differently on purpose (docs/api_surface.md):
DIFFERENT = {
    # the oracle's CUDA runtime fails on this machine (an old driver stub):
    # replicating host tensors is refused before any CUDA call here
    "T.nn.parallel.replicate(LIN(T), [-1], detach=True)": ["raises", "AssertionError"],
    # nothing captures CUDA graphs in torchlike; PyTorch's raised the same driver error
    "T.cuda.is_current_stream_capturing()": ["value", False],
    "T.cuda.has_magma": ["value", False],  # cuSOLVER, no MAGMA
    # what PyTorch's sym_* helpers assert is a TypeError here (its words)
    "T.sym_max(T.tensor(2), 3)": ["raises", "TypeError"],
    "T.sym_max(2, 'a')": ["raises", "TypeError"],
    "T.sym_ite(0, 1, 2)": ["raises", "TypeError", "expected SymBool or bool, got <class 'int'>"],
    "T.sym_ite(True, 1, 2.0)": ["raises", "TypeError",
                                "type mismatch: <class 'int'> vs <class 'float'>"],
}
# PyTorch's Scatter backward gathers on the host and refuses; ours flows (the
# values are checked against NumPy below)
FLOWS = {"scatter_grad(T)"}
FLOW_HEAD = [["value", "T"], ["list", [["value", 5], ["value", 2]]], ["value", "cpu"]]
# exceptions whose type is PyTorch's but whose words are torchlike's
OWN_WORDS = {"mutation_outside(T)", "mutation_none(T)"}
# the recording machine's own answers
X86_64 = {"cap_types(T)", "T.cpu.get_capabilities()['architecture']"}


def _matches(call, got, want):
    if call in DIFFERENT:
        return got[:len(DIFFERENT[call])] == DIFFERENT[call]
    if call in FLOWS:
        return got[0] == "list" and got[1][:3] == FLOW_HEAD
    if want[0] == "raises":
        if got[0] != "raises":
            return False
        if not _C._cuda_compiled() and got[1] != want[1]:
            # a build without CUDA: the GPU checks raise before the argument checks
            return got[1] in ("AssertionError", "RuntimeError")
        # where PyTorch's words are about its machine (no driver), the type is the answer
        own = call in OWN_WORDS or "NVIDIA driver" in want[2]
        return got[1] == want[1] and (own or got[2] == want[2])
    return got == want


@pytest.mark.parametrize("call, want", CALLS, ids=[c for c, _ in CALLS])
def test_answers_match_pytorch(call, want):
    if call in X86_64 and platform.machine() != "x86_64":
        pytest.skip("recorded on an x86-64 machine")
    if "T.cuda." in call and "(0" in call and _has_pynvml():
        pytest.skip("answers recorded without nvidia-ml-py")
    try:
        got = _golden.describe(eval(call, _golden.inputs(T)))
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        got = ["raises", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    assert _matches(call, got, want), (got, want)


def _has_pynvml():
    try:
        import pynvml  # noqa: F401
    except ImportError:
        return False
    return True


# ---- nn.parallel ------------------------------------------------------------------------

def test_scatter_gradient_is_the_chunks_gradients():
    a = np.sin(np.arange(10.0)).reshape(5, 2)
    x = T.from_numpy(a.copy()).requires_grad_()
    p0, p1, p2 = T.nn.parallel.scatter(x, [-1, -1, -1])
    (p0.sum() * 2 + (p1 ** 2).sum() + p2.exp().sum()).backward()
    want = np.concatenate([np.full((2, 2), 2.0), 2 * a[2:4], np.exp(a[4:])])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


def test_parallel_apply_runs_in_threads_with_the_callers_grad_mode():
    m = T.nn.Linear(2, 3).double()
    xs = [T.ones(2, 2, dtype=T.float64), T.zeros(1, 2, dtype=T.float64)]
    with T.no_grad():
        outs = T.nn.parallel.parallel_apply([m, m], [xs[0], (xs[1],)])
    assert [o.requires_grad for o in outs] == [False, False]
    np.testing.assert_allclose(outs[1].numpy(), m.bias.detach().numpy()[None])
    outs = T.nn.parallel.parallel_apply([m, m], xs, devices=["cpu", None])
    assert all(o.requires_grad for o in outs)

    class Boom(T.nn.Module):
        def forward(self, x):
            raise KeyError("no such key")

    with pytest.raises(KeyError, match="in replica 1 on device cpu"):
        T.nn.parallel.parallel_apply([m, Boom()], xs)
    with pytest.raises(RuntimeError, match="device cannot be resolved"):
        T.nn.parallel.parallel_apply([m, m], [xs[0], 3])


EMULATED = """
import numpy as np
import torchlike as T
from torchlike.nn import parallel as P
T._C._fake_enable(); T._C._fake_emulate_device()
rng = np.random.default_rng(0)
a = rng.standard_normal((5, 2))

# scatter / gather: chunks on the device, gathered anywhere, gradient back
x = T.from_numpy(a.copy()).to("fake").requires_grad_()
parts = P.scatter(x, ["fake", "fake:0", T.device("fake", 0)])
assert [tuple(p.shape) for p in parts] == [(2, 2), (2, 2), (1, 2)]
assert all(str(p.device) == "fake:0" for p in parts)
g = P.gather(parts, "cpu")
assert g.device.type == "cpu"
np.testing.assert_array_equal(g.detach().numpy(), a)
w = rng.standard_normal((5, 2))
(g * T.from_numpy(w)).sum().backward()
np.testing.assert_allclose(x.grad.cpu().numpy(), w)
assert str(P.gather([parts[0], parts[1]], "fake:0", dim=0).device) == "fake:0"
assert tuple(P.gather([{"k": parts[0]}, {"k": parts[1]}], -1)["k"].shape) == (4, 2)

# replicate: alias then copies with history; gradients reach the original
T.manual_seed(0)
net = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh(), T.nn.Linear(3, 1)).double().to("fake")
reps = P.replicate(net, ["fake:0", "fake:0"])
assert len(reps) == 2 and all(r._is_replica for r in reps)
assert list(reps[0].parameters()) == [] and reps[0][0] is not net[0]
assert reps[0][0].weight.untyped_storage().data_ptr() == net[0].weight.untyped_storage().data_ptr()
assert reps[1][0].weight.untyped_storage().data_ptr() != net[0].weight.untyped_storage().data_ptr()
detached = P.replicate(net, ["fake"], detach=True)[0]
assert all(not p.requires_grad for p in detached.__dict__.values() if isinstance(p, T.Tensor))
outs = P.parallel_apply(reps, [x.detach()[:3], x.detach()[3:]])
loss = P.gather(outs, "fake").pow(2).sum()
loss.backward()
ref = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh(), T.nn.Linear(3, 1)).double()
ref.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
ref(T.from_numpy(a.copy())).pow(2).sum().backward()
for p, q in zip(net.parameters(), ref.parameters()):
    np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-10)

# data_parallel: the same algorithm end to end, the output where asked
net.zero_grad()
out = P.data_parallel(net, x.detach(), device_ids=["fake:0", "fake:0"], output_device="cpu")
assert out.device.type == "cpu"
np.testing.assert_allclose(out.detach().numpy(), ref(T.from_numpy(a.copy())).detach().numpy(),
                           rtol=1e-12)
one = P.data_parallel(net, (x.detach(),), device_ids=["fake"], module_kwargs=None)
assert str(one.device) == "fake:0"
try:
    P.data_parallel(net.cpu(), x.detach().cpu(), device_ids=["fake"])
except RuntimeError as e:
    assert "module must have its parameters and buffers on device fake:0" in str(e), e
else:
    raise AssertionError("a host module on a fake device ran")
print("ok")
"""


def test_parallel_pieces_on_the_emulated_device():
    run_emulated_code(EMULATED)


# ---- torchlike.cpu --------------------------------------------------------------------------

# cpuinfo's names -> Linux's /proc/cpuinfo flags
LINUX_FLAGS = {
    "sse": "sse", "sse2": "sse2", "sse3": "pni", "ssse3": "ssse3", "sse4_1": "sse4_1",
    "sse4_2": "sse4_2", "sse4a": "sse4a", "avx": "avx", "avx2": "avx2", "avx_vnni": "avx_vnni",
    "fma3": "fma", "fma4": "fma4", "f16c": "f16c", "bmi": "bmi1", "bmi2": "bmi2",
    "popcnt": "popcnt", "lzcnt": "abm", "aes": "aes", "sha": "sha_ni", "clflush": "clflush",
    "clflushopt": "clflushopt", "clwb": "clwb", "avx512_f": "avx512f", "avx512_cd": "avx512cd",
    "avx512_dq": "avx512dq", "avx512_bw": "avx512bw", "avx512_vl": "avx512vl",
    "avx512_ifma": "avx512ifma", "avx512_vbmi": "avx512vbmi", "avx512_vbmi2": "avx512_vbmi2",
    "avx512_bitalg": "avx512_bitalg", "avx512_vpopcntdq": "avx512_vpopcntdq",
    "avx512_vnni": "avx512_vnni", "avx512_bf16": "avx512_bf16", "avx512_fp16": "avx512_fp16",
    "amx_bf16": "amx_bf16", "amx_tile": "amx_tile", "amx_int8": "amx_int8",
}


@pytest.mark.skipif(platform.machine() != "x86_64" or not os.path.exists("/proc/cpuinfo"),
                    reason="compares with Linux's x86 flags")
def test_capabilities_agree_with_the_kernels_flags():
    with open("/proc/cpuinfo") as f:
        flags = next(line for line in f if line.startswith("flags")).split(":")[1].split()
    caps = T.cpu.get_capabilities()
    got = {name: caps[name] for name in LINUX_FLAGS}
    want = {name: LINUX_FLAGS[name] in flags for name in LINUX_FLAGS}
    assert got == want
    assert caps["num_logical_cores"] == os.cpu_count()
    assert T.cpu._is_avx2_supported() == caps["avx2"]


# ---- autograd.graph ------------------------------------------------------------------------

def _fd_grad(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


def test_mutated_saved_tensors_give_the_forward_values_gradient():
    a0 = np.array([[0.3, -1.1, 0.7], [1.5, 0.2, -0.4]])

    def forward(b):
        return (b.tanh() * b.exp()).sum() + (b[:, 1:] ** 3).sum()

    a = T.from_numpy(a0.copy()).requires_grad_()
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = forward(b)
        b[:, 1:].mul_(-2)  # a view at an offset (PyTorch would not see this write)
        b.relu_()
        T.nn.functional.dropout(b, 0.5, True, True)  # inplace given by position
        out.backward()
    want = _fd_grad(lambda v: float(forward(T.from_numpy(v))), a0)
    np.testing.assert_allclose(a.grad.numpy(), want, rtol=1e-7, atol=1e-9)


def test_an_unseen_write_still_raises_the_version_error():
    a = T.ones(3, dtype=T.float64, requires_grad=True)
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b * b).sum()
        with T.no_grad():
            b.detach().numpy()[0] = 7.0  # NumPy writes, no torchlike call sees it
            T.autograd.graph.increment_version(b)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


# ---- torchlike.cuda: NVML through a stand-in pynvml ------------------------------------------

def _stub_pynvml(monkeypatch, uuids):
    calls = []

    class Info:
        used, gpu, memory = 123, 45, 67

    stub = types.SimpleNamespace(
        NVMLError_DriverNotLoaded=type("NVMLError_DriverNotLoaded", (Exception,), {}),
        nvmlInit=lambda: calls.append("init"),
        nvmlDeviceGetCount=lambda: len(uuids),
        nvmlDeviceGetHandleByIndex=lambda i: ("h", i),
        nvmlDeviceGetUUID=lambda h: uuids[h[1]],
        nvmlDeviceGetMemoryInfo=lambda h: (calls.append(h), Info)[1],
        nvmlDeviceGetUtilizationRates=lambda h: (calls.append(h), Info)[1],
        nvmlDeviceGetTemperature=lambda h, kind: (calls.append((h, kind)), 50)[1],
        nvmlDeviceGetPowerUsage=lambda h: (calls.append(h), 250000)[1],
        nvmlDeviceGetClockInfo=lambda h, kind: (calls.append((h, kind)), 1980)[1])
    monkeypatch.setitem(sys.modules, "pynvml", stub)
    return calls


@pytest.mark.parametrize("visible, device, nvml", [
    (None, 1, 1), ("2,0", 0, 2), ("3gpu,1x", 1, 1), ("GPU-bb,GPU-aa", 1, 0)])
def test_nvml_queries_ask_the_visible_devices_nvml_index(monkeypatch, visible, device, nvml):
    calls = _stub_pynvml(monkeypatch, ["GPU-aa11", "GPU-bb22", "GPU-cc33", "GPU-dd44"])
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    c = T.cuda
    got = [c.device_memory_used(device), c.utilization(device), c.memory_usage(device),
           c.temperature(device), c.power_draw(device), c.clock_rate(device)]
    assert got == [123, 45, 67, 50, 250000, 1980]
    handle = ("h", nvml)
    assert [x for x in calls if x != "init"] == [handle, handle, handle, (handle, 0), handle,
                                                 (handle, 1)]


def test_nvml_refuses_a_device_outside_the_visible_list(monkeypatch):
    _stub_pynvml(monkeypatch, ["GPU-aa"])
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,0")  # a repeat: CUDA sees none
    with pytest.raises(RuntimeError,
                       match=r"device 0 is not visible \(CUDA_VISIBLE_DEVICES=\[\]\)"):
        T.cuda.temperature(0)
