"""The layer op of src/nn/rnn (_rnn_layer: one direction of one LSTM, GRU or
RNN tanh/relu layer over a whole sequence, and _rnn_layer_backward) and the
modules that stack it.

Values against a NumPy layer loop written here (gate order i f g o for LSTM,
r z n for GRU with n = tanh(W_in x + b_in + r (W_hn h + b_hn))), over modes,
projections, packed batch sizes, directions, dtypes and empty sizes;
gradients by finite differences (gradcheck, and gradgradcheck through the
taped re-run that create_graph uses); PyTorch's own results recorded by
scripts/golden_rnn.py (tests/golden/nn_rnn); errors."""
import json
import os
import zlib

import numpy as np
import pytest

import torchlike as T
from torchlike import _C as C
from torchlike.autograd import gradcheck, gradgradcheck
from torchlike.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_rnn_layer"}

MODES = {"LSTM": 0, "GRU": 1, "RNN_TANH": 2, "RNN_RELU": 3}
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "nn_rnn")


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_layer(mode, x, sizes, h0, c0, p, reverse):
    """x: (R, I) rows, step t's sizes[t] rows after those of the steps before.
    Returns the (R, P) outputs and the final h (N, P) and c (N, H)."""
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    h, c = h0.copy(), None if c0 is None else c0.copy()
    out = np.zeros((x.shape[0], h0.shape[1]))
    b_ih = p.get("b_ih", 0)
    b_hh = p.get("b_hh", np.zeros(p["w_hh"].shape[0]))
    for t in (range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))):
        n, rows = sizes[t], slice(offs[t], offs[t + 1])
        gi = x[rows] @ p["w_ih"].T + b_ih
        gh = h[:n] @ p["w_hh"].T + b_hh
        if mode == "LSTM":
            i, f, g, o = np.split(gi + gh, 4, 1)
            c[:n] = sig(f) * c[:n] + sig(i) * np.tanh(g)
            hn = sig(o) * np.tanh(c[:n])
            if "w_hr" in p:
                hn = hn @ p["w_hr"].T
        elif mode == "GRU":
            ir, iz, i_n = np.split(gi, 3, 1)
            hr, hz, h_n = np.split(gh, 3, 1)
            r, z = sig(ir + hr), sig(iz + hz)
            new = np.tanh(i_n + r * h_n)
            hn = (1 - z) * new + z * h[:n]
        else:
            pre = gi + gh
            hn = np.maximum(pre, 0) if mode == "RNN_RELU" else np.tanh(pre)
        h[:n] = hn
        out[rows] = hn
    return out, h, c


def make_case(rng, mode, I=3, H=4, P=None, sizes=(3, 3, 2, 1, 1), bias=True):
    G = GATES[mode] * H
    P = P or H
    N = sizes[0] if sizes else 2
    p = {"w_ih": rng.standard_normal((G, I)) * 0.5, "w_hh": rng.standard_normal((G, P)) * 0.5}
    if bias:
        p["b_ih"], p["b_hh"] = rng.standard_normal(G) * 0.5, rng.standard_normal(G) * 0.5
    if P != H:
        p["w_hr"] = rng.standard_normal((P, H)) * 0.5
    x = rng.standard_normal((int(sum(sizes)), I))
    h0 = rng.standard_normal((N, P))
    c0 = rng.standard_normal((N, H)) if mode == "LSTM" else None
    return p, x, h0, c0


def op_args(p, x, h0, c0, dtype, packed_sizes, L=None, N=None, requires_grad=False):
    """The _rnn_layer arguments as tensors; unpacked when packed_sizes is None
    (x then reshaped to (L, N, I))."""
    t = lambda a: None if a is None else T.tensor(a, dtype=dtype, requires_grad=requires_grad)  # noqa: E731
    xin = x if packed_sizes is not None else x.reshape(L, N, x.shape[1])
    # batch_sizes is a host buffer (as PyTorch's), whatever the default device
    bs = None if packed_sizes is None else T.tensor(list(packed_sizes), dtype=T.int64,
                                                    device="cpu")
    return [t(xin), t(h0), t(c0), t(p["w_ih"]), t(p["w_hh"]), t(p.get("b_ih")), t(p.get("b_hh")),
            t(p.get("w_hr"))], bs


