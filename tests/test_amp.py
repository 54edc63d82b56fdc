"""torchlike.autocast and torchlike.amp.GradScaler against PyTorch:
output dtypes of the listed ops under CPU autocast (bfloat16 and float16)
and a GradScaler trajectory with inf/NaN steps, both recorded by
scripts/golden_amp.py; plus nesting, decorators, threads, the weight cast
cache, the CUDA spelling on a CPU-only build, and the scaler's errors."""
import json
import os
import pickle
import re
import threading
import warnings

import numpy as np
import pytest

import torchlike
from torchlike.amp import GradScaler, autocast_mode
from oracle import golden_calls, golden_check
from amp_cases import (CASES, SCALER_OPTIONS, SCALER_STEPS, inputs, scaler_loss,
                       scaler_problem)

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "amp")
with open(os.path.join(GOLDEN, "autocast_dtypes.json")) as f:
    DTYPES = json.load(f)
with open(os.path.join(GOLDEN, "grad_scaler.json")) as f:
    SCALER = json.load(f)


def name_of(dtype):
    return str(dtype).rsplit(".", 1)[-1]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_autocast_output_dtype_matches_pytorch(case, dtype):
    x = inputs(torchlike)
    with torchlike.autocast("cpu", dtype=getattr(torchlike, dtype)):
        out = CASES[case](torchlike, x)
    assert name_of(out.dtype) == DTYPES[dtype][case]


@pytest.mark.parametrize("case", sorted(CASES))
def test_disabled_autocast_changes_nothing(case):
    with torchlike.autocast("cpu", enabled=False):
        out = CASES[case](torchlike, inputs(torchlike))
    assert name_of(out.dtype) == DTYPES["disabled"][case]


def test_lower_precision_values_are_the_cast_computation():
    x = inputs(torchlike)
    with torchlike.autocast("cpu"):
        out = torchlike.mm(x["a"], x["b"])
    expected = torchlike.mm(x["a"].to(torchlike.bfloat16), x["b"].to(torchlike.bfloat16))
    np.testing.assert_array_equal(out.float().cpu().numpy(), expected.float().cpu().numpy())


def test_hooks_are_removed_when_the_last_region_exits():
    mm, matmul_slot = torchlike.mm, torchlike.Tensor.__dict__["__matmul__"]
    F = torchlike.nn.functional
    linear = F.linear
    with torchlike.autocast("cpu"):
        assert torchlike.mm is not mm and F.linear is not linear
        with torchlike.autocast("cpu", enabled=False):
            assert torchlike.mm is not mm
        assert torchlike.mm is not mm
    assert torchlike.mm is mm and F.linear is linear
    assert torchlike.Tensor.__dict__["__matmul__"] is matmul_slot
    with torchlike.autocast("cpu", enabled=False):
        assert torchlike.mm is mm  # a region that enables nothing installs nothing


def test_nesting_enabled_false_and_state_queries():
    a = torchlike.ones(2, 2)
    assert not torchlike.is_autocast_enabled("cpu")
    assert torchlike.get_autocast_dtype("cpu") == torchlike.bfloat16
    assert torchlike.get_autocast_dtype("cuda") == torchlike.float16
    with torchlike.autocast("cpu", dtype=torchlike.float16):
        with pytest.warns(DeprecationWarning, match=r"is_autocast_enabled\('cpu'\)"):
            assert torchlike.is_autocast_enabled("cpu") and torchlike.is_autocast_cpu_enabled()
        assert torchlike.get_autocast_dtype("cpu") == torchlike.float16
        assert (a @ a).dtype == torchlike.float16
        with torchlike.autocast("cpu", enabled=False):
            assert not torchlike.is_autocast_enabled("cpu")
            assert (a @ a).dtype == torchlike.float32
        with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
            assert (a @ a).dtype == torchlike.bfloat16
        assert (a @ a).dtype == torchlike.float16
    assert not torchlike.is_autocast_enabled("cpu")
    assert torchlike.get_autocast_dtype("cpu") == torchlike.bfloat16
    assert (a @ a).dtype == torchlike.float32


def test_decorator_and_amp_spellings():
    @torchlike.autocast("cpu")
    def f(a):
        assert torchlike.is_autocast_enabled("cpu")
        return a @ a
    a = torchlike.ones(2, 2)
    assert f(a).dtype == torchlike.bfloat16
    assert (a @ a).dtype == torchlike.float32
    with torchlike.amp.autocast("cpu"):
        assert (a @ a).dtype == torchlike.bfloat16
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ctx = torchlike.cpu.amp.autocast()
    with ctx:
        assert (a @ a).dtype == torchlike.bfloat16


