"""Linear-algebra benchmarks: matrix products against NumPy (both on OpenBLAS).

Targets: matmul 1024^2 and 4096^2 float32 and a 64x128x128 float32 batch at
>= 0.95x NumPy.  The 4096^2 case costs ~140 GFLOP per repeat; set
BENCH_LINALG_BIG=0 to skip it on small machines."""
import os

import numpy as np

import torchlike as tl


def _shape_name(x):
    return "x".join(str(n) for n in x.shape)


def _sumprod_cases(rng):
    """(equation, x, y) of einsum's fused sum of products beyond the 1000x1000
    float64 rows."""
    f1, f2 = (rng.standard_normal((1000, 1000), dtype=np.float32) for _ in range(2))
    b1, b2 = rng.standard_normal((100, 100, 100)), rng.standard_normal((100, 100, 100))
    v1, v2 = rng.standard_normal(1 << 20), rng.standard_normal(1 << 20)
    s1, s2 = rng.standard_normal((200, 200)), rng.standard_normal((200, 200))
    return [("ij,ij->i", f1, f2), ("ij,ij->j", f1, f2), ("bij,bji->b", b1, b2),
            ("bij,bij->b", b1, b2), ("i,i->", v1, v2), ("ij,ij->i", s1, s2), ("ij,ij->j", s1, s2)]


def cases():
    rng = np.random.default_rng(0)
    for n in (1024, 4096):
        if n == 4096 and os.environ.get("BENCH_LINALG_BIG", "1") == "0":
            continue
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        ta, tb = tl.from_numpy(a), tl.from_numpy(b)
        yield f"matmul {n}x{n} float32", lambda: ta @ tb, lambda: a @ b, "numpy"

    a = rng.standard_normal((64, 128, 128), dtype=np.float32)
    b = rng.standard_normal((64, 128, 128), dtype=np.float32)
    ta, tb = tl.from_numpy(a), tl.from_numpy(b)
    yield "matmul batched 64x128x128 float32", lambda: ta @ tb, lambda: a @ b, "numpy"

    # A transposed operand goes to BLAS as Trans, no copy.
    at = tl.from_numpy(np.ascontiguousarray(a[0].T)).T
    yield "matmul 128x128 float32, transposed lhs", lambda: at @ tb[0], lambda: a[0] @ b[0], "numpy"

    m = rng.standard_normal((256, 256))
    spd = m @ m.T + 256 * np.eye(256)
    tm, tspd = tl.from_numpy(m), tl.from_numpy(spd)
    yield "linalg.inv 256x256 float64", lambda: tl.linalg.inv(tm), lambda: np.linalg.inv(m), "numpy"
    yield "linalg.svd 256x256 float64", lambda: tl.linalg.svd(tm), lambda: np.linalg.svd(m), "numpy"
    yield "linalg.eigh 256x256 float64", lambda: tl.linalg.eigh(tspd), \
        lambda: np.linalg.eigh(spd), "numpy"
    yield "linalg.cholesky 256x256 float64", lambda: tl.linalg.cholesky(tspd), \
        lambda: np.linalg.cholesky(spd), "numpy"
    e1 = rng.standard_normal((8, 64, 32), dtype=np.float32)
    e2 = rng.standard_normal((8, 32, 48), dtype=np.float32)
    t1, t2 = tl.from_numpy(e1), tl.from_numpy(e2)
    yield "einsum bij,bjk->bik float32", lambda: tl.einsum("bij,bjk->bik", t1, t2), \
        lambda: np.einsum("bij,bjk->bik", e1, e2, optimize=True), "numpy"
    # batched dots and products with nothing contracted (NumPy's einsum
    # loops over them directly)
    d1, d2 = rng.standard_normal((1000, 1000)), rng.standard_normal((1000, 1000))
    u1, u2 = tl.from_numpy(d1), tl.from_numpy(d2)
    for eq in ("ij,ij->i", "ij,ij->j", "ij,ij->ij", "ij,ij->"):
        yield f"einsum {eq} 1000x1000 float64", (lambda eq=eq: tl.einsum(eq, u1, u2)), \
            (lambda eq=eq: np.einsum(eq, d1, d2)), "numpy"
    # the fused sum of products (_C._sumprod) on other shapes and dtypes:
    # float32, a batch of transposed pairs, one long dot, a small (cache-
    # resident) matrix where the call's overhead shows
    for eq, x, y in _sumprod_cases(rng):
        yield f"einsum {eq} {_shape_name(x)} {x.dtype}", \
            (lambda eq=eq, tx=tl.from_numpy(x), ty=tl.from_numpy(y): tl.einsum(eq, tx, ty)), \
            (lambda eq=eq, x=x, y=y: np.einsum(eq, x, y)), "numpy"
    yield "vecdot 1000x1000 float64", lambda: tl.linalg.vecdot(u1, u2), \
        lambda: np.vecdot(d1, d2), "numpy"
    try:
        import torch
    except ImportError:  # the PyTorch rows are skipped
        return
    torch.set_num_threads(tl.get_num_threads())  # as many threads as torchlike (BENCH_THREADS)
    # the same contractions against PyTorch's einsum (which lowers them onto
    # bmm or a product and a sum)
    for eq in ("ij,ij->i", "ij,ij->j", "ij,ij->"):
        yield f"einsum {eq} 1000x1000 float64 (torch)", (lambda eq=eq: tl.einsum(eq, u1, u2)), \
            (lambda eq=eq, p1=torch.from_numpy(d1), p2=torch.from_numpy(d2):
             torch.einsum(eq, p1, p2)), "torch"
    for eq, x, y in _sumprod_cases(np.random.default_rng(0)):
        yield f"einsum {eq} {_shape_name(x)} {x.dtype} (torch)", \
            (lambda eq=eq, tx=tl.from_numpy(x), ty=tl.from_numpy(y): tl.einsum(eq, tx, ty)), \
            (lambda eq=eq, px=torch.from_numpy(x), py=torch.from_numpy(y): torch.einsum(eq, px, py)), \
            "torch"
    rows = rng.standard_normal((2000, 2000))
    t_rows, p_rows = tl.from_numpy(rows), torch.from_numpy(rows)
    yield "linalg.vector_norm dim=1 of 2000x2000 float64", \
        lambda: tl.linalg.vector_norm(t_rows, dim=1), \
        lambda: torch.linalg.vector_norm(p_rows, dim=1), "torch"
    yield "linalg.vector_norm dim=0 of 2000x2000 float64", \
        lambda: tl.linalg.vector_norm(t_rows, dim=0), \
        lambda: torch.linalg.vector_norm(p_rows, dim=0), "torch"