@pytest.mark.parametrize("dtype,tol", [(T.float64, 1e-12), (T.float32, 2e-5)])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("mode,proj,bias", [
    ("LSTM", None, True), ("LSTM", 2, True), ("LSTM", 2, False), ("GRU", None, True),
    ("GRU", None, False), ("RNN_TANH", None, True), ("RNN_RELU", None, False)])
def test_layer_op_matches_numpy(mode, proj, bias, packed, reverse, dtype, tol):
    rng = np.random.default_rng(zlib.crc32(repr((mode, proj, bias, packed, reverse)).encode()))
    sizes = (3, 3, 2, 1, 1) if packed else (3,) * 4
    p, x, h0, c0 = make_case(rng, mode, P=proj, sizes=sizes, bias=bias)
    args, bs = op_args(p, x, h0, c0, dtype, sizes if packed else None, L=len(sizes), N=3)
    out, hy, cy, ws = C._rnn_layer(*args, bs, MODES[mode], reverse)
    ref, rh, rc = np_layer(mode, x, sizes, h0, c0, p, reverse)
    assert out.dtype == dtype and hy.dtype == dtype
    got = out.double().cpu().numpy()
    np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=tol, atol=tol)
    assert tuple(out.shape) == ((sum(sizes), ref.shape[1]) if packed else (4, 3, ref.shape[1]))
    np.testing.assert_allclose(hy.double().cpu().numpy(), rh, rtol=tol, atol=tol)
    if mode == "LSTM":
        np.testing.assert_allclose(cy.double().cpu().numpy(), rc, rtol=tol, atol=tol)
    else:
        assert cy is None


@pytest.mark.parametrize("dtype,tol", [(T.float64, 1e-12), (T.float32, 2e-5)])
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("keep", ["b_ih", "b_hh"])
def test_layer_op_with_one_bias(mode, keep, dtype, tol):
    # the LSTM folds the biases into its input gates' rows: either alone must count
    rng = np.random.default_rng(zlib.crc32(repr((mode, keep)).encode()))
    sizes = (3, 3, 2, 1)
    p, x, h0, c0 = make_case(rng, mode, sizes=sizes)
    del p["b_hh" if keep == "b_ih" else "b_ih"]
    args, bs = op_args(p, x, h0, c0, dtype, sizes)
    out, hy, cy, _ = C._rnn_layer(*args, bs, MODES[mode], False)
    ref, rh, rc = np_layer(mode, x, sizes, h0, c0, p, False)
    np.testing.assert_allclose(out.double().cpu().numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(hy.double().cpu().numpy(), rh, rtol=tol, atol=tol)
    if mode == "LSTM":
        np.testing.assert_allclose(cy.double().cpu().numpy(), rc, rtol=tol, atol=tol)


def test_packed_rows_are_the_padded_sequences():
    """A packed layer equals each sequence run alone, in both directions."""
    rng = np.random.default_rng(1)
    sizes = (3, 2, 2, 1)      # lengths 4, 3, 1
    lengths = [4, 3, 1]
    for mode in MODES:
        p, x, h0, c0 = make_case(rng, mode, sizes=sizes, P=2 if mode == "LSTM" else None)
        offs = np.concatenate([[0], np.cumsum(sizes)])
        for reverse in (False, True):
            args, bs = op_args(p, x, h0, c0, T.float64, sizes)
            out, hy, cy, _ = C._rnn_layer(*args, bs, MODES[mode], reverse)
            for b, ln in enumerate(lengths):
                xs = np.stack([x[offs[t] + b] for t in range(ln)])
                a1, _ = op_args(p, xs, h0[b:b + 1], None if c0 is None else c0[b:b + 1],
                                T.float64, None, L=ln, N=1)
                o1, h1, c1, _ = C._rnn_layer(*a1, None, MODES[mode], reverse)
                got = np.stack([out.cpu().numpy()[offs[t] + b] for t in range(ln)])
                np.testing.assert_allclose(got, o1.cpu().numpy()[:, 0], rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(hy.cpu().numpy()[b], h1.cpu().numpy()[0], rtol=1e-12, atol=1e-12)
                if c1 is not None:
                    np.testing.assert_allclose(cy.cpu().numpy()[b], c1.cpu().numpy()[0], rtol=1e-12)


@pytest.mark.parametrize("dtype,tol", [(T.float64, 1e-12), (T.float32, 2e-5)])
@pytest.mark.parametrize("packed,reverse", [(False, False), (True, True)])
@pytest.mark.parametrize("mode", list(MODES))
def test_steps_split_by_units_across_threads(mode, packed, reverse, dtype, tol):
    """With threads, a step of H >= 32 runs as blocks of units (H = 40: blocks
    of 16, 16 and 8 on 2 threads), each its own columns of the step's GEMM and
    its cell, and the products over all rows as blocks of rows (60 rows: 4
    blocks): values and gradients equal the one-block run on one thread (which
    gradcheck checks above), and the forward equals the NumPy loop."""
    rng = np.random.default_rng(zlib.crc32(repr((mode, packed, reverse)).encode()))
    sizes = (20, 20, 15, 10, 5) if packed else (20,) * 3
    p, x, h0, c0 = make_case(rng, mode, I=6, H=40, sizes=sizes)
    p = {k: v * 0.3 for k, v in p.items()}      # keep the gates off saturation

    def run(threads):
        saved = T.get_num_threads()
        T.set_num_threads(threads)
        try:
            args, bs = op_args(p, x, h0, c0, dtype, sizes if packed else None, L=len(sizes),
                               N=sizes[0], requires_grad=True)
            out, hy, cy, _ = C._rnn_layer(*args, bs, MODES[mode], reverse)
            w = T.tensor(rng.standard_normal(tuple(out.shape)), dtype=dtype)
            loss = (out * w).sum() + (hy * hy).sum() + (cy.sum() if cy is not None else 0)
            loss.backward()
            return [t.detach() for t in [out, hy] + ([cy] if cy is not None else [])] + \
                [a.grad for a in args if a is not None]
        finally:
            T.set_num_threads(saved)
    state = rng.bit_generator.state
    one = run(1)
    rng.bit_generator.state = state            # the same output weights
    two = run(2)
    for a, b in zip(one, two):
        np.testing.assert_allclose(b.double().cpu().numpy(), a.double().cpu().numpy(), rtol=tol, atol=tol)
    ref, rh, _ = np_layer(mode, x, sizes, h0, c0, p, reverse)
    np.testing.assert_allclose(two[0].double().cpu().numpy().reshape(ref.shape), ref, rtol=tol,
                               atol=tol)
    np.testing.assert_allclose(two[1].double().cpu().numpy(), rh, rtol=tol, atol=tol)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode,packed,reverse", [
    ("LSTM", True, False), ("LSTM", False, True), ("GRU", True, True),
    ("RNN_TANH", False, False)])
