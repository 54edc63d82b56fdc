"""The legacy tensor types (torchlike.FloatTensor ..., torchlike.cuda.*),
Tensor.type()/type_as(), and view_as/reshape_as/expand_as taking only their
first argument as an input, against PyTorch's recorded answers
(tests/golden/legacy_types.json, scripts/golden_legacy_types.py)."""
import numpy as np
import pytest

import torchlike as T
from oracle import cuda_test_devices, device_array, golden_calls, host_array, run_emulated

CALLS, _golden = golden_calls("legacy_types")
DEVICES, EMULATED = cuda_test_devices()


def _on_the_cpu_only(call):
    """PyTorch's answers were recorded for CPU tensors: whether x (made on the
    default device) is a T.FloatTensor, the CPU's type, or already has the
    type 'torch.FloatTensor', holds only there."""
    return call.startswith("isinstance(x") and ", T.cuda." not in call \
        or call == "x.type('torch.FloatTensor') is x"


@pytest.mark.parametrize("call,expected", [
    pytest.param(c, e, marks=[pytest.mark.host_only] if _on_the_cpu_only(c) else [])
    for c, e in CALLS], ids=[c for c, _ in CALLS])
def test_legacy_types_match_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        if expected[1] == "ValueError":  # PyTorch's TypeErrors here quote its C++ internals
            assert str(e.value) == expected[2]
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_shape_arguments_get_no_gradient():
    """x.view_as(p) differentiates to x only: p's gradient stays None."""
    p = T.nn.Parameter(T.ones(2, 3))
    x = T.ones(6, requires_grad=True)
    (x.view_as(p) * 2).sum().backward()
    assert p.grad is None and x.grad.tolist() == [2.0] * 6
    y = T.ones(1, 3, requires_grad=True)
    y.expand_as(p).sum().backward()
    assert p.grad is None and y.grad.tolist() == [[2.0, 2.0, 2.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_type_as_follows_the_other_tensors_device(device):
    """x.type_as(y) is x.to(y's dtype and device), as in PyTorch; a legacy
    type name read back would put the result on the CPU for a device with no
    legacy types of its own."""
    x = device_array(device, np.array([[1.5, -2.0, 3.0]], dtype=np.float32))
    i = device_array(device, np.arange(3, dtype=np.int32))
    got = x.type_as(i)
    assert got.device == i.device and got.dtype == T.int32
    np.testing.assert_array_equal(host_array(got), [[1, -2, 3]])
    assert x.type_as(x) is x
    assert isinstance(x, T.FloatTensor) == (device == "cpu")
    moved = x.type("torch.DoubleTensor")    # a CPU type: the result is on the CPU
    assert moved.device.type == "cpu" and moved.dtype == T.float64


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
