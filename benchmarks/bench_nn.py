"""Neural-network training steps against PyTorch CPU, in the same process.

Rows (forward + backward unless said otherwise):
  * conv2d at a ResNet-18 shape: batch 32, 64 -> 64 channels, 56x56, 3x3, pad 1;
  * LSTM and GRU: sequence 50, batch 32, input and hidden 256, 2 layers;
  * TransformerEncoderLayer: d_model 512, 8 heads, sequence 128, batch 16;
  * scaled_dot_product_attention, 4 heads of 64: causal at sequence 1024 and
    4096 (benchmarks/sdpa_memory.py shows its memory growing as O(T)), and
    4096 on 2 threads; non-causal at 1024, and its forward alone (inference);
  * MLP 784-512-512-10 training step (Adam), batch 256;
  * small CNN training step on 32x32 RGB images (two conv blocks), batch 64;
  * relu and gelu on 2^22 floats, dropout p=0.1 on 2^22 floats, and an
    embedding lookup (50000 x 512 table, 32 x 128 indices).
  * pooling and resampling ops at ResNet shapes (forward + backward of the op
    alone, the output's gradient given): max_pool2d 3x3/2 pad 1 on the stem's
    64x112x112, adaptive_avg_pool2d of 512x7x7 to 1x1, bilinear upsampling x2.
  * batch_norm2d (training) at (32, 64, 56, 56), layer_norm over 512 of
    (16*128, 512), cross_entropy of (256, 1000) logits, multi_margin_loss of
    (256, 100) scores, ctc_loss of (T 50, N 16, C 20) log-probabilities with
    targets of 10 labels and of (T 200, N 32, C 40) with targets of 50.
  * conv1d of one channel, (1, 1, 100049) * (1, 1, 50), f32/f64 forward and
    f64 forward + backward, and (8, 16, 4096) * (32, 16, 5) f32 (the GEMM
    path); np.convolve 100k x 50 float64 against NumPy.
  * grid_sample (bilinear zeros; bicubic reflection) and its gradients to
    input and grid, local_response_norm (size 5) at AlexNet-like shapes.

The same model definition runs under both libraries (`import torchlike as
torch` is the point), with the same initial weights copied over.  Without
PyTorch there is no peer and no rows: run under an interpreter that has both,
e.g. `PYTHONPATH=. <python with torch> benchmarks/run.py nn`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402
import torchlike  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def _copy_weights(src, dst):
    """PyTorch's module -> torchlike's: the state dict keys are the same."""
    dst.load_state_dict({k: torchlike.from_numpy(v.detach().numpy().copy())
                         for k, v in src.state_dict().items()})


def _step_case(build, make_inputs, train=False):
    """(torchlike step, PyTorch step) for a model built by build(lib)."""
    ref = build(torch)
    ours = build(torchlike)
    _copy_weights(ref, ours)
    inputs = make_inputs()

    def runner(lib, model):
        args = [lib.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in inputs]
        optimizer = lib.optim.Adam(model.parameters(), lr=1e-3) if train else None

        def step():
            out = model(*args)
            out = out[0] if isinstance(out, tuple) else out
            if train:
                loss = lib.nn.functional.cross_entropy(out, args[-1])
                optimizer.zero_grad()
            else:
                loss = out.float().square().mean()
                model.zero_grad(set_to_none=True)
            loss.backward()
            if train:
                optimizer.step()
        return step
    return runner(torchlike, ours), runner(torch, ref)


def cases():
    if torch is None:
        return
    yield from kernel_cases()
    yield from conv1d_cases()
    torch.set_num_threads(torchlike.get_num_threads())
    rng = np.random.default_rng(0)

    def conv(lib):
        return lib.nn.Conv2d(64, 64, 3, padding=1, bias=False)
    fn_tl, fn_pt = _step_case(conv, lambda: [rng.standard_normal((32, 64, 56, 56), np.float32)])
    yield "nn conv2d resnet18 64x56x56 b32 fwd+bwd", fn_tl, fn_pt, "torch"

    def lstm(lib):
        return lib.nn.LSTM(256, 256, num_layers=2)
    fn_tl, fn_pt = _step_case(lstm, lambda: [rng.standard_normal((50, 32, 256), np.float32)])
    yield "nn lstm seq50 b32 h256 x2 fwd+bwd", fn_tl, fn_pt, "torch"

    def gru(lib):
        return lib.nn.GRU(256, 256, num_layers=2)
    fn_tl, fn_pt = _step_case(gru, lambda: [rng.standard_normal((50, 32, 256), np.float32)])
    yield "nn gru seq50 b32 h256 x2 fwd+bwd", fn_tl, fn_pt, "torch"

    def encoder(lib):
        return lib.nn.TransformerEncoderLayer(512, 8, dim_feedforward=2048, dropout=0.0,
                                              batch_first=True)
    fn_tl, fn_pt = _step_case(encoder, lambda: [rng.standard_normal((16, 128, 512),
                                                                    np.float32)])
    yield "nn transformer layer d512 s128 b16 fwd+bwd", fn_tl, fn_pt, "torch"

    for seq in (1024, 4096):
        fn_tl, fn_pt = _sdpa_case(rng, seq)
        yield f"nn sdpa causal b1 h4 s{seq} d64 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _sdpa_case(rng, 1024, causal=False)
    yield "nn sdpa b1 h4 s1024 d64 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _sdpa_case(rng, 1024, causal=False, backward=False)
    yield "nn sdpa b1 h4 s1024 d64 fwd (inference)", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _sdpa_case(rng, 4096, threads=2)
    yield "nn sdpa causal b1 h4 s4096 d64 fwd+bwd 2 thr", fn_tl, fn_pt, "torch"

    def mlp(lib):
        nn = lib.nn
        return _Wrapped(lib, nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                                           nn.ReLU(), nn.Linear(512, 10)))
    labels = rng.integers(0, 10, 256)
    fn_tl, fn_pt = _step_case(mlp, lambda: [rng.standard_normal((256, 784), np.float32),
                                            labels], train=True)
    yield "nn mlp 784-512-512-10 b256 adam step", fn_tl, fn_pt, "torch"

    def cnn(lib):
        nn = lib.nn
        return _Wrapped(lib, nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(64 * 8 * 8, 10)))
    labels = rng.integers(0, 10, 64)
    fn_tl, fn_pt = _step_case(cnn, lambda: [rng.standard_normal((64, 3, 32, 32), np.float32),
                                            labels], train=True)
    yield "nn small cnn 32x32 b64 adam step", fn_tl, fn_pt, "torch"
    yield from norm_loss_cases(rng)


def _fn_case(fn, make_inputs):
    """(torchlike step, PyTorch step): forward+backward of fn(lib, *inputs), the
    float inputs requiring grad, the output summed (or taken, when 0-d)."""
    inputs = make_inputs()

    def runner(lib):
        args = [lib.from_numpy(a.copy()) for a in inputs]
        for a in args:
            if a.is_floating_point():
                a.requires_grad_()

        def step():
            out = fn(lib, *args)
            (out if out.ndim == 0 else out.sum()).backward()
            for a in args:
                a.grad = None
        return step
    return runner(torchlike), runner(torch)


def norm_loss_cases(rng):
    x = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True),
        lambda: [x(32, 64, 56, 56), x(64), x(64)])
    yield "nn batch_norm2d train 32x64x56x56 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (512,), w, b),
        lambda: [x(16 * 128, 512), x(512), x(512)])
    yield "nn layer_norm 2048x512 fwd+bwd", fn_tl, fn_pt, "torch"
    labels = rng.integers(0, 1000, 256)
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, t: lib.nn.functional.cross_entropy(x, t), lambda: [x(256, 1000), labels])
    yield "nn cross_entropy 256x1000 fwd+bwd", fn_tl, fn_pt, "torch"
    for name, fn, shape in softmax_cases():
        fn_tl, fn_pt = _op_case(fn, shape)
        yield name, fn_tl, fn_pt, "torch"
    labels = rng.integers(0, 100, 256)
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, t: lib.nn.functional.multi_margin_loss(x, t), lambda: [x(256, 100), labels])
    yield "nn multi_margin_loss 256x100 fwd+bwd", fn_tl, fn_pt, "torch"
    targets = rng.integers(1, 20, (16, 10))
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, t: lib.nn.functional.ctc_loss(x.log_softmax(2), t, [50] * 16, [10] * 16),
        lambda: [x(50, 16, 20), targets])
    yield "nn ctc_loss T50 N16 C20 S10 fwd+bwd", fn_tl, fn_pt, "torch"
    targets = rng.integers(1, 40, (32, 50))
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, t: lib.nn.functional.ctc_loss(x.log_softmax(2), t, [200] * 32, [50] * 32),
        lambda: [x(200, 32, 40), targets])
    yield "nn ctc_loss T200 N32 C40 S50 fwd+bwd", fn_tl, fn_pt, "torch"

    for name, fn, shape in pool_cases():
        fn_tl, fn_pt = _op_case(fn, shape)
        yield name, fn_tl, fn_pt, "torch"
    for name, fn, shape, cl in layout_cases(rng):
        fn_tl, fn_pt = _op_case(fn, shape, channels_last=cl)
        yield name, fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, g: lib.nn.functional.grid_sample(x, g, align_corners=False),
        lambda: [x(8, 32, 64, 64), rng.uniform(-1.1, 1.1, (8, 64, 64, 2)).astype(np.float32)])
    yield "nn grid_sample bilinear 32x64x64 b8 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _fn_case(
        lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode="bicubic",
                                                        padding_mode="reflection",
                                                        align_corners=True),
        lambda: [x(4, 16, 48, 48), rng.uniform(-1.1, 1.1, (4, 48, 48, 2)).astype(np.float32)])
    yield "nn grid_sample bicubic refl 16x48x48 b4 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _op_case(lambda lib, x: lib.nn.functional.local_response_norm(x, 5),
                            (16, 64, 28, 28))
    yield "nn local_response_norm size5 64x28x28 b16 fwd+bwd", fn_tl, fn_pt, "torch"


def softmax_cases():
    """Short rows (CTC-like log-probabilities over 40 classes, 10-class
    logits), where per-row overheads dominate, and a long row."""
    yield ("nn log_softmax 200x32x40 dim=-1 fwd+bwd",
           lambda lib, x: lib.nn.functional.log_softmax(x, -1), (200, 32, 40))
    yield ("nn softmax 4096x10 dim=-1 fwd+bwd",
           lambda lib, x: lib.nn.functional.softmax(x, -1), (4096, 10))
    yield ("nn softmax 256x1000 dim=-1 fwd+bwd",
           lambda lib, x: lib.nn.functional.softmax(x, -1), (256, 1000))


def pool_cases():
    yield ("nn max_pool2d 3x3/2 p1 64x112x112 b8 fwd+bwd",
           lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 2, 1), (8, 64, 112, 112))
    yield ("nn adaptive_avg_pool2d 512x7x7->1 b32 fwd+bwd",
           lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1), (32, 512, 7, 7))
    yield ("nn bilinear upsample x2 64x56x56 b8 fwd+bwd",
           lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
           (8, 64, 56, 56))


def layout_cases(rng):
    """channels_last inputs (and output gradients) against the same op on
    row-major ones: conv2d 3x3 64->64 at 56x56, max_pool2d, batch_norm
    (training), avg_pool2d and bilinear upsampling at ResNet shapes, batch 8."""
    w0 = rng.standard_normal((64, 64, 3, 3), np.float32) * 0.05
    weights = {lib: lib.from_numpy(w0.copy()) for lib in (torchlike, torch)}
    ops = [("conv2d 3x3 64x56x56 b8", lambda lib, x: lib.nn.functional.conv2d(
                x, weights[lib], padding=1), (8, 64, 56, 56)),
           ("max_pool2d 3x3/2 p1 64x112x112 b8", lambda lib, x: lib.nn.functional.max_pool2d(
                x, 3, 2, 1), (8, 64, 112, 112)),
           ("batch_norm2d train 64x56x56 b8", lambda lib, x: lib.nn.functional.batch_norm(
                x, None, None, training=True), (8, 64, 56, 56)),
           ("avg_pool2d 3x3/2 p1 64x56x56 b8", lambda lib, x: lib.nn.functional.avg_pool2d(
                x, 3, 2, 1), (8, 64, 56, 56)),
           ("bilinear x2 64x56x56 b8", lambda lib, x: lib.nn.functional.interpolate(
                x, scale_factor=2, mode="bilinear"), (8, 64, 56, 56))]
    for name, fn, shape in ops:
        for cl in (False, True):
            yield f"nn {name} {'nhwc' if cl else 'nchw'} fwd+bwd", fn, shape, cl


def _op_case(fn, shape, seed=0, channels_last=False):
    """(torchlike step, PyTorch step): y = fn(lib, x) forward, then backward of
    a fixed random gradient of y's shape into x; channels_last: x and the
    gradient laid out so."""
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(shape, np.float32)
    g0 = rng.standard_normal(tuple(fn(torch, torch.from_numpy(x0)).shape), np.float32)

    def runner(lib):
        fmt = lib.channels_last if channels_last else lib.contiguous_format
        x = lib.from_numpy(x0.copy()).contiguous(memory_format=fmt).requires_grad_()
        g = lib.from_numpy(g0.copy()).contiguous(memory_format=fmt)

        def step():
            fn(lib, x).backward(g)
            x.grad = None
        return step
    return runner(torchlike), runner(torch)


def _embedding_case(num, dim, index_shape):
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((num, dim), np.float32)
    i0 = rng.integers(0, num, index_shape)
    g0 = rng.standard_normal(index_shape + (dim,), np.float32)

    def runner(lib):
        w = lib.from_numpy(w0.copy()).requires_grad_()
        idx, g = lib.from_numpy(i0.copy()), lib.from_numpy(g0.copy())

        def step():
            lib.nn.functional.embedding(idx, w).backward(g)
            w.grad = None
        return step
    return runner(torchlike), runner(torch)


def kernel_cases():
    """The single-kernel rows: activations, dropout, embedding."""
    if torch is None:
        return
    torch.set_num_threads(torchlike.get_num_threads())
    n = 1 << 22
    fn_tl, fn_pt = _op_case(lambda lib, x: lib.nn.functional.relu(x), (n,))
    yield "nn relu 2^22 f32 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _op_case(lambda lib, x: lib.nn.functional.gelu(x), (n,))
    yield "nn gelu 2^22 f32 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _op_case(lambda lib, x: lib.nn.functional.dropout(x, 0.1), (n,))
    yield "nn dropout p0.1 2^22 f32 fwd+bwd", fn_tl, fn_pt, "torch"
    fn_tl, fn_pt = _embedding_case(50000, 512, (32, 128))
    yield "nn embedding 50000x512 idx 32x128 fwd+bwd", fn_tl, fn_pt, "torch"


def conv1d_cases():
    """1-d convolution with few channels (src/nn/conv/conv_line.c) and one
    with many (the columns + GEMM path), and np.convolve against NumPy."""
    rng = np.random.default_rng(0)
    a, v = rng.standard_normal(100000), rng.standard_normal(50)
    a_tl, v_tl = torchlike.from_numpy(a), torchlike.from_numpy(v)
    yield ("nn np.convolve 100k x 50 f64", lambda: np.convolve(a_tl, v_tl),
           lambda: np.convolve(a, v), "numpy")
    if torch is None:
        return
    torch.set_num_threads(torchlike.get_num_threads())
    for dt in (np.float32, np.float64):
        x, w = rng.standard_normal((1, 1, 100049)), rng.standard_normal((1, 1, 50))
        x_tl, w_tl = torchlike.from_numpy(x.astype(dt)), torchlike.from_numpy(w.astype(dt))
        x_pt, w_pt = torch.from_numpy(x.astype(dt)), torch.from_numpy(w.astype(dt))
        name = "f32" if dt == np.float32 else "f64"
        yield (f"nn conv1d 1x1x100049 k50 {name} fwd",
               lambda x=x_tl, w=w_tl: torchlike.nn.functional.conv1d(x, w),
               lambda x=x_pt, w=w_pt: torch.nn.functional.conv1d(x, w), "torch")
    shapes = [((1, 1, 100049), (1, 1, 50), np.float64), ((8, 16, 4096), (32, 16, 5), np.float32)]
    for xs, ws, dt in shapes:
        fn_tl, fn_pt = _fn_case(lambda lib, x, w: lib.nn.functional.conv1d(x, w),
                                lambda xs=xs, ws=ws, dt=dt: [rng.standard_normal(xs).astype(dt),
                                                             rng.standard_normal(ws).astype(dt)])
        name = "x".join(map(str, xs)) + " * " + "x".join(map(str, ws))
        yield f"nn conv1d {name} {np.dtype(dt).name} fwd+bwd", fn_tl, fn_pt, "torch"
    x = rng.standard_normal((8, 16, 4096)).astype(np.float32)
    w = rng.standard_normal((32, 16, 5)).astype(np.float32)
    x_tl, w_tl, x_pt, w_pt = (torchlike.from_numpy(x), torchlike.from_numpy(w),
                              torch.from_numpy(x), torch.from_numpy(w))
    yield ("nn conv1d 8x16x4096 * 32x16x5 float32 fwd",
           lambda: torchlike.nn.functional.conv1d(x_tl, w_tl),
           lambda: torch.nn.functional.conv1d(x_pt, w_pt), "torch")


def _sdpa_case(rng, seq, causal=True, backward=True, threads=None):
    """scaled_dot_product_attention on (1, 4, seq, 64) float32: forward +
    backward, or the forward alone under no_grad; with `threads`, both
    libraries run on that many threads for the call (and go back after)."""
    qkv = [rng.standard_normal((1, 4, seq, 64), np.float32) for _ in range(3)]

    def runner(lib):
        q, k, v = (lib.from_numpy(a.copy()).requires_grad_(backward) for a in qkv)

        def step():
            if backward:
                out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                out.sum().backward()
            else:
                with lib.no_grad():
                    lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

        def on_threads():
            before = lib.get_num_threads()
            lib.set_num_threads(threads)
            try:
                step()
            finally:
                lib.set_num_threads(before)
        return step if threads is None else on_threads
    return runner(torchlike), runner(torch)


def _Wrapped(lib, net):
    """A module whose forward takes (x, labels) and uses x only, so the training
    step can pass the labels through the same argument list."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, x, labels=None):
            return self.net(x)
    return Net()
