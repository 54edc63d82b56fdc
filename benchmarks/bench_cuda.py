"""GPU rows (issue "The CUDA backend"), against PyTorch on the same GPU in
the same process; nothing runs without a CUDA device and PyTorch.

Rows: the caching allocator (alloc+free of a cached 1 MiB block), copies
between pinned host memory and the device, the elementwise kernels (add,
mul, exp, a cast, a transposed add on 2^28 float32), reductions (full sums
split over many blocks, rows, argmax, logsumexp, norm) and scans, the
launch overhead of a 100-op chain on tiny tensors, matrix products
(cuBLAS: per dtype, batched, a broadcast operand, a transposed one), a
solve, svd, lstsq and batched cholesky (cuSOLVER), FFTs (cuFFT), the sort family (sort, argsort, topk, median, unique),
indexing (index_select, gather, atomic scatter_add, nonzero), two nn
layers forward and backward (a ResNet conv2d, batch norm), softmax and
cross_entropy, an LSTM layer and causal attention forward and backward;
the reduction and scan rows are also timed against CuPy when it is
installed."""
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
    # Matrix products through cuBLAS (src/gpu/linalg/gemm_gpu.c): square
    # GEMMs per dtype, a batched one, a broadcast operand (a linear layer on
    # [B, T, C]: b's batch stride 0) and a transposed operand (no copy).
    # PyTorch's default matches ours: no TF32 for float32.
    for dtype_name, n in (("float32", 8192), ("float64", 2048), ("float16", 8192),
                          ("bfloat16", 8192), ("complex64", 2048)):
        ta = torchlike.ones(n, n, dtype=getattr(torchlike, dtype_name), device="cuda")
        pa = torch.ones(n, n, dtype=getattr(torch, dtype_name), device="cuda")
        yield f"cuda matmul {n}^2 {dtype_name}", \
            (lambda t=ta: (t @ t, sync())), (lambda t=pa: (t @ t, sync())), "torch"
    ta = torchlike.ones(256, 128, 128, device="cuda")
    pa = torch.ones(256, 128, 128, device="cuda")
    yield "cuda bmm 256x128^3 f32", lambda: (torchlike.bmm(ta, ta), sync()), \
        lambda: (torch.bmm(pa, pa), sync()), "torch"
    tx, tw = torchlike.ones(32, 512, 1024, device="cuda"), torchlike.ones(1024, 1024, device="cuda")
    px, pw = torch.ones(32, 512, 1024, device="cuda"), torch.ones(1024, 1024, device="cuda")
    yield "cuda matmul [32,512,1024]@[1024,1024] f32", lambda: (tx @ tw, sync()), \
        lambda: (px @ pw, sync()), "torch"
    yield "cuda matmul 1024^2 f32 @ transposed", lambda: (tw @ tw.t(), sync()), \
        lambda: (pw @ pw.t(), sync()), "torch"
    tb, pb = torchlike.ones(1024, 1, device="cuda"), torch.ones(1024, 1, device="cuda")
    ts = tw + 1024 * torchlike.eye(1024, device="cuda")
    ps = pw + 1024 * torch.eye(1024, device="cuda")
    yield "cuda linalg.solve 1024^2 f32", lambda: (torchlike.linalg.solve(ts, tb), sync()), \
        lambda: (torch.linalg.solve(ps, pb), sync()), "torch"
    # svd (gesvdj; a batch of small matrices: gesvdjBatched), lstsq (QR),
    # cholesky of many small matrices (potrfBatched), FFTs (cuFFT).
    spd_t = torchlike.eye(16, device="cuda") * 16 + torchlike.ones(4096, 16, 16, device="cuda")
    spd_p = torch.eye(16, device="cuda") * 16 + torch.ones(4096, 16, 16, device="cuda")
    pq = torch.randn(512, 256, generator=torch.Generator().manual_seed(1)).cuda()
    tq = torchlike.tensor(pq.cpu().numpy()).cuda()
    for name, tf, pf in (
            ("linalg.svd 512x256 f32", lambda: torchlike.linalg.svd(tq, full_matrices=False),
             lambda: torch.linalg.svd(pq, full_matrices=False)),
            ("linalg.svdvals 4096x16x16 f32", lambda: torchlike.linalg.svdvals(spd_t),
             lambda: torch.linalg.svdvals(spd_p)),
            ("linalg.lstsq 512x256 f32", lambda: torchlike.linalg.lstsq(tq, tq[:, :4]),
             lambda: torch.linalg.lstsq(pq, pq[:, :4])),
            ("linalg.cholesky 4096x16x16 f32", lambda: torchlike.linalg.cholesky(spd_t),
             lambda: torch.linalg.cholesky(spd_p))):
        yield "cuda " + name, (lambda f=tf: (f(), sync())), (lambda f=pf: (f(), sync())), "torch"
    sig_t = torchlike.ones(256, 4096, device="cuda")
    sig_p = torch.ones(256, 4096, device="cuda")
    img_t, img_p = torchlike.ones(16, 512, 512, device="cuda"), torch.ones(16, 512, 512, device="cuda")
    for name, tf, pf in (
            ("fft.rfft 256x4096 f32", lambda: torchlike.fft.rfft(sig_t),
             lambda: torch.fft.rfft(sig_p)),
            ("fft.fft2 16x512x512 c64", lambda: torchlike.fft.fft2(img_t.to(torchlike.complex64)),
             lambda: torch.fft.fft2(img_p.to(torch.complex64))),
            ("fft.irfftn 16x512x512 f32", lambda: torchlike.fft.irfftn(img_t, s=(512, 1022)),
             lambda: torch.fft.irfftn(img_p, s=(512, 1022)))):
        yield "cuda " + name, (lambda f=tf: (f(), sync())), (lambda f=pf: (f(), sync())), "torch"
    del ta, pa, tx, tw, px, pw, tb, pb, ts, ps, tq, pq, spd_t, spd_p, sig_t, sig_p, img_t, img_p
    # The sort family (src/gpu/sort): one long lane takes CUB's device-wide
    # radix sort, many lanes its segmented sort; topk sorts whole lanes (no
    # radix select yet), unique reads its group count back (one sync).
    g = torch.Generator().manual_seed(0)
    long_, rows = torch.randn(1 << 26, generator=g), torch.randn(4096, 1024, generator=g)
    ints = torch.randint(0, 1 << 16, (1 << 22,), generator=g, dtype=torch.int32)
    for name, f, data in (
            ("sort 2^26 f32", lambda t: t.sort(), long_),
            ("sort dim=1 of 4096x1024 f32", lambda t: t.sort(dim=1), rows),
            ("argsort 2^22 i32", lambda t: t.argsort(), ints),
            ("topk k=100 of 2^26 f32", lambda t: t.topk(100), long_),
            ("topk k=8 dim=1 of 4096x1024 f32", lambda t: t.topk(8, dim=1), rows),
            ("median dim=1 of 4096x1024 f32", lambda t: t.median(dim=1), rows),
            ("unique 2^22 i32", lambda t: t.unique(), ints)):
        mine, theirs = torchlike.from_numpy(data.numpy()).to("cuda"), data.to("cuda")
        yield f"cuda {name}", lambda f=f, t=mine: (f(t), sync()), \
            lambda f=f, t=theirs: (f(t), sync()), "torch"
    # Indexing: gather/select of rows, atomic scatter_add with repeats, nonzero
    # (one count read), all on 2^24 float32 values and 2^22 int64 indices.
    src, psrc = torchlike.ones(1 << 24, device="cuda"), torch.ones(1 << 24, device="cuda")
    rows, prows = src.view(1 << 12, 1 << 12), psrc.view(1 << 12, 1 << 12)
    ix = torchlike.randint(0, 1 << 12, (1 << 10,)).to("cuda")
    pix = torch.from_numpy(ix.cpu().numpy()).to("cuda")
    yield "cuda index_select 1024 of 4096 rows", lambda: (rows.index_select(0, ix), sync()), \
        lambda: (prows.index_select(0, pix), sync()), "torch"
    flat = torchlike.randint(0, 1 << 24, (1 << 22,)).to("cuda")
    pflat = torch.from_numpy(flat.cpu().numpy()).to("cuda")
    yield "cuda gather 2^22 of 2^24 f32", lambda: (src.gather(0, flat), sync()), \
        lambda: (psrc.gather(0, pflat), sync()), "torch"
    few = torchlike.randint(0, 1 << 10, (1 << 22,)).to("cuda")
    pfew = torch.from_numpy(few.cpu().numpy()).to("cuda")
    upd, pupd = torchlike.ones(1 << 22, device="cuda"), torch.ones(1 << 22, device="cuda")
    acc, pacc = torchlike.zeros(1 << 10, device="cuda"), torch.zeros(1 << 10, device="cuda")
    yield "cuda scatter_add_ 2^22 into 1024 f32", \
        lambda: (acc.scatter_add_(0, few, upd), sync()), \
        lambda: (pacc.scatter_add_(0, pfew, pupd), sync()), "torch"
    mask, pmask = src.view(-1) > 0.5, psrc > 0.5
    yield "cuda nonzero 2^24 bool", lambda: mask.nonzero(), lambda: pmask.nonzero(), "torch"
    del src, psrc, rows, prows, upd, pupd
    yield from nn_cases(sync)
    yield from seq_cases(sync)


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


