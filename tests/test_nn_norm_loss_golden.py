"""Normalisation and loss options against PyTorch's recorded behaviour:
tests/golden/nn_norm_loss (scripts/golden_nn_norm_loss.py: normalisation,
nll/cross-entropy) and tests/golden/nn_class_loss
(scripts/golden_nn_class_loss.py: cross_entropy, the margin losses,
ctc_loss): outputs, gradients, running statistics after the call, and error
messages.  torch is never imported: the recorded expressions run with
``torch`` bound to torchlike."""
import json
import os

import numpy as np
import pytest

import torchlike
import torchlike.nn.functional as F

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
RECORDED, ARRAYS = {}, {}
for where in ("nn_norm_loss", "nn_class_loss"):
    with open(os.path.join(GOLDEN, where, "cases.json")) as f:
        RECORDED[where] = json.load(f)
    ARRAYS[where] = np.load(os.path.join(GOLDEN, where, "arrays.npz"))


def recorded(kind):
    """(folder, case) pairs of every golden folder, and their test ids."""
    pairs = [(w, c) for w in RECORDED for c in RECORDED[w][kind]]
    return {"argvalues": pairs, "ids": [f"{w}/{c['name']}" for w, c in pairs]}


def check_case(case, arrays):
    """Evaluate a recorded case with torchlike and compare with PyTorch's
    output, gradients and values after the call."""
    name, env = case["name"], {"torch": torchlike, "F": F}
    for k in case["inputs"]:
        env[k] = torchlike.tensor(arrays[f"{name}/in/{k}"], requires_grad=k in case["grad"])
    out = eval(case["expr"], env)
    expected = arrays[f"{name}/out"]
    # the float16/bfloat16/float32 cases round in the result dtype
    tol = 1e-2 if "16" in name else 1e-6 if "float32" in name else 1e-10
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected, rtol=tol, atol=tol * 1e-2)
    if case["grad"]:
        w = torchlike.tensor(arrays[f"{name}/w"])
        found = torchlike.autograd.grad((out * w).sum(), [env[k] for k in case["grad"]])
        # float32: the rounding of terms of size 1 that cancel
        rtol, atol = (1e-5, 1e-6) if "float32" in name else (1e-9, 1e-12)
        for k, g in zip(case["grad"], found):
            np.testing.assert_allclose(g.cpu().numpy(), arrays[f"{name}/grad/{k}"], rtol=rtol,
                                       atol=atol, err_msg=f"grad of {k}")
    for k in case["after"]:
        np.testing.assert_allclose(env[k].detach().cpu().numpy(), arrays[f"{name}/after/{k}"],
                                   rtol=1e-12, err_msg=f"{k} after the call")


def check_error(case):
    """A recorded failing expression raises PyTorch's exception type and message."""
    with pytest.raises(Exception) as info:
        eval(case["expr"], {"torch": torchlike, "F": F})
    assert type(info.value).__name__ == case["type"]
    assert str(info.value) == case["message"]


@pytest.mark.parametrize("where,case", **recorded("cases"))
def test_matches_pytorch(where, case):
    check_case(case, ARRAYS[where])


@pytest.mark.parametrize("where,case", **recorded("errors"))
def test_error_matches_pytorch(where, case):
    check_error(case)
