"""Record what PyTorch's nn.functional losses do with integer and bool
operands, for tests/test_loss_integer_operands.py: the result's dtype and
values where PyTorch computes (promoting the operands), or its exception
class and words where it refuses; and hinge_embedding_loss with targets
other than 1 and -1 (PyTorch's formula takes the input where the target is
not -1 and the margin term where it is not 1, so a target of 0 or 2 adds
both).

Run with an interpreter that has PyTorch:
    python scripts/golden_loss_integer_operands.py
writes tests/golden/loss_integer_operands.json: [call, outcome] pairs, the
call a Python expression over T, F (its nn.functional) and the inputs
inputs() makes."""
from golden_calls import record

# operands: F float32, D float64, I int64, J int32, U uint8, B bool, P
# probabilities in (0, 1); all (2, 3) unless named otherwise
PAIRS = ["I, I", "F, I", "I, F", "J, F", "F, J", "U, U", "B, B", "F, B", "B, F", "D, I",
         "I, D"]
ELEMENTWISE = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
               "multilabel_soft_margin_loss", "binary_cross_entropy_with_logits",
               "poisson_nll_loss", "kl_div"]

CALLS = [f"F.{name}({pair})" for name in ELEMENTWISE for pair in PAIRS] + [
    f"F.{name}({pair}, reduction='none')" for name in ("l1_loss", "mse_loss", "kl_div")
    for pair in ("I, I", "F, I", "B, B")] + [
    "F.kl_div(F, I, log_target=True)", "F.kl_div(I, I, log_target=True)",
    "F.poisson_nll_loss(I, I, log_input=False)", "F.poisson_nll_loss(F, I, full=True)",
    "F.binary_cross_entropy(P, I)", "F.binary_cross_entropy(P, B)",
    "F.binary_cross_entropy(I, P)", "F.binary_cross_entropy(P.double(), I)",
    "F.binary_cross_entropy_with_logits(F, I, pos_weight=I[0])",
    "F.binary_cross_entropy_with_logits(F, F, weight=I)",
    "F.gaussian_nll_loss(F, I, V)", "F.gaussian_nll_loss(I, F, V)",
    "F.gaussian_nll_loss(F, F, VI)", "F.gaussian_nll_loss(I, I, VI)",
    "F.hinge_embedding_loss(F, H)", "F.hinge_embedding_loss(I, H)",
    "F.hinge_embedding_loss(F, HF)", "F.hinge_embedding_loss(F, H, reduction='none')",
    "F.hinge_embedding_loss(F, HF, margin=0.5, reduction='none')",
    "F.hinge_embedding_loss(I, H, reduction='none')", "F.hinge_embedding_loss(F, B)",
    "F.hinge_embedding_loss(B, H, reduction='none')", "F.hinge_embedding_loss(F, PM)",
    "F.hinge_embedding_loss(D, H, margin=2, reduction='none')",
    "F.margin_ranking_loss(I, I, PM)", "F.margin_ranking_loss(F, F, PM)",
    "F.margin_ranking_loss(F, I, PM)", "F.margin_ranking_loss(I, I, PM, reduction='none')",
    "F.cosine_embedding_loss(F, F, T.tensor([1, -1]))",
    "F.cosine_embedding_loss(I, I, T.tensor([1, -1]))",
    "F.cosine_embedding_loss(F, I, T.tensor([1, -1]))",
    "F.multi_margin_loss(F, C)", "F.multi_margin_loss(I, C)", "F.multi_margin_loss(F, C.int())",
    "F.multilabel_margin_loss(F, L)", "F.multilabel_margin_loss(I, L)",
    "F.multilabel_margin_loss(F, L.int())",
    "F.nll_loss(F, C)", "F.nll_loss(I, C)", "F.nll_loss(F, C.int())", "F.nll_loss(F, C.byte())",
    "F.cross_entropy(F, C)", "F.cross_entropy(I, C)", "F.cross_entropy(F, C.int())",
    "F.cross_entropy(F, C.bool())", "F.cross_entropy(F, P)", "F.cross_entropy(F, I)",
    "F.cross_entropy(D, P)",
    "F.triplet_margin_loss(I, I, I)", "F.triplet_margin_loss(F, F, I)",
    "F.triplet_margin_loss(F, I, F)",
    "F.mse_loss(I, I.float(), reduction='sum')", "F.l1_loss(I, I, reduction='sum')",
    "F.smooth_l1_loss(I, I, beta=0.5)", "F.huber_loss(I, F, delta=0.5)",
]


def inputs(T):
    f = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -2.5]])
    i = T.tensor([[1, 0, 2], [3, 1, 0]])
    return {
        "T": T, "F": T.nn.functional, "PM": T.tensor([[1, -1, 1], [-1, 1, -1]]),
        "F_": f, "D": f.double(), "I": i, "J": i.int(), "U": i.byte(), "B": i > 0,
        "P": T.tensor([[0.2, 0.7, 0.4], [0.9, 0.5, 0.1]]),
        "V": T.tensor([[0.5, 1.0, 2.0], [1.0, 1.5, 0.5]]), "VI": T.tensor([[1, 2, 1], [3, 1, 2]]),
        "H": T.tensor([[1, -1, 0], [2, -1, 1]]), "HF": T.tensor([[1.0, -1.0, 0.5], [2.0, -0.5, 1.0]]),
        "C": T.tensor([2, 0]), "L": T.tensor([[2, 0, -1], [1, -1, 0]]),
    }


def _env(T):
    env = inputs(T)
    env["F"], env["Fn"] = env.pop("F_"), env["F"]
    return env


def describe(r):
    """A result's dtype, shape and values."""
    return ["tensor", str(r.dtype).split(".")[-1], list(r.shape),
            r.detach().reshape(-1).tolist()]


def main():
    record([c.replace("F.", "Fn.", 1) for c in CALLS], _env, describe, "loss_integer_operands",
           messages=True)


if __name__ == "__main__":
    main()