def seq_cases(sync):
    """The sequence families (src/gpu/seq), forward + backward in float32: an
    LSTM layer (100 steps, batch 64, 256 -> 512: cuBLAS per step and the fused
    gate kernels) and causal scaled dot-product attention (8 x 16 heads,
    2048 x 2048, head size 64: tiled GEMMs and row kernels; PyTorch picks
    its own fused kernel)."""
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 64, 256), dtype=np.float32)
    torchlike.manual_seed(0)
    tl_lstm = torchlike.nn.LSTM(256, 512).to("cuda")
    pt_lstm = torch.nn.LSTM(256, 512).cuda()
    with torch.no_grad():
        for p, q in zip(pt_lstm.parameters(), tl_lstm.parameters()):
            p.copy_(torch.from_numpy(q.detach().cpu().numpy()))
    tx = torchlike.tensor(x).to("cuda").requires_grad_(True)
    px = torch.tensor(x).cuda().requires_grad_(True)

    def lstm_step(m, x):
        x.grad = None
        m(x)[0].sum().backward()
        sync()
    yield "cuda LSTM layer fwd+bwd 100x64x256->512 f32", lambda: lstm_step(tl_lstm, tx), \
        lambda: lstm_step(pt_lstm, px), "torch"
    qkv = [rng.standard_normal((8, 16, 2048, 64), dtype=np.float32) for _ in range(3)]
    tq = [torchlike.tensor(a).to("cuda").requires_grad_(True) for a in qkv]
    pq = [torch.tensor(a).cuda().requires_grad_(True) for a in qkv]

    def sdpa_step(F, ts):
        for t in ts:
            t.grad = None
        F.scaled_dot_product_attention(*ts, is_causal=True).sum().backward()
        sync()
    yield "cuda sdpa causal fwd+bwd 8x16x2048x64 f32", \
        lambda: sdpa_step(torchlike.nn.functional, tq), \
        lambda: sdpa_step(torch.nn.functional, pq), "torch"


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
