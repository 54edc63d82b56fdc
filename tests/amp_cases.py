"""Autocast cases shared by scripts/golden_amp.py (run with PyTorch) and
tests/test_amp.py (run with torchlike): each case is a function of the
library namespace ``torch`` and float32 inputs made by ``inputs(torch)``,
returning one tensor whose dtype under autocast is compared."""
import numpy as np


def inputs(torch):
    rng = np.random.default_rng(0)

    def t(*shape, low=-1.0, high=1.0):
        return torch.tensor(rng.uniform(low, high, size=shape).astype(np.float32))
    return {
        "a": t(4, 5), "b": t(5, 3), "v": t(5), "w": t(3), "sq": t(4, 4), "bat": t(2, 4, 5),
        "bat2": t(2, 5, 3), "img": t(1, 2, 6, 6), "k2": t(3, 2, 3, 3), "seq": t(1, 2, 8),
        "k1": t(3, 2, 3), "vol": t(1, 2, 4, 4, 4), "k3": t(3, 2, 2, 2, 2), "pos": t(4, 5, low=0.1, high=2.0),
        "prob": t(4, 5, low=0.05, high=0.95), "lin_w": t(3, 5), "lin_b": t(3),
        "target": torch.tensor(np.array([0, 2, 1, 4], dtype=np.int64)),
        "spd": torch.tensor((np.eye(4) * 3 + 0.1).astype(np.float32)),
        "q": t(1, 2, 3, 4), "kk": t(1, 2, 3, 4), "vv": t(1, 2, 3, 4),
        "ln_w": t(5), "ln_b": t(5), "prelu_w": t(1),
    }


def _F(torch):
    return torch.nn.functional