def test_products_cut_into_tiles(mode, packed, reverse, threads):
    """Sizes whose step products run as tiles BLAS does not pack
    (tl_linalg_gemm_tiles: K >= 128): I = 130 and P = H = 136, so the
    forward's products have K of 130 and 136 and the backward's K = G, cut
    at 256; batches of 40 rows (two row tiles, the second partial) and
    blocks of 48 and 40 units (partial column tiles).  Values against the
    NumPy loop, and the gradients of every input along a random direction
    against a central difference, in float64."""
    rng = np.random.default_rng(zlib.crc32(repr((mode, packed, reverse)).encode()))
    sizes = (40, 40, 33, 20, 7) if packed else (40,) * 4
    p, x, h0, c0 = make_case(rng, mode, I=130, H=136, sizes=sizes)
    p = {k: v * 0.1 for k, v in p.items()}      # keep the gates off saturation
    names = ["x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh"]
    base = dict(zip(names, [x, h0, c0, p["w_ih"], p["w_hh"], p["b_ih"], p["b_hh"]]))
    base = {k: v for k, v in base.items() if v is not None}
    wout = rng.standard_normal((int(sum(sizes)), 136))
    wh = rng.standard_normal(h0.shape)

    def loss(vals, grad=False):
        q = {"w_ih": vals["w_ih"], "w_hh": vals["w_hh"], "b_ih": vals["b_ih"],
             "b_hh": vals["b_hh"]}
        args, bs = op_args(q, vals["x"], vals["h0"], vals.get("c0"), T.float64,
                           sizes if packed else None, L=len(sizes), N=sizes[0],
                           requires_grad=grad)
        out, hy, cy, _ = C._rnn_layer(*args, bs, MODES[mode], reverse)
        total = (out.reshape(wout.shape) * T.tensor(wout)).sum() + (hy * T.tensor(wh)).sum()
        if cy is not None:
            total = total + cy.sum()
        return total, out, hy, args

    saved = T.get_num_threads()
    T.set_num_threads(threads)
    try:
        total, out, hy, args = loss(base, grad=True)
        total.backward()
        grads = {n: a.grad.double().cpu().numpy().reshape(base[n].shape)
                 for n, a in zip(names, args) if a is not None}
        ref, rh, _ = np_layer(mode, x, sizes, h0, c0, p, reverse)
        np.testing.assert_allclose(out.detach().cpu().numpy().reshape(ref.shape), ref, rtol=1e-11,
                                   atol=1e-11)
        np.testing.assert_allclose(hy.detach().cpu().numpy(), rh, rtol=1e-11, atol=1e-11)
        eps = 1e-6
        direction = {n: rng.standard_normal(v.shape) for n, v in base.items()}
        plus = loss({n: v + eps * direction[n] for n, v in base.items()})[0].item()
        minus = loss({n: v - eps * direction[n] for n, v in base.items()})[0].item()
        slope = sum(float((grads[n] * direction[n]).sum()) for n in base)
        assert abs((plus - minus) / (2 * eps) - slope) <= 1e-6 * max(1.0, abs(slope))
    finally:
        T.set_num_threads(saved)


