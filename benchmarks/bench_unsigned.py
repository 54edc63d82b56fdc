"""The wide unsigned dtypes against NumPy: elementwise arithmetic, the
division family, reductions, sort and casts on uint16/uint32/uint64."""
import numpy as np

import torchlike as tl
import torchlike.numpy as tnp


def cases():
    rng = np.random.default_rng(0)
    n = 1 << 22
    for dtype in ("uint16", "uint32", "uint64"):
        top = np.iinfo(dtype).max
        a_np = rng.integers(0, top, n, dtype=dtype, endpoint=True)
        b_np = rng.integers(1, 1000, n, dtype=dtype)
        a_tl, b_tl = tl.from_numpy(a_np), tl.from_numpy(b_np)
        yield f"add 2^22 {dtype}", lambda: a_tl + b_tl, lambda: a_np + b_np, "numpy"
        yield f"mul 2^22 {dtype}", lambda: a_tl * b_tl, lambda: a_np * b_np, "numpy"
        yield f"floor_divide 2^22 {dtype}", lambda: a_tl // b_tl, lambda: a_np // b_np, "numpy"
        yield f"np.sum 2^22 {dtype}", lambda: tnp.sum(a_tl), lambda: np.sum(a_np), "numpy"
        yield f"max 2^22 {dtype}", lambda: a_tl.max(), lambda: a_np.max(), "numpy"
        yield f"to float32 2^22 {dtype}", lambda: a_tl.float(), lambda: a_np.astype(np.float32), \
            "numpy"
        s_np = a_np[: 1 << 20]
        s_tl = tl.from_numpy(s_np)
        yield f"sort 2^20 {dtype}", lambda: tl.sort(s_tl), lambda: np.sort(s_np), "numpy"
