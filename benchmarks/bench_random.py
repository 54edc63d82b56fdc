"""Creation and random-number benchmarks against NumPy's Generator (PCG64)."""
import numpy as np

import torchlike as tl


def cases():
    n = 1 << 20
    rng = np.random.default_rng(0)
    g = tl.Generator().manual_seed(0)
    # one-element creation: the cost of binding the call and making a tensor
    yield "zeros(1)", lambda: tl.zeros(1), lambda: np.zeros(1, np.float32), "numpy"
    yield "empty(3, 4)", lambda: tl.empty(3, 4), lambda: np.empty((3, 4), np.float32), "numpy"
    yield "full((1,), 2.0)", lambda: tl.full((1,), 2.0), \
        lambda: np.full((1,), 2.0, np.float32), "numpy"
    yield "rand(1)", lambda: tl.rand(1), lambda: rng.random(1, dtype=np.float32), "numpy"
    yield "randn(1)", lambda: tl.randn(1), \
        lambda: rng.standard_normal(1, dtype=np.float32), "numpy"
    yield "arange(1)", lambda: tl.arange(1), lambda: np.arange(1), "numpy"
    yield "rand 2^20 float32", lambda: tl.rand(n, generator=g), \
        lambda: rng.random(n, dtype=np.float32), "numpy"
    yield "rand 2^20 float64", lambda: tl.rand(n, dtype=tl.float64, generator=g), \
        lambda: rng.random(n), "numpy"
    yield "randn 2^20 float32", lambda: tl.randn(n, generator=g), \
        lambda: rng.standard_normal(n, dtype=np.float32), "numpy"
    yield "randn 2^20 float64", lambda: tl.randn(n, dtype=tl.float64, generator=g), \
        lambda: rng.standard_normal(n), "numpy"
    yield "randint 2^20 [0, 100)", lambda: tl.randint(0, 100, (n,), generator=g), \
        lambda: rng.integers(0, 100, n), "numpy"
    yield "randperm 2^20", lambda: tl.randperm(n, generator=g), \
        lambda: rng.permutation(n), "numpy"
    yield "arange 2^20 float32", lambda: tl.arange(n, dtype=tl.float32), \
        lambda: np.arange(n, dtype=np.float32), "numpy"
    yield "linspace 2^20 float32", lambda: tl.linspace(0, 1, n), \
        lambda: np.linspace(0, 1, n, dtype=np.float32), "numpy"
    yield from torch_cases(n, g)


def torch_cases(n, g):
    """The sampling kernels against PyTorch's CPU generator (when installed)."""
    try:
        import torch
    except ImportError:
        return
    tg = torch.Generator().manual_seed(0)
    for dt, tdt in ((tl.float32, torch.float32), (tl.float64, torch.float64)):
        w = str(tdt).split(".")[1]
        yield f"randn 2^20 {w}", lambda dt=dt: tl.randn(n, dtype=dt, generator=g), \
            lambda tdt=tdt: torch.randn(n, dtype=tdt, generator=tg), "torch"
        yield f"rand 2^20 {w}", lambda dt=dt: tl.rand(n, dtype=dt, generator=g), \
            lambda tdt=tdt: torch.rand(n, dtype=tdt, generator=tg), "torch"
        yield f"bernoulli_(0.3) 2^20 {w}", \
            lambda dt=dt: tl.empty(n, dtype=dt).bernoulli_(0.3, generator=g), \
            lambda tdt=tdt: torch.empty(n, dtype=tdt).bernoulli_(0.3, generator=tg), "torch"
    yield "randint 2^20 [0, 100)", lambda: tl.randint(0, 100, (n,), generator=g), \
        lambda: torch.randint(0, 100, (n,), generator=tg), "torch"
