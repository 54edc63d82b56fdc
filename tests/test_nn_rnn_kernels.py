"""The fused recurrent cells of src/nn/rnn (LSTM, GRU, RNN tanh/relu) and the
RNN/LSTM/GRU modules and cells that run on them.

Values against NumPy references over dtypes, with and without biases, 0-size
batches and non-contiguous inputs; gradients and second derivatives by
finite differences (double backward goes through the composed formulas);
the backward ops against their formulas; errors; the layers (multi-layer,
bidirectional, batch_first, proj_size, packed) against a NumPy layer loop;
and the kernels on the fake device."""

import numpy as np
import pytest

import torchlike as T
from torchlike import _C as C
from torchlike.autograd import gradcheck, gradgradcheck
from torchlike.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from nn_fake_device import run_on_fake_device

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "_fused_rnn_cell"}

TOL = {T.float64: 1e-12, T.float32: 2e-6, T.float16: 4e-3, T.bfloat16: 3e-2}


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_lstm_cell(ig, hg, cx, bi, bh):
    pre = ig + hg + (0 if bi is None else bi) + (0 if bh is None else bh)
    i, f, g, o = np.split(pre, 4, 1)
    i, f, g, o = sig(i), sig(f), np.tanh(g), sig(o)
    cy = f * cx + i * g
    return o * np.tanh(cy), cy, np.concatenate([i, f, g, o], 1)


def np_gru_cell(ig, hg, hx, bi, bh):
    ig = ig + (0 if bi is None else bi)
    hg = hg + (0 if bh is None else bh)
    ir, iz, i_n = np.split(ig, 3, 1)
    hr, hz, hn = np.split(hg, 3, 1)
    r, z = sig(ir + hr), sig(iz + hz)
    n = np.tanh(i_n + r * hn)
    return n + z * (hx - n), np.concatenate([r, z, n, hx, hn], 1)


def np_rnn_cell(ig, hg, bi, bh, relu):
    pre = ig + hg + (0 if bi is None else bi) + (0 if bh is None else bh)
    return np.maximum(pre, 0) if relu else np.tanh(pre)


def f64(t):
    return t.double().cpu().numpy()


def make(rng, dtype, *shapes):
    return [T.tensor(rng.standard_normal(s), dtype=dtype) for s in shapes]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("n,h", [(3, 5), (0, 4), (1, 1), (17, 33)])
def test_cells_match_numpy(n, h, dtype, bias):
    rng = np.random.default_rng(n * 100 + h)
    ig, hg, cx = make(rng, dtype, (n, 4 * h), (n, 4 * h), (n, h))
    bi, bh = make(rng, dtype, (4 * h,), (4 * h,)) if bias else (None, None)
    ref = np_lstm_cell(f64(ig), f64(hg), f64(cx), bi is not None and f64(bi) or None,
                       bh is not None and f64(bh) or None) if not bias else \
        np_lstm_cell(f64(ig), f64(hg), f64(cx), f64(bi), f64(bh))
    got = C._thnn_fused_lstm_cell(ig, hg, cx, bi, bh)
    for g, r in zip(got, ref):
        assert g.dtype == dtype and tuple(g.shape) == r.shape
        np.testing.assert_allclose(f64(g), r, rtol=TOL[dtype], atol=TOL[dtype])
    ig3, hg3, hx = make(rng, dtype, (n, 3 * h), (n, 3 * h), (n, h))
    bi3, bh3 = make(rng, dtype, (3 * h,), (3 * h,)) if bias else (None, None)
    ref = np_gru_cell(f64(ig3), f64(hg3), f64(hx), f64(bi3) if bias else None,
                      f64(bh3) if bias else None)
    for g, r in zip(C._thnn_fused_gru_cell(ig3, hg3, hx, bi3, bh3), ref):
        np.testing.assert_allclose(f64(g), r, rtol=TOL[dtype], atol=TOL[dtype])
    for relu in (False, True):
        ref = np_rnn_cell(f64(hx), f64(cx), f64(bi3[:h]) if bias else None, None, relu)
        got = C._fused_rnn_cell(hx, cx, bi3[:h] if bias else None, None, relu)
        np.testing.assert_allclose(f64(got), ref, rtol=TOL[dtype], atol=TOL[dtype])


