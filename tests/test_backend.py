"""The backend table and the fake device.

The fake device keeps its bytes in host memory but hands out pointers with
0xFA4E in the top 16 bits (non-canonical addresses): a CPU loop that touched
them would crash the process.  So the op survey runs in a subprocess, and a
crash there fails the test with the name of the op that crashed."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlike
from torchlike import _C

_C._fake_enable()

TAG = 0xFA4E << 48


def counters():
    return _C._fake_counters()


def test_fake_device_parses_only_once_enabled():
    code = textwrap.dedent("""
        import torchlike
        try:
            torchlike.device("fake")
        except RuntimeError as e:
            print("before:", e)
        torchlike._C._fake_enable()
        print("after:", torchlike.device("fake:0"))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "before: Expected one of cpu, cuda, meta device type at start of device string: fake" in out
    assert "after: fake:0" in out


def test_device_objects():
    d = torchlike.device("fake")
    assert (d.type, d.index) == ("fake", None)
    assert str(torchlike.device("fake:0")) == "fake:0"
    assert repr(torchlike.device("fake", 0)) == "device(type='fake', index=0)"
    assert torchlike.device("fake:0") == "fake:0"
    with pytest.raises(RuntimeError, match="Invalid device string: 'fake:x'"):
        torchlike.device("fake:x")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, fake device type"):
        torchlike.device("tpu")


def test_tensor_on_fake_reports_its_device():
    t = torchlike.ones(2, 3).to("fake")
    assert t.device == torchlike.device("fake", 0)
    assert str(t.device) == "fake:0"
    assert not t.is_cuda
    assert t.shape == (2, 3) and t.dtype == torchlike.float32


def test_fake_pointers_are_poisoned():
    t = torchlike.arange(4).to("fake")
    assert t.data_ptr() & (0xFFFF << 48) == TAG
    assert torchlike.arange(4).data_ptr() & (0xFFFF << 48) == 0


def test_unregistered_backend_is_a_runtime_error_naming_the_device():
    if torchlike.cuda.is_available():
        pytest.skip("a GPU is present: cuda has a backend")
    with pytest.raises(RuntimeError, match="cannot use device cuda:0"):
        torchlike.empty(2, device="cuda")
    with pytest.raises(RuntimeError, match="cannot use device cuda:1"):
        torchlike.ones(2).to("cuda:1")
    with pytest.raises(RuntimeError, match="cannot use device fake:1: invalid device ordinal"):
        torchlike.ones(2).to("fake:1")


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex64", "complex128"])
def test_round_trip_every_dtype(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) * 10).astype(dtype)
    f = torchlike.from_numpy(a).to("fake")
    assert f.dtype == getattr(torchlike, dtype)
    np.testing.assert_array_equal(f.cpu().numpy(), a)


def test_copies_go_through_the_backend():
    before = counters()
    f = torchlike.arange(12, dtype=torchlike.float64).to("fake")
    mid = counters()
    assert mid["copies_in"] == before["copies_in"] + 1
    assert mid["bytes_in"] == before["bytes_in"] + 96
    back = f.cpu()
    after = counters()
    assert after["copies_out"] == mid["copies_out"] + 1
    assert after["bytes_out"] == mid["bytes_out"] + 96
    np.testing.assert_array_equal(back.numpy(), np.arange(12.0))


def test_host_reads_go_through_the_backend():
    f = torchlike.tensor([[1.5, -2.0], [0.0, 7.0]]).to("fake")
    c = counters()["copies_out"]
    assert f[0, 0].item() == 1.5
    assert float(f[1, 1]) == 7.0
    assert int(f[0, 1]) == -2
    assert bool(f[1, 0]) is False
    assert f.tolist() == [[1.5, -2.0], [0.0, 7.0]]
    assert counters()["copies_out"] == c + 5
    i = torchlike.tensor(3).to("fake")
    assert [10, 20, 30, 40][i] == 40  # __index__


def test_repr_shows_the_device():
    f = torchlike.tensor([1.0, 2.0]).to("fake")
    assert repr(f) == "tensor([1., 2.], device='fake:0')"
    g = torchlike.tensor([1, 2], dtype=torchlike.int32).to("fake")
    assert repr(g) == "tensor([1, 2], device='fake:0', dtype=torchlike.int32)"


def test_numpy_of_a_fake_tensor_raises_as_pytorch_does():
    f = torchlike.ones(2).to("fake")
    with pytest.raises(TypeError, match="can't convert fake:0 device type tensor to numpy"):
        f.numpy()
    np.testing.assert_array_equal(f.numpy(force=True), np.ones(2, np.float32))


def test_empty_and_zero_dim_tensors():
    e = torchlike.empty(0, 3).to("fake")
    assert e.shape == (0, 3) and e.cpu().shape == (0, 3)
    s = torchlike.tensor(2.5).to("fake")
    assert s.ndim == 0 and s.item() == 2.5