def test_autocast_argument_errors_and_unsupported_dtype():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        torchlike.autocast(torchlike.device("cpu"))
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xpu'"):
        torchlike.autocast("xpu")
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16, torch.float16"):
        ctx = torchlike.autocast("cpu", dtype=torchlike.float64)
    a = torchlike.ones(2, 2)
    with ctx:
        assert not torchlike.is_autocast_enabled("cpu") and (a @ a).dtype == torchlike.float32


@pytest.mark.skipif(torchlike.cuda.is_available(), reason="the CPU-only behaviour of CUDA autocast")
def test_cuda_autocast_without_a_gpu_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. "
                                         "Disabling autocast."):
        ctx = torchlike.autocast("cuda")
    with ctx:
        assert not torchlike.is_autocast_enabled("cuda") and not torchlike.is_autocast_enabled()
    with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            torchlike.cuda.amp.autocast()
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
        s = GradScaler("cuda")
    assert not s.is_enabled() and s.get_scale() == 1.0


def test_cuda_policy_tables_follow_pytorch():
    p = autocast_mode.op_policy
    assert p("F.linear", "cuda") == "lower" and p("torch.addmv", "cuda") == "lower"
    assert p("torch.addmv", "cpu") is None
    assert p("F.softmax", "cuda") == "fp32_set_opt_dtype" and p("F.softmax", "cpu") is None
    assert p("F.layer_norm", "cuda") == "fp32" and p("torch.exp", "cuda") == "fp32"
    assert p("F.binary_cross_entropy", "cuda") == "banned"
    assert p("F.binary_cross_entropy", "cpu") == "fp32"
    assert p("torch.cat", "cpu") == "promote" and p("torch.dot", "cuda") == "promote"


def test_autocast_state_is_per_thread():
    a = torchlike.ones(2, 2)
    seen = {}
    entered, release = threading.Event(), threading.Event()

    def other():
        entered.wait()
        seen["enabled"] = torchlike.is_autocast_enabled("cpu")
        seen["dtype"] = (a @ a).dtype
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with torchlike.autocast("cpu"):
        entered.set()
        release.wait()
        assert (a @ a).dtype == torchlike.bfloat16
    t.join()
    assert seen == {"enabled": False, "dtype": torchlike.float32}


def test_gradients_flow_back_in_float32_and_weights_are_cast_once():
    torchlike.manual_seed(0)
    lin = torchlike.nn.Linear(5, 3)
    x = torchlike.randn(4, 5)
    calls = []
    original = torchlike.Tensor.to

    def counting_to(self, *args, **kwargs):
        calls.append(self is lin.weight)
        return original(self, *args, **kwargs)

    torchlike.Tensor.to = counting_to
    try:
        with torchlike.autocast("cpu"):
            out = lin(x)
            out2 = lin(x)
            loss = torchlike.nn.functional.mse_loss(out + out2, torchlike.zeros(4, 3))
    finally:
        torchlike.Tensor.to = original
    assert sum(calls) == 1  # the weight's bfloat16 copy is cached within the region
    assert out.dtype == torchlike.bfloat16 and loss.dtype == torchlike.float32
    loss.backward()
    assert lin.weight.grad.dtype == torchlike.float32 and lin.weight.grad.shape == (3, 5)
    assert bool(torchlike.isfinite(lin.weight.grad).all())


def test_out_and_float64_are_not_cast():
    a = torchlike.ones(2, 2)
    with torchlike.autocast("cpu"):
        out = torchlike.empty(2, 2)
        assert torchlike.mm(a, a, out=out) is out and out.dtype == torchlike.float32
        assert torchlike.mm(a.double(), a.double()).dtype == torchlike.float64
        # a mixed float64/float32 call casts only the float32 side, and mm
        # refuses mixed dtypes (as PyTorch's does under autocast too)
        with pytest.raises(RuntimeError, match=re.escape(
                "expected m1 and m2 to have the same dtype, but got: double != c10::BFloat16")):
            torchlike.mm(a.double(), a)


# ---- GradScaler --------------------------------------------------------------------------------

