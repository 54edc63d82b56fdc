"""Record PyTorch's normalisation and nll/cross-entropy behaviour for options
that scripts/make_golden.py does not cover: running statistics after a
training call, BatchNorm1d-shaped and wide inputs, rms_norm's default eps,
instance_norm's running statistics, nll_loss/cross_entropy over (N, C, d1,
d2) with weights, ignore_index and label smoothing, half-precision values,
and error messages.

Run with a Python that has real PyTorch installed:

    python scripts/golden_nn_norm_loss.py

It writes tests/golden/nn_norm_loss/{cases.json, arrays.npz}; the test
(tests/test_nn_norm_loss_golden.py) evaluates the same expressions with
``torch`` bound to torchlike and never imports torch.

A case is an expression over named inputs (float64 unless integer or named
in ``dtype``); recorded: its output, the gradient of ``sum(out * w)`` for a
fixed random ``w`` with respect to the inputs listed in ``grad``, and the
values after the call of the inputs listed in ``after`` (running stats)."""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "nn_norm_loss")
rng = np.random.default_rng(2024)


def randn(*shape):
    return rng.standard_normal(shape)


def ints(lo, hi, *shape):
    return rng.integers(lo, hi, shape)


CASES = [
    ("batch_norm_train_running", "F.batch_norm(x, rm, rv, w, b, True, 0.3, 1e-3)",
     {"x": randn(4, 3, 5), "rm": randn(3), "rv": rng.random(3) + 0.5, "w": randn(3),
      "b": randn(3)}, ["x", "w", "b"], ["rm", "rv"]),
    ("batch_norm_1d_wide_running", "F.batch_norm(x, rm, rv, w, None, True, 0.1, 1e-5)",
     {"x": randn(6, 70), "rm": randn(70), "rv": rng.random(70) + 0.5, "w": randn(70)},
     ["x", "w"], ["rm", "rv"]),
    ("batch_norm_1d_eval", "F.batch_norm(x, rm, rv, None, b, False)",
     {"x": randn(6, 70), "rm": randn(70), "rv": rng.random(70) + 0.5, "b": randn(70)},
     ["x", "b"], []),
    ("instance_norm_running",
     "F.instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=0.2)",
     {"x": randn(3, 2, 6), "rm": randn(2), "rv": rng.random(2) + 0.5, "w": randn(2),
      "b": randn(2)}, ["x", "w", "b"], ["rm", "rv"]),
    ("instance_norm_eval", "F.instance_norm(x, rm, rv, use_input_stats=False)",
     {"x": randn(3, 2, 6), "rm": randn(2), "rv": rng.random(2) + 0.5}, ["x"], []),
    ("group_norm_hxw1", "F.group_norm(x, 2, w, b, eps=1e-3)",
     {"x": randn(3, 6), "w": randn(6), "b": randn(6)}, ["x", "w", "b"], []),
    ("layer_norm_bias_only", "F.layer_norm(x, (4,), None, b)",
     {"x": randn(3, 4), "b": randn(4)}, ["x", "b"], []),
    ("rms_norm_default_eps_tiny", "F.rms_norm(x * 1e-9, (5,), w)",
     {"x": randn(3, 5), "w": randn(5)}, ["x", "w"], []),
    ("rms_norm_float32_default_eps", "F.rms_norm(x.float() * 1e-5, (5,)).double()",
     {"x": randn(3, 5)}, [], []),
    ("layer_norm_bfloat16", "F.layer_norm(x.bfloat16(), (8,)).double()",
     {"x": randn(4, 8)}, [], []),
    ("batch_norm_float16", "F.batch_norm(x.half(), None, None, training=True).double()",
     {"x": randn(5, 3, 4)}, [], []),
    ("nll_loss_2d_weight_ignore_mean", "F.nll_loss(x, t, weight=cw, ignore_index=1)",
     {"x": randn(2, 4, 3, 2), "t": ints(0, 4, 2, 3, 2), "cw": rng.random(4) + 0.1},
     ["x"], []),
    ("nll_loss_unbatched_none", "F.nll_loss(x, t, reduction='none')",
     {"x": randn(5), "t": np.array(3)}, ["x"], []),
    ("cross_entropy_2d_weight_smoothing_sum",
     "F.cross_entropy(x, t, weight=cw, label_smoothing=0.15, reduction='sum', ignore_index=0)",
     {"x": randn(2, 4, 3, 2), "t": ints(0, 4, 2, 3, 2), "cw": rng.random(4) + 0.1},
     ["x"], []),
    ("cross_entropy_unbatched", "F.cross_entropy(x, t)", {"x": randn(6), "t": np.array(2)},
     ["x"], []),
]

ERRORS = [
    ("batch_norm_running_mean_size", "F.batch_norm(torch.zeros(4, 3), torch.zeros(4), "
     "torch.ones(3), training=True)"),
    ("batch_norm_weight_size", "F.batch_norm(torch.zeros(4, 3), None, None, torch.ones(2), "
     "training=True)"),
    ("nll_loss_batch_mismatch", "F.nll_loss(torch.zeros(3, 4), torch.zeros(2, dtype=torch.long))"),
    ("nll_loss_target_out_of_bounds",
     "F.nll_loss(torch.zeros(2, 4), torch.tensor([0, 4]))"),
    ("layer_norm_shape", "F.layer_norm(torch.zeros(4, 3, 2), (4,))"),
    ("group_norm_groups", "F.group_norm(torch.zeros(4, 3, 2), 2)"),
]


def record(cases, errors, out, rng):
    """Evaluate `cases` and `errors` with PyTorch and write them under `out`
    (also used by the other scripts/golden_nn_*.py)."""
    os.makedirs(out, exist_ok=True)
    arrays, recorded = {}, []
    for name, expr, inputs, grads, after in cases:
        env = {"torch": torch, "F": F}
        for k, v in inputs.items():
            t = torch.tensor(v)
            if k in grads:
                t.requires_grad_()
            env[k] = t
            arrays[f"{name}/in/{k}"] = v
        res = eval(expr, env)
        arrays[f"{name}/out"] = res.detach().numpy()
        if grads:
            w = torch.tensor(rng.standard_normal(tuple(res.shape)))
            arrays[f"{name}/w"] = w.numpy()
            found = torch.autograd.grad((res * w).sum(), [env[k] for k in grads])
            for k, g in zip(grads, found):
                arrays[f"{name}/grad/{k}"] = g.numpy()
        for k in after:
            arrays[f"{name}/after/{k}"] = env[k].detach().numpy()
        recorded.append({"name": name, "expr": expr, "inputs": sorted(inputs), "grad": grads,
                         "after": after})
    failures = []
    for name, expr in errors:
        try:
            eval(expr, {"torch": torch, "F": F})
        except Exception as e:  # noqa: BLE001 - the type and message are what is recorded
            failures.append({"name": name, "expr": expr, "type": type(e).__name__,
                             "message": str(e)})
        else:
            raise AssertionError(f"{name} did not fail")
    np.savez_compressed(os.path.join(out, "arrays.npz"), **arrays)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"cases": recorded, "errors": failures}, f, indent=1)


def main():
    record(CASES, ERRORS, OUT, rng)


if __name__ == "__main__":
    main()
