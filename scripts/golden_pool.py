"""Record PyTorch's pooling and resampling results for tests/test_nn_pool.py
and tests/test_nn_resample.py (tests/golden/nn_pool): for each case, its
inputs, outputs and the gradient of sum(out0 * w) with respect to x.

Run with an interpreter that has PyTorch:  python scripts/golden_pool.py
The tests evaluate the same expression text with torchlike bound to torch."""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "nn_pool")

# kind, name, expression, inputs {name: (shape, dtype)}; `s` holds random samples in [0, 1)
CASES = [
    # ceil_mode edge cases: the last window must start inside the input or its left padding
    ("pool", "max2d_ceil_last_window", "F.max_pool2d(x, 2, 2, ceil_mode=True, return_indices=True)",
     {"x": ((1, 2, 5, 5), "f8")}),
    ("pool", "max2d_ceil_pad", "F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)",
     {"x": ((2, 1, 6, 6), "f8")}),
    ("pool", "max2d_ceil_dropped", "F.max_pool2d(x, 2, 3, 1, ceil_mode=True, return_indices=True)",
     {"x": ((1, 2, 8, 7), "f8")}),
    ("pool", "max1d_dilated_ceil", "F.max_pool1d(x, 3, 2, 1, dilation=2, ceil_mode=True, return_indices=True)",
     {"x": ((2, 3, 10), "f8")}),
    ("pool", "max3d_ceil", "F.max_pool3d(x, (2, 3, 2), (2, 2, 3), (1, 1, 0), ceil_mode=True, return_indices=True)",
     {"x": ((1, 2, 5, 6, 7), "f8")}),
    ("pool", "max2d_f32_unbatched", "F.max_pool2d(x, 3, 1, 1, return_indices=True)",
     {"x": ((3, 5, 6), "f4")}),
    ("pool", "avg2d_ceil_cip", "F.avg_pool2d(x, 2, 3, 1, ceil_mode=True)", {"x": ((1, 2, 8, 8), "f8")}),
    ("pool", "avg2d_ceil_nocip", "F.avg_pool2d(x, 2, 3, 1, ceil_mode=True, count_include_pad=False)",
     {"x": ((1, 2, 8, 8), "f8")}),
    ("pool", "avg1d_ceil_nocip", "F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
     {"x": ((2, 2, 8), "f8")}),
    ("pool", "avg3d_divisor_ceil", "F.avg_pool3d(x, 2, 2, 1, ceil_mode=True, divisor_override=5)",
     {"x": ((1, 2, 5, 4, 5), "f8")}),
    ("pool", "avg2d_f32", "F.avg_pool2d(x, 3, 2, 1)", {"x": ((2, 3, 9, 7), "f4")}),
    ("pool", "adaptive_max3d", "F.adaptive_max_pool3d(x, (2, 3, 4), return_indices=True)",
     {"x": ((1, 2, 5, 6, 7), "f8")}),
    ("pool", "adaptive_max1d", "F.adaptive_max_pool1d(x, 4, return_indices=True)", {"x": ((2, 3, 10), "f8")}),
    ("pool", "adaptive_avg3d", "F.adaptive_avg_pool3d(x, (3, 2, 5))", {"x": ((1, 2, 5, 6, 7), "f8")}),
    ("pool", "adaptive_avg2d_up", "F.adaptive_avg_pool2d(x, (7, 9))", {"x": ((2, 2, 4, 5), "f8")}),
    ("pool", "fractional2d", "F.fractional_max_pool2d(x, 2, output_size=(5, 4), return_indices=True, _random_samples=s)",
     {"x": ((2, 3, 9, 11), "f8"), "s": ((2, 3, 2), "u8")}),
    ("pool", "fractional2d_f32_k3", "F.fractional_max_pool2d(x, 3, output_size=(4, 6), return_indices=True, _random_samples=s)",
     {"x": ((1, 2, 10, 13), "f4"), "s": ((1, 2, 2), "u4")}),
    ("pool", "fractional3d", "F.fractional_max_pool3d(x, (2, 2, 3), output_size=(3, 4, 5), return_indices=True, _random_samples=s)",
     {"x": ((1, 2, 7, 6, 9), "f8"), "s": ((1, 2, 3), "u8")}),
    ("pool", "max_unpool1d", "F.max_unpool1d(*F.max_pool1d(x, 3, 2, 1, return_indices=True), 3, 2, 1)",
     {"x": ((2, 2, 9), "f8")}),
    ("pool", "max_unpool3d", "F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(5, 4, 5))",
     {"x": ((1, 2, 5, 4, 5), "f8")}),
    ("pool", "lp_pool1d", "F.lp_pool1d(x, 1.5, 3, 2)", {"x": ((2, 3, 9), "f8")}),
    # interpolation: index rules in float32, scale factors, antialias
    ("resample", "nearest_f32_scale", "F.interpolate(x, scale_factor=0.7)", {"x": ((1, 2, 13, 11), "f4")}),
    ("resample", "nearest_f32_up", "F.interpolate(x, scale_factor=2.3)", {"x": ((1, 1, 5, 7), "f4")}),
    ("resample", "nearest_exact_scale", "F.interpolate(x, scale_factor=(1.6, 0.45), mode='nearest-exact')",
     {"x": ((2, 2, 7, 9), "f8")}),
    ("resample", "nearest_3d", "F.interpolate(x, size=(3, 7, 4))", {"x": ((1, 2, 4, 5, 6), "f8")}),
    ("resample", "nearest_1d_recompute", "F.interpolate(x, scale_factor=1.75, recompute_scale_factor=True)",
     {"x": ((2, 3, 7), "f8")}),
    ("resample", "linear_ac", "F.interpolate(x, size=13, mode='linear', align_corners=True)",
     {"x": ((2, 3, 6), "f8")}),
    ("resample", "linear_down", "F.interpolate(x, scale_factor=0.4, mode='linear')", {"x": ((2, 2, 11), "f8")}),
    ("resample", "bilinear_f32_scale", "F.interpolate(x, scale_factor=1.7, mode='bilinear')",
     {"x": ((2, 3, 5, 6), "f4")}),
    ("resample", "bicubic_scale", "F.interpolate(x, scale_factor=(1.5, 0.7), mode='bicubic')",
     {"x": ((1, 2, 6, 9), "f8")}),
    ("resample", "bicubic_ac_up", "F.interpolate(x, size=(11, 7), mode='bicubic', align_corners=True)",
     {"x": ((1, 2, 5, 4), "f8")}),
    ("resample", "trilinear_ac", "F.interpolate(x, size=(3, 7, 5), mode='trilinear', align_corners=True)",
     {"x": ((1, 2, 4, 5, 6), "f8")}),
    ("resample", "trilinear_recompute", "F.interpolate(x, scale_factor=1.3, mode='trilinear', recompute_scale_factor=True)",
     {"x": ((1, 1, 4, 5, 6), "f8")}),
    ("resample", "bilinear_aa_up", "F.interpolate(x, size=(9, 11), mode='bilinear', antialias=True)",
     {"x": ((1, 2, 5, 6), "f8")}),
    ("resample", "bicubic_aa_ac", "F.interpolate(x, size=(5, 4), mode='bicubic', antialias=True, align_corners=True)",
     {"x": ((1, 2, 13, 17), "f8")}),
    ("resample", "bilinear_aa_scale", "F.interpolate(x, scale_factor=(0.3, 0.55), mode='bilinear', antialias=True)",
     {"x": ((2, 1, 17, 13), "f8")}),
    ("resample", "bicubic_aa_f32", "F.interpolate(x, size=(6, 5), mode='bicubic', antialias=True)",
     {"x": ((1, 3, 16, 19), "f4")}),
    # grid_sample bicubic: gradients to the input only here (the grid's need
    # requires_grad on g, see tests/test_nn_resample.py for its gradcheck)
    ("resample", "grid_bicubic_zeros", "F.grid_sample(x, g * 1.3, mode='bicubic', align_corners=False)",
     {"x": ((2, 2, 5, 6), "f8"), "g": ((2, 4, 3, 2), "f8")}),
    ("resample", "grid_bicubic_border_ac", "F.grid_sample(x, g * 1.3, mode='bicubic', padding_mode='border', align_corners=True)",
     {"x": ((1, 3, 4, 5), "f8"), "g": ((1, 3, 5, 2), "f8")}),
    ("resample", "grid_bicubic_reflection", "F.grid_sample(x, g * 1.6, mode='bicubic', padding_mode='reflection')",
     {"x": ((1, 2, 5, 4), "f8"), "g": ((1, 4, 4, 2), "f8")}),
    ("resample", "grid_bicubic_reflection_ac", "F.grid_sample(x, g * 1.6, mode='bicubic', padding_mode='reflection', align_corners=True)",
     {"x": ((1, 2, 5, 4), "f8"), "g": ((1, 4, 4, 2), "f8")}),
    ("resample", "area_3d", "F.interpolate(x, size=(2, 3, 4), mode='area')", {"x": ((1, 2, 5, 7, 9), "f8")}),
]


