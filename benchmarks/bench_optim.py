"""Optimizer steps: one step over 100 parameters of 10^5 float32 each.

torchlike's default is the multi-tensor C step (one call per group); the peer
is PyTorch's foreach implementation when PyTorch is installed, otherwise
torchlike's own per-parameter path (foreach=False), so the ratio then shows
what the C step saves.  Gradients are fixed; each timed call is one step.

`python benchmarks/bench_optim.py` prints the table for these cases alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402
import torchlike  # noqa: E402
import torchlike.optim  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

NPARAMS, NUMEL = 100, 10 ** 5

CASES = [
    ("Adam", {"lr": 1e-3}),
    ("AdamW", {"lr": 1e-3, "amsgrad": True}),
    ("SGD", {"lr": 1e-2, "momentum": 0.9, "nesterov": True}),
    ("RMSprop", {"lr": 1e-2, "momentum": 0.9, "centered": True}),
    ("Adagrad", {"lr": 1e-2}),
]


def _step_case(lib, name, options, foreach):
    rng = np.random.default_rng(0)
    params = []
    for _ in range(NPARAMS):
        p = lib.tensor(rng.standard_normal(NUMEL).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(NUMEL).astype(np.float32))
        params.append(p)
    opt = getattr(lib.optim, name)(params, foreach=foreach, **options)
    opt.step()  # creates the state
    return opt.step


def cases():
    for name, options in CASES:
        label = f"{name} step, {NPARAMS} x 10^5 float32"
        mine = _step_case(torchlike, name, options, None)
        if torch is not None:
            yield label, mine, _step_case(torch, name, options, True), "torch foreach"
        else:
            yield label, mine, _step_case(torchlike, name, options, False), \
                "torchlike per-parameter"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import main
    main([sys.argv[0], "step, 100 x"])