def test_non_contiguous_inputs():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((8, 6))           # transposed: (6, 8) views, H = 2
    cxb = rng.standard_normal((2, 6))
    ig, hg = T.tensor(base).t(), T.tensor(base[::-1].copy()).t()
    cx = T.tensor(cxb).t()
    assert not ig.is_contiguous() and not cx.is_contiguous()
    got = C._thnn_fused_lstm_cell(ig, hg, cx)
    ref = np_lstm_cell(base.T, base[::-1].T, cxb.T, None, None)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.cpu().numpy(), r, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell_gradients(bias):
    rng = np.random.default_rng(2)
    n, h = 3, 2
    args = [T.tensor(rng.standard_normal(s), requires_grad=True)
            for s in ((n, 4 * h), (n, 4 * h), (n, h), (4 * h,), (4 * h,))]
    if not bias:
        args = args[:3] + [None, None]
    fn = lambda *a: C._thnn_fused_lstm_cell(*a)[:2]   # noqa: E731
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)
    # only one of the outputs used: the other's gradient is zero
    assert gradcheck(lambda *a: C._thnn_fused_lstm_cell(*a)[1], args)


@pytest.mark.parametrize("bias", [True, False])
def test_gru_and_rnn_cell_gradients(bias):
    rng = np.random.default_rng(3)
    n, h = 3, 2
    args = [T.tensor(rng.standard_normal(s), requires_grad=True)
            for s in ((n, 3 * h), (n, 3 * h), (n, h), (3 * h,), (3 * h,))]
    if not bias:
        args = args[:3] + [None, None]
    fn = lambda *a: C._thnn_fused_gru_cell(*a)[0]   # noqa: E731
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)
    for relu in (False, True):
        x = [T.tensor(rng.standard_normal(s) + 0.3, requires_grad=True) for s in ((n, h), (n, h), (h,))]
        fr = lambda a, b, c: C._fused_rnn_cell(a, b, c if bias else None, None, relu)  # noqa: E731
        assert gradcheck(fr, x)
        assert gradgradcheck(fr, x)


