"""Record PyTorch's answers to binary_cross_entropy(_with_logits) calls whose
operands disagree: target, weight and pos_weight shapes that do not match or
that broadcast past the input's, non-tensor weights, mixed dtypes, and the
torch-level spelling (torch.binary_cross_entropy_with_logits: weight and
pos_weight positional, the reduction an int), for tests/test_bce_checks.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_bce_checks.py
writes tests/golden/bce_checks.json: [call, outcome] pairs, the outcome the
result's shape, dtype and values, or the exception's type and first line."""
import numpy as np

from golden_calls import record

BCEL = "F.binary_cross_entropy_with_logits"
CALLS = [
    f"{BCEL}(x, y)", f"{BCEL}(x, y[:, :2])", f"{BCEL}(x[:, :2], y)", f"{BCEL}(x, y.reshape(4, 3))",
    f"{BCEL}(x, y[0])", f"{BCEL}(x[0], y)",
    f"{BCEL}(x, y, weight=w4)", f"{BCEL}(x, y, weight=T.ones(3))", f"{BCEL}(x, y, weight=w31)",
    f"{BCEL}(x, y, weight=T.ones(2, 3, 4))", f"{BCEL}(x, y, weight=T.ones(5))",
    f"{BCEL}(x, y, weight=T.ones(()) * 2)",
    f"{BCEL}(x, y, pos_weight=w4)", f"{BCEL}(x, y, pos_weight=T.ones(3))",
    f"{BCEL}(x, y, pos_weight=w31)", f"{BCEL}(x, y, pos_weight=T.ones(2, 3, 4))",
    f"{BCEL}(x, y, pos_weight=T.ones(5))", f"{BCEL}(x, y, pos_weight=T.ones(3, 4, 1))",
    f"{BCEL}(x, y, reduction='none', weight=T.ones(2, 1, 4))",
    f"{BCEL}(x, y, pos_weight=T.ones(5), weight=T.ones(6))",
    f"{BCEL}(x, y, weight=T.ones(5), pos_weight=T.ones(2, 3, 4))",
    f"{BCEL}(x, y, pos_weight=2.0)", f"{BCEL}(x, y, weight=2.0)", f"{BCEL}(x, y, weight=[1.0] * 4)",
    f"{BCEL}(x, y, pos_weight=w4.double())", f"{BCEL}(x, y, weight=w4.double())",
    f"{BCEL}(x, y.double())", f"{BCEL}(x.double(), y)", f"{BCEL}(x, y, pos_weight=w4.long())",
    f"{BCEL}(x, y, weight=w4.long())", f"{BCEL}(x, 1.0)", f"{BCEL}(x, y.long())", f"{BCEL}(x.long(), y)",
    "F.binary_cross_entropy(p, y)", "F.binary_cross_entropy(p, y[:, :2])",
    "F.binary_cross_entropy(p, y, weight=T.ones(5))", "F.binary_cross_entropy(p, y, weight=w4)",
    "F.binary_cross_entropy(p, y, weight=T.ones(2, 3, 4))", "F.binary_cross_entropy(p, y, weight=w31)",
    "F.binary_cross_entropy(p, y, weight=T.ones(3))", "F.binary_cross_entropy(p, y.double())",
    "F.binary_cross_entropy(p, y, weight=w4.double())", "F.binary_cross_entropy(p, y, weight=2.0)",
    "T.nn.BCEWithLogitsLoss(pos_weight=T.ones(5))(x, y)", "T.nn.BCEWithLogitsLoss(weight=T.ones(5))(x, y)",
    "T.nn.BCEWithLogitsLoss()(x, y[:2])", "T.nn.BCEWithLogitsLoss(pos_weight=w31)(x, y)",
    "T.nn.BCELoss(weight=T.ones(5))(p, y)",
    # torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction: int)
    "T.binary_cross_entropy_with_logits(x, y)", "T.binary_cross_entropy_with_logits(x, y, None, None, 0)",
    "T.binary_cross_entropy_with_logits(x, y, None, None, 2)",
    "T.binary_cross_entropy_with_logits(x, y, w4, w31, 1)",
    "T.binary_cross_entropy_with_logits(x, y, None, w4)",
    "T.binary_cross_entropy_with_logits(x, y, pos_weight=w4, reduction=0)",
    "T.binary_cross_entropy_with_logits(x, y, reduction='mean')",
    "T.binary_cross_entropy_with_logits(x, y[:, :2])", "T.binary_cross_entropy_with_logits(x, y[:, :1])",
    "T.binary_cross_entropy_with_logits(x[:, :1], y)",
    "T.binary_cross_entropy_with_logits(x, y, T.ones(5), None, 1)",
    "T.binary_cross_entropy_with_logits(x, y, None, T.ones(5), 1)",
]


def make_env(T):
    rs = np.random.RandomState(3)
    x = T.tensor(rs.standard_normal((3, 4)), dtype=T.float32)
    return {"T": T, "F": T.nn.functional, "x": x, "p": T.sigmoid(x),
            "y": T.tensor(rs.rand(3, 4), dtype=T.float32),
            "w4": T.tensor(rs.rand(4) + 0.5, dtype=T.float32),
            "w31": T.tensor(rs.rand(3, 1) + 0.5, dtype=T.float32)}


def describe(r):
    return ["tensor", list(r.shape), str(r.dtype).split(".")[-1],
            [float(v) for v in r.detach().double().reshape(-1).tolist()]]


if __name__ == "__main__":
    record(CALLS, make_env, describe, "bce_checks", messages=True)
