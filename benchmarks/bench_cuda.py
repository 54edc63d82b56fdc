"""GPU rows (issue "The CUDA backend"), against PyTorch on the same GPU in
the same process; nothing runs without a CUDA device and PyTorch.

Rows: the caching allocator (alloc+free of a cached 1 MiB block), copies
between pinned host memory and the device, the elementwise kernels (add,
mul, exp, a cast, a transposed add on 2^28 float32), sums, and the launch
overhead of a 100-op chain on tiny tensors, softmax and cross_entropy
(src/gpu/nn).  Rows without kernels yet
(argmax, GEMM, sort) are listed with the reason they do not run, so the
report shows the gap."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


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
    # Reductions: a full sum is one block today (docs/gpu.md), rows of a matrix many.
    yield "cuda sum 2^28 f32", lambda: (a.sum(), sync()), lambda: (pa.sum(), sync()), "torch"
    yield "cuda sum dim=1 of 16384^2 f32", lambda: (a.view(16384, 16384).sum(1), sync()), \
        lambda: (pa.view(16384, 16384).sum(1), sync()), "torch"
    del a, b, pa, pb, at, pat
    # src/gpu/nn: softmax by rows (a warp per row of 1024, a block per row of
    # 32768) and across rows (the strided kernel), cross_entropy forward and
    # backward (a warp per row of 1000 classes).
    def same(p):  # torch's values as a torchlike CUDA tensor (no CUDA randn here yet)
        return torchlike.from_numpy(p.cpu().numpy()).to("cuda")
    for rows, cols in ((1 << 16, 1024), (1 << 11, 1 << 15)):
        px = torch.randn(rows, cols, device="cuda")
        x = same(px)
        yield f"cuda softmax {rows}x{cols} f32 dim=-1", \
            lambda x=x: (torchlike.softmax(x, -1), sync()), \
            lambda px=px: (torch.softmax(px, -1), sync()), "torch"
    yield f"cuda log_softmax {rows}x{cols} f32 dim=0", \
        lambda: (torchlike.log_softmax(x, 0), sync()), \
        lambda: (torch.log_softmax(px, 0), sync()), "torch"
    del x, px
    n, c = 1 << 15, 1000
    plogits, ptarget = torch.randn(n, c, device="cuda"), torch.arange(n, device="cuda") % c
    logits, target = same(plogits), same(ptarget)
    tlF, ptF = torchlike.nn.functional, torch.nn.functional
    yield f"cuda cross_entropy {n}x{c} f32", \
        lambda: (tlF.cross_entropy(logits, target), sync()), \
        lambda: (ptF.cross_entropy(plogits, ptarget), sync()), "torch"
    lg, plg = logits.clone().requires_grad_(), plogits.clone().requires_grad_()
    yield f"cuda cross_entropy fwd+bwd {n}x{c} f32", \
        lambda: (tlF.cross_entropy(lg, target).backward(), sync()), \
        lambda: (ptF.cross_entropy(plg, ptarget).backward(), sync()), "torch"
    del logits, plogits, lg, plg
    # Launch overhead: a 100-op chain on tiny tensors.
    x, px = torchlike.ones(4, device="cuda"), torch.ones(4, device="cuda")

    def chain(t):
        for _ in range(100):
            t = t + 1
        return t
    yield "cuda 100 adds on 4 elements", lambda: (chain(x), sync()), \
        lambda: (chain(px), sync()), "torch"
    for name, fn in (("argmax 2^20 f32", lambda t: t.argmax()),
                     ("matmul 1024^2 f32", lambda t: t.view(1024, 1024) @ t.view(1024, 1024)),
                     ("sort 2^20 f32", lambda t: t.sort())):
        try:
            fn(torchlike.ones(1 << 20, device="cuda"))
        except NotImplementedError as e:
            print(f"cuda {name:43s} not run: {e}")
