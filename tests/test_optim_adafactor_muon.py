"""Adafactor and Muon beyond the shared golden problem (tests/test_optim.py
runs their trajectories, state dicts and round trips): Adafactor on a 3-D
parameter, Muon on tall and wide matrices with each learning-rate rule, and
PyTorch's errors for bad options (golden files from scripts/golden_optim.py).
The Newton-Schulz step is also checked against its purpose: an update whose
singular values are near one, with the gradient's singular vectors."""
import json
import os

import numpy as np
import pytest

import torchlike
from torchlike import optim
from optim_problems import (BAD_OPTIONS, SHAPE_CASES, SHAPE_STEPS, shape_case_loss,
                            shape_case_start)
from torchlike.optim.muon import _newton_schulz

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "optim")
TRAJ = np.load(os.path.join(GOLDEN, "shape_cases.npz"))
with open(os.path.join(GOLDEN, "bad_options.json")) as f:
    ERRORS = json.load(f)

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_case_matches_pytorch(name, dtype):
    cls, shape, kwargs = SHAPE_CASES[name]
    start, target = shape_case_start(shape, np.dtype(dtype))
    p = torchlike.tensor(start, requires_grad=True)
    opt = getattr(optim, cls)([p], **kwargs)
    rows = []
    for _ in range(SHAPE_STEPS):
        opt.zero_grad()
        shape_case_loss(p, torchlike.tensor(target)).backward()
        opt.step()
        rows.append(np.array(p.detach().cpu()))  # a copy: p changes in place
    golden = TRAJ[f"{name}/{dtype}"]
    np.testing.assert_allclose(np.stack(rows), golden, **TOL[dtype])
    assert not np.allclose(golden[-1], start)


def test_adafactor_keeps_factored_state_for_matrices_and_full_state_for_vectors():
    w = torchlike.zeros(2, 3, 4, requires_grad=True)
    b = torchlike.zeros(5, requires_grad=True)
    opt = optim.Adafactor([w, b])
    (w.sum() + b.sum()).backward()
    opt.step()
    assert sorted(opt.state[w]) == ["col_var", "row_var", "step"]
    assert opt.state[w]["row_var"].shape == (2, 3, 1)
    assert opt.state[w]["col_var"].shape == (2, 1, 4)
    assert sorted(opt.state[b]) == ["step", "variance"]
    assert opt.state[b]["variance"].shape == (5,)


@pytest.mark.parametrize("name", sorted(BAD_OPTIONS))
def test_bad_options_raise_pytorchs_error(name):
    cls, shape, kwargs = BAD_OPTIONS[name]
    kind, message = ERRORS[name]
    with pytest.raises(getattr(__builtins__, kind, None) or ValueError) as info:
        getattr(optim, cls)([torchlike.zeros(shape, requires_grad=True)], **kwargs)
    assert type(info.value).__name__ == kind
    assert str(info.value) == message.replace("torch.Size", "torchlike.Size")


@pytest.mark.parametrize("shape", [(16, 6), (6, 16), (8, 8)])
def test_newton_schulz_orthogonalises(shape):
    rng = np.random.default_rng(3)
    g = rng.standard_normal(shape).astype(np.float32)
    out = _newton_schulz(torchlike.tensor(g), (3.4445, -4.775, 2.0315), 5, 1e-7)
    assert out.dtype == torchlike.bfloat16 and out.shape == shape
    o = np.asarray(out.float().cpu(), dtype=np.float64)
    s = np.linalg.svd(o, compute_uv=False)
    # the quintic maps every singular value into about [0.5, 1.5] (not 1 exactly)
    assert s.min() > 0.5 and s.max() < 1.5
    # with the gradient's singular vectors: O ~ U S' V^T, so U^T O V is near diagonal
    u, _, vt = np.linalg.svd(g.astype(np.float64), full_matrices=False)
    core = u.T @ o @ vt.T
    off = core - np.diag(np.diag(core))
    assert np.abs(off).max() < 0.1 * np.abs(np.diag(core)).min()


def test_newton_schulz_refuses_too_many_steps_and_bad_coefficients():
    g = torchlike.ones(2, 3)
    with pytest.raises(ValueError, match="less than 100"):
        _newton_schulz(g, (1.0, 0.0, 0.0), 100, 1e-7)
    with pytest.raises(ValueError, match="exactly 3 values"):
        _newton_schulz(g, (1.0, 0.0), 5, 1e-7)
