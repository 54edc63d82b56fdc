"""CUDA kernels of the recurrent family (src/gpu/seq: rnn.cu, rnn_gpu.c, and
the device-neutral driver src/nn/rnn/rnn_device.c): the fused LSTM, GRU and
RNN cells with their backward ops, and the layer op over whole sequences
(_rnn_layer, _rnn_layer_backward) that nn.LSTM/GRU/RNN run.

Each test takes a `device`.  Results are compared with NumPy references
(tests/test_nn_rnn_kernels.py's and test_nn_rnn_layer.py's) and with the
CPU's results; gradients through autograd (which runs the backward ops on
the device) with the CPU's, and by gradcheck and gradgradcheck in float64
on the device.  On "cpu" the tests run everywhere and check themselves; on
"cuda" they need a GPU (scripts/gpu_check.sh) and skip elsewhere with
"requires a CUDA device".  On "emulated" (the fake device with the CPU's kernels, in a
process of its own) the cells and layers run rnn_device.c, the driver CUDA
runs, on the CPU's primitives (GEMMs, gate rows, row copies, column sums):
its row offsets, workspace columns, device scratch and zero-size paths are
checked without a GPU, and so are the op layers' device paths."""
import zlib

import numpy as np
import pytest

import torchlike as T
from torchlike import _C as C
from torchlike.autograd import gradcheck, gradgradcheck
from oracle import cuda_test_devices, run_emulated
from test_nn_rnn_kernels import np_gru_cell, np_lstm_cell, np_rnn_cell
from test_nn_rnn_layer import MODES, layer_fn, make_case, np_layer, op_args

DEVICES, EMULATED = cuda_test_devices()
# device against the NumPy loop: float64 to rounding, float32 to a few ulps
# of the O(1) states (the GEMMs sum in another order, CUDA's tanhf is not the
# CPU's float tanh)
TOL = {T.float64: 1e-10, T.float32: 3e-5}
OPS = ["_thnn_fused_lstm_cell", "_thnn_fused_lstm_cell_backward_impl", "_thnn_fused_gru_cell",
       "_thnn_fused_gru_cell_backward", "_fused_rnn_cell", "_rnn_layer", "_rnn_layer_backward"]

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def host(t):
    return None if t is None else t.detach().cpu().double().numpy()


def close(actual, expected, dtype):
    assert actual is not None
    np.testing.assert_allclose(host(actual), expected if isinstance(expected, np.ndarray)
                               else host(expected), rtol=TOL[dtype], atol=TOL[dtype])


def on(device, a, dtype, grad=False):
    if a is None:
        return None
    t = T.tensor(a, dtype=dtype).to(device)
    return t.requires_grad_() if grad else t


def strided(t):
    """t's values through a non-contiguous view (every other column of a wider tensor)."""
    wide = T.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype, device=t.device)
    wide[..., ::2] = t
    view = wide[..., ::2]
    assert not view.is_contiguous() or t.shape[-1] <= 1
    return view


@pytest.mark.skipif(not C._dispatch_table()["add"][1]["cuda"], reason="built without CUDA")
@pytest.mark.parametrize("op", OPS)
def test_cuda_rows_are_registered(op):
    table = C._dispatch_table()
    assert table[op][1]["cuda"], f"{op} has no CUDA row"
    assert C._dispatch_lookup(op, "cuda", "float32") == "set"


# ---- the cells ----------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("n,h,layout", [(3, 5, "contiguous"), (17, 33, "strided"),
                                        (1, 1, "strided"), (0, 4, "contiguous")])
