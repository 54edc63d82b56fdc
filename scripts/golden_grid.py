"""Record PyTorch's grid_sample and affine_grid results for tests/test_nn_grid.py
(tests/golden/nn_grid): for each case its inputs, output, and the gradients of
sum(out * w) with respect to every input that requires grad.

grid_sample: every mode x padding_mode x align_corners for 4-D input, the
same but bicubic for 5-D (float64), and a few float32 cases; affine_grid:
2-D and 3-D sizes, both align_corners, float64 and float32.

Run with an interpreter that has PyTorch:  python scripts/golden_grid.py
The tests evaluate the same expression text with torchlike bound to torch."""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def grid_cases():
    cases = []
    for nd, xs, gs in ((2, (2, 3, 5, 6), (2, 4, 3, 2)), (3, (2, 2, 3, 4, 5), (2, 3, 2, 3, 3))):
        for mode in ("bilinear", "nearest", "bicubic"):
            if nd == 3 and mode == "bicubic":
                continue
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    # grid values in [-1.6, 1.6): some points outside, so padding matters
                    expr = (f"F.grid_sample(x, (g * 3.2 - 1.6), mode='{mode}', "
                            f"padding_mode='{pad}', align_corners={ac})")
                    cases.append(("grid", f"grid{nd}d_{mode}_{pad}_{'ac' if ac else 'noac'}", expr,
                                  {"x": (xs, "f8"), "g": (gs, "u8")}, ("x", "g")))
    for mode, pad in (("bilinear", "zeros"), ("bicubic", "reflection"), ("nearest", "border")):
        cases.append(("grid", f"grid2d_{mode}_{pad}_f32",
                      f"F.grid_sample(x, (g * 3.2 - 1.6), mode='{mode}', padding_mode='{pad}', "
                      f"align_corners=False)", {"x": ((2, 3, 7, 6), "f4"), "g": ((2, 5, 4, 2), "u4")},
                      ("x", "g")))
    cases.append(("grid", "grid3d_bilinear_reflection_f32",
                  "F.grid_sample(x, (g * 3.2 - 1.6), padding_mode='reflection', align_corners=True)",
                  {"x": ((1, 2, 4, 3, 5), "f4"), "g": ((1, 2, 3, 4, 3), "u4")}, ("x", "g")))
    for ac in (False, True):
        for code in ("f8", "f4"):
            cases.append(("affine", f"affine2d_{'ac' if ac else 'noac'}_{code}",
                          f"F.affine_grid(t, (2, 3, 4, 5), align_corners={ac})",
                          {"t": ((2, 2, 3), code)}, ("t",)))
            cases.append(("affine", f"affine3d_{'ac' if ac else 'noac'}_{code}",
                          f"F.affine_grid(t, (2, 1, 3, 4, 5), align_corners={ac})",
                          {"t": ((2, 3, 4), code)}, ("t",)))
    cases.append(("affine", "affine2d_unit_sizes", "F.affine_grid(t, (1, 1, 1, 4), align_corners=True)",
                  {"t": ((1, 2, 3), "f8")}, ("t",)))
    return cases


def record(cases, out_dir, seed):
    """Run each (kind, name, expr, inputs, grads) case under PyTorch and
    write out_dir/cases.json and out_dir/data.npz."""
    rng = np.random.default_rng(seed)
    meta, data = [], {}
    for kind, name, expr, inputs, wanted in cases:
        env = {"F": F, "torch": torch}
        for k, (shape, code) in inputs.items():
            arr = (rng.random(shape) if code.startswith("u") else rng.standard_normal(shape))
            arr = arr.astype("f" + code[1:])
            data[f"{name}/in/{k}"] = arr
            env[k] = torch.from_numpy(arr.copy()).requires_grad_(k in wanted)
        out = eval(expr, env)
        data[f"{name}/out"] = out.detach().numpy()
        w = rng.standard_normal(tuple(out.shape)).astype(data[f"{name}/out"].dtype)
        grads = torch.autograd.grad((out * torch.from_numpy(w)).sum(), [env[k] for k in wanted])
        data[f"{name}/w"] = w
        for k, gr in zip(wanted, grads):
            data[f"{name}/grad/{k}"] = gr.numpy()
        meta.append({"kind": kind, "name": name, "expr": expr, "inputs": list(inputs),
                     "grads": list(wanted)})
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(meta, f, indent=1)
    np.savez_compressed(os.path.join(out_dir, "data.npz"), **data)
    print(f"wrote {len(meta)} cases to {out_dir}")


if __name__ == "__main__":
    record(grid_cases(), os.path.join(HERE, "..", "tests", "golden", "nn_grid"), 2026)
