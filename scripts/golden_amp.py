"""Record PyTorch's autocast dtypes and GradScaler trajectories as golden
files for tests/test_amp.py.

Run with a Python that has PyTorch:  python scripts/golden_amp.py
Writes tests/golden/amp/{autocast_dtypes.json, grad_scaler.json}. The cases
are defined in tests/amp_cases.py (no PyTorch needed there)."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "golden", "amp")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from amp_cases import (CASES, SCALER_OPTIONS, SCALER_STEPS, inputs, scaler_loss,  # noqa: E402
                       scaler_problem)


def dtype_name(dt):
    return str(dt).rsplit(".", 1)[-1]


def record_dtypes():
    out = {}
    for dtype in (torch.bfloat16, torch.float16):
        table = {}
        for name, fn in CASES.items():
            x = inputs(torch)
            with torch.autocast("cpu", dtype=dtype):
                table[name] = dtype_name(fn(torch, x).dtype)
        out[dtype_name(dtype)] = table
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
        out["disabled"] = {name: dtype_name(fn(torch, inputs(torch)).dtype) for name, fn in CASES.items()}
    return out


def record_scaler():
    w, b, xs = scaler_problem(torch)
    opt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", **SCALER_OPTIONS)
    rec = {"scale": [], "growth_tracker": [], "w": [], "b": [], "state_dicts": {}}
    for step in range(SCALER_STEPS):
        opt.zero_grad()
        loss = scaler_loss(torch, w, b, xs[step], step)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        rec["scale"].append(scaler.get_scale())
        rec["growth_tracker"].append(scaler.state_dict()["_growth_tracker"])
        rec["w"].append(w.detach().numpy().tolist())
        rec["b"].append(b.detach().numpy().tolist())
        if step == 5:
            rec["state_dicts"]["5"] = scaler.state_dict()
    return rec


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "autocast_dtypes.json"), "w") as f:
        json.dump(record_dtypes(), f, indent=1)
    with open(os.path.join(OUT, "grad_scaler.json"), "w") as f:
        json.dump(record_scaler(), f, indent=1)
    print(f"wrote tests/golden/amp (torch {torch.__version__})")


if __name__ == "__main__":
    main()
