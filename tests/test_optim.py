"""torchlike.optim's optimizers against PyTorch's trajectories (golden files
recorded by scripts/golden_optim.py), the multi-tensor C step against the
per-parameter path (bit for bit), and state-dict round trips mid-training."""
import json
import os

import numpy as np
import pytest

import torchlike
import torchlike.optim as optim
from torchlike.optim.optimizer import _copy_state_value
from optim_problems import (COMPLEX_REFUSED, OPTIMIZER_CASES, SPLIT, STEPS, case_loss,
                            complex_case_loss, complex_problem_data, problem_data)

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "optim")
TRAJ = np.load(os.path.join(GOLDEN, "optimizers.npz"))
with open(os.path.join(GOLDEN, "optimizers.json")) as f:
    TORCH_STATES = json.load(f)

DTYPES = {"float32": (np.float32, torchlike.float32), "float64": (np.float64, torchlike.float64)}
# float32 trajectories drift by rounding (PyTorch's kernels vectorise
# differently); float64 ones agree to near machine precision.
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}


# optimizers with no multi-tensor C kernel: SparseAdam's rows, Adafactor's
# factored moments and Muon's Newton-Schulz matmuls step per tensor
PER_TENSOR_ONLY = ("SparseAdam", "Adafactor", "Muon")


class Problem:
    """One golden case replayed with torchlike: parameters, constants, optimizer."""

    def __init__(self, name, dtype="float32", foreach=None, init=None, complex_=False):
        self.case = OPTIMIZER_CASES[name]
        np_dtype, self.dtype = DTYPES[dtype]
        data = (complex_problem_data if complex_ else problem_data)(np_dtype)
        self.loss = complex_case_loss if complex_ else case_loss
        values = data["init"] if init is None else init
        self.params = [torchlike.tensor(np.array(x, dtype=None if complex_ else np_dtype),
                                        requires_grad=True)
                       for x in values]
        self.consts = [(torchlike.tensor(t), torchlike.tensor(d))
                       for t, d in zip(data["target"], data["scale"])]
        kwargs = dict(self.case["kwargs"])
        cls = getattr(optim, self.case["cls"])
        if foreach is not None and cls not in (optim.SparseAdam,):
            kwargs["foreach"] = foreach
        groups = self.case.get("groups")
        if groups:
            arg = [dict(params=[self.params[i] for i in g["params"]], **g["options"])
                   for g in groups]
        else:
            arg = self.params
        self.opt = cls(arg, **kwargs)

    def flat(self):
        return np.concatenate([np.asarray(p.detach().cpu()).ravel() for p in self.params])

    def step(self, k):
        self.opt.zero_grad()
        self.loss(self.case, self.params, self.consts, k, torchlike).backward()
        self.opt.step()

    def run(self, start=0, stop=STEPS):
        rows = []
        for k in range(start, stop):
            self.step(k)
            rows.append(self.flat())
        return rows


def unflatten(row, np_dtype):
    out, offset = [], 0
    for shape in [p.shape for p in problem_data(np_dtype)["init"]]:
        n = int(np.prod(shape))
        out.append(row[offset:offset + n].reshape(shape))
        offset += n
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_trajectory_matches_pytorch(name, dtype):
    golden = TRAJ[f"{name}/{dtype}"]
    problem = Problem(name, dtype)
    np.testing.assert_allclose(problem.flat(), golden[0])
    rows = np.stack(problem.run())
    assert rows.dtype == golden.dtype
    np.testing.assert_allclose(rows, golden[1:], **TOL[dtype])
    assert not np.allclose(golden[-1], golden[0])  # the problem does move


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(n for n, c in OPTIMIZER_CASES.items()
                                        if not c.get("sparse")
                                        and c["cls"] not in COMPLEX_REFUSED))
def test_complex_trajectory_matches_pytorch(name, dtype):
    """Complex parameters step as their pairs of reals, as in PyTorch."""
    golden = TRAJ[f"{name}/{dtype}/complex"]
    problem = Problem(name, dtype, complex_=True)
    assert problem.params[0].is_complex()
    rows = np.stack(problem.run())
    assert rows.dtype == golden.dtype
    np.testing.assert_allclose(rows, golden[1:], **TOL[dtype])
    assert problem.params[0].is_complex() and problem.params[0].grad.is_complex()


@pytest.mark.parametrize("cls", COMPLEX_REFUSED)
def test_optimizers_without_complex_support_refuse_it(cls):
    p = torchlike.zeros(2, 2, dtype=torchlike.complex64, requires_grad=True)
    opt = getattr(optim, cls)([p])
    p.grad = torchlike.ones(2, 2, dtype=torchlike.complex64)
    with pytest.raises(RuntimeError, match=f"^{cls} does not support complex parameters$"):
        opt.step()


def test_sparse_adam_refuses_complex_parameters_by_index():
    params = [torchlike.zeros(2), torchlike.zeros(2, dtype=torchlike.complex64)]
    with pytest.raises(ValueError, match=r"^Complex params at indices \[\[0, 1\]\]: SparseAdam "
                                         "does not support complex parameters$"):
        optim.SparseAdam(params)


