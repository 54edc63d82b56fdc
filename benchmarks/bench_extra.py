"""Benchmarks of the numerical extras against PyTorch (when importable):
torch.svd_lowrank of a 2000 x 500 float32 matrix (q=10, niter=2; both draw
their own random basis, so the rows compare the same amount of work, not
the same numbers) and nn.functional.grouped_mm of 4096 tokens x 512 over
8 experts of 512 x 512 float32 (PyTorch's CPU kernel needs 16-byte
strides: these sizes give them).  Without PyTorch the module yields no
rows."""
import numpy as np

import torchlike as tl


def cases():
    try:
        import torch
    except ImportError:
        return
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2000, 500), dtype=np.float32)
    ta, pa = tl.from_numpy(a), torch.from_numpy(a)
    yield "svd_lowrank 2000x500 q=10 float32", lambda: tl.svd_lowrank(ta, q=10), \
        lambda: torch.svd_lowrank(pa, q=10), "torch"

    x = rng.standard_normal((4096, 512), dtype=np.float32)
    w = rng.standard_normal((8, 512, 512), dtype=np.float32) / 20
    ends = np.sort(rng.choice(np.arange(1, 4096), 7, replace=False)).tolist() + [4096]
    tx, tw = tl.from_numpy(x), tl.from_numpy(w)
    px, pw = torch.from_numpy(x), torch.from_numpy(w)
    toffs, poffs = tl.tensor(ends, dtype=tl.int32), torch.tensor(ends, dtype=torch.int32)
    yield "grouped_mm 4096x512 @ 8x512x512 float32", \
        lambda: tl.nn.functional.grouped_mm(tx, tw, offs=toffs), \
        lambda: torch.nn.functional.grouped_mm(px, pw, offs=poffs), "torch"