@pytest.mark.parametrize("mode", list(MODES))
def test_empty_sequences_and_batches(mode):
    rng = np.random.default_rng(2)
    p, _, _, _ = make_case(rng, mode, sizes=(2,))
    H, G = 4, GATES[mode] * 4
    for L, N in ((0, 2), (3, 0)):
        x = rng.standard_normal((L * N, 3))
        h0 = rng.standard_normal((N, 4))
        c0 = rng.standard_normal((N, 4)) if mode == "LSTM" else None
        args, _ = op_args(p, x, h0, c0, T.float64, None, L=L, N=N, requires_grad=True)
        out, hy, cy, _ = C._rnn_layer(*args, None, MODES[mode], False)
        assert tuple(out.shape) == (L, N, 4) and tuple(hy.shape) == (N, 4)
        np.testing.assert_array_equal(hy.detach().cpu().numpy(), h0)    # no step: the state stays
        (out.sum() + hy.sum() + (cy.sum() if cy is not None else 0)).backward()
        assert tuple(args[3].grad.shape) == (G, 3)
        np.testing.assert_array_equal(args[3].grad.cpu().numpy(), np.zeros((G, 3)))
        np.testing.assert_array_equal(args[1].grad.cpu().numpy(), np.ones((N, H)))
    # an empty packed sequence
    args, _ = op_args(p, np.zeros((0, 3)), np.zeros((0, 4)),
                      np.zeros((0, 4)) if mode == "LSTM" else None, T.float64, ())
    out, hy, _, _ = C._rnn_layer(*args, T.zeros(0, dtype=T.int64, device="cpu"), MODES[mode], True)
    assert tuple(out.shape) == (0, 4) and tuple(hy.shape) == (0, 4)


def layer_fn(args, bs, mode, reverse):
    """(fn, inputs): _rnn_layer's outputs (out, hy[, cy]) as a function of the
    given (not None) of its 8 tensor arguments, for gradcheck."""
    where = [i for i, a in enumerate(args) if a is not None]

    def fn(*given):
        full = [None] * 8
        for i, a in zip(where, given):
            full[i] = a
        out, hy, cy, _ = C._rnn_layer(*full, bs, MODES[mode], reverse)
        return (out, hy) + ((cy,) if cy is not None else ())
    return fn, [args[i] for i in where]


@pytest.mark.parametrize("mode,proj,packed,reverse", [
    ("LSTM", None, False, False), ("LSTM", 2, True, True), ("GRU", None, True, False),
    ("GRU", None, False, True), ("RNN_TANH", None, True, True), ("RNN_RELU", None, False, False)])
def test_layer_gradients(mode, proj, packed, reverse):
    rng = np.random.default_rng(3)
    sizes = (3, 2, 2, 1) if packed else (2, 2, 2)
    p, x, h0, c0 = make_case(rng, mode, I=2, H=3, P=proj, sizes=sizes)
    if mode == "RNN_RELU":
        x = x + 0.5       # away from relu's kink, where finite differences disagree
    args, bs = op_args(p, x, h0, c0, T.float64, sizes if packed else None, L=len(sizes),
                       N=sizes[0], requires_grad=True)
    fn, present = layer_fn(args, bs, mode, reverse)
    assert gradcheck(fn, present)
    if mode != "RNN_RELU":
        assert gradgradcheck(fn, present)
    # one output only: the others' gradients count as zeros
    assert gradcheck(lambda *a: fn(*a)[1], present)