def main():
    rng = np.random.default_rng(2026)
    cases, data = [], {}
    for kind, name, expr, inputs in CASES:
        env = {"F": F, "torch": torch}
        for k, (shape, code) in inputs.items():
            if code.startswith("u"):
                arr = rng.random(shape).astype("f" + code[1:])
            else:
                arr = rng.standard_normal(shape).astype(code)
            data[f"{name}/in/{k}"] = arr
            t = torch.from_numpy(arr.copy())
            env[k] = t.requires_grad_(True) if k == "x" else t
        out = eval(expr, env)
        outs = list(out) if isinstance(out, tuple) else [out]
        for j, o in enumerate(outs):
            data[f"{name}/out{j}"] = o.detach().numpy()
        w = rng.standard_normal(tuple(outs[0].shape)).astype(data[f"{name}/out0"].dtype)
        (g,) = torch.autograd.grad((outs[0] * torch.from_numpy(w)).sum(), [env["x"]])
        data[f"{name}/w"], data[f"{name}/grad"] = w, g.numpy()
        cases.append({"kind": kind, "name": name, "expr": expr, "inputs": list(inputs)})
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    np.savez_compressed(os.path.join(OUT, "data.npz"), **data)
    print(f"{len(cases)} cases, torch {torch.__version__}")


if __name__ == "__main__":
    main()
