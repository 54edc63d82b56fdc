"""torchlike.jit and torchlike.futures: script/trace/freeze return objects
that run the same Python; save/load round-trip; PyTorch's answers for the
recorded calls (tests/golden/api_modules.json)."""
import io
import threading
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.jit as jit
from torchlike.futures import Future, collect_all, wait_all
from api_modules_golden import GOLDEN, check

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

# Where torchlike answers differently on purpose: call -> our outcome.
DIFFERENT = {
    # a TorchScript archive holds TorchScript code, which torchlike cannot run
    "T.jit.load(io.BytesIO(torchscript_archive()))": [
        "raises", "RuntimeError",
        "torchlike.jit.load: this is a TorchScript archive written by PyTorch's torch.jit.save; "
        "it holds TorchScript code, which torchlike cannot run. Save the model's state_dict() "
        "with torch.save instead, build the model in Python and load_state_dict() it."],
    # PyTorch reports a missing zip record
    "T.jit.load(io.BytesIO(saved_dict(T)))": [
        "raises", "RuntimeError", "torchlike.jit.load: the file was written by torchlike.save, "
        "not torchlike.jit.save; load it with torchlike.load"],
}


@pytest.mark.parametrize("call,expected", GOLDEN["jit"], ids=[c for c, _ in GOLDEN["jit"]])
def test_matches_pytorch(call, expected):
    check("jit", call, expected, different=DIFFERENT)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.scale = jit.Attribute(2.0, float)

    def forward(self, x):
        return torch.relu(self.fc(x)) * (self.scale if not isinstance(self.scale, tuple)
                                         else self.scale.value)


def double_then_sum(x, y):
    return (x * 2 + y).sum()


def test_script_module_shares_parameters_and_runs_same_code():
    torch.manual_seed(0)
    net = Net()
    s = jit.script(net)
    assert isinstance(s, jit.ScriptModule) and isinstance(s, torch.nn.Module)
    assert s.fc.weight is net.fc.weight and isinstance(s.fc, jit.RecursiveScriptModule)
    assert s.scale == 2.0 and isinstance(net.scale, tuple)   # Attribute unwrapped when scripted
    x = torch.randn(5, 3)
    np.testing.assert_array_equal(s(x).detach().numpy(), net(x).detach().numpy())
    with torch.no_grad():
        net.fc.bias.add_(1.0)                       # the script sees the original's update
    np.testing.assert_array_equal(s(x).detach().numpy(), net(x).detach().numpy())
    s(x).sum().backward()                           # gradients reach the shared parameters
    assert net.fc.weight.grad is not None
    assert "def forward" in s.code
    s.eval()
    assert not s.training and net.training          # the copy has its own flags
    s.register_forward_hook(lambda mod, inp, out: out * 0)
    assert (s(x) == 0).all() and not (net(x) == 0).all()   # and its own hooks


def test_script_function_and_trace_function():
    f = jit.script(double_then_sum)
    assert isinstance(f, jit.ScriptFunction) and f.name == "double_then_sum"
    x, y = torch.randn(3), torch.randn(3)
    assert f(x, y).item() == double_then_sum(x, y).item()
    assert "return (x * 2 + y).sum()" in f.code
    t = jit.trace(double_then_sum, (x, y))
    assert isinstance(t, jit.ScriptFunction)
    assert t(y, x).item() == double_then_sum(y, x).item()


def test_trace_runs_examples_with_is_tracing_set():
    seen = []

    def probe(x):
        seen.append(jit.is_tracing())
        return x + 1

    t = jit.trace(probe, torch.ones(2), check_inputs=[(torch.zeros(3),)])
    assert seen == [True, True]
    t(torch.ones(2))                     # a later call is eager Python, not tracing
    assert seen == [True, True, False] and not jit.is_tracing()


