"""Foundation benchmarks: call overhead, large elementwise ops, reductions."""
import numpy as np

import torchlike as tl


def cases():
    rng = np.random.default_rng(0)
    one_np = np.ones(1, dtype=np.float32)
    one_tl = tl.from_numpy(one_np.copy())
    yield "add 1 element (call overhead)", lambda: one_tl + one_tl, lambda: one_np + one_np, "numpy"

    n = 1 << 24
    a_np = rng.standard_normal(n, dtype=np.float32)
    b_np = rng.standard_normal(n, dtype=np.float32)
    a_tl, b_tl = tl.from_numpy(a_np), tl.from_numpy(b_np)
    yield "add 2^24 float32", lambda: a_tl + b_tl, lambda: a_np + b_np, "numpy"
    yield "mul 2^24 float32", lambda: a_tl * b_tl, lambda: a_np * b_np, "numpy"
    yield "exp 2^24 float32", lambda: tl.exp(a_tl), lambda: np.exp(a_np), "numpy"
    yield "x ** 2 of 2^24 float32", lambda: a_tl ** 2, lambda: a_np ** 2, "numpy"
    i_np = rng.integers(-10 ** 6, 10 ** 6, 1 << 22)
    i_tl = tl.from_numpy(i_np)
    yield "int64 // 7 of 2^22", lambda: i_tl // 7, lambda: i_np // 7, "numpy"
    yield "int64 % 7 of 2^22", lambda: i_tl % 7, lambda: i_np % 7, "numpy"
    yield "sum 2^24 float32", lambda: a_tl.sum(), lambda: a_np.sum(), "numpy"

    m_np = rng.standard_normal((4096, 4096), dtype=np.float32)
    m_tl = tl.from_numpy(m_np)
    yield "sum dim=1 of 4096x4096 float32", lambda: m_tl.sum(1), lambda: m_np.sum(1), "numpy"
    yield "argmax dim=0 of 4096x4096 float32", lambda: m_tl.argmax(0), \
        lambda: m_np.argmax(0), "numpy"
    r_np = rng.standard_normal((2000, 2000))
    r_tl = tl.from_numpy(r_np)
    yield "argmax dim=1 of 2000x2000 float64", lambda: r_tl.argmax(1), \
        lambda: r_np.argmax(1), "numpy"
    yield "cumsum dim=0 of 2000x2000 float64", lambda: r_tl.cumsum(0), \
        lambda: np.cumsum(r_np, 0), "numpy"
    yield "cumsum dim=0 of a transposed 2000x2000 float64", lambda: r_tl.T.cumsum(0), \
        lambda: np.cumsum(r_np.T, 0), "numpy"
    try:
        import torch
    except ImportError:  # the PyTorch rows are skipped
        return
    m_pt = torch.from_numpy(m_np)
    yield "max(dim=0) values+indices 4096x4096 float32", lambda: m_tl.max(0), \
        lambda: m_pt.max(0), "torch"
    img_np = rng.standard_normal((32, 19, 128, 128), dtype=np.float32)
    img_tl, img_pt = tl.from_numpy(img_np), torch.from_numpy(img_np)
    yield "argmax dim=1 (classes) of 32x19x128x128", lambda: img_tl.argmax(1), \
        lambda: img_pt.argmax(1), "torch"