def test_cells_match_numpy(device, dtype, bias, n, h, layout):
    rng = np.random.default_rng(n * 100 + h)
    a = lambda *s: rng.standard_normal(s)  # noqa: E731
    prep = (lambda t: strided(t)) if layout == "strided" else (lambda t: t)
    ig, hg, cx = a(n, 4 * h), a(n, 4 * h), a(n, h)
    bi, bh = (a(4 * h), a(4 * h)) if bias else (None, None)
    got = C._thnn_fused_lstm_cell(*(prep(on(device, x, dtype)) if x is not None else None
                                    for x in (ig, hg, cx, bi, bh)))
    for g, r in zip(got, np_lstm_cell(ig, hg, cx, bi, bh)):
        assert g.device.type == T.device(device).type and g.dtype == dtype
        close(g, r, dtype)
    ig3, hg3, hx = a(n, 3 * h), a(n, 3 * h), a(n, h)
    bi3, bh3 = (a(3 * h), a(3 * h)) if bias else (None, None)
    got = C._thnn_fused_gru_cell(*(prep(on(device, x, dtype)) if x is not None else None
                                   for x in (ig3, hg3, hx, bi3, bh3)))
    for g, r in zip(got, np_gru_cell(ig3, hg3, hx, bi3, bh3)):
        close(g, r, dtype)
    for relu in (False, True):
        got = C._fused_rnn_cell(prep(on(device, hx, dtype)), prep(on(device, cx, dtype)),
                                on(device, bi3[:h] if bias else None, dtype), None, relu)
        close(got, np_rnn_cell(hx, cx, bi3[:h] if bias else None, None, relu), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("n", [4, 0])
def test_cell_backward_ops_match_the_cpu(device, dtype, n):
    """The backward ops called directly, absent gradients included (zeros)."""
    rng = np.random.default_rng(7 + n)
    h = 3
    ig, hg, cx = (on("cpu", rng.standard_normal(s), dtype)
                  for s in ((n, 4 * h), (n, 4 * h), (n, h)))
    hy, cy, ws = C._thnn_fused_lstm_cell(ig, hg, cx)
    ghy, gcy = (on("cpu", rng.standard_normal((n, h)), dtype) for _ in range(2))
    for g1, g2 in ((ghy, gcy), (None, gcy), (ghy, None)):
        want = C._thnn_fused_lstm_cell_backward_impl(g1, g2, cx, cy, ws, True)
        got = C._thnn_fused_lstm_cell_backward_impl(
            *(None if t is None else t.to(device) for t in (g1, g2, cx, cy, ws)), True)
        for a, b in zip(got, want):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.device.type == T.device(device).type
                close(a, b, dtype)
    ig3, hg3, hx = (on("cpu", rng.standard_normal(s), dtype)
                    for s in ((n, 3 * h), (n, 3 * h), (n, h)))
    _, ws3 = C._thnn_fused_gru_cell(ig3, hg3, hx)
    for has_bias in (True, False):
        want = C._thnn_fused_gru_cell_backward(ghy, ws3, has_bias)
        got = C._thnn_fused_gru_cell_backward(ghy.to(device), ws3.to(device), has_bias)
        for a, b in zip(got, want):
            assert (a is None) == (b is None)
            if a is not None:
                close(a, b, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_cell_gradcheck(device):
    rng = np.random.default_rng(11)
    n, h = 2, 2
    t = lambda *s: on(device, rng.standard_normal(s), T.float64, grad=True)  # noqa: E731
    ig, hg, cx, bi, bh = t(n, 4 * h), t(n, 4 * h), t(n, h), t(4 * h), t(4 * h)
    assert gradcheck(lambda *a: C._thnn_fused_lstm_cell(*a)[:2], [ig, hg, cx, bi, bh])
    ig3, hg3, hx, bi3, bh3 = t(n, 3 * h), t(n, 3 * h), t(n, h), t(3 * h), t(3 * h)
    assert gradcheck(lambda *a: C._thnn_fused_gru_cell(*a)[0], [ig3, hg3, hx, bi3, bh3])
    for relu in (False, True):
        assert gradcheck(lambda a, b, c: C._fused_rnn_cell(a, b, c, None, relu), [hx, cx, t(h)])


# ---- the layer op ---------------------------------------------------------------------------

CASES = [("LSTM", None, True), ("LSTM", 2, True), ("LSTM", 2, False), ("GRU", None, True),
         ("GRU", None, False), ("RNN_TANH", None, True), ("RNN_RELU", None, False)]


def layer_args(device, p, x, h0, c0, dtype, sizes, packed, grad=False):
    args, bs = op_args(p, x, h0, c0, dtype, sizes if packed else None, L=len(sizes), N=sizes[0])
    args = [None if a is None else a.to(device) for a in args]
    if grad:
        args = [None if a is None else a.requires_grad_() for a in args]
    return args, bs


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("mode,proj,bias", CASES)
def test_layer_matches_numpy_and_the_cpu(device, mode, proj, bias, packed, reverse, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((mode, proj, bias, packed, reverse)).encode()))
    sizes = (3, 3, 2, 1, 1) if packed else (3,) * 4
    p, x, h0, c0 = make_case(rng, mode, P=proj, sizes=sizes, bias=bias)
    args, bs = layer_args(device, p, x, h0, c0, dtype, sizes, packed, grad=True)
    out, hy, cy, ws = C._rnn_layer(*args, bs, MODES[mode], reverse)
    ref, rh, rc = np_layer(mode, x, sizes, h0, c0, p, reverse)
    assert out.device.type == T.device(device).type and out.dtype == dtype
    close(out.reshape(ref.shape), ref, dtype)
    close(hy, rh, dtype)
    if mode == "LSTM":
        close(cy, rc, dtype)
    # the workspace is the CPU's (the backward of either device reads it)
    cpu_args, _ = layer_args("cpu", p, x, h0, c0, dtype, sizes, packed, grad=True)
    c_out, c_hy, c_cy, c_ws = C._rnn_layer(*cpu_args, bs, MODES[mode], reverse)
    close(ws, c_ws, dtype)
    # gradients of every input through autograd (the backward op on the device)
    g = rng.standard_normal(tuple(out.shape))
    gh = rng.standard_normal(tuple(hy.shape))
    for o, oh in ((out, hy), (c_out, c_hy)):
        ((o * on(o.device, g, dtype)).sum() + (oh * on(o.device, gh, dtype)).sum()).backward()
    for a, b in zip(args, cpu_args):
        if a is not None:
            assert a.grad.device.type == T.device(device).type
            close(a.grad, b.grad, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode,proj,packed,reverse", [
    ("LSTM", None, False, False), ("LSTM", 2, True, True), ("GRU", None, True, False),
    ("RNN_TANH", None, False, True), ("RNN_RELU", None, True, False)])