def run_scaler(steps, scaler=None, w=None, b=None, xs=None, opt=None, start=0):
    if w is None:
        w, b, xs = scaler_problem(torchlike)
        opt = torchlike.optim.SGD([w, b], lr=0.05, momentum=0.9)
        scaler = GradScaler("cpu", **SCALER_OPTIONS)
    rec = {"scale": [], "growth_tracker": [], "w": [], "b": []}
    for step in range(start, steps):
        opt.zero_grad()
        loss = scaler_loss(torchlike, w, b, xs[step], step)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        rec["scale"].append(scaler.get_scale())
        rec["growth_tracker"].append(scaler.state_dict()["_growth_tracker"])
        rec["w"].append(w.detach().cpu().numpy().tolist())
        rec["b"].append(b.detach().cpu().numpy().tolist())
    return rec, (scaler, w, b, xs, opt)


def test_grad_scaler_trajectory_matches_pytorch():
    rec, _ = run_scaler(SCALER_STEPS)
    assert rec["scale"] == SCALER["scale"]
    assert rec["growth_tracker"] == SCALER["growth_tracker"]
    np.testing.assert_allclose(rec["w"], SCALER["w"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(rec["b"], SCALER["b"], rtol=1e-6, atol=1e-7)
    # skipped steps leave the parameters exactly as they were
    for step in (2, 3, 9):
        assert rec["w"][step] == rec["w"][step - 1]


def test_grad_scaler_state_dict_round_trip_continues_identically():
    full, _ = run_scaler(SCALER_STEPS)
    first, (scaler, w, b, xs, opt) = run_scaler(6)
    sd = scaler.state_dict()
    assert sd == SCALER["state_dicts"]["5"]
    fresh = GradScaler("cpu")
    fresh.load_state_dict(sd)
    assert fresh.get_scale() == sd["scale"] and fresh.get_growth_interval() == 3
    rest, _ = run_scaler(SCALER_STEPS, fresh, w, b, xs, opt, start=6)
    assert first["scale"] + rest["scale"] == full["scale"]
    np.testing.assert_array_equal(first["w"] + rest["w"], full["w"])
    restored = pickle.loads(pickle.dumps(scaler))
    assert restored.state_dict() == sd


def test_grad_scaler_unscale_then_clip_then_step():
    w = torchlike.tensor([1.0, 2.0], requires_grad=True)
    opt = torchlike.optim.SGD([w], lr=1.0)
    scaler = GradScaler("cpu", init_scale=8.0)
    scaler.scale((w * torchlike.tensor([3.0, 4.0])).sum()).backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [24.0, 32.0])
    scaler.unscale_(opt)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [3.0, 4.0])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)  # does not unscale again
    np.testing.assert_array_equal(w.detach().cpu().numpy(), [-2.0, -2.0])
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the last update"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
        scaler.unscale_(opt)
    scaler.update()
    assert scaler.get_scale() == 8.0


def test_grad_scaler_found_inf_is_per_optimizer():
    """An inf in one optimizer's gradients skips that optimizer's step only,
    and update() backs off the shared scale."""
    a = torchlike.tensor([1.0], requires_grad=True)
    b = torchlike.tensor([1.0], requires_grad=True)
    opt_a, opt_b = torchlike.optim.SGD([a], lr=0.1), torchlike.optim.SGD([b], lr=0.1)
    scaler = GradScaler("cpu", init_scale=4.0)
    scaler.scale((a * float("inf")).sum() + (b * 2.0).sum()).backward()
    scaler.step(opt_a)
    scaler.step(opt_b)
    scaler.update()
    assert float(a.detach()) == 1.0
    np.testing.assert_allclose(float(b.detach()), 1.0 - 0.1 * 2.0)
    assert scaler.get_scale() == 2.0


def test_grad_scaler_disabled_is_a_pass_through():
    w = torchlike.tensor([1.0], requires_grad=True)
    opt = torchlike.optim.SGD([w], lr=0.5)
    scaler = GradScaler("cpu", enabled=False)
    loss = (w * 2.0).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert float(w.detach()) == 0.0 and scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        GradScaler("cpu").load_state_dict({})