# Ops with no kernel on the fake device must raise, never run a CPU loop on
# its memory.  Each line is run in a fresh process in turn; a crash names it.
OPS = [
    "f + f", "f + 1", "f * 2", "-f", "f.exp()", "f.sin()", "torchlike.sqrt(f)", "f == f",
    "f.sum()", "f.mean(0)", "f.max()", "f.argmax()", "f.cumsum(0)", "f.sort()", "f.argsort()",
    "f.topk(1)", "f @ f", "torchlike.mm(f, f)", "f.matmul(f)", "torchlike.linalg.inv(f)",
    "f[f > 0]", "f.nonzero()", "f.index_select(0, torchlike.tensor([0]).to('fake'))",
    "f.gather(0, torchlike.zeros(2, 2, dtype=torchlike.int64).to('fake'))",
    "f.masked_fill(f > 0, 1.0)", "torchlike.where(f > 0, f, f)", "f.clamp(0, 1)",
    "f.to(torchlike.float64)", "f.t().contiguous()", "f.abs()", "f.uniform_()",
    "torchlike.cat([f, f])", "torchlike.stack([f, f])", "f.flip(0)", "f.roll(1)",
    "f.tril()", "f.diagonal().sum()", "f.unique()", "torchlike.searchsorted(f[0], f[0])",
    "f.var()", "f.norm()", "f.repeat(2, 1)", "f.tile(2)", "torchlike.diag(f)",
    "torchlike.diag_embed(f)", "f.triu()", "torchlike.kron(f, f)", "torchlike.einsum('ij,jk->ik', f, f)",
    "torchlike.tensordot(f, f)", "f[None].bmm(f[None])", "torchlike.outer(f[0], f[0])",
    "f.put_(torchlike.tensor([0]).to('fake'), f[0, :1])",
    "f.index_add_(0, torchlike.tensor([0]).to('fake'), f[:1])", "f.scatter_(0, torchlike.zeros(1, 2, dtype=torchlike.int64).to('fake'), f[:1])",
    "f.masked_fill_(torchlike.ones(2, 2, dtype=torchlike.bool).to('fake'), 0.0)",
    "f[torchlike.tensor([0]).to('fake')]", "f.split(1)[0].sum()", "f.chunk(2)[0] + 0",
    "torchlike.broadcast_to(f, (2, 2, 2)).sum()", "f.repeat_interleave(2)",
    "torchlike.block_diag(f, f)", "torchlike.quantile(torchlike.ones(3), f[0, :1])",
    "torchlike.clamp(f, f[0, 0], None)", "torchlike.nn.functional.pad(f, (1, 1))",
]


def test_ops_without_a_fake_kernel_raise():
    script = textwrap.dedent("""
        import json, sys, torchlike
        torchlike._C._fake_enable()
        f = torchlike.tensor([[1.0, -2.0], [3.0, 4.0]]).to("fake")
        for line in sys.stdin.read().splitlines():
            print("RUN " + line, flush=True)
            try:
                r = eval(line)
                print("RESULT " + json.dumps([line, str(getattr(r, "device", None))]), flush=True)
            except Exception as e:
                print("RAISED " + json.dumps([line, type(e).__name__, str(e)[:200]]), flush=True)
    """)
    p = subprocess.run([sys.executable, "-c", script], input="\n".join(OPS), capture_output=True,
                       text=True, timeout=120)
    lines = p.stdout.splitlines()
    if p.returncode != 0:
        last = [ln for ln in lines if ln.startswith("RUN ")][-1]
        pytest.fail(f"process died (code {p.returncode}) while running {last[4:]!r}: a CPU "
                    f"kernel touched fake memory\n{p.stderr[-2000:]}")
    ran = [json.loads(ln[7:]) for ln in lines if ln.startswith("RESULT ")]
    raised = [json.loads(ln[7:]) for ln in lines if ln.startswith("RAISED ")]
    # Shape ops whose copies are plain byte copies run through the fake backend's
    # device-to-device copy, the fake device's copy kernel (tests/test_dispatch.py).
    byte_copies = {"torchlike.cat([f, f])", "torchlike.stack([f, f])", "f.roll(1)", "f.tril()",
                   "f.triu()"}
    assert all(line in byte_copies and dev == "fake:0" for line, dev in ran), \
        f"ops that ran on the fake device without a kernel: {ran}"
    assert len(raised) + len(ran) == len(OPS)
    for line, kind, msg in raised:
        assert kind in ("NotImplementedError", "RuntimeError", "TypeError"), (line, kind, msg)


def test_zero_dim_device_tensors_serve_as_scalar_arguments():
    # PyTorch reads such a tensor through the device (a sync), as item() does
    one = torchlike.tensor(2.0).to("fake")
    t = torchlike.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(t.add(t, alpha=one).numpy(), [3.0, 6.0, 9.0])
    c = counters()["copies_out"]
    np.testing.assert_array_equal(torchlike.full((2,), one).numpy(), [2.0, 2.0])
    assert counters()["copies_out"] == c + 1


def test_mixing_devices_raises_pytorchs_error():
    f = torchlike.ones(2).to("fake")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but "
                                           "found at least two devices, fake:0 and cpu"):
        f + torchlike.ones(2)
