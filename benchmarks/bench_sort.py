"""Sorting benchmarks against NumPy.

The headline case is torchlike.sort of 10^7 float32 against np.sort.  Note
what each side does: torchlike.sort returns the sorted values AND their int64
indices (PyTorch's contract: 120 MB of fresh output), np.sort only the values
(40 MB).  The argsort cases compare like with like (stable argsort)."""
import numpy as np

import torchlike as tl


def cases():
    rng = np.random.default_rng(0)
    n = 10 ** 7
    x_np = rng.random(n, dtype=np.float32) * 2 - 1
    x_tl = tl.from_numpy(x_np)
    yield "sort 1e7 float32 (values+indices vs values)", lambda: tl.sort(x_tl), \
        lambda: np.sort(x_np), "numpy"
    yield "argsort 1e7 float32 stable", lambda: tl.argsort(x_tl, stable=True), \
        lambda: np.argsort(x_np, kind="stable"), "numpy"

    i_np = rng.integers(-10 ** 9, 10 ** 9, n).astype(np.int64)
    i_tl = tl.from_numpy(i_np)
    yield "sort 1e7 int64 (values+indices vs values)", lambda: tl.sort(i_tl), \
        lambda: np.sort(i_np), "numpy"

    m_np = rng.standard_normal((1000, 1000)).astype(np.float32)
    m_tl = tl.from_numpy(m_np)
    yield "sort 1000x1000 float32 dim=-1", lambda: tl.sort(m_tl), \
        lambda: np.sort(m_np, axis=-1), "numpy"
    yield "sort 1000x1000 float32 dim=0", lambda: tl.sort(m_tl, 0), \
        lambda: np.sort(m_np, axis=0), "numpy"
    yield "topk k=10 of 1e7 float32", lambda: tl.topk(x_tl, 10), \
        lambda: np.partition(x_np, n - 10)[n - 10:], "numpy partition"
    yield "median of 1e7 float32", lambda: tl.median(x_tl), \
        lambda: np.median(x_np), "numpy"
    u_np = rng.integers(0, 1000, n).astype(np.int64)
    u_tl = tl.from_numpy(u_np)
    yield "unique 1e7 int64 (1000 values)", lambda: tl.unique(u_tl), \
        lambda: np.unique(u_np), "numpy"
    s_np = np.sort(x_np[:100_000])
    s_tl = tl.from_numpy(s_np)
    yield "searchsorted 1e6 in 1e5", lambda: tl.searchsorted(s_tl, x_tl[:1_000_000]), \
        lambda: np.searchsorted(s_np, x_np[:1_000_000]), "numpy"

    # Short lanes: 1000 lanes of 1000 (one lane per task; selections take
    # the radix select, 64-bit keys within 2^32 of their minimum sort packed).
    short = {"float64": rng.random((1000, 1000)),
             "float32": rng.standard_normal((1000, 1000)).astype(np.float32),
             "int64": rng.integers(-10 ** 9, 10 ** 9, (1000, 1000))}
    for name, s_np in short.items():
        s_tl = tl.from_numpy(s_np)
        yield f"sort(1) 1000x1000 {name}", lambda t=s_tl: t.sort(1), \
            lambda a=s_np: np.sort(a, 1), "numpy"
        yield f"argsort(1) 1000x1000 {name} stable", lambda t=s_tl: tl.argsort(t, 1, stable=True), \
            lambda a=s_np: np.argsort(a, 1, kind="stable"), "numpy"
        yield f"median(1) 1000x1000 {name}", lambda t=s_tl: t.median(1), \
            lambda a=s_np: np.median(a, 1), "numpy"
        yield f"kthvalue(300, 1) 1000x1000 {name}", lambda t=s_tl: tl.kthvalue(t, 300, 1), \
            lambda a=s_np: np.partition(a, 299, 1), "numpy partition"
    # Row sorts of the four common dtypes: values only (torchlike.numpy.sort,
    # the values-only op) against np.sort, and values + indices (sort(1))
    # against np.sort too (NumPy has no sort returning both; its stable
    # argsort is the like-for-like comparison of the indices).
    import torchlike.numpy as tnp
    rows = [("float64", (1000, 1000)), ("float64", (10000, 100)), ("float64", (1, 10 ** 6)),
            ("float32", (10000, 100)), ("float32", (1, 10 ** 6)), ("int64", (10000, 100)),
            ("int32", (10000, 100))]
    row_data = {}
    for name, shape in rows:
        r_np = (rng.standard_normal(shape).astype(name) if name.startswith("float")
                else rng.integers(-10 ** 9, 10 ** 9, shape).astype(name))
        r_tl = tl.from_numpy(r_np)
        row_data[name, shape] = r_np
        label = f"{shape[0]}x{shape[1]} {name}"
        yield f"np.sort(a, 1) {label} (values only)", lambda t=r_tl: tnp.sort(t, 1), \
            lambda a=r_np: np.sort(a, 1), "numpy"
        yield f"sort(1) {label} (values+indices vs values)", lambda t=r_tl: t.sort(1), \
            lambda a=r_np: np.sort(a, 1), "numpy"
    try:
        import torch
    except ImportError:  # the PyTorch rows are skipped
        return
    for (name, shape), r_np in row_data.items():
        r_tl, r_pt = tl.from_numpy(r_np), torch.from_numpy(r_np)
        yield f"sort(1) rows {shape[0]}x{shape[1]} {name}", lambda t=r_tl: t.sort(1), \
            lambda p=r_pt: p.sort(1), "torch"
    for name, s_np in short.items():
        s_tl, s_pt = tl.from_numpy(s_np), torch.from_numpy(s_np)
        yield f"sort(1) 1000x1000 {name}", lambda t=s_tl: t.sort(1), \
            lambda p=s_pt: p.sort(1), "torch"
        yield f"median(1) 1000x1000 {name}", lambda t=s_tl: t.median(1), \
            lambda p=s_pt: p.median(1), "torch"
        yield f"kthvalue(300, 1) 1000x1000 {name}", lambda t=s_tl: tl.kthvalue(t, 300, 1), \
            lambda p=s_pt: torch.kthvalue(p, 300, 1), "torch"
