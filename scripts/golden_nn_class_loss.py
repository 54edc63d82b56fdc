"""Record PyTorch's cross_entropy, multi_margin_loss, multilabel_margin_loss
and ctc_loss for the options whose semantics are easy to get subtly wrong:
label smoothing with class weights and ignore_index, the weighting of
'mean', class-probability targets, the margin losses with weights and p=2,
ctc's reductions (per-target-length 'mean'), zero_infinity, padded and
concatenated targets, unbatched inputs, its gradient in raw log_probs
(PyTorch's is that of the logits under log_softmax), and error messages.

Run with a Python that has real PyTorch installed:

    python scripts/golden_nn_class_loss.py

It writes tests/golden/nn_class_loss/{cases.json, arrays.npz} in the format
of scripts/golden_nn_norm_loss.py (whose record() it uses); the test
(tests/test_nn_norm_loss_golden.py) evaluates the same expressions with
``torch`` bound to torchlike and never imports torch."""
import os

import numpy as np

from golden_nn_norm_loss import ints, randn, record, rng

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
                   "nn_class_loss")


def probs(*shape, axis=1):
    e = np.exp(randn(*shape))
    return e / e.sum(axis, keepdims=True)


def log_probs(T, N, C):
    x = randn(T, N, C)
    return x - np.log(np.exp(x).sum(2, keepdims=True))


# class-index targets with every class and the ignored one present
T6 = np.array([0, 2, 4, 2, 1, 3])
MULTILABEL = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 3, 0, 0],
                       [0, 1, 2, 3, 4]])