def test_backward_op_skips_the_input_gradient():
    rng = np.random.default_rng(4)
    p, x, h0, c0 = make_case(rng, "GRU", sizes=(2, 2))
    args, _ = op_args(p, x, h0, c0, T.float64, None, L=2, N=2)
    out, hy, _, ws = C._rnn_layer(*args, None, 1, False)
    full = C._rnn_layer_backward(T.ones_like(out), None, None, args[0], args[3], args[4], None, ws,
                                 None, 1, False, True, True)
    part = C._rnn_layer_backward(T.ones_like(out), None, None, args[0], args[3], args[4], None, ws,
                                 None, 1, False, True, False)
    assert part[0] is None and full[0] is not None and part[2] is None
    for a, b in zip(full[1:], part[1:]):
        if a is not None:
            np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    no_bias = C._rnn_layer_backward(None, T.ones_like(hy), None, args[0], args[3], args[4], None,
                                    ws, None, 1, False, False)
    assert no_bias[5] is None and no_bias[6] is None and no_bias[7] is None


def test_errors():
    x, h = T.randn(5, 3), T.randn(3, 4)
    w_ih, w_hh = T.randn(16, 3), T.randn(16, 4)
    with pytest.raises(RuntimeError, match=r"batch_sizes must not grow and be >= 0, got 3 after 2"):
        C._rnn_layer(x, h, h, w_ih, w_hh, batch_sizes=T.tensor([2, 3], device="cpu"))
    with pytest.raises(RuntimeError, match=r"batch_sizes sum to 4 but the input has 5 rows"):
        C._rnn_layer(x, h, h, w_ih, w_hh, batch_sizes=T.tensor([3, 1], device="cpu"))
    with pytest.raises(RuntimeError, match=r"batch_sizes must be a 1-d int64 tensor on the CPU, "
                                           r"got float32 of 1 dimensions on cpu"):
        C._rnn_layer(x, h, h, w_ih, w_hh, batch_sizes=T.tensor([3.0, 2.0], device="cpu"))
    with pytest.raises(RuntimeError, match=r"expected input of 3 dimensions \(L, N, input\), got \[5, 3\]"):
        C._rnn_layer(x, h, h, w_ih, w_hh)
    with pytest.raises(ValueError, match="mode must be 0 \\(LSTM\\)"):
        C._rnn_layer(x[None], h, h, w_ih, w_hh, mode=7)
    with pytest.raises(RuntimeError, match=r"expected hx of shape \[5, 4\], got \[3, 4\]"):
        C._rnn_layer(x[None], h, h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match=r"expected weight_ih of shape \[4 \* hidden_size, 2\]"):
        C._rnn_layer(T.randn(1, 3, 2), h, h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match=r"expected weight_hh of shape \[16, 4\], got \[16, 3\]"):
        C._rnn_layer(T.randn(1, 3, 3), h, h, w_ih, T.randn(16, 3))
    with pytest.raises(RuntimeError, match="LSTM needs the initial cell state cx"):
        C._rnn_layer(T.randn(1, 3, 3), h, None, w_ih, w_hh)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        C._rnn_layer(T.randn(1, 3, 3), h, None, T.randn(12, 3), w_hh[:12], None, None,
                     T.randn(2, 4), None, 1)
    with pytest.raises(RuntimeError, match="expected hx to have dtype float32, got float64"):
        C._rnn_layer(T.randn(1, 3, 3), h.double(), h, w_ih, w_hh)


# ---- the modules -------------------------------------------------------------------------

