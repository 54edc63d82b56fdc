"""Normalisation and nll/cross-entropy options against PyTorch's recorded
behaviour (tests/golden/nn_norm_loss, written by
scripts/golden_nn_norm_loss.py): outputs, gradients, running statistics
after the call, and error messages.  torch is never imported: the recorded
expressions run with ``torch`` bound to torchlike."""
import json
import os

import numpy as np
import pytest

import torchlike
import torchlike.nn.functional as F

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "nn_norm_loss")
with open(os.path.join(HERE, "cases.json")) as f:
    RECORDED = json.load(f)
ARRAYS = np.load(os.path.join(HERE, "arrays.npz"))


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["name"])
def test_matches_pytorch(case):
    name, env = case["name"], {"torch": torchlike, "F": F}
    for k in case["inputs"]:
        env[k] = torchlike.tensor(ARRAYS[f"{name}/in/{k}"], requires_grad=k in case["grad"])
    out = eval(case["expr"], env)
    expected = ARRAYS[f"{name}/out"]
    # the float16/bfloat16/float32 cases round in the result dtype
    tol = 1e-2 if "16" in name else 1e-6 if "float32" in name else 1e-10
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=tol, atol=tol * 1e-2)
    if case["grad"]:
        w = torchlike.tensor(ARRAYS[f"{name}/w"])
        found = torchlike.autograd.grad((out * w).sum(), [env[k] for k in case["grad"]])
        for k, g in zip(case["grad"], found):
            np.testing.assert_allclose(g.numpy(), ARRAYS[f"{name}/grad/{k}"], rtol=1e-9,
                                       atol=1e-12, err_msg=f"grad of {k}")
    for k in case["after"]:
        np.testing.assert_allclose(env[k].detach().numpy(), ARRAYS[f"{name}/after/{k}"],
                                   rtol=1e-12, err_msg=f"{k} after the call")


@pytest.mark.parametrize("case", RECORDED["errors"], ids=lambda c: c["name"])
def test_error_matches_pytorch(case):
    with pytest.raises(Exception) as info:
        eval(case["expr"], {"torch": torchlike, "F": F})
    assert type(info.value).__name__ == case["type"]
    assert str(info.value) == case["message"]
