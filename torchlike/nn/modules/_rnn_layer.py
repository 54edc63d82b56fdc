"""One direction of one recurrent layer, step by step on the tape.

The layer is one op, ``_C._rnn_layer`` (src/nn/rnn/rnn_layer_cpu.c): the
whole time loop in C, and its backward op the reverse recursion.  That
backward op is not differentiable; with create_graph=True the op's formula
(src/grad/formulas_nn_rnn.c) calls ``taped_layer_grads`` here instead, which
re-runs the same layer from the saved inputs with the per-step cell ops (whose
derivatives are differentiable) and differentiates that graph, so double
backward is exact.

Legend: L steps, N batch, R rows of the sequence, I input, H hidden, P output
size (proj_size, else H)."""
from ... import _C
from .. import functional as F

# _C._rnn_layer's mode argument
MODES = {"LSTM": 0, "GRU": 1, "RNN_TANH": 2, "RNN_RELU": 3}


def layer_taped(x, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    """What _C._rnn_layer computes (output, hy, cy), recorded step by step.
    x is (L, N, I), or the (R, I) rows of a packed sequence with batch_sizes."""
    packed = batch_sizes is not None
    if packed:
        sizes = [int(b) for b in batch_sizes.tolist()]
    else:
        sizes = [x.shape[1]] * x.shape[0]
        x = x.reshape(x.shape[0] * x.shape[1], x.shape[2])
    offsets = [0]
    for b in sizes:
        offsets.append(offsets[-1] + b)
    gi = F.linear(x, w_ih, b_ih)                                   # R, G
    h, c = hx, cx
    outs = [None] * len(sizes)
    for t in (range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))):
        n = sizes[t]
        g, hp = gi[offsets[t]:offsets[t + 1]], h[:n]
        if mode == MODES["LSTM"]:
            hn, cn, _ = _C._thnn_fused_lstm_cell(g, F.linear(hp, w_hh), c[:n], None, b_hh)
            if w_hr is not None:
                hn = F.linear(hn, w_hr)
            c = cn if n == c.shape[0] else _C.cat([cn, c[n:]], 0)
        elif mode == MODES["GRU"]:
            hn = _C._thnn_fused_gru_cell(g, F.linear(hp, w_hh), hp, None, b_hh)[0]
        else:
            hn = _C._fused_rnn_cell(g, F.linear(hp, w_hh), None, b_hh, mode == MODES["RNN_RELU"])
        h = hn if n == h.shape[0] else _C.cat([hn, h[n:]], 0)
        outs[t] = hn
    P = hx.shape[1]
    out = _C.cat(outs, 0) if outs else _C.zeros((0, P), dtype=hx.dtype, device=hx.device)
    if not packed:
        out = out.reshape(len(sizes), hx.shape[0], P)
    return out, h, c


def taped_layer_grads(inputs, grads, needs, batch_sizes, mode, reverse):
    """The gradients of (x, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr) (None where
    not needed) given those of (output, hy, cy), as functions of the inputs."""
    from ... import autograd
    from ...autograd import enable_grad
    wanted = [i for i, need in enumerate(needs) if need]
    result = [None] * len(inputs)
    with enable_grad():
        outs = layer_taped(*inputs, batch_sizes, mode, reverse)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if g is not None and o is not None and o.requires_grad]
        if not pairs or not wanted:
            return tuple(result)
        found = autograd.grad([o for o, _ in pairs], [inputs[i] for i in wanted],
                              [g for _, g in pairs], create_graph=True, allow_unused=True)
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result)