def test_backward_ops_match_their_formulas():
    rng = np.random.default_rng(4)
    n, h = 4, 3
    ig, hg, cx = (rng.standard_normal(s) for s in ((n, 4 * h), (n, 4 * h), (n, h)))
    hy, cy, ws = np_lstm_cell(ig, hg, cx, None, None)
    ghy, gcy = rng.standard_normal((n, h)), rng.standard_normal((n, h))
    gg, gcx, gb = C._thnn_fused_lstm_cell_backward_impl(T.tensor(ghy), T.tensor(gcy), T.tensor(cx),
                                                        T.tensor(cy), T.tensor(ws), True)
    i, f, g, o = np.split(ws, 4, 1)
    tc = np.tanh(cy)
    gc = gcy + ghy * o * (1 - tc ** 2)
    ref = np.concatenate([gc * g * i * (1 - i), gc * cx * f * (1 - f), gc * i * (1 - g * g),
                          ghy * tc * o * (1 - o)], 1)
    np.testing.assert_allclose(gg.cpu().numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(gcx.cpu().numpy(), gc * f, rtol=1e-12)
    np.testing.assert_allclose(gb.cpu().numpy(), ref.sum(0), rtol=1e-12)
    # an absent gradient counts as zeros; no bias: no bias gradient
    gg0, _, none = C._thnn_fused_lstm_cell_backward_impl(None, T.tensor(gcy), T.tensor(cx),
                                                         T.tensor(cy), T.tensor(ws), False)
    assert none is None
    gc0 = gcy
    np.testing.assert_allclose(gg0.cpu().numpy()[:, 3 * h:], 0 * ref[:, 3 * h:], atol=0)
    np.testing.assert_allclose(gg0.cpu().numpy()[:, :h], (gc0 * g * i * (1 - i)), rtol=1e-12)
    # GRU
    ig3, hg3, hx = rng.standard_normal((n, 3 * h)), rng.standard_normal((n, 3 * h)), \
        rng.standard_normal((n, h))
    hy, ws = np_gru_cell(ig3, hg3, hx, None, None)
    g = rng.standard_normal((n, h))
    gi, gh, ghx, gbi, gbh = C._thnn_fused_gru_cell_backward(T.tensor(g), T.tensor(ws), True)
    r, z, nn_, hx_, hn = np.split(ws, 5, 1)
    gn = g * (1 - z) * (1 - nn_ ** 2)
    gz = g * (hx - nn_) * z * (1 - z)
    gr = gn * hn * r * (1 - r)
    np.testing.assert_allclose(gi.cpu().numpy(), np.concatenate([gr, gz, gn], 1), rtol=1e-12)
    np.testing.assert_allclose(gh.cpu().numpy(), np.concatenate([gr, gz, gn * r], 1), rtol=1e-12)
    np.testing.assert_allclose(ghx.cpu().numpy(), g * z, rtol=1e-12)
    np.testing.assert_allclose(gbi.cpu().numpy(), gi.cpu().numpy().sum(0), rtol=1e-12)
    np.testing.assert_allclose(gbh.cpu().numpy(), gh.cpu().numpy().sum(0), rtol=1e-12)


def test_errors_name_the_shapes():
    with pytest.raises(RuntimeError, match=r"expected input_gates of shape \[N, 4 \* H\], got \[3, 6\]"):
        C._thnn_fused_lstm_cell(T.randn(3, 6), T.randn(3, 6), T.randn(3, 1))
    with pytest.raises(RuntimeError, match=r"hidden_gates of shape \[2, 8\] does not match "
                                           r"input_gates of shape \[3, 8\]"):
        C._thnn_fused_lstm_cell(T.randn(3, 8), T.randn(2, 8), T.randn(3, 2))
    with pytest.raises(RuntimeError, match=r"expected cx of shape \[3, 2\], got \[3, 3\]"):
        C._thnn_fused_lstm_cell(T.randn(3, 8), T.randn(3, 8), T.randn(3, 3))
    with pytest.raises(RuntimeError, match=r"expected hidden_bias of shape \[6\], got \[5\]"):
        C._thnn_fused_gru_cell(T.randn(3, 6), T.randn(3, 6), T.randn(3, 2), None, T.randn(5))
    with pytest.raises(RuntimeError, match="expected a floating point input_gates, got int64"):
        C._fused_rnn_cell(T.tensor([[1, 2]]), T.tensor([[1, 2]]))
    with pytest.raises(RuntimeError, match="expected hx to have dtype float32, got float64"):
        C._thnn_fused_gru_cell(T.randn(3, 6), T.randn(3, 6), T.randn(3, 2, dtype=T.float64))


# ---- the layers ------------------------------------------------------------------------

def np_layer(mode, x, h0, c0, p, reverse, lengths=None):
    """One direction of one layer: x (L, N, in) -> outputs (L, N, out), h, c."""
    L = x.shape[0]
    h, c = h0, c0
    outs = np.zeros((L, x.shape[1], h0.shape[1]))
    steps = range(L - 1, -1, -1) if reverse else range(L)
    for t in steps:
        ig = x[t] @ p["w_ih"].T + p.get("b_ih", 0)
        hg = h @ p["w_hh"].T
        if mode == "LSTM":
            hn, cn, _ = np_lstm_cell(ig, hg, c, None, p.get("b_hh"))
            if "w_hr" in p:
                hn = hn @ p["w_hr"].T
        elif mode == "GRU":
            hn, _ = np_gru_cell(ig, hg, h, None, p.get("b_hh"))
            cn = c
        else:
            hn, cn = np_rnn_cell(ig, hg, None, p.get("b_hh"), mode == "RNN_RELU"), c
        if lengths is not None:
            run = (t < np.asarray(lengths))[:, None]
            h, c = np.where(run, hn, h), np.where(run, cn, c)
            outs[t] = np.where(run, hn, 0)
        else:
            h, c = hn, cn
            outs[t] = hn
    return outs, h, c


def np_module(m, x, lengths=None):
    D = 2 if m.bidirectional else 1
    out = m.proj_size or m.hidden_size
    N = x.shape[1]
    hs, cs = [], []
    for layer in range(m.num_layers):
        dirs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            p = {k: getattr(m, k + sfx).detach().double().cpu().numpy()
                 for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
                 if getattr(m, k + sfx, None) is not None}
            p = {{"weight_ih": "w_ih", "weight_hh": "w_hh", "bias_ih": "b_ih", "bias_hh": "b_hh",
                  "weight_hr": "w_hr"}[k]: v for k, v in p.items()}
            o, h, c = np_layer(m.mode, x, np.zeros((N, out)), np.zeros((N, m.hidden_size)), p,
                               d == 1, lengths)
            dirs.append(o)
            hs.append(h)
            cs.append(c)
        x = np.concatenate(dirs, 2)
    return x, np.stack(hs), np.stack(cs)


@pytest.mark.parametrize("kind,kw", [
    ("LSTM", dict(num_layers=2)), ("LSTM", dict(bidirectional=True, proj_size=2)),
    ("LSTM", dict(batch_first=True, bias=False)), ("GRU", dict(num_layers=2, bidirectional=True)),
    ("RNN", dict(nonlinearity="relu")), ("RNN", dict(num_layers=2, batch_first=True)),
])
def test_layers_match_a_numpy_loop(kind, kw):
    T.manual_seed(0)
    m = getattr(T.nn, kind)(3, 4, dtype=T.float64, **kw)
    x = np.random.default_rng(5).standard_normal((6, 2, 3))
    xin = T.tensor(x.transpose(1, 0, 2) if m.batch_first else x)
    with T.no_grad():
        out, state = m(xin)
    ref, h, c = np_module(m, x)
    got = out.cpu().numpy().transpose(1, 0, 2) if m.batch_first else out.cpu().numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    hn = state[0] if kind == "LSTM" else state
    np.testing.assert_allclose(hn.cpu().numpy(), h, rtol=1e-10, atol=1e-12)
    if kind == "LSTM":
        np.testing.assert_allclose(state[1].cpu().numpy(), c, rtol=1e-10, atol=1e-12)


def test_packed_sequences_stop_each_sequence_at_its_length():
    T.manual_seed(1)
    m = T.nn.LSTM(3, 4, bidirectional=True, dtype=T.float64)
    x = np.random.default_rng(6).standard_normal((5, 3, 3))
    lengths = [5, 2, 4]
    packed = pack_padded_sequence(T.tensor(x), T.tensor(lengths), enforce_sorted=False)
    with T.no_grad():
        out, (h, c) = m(packed)
    padded, lens = pad_packed_sequence(out)
    assert lens.tolist() == lengths
    ref, rh, rc = np_module(m, x, lengths)
    # the reverse direction starts at each sequence's own last element
    for n, ln in enumerate(lengths):
        xr = x[:ln, n:n + 1]
        r1, h1, _ = np_module(m, xr)
        np.testing.assert_allclose(padded.cpu().numpy()[:ln, n], r1[:, 0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(h.cpu().numpy()[:, n], h1[:, 0], rtol=1e-10, atol=1e-12)
    assert np.all(padded.cpu().numpy()[2:, 1] == 0)


def test_layer_gradients_and_zero_batch():
    T.manual_seed(2)
    for kind in ("LSTM", "GRU", "RNN"):
        m = getattr(T.nn, kind)(2, 3, num_layers=2, bidirectional=True, dtype=T.float64)
        x = T.tensor(np.random.default_rng(7).standard_normal((4, 2, 2)), requires_grad=True)
        assert gradcheck(lambda a: m(a)[0], (x,))
        out, _ = m(T.zeros(4, 0, 2, dtype=T.float64))
        assert tuple(out.shape) == (4, 0, 6)
    # the LSTM layer node: double backward re-runs the layer on the tape
    m = T.nn.LSTM(2, 2, bidirectional=True, dtype=T.float64)
    x = T.tensor(np.random.default_rng(11).standard_normal((3, 2, 2)), requires_grad=True)
    h0 = T.tensor(np.random.default_rng(12).standard_normal((2, 2, 2)), requires_grad=True)
    assert gradgradcheck(lambda a, b: m(a, (b, b * 0.5))[0], (x, h0))
    assert gradcheck(lambda a, b: m(a, (b, b))[1][1], (x, h0))
    # no time steps: PyTorch's module refuses them (the layer op itself runs
    # them, tests/test_nn_rnn_layer.py)
    with pytest.raises(RuntimeError, match="^Expected sequence length to be larger than 0 in RNN$"):
        m(T.zeros(0, 2, 2, dtype=T.float64))
    cell = T.nn.LSTMCell(2, 3, dtype=T.float64)
    x = T.tensor(np.random.default_rng(8).standard_normal((2, 2)), requires_grad=True)
    assert gradgradcheck(lambda a: cell(a)[0], (x,))


def test_cells_modules_use_pytorch_gate_order():
    """Gate blocks: LSTM i f g o, GRU r z n (b_hn inside r *), checked by a NumPy step."""
    T.manual_seed(3)
    x = np.random.default_rng(9).standard_normal((2, 3))
    for cls in (T.nn.LSTMCell, T.nn.GRUCell, T.nn.RNNCell):
        cell = cls(3, 4, dtype=T.float64)
        w = {k: v.detach().cpu().numpy() for k, v in cell.named_parameters()}
        h0 = np.random.default_rng(10).standard_normal((2, 4))
        ig, hg = x @ w["weight_ih"].T, h0 @ w["weight_hh"].T
        if cls is T.nn.LSTMCell:
            c0 = h0[::-1].copy()
            with T.no_grad():
                hy, cy = cell(T.tensor(x), (T.tensor(h0), T.tensor(c0)))
            r = np_lstm_cell(ig, hg, c0, w["bias_ih"], w["bias_hh"])
            np.testing.assert_allclose(cy.cpu().numpy(), r[1], rtol=1e-12)
        elif cls is T.nn.GRUCell:
            with T.no_grad():
                hy = cell(T.tensor(x), T.tensor(h0))
            r = np_gru_cell(ig, hg, h0, w["bias_ih"], w["bias_hh"])
        else:
            with T.no_grad():
                hy = cell(T.tensor(x), T.tensor(h0))
            r = (np_rnn_cell(ig, hg, w["bias_ih"], w["bias_hh"], False),)
        np.testing.assert_allclose(hy.cpu().numpy(), r[0], rtol=1e-12)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernels():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        C = T._C
        C._fake_enable()
        ig = T.randn(2, 8).to("fake")
        try:
            C._thnn_fused_lstm_cell(ig, ig, T.randn(2, 2).to("fake"))
        except NotImplementedError as e:
            assert "_thnn_fused_lstm_cell(): no kernel for device fake:0" in str(e), e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        ig, hg, cx = (T.randn(*s).to("fake") for s in ((2, 8), (2, 8), (2, 2)))
        out = C._thnn_fused_lstm_cell(ig, hg, cx)
        ref = C._thnn_fused_lstm_cell(ig.cpu(), hg.cpu(), cx.cpu())
        for a, b in zip(out, ref):
            assert str(a.device) == "fake:0"
            np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
        m = T.nn.GRU(3, 2)
        m.to("fake")
        x = T.randn(4, 2, 3).to("fake").requires_grad_()
        m(x)[0].sum().backward()
        assert str(x.grad.device) == "fake:0"
        print("ok")
    """)