CASES = {
    # run in the lower precision on the CPU
    "mm": lambda torch, x: torch.mm(x["a"], x["b"]),
    "matmul": lambda torch, x: torch.matmul(x["a"], x["b"]),
    "__matmul__": lambda torch, x: x["a"] @ x["b"],
    "Tensor.mm": lambda torch, x: x["a"].mm(x["b"]),
    "Tensor.matmul": lambda torch, x: x["a"].matmul(x["b"]),
    "bmm": lambda torch, x: torch.bmm(x["bat"], x["bat2"]),
    "baddbmm": lambda torch, x: torch.baddbmm(torch.zeros(2, 4, 3), x["bat"], x["bat2"]),
    "addmm": lambda torch, x: torch.addmm(torch.zeros(4, 3), x["a"], x["b"]),
    "addbmm": lambda torch, x: torch.addbmm(torch.zeros(4, 3), x["bat"], x["bat2"]),
    "linear": lambda torch, x: _F(torch).linear(x["a"], x["lin_w"], x["lin_b"]),
    "linear_3d": lambda torch, x: _F(torch).linear(x["bat"], x["lin_w"]),
    "conv1d": lambda torch, x: _F(torch).conv1d(x["seq"], x["k1"]),
    "conv2d": lambda torch, x: _F(torch).conv2d(x["img"], x["k2"]),
    "conv3d": lambda torch, x: _F(torch).conv3d(x["vol"], x["k3"]),
    "conv_transpose2d": lambda torch, x: _F(torch).conv_transpose2d(x["img"], x["k2"].transpose(0, 1)),
    "prelu": lambda torch, x: _F(torch).prelu(x["a"], x["prelu_w"]),
    "nn.Linear": lambda torch, x: _module(torch, "Linear", 5, 3)(x["a"]),
    "nn.Conv2d": lambda torch, x: _module(torch, "Conv2d", 2, 3, 3)(x["img"]),
    "sdpa": lambda torch, x: _F(torch).scaled_dot_product_attention(x["q"], x["kk"], x["vv"]),
    # run in float32 on the CPU
    "mse_loss": lambda torch, x: _F(torch).mse_loss(x["a"], x["pos"]),
    "l1_loss": lambda torch, x: _F(torch).l1_loss(x["a"], x["pos"]),
    "smooth_l1_loss": lambda torch, x: _F(torch).smooth_l1_loss(x["a"], x["pos"]),
    "huber_loss": lambda torch, x: _F(torch).huber_loss(x["a"], x["pos"]),
    "nll_loss": lambda torch, x: _F(torch).nll_loss(x["a"], x["target"]),
    "cross_entropy": lambda torch, x: _F(torch).cross_entropy(x["a"], x["target"]),
    "binary_cross_entropy": lambda torch, x: _F(torch).binary_cross_entropy(x["prob"], x["prob"]),
    "bce_with_logits": lambda torch, x: _F(torch).binary_cross_entropy_with_logits(x["a"], x["prob"]),
    "kl_div": lambda torch, x: _F(torch).kl_div(x["a"], x["prob"], reduction="batchmean"),
    "soft_margin_loss": lambda torch, x: _F(torch).soft_margin_loss(x["a"], x["pos"]),
    "cholesky_inverse": lambda torch, x: torch.cholesky_inverse(x["spd"]),
    "inverse": lambda torch, x: torch.inverse(x["spd"]),
    "linalg.inv": lambda torch, x: torch.linalg.inv(x["spd"]),
    "linalg.cholesky": lambda torch, x: torch.linalg.cholesky(x["spd"]),
    "prod": lambda torch, x: torch.prod(x["pos"]),
    "trace": lambda torch, x: torch.trace(x["sq"]),
    # follow the ordinary rules (not listed on the CPU)
    "softmax": lambda torch, x: _F(torch).softmax(x["a"], dim=-1),
    "log_softmax": lambda torch, x: _F(torch).log_softmax(x["a"], dim=-1),
    "layer_norm": lambda torch, x: _F(torch).layer_norm(x["a"], (5,), x["ln_w"], x["ln_b"]),
    "relu": lambda torch, x: _F(torch).relu(x["a"]),
    "exp": lambda torch, x: torch.exp(x["a"]),
    "sum": lambda torch, x: torch.sum(x["a"]),
    "add": lambda torch, x: x["a"] + x["a"],
    # their inputs already in the lower precision: mixed-dtype rules
    "add_mixed": lambda torch, x: torch.mm(x["a"], x["b"]) + x["w"],
    "relu_of_mm": lambda torch, x: _F(torch).relu(torch.mm(x["a"], x["b"])),
    "softmax_of_mm": lambda torch, x: _F(torch).softmax(torch.mm(x["a"], x["b"]), dim=-1),
    "mse_of_mm": lambda torch, x: _F(torch).mse_loss(torch.mm(x["a"], x["b"]), torch.zeros(4, 3)),
    "mm_of_mm": lambda torch, x: torch.mm(torch.mm(x["a"], x["b"]), x["w"].reshape(3, 1)),
    # widest input type
    "cat": lambda torch, x: torch.cat([torch.mm(x["a"], x["b"]), torch.zeros(1, 3)]),
    "stack": lambda torch, x: torch.stack([torch.mm(x["a"], x["b"]), torch.zeros(4, 3)]),
    # float64 inputs are never cast
    "mm_float64": lambda torch, x: torch.mm(x["a"].double(), x["b"].double()),
    "mse_float64": lambda torch, x: _F(torch).mse_loss(x["a"].double(), x["a"].double()),
    # an explicit dtype= wins
    "softmax_dtype": lambda torch, x: _F(torch).softmax(x["a"], dim=-1, dtype=torch.float64),
}


def _module(torch, name, *args):
    torch.manual_seed(0)
    return getattr(torch.nn, name)(*args)


# GradScaler trajectory: parameters, the steps whose gradients are poisoned
# with inf or nan, and the scaler's options.
SCALER_STEPS = 14
SCALER_BAD_STEPS = {2: "inf", 3: "nan", 9: "inf"}
SCALER_OPTIONS = dict(init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.25, growth_interval=3)


def scaler_problem(torch):
    rng = np.random.default_rng(3)
    w = torch.tensor(rng.normal(size=(4,)).astype(np.float32), requires_grad=True)
    b = torch.tensor(rng.normal(size=(2,)).astype(np.float32), requires_grad=True)
    xs = [torch.tensor(rng.normal(size=(4,)).astype(np.float32)) for _ in range(SCALER_STEPS)]
    return w, b, xs


def scaler_loss(torch, w, b, x, step):
    loss = ((w * x).sum() - 1.0) ** 2 + (b ** 2).sum()
    if step in SCALER_BAD_STEPS:
        bad = float(SCALER_BAD_STEPS[step])
        loss = loss + w[0] * bad
    return loss
