"""The fixed problems behind the optimizer and scheduler golden files
(recorded by scripts/golden_optim.py with PyTorch, replayed by the tests with
torchlike).  Everything here is written against a `lib` argument (torch or
torchlike) or plain NumPy, so both sides run the same code."""
import numpy as np

STEPS = 20   # steps per trajectory
SPLIT = 10   # where the state-dict round trip happens
SHAPES = [(4, 3), (5,), (2, 3)]


def problem_data(dtype):
    """Initial parameters, targets and per-element scales, from a fixed seed."""
    rng = np.random.default_rng(1234)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    target = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    scale = [rng.uniform(0.5, 2.0, s).astype(dtype) for s in SHAPES]
    return {"init": init, "target": target, "scale": scale}


# optimizers that refuse complex parameters (as PyTorch's do)
COMPLEX_REFUSED = ("Adafactor", "Muon")


def complex_problem_data(dtype):
    """The problem made complex (complex64 / complex128 for float32 /
    float64): parameters init + 1j * target, constants of shape (..., 2) that
    the loss compares with view_as_real of the parameters."""
    data = problem_data(dtype)
    pairs = lambda a, b: np.stack([a, b], axis=-1)  # noqa: E731
    return {"init": [(x + 1j * t) for x, t in zip(data["init"], data["target"])],
            "target": [pairs(t, -0.5 * t) for t in data["target"]],
            "scale": [pairs(d, 2.5 - d) for d in data["scale"]]}


def complex_case_loss(case, params, consts, step, lib):
    """case_loss of the parameters' real views: a real loss of complex ones."""
    return case_loss(case, [lib.view_as_real(p) for p in params], consts, step, lib)


def case_loss(case, params, consts, step, lib):
    """The loss a case minimises (or, negated, maximises) at a step."""
    if case.get("sparse"):
        return case["sign"] * sparse_loss(params, consts, step, lib)
    return case["sign"] * dense_loss(params, consts, lib)


def dense_loss(params, consts, lib):
    """A smooth, coupled, non-quadratic loss of all parameters."""
    loss = 0
    for p, (t, d) in zip(params, consts):
        loss = loss + ((p - t) ** 2 * d).sum() + 0.05 * (p ** 4).sum()
    return loss + 0.01 * params[0].sum() * params[1].sum()


def sparse_loss(params, consts, step, lib):
    """Only two rows of the first parameter take part at each step, so its
    gradient is zero elsewhere (what a sparse embedding gradient carries)."""
    p, (t, d) = params[0], consts[0]
    rows = [step % 4, (step + 2) % 4] if step % 3 else [step % 4]
    loss = 0
    for r in rows:
        loss = loss + ((p[r] - t[r]) ** 2 * d[r]).sum() + 0.05 * (p[r] ** 4).sum()
    return loss


def rosenbrock_start():
    return [-1.5, 2.0, 1.2, -0.5]


def rosenbrock_loss(x):
    return ((1 - x[0::2]) ** 2 + 100 * (x[1::2] - x[0::2] ** 2) ** 2).sum()


def case(cls, groups=None, sparse=False, **kwargs):
    """An optimizer and its options; a maximize=True case ascends the negated
    loss, so it converges too."""
    out = {"cls": cls, "kwargs": kwargs, "sign": -1 if kwargs.get("maximize") else 1}
    if groups:
        out["groups"] = groups
    if sparse:
        out["sparse"] = True
    return out