def test_grad_scaler_errors_and_options():
    scaler = GradScaler("cpu")
    assert scaler.get_scale() == 2.0 ** 16
    opt = torchlike.optim.SGD([torchlike.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        scaler.step(opt)
    out = scaler.scale([torchlike.ones(2), (torchlike.ones(1), torchlike.ones(1))])
    assert isinstance(out, list) and isinstance(out[1], tuple) and float(out[1][0]) == 2.0 ** 16
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0.0)
    scaler.update(new_scale=8.0)
    assert scaler.get_scale() == 8.0
    scaler.update(new_scale=torchlike.tensor([4.0]))
    assert scaler.get_scale() == 4.0
    # AssertionError, as PyTorch raises it (a ValueError here before; training
    # programs, round seven)
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        GradScaler("cpu", backoff_factor=1.0)
    p = torchlike.zeros(1, dtype=torchlike.float16, requires_grad=True)
    opt16 = torchlike.optim.SGD([p], lr=0.1)
    s16 = GradScaler("cpu")
    s16.scale((p.float() * 1.0).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        s16.unscale_(opt16)


def test_mixed_precision_training_loop_reduces_the_loss():
    torchlike.manual_seed(0)
    model = torchlike.nn.Sequential(torchlike.nn.Linear(8, 16), torchlike.nn.ReLU(), torchlike.nn.Linear(16, 1))
    opt = torchlike.optim.Adam(model.parameters(), lr=1e-2)
    scaler = torchlike.amp.GradScaler("cpu")
    x = torchlike.randn(64, 8)
    y = x.sum(-1, keepdim=True)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        with torchlike.autocast("cpu"):
            loss = torchlike.nn.functional.mse_loss(model(x), y)
        assert loss.dtype == torchlike.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(float(loss))
    assert losses[-1] < 0.2 * losses[0]
    assert all(p.dtype == torchlike.float32 for p in model.parameters())


def test_policy_kinds_on_cpu_tensors():
    """The CUDA-only policies (float32 unless dtype=, promote, refuse) run
    through the same wrapper; exercised here with the CPU as the device."""
    wrap = autocast_mode._wrap
    F = torchlike.nn.functional
    x = torchlike.ones(3, dtype=torchlike.bfloat16)
    total = wrap("torch.sum", torchlike.sum, {"cpu": "fp32_set_opt_dtype"})
    cat = wrap("torch.cat", torchlike.cat, {"cpu": "promote"})
    bce = wrap("F.binary_cross_entropy", F.binary_cross_entropy, {"cpu": "banned"})
    assert total(x).dtype == torchlike.bfloat16  # no region: untouched
    with torchlike.autocast("cpu"):
        assert total(x).dtype == torchlike.float32
        assert total(x, dtype=torchlike.float64).dtype == torchlike.float64
        assert cat([x, torchlike.ones(2)]).dtype == torchlike.float32
        assert cat([x, torchlike.ones(2, dtype=torchlike.float16)]).dtype == torchlike.float32
        assert cat([x, x]).dtype == torchlike.bfloat16
        assert cat([x, torchlike.ones(2, dtype=torchlike.float64)]).dtype == torchlike.float64
        p = torchlike.full((3,), 0.5)
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            bce(p, p)


# ---- the state's setters, against PyTorch's recorded answers ------------------

STATE_CALLS, _state_golden = golden_calls("amp_state")


@pytest.mark.parametrize("call,expected", STATE_CALLS, ids=[c for c, _ in STATE_CALLS])
def test_state_setters_match_pytorch(call, expected):
    golden_check(_state_golden, call, expected,
                 same_wording=("set_autocast_enabled(): argument", "enabled must be a bool"),
                 different={"T.set_autocast_dtype('cpu', 'float16')": (
                     "TypeError", "must be torchlike.dtype, not str"),
                     "T.set_autocast_enabled('cpu', True, 3)": (
                     "TypeError", "takes 1 or 2 arguments (3 given)")})


def test_setters_outside_a_region_hold_the_wrappers_until_turned_off():
    a = torchlike.ones(2, 2)
    torchlike.set_autocast_enabled("cpu", True)
    try:
        torchlike.set_autocast_enabled("cpu", True)  # twice: still one hold
        assert (a @ a).dtype == torchlike.bfloat16
        with torchlike.autocast("cpu", enabled=False):
            assert (a @ a).dtype == torchlike.float32
        assert (a @ a).dtype == torchlike.bfloat16
    finally:
        torchlike.set_autocast_enabled("cpu", False)
    assert (a @ a).dtype == torchlike.float32 and not torchlike.is_autocast_enabled("cpu")