CASES = [
    ("ce_weight_ignore_smoothing_mean",
     "F.cross_entropy(x, t, weight=cw, ignore_index=2, label_smoothing=0.2)",
     {"x": randn(6, 5), "t": T6, "cw": rng.random(5) + 0.1}, ["x"], []),
    ("ce_weight_ignore_smoothing_sum",
     "F.cross_entropy(x, t, weight=cw, ignore_index=2, label_smoothing=0.2, reduction='sum')",
     {"x": randn(6, 5), "t": T6, "cw": rng.random(5) + 0.1}, ["x"], []),
    ("ce_4d_weight_smoothing_none",
     "F.cross_entropy(x, t, weight=cw, ignore_index=1, label_smoothing=0.1, reduction='none')",
     {"x": randn(2, 4, 3, 2), "t": ints(0, 4, 2, 3, 2), "cw": rng.random(4) + 0.1}, ["x"], []),
    ("ce_3d_weight_mean", "F.cross_entropy(x, t, weight=cw)",
     {"x": randn(3, 4, 5), "t": ints(0, 4, 3, 5), "cw": rng.random(4) + 0.1}, ["x"], []),
    ("ce_probs_weight_smoothing_mean", "F.cross_entropy(x, p, weight=cw, label_smoothing=0.3)",
     {"x": randn(5, 4), "p": probs(5, 4), "cw": rng.random(4) + 0.1}, ["x", "p"], []),
    ("ce_probs_3d_sum", "F.cross_entropy(x, p, reduction='sum')",
     {"x": randn(2, 4, 3), "p": probs(2, 4, 3)}, ["x", "p"], []),
    ("ce_probs_unbatched_none", "F.cross_entropy(x, p, reduction='none', label_smoothing=0.1)",
     {"x": randn(5), "p": probs(5, axis=0)}, ["x", "p"], []),
    ("ce_unbatched_smoothing", "F.cross_entropy(x, t, label_smoothing=0.25)",
     {"x": randn(6), "t": np.array(4)}, ["x"], []),
    ("ce_all_ignored_mean", "F.cross_entropy(x, t, ignore_index=0)",
     {"x": randn(3, 4), "t": np.zeros(3, np.int64)}, [], []),
    ("ce_empty_mean", "F.cross_entropy(x, t)",
     {"x": randn(0, 4), "t": np.zeros(0, np.int64)}, [], []),
    ("ce_float32_smoothing", "F.cross_entropy(x.float(), t, label_smoothing=0.1).double()",
     {"x": randn(8, 10), "t": ints(0, 10, 8)}, ["x"], []),
    ("ce_probs_weight_requires_grad", "F.cross_entropy(x, p, weight=cw, label_smoothing=0.1)",
     {"x": randn(4, 3), "p": probs(4, 3), "cw": rng.random(3) + 0.1}, ["x", "p", "cw"], []),
    ("ce_bfloat16", "F.cross_entropy(x.bfloat16(), t).double()",
     {"x": randn(8, 10), "t": ints(0, 10, 8)}, [], []),
    ("multi_margin_weight_mean", "F.multi_margin_loss(x, t, weight=cw)",
     {"x": randn(6, 5) * 0.5, "t": T6, "cw": rng.random(5) + 0.1}, ["x"], []),
    ("multi_margin_p2_margin_weight_none",
     "F.multi_margin_loss(x, t, p=2, margin=0.7, weight=cw, reduction='none')",
     {"x": randn(6, 5) * 0.5, "t": T6, "cw": rng.random(5) + 0.1}, ["x"], []),
    ("multi_margin_unbatched_sum", "F.multi_margin_loss(x, t, reduction='sum')",
     {"x": randn(5) * 0.5, "t": np.array(3)}, ["x"], []),
    ("multi_margin_float32", "F.multi_margin_loss(x.float(), t, p=2).double()",
     {"x": randn(6, 5) * 0.5, "t": T6}, ["x"], []),
    ("multilabel_margin_mean", "F.multilabel_margin_loss(x, t)",
     {"x": randn(4, 5) * 0.5, "t": MULTILABEL}, ["x"], []),
    ("multilabel_margin_none", "F.multilabel_margin_loss(x, t, reduction='none')",
     {"x": randn(4, 5) * 0.5, "t": MULTILABEL}, ["x"], []),
    ("multilabel_margin_unbatched", "F.multilabel_margin_loss(x, t, reduction='sum')",
     {"x": randn(5) * 0.5, "t": MULTILABEL[0]}, ["x"], []),
    ("ctc_padded_mean", "F.ctc_loss(x.log_softmax(2), t, il, tl)",
     {"x": randn(8, 3, 5), "t": np.array([[1, 2, 2, 3], [4, 4, 0, 0], [1, 0, 0, 0]]),
      "il": np.array([8, 7, 5]), "tl": np.array([4, 2, 0])}, ["x"], []),
    ("ctc_raw_log_probs_sum", "F.ctc_loss(lp, t, il, tl, reduction='sum')",
     {"lp": log_probs(7, 2, 4), "t": np.array([[1, 2, 1], [3, 3, 0]]), "il": np.array([7, 6]),
      "tl": np.array([3, 2])}, ["lp"], []),
    ("ctc_concatenated_blank_none", "F.ctc_loss(lp, t, il, tl, blank=2, reduction='none')",
     {"lp": log_probs(6, 3, 4), "t": np.array([0, 1, 3, 3, 1, 0]), "il": np.array([6, 6, 4]),
      "tl": np.array([2, 3, 1])}, ["lp"], []),
    ("ctc_zero_infinity_mean", "F.ctc_loss(lp, t, il, tl, zero_infinity=True)",
     {"lp": log_probs(5, 3, 4), "t": np.array([[1, 1, 2], [1, 2, 3], [2, 2, 0]]),
      "il": np.array([5, 2, 3]), "tl": np.array([3, 3, 2])}, ["lp"], []),
    ("ctc_infinite_none", "F.ctc_loss(lp, t, il, tl, reduction='none')",
     {"lp": log_probs(5, 2, 4), "t": np.array([[1, 1, 2], [1, 2, 3]]), "il": np.array([5, 2]),
      "tl": np.array([3, 3])}, [], []),
    ("ctc_unbatched_sum", "F.ctc_loss(lp, t, il, tl, reduction='sum')",
     {"lp": log_probs(6, 1, 5)[:, 0], "t": np.array([1, 3, 3]), "il": np.array(6),
      "tl": np.array(3)}, ["lp"], []),
    ("ctc_float32", "F.ctc_loss(x.float().log_softmax(2), t, il, tl).double()",
     {"x": randn(8, 2, 5), "t": np.array([[1, 2, 2], [4, 0, 0]]), "il": np.array([8, 6]),
      "tl": np.array([3, 1])}, ["x"], []),
]

