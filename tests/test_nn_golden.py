"""torchlike.nn against PyTorch's recorded behaviour (tests/golden/nn, written by
scripts/make_golden.py).  PyTorch is not imported: each case's code text is
evaluated with ``torch`` bound to torchlike, and compared with what PyTorch
produced for the same inputs (values, gradients, state-dict names and shapes,
repr text, initialisation statistics, error messages)."""
import json
import os
import re

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F

from oracle import golden_eval

HERE = os.path.join(os.path.dirname(__file__), "golden", "nn")
with open(os.path.join(HERE, "cases.json")) as f:
    CASES = json.load(f)
FUNC = np.load(os.path.join(HERE, "functional.npz"))
MODS = np.load(os.path.join(HERE, "modules.npz"))
NO_GRAD = {"cw", "rm", "rv", "pw", "s", "y"}
ENV = {"torch": torch, "nn": nn, "F": F}


def ours(text):
    """PyTorch's text with the library's own name, as torchlike prints it."""
    return re.sub(r"\btorch\.", "torchlike.", text)


def tensor(arr, grad):
    # from_numpy is the host's; the default device takes the test's tensors
    t = torch.from_numpy(np.ascontiguousarray(arr)).to(torch.get_default_device())
    if grad and t.is_floating_point():
        t.requires_grad_(True)
    return t


