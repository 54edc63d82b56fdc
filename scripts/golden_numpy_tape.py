"""Record PyTorch's gradients at the points where a derivative is a choice
(ties, zeros, singular matrices, bounds) for tests/test_numpy_tape_programs.py,
which writes each case with real NumPy calls on torchlike tensors.

Run with an interpreter that has PyTorch:
    python scripts/golden_numpy_tape.py
writes tests/golden/numpy_tape.json: {case: {"inputs": [...], "value": ...,
"grads": [...]}}, NaN and infinities as the strings "nan", "inf", "-inf"."""
import json
import math
import os

import torch as T

TIES = [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, -1.0]]
ZEROS = [[0.0, 2.0, 0.0], [1.5, -0.5, 3.0]]
SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]]
SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]

# name: (inputs, PyTorch's spelling of what the test writes with NumPy)
CASES = {
    "clip_number_bounds": ([[1.0, 2.0, 2.5, 3.0, 4.0]], lambda x: T.clamp(x, 2.0, 3.0)),
    "clip_lower_only": ([[1.0, 2.0, 2.5, 3.0, 4.0]], lambda x: T.clamp(x, min=2.0)),
    "clip_tensor_bounds": ([[1.0, 2.0, 2.5, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0, 2.0]],
                           lambda x, lo: T.clamp(x, lo, T.full_like(x, 3.0))),
    # both bounds tensors, meeting x (x == min == max), crossing (min > max)
    "clip_tensor_bounds_meet": ([[1.0, 2.0, 2.5, 3.0, 4.0], [2.0, 2.0, 2.5, 3.5, 2.0],
                                 [3.0, 2.0, 2.5, 3.0, 4.0]], lambda x, lo, hi: T.clamp(x, lo, hi)),
    "max_all_ties": ([TIES], lambda x: x.amax()),
    "max_axis_ties": ([TIES], lambda x: x.amax(dim=1)),
    "min_axis_ties": ([TIES], lambda x: x.amin(dim=0)),
    "maximum_ties": ([TIES], lambda x: T.maximum(x, x.flip(1))),
    "fmax_ties": ([TIES], lambda x: T.fmax(x, x.flip(1))),
    "ptp_ties": ([TIES], lambda x: x.amax(dim=1) - x.amin(dim=1)),
    "abs_at_zero": ([ZEROS], lambda x: x.abs()),
    "sign": ([ZEROS], lambda x: T.sign(x) * x),
    "norm_of_zero": ([[[0.0, 0.0], [0.0, 0.0]]], lambda x: T.linalg.norm(x)),
    "norm_axis_with_zero_row": ([[[0.0, 0.0], [3.0, 4.0]]],
                                lambda x: T.linalg.vector_norm(x, dim=1)),
    "sqrt_of_sum_of_squares_at_zero": ([[[0.0, 0.0]]], lambda x: T.sqrt((x ** 2).sum())),
    "prod_one_zero": ([[0.0, 2.0, 3.0, -1.5]], lambda x: x.prod()),
    "prod_two_zeros": ([[0.0, 2.0, 0.0, -1.5]], lambda x: x.prod()),
    "prod_axis_zeros": ([ZEROS], lambda x: x.prod(dim=1)),
    "cumprod_zeros": ([ZEROS], lambda x: x.cumprod(dim=1)),
    "std_of_constant": ([[[2.0, 2.0, 2.0]]], lambda x: x.std(correction=0)),
    "power_half_at_zero": ([[0.0, 1.0, 4.0]], lambda x: x ** 0.5),
    "power_zero_at_zero": ([[0.0, 1.0, 4.0]], lambda x: x ** 0.0),
    "hypot_at_zero": ([[0.0, 3.0], [0.0, 4.0]], lambda x, y: T.hypot(x, y)),
    "arctan2_at_zero": ([[0.0, 1.0], [0.0, 1.0]], lambda x, y: T.atan2(x, y)),
    "logaddexp_neg_inf": ([[-math.inf, 0.0], [-math.inf, 1.0]], lambda x, y: T.logaddexp(x, y)),
    "log_at_zero": ([[0.0, 1.0]], lambda x: T.log(x)),
    "det_singular": ([SINGULAR], lambda a: T.linalg.det(a)),
    "slogdet": ([SPD], lambda a: T.linalg.slogdet(a).logabsdet),
    "inv": ([SPD], lambda a: T.linalg.inv(a)),
    "eigh_values": ([SPD], lambda a: T.linalg.eigh(a).eigenvalues),
    "svd_values": ([SINGULAR], lambda a: T.linalg.svdvals(a)),
    "pinv_singular": ([SINGULAR], lambda a: T.linalg.pinv(a)),
    "matrix_norm_nuc": ([SINGULAR], lambda a: T.linalg.matrix_norm(a, "nuc")),
    "matrix_norm_2": ([SPD], lambda a: T.linalg.matrix_norm(a, 2)),
}


def encode(v):
    if isinstance(v, list):
        return [encode(e) for e in v]
    return v if math.isfinite(v) else str(v)


def main():
    out = {}
    for name, (inputs, f) in CASES.items():
        args = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in inputs]
        value = f(*args)
        # a weighted sum, so each output element's gradient counts differently
        weights = T.arange(1, value.numel() + 1, dtype=T.float64).reshape(value.shape)
        (value * weights).sum().backward()
        out[name] = {"inputs": inputs, "value": encode(value.detach().tolist()),
                     "grads": [encode(a.grad.tolist()) for a in args]}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "numpy_tape.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
