"""One direction of one LSTM layer as a single autograd node.

The per-step path (rnn.py's ``_lstm_step`` on the tape) records three nodes
per time step, and its backward adds a weight gradient per step.  Here the
time loop runs without the tape and backward runs it in reverse: per step one
fused backward kernel (src/nn/rnn) and one GEMM for the hidden state's
gradient, then W_hh's, W_ih's, the biases' and the input's gradients for the
whole sequence as one GEMM (or sum) each.

Double backward (create_graph=True) recomputes the layer on the tape with
the per-step composed path and differentiates that, so it stays exact.

Legend: L sequence length, N batch, I input size, H hidden size."""
from ... import _C
from ...autograd import Function
from .. import functional as F


def _steps(L, reverse):
    return range(L - 1, -1, -1) if reverse else range(L)


def lstm_layer_taped(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
    """The same layer on the tape, step by step: (L, N, H) outputs, h_n, c_n."""
    gi = F.linear(x, w_ih, b_ih).unbind(0)
    h, c = h0, c0
    outs = [None] * x.shape[0]
    for t in _steps(x.shape[0], reverse):
        h, c, _ = _C._thnn_fused_lstm_cell(gi[t], F.linear(h, w_hh), c, None, b_hh)
        outs[t] = h
    return _C.stack(outs, 0), h, c


class LSTMLayer(Function):
    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
        L = x.shape[0]
        gi = F.linear(x, w_ih, b_ih).unbind(0)                 # L x (N, 4H)
        w_hh_t = w_hh.t()
        h, c = h0, c0
        hprev, cprev, cys, wss, outs = ([None] * L for _ in range(5))
        for t in _steps(L, reverse):
            hprev[t], cprev[t] = h, c
            h, c, wss[t] = _C._thnn_fused_lstm_cell(gi[t], _C.matmul(h, w_hh_t), c, None, b_hh)
            cys[t] = c
            outs[t] = h
        out = _C.stack(outs, 0)
        ctx.reverse = reverse
        ctx.has_bias = (b_ih is not None, b_hh is not None)
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, _C.stack(hprev, 0),
                              _C.stack(cprev, 0), _C.stack(cys, 0), _C.stack(wss, 0))
        return out, h, c

    @staticmethod
    def backward(ctx, gout, gh, gc):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, hprev, cprev, cys, wss = ctx.saved_tensors
        if _C.is_grad_enabled():       # create_graph: differentiate the taped layer
            return _taped_grads(ctx, (x, h0, c0, w_ih, w_hh, b_ih, b_hh), (gout, gh, gc))
        L, N, H = x.shape[0], h0.shape[0], h0.shape[1]
        dh = gh if gh is not None else _C.zeros_like(h0)
        dc = gc
        grads = [None] * L
        for t in _steps(L, not ctx.reverse):
            ghy = dh if gout is None else gout[t] + dh
            g, dc, _ = _C._thnn_fused_lstm_cell_backward_impl(ghy, dc, cprev[t], cys[t], wss[t],
                                                              False)
            grads[t] = g
            dh = _C.matmul(g, w_hh)
        G = _C.stack(grads, 0).reshape(L * N, 4 * H) if L else \
            _C.zeros((0, 4 * H), dtype=x.dtype)
        dx = _C.matmul(G, w_ih).reshape(tuple(x.shape)) if ctx.needs_input_grad[0] else None
        dw_ih = _C.matmul(G.t(), x.reshape(L * N, x.shape[2])) if ctx.needs_input_grad[3] \
            else None
        dw_hh = _C.matmul(G.t(), hprev.reshape(L * N, H)) if ctx.needs_input_grad[4] else None
        db = G.sum(0) if any(ctx.has_bias) else None
        if dc is None:
            dc = _C.zeros_like(c0)
        return (dx, dh, dc, dw_ih, dw_hh, db if ctx.has_bias[0] else None,
                db if ctx.has_bias[1] else None, None)


def _taped_grads(ctx, inputs, grads):
    from ... import autograd
    from ...autograd import enable_grad
    wanted = [i for i, t in enumerate(inputs) if t is not None and ctx.needs_input_grad[i]]
    with enable_grad():
        # the saved inputs themselves: the gradients are then functions of them
        outs = lstm_layer_taped(*inputs, ctx.reverse)
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
        found = autograd.grad([o for o, _ in pairs], [inputs[i] for i in wanted],
                              [g for _, g in pairs], create_graph=True, allow_unused=True)
    result = [None] * 8
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result)