def test_layer_gradcheck(device, mode, proj, packed, reverse):
    rng = np.random.default_rng(3)
    sizes = (3, 2, 2, 1) if packed else (2, 2, 2)
    p, x, h0, c0 = make_case(rng, mode, I=2, H=3, P=proj, sizes=sizes)
    if mode == "RNN_RELU":
        x = x + 0.5       # away from relu's kink, where finite differences disagree
    args, bs = layer_args(device, p, x, h0, c0, T.float64, sizes, packed, grad=True)
    fn, inputs = layer_fn(args, bs, mode, reverse)
    assert gradcheck(fn, inputs)
    if mode != "RNN_RELU":  # the backward op's own derivative, on the device
        assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", list(MODES))
def test_zero_batch_and_empty_steps(device, mode):
    """No rows at all, and packed steps of zero rows: states pass through, and
    the weight gradients of an empty batch are zeros."""
    rng = np.random.default_rng(5)
    for sizes, packed in (((0, 0, 0), False), ((2, 1, 0, 0), True), ((), True)):
        p, x, h0, c0 = make_case(rng, mode, sizes=sizes)
        if not sizes:
            h0 = np.zeros((0, h0.shape[1]))
            c0 = None if c0 is None else np.zeros((0, c0.shape[1]))
        args, bs = layer_args(device, p, x, h0, c0, T.float64, sizes or (0,), packed, grad=True)
        if not sizes:
            bs = T.tensor([], dtype=T.int64)
        out, hy, cy, ws = C._rnn_layer(*args, bs, MODES[mode], False)
        ref, rh, rc = np_layer(mode, x, sizes, h0, c0, p, False)
        close(out.reshape(ref.shape), ref, T.float64)
        close(hy, rh, T.float64)
        (out.sum() + hy.sum() + (cy.sum() if cy is not None else 0)).backward()
        assert np.all(host(args[3].grad) == 0) == (sum(sizes) == 0)
        assert args[3].grad.device.type == T.device(device).type


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind,kw", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                     ("LSTM", {"proj_size": 2, "batch_first": True}),
                                     ("GRU", {"bidirectional": True}),
                                     ("RNN", {"nonlinearity": "relu", "num_layers": 2})])
def test_modules_match_the_cpu(device, kind, kw):
    """nn.LSTM/GRU/RNN on the device (packed, unsorted lengths; a
    non-contiguous input) against the same module on the CPU."""
    T.manual_seed(0)
    cpu = getattr(T.nn, kind)(3, 4, **kw).double()
    dev = getattr(T.nn, kind)(3, 4, **kw).double()
    dev.load_state_dict(cpu.state_dict())
    dev.to(device)
    rng = np.random.default_rng(9)
    first = kw.get("batch_first", False)
    xa = rng.standard_normal((5, 3, 3))                  # (L, N, I)
    xa_in = xa.transpose(1, 0, 2) if first else xa
    results = []
    for m, d in ((cpu, "cpu"), (dev, device)):
        x = strided(T.tensor(xa_in).to(d)).requires_grad_()
        out, state = m(x)
        lengths = [5, 2, 4]
        packed = T.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=first,
                                                     enforce_sorted=False)
        pout, _ = m(packed)
        padded, _ = T.nn.utils.rnn.pad_packed_sequence(pout, batch_first=first)
        state = state if isinstance(state, tuple) else (state,)
        (out.sum() + sum(s.sum() for s in state) + (padded * 0.5).sum()).backward()
        results.append((out, state, padded, x.grad, [q.grad for q in m.parameters()]))
    (o1, s1, p1, g1, w1), (o2, s2, p2, g2, w2) = results
    assert o2.device.type == T.device(device).type
    close(o2, o1, T.float64)
    for a, b in zip(s2, s1):
        close(a, b, T.float64)
    close(p2, p1, T.float64)
    close(g2, g1, T.float64)
    for a, b in zip(w2, w1):
        close(a, b, T.float64)


# ---- the device paths, emulated --------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """Every device-parametrised test above, on the fake device running the
    device-neutral driver on the CPU's primitives, in a process of its own."""
    run_emulated(__file__)