def test_trace_module_and_kwargs():
    torch.manual_seed(1)
    lin = torch.nn.Linear(2, 2)
    x = torch.randn(4, 2)
    t = jit.trace(lin, example_kwarg_inputs={"input": x})
    assert isinstance(t, jit.TopLevelTracedModule) and t.weight is lin.weight
    np.testing.assert_array_equal(t(x).detach().numpy(), lin(x).detach().numpy())
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        jit.trace(lin, torch.randn(4, 3))


def test_freeze_makes_constants_and_keeps_values():
    torch.manual_seed(2)
    net = Net().eval()
    x = torch.randn(2, 3)
    frozen = jit.freeze(jit.script(net))
    assert list(frozen.parameters()) == []
    assert not frozen.fc.weight.requires_grad
    np.testing.assert_array_equal(frozen(x).numpy(), net(x).detach().numpy())
    assert len(list(net.parameters())) == 2          # the original keeps its parameters
    opt = jit.optimize_for_inference(jit.script(Net()))   # in training mode: put in eval, frozen
    assert list(opt.parameters()) == [] and not opt.training


def test_save_load_round_trip(tmp_path):
    torch.manual_seed(3)
    net = Net()
    s = jit.script(net)
    path = tmp_path / "net.pt"
    jit.save(s, str(path), _extra_files={"meta.txt": "hello"})
    extra = {"meta.txt": ""}
    back = jit.load(str(path), _extra_files=extra)
    assert extra["meta.txt"] == b"hello"
    assert isinstance(back, jit.RecursiveScriptModule) and back.original_name == "Net"
    x = torch.randn(2, 3)
    np.testing.assert_array_equal(back(x).detach().numpy(), s(x).detach().numpy())
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert isinstance(jit.load(buf).fc, jit.ScriptModule)
    buf = io.BytesIO()
    jit.save(jit.script(double_then_sum), buf)
    buf.seek(0)
    g = jit.load(buf)
    assert isinstance(g, jit.ScriptFunction)
    assert g(torch.ones(2), torch.ones(2)).item() == 6.0


def test_load_refuses_non_zip():
    with pytest.raises(RuntimeError, match="not a zip archive"):
        jit.load(io.BytesIO(b"not a zip"))


def test_deprecation_warnings_as_pytorch():
    for fn in (lambda: jit.script(double_then_sum), lambda: jit.fork(double_then_sum, 1, 2),
               lambda: jit.trace(double_then_sum, (torch.ones(1), torch.ones(1)))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        assert any(issubclass(x.category, FutureWarning) and "is deprecated" in str(x.message)
                   for x in w)


def test_markers_return_what_they_get():
    def f(x):
        return x
    assert jit.ignore(f) is f and jit.ignore(drop=True)(f) is f and jit.unused(f) is f
    assert jit.export(f) is f and jit.interface(Net) is Net and not jit.is_scripting()
    assert jit.isinstance({"a": 1}, dict) and not jit.isinstance([1], dict)
    assert jit.set_fusion_strategy([("DYNAMIC", 3)]) == [("STATIC", 2), ("DYNAMIC", 10)]
    assert jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]) == [("DYNAMIC", 3)]


def test_future_from_another_thread_and_callbacks():
    fut = Future()
    order = []
    chained = fut.then(lambda f: f.wait() * 10)
    fut.add_done_callback(lambda f: order.append(f.value()))
    threading.Timer(0.05, lambda: fut.set_result(4)).start()
    assert fut.wait() == 4 and chained.wait() == 40 and order == [4]
    futs = [Future() for _ in range(3)]
    all_done = collect_all(futs)
    for i, f in enumerate(futs):
        assert not all_done.done()
        f.set_result(i)
    assert all_done.done() and [f.value() for f in all_done.wait()] == [0, 1, 2]
    assert wait_all(futs) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="before the Future completed"):
        Future().value()
    with pytest.raises(TypeError):
        Future().set_exception("not an exception")
    assert torch.Future is Future and jit.Future is Future