def close(actual, expected, what, rtol=1e-7, atol=1e-9):
    a = np.asarray(actual.detach().cpu().numpy() if hasattr(actual, "detach") else actual)
    assert a.shape == expected.shape, f"{what}: shape {a.shape} != {expected.shape}"
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(a, expected, err_msg=what)
    else:
        np.testing.assert_allclose(a, expected, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("case", CASES["functional"], ids=lambda c: c["name"])
def test_functional_matches_pytorch(case):
    name = case["name"]
    env = {k: tensor(FUNC[f"{name}/in/{k}"], k not in NO_GRAD) for k in case["inputs"]}
    out = golden_eval(case["expr"], {**ENV, **env})
    outs = list(out) if isinstance(out, tuple) else [out]
    assert len(outs) == case["outputs"]
    loss = None
    for i, o in enumerate(outs):
        close(o, FUNC[f"{name}/out{i}"], f"{name} output {i}")
        if f"{name}/gw{i}" in FUNC:
            term = (o * torch.from_numpy(FUNC[f"{name}/gw{i}"]).to(o.device)).sum()
            loss = term if loss is None else loss + term
    if not case["grads"]:
        return
    grads = torch.autograd.grad(loss, [env[k] for k in case["grads"]], allow_unused=True)
    for k, g in zip(case["grads"], grads):
        expected = FUNC[f"{name}/grad/{k}"]
        if g is None:   # no path to the input: only right where PyTorch's gradient is zero
            assert not expected.any(), f"{name}: no gradient for {k}"
            continue
        close(g, expected, f"{name} grad {k}", rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", CASES["modules"], ids=lambda c: c["name"])
def test_module_matches_pytorch(case):
    """Loading PyTorch's state dict checks names and shapes; the output and
    gradients check the maths (gate order, padding modes, attention masks)."""
    name = case["name"]
    m = eval(case["ctor"], dict(ENV)).double()
    m.train(case["train"])
    prefix = f"{name}/state/"
    state = {k[len(prefix):]: torch.from_numpy(MODS[k]) for k in MODS.files
             if k.startswith(prefix)}
    assert list(m.state_dict().keys()) == list(state.keys())
    result = m.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    env = {k: tensor(MODS[f"{name}/in/{k}"], True) for k in case["inputs"]}
    env["m"] = m
    out = eval(case["call"], dict(ENV), env)
    close(out, MODS[f"{name}/out"], f"{name} output", rtol=1e-6, atol=1e-9)
    (out * torch.from_numpy(MODS[f"{name}/gw"]).to(out.device)).sum().backward()
    for k in case["grads"]:
        close(env[k].grad, MODS[f"{name}/grad/{k}"], f"{name} grad {k}", rtol=1e-6, atol=1e-8)
    for k, p in m.named_parameters():
        key = f"{name}/pgrad/{k}"
        if key in MODS.files:
            close(p.grad, MODS[key], f"{name} param grad {k}", rtol=1e-6, atol=1e-8)
    for k, v in m.state_dict().items():   # running statistics after the forward
        close(v, MODS[f"{name}/after/{k}"], f"{name} state after forward {k}", rtol=1e-6)


@pytest.mark.parametrize("case", CASES["models"], ids=lambda c: c["ctor"][:40])
def test_model_structure_matches_pytorch(case):
    m = eval(case["ctor"], dict(ENV))
    assert repr(m) == ours(case["repr"])
    assert [[k, list(v.shape)] for k, v in m.state_dict().items()] == case["state_dict"]
    assert [k for k, _ in m.named_parameters()] == case["parameters"]
    assert [k for k, _ in m.named_buffers()] == case["buffers"]
    assert [k for k, _ in m.named_modules()] == case["modules"]


def _stats(t):
    a = t.detach().double().cpu().numpy().ravel()
    return {"min": a.min(), "max": a.max(), "mean": a.mean(), "std": a.std(),
            "zeros": (a == 0).mean()}


def _check_stats(ours_, theirs, n, what):
    """Same distribution, to within what sampling ``n`` values allows: equal
    for constants; else std and mean within 4 standard errors, the extremes
    (for large samples) within 20 % of the recorded range."""
    if theirs["std"] == 0:
        assert ours_["min"] == pytest.approx(theirs["min"]) and \
            ours_["max"] == pytest.approx(theirs["max"]), what
        return
    se = 1 / np.sqrt(n)
    assert ours_["std"] == pytest.approx(theirs["std"], rel=max(0.05, 4 * se)), what
    assert abs(ours_["mean"] - theirs["mean"]) < 4 * se * theirs["std"] + 1e-12, what
    span = theirs["max"] - theirs["min"]
    if n >= 1000:
        assert abs(ours_["max"] - theirs["max"]) < 0.2 * span, what
        assert abs(ours_["min"] - theirs["min"]) < 0.2 * span, what
    assert ours_["zeros"] == pytest.approx(theirs["zeros"], abs=max(0.02, 4 * se)), what


@pytest.mark.parametrize("case", CASES["init"]["modules"], ids=lambda c: c["ctor"])
def test_module_init_distribution_matches_pytorch(case):
    torch.manual_seed(0)
    m = eval(case["ctor"], dict(ENV))
    state = m.state_dict()
    assert sorted(k for k, v in state.items() if v.is_floating_point()) == \
        sorted(case["params"])
    for k, theirs in case["params"].items():
        assert list(state[k].shape) == theirs["shape"]
        _check_stats(_stats(state[k]), theirs, state[k].numel(), f"{case['ctor']} {k}")


def test_uniform_bounds_are_pytorch_bounds():
    """Linear/Conv weights and biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the
    recorded extremes sit just inside those bounds, ours must too."""
    for case in CASES["init"]["modules"]:
        if not case["ctor"].startswith(("nn.Linear", "nn.Conv")):
            continue
        torch.manual_seed(1)
        m = eval(case["ctor"], dict(ENV))
        fan_in = nn.init._calculate_fan_in_and_fan_out(m.weight)[0]
        bound = 1 / np.sqrt(fan_in)
        for k in ("weight", "bias"):
            theirs = case["params"][k]
            assert theirs["max"] <= bound and theirs["min"] >= -bound
            a = getattr(m, k).detach().cpu().numpy()
            assert a.max() <= bound and a.min() >= -bound
            if a.size >= 1000:   # a large sample reaches close to both bounds
                assert a.max() > 0.95 * bound and a.min() < -0.95 * bound


@pytest.mark.parametrize("case", CASES["init"]["calls"], ids=lambda c: c["call"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_init_function_matches_pytorch(case, dtype):
    t = torch.empty(tuple(case["shape"]), dtype=dtype)
    out = eval(case["call"], dict(ENV), {"t": t})
    assert out is t
    theirs = case["stats"]
    _check_stats(_stats(t), theirs, t.numel(), case["call"])
    if "gram_dev" in theirs:   # orthogonal_: t^T t = gain^2 I
        a = t.double().cpu().numpy()
        np.testing.assert_allclose(a.T @ a / 2.25, np.eye(a.shape[1]),
                                   atol=1e-4 if dtype == torch.float32 else 1e-10)


def test_dirac_and_gains_match_pytorch():
    t = torch.empty(6, 2, 3, 3)
    nn.init.dirac_(t, groups=2)
    np.testing.assert_array_equal(t.cpu().numpy(), FUNC["init/dirac"])
    for expr, value in CASES["init"]["gains"].items():
        assert eval(expr, dict(ENV)) == pytest.approx(value, rel=1e-12), expr


@pytest.mark.parametrize("case", CASES["errors"], ids=lambda c: c["code"][:50])
def test_error_message_matches_pytorch(case):
    with pytest.raises(Exception) as info:
        exec(case["code"], dict(ENV))
    assert type(info.value).__name__ == case["type"]
    assert str(info.value) == ours(case["message"])