OPTIMIZER_CASES = {
    "sgd": case("SGD", lr=0.05),
    "sgd_momentum": case("SGD", lr=0.05, momentum=0.9, weight_decay=0.1),
    "sgd_nesterov": case("SGD", lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05),
    "sgd_dampening_max": case("SGD", lr=0.02, momentum=0.7, dampening=0.3, maximize=True),
    "adam": case("Adam", lr=0.05),
    "adam_amsgrad_wd": case("Adam", lr=0.05, betas=(0.8, 0.99), amsgrad=True, weight_decay=0.1),
    "adam_maximize": case("Adam", lr=0.01, maximize=True, eps=1e-6),
    "adam_groups": case("Adam", groups=[{"params": [0, 2], "options": {"lr": 0.1}},
                                        {"params": [1], "options": {"lr": 0.01,
                                                                    "amsgrad": True}}],
                        lr=0.05),
    "adamw": case("AdamW", lr=0.05),
    "adamw_amsgrad": case("AdamW", lr=0.05, weight_decay=0.2, amsgrad=True),
    "adamax": case("Adamax", lr=0.05),
    "adamax_wd": case("Adamax", lr=0.05, weight_decay=0.1, maximize=False, eps=1e-6),
    "nadam": case("NAdam", lr=0.05),
    "nadam_decoupled": case("NAdam", lr=0.05, weight_decay=0.1, decoupled_weight_decay=True,
                            momentum_decay=8e-3),
    "nadam_wd": case("NAdam", lr=0.05, weight_decay=0.1),
    "radam": case("RAdam", lr=0.05),
    "radam_decoupled": case("RAdam", lr=0.05, weight_decay=0.1, decoupled_weight_decay=True,
                            betas=(0.9, 0.9)),
    "radam_wd": case("RAdam", lr=0.05, weight_decay=0.1, betas=(0.8, 0.8)),
    "adagrad": case("Adagrad", lr=0.1),
    "adagrad_decay": case("Adagrad", lr=0.1, lr_decay=0.05, initial_accumulator_value=0.5,
                          weight_decay=0.1, eps=1e-8),
    "adadelta": case("Adadelta", lr=1.0),
    "adadelta_wd": case("Adadelta", lr=0.5, rho=0.8, weight_decay=0.1, maximize=True),
    "rmsprop": case("RMSprop", lr=0.01),
    "rmsprop_centered": case("RMSprop", lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                             weight_decay=0.1),
    "rmsprop_momentum": case("RMSprop", lr=0.01, momentum=0.9),
    "rprop": case("Rprop", lr=0.01),
    "rprop_custom": case("Rprop", lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1)),
    "asgd": case("ASGD", lr=0.05),
    "asgd_t0": case("ASGD", lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1),
    "adafactor": case("Adafactor", lr=0.05),
    "adafactor_wd_max": case("Adafactor", lr=0.03, beta2_decay=-0.5, eps=(1e-3, 1e-2), d=1.5,
                             weight_decay=0.2, maximize=True),
    # Muon takes only matrices: the (5,) parameter stays out (its gradient is unused)
    "muon": case("Muon", groups=[{"params": [0, 2], "options": {}}], lr=0.05),
    "muon_plain": case("Muon", groups=[{"params": [0], "options": {"ns_steps": 3}},
                                       {"params": [2], "options": {"nesterov": False}}],
                       lr=0.1, momentum=0.8, weight_decay=0.0, adjust_lr_fn="match_rms_adamw"),
    "sparse_adam": case("SparseAdam", sparse=True, lr=0.05),
    "sparse_adam_max": case("SparseAdam", sparse=True, lr=0.05, betas=(0.8, 0.9),
                            maximize=True),
}

# Shapes the shared problem lacks: Adafactor's factoring of a 3-D parameter
# (over its last two dims, per leading index) and Muon on a tall matrix with
# each learning-rate adjustment; and the errors bad options raise.
SHAPE_CASES = {
    "adafactor_3d": ("Adafactor", (2, 3, 4), {"lr": 0.05, "weight_decay": 0.1}),
    "muon_tall_spectral": ("Muon", (6, 3), {"lr": 0.05, "adjust_lr_fn": "spectral_unclamped"}),
    "muon_wide_original": ("Muon", (3, 7), {"lr": 0.05, "adjust_lr_fn": "original"}),
}
BAD_OPTIONS = {
    "adafactor_lr": ("Adafactor", (3,), {"lr": -1.0}),
    "adafactor_beta2_decay": ("Adafactor", (3,), {"beta2_decay": 0.5}),
    "adafactor_eps1": ("Adafactor", (3,), {"eps": (-1.0, 1e-3)}),
    "adafactor_eps2": ("Adafactor", (3,), {"eps": (None, -1.0)}),
    "adafactor_d": ("Adafactor", (3,), {"d": 0.5}),
    "adafactor_weight_decay": ("Adafactor", (3,), {"weight_decay": -0.1}),
    "muon_lr": ("Muon", (2, 2), {"lr": -1.0}),
    "muon_momentum": ("Muon", (2, 2), {"momentum": -0.5}),
    "muon_weight_decay": ("Muon", (2, 2), {"weight_decay": -0.1}),
    "muon_adjust": ("Muon", (2, 2), {"adjust_lr_fn": "sqrt"}),
    "muon_vector": ("Muon", (3,), {}),
    "muon_3d": ("Muon", (2, 2, 2), {}),
}


SHAPE_STEPS = 8


def shape_case_start(shape, dtype):
    """A shape case's start and target, from a fixed seed."""
    rng = np.random.default_rng(99)
    return (rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype))


def shape_case_loss(p, target):
    return ((p - target) ** 4).sum()