@pytest.mark.host_only  # the multi-tensor kernel is the CPU's; devices step per tensor
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(n for n, c in OPTIMIZER_CASES.items()
                                        if c["cls"] not in PER_TENSOR_ONLY))
def test_multi_tensor_step_is_bit_identical(name, dtype, monkeypatch):
    calls = []
    kernel = torchlike._C._optim_step

    def spy(*args):
        calls.append(args[0])
        return kernel(*args)
    monkeypatch.setattr(torchlike._C, "_optim_step", spy)
    fast = np.stack(Problem(name, dtype).run())
    assert calls, "the default path did not use the multi-tensor kernel"
    calls.clear()
    slow = np.stack(Problem(name, dtype, foreach=False).run())
    assert not calls
    assert np.array_equal(fast, slow)


@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_state_dict_round_trip_resumes_identically(name):
    golden = TRAJ[f"{name}/float32"]
    first = Problem(name)
    first.run(0, SPLIT)
    saved = _copy_state_value(first.opt.state_dict())
    through = np.stack(Problem(name).run())  # uninterrupted

    resumed = Problem(name, init=[np.asarray(p.detach().cpu()) for p in first.params])
    resumed.opt.load_state_dict(saved)
    rows = np.stack(resumed.run(SPLIT, STEPS))
    assert np.array_equal(rows, through[SPLIT:])
    np.testing.assert_allclose(rows, golden[SPLIT + 1:], **TOL["float32"])


def tensors_from_json(value):
    if isinstance(value, dict) and set(value) == {"tensor", "dtype"}:
        return torchlike.tensor(np.array(value["tensor"], dtype=value["dtype"]))
    if isinstance(value, dict):
        return {(int(k) if k.isdigit() else k): tensors_from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tensors_from_json(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_state_dict_has_pytorchs_layout(name):
    problem = Problem(name)
    problem.run(0, SPLIT)
    ours = problem.opt.state_dict()
    theirs = tensors_from_json(TORCH_STATES[name])
    assert [g["params"] for g in ours["param_groups"]] == \
        [g["params"] for g in theirs["param_groups"]]
    for g_ours, g_theirs in zip(ours["param_groups"], theirs["param_groups"]):
        assert set(g_ours) - {"foreach"} <= set(g_theirs)
        for key in g_ours:
            if key in ("params", "foreach", "fused", "differentiable", "capturable"):
                continue
            value = g_theirs[key]
            assert g_ours[key] == (tuple(value) if isinstance(value, list) else value), key
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for index, state in ours["state"].items():
        expected = theirs["state"][index]
        assert sorted(state) == sorted(expected)
        for key, value in state.items():
            if isinstance(value, torchlike.Tensor):
                assert value.dtype == expected[key].dtype, key
                assert value.shape == expected[key].shape, key
                np.testing.assert_allclose(np.asarray(value.cpu()), np.asarray(expected[key].cpu()),
                                           rtol=1e-3, atol=1e-5, err_msg=key)
            else:
                assert value == expected[key], key


@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_loads_pytorchs_state_dict_and_continues(name):
    golden = TRAJ[f"{name}/float32"]
    problem = Problem(name, init=unflatten(golden[SPLIT], np.float32))
    problem.opt.load_state_dict(tensors_from_json(TORCH_STATES[name]))
    rows = np.stack(problem.run(SPLIT, STEPS))
    np.testing.assert_allclose(rows, golden[SPLIT + 1:], **TOL["float32"])


@pytest.mark.parametrize("name", ["adam_amsgrad_wd", "sgd_nesterov", "nadam", "asgd"])
def test_loads_a_checkpoint_written_by_torch_save(name):
    golden = TRAJ[f"{name}/float32"]
    saved = torchlike.load(os.path.join(GOLDEN, f"{name}_state.pt"))
    problem = Problem(name, init=unflatten(golden[SPLIT], np.float32))
    problem.opt.load_state_dict(saved)
    step = problem.opt.state[problem.params[0]].get("step")
    if step is not None:
        assert step.dtype == torchlike.float32 and step.item() == SPLIT
    rows = np.stack(problem.run(SPLIT, STEPS))
    np.testing.assert_allclose(rows, golden[SPLIT + 1:], **TOL["float32"])


@pytest.mark.parametrize("name", ["adam_groups", "rmsprop_centered", "sgd_momentum", "asgd_t0"])
def test_state_dict_round_trips_through_save_and_load(name):
    import io
    first = Problem(name)
    first.run(0, SPLIT)
    buffer = io.BytesIO()
    torchlike.save(first.opt.state_dict(), buffer)
    buffer.seek(0)
    loaded = torchlike.load(buffer)  # weights_only: a state dict needs nothing more
    through = np.stack(Problem(name).run())
    resumed = Problem(name, init=[np.asarray(p.detach().cpu()) for p in first.params])
    resumed.opt.load_state_dict(loaded)
    assert np.array_equal(np.stack(resumed.run(SPLIT, STEPS)), through[SPLIT:])
