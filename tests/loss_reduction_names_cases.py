"""The reduction names and legacy flags of every loss, run the same way over
PyTorch and torchlike.

``record(T)`` takes the library as T and calls each loss (functional and
module form) with reduction='elementwise_mean' (mean's pre-0.4 name, which
PyTorch still takes with a UserWarning in the losses that ask
torch.nn._reduction.get_enum, and refuses in the ones that check the name in
Python), with a name that is no reduction, and with the size_average/reduce
flags.  Each outcome is the loss's value (a list of floats), the warnings
raised (category and message) or the exception (type and message).
scripts/golden_loss_reduction_names.py writes PyTorch's answers to
tests/golden/loss_reduction_names.json; tests/test_loss_reduction_names.py
compares."""
import warnings

import numpy as np

# the losses, each an expression over F (torch.nn.functional) and the inputs
# below, with the reduction's keyword arguments spliced in as {kw}
FUNCTIONAL = {
    "l1_loss": "F.l1_loss(x, y{kw})",
    "mse_loss": "F.mse_loss(x, y{kw})",
    "binary_cross_entropy": "F.binary_cross_entropy(p, q{kw})",
    "binary_cross_entropy_with_logits": "F.binary_cross_entropy_with_logits(x, q{kw})",
    "cross_entropy": "F.cross_entropy(x, c{kw})",
    "nll_loss": "F.nll_loss(x, c{kw})",
    "kl_div": "F.kl_div(x, p{kw})",
    "smooth_l1_loss": "F.smooth_l1_loss(x, y{kw})",
    "huber_loss": "F.huber_loss(x, y{kw})",
    "margin_ranking_loss": "F.margin_ranking_loss(x[0], x[1], s{kw})",
    "hinge_embedding_loss": "F.hinge_embedding_loss(x, s2{kw})",
    "soft_margin_loss": "F.soft_margin_loss(x, s2{kw})",
    "multilabel_soft_margin_loss": "F.multilabel_soft_margin_loss(x, q{kw})",
    "multilabel_margin_loss": "F.multilabel_margin_loss(x, ml{kw})",
    "multi_margin_loss": "F.multi_margin_loss(x, c{kw})",
    "cosine_embedding_loss": "F.cosine_embedding_loss(x, y, c2{kw})",
    "triplet_margin_loss": "F.triplet_margin_loss(x, y, p{kw})",
    "triplet_margin_with_distance_loss": "F.triplet_margin_with_distance_loss(x, y, p{kw})",
    "poisson_nll_loss": "F.poisson_nll_loss(x, p{kw})",
    "gaussian_nll_loss": "F.gaussian_nll_loss(x, y, p + 0.5{kw})",
    "ctc_loss": "F.ctc_loss(lp, tg, il, tl{kw})",
}

# module forms: the constructor (reduction keywords spliced in) and the call
MODULES = {
    "L1Loss": ("nn.L1Loss({kw})", "(x, y)"),
    "MSELoss": ("nn.MSELoss({kw})", "(x, y)"),
    "BCELoss": ("nn.BCELoss({kw})", "(p, q)"),
    "BCEWithLogitsLoss": ("nn.BCEWithLogitsLoss({kw})", "(x, q)"),
    "CrossEntropyLoss": ("nn.CrossEntropyLoss({kw})", "(x, c)"),
    "NLLLoss": ("nn.NLLLoss({kw})", "(x, c)"),
    "KLDivLoss": ("nn.KLDivLoss({kw})", "(x, p)"),
    "SmoothL1Loss": ("nn.SmoothL1Loss({kw})", "(x, y)"),
    "HuberLoss": ("nn.HuberLoss({kw})", "(x, y)"),
    "SoftMarginLoss": ("nn.SoftMarginLoss({kw})", "(x, s2)"),
    "MultiLabelSoftMarginLoss": ("nn.MultiLabelSoftMarginLoss({kw})", "(x, q)"),
    "MultiMarginLoss": ("nn.MultiMarginLoss({kw})", "(x, c)"),
    "PoissonNLLLoss": ("nn.PoissonNLLLoss({kw})", "(x, p)"),
    "GaussianNLLLoss": ("nn.GaussianNLLLoss({kw})", "(x, y, p + 0.5)"),
    "TripletMarginLoss": ("nn.TripletMarginLoss({kw})", "(x, y, p)"),
    "CTCLoss": ("nn.CTCLoss({kw})", "(lp, tg, il, tl)"),
}

REDUCTIONS = ("elementwise_mean", "batchmean", "Mean", "none")

# the legacy flags (None, True, False each), alone or overriding a reduction
LEGACY = [dict(size_average=a, reduce=b) for a in (None, True, False)
          for b in (None, True, False) if (a, b) != (None, None)]
LEGACY_LOSSES = ("mse_loss", "nll_loss", "cross_entropy", "kl_div", "binary_cross_entropy",
                 "poisson_nll_loss", "multilabel_soft_margin_loss", "margin_ranking_loss",
                 "multi_margin_loss", "triplet_margin_loss")
LEGACY_MODULES = ("MSELoss", "NLLLoss", "KLDivLoss", "PoissonNLLLoss", "MultiLabelSoftMarginLoss")


def _inputs(T):
    rs = np.random.RandomState(7)
    x = rs.standard_normal((3, 4))
    p = rs.uniform(0.05, 0.95, (3, 4))
    lp = np.log(rs.dirichlet(np.ones(5), (6, 2)))
    return {
        "x": T.tensor(x), "y": T.tensor(rs.standard_normal((3, 4))),
        "p": T.tensor(p), "q": T.tensor((rs.rand(3, 4) < 0.5).astype(np.float64)),
        "c": T.tensor([0, 3, 1]), "s": T.tensor([1.0, -1.0, 1.0, -1.0]),
        "s2": T.tensor(np.where(rs.rand(3, 4) < 0.5, -1.0, 1.0)),
        "c2": T.tensor([1, -1, 1]), "ml": T.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]]),
        "lp": T.tensor(lp), "tg": T.tensor([[1, 2, 2], [3, 1, 4]]),
        "il": T.tensor([6, 5]), "tl": T.tensor([3, 2]),
    }


def _kw(args):
    return "".join(f", {k}={v!r}" for k, v in args.items())


def _outcome(T, expr, env):
    """What evaluating expr gives: ["value", floats, warnings] or
    ["raises", type name, first line of the message, warnings]."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = eval(expr, env)
            out = ["value", [float(v) for v in r.detach().double().reshape(-1).tolist()]]
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            out = ["raises", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    out.append([[w.category.__name__, str(w.message)] for w in caught])
    return out


def record(T):
    """{call text: outcome} over library T."""
    env = dict(_inputs(T), T=T, F=T.nn.functional, nn=T.nn)
    out = {}
    for name, expr in FUNCTIONAL.items():
        for r in REDUCTIONS:
            e = expr.format(kw=_kw({"reduction": r}))
            out[e] = _outcome(T, e, env)
    for name, (make, call) in MODULES.items():
        for r in REDUCTIONS:
            e = make.format(kw=f"reduction={r!r}") + call
            out[e] = _outcome(T, e, env)
    for name in LEGACY_LOSSES:
        for flags in LEGACY:
            for extra in ({}, {"reduction": "sum"}, {"reduction": "elementwise_mean"}):
                e = FUNCTIONAL[name].format(kw=_kw(dict(flags, **extra)))
                out[e] = _outcome(T, e, env)
    for name in LEGACY_MODULES:
        make, call = MODULES[name]
        for flags in LEGACY:
            e = make.format(kw=_kw(flags)[2:]) + call
            out[e] = _outcome(T, e, env)
    return out
