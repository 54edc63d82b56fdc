"""Indexing benchmarks: advanced indexing of 10^6 rows, masks, assignment."""
import numpy as np

import torchlike as tl


def cases():
    rng = np.random.default_rng(0)
    n = 10 ** 6
    x_np = rng.standard_normal((n, 16), dtype=np.float32)
    idx_np = rng.integers(0, n, size=n, dtype=np.int64)
    x_tl, idx_tl = tl.from_numpy(x_np), tl.from_numpy(idx_np)
    yield "x[idx] (10^6, 16) f32, 10^6 int64 rows", lambda: x_tl[idx_tl], lambda: x_np[idx_np], "numpy"

    v_np = rng.standard_normal(n, dtype=np.float32)
    v_tl = tl.from_numpy(v_np)
    yield "v[idx] 10^6 f32, 10^6 int64", lambda: v_tl[idx_tl], lambda: v_np[idx_np], "numpy"

    cols_np = rng.integers(0, 16, size=8, dtype=np.int64)
    cols_tl = tl.from_numpy(cols_np)
    yield "x[:, cols] (10^6, 16) f32, 8 cols", lambda: x_tl[:, cols_tl], lambda: x_np[:, cols_np], "numpy"

    mask_np = v_np > 0
    mask_tl = tl.from_numpy(mask_np)
    yield "v[mask] 10^6 f32", lambda: v_tl[mask_tl], lambda: v_np[mask_np], "numpy"

    w_np, w_tl = v_np.copy(), tl.from_numpy(v_np.copy())

    def fill_np():
        w_np[mask_np] = 0

    def fill_tl():
        w_tl[mask_tl] = 0
    yield "w[mask] = 0 10^6 f32", fill_tl, fill_np, "numpy"

    y_np, y_tl = x_np.copy(), tl.from_numpy(x_np.copy())
    rows_np = rng.permutation(n)[: n // 10]
    rows_tl = tl.from_numpy(rows_np)
    src_np = rng.standard_normal((n // 10, 16), dtype=np.float32)
    src_tl = tl.from_numpy(src_np)

    def set_np():
        y_np[rows_np] = src_np

    def set_tl():
        y_tl[rows_tl] = src_tl
    yield "y[rows] = src (10^5 of 10^6 rows, 16) f32", set_tl, set_np, "numpy"
