"""Record PyTorch's calls of saved-tensor pack/unpack hooks as a golden file.

Run with a Python that has real PyTorch:

    python scripts/golden_saved_hooks.py

It writes tests/golden/saved_hooks.json: for each case (code text run in
both libraries with ``torch`` bound to the library), the list of hook events
``[kind, shape, requires_grad, has_grad_fn]`` for pack and ``[kind, shape]``
for unpack: first those of the forward, then those of the backward.
tests/test_saved_tensor_hooks.py runs the same text on torchlike."""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "saved_hooks.json")

# Each forward assigns `loss`; x (3,) and w (3, 3) are float64 leaves.
CASES = {
    "mul_square": "loss = (x * x).sum()",
    "exp_saves_output": "loss = x.exp().sum()",
    "add_saves_nothing": "loss = (x + x).sum()",
    "sin_then_exp": "loss = x.sin().exp().sum()",
    "matmul": "loss = (w @ x).tanh().sum()",
    "mul_constant": "loss = (x * 2.0).sum()",
    "unused_branch": "y = x.cos()\nloss = (x * 3.0).exp().sum()",
    "pow_mixed": "loss = (x.pow(3) + (x * w[0]).sigmoid()).sum()",
    "div": "loss = (x / (w[1] * w[1] + 1.0)).sum()",
    "div_plain": "loss = (x / (x.exp() + 1.0)).sum()",
    "stack_list": "loss = torch.stack([x.sin(), x.exp()]).prod()",
}


def events(torch_mod, code, x, w):
    log = []

    def pack(t):
        log.append(["pack", list(t.shape), bool(t.requires_grad), t.grad_fn is not None])
        return t

    def unpack(t):
        log.append(["unpack", list(t.shape)])
        return t

    scope = {"torch": torch_mod, "x": x, "w": w}
    with torch_mod.autograd.graph.saved_tensors_hooks(pack, unpack):
        exec(code, scope)
    n = len(log)
    scope["loss"].backward()
    return log[:n], log[n:]


def main():
    x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[0.2, 0.5, -0.4], [1.0, -0.3, 0.8], [0.6, 0.1, -0.9]],
                     dtype=torch.float64, requires_grad=True)
    out = {}
    for name, code in CASES.items():
        fwd, bwd = events(torch, code, x, w)
        out[name] = {"code": code, "forward": fwd, "backward": bwd}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