LP = "torch.zeros(5, 2, 4, dtype=torch.float64).log_softmax(2)"
TG = "torch.tensor([[1, 2], [1, 1]])"
ERRORS = [
    ("ce_label_smoothing_range",
     "F.cross_entropy(torch.zeros(3, 4), torch.tensor([0, 1, 2]), label_smoothing=1.5)"),
    ("ce_target_out_of_bounds", "F.cross_entropy(torch.zeros(2, 4), torch.tensor([0, 4]))"),
    ("ce_probs_shape", "F.cross_entropy(torch.zeros(3, 4), torch.zeros(3, 5))"),
    ("ce_weight_requires_grad", "F.cross_entropy(torch.zeros(3, 4), torch.tensor([0, 1, 2]), "
     "weight=torch.ones(4, requires_grad=True))"),
    ("multi_margin_weight_requires_grad", "F.multi_margin_loss(torch.zeros(3, 4), "
     "torch.tensor([0, 1, 2]), weight=torch.ones(4, requires_grad=True))"),
    ("ce_float_target_spatial_shape",
     "F.cross_entropy(torch.zeros(3, 4, 2), torch.zeros(3, 4))"),
    ("ce_float_target_as_indices", "F.cross_entropy(torch.zeros(3, 4), torch.zeros(3))"),
    ("ce_int32_target",
     "F.cross_entropy(torch.zeros(3, 4), torch.zeros(3, dtype=torch.int32))"),
    ("nll_int16_target", "F.nll_loss(torch.zeros(3, 4), torch.zeros(3, dtype=torch.int16))"),
    ("multi_margin_int32_target",
     "F.multi_margin_loss(torch.zeros(3, 4), torch.zeros(3, dtype=torch.int32))"),
    ("multi_margin_target_size",
     "F.multi_margin_loss(torch.zeros(3, 4), torch.tensor([0, 1]))"),
    ("multi_margin_target_range",
     "F.multi_margin_loss(torch.zeros(3, 4), torch.tensor([0, 1, 4]))"),
    ("multi_margin_weight_size",
     "F.multi_margin_loss(torch.zeros(3, 4), torch.tensor([0, 1, 2]), weight=torch.ones(3))"),
    ("multi_margin_p", "F.multi_margin_loss(torch.zeros(3, 4), torch.tensor([0, 1, 2]), p=3)"),
    ("multi_margin_no_classes",
     "F.multi_margin_loss(torch.zeros(3, 0), torch.tensor([0, 1, 2]))"),
    ("multilabel_target_size",
     "F.multilabel_margin_loss(torch.zeros(3, 4), torch.tensor([0, 1, 2]))"),
    ("multilabel_target_range",
     "F.multilabel_margin_loss(torch.zeros(3, 4), torch.tensor([[0, 1, 2, 5]] * 3))"),
    ("multilabel_no_double_backward",
     "torch.autograd.grad(torch.autograd.grad(F.multilabel_margin_loss(x := torch.zeros(3, 4, "
     "dtype=torch.float64, requires_grad=True), torch.tensor([[0, 1, -1, 0]] * 3)), x, "
     "create_graph=True)[0].sum(), x)"),
    ("ctc_input_length", f"F.ctc_loss({LP}, {TG}, [5, 6], [2, 2])"),
    ("ctc_target_width", f"F.ctc_loss({LP}, {TG}, [5, 5], [2, 3])"),
    ("ctc_concatenated_size", f"F.ctc_loss({LP}, torch.tensor([1, 2, 1]), [5, 5], [2, 2])"),
    ("ctc_blank_range", f"F.ctc_loss({LP}, {TG}, [5, 5], [2, 2], blank=4)"),
    ("ctc_lengths_size", f"F.ctc_loss({LP}, {TG}, [5, 5, 5], [2, 2])"),
    ("ctc_negative_target_length", f"F.ctc_loss({LP}, {TG}, [5, 5], [2, -1])"),
    ("ctc_reduction", f"F.ctc_loss({LP}, {TG}, [5, 5], [2, 2], reduction='bad')"),
    ("ctc_no_double_backward",
     f"torch.autograd.grad(torch.autograd.grad(F.ctc_loss(x := {LP}.requires_grad_(), {TG}, "
     "[5, 5], [2, 2]), x, create_graph=True)[0].sum(), x)"),
]


if __name__ == "__main__":
    record(CASES, ERRORS, OUT, rng)