def np_module(m, x, h0=None, c0=None, sizes=None, drop_mask=None):
    """m's layers over rows x (R, I) with `sizes` (default: x is (L, N, I))."""
    D = 2 if m.bidirectional else 1
    P = m.proj_size or m.hidden_size
    if sizes is None:
        L, N = x.shape[:2]
        sizes, x = [N] * L, x.reshape(L * N, -1)
    N = sizes[0] if len(sizes) else 0
    h0 = np.zeros((m.num_layers * D, N, P)) if h0 is None else h0
    c0 = np.zeros((m.num_layers * D, N, m.hidden_size)) if c0 is None else c0
    hs, cs = [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            names = {"weight_ih": "w_ih", "weight_hh": "w_hh", "bias_ih": "b_ih",
                     "bias_hh": "b_hh", "weight_hr": "w_hr"}
            p = {v: getattr(m, k + sfx).detach().double().cpu().numpy() for k, v in names.items()
                 if getattr(m, k + sfx, None) is not None}
            o, h, c = np_layer(m.mode, x, sizes, h0[layer * D + d], c0[layer * D + d], p, d == 1)
            outs.append(o)
            hs.append(h)
            cs.append(c)
        x = np.concatenate(outs, 1)
        if drop_mask is not None and layer < m.num_layers - 1:
            x = x * drop_mask
    return x, np.stack(hs), np.stack(cs)


def test_packed_unsorted_bidirectional_with_initial_states():
    T.manual_seed(5)
    rng = np.random.default_rng(5)
    for kind in ("LSTM", "GRU", "RNN"):
        kw = dict(proj_size=2) if kind == "LSTM" else {}
        m = getattr(T.nn, kind)(3, 4, num_layers=2, bidirectional=True, dtype=T.float64, **kw)
        P = 2 if kind == "LSTM" else 4
        lengths = [2, 5, 3]
        x = rng.standard_normal((5, 3, 3))
        h0 = rng.standard_normal((4, 3, P))
        c0 = rng.standard_normal((4, 3, 4))
        packed = pack_padded_sequence(T.tensor(x), T.tensor(lengths), enforce_sorted=False)
        hx = (T.tensor(h0), T.tensor(c0)) if kind == "LSTM" else T.tensor(h0)
        with T.no_grad():
            out, fin = m(packed, hx)
        assert isinstance(out, PackedSequence)
        assert out.batch_sizes.tolist() == packed.batch_sizes.tolist()
        assert out.sorted_indices.tolist() == packed.sorted_indices.tolist()
        hn = fin[0] if kind == "LSTM" else fin
        # each sequence alone, with its own initial state, in the caller's order
        for b, ln in enumerate(lengths):
            ref, rh, rc = np_module(m, x[:ln, b:b + 1], h0[:, b:b + 1], c0[:, b:b + 1])
            padded, lens = pad_packed_sequence(out)
            assert lens.tolist() == lengths
            np.testing.assert_allclose(padded.cpu().numpy()[:ln, b], ref[:, :], rtol=1e-10,
                                       atol=1e-12)
            assert np.all(padded.cpu().numpy()[ln:, b] == 0)
            np.testing.assert_allclose(hn.cpu().numpy()[:, b], rh[:, 0], rtol=1e-10, atol=1e-12)
            if kind == "LSTM":
                np.testing.assert_allclose(fin[1].cpu().numpy()[:, b], rc[:, 0], rtol=1e-10)


def test_modules_batch_first_unbatched_float32():
    T.manual_seed(6)
    rng = np.random.default_rng(6)
    m = T.nn.GRU(3, 4, num_layers=2, batch_first=True)
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    with T.no_grad():
        out, h = m(T.tensor(x))
    ref, rh, _ = np_module(m, x.transpose(1, 0, 2).astype(np.float64))
    assert out.dtype == T.float32 and tuple(out.shape) == (2, 5, 4)
    np.testing.assert_allclose(out.cpu().numpy().transpose(1, 0, 2).reshape(10, 4), ref, rtol=2e-5,
                               atol=2e-6)
    np.testing.assert_allclose(h.cpu().numpy(), rh, rtol=2e-5, atol=2e-6)
    with T.no_grad():
        one, h1 = m(T.tensor(x[0]))            # unbatched (L, I)
    np.testing.assert_allclose(one.cpu().numpy(), out.cpu().numpy()[0], rtol=1e-6, atol=1e-7)
    assert tuple(h1.shape) == (2, 4)


@pytest.mark.parametrize("dtype", [T.float16, T.bfloat16])
def test_half_dtypes_compute_in_float(dtype):
    T.manual_seed(10)
    m = T.nn.LSTM(3, 4, proj_size=2, dtype=T.float64)
    x = np.random.default_rng(10).standard_normal((4, 2, 3))
    with T.no_grad():
        ref, (h, _) = m(T.tensor(x))
        m.to(dtype)
        out, (hh, _) = m(T.tensor(x, dtype=dtype))
    assert out.dtype == dtype and hh.dtype == dtype
    tol = 2e-2 if dtype == T.bfloat16 else 3e-3
    np.testing.assert_allclose(out.double().cpu().numpy(), ref.cpu().numpy(), rtol=tol, atol=tol)


def test_dropout_between_layers():
    T.manual_seed(7)
    rng = np.random.default_rng(7)
    m = T.nn.LSTM(3, 4, num_layers=3, dropout=1.0, dtype=T.float64)
    x = rng.standard_normal((4, 2, 3))
    with T.no_grad():
        out, _ = m(T.tensor(x))
    # p = 1 zeroes every layer's input after the first: the last layer sees zeros
    ref, _, _ = np_module(m, x, drop_mask=0.0)
    np.testing.assert_allclose(out.cpu().numpy().reshape(8, 4), ref, rtol=1e-12, atol=1e-12)
    m.eval()
    with T.no_grad():
        out, _ = m(T.tensor(x))
    np.testing.assert_allclose(out.cpu().numpy().reshape(8, 4), np_module(m, x)[0], rtol=1e-10,
                               atol=1e-12)
    # dropout applies to training only, and not after the last layer
    m = T.nn.GRU(3, 4, num_layers=2, dropout=0.5, dtype=T.float64)
    x = T.tensor(rng.standard_normal((5, 2, 3)))
    with T.no_grad():
        a, b = m(x)[0], m(x)[0]
    assert not np.allclose(a.cpu().numpy(), b.cpu().numpy())


def test_module_double_backward():
    T.manual_seed(8)
    m = T.nn.GRU(2, 2, dtype=T.float64)
    x = T.tensor(np.random.default_rng(8).standard_normal((3, 2, 2)), requires_grad=True)
    assert gradgradcheck(lambda a: m(a)[0], (x,))
    m = T.nn.LSTM(2, 3, proj_size=2, dtype=T.float64)
    packed_x = T.tensor(np.random.default_rng(9).standard_normal((5, 2)), requires_grad=True)
    bs = T.tensor([2, 2, 1], device="cpu")  # a host buffer, as PyTorch's
    assert gradgradcheck(lambda a: m(PackedSequence(a, bs))[0].data, (packed_x,))


# ---- PyTorch's results -------------------------------------------------------------------

def _golden():
    with open(os.path.join(GOLDEN, "cases.json")) as f:
        cases = json.load(f)
    return cases, np.load(os.path.join(GOLDEN, "data.npz"))


@pytest.mark.parametrize("name", ["lstm_proj", "gru", "lstm_packed_bi"])
def test_matches_pytorch(name):
    cases, data = _golden()
    case = cases[name]
    g = lambda k: data[f"{name}.{k}"]   # noqa: E731
    m = getattr(T.nn, case["kind"])(dtype=T.float64, **case["kwargs"])
    assert list(m.state_dict().keys()) == case["state_dict_keys"]
    m.load_state_dict({k: T.tensor(g(f"param.{k}")) for k in case["state_dict_keys"]})
    x = T.tensor(g("x"), requires_grad=True)
    states = [T.tensor(g(f"state{i}"), requires_grad=True)
              for i in range(2 if case["kind"] == "LSTM" else 1)]
    hx = tuple(states) if case["kind"] == "LSTM" else states[0]
    if case["lengths"]:
        packed = pack_padded_sequence(x, T.tensor(case["lengths"]), enforce_sorted=False)
        np.testing.assert_array_equal(packed.batch_sizes.cpu().numpy(), g("batch_sizes"))
        np.testing.assert_array_equal(packed.sorted_indices.cpu().numpy(), g("sorted_indices"))
        out, fin = m(packed, hx)
        out = out.data
    else:
        out, fin = m(x, hx)
    fin = fin if case["kind"] == "LSTM" else (fin,)
    loss = 0
    for key, t in [("out", out), ("hn", fin[0])] + ([("cn", fin[1])] if len(fin) > 1 else []):
        np.testing.assert_allclose(t.detach().cpu().numpy(), g(key), rtol=1e-10, atol=1e-12)
        loss = loss + (t * T.tensor(g(f"w_{key}"))).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), g("grad_x"), rtol=1e-10, atol=1e-12)
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.grad.cpu().numpy(), g(f"grad_state{i}"), rtol=1e-10, atol=1e-12)
    for k, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.cpu().numpy(), g(f"grad.{k}"), rtol=1e-10, atol=1e-12)
