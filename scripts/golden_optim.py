"""Record torch.optim's trajectories as golden files for tests/test_optim*.py
and tests/test_lr_scheduler.py.

Run with a Python that has PyTorch:  python scripts/golden_optim.py
Writes tests/golden/optim/{optimizers.npz, optimizers.json, schedulers.json,
lbfgs.npz} and a few mid-training optimizer state dicts written by torch.save
(<case>_state.pt).  The problems are defined here and, identically, in
tests/optim_problems.py (which needs no PyTorch)."""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "optim")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from optim_problems import (  # noqa: E402
    BAD_OPTIONS, COMPLEX_REFUSED, OPTIMIZER_CASES, SCHEDULER_CASES, SHAPE_CASES, SHAPE_STEPS,
    STEPS, SPLIT, build_scheduler, case_loss, complex_case_loss, complex_problem_data,
    problem_data, rosenbrock_loss, rosenbrock_start, shape_case_loss, shape_case_start)


def to_numpy(t):
    return t.detach().cpu().numpy().copy()


def state_to_json(sd):
    """An optimizer state dict as JSON: tensors become {"tensor": list, "dtype": name}."""
    def conv(v):
        if isinstance(v, torch.Tensor):
            return {"tensor": v.detach().cpu().tolist(), "dtype": str(v.dtype).split(".")[-1]}
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v
    return conv(sd)


# Cases whose mid-training state dict is also written with torch.save.
SAVED_CASES = ("adam_amsgrad_wd", "sgd_nesterov", "nadam", "asgd")


def run_optimizer(case, dtype, save_as=None, complex_=False):
    np_dtype = np.float32 if dtype == torch.float32 else np.float64
    data = (complex_problem_data if complex_ else problem_data)(np_dtype)
    loss_of = complex_case_loss if complex_ else case_loss
    params = [torch.tensor(x, requires_grad=True) for x in data["init"]]
    consts = [(torch.tensor(t), torch.tensor(d)) for t, d in zip(data["target"], data["scale"])]
    groups = case.get("groups")
    if groups:
        arg = [dict(params=[params[i] for i in g["params"]], **g["options"]) for g in groups]
    else:
        arg = params
    opt = getattr(torch.optim, case["cls"])(arg, **case["kwargs"])
    traj = [np.concatenate([to_numpy(p).ravel() for p in params])]
    mid_state = None
    for step in range(STEPS):
        opt.zero_grad()
        loss_of(case, params, consts, step, torch).backward()
        if case.get("sparse"):
            for p in params:
                if p.grad is not None:
                    p.grad = p.grad.to_sparse()
        opt.step()
        traj.append(np.concatenate([to_numpy(p).ravel() for p in params]))
        if step + 1 == SPLIT:
            mid_state = state_to_json(opt.state_dict())
            if save_as:
                torch.save(opt.state_dict(), save_as)
    return np.stack(traj), mid_state


def main():
    arrays, states = {}, {}
    for name, case in OPTIMIZER_CASES.items():
        for dtype in (torch.float32, torch.float64):
            key = f"{name}/{str(dtype).split('.')[-1]}"
            save_as = None
            if name in SAVED_CASES and dtype == torch.float32:
                save_as = os.path.join(OUT, f"{name}_state.pt")
            traj, mid = run_optimizer(case, dtype, save_as)
            arrays[key] = traj
            if dtype == torch.float32:
                states[name] = mid
            if case["cls"] in COMPLEX_REFUSED or case.get("sparse"):
                continue
            arrays[f"{key}/complex"], _ = run_optimizer(case, dtype, complex_=True)
    np.savez_compressed(os.path.join(OUT, "optimizers.npz"), **arrays)
    with open(os.path.join(OUT, "optimizers.json"), "w") as f:
        json.dump(states, f, indent=0, sort_keys=True)

    # Schedulers: the rates (and momenta where they cycle) after each step.
    sched = {}
    for name, case in SCHEDULER_CASES.items():
        p1 = torch.zeros(2, requires_grad=True)
        p2 = torch.zeros(3, requires_grad=True)
        opt_cls = getattr(torch.optim, case.get("optimizer", "SGD"))
        opt = opt_cls([dict(params=[p1], lr=0.1), dict(params=[p2], lr=0.05)],
                      **case.get("optimizer_kwargs", {"momentum": 0.9}))
        scheduler = build_scheduler(torch, opt, case)
        lrs, moms = [scheduler.get_last_lr()], []
        for step in range(case.get("steps", STEPS)):
            opt.step()
            if case.get("metrics"):
                scheduler.step(case["metrics"][step])
            else:
                scheduler.step()
            lrs.append(list(scheduler.get_last_lr()))
            g = opt.param_groups[0]
            moms.append(g["betas"][0] if "betas" in g else g.get("momentum", 0.0))
        sched[name] = {"lrs": [[float(x) for x in row] for row in lrs], "momenta": moms}
    with open(os.path.join(OUT, "schedulers.json"), "w") as f:
        json.dump(sched, f, indent=0, sort_keys=True)

    # LBFGS: parameters after each call of step(closure), float64 Rosenbrock.
    lb = {}
    for ls in ("strong_wolfe", None):
        x = torch.tensor(rosenbrock_start(), dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([x], lr=1 if ls else 0.05, max_iter=10, history_size=5,
                                line_search_fn=ls)

        def closure():
            opt.zero_grad()
            loss = rosenbrock_loss(x)
            loss.backward()
            return loss
        rows = [to_numpy(x)]
        for _ in range(6):
            opt.step(closure)
            rows.append(to_numpy(x))
        lb[str(ls)] = np.stack(rows)
        lb[f"{ls}/func_evals"] = np.array(opt.state[x]["func_evals"])
        lb[f"{ls}/n_iter"] = np.array(opt.state[x]["n_iter"])
    np.savez_compressed(os.path.join(OUT, "lbfgs.npz"), **lb)
    write_shape_cases()


def write_shape_cases():
    arrays = {}
    for name, (cls, shape, kwargs) in SHAPE_CASES.items():
        for dtype in (np.float32, np.float64):
            start, target = shape_case_start(shape, dtype)
            p = torch.tensor(start, requires_grad=True)
            opt = getattr(torch.optim, cls)([p], **kwargs)
            rows = []
            for _ in range(SHAPE_STEPS):
                opt.zero_grad()
                shape_case_loss(p, torch.tensor(target)).backward()
                opt.step()
                rows.append(to_numpy(p))
            arrays[f"{name}/{np.dtype(dtype).name}"] = np.stack(rows)
    np.savez_compressed(os.path.join(OUT, "shape_cases.npz"), **arrays)
    errors = {}
    for name, (cls, shape, kwargs) in BAD_OPTIONS.items():
        try:
            getattr(torch.optim, cls)([torch.zeros(shape, requires_grad=True)], **kwargs)
        except Exception as e:  # noqa: BLE001 - the type and message are the record
            errors[name] = [type(e).__name__, str(e)]
        else:
            raise AssertionError(f"{name}: PyTorch accepted it")
    with open(os.path.join(OUT, "bad_options.json"), "w") as f:
        json.dump(errors, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