SCHEDULER_CASES = {
    "lambda": {"cls": "LambdaLR", "kwargs": {"lr_lambda": "decay"}},
    "multiplicative": {"cls": "MultiplicativeLR", "kwargs": {"lr_lambda": "mult"}},
    "step": {"cls": "StepLR", "kwargs": {"step_size": 3, "gamma": 0.5}},
    "multistep": {"cls": "MultiStepLR", "kwargs": {"milestones": [2, 5, 5, 11], "gamma": 0.5}},
    "constant": {"cls": "ConstantLR", "kwargs": {"factor": 0.25, "total_iters": 4}},
    "linear": {"cls": "LinearLR", "kwargs": {"start_factor": 0.2, "end_factor": 0.9,
                                             "total_iters": 6}},
    "exponential": {"cls": "ExponentialLR", "kwargs": {"gamma": 0.85}},
    "polynomial": {"cls": "PolynomialLR", "kwargs": {"total_iters": 8, "power": 2.0}},
    "cosine": {"cls": "CosineAnnealingLR", "kwargs": {"T_max": 6, "eta_min": 0.001},
               "steps": 30},
    "warm_restarts": {"cls": "CosineAnnealingWarmRestarts",
                      "kwargs": {"T_0": 3, "T_mult": 2, "eta_min": 0.002}, "steps": 25},
    "cyclic": {"cls": "CyclicLR", "kwargs": {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3,
                                             "step_size_down": 5}},
    "cyclic_triangular2": {"cls": "CyclicLR",
                           "kwargs": {"base_lr": [0.01, 0.02], "max_lr": 0.1, "step_size_up": 2,
                                      "mode": "triangular2"}},
    "cyclic_exp_range": {"cls": "CyclicLR",
                         "kwargs": {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4,
                                    "mode": "exp_range", "gamma": 0.9},
                         "optimizer": "Adam", "optimizer_kwargs": {}},
    "onecycle": {"cls": "OneCycleLR", "kwargs": {"max_lr": 0.5, "total_steps": 20}},
    "onecycle_linear_3phase": {"cls": "OneCycleLR",
                               "kwargs": {"max_lr": [0.5, 0.2], "epochs": 4,
                                          "steps_per_epoch": 5, "anneal_strategy": "linear",
                                          "three_phase": True, "pct_start": 0.25},
                               "optimizer": "Adam", "optimizer_kwargs": {}},
    "plateau": {"cls": "ReduceLROnPlateau",
                "kwargs": {"factor": 0.5, "patience": 2, "cooldown": 1, "min_lr": 0.004},
                "metrics": [1.0, 0.9, 0.95, 0.93, 0.92, 0.91, 0.9, 0.9, 0.8, 0.85, 0.86, 0.87,
                            0.88, 0.79, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]},
    "plateau_max_abs": {"cls": "ReduceLROnPlateau",
                        "kwargs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.05,
                                   "patience": 1, "factor": 0.3},
                        "metrics": [0.1, 0.2, 0.22, 0.23, 0.4, 0.41, 0.42, 0.43, 0.6, 0.61,
                                    0.62, 0.63, 0.64, 0.65, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]},
    "sequential": {"cls": "SequentialLR",
                   "schedulers": [{"cls": "LinearLR", "kwargs": {"start_factor": 0.1,
                                                                 "total_iters": 4}},
                                  {"cls": "ExponentialLR", "kwargs": {"gamma": 0.9}},
                                  {"cls": "StepLR", "kwargs": {"step_size": 2, "gamma": 0.5}}],
                   "milestones": [5, 12]},
    "chained": {"cls": "ChainedScheduler",
                "schedulers": [{"cls": "ConstantLR", "kwargs": {"factor": 0.5,
                                                                "total_iters": 3}},
                               {"cls": "ExponentialLR", "kwargs": {"gamma": 0.9}},
                               {"cls": "CosineAnnealingLR", "kwargs": {"T_max": 7}}]},
    "swalr": {"cls": "SWALR", "kwargs": {"swa_lr": 0.02, "anneal_epochs": 5}},
    "swalr_linear": {"cls": "SWALR", "kwargs": {"swa_lr": [0.02, 0.2], "anneal_epochs": 3,
                                                "anneal_strategy": "linear"}},
}

LAMBDAS = {
    "decay": lambda epoch: 0.95 ** epoch,
    "mult": lambda epoch: 0.9 if epoch % 2 else 1.05,
}


def build_scheduler(lib, opt, case):
    """The scheduler a case describes, from lib (torch or torchlike)."""
    S = lib.optim.lr_scheduler

    def make(spec):
        kwargs = dict(spec.get("kwargs", {}))
        if "lr_lambda" in kwargs:
            kwargs["lr_lambda"] = LAMBDAS[kwargs["lr_lambda"]]
        if spec["cls"] == "SWALR":
            return lib.optim.swa_utils.SWALR(opt, **kwargs)
        return getattr(S, spec["cls"])(opt, **kwargs)

    if case["cls"] == "SequentialLR":
        return S.SequentialLR(opt, [make(s) for s in case["schedulers"]],
                              milestones=case["milestones"])
    if case["cls"] == "ChainedScheduler":
        return S.ChainedScheduler([make(s) for s in case["schedulers"]])
    return make(case)
