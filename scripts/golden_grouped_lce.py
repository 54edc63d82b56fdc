"""Record PyTorch's answers for nn.functional.grouped_mm
(torchlike/nn/_grouped_mm.py) and nn.functional.linear_cross_entropy /
nn.LinearCrossEntropyLoss (torchlike/nn/_linear_cross_entropy.py), for
tests/test_grouped_lce.py: the four grouped_mm shape forms (float32, sizes
PyTorch's CPU kernel takes: 16-byte strides), linear_cross_entropy's
reductions, class weights, ignore_index, label smoothing, K-dimensional
and probability targets, the chunked path, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_grouped_lce.py
writes tests/golden/grouped_lce.json ([call, outcome] pairs over T, the library)."""
import functools

from golden_calls import det as golden_det, record
from golden_signal_windows import describe as _describe


def describe(r):
    """Full-precision values; a loss module by its repr."""
    return ["repr", repr(r)] if type(r).__name__ == "LinearCrossEntropyLoss" else _describe(r)


def inputs(T):
    det = functools.partial(golden_det, T)
    F = T.nn.functional
    return {
        "T": T, "F": F, "det": det,
        "a": det(10, 8), "b": det(3, 8, 4, s=0.7), "a3": det(3, 4, 8, s=0.5),
        "bt": det(12, 8, s=0.45), "m": det(8, 12, s=0.2), "n": det(12, 4, s=0.6),
        "offs": T.tensor([3, 7, 9], dtype=T.int32), "o12": T.tensor([4, 8, 12], dtype=T.int32),
        "x": det(6, 5), "W": det(7, 5, s=0.37) * 2, "bias": det(7, s=0.9),
        "t": T.tensor([1, 2, -100, 3, 6, 0]), "cw": det(7, s=1.3).abs() + 0.1,
        "Wk": det(7, 2, 5, s=0.41), "tk": T.tensor([[1, 2], [0, 6], [3, 3], [5, 4], [2, 2], [6, 0]]),
        "tp": T.softmax(det(6, 7, s=0.8) * 3, 1),
        "O": T.nn.LinearCrossEntropyOptions(batch_chunk_size=4),
        "O1": T.nn.LinearCrossEntropyOptions(),
    }


CALLS = [
    "F.grouped_mm(a, b, offs=offs)[:9]", "F.grouped_mm(a3, b)", "F.grouped_mm(a3, bt.T, offs=o12)",
    "F.grouped_mm(m, n, offs=o12)", "F.grouped_mm(a, b, offs=T.tensor([0, 0, 8], dtype=T.int32))[:8]",
    "F.grouped_mm(a, b, offs=offs.long())", "F.grouped_mm(a, b)", "F.grouped_mm(a3, b, offs=offs)",
    "F.grouped_mm(a, T.ones(2, 8, 4), offs=offs)", "F.grouped_mm(a, b[:, :4], offs=offs)",
    "F.grouped_mm(a[0], b)", "F.grouped_mm(a, b.half(), offs=offs)",
    "F.grouped_mm(a, b, offs=offs, bias=T.ones(3, 4))", "F.grouped_mm(a3, T.ones(2, 8, 4))",
    "F.grouped_mm(a, b, offs=offs, out_dtype=T.float64)",
    # linear_cross_entropy
    *[f"F.linear_cross_entropy(x, W, t, reduction='{r}')" for r in ("mean", "sum", "none")],
    *[f"F.linear_cross_entropy(x, W, t, linear_bias=bias, weight=cw, reduction='{r}', "
      f"label_smoothing=0.15)" for r in ("mean", "sum", "none")],
    *[f"F.linear_cross_entropy(x, W, t, linear_bias=bias, weight=cw, reduction='{r}', "
      f"label_smoothing=0.15, options=O)" for r in ("mean", "sum", "none")],
    "F.linear_cross_entropy(x, W, t, ignore_index=2, options=O1)",
    "F.linear_cross_entropy(x, W, t.clamp(min=0), ignore_index=None)",
    "F.linear_cross_entropy(x[0], W, t[0])", "F.linear_cross_entropy(x, W, tp)",
    "F.linear_cross_entropy(x, W, tp, label_smoothing=0.3, reduction='sum')",
    "F.linear_cross_entropy(x, Wk, tk)", "F.linear_cross_entropy(x, Wk, tk, reduction='none')",
    "F.linear_cross_entropy(x, Wk, tk, linear_bias=det(7, 2, s=0.3), options=O)",
    "F.linear_cross_entropy(x, W, t, reduction='bad')", "F.linear_cross_entropy(x, W.T, t)",
    "T.nn.LinearCrossEntropyOptions(acc_policy='x')",
    "T.nn.LinearCrossEntropyOptions(chunking_method='ratio')",
    "T.nn.LinearCrossEntropyLoss(5, 7, out_features=(2, 3), bias=True, weight=T.ones(7))",
    "list(T.nn.LinearCrossEntropyLoss(5, 7, out_features=(2, 3), bias=True, weight=T.ones(7)).state_dict())",
    "[v.shape for v in T.nn.LinearCrossEntropyLoss(5, 7, bias=True).state_dict().values()]",
    "T.nn.LinearCrossEntropyLoss(5, 7, weight=T.ones(6))",
    "T.nn.LinearCrossEntropyLoss(5, 7, label_smoothing=1.5)",
]


def main():
    record(CALLS, inputs, describe, "grouped_lce", messages=True)


if __name__ == "__main__":
    main()
