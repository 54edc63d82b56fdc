"""GPU rows (issue "The CUDA backend"), against PyTorch on the same GPU in
the same process; nothing runs without a CUDA device and PyTorch.

Rows: the caching allocator (alloc+free of a cached 1 MiB block), copies
between pinned host memory and the device, the elementwise kernels (add,
mul, exp, a cast, a transposed add on 2^28 float32), sums, and the launch
overhead of a 100-op chain on tiny tensors, and two nn layers forward and
backward: a ResNet 3x3 convolution (cuDNN) and batch_norm in training.  Rows without kernels yet
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
    # Launch overhead: a 100-op chain on tiny tensors.
    x, px = torchlike.ones(4, device="cuda"), torch.ones(4, device="cuda")

    def chain(t):
        for _ in range(100):
            t = t + 1
        return t
    yield "cuda 100 adds on 4 elements", lambda: (chain(x), sync()), \
        lambda: (chain(px), sync()), "torch"
    yield from nn_cases(sync)
    for name, fn in (("argmax 2^20 f32", lambda t: t.argmax()),
                     ("matmul 1024^2 f32", lambda t: t.view(1024, 1024) @ t.view(1024, 1024)),
                     ("sort 2^20 f32", lambda t: t.sort())):
        try:
            fn(torchlike.ones(1 << 20, device="cuda"))
        except NotImplementedError as e:
            print(f"cuda {name:43s} not run: {e}")


def nn_cases(sync):
    """A ResNet stage's 3x3 convolution (32 x 64 x 56 x 56, 64 -> 64 channels,
    float32, TF32 allowed in both libraries as their defaults) and batch_norm
    in training on the same activations, each forward + backward."""
    import numpy as np
    F = torchlike.nn.functional
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((64, 64, 3, 3), dtype=np.float32) * 0.05
    tx = torchlike.tensor(x).to("cuda").requires_grad_(True)
    tw = torchlike.tensor(w).to("cuda").requires_grad_(True)
    tg = torchlike.tensor(np.ones_like(x)).to("cuda")
    px = torch.tensor(x).cuda().requires_grad_(True)
    pw = torch.tensor(w).cuda().requires_grad_(True)
    pg = torch.ones_like(px)

    def conv_step(F, x, w, g):
        x.grad = w.grad = None
        F.conv2d(x, w, padding=1).backward(g)
        sync()
    yield "cuda conv2d 3x3 fwd+bwd 32x64x56x56 f32", lambda: conv_step(F, tx, tw, tg), \
        lambda: conv_step(torch.nn.functional, px, pw, pg), "torch"
    tm, tv = torchlike.zeros(64).to("cuda"), torchlike.ones(64).to("cuda")
    tb_w, tb_b = (torchlike.ones(64).to("cuda").requires_grad_(True),
                  torchlike.zeros(64).to("cuda").requires_grad_(True))
    pm, pv = torch.zeros(64, device="cuda"), torch.ones(64, device="cuda")
    pb_w = torch.ones(64, device="cuda", requires_grad=True)
    pb_b = torch.zeros(64, device="cuda", requires_grad=True)

    def bn_step(F, x, m, v, w, b, g):
        x.grad = w.grad = b.grad = None
        F.batch_norm(x, m, v, w, b, training=True).backward(g)
        sync()
    yield "cuda batch_norm train fwd+bwd 32x64x56x56 f32", \
        lambda: bn_step(F, tx, tm, tv, tb_w, tb_b, tg), \
        lambda: bn_step(torch.nn.functional, px, pm, pv, pb_w, pb_b, pg), "torch"
