"""GPU rows (issue "The CUDA backend"), against PyTorch on the same GPU in
the same process; nothing runs without a CUDA device and PyTorch.

Rows: the caching allocator (alloc+free of a cached 1 MiB block), copies
between pinned host memory and the device, the elementwise kernels (add,
mul, exp, a cast, a transposed add on 2^28 float32), reductions (full sums
split over many blocks, rows, argmax, logsumexp, norm) and scans, and the
launch overhead of a 100-op chain on tiny tensors; the reduction and scan
rows are also timed against CuPy when it is installed.  Rows without
kernels yet (GEMM, sort) are listed with the reason they do not run, so
the report shows the gap."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None


def cases():
    if torch is None or not torchlike.cuda.is_available() or not torch.cuda.is_available():
        return
    mib = 1 << 18  # float32 elements in 1 MiB

    yield ("cuda cached alloc+free 1 MiB", lambda: torchlike.empty(mib, device="cuda"),
           lambda: torch.empty(mib, device="cuda"), "torch")
    n = 1 << 26  # 256 MiB of float32
    tl_host = torchlike.empty(n).pin_memory()
    pt_host = torch.empty(n).pin_memory()
    yield "cuda pinned h2d 256 MiB", lambda: tl_host.to("cuda"), \
        lambda: (pt_host.to("cuda"), torch.cuda.synchronize()), "torch"
    tl_dev, pt_dev = tl_host.to("cuda"), pt_host.to("cuda")
    yield "cuda d2h 256 MiB", lambda: tl_dev.cpu(), lambda: pt_dev.cpu(), "torch"
    # Elementwise kernels: 2^28 float32 (1 GiB per operand), bandwidth-bound;
    # torch.cuda.synchronize waits for the whole device, our launches included
    # (one process, one primary context).
    sync = torch.cuda.synchronize
    big = 1 << 28
    a, b = torchlike.ones(big, device="cuda"), torchlike.full((big,), 2.0, device="cuda")
    pa, pb = torch.ones(big, device="cuda"), torch.full((big,), 2.0, device="cuda")
    yield "cuda add 2^28 f32", lambda: (a + b, sync()), lambda: (pa + pb, sync()), "torch"
    yield "cuda mul 2^28 f32", lambda: (a * b, sync()), lambda: (pa * pb, sync()), "torch"
    yield "cuda exp 2^28 f32", lambda: (torchlike.exp(a), sync()), \
        lambda: (torch.exp(pa), sync()), "torch"
    yield "cuda cast 2^28 f32->f16", lambda: (a.to(torchlike.float16), sync()), \
        lambda: (pa.to(torch.float16), sync()), "torch"
    # A strided operand: the n-d kernel (a transposed 16384 x 16384 view).
    at, pat = a.view(16384, 16384).t(), pa.view(16384, 16384).t()
    yield "cuda add transposed 2^28 f32", lambda: (at + at, sync()), \
        lambda: (pat + pat, sync()), "torch"
    # Reductions: a full sum is split over many blocks (two stages), rows of a
    # matrix one block each, columns a thread each.
    yield "cuda sum 2^28 f32", lambda: (a.sum(), sync()), lambda: (pa.sum(), sync()), "torch"
    yield "cuda sum dim=1 of 16384^2 f32", lambda: (a.view(16384, 16384).sum(1), sync()), \
        lambda: (pa.view(16384, 16384).sum(1), sync()), "torch"
    yield "cuda sum dim=0 of 16384^2 f32", lambda: (a.view(16384, 16384).sum(0), sync()), \
        lambda: (pa.view(16384, 16384).sum(0), sync()), "torch"
    yield from reductions_and_scans(sync)
    del a, b, pa, pb, at, pat
    # Launch overhead: a 100-op chain on tiny tensors.
    x, px = torchlike.ones(4, device="cuda"), torch.ones(4, device="cuda")

    def chain(t):
        for _ in range(100):
            t = t + 1
        return t
    yield "cuda 100 adds on 4 elements", lambda: (chain(x), sync()), \
        lambda: (chain(px), sync()), "torch"
    for name, fn in (("matmul 1024^2 f32", lambda t: t.view(1024, 1024) @ t.view(1024, 1024)),
                     ("sort 2^20 f32", lambda t: t.sort())):
        try:
            fn(torchlike.ones(1 << 20, device="cuda"))
        except NotImplementedError as e:
            print(f"cuda {name:43s} not run: {e}")


def reductions_and_scans(sync):
    """The reduce family's rows (src/gpu/reduce): full and few-output
    reductions at bandwidth, index reductions, logsumexp, norm, and scans of
    one long line and of many rows; each against PyTorch, and CuPy when
    present (CuPy's own synchronize waits for the same device)."""
    n = 1 << 26
    px = torch.arange(n, dtype=torch.float32, device="cuda") % 1000 - 500
    x = torchlike.tensor(px.cpu().numpy()).to("cuda")
    cx = cupy.asarray(px) if cupy is not None else None
    m, pm = x.view(4096, 16384), px.view(4096, 16384)
    rows = [
        ("sum 2^26 f32", lambda t: t.sum(), lambda t: t.sum()),
        ("sum dim=1 of 4 x 2^24 f32", lambda t: t.view(4, -1).sum(1),
         lambda t: t.reshape(4, -1).sum(1)),
        ("argmax 2^26 f32", lambda t: t.argmax(), lambda t: t.argmax()),
        ("cumsum 2^26 f32", lambda t: t.cumsum(0), lambda t: t.cumsum(0)),
    ]
    for name, fn, cfn in rows:
        yield f"cuda {name}", lambda fn=fn: (fn(x), sync()), lambda fn=fn: (fn(px), sync()), "torch"
        if cx is not None:
            yield f"cuda {name} (CuPy)", lambda fn=fn: (fn(x), sync()), \
                lambda cfn=cfn: (cfn(cx), cupy.cuda.Device().synchronize()), "cupy"
    yield "cuda cumsum dim=1 of 4096 x 16384 f32", lambda: (m.cumsum(1), sync()), \
        lambda: (pm.cumsum(1), sync()), "torch"
    yield "cuda cumsum dim=0 of 4096 x 16384 f32", lambda: (m.cumsum(0), sync()), \
        lambda: (pm.cumsum(0), sync()), "torch"
    yield "cuda max dim=1 of 4096 x 16384 f32", lambda: (m.max(1), sync()), \
        lambda: (pm.max(1), sync()), "torch"
    yield "cuda logsumexp dim=1 of 4096 x 16384 f32", \
        lambda: (torchlike.logsumexp(m, 1), sync()), lambda: (torch.logsumexp(pm, 1), sync()), "torch"
    yield "cuda norm 2^26 f32", lambda: (torchlike.norm(x), sync()), \
        lambda: (torch.norm(px), sync()), "torch"
