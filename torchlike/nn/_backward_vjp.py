"""The derivative of the fused backward ops of src/nn/norm and src/nn/loss
(double backward).

The fused backward ops of ``src/nn/norm`` (``native_batch_norm_backward``,
``native_layer_norm_backward``, ``native_group_norm_backward``,
``_fused_rms_norm_backward``) compute, over one statistics group of D
elements, with ``xhat = (x - mean) * rstd`` and ``dxhat = dy * w``::

    dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    dw = sum(dy * xhat),  db = sum(dy)

Their own derivative (``src/grad/formulas_nn_norm.c``) calls
:func:`backward_vjp`, which writes that backward again with generic ops,
the statistics recomputed from the input (so their dependence on it is
differentiated), and takes its vector-Jacobian product on the tape.  The
same holds for ``_pointwise_loss_backward``, ``_cross_entropy_backward`` and
``_multi_margin_loss_backward`` (``formulas_nn_loss.c``): the loss gradients
of ``src/nn/loss/tl_loss.h``, written with generic ops.
"""
import math

from .. import _C
from ..autograd import grad as _grad
from ..autograd.grad_mode import enable_grad

Tensor = _C.Tensor


def _rstd_of(v, rstd):
    """``rsqrt(v + eps)`` with the eps that made the saved ``rstd`` (the backward
    ops are not given it): ``eps = 1/rstd^2 - v``, a constant."""
    eps = (rstd.to(v.dtype).reshape(v.shape).reciprocal().square() - v).detach()
    return _C.rsqrt(v + eps)


def _normalized_grad(g, x, w, dims, mean, rstd, mode):
    """dx and xhat of one normalisation, stats over ``dims`` (kept).
    mode: 'stats' (batch statistics), 'rms' (mean 0), 'const' (given stats)."""
    if mode == "const":
        mu, rs = mean.to(x.dtype), rstd.to(x.dtype)
    elif mode == "rms":
        mu = None
        rs = _rstd_of((x * x).mean(dim=dims, keepdim=True), rstd)
    else:
        mu = x.mean(dim=dims, keepdim=True)
        rs = _rstd_of(((x - mu) * (x - mu)).mean(dim=dims, keepdim=True), rstd)
    xhat = x * rs if mu is None else (x - mu) * rs
    gw = g if w is None else g * w
    if mode == "const":
        return gw * rs, xhat
    dx = gw - xhat * (gw * xhat).mean(dim=dims, keepdim=True)
    if mode != "rms":
        dx = dx - gw.mean(dim=dims, keepdim=True)
    return dx * rs, xhat


def _batch(g, x, w, mean, rstd, train, eps):
    N, C = x.shape[0], x.shape[1]
    g3, x3 = g.reshape(N, C, -1), x.reshape(N, C, -1)
    w3 = None if w is None else w.reshape(1, C, 1)
    dx, xhat = _normalized_grad(g3, x3, w3, (0, 2), mean.reshape(1, C, 1),
                                rstd.reshape(1, C, 1), "stats" if train else "const")
    return dx.reshape(x.shape), (g3 * xhat).sum(dim=(0, 2)), g3.sum(dim=(0, 2))


def _layer(g, x, normalized_shape, mean, rstd, w, b):
    k = len(normalized_shape)
    dims = tuple(range(x.ndim - k, x.ndim))
    dx, xhat = _normalized_grad(g, x, w, dims, mean, rstd, "stats")
    batch = tuple(range(x.ndim - k))
    return dx, (g * xhat).sum(dim=batch), g.sum(dim=batch)


def _group(g, x, mean, rstd, w, N, C, HxW, group):
    shape = (N, group, C // group, HxW)
    g4, x4 = g.reshape(shape), x.reshape(shape)
    w4 = None if w is None else w.reshape(1, group, C // group, 1)
    dx, xhat = _normalized_grad(g4, x4, w4, (2, 3), mean.reshape(N, group, 1, 1),
                                rstd.reshape(N, group, 1, 1), "stats")
    return (dx.reshape(x.shape), (g4 * xhat).sum(dim=(0, 3)).reshape(C),
            g4.sum(dim=(0, 3)).reshape(C))


def _rms(g, x, normalized_shape, rstd, w):
    k = len(normalized_shape)
    dims = tuple(range(x.ndim - k, x.ndim))
    dx, xhat = _normalized_grad(g, x, w, dims, None, rstd, "rms")
    return dx, (g * xhat).sum(dim=tuple(range(x.ndim - k)))


def _sign(d):
    return _C.sign(d)


def _pointwise(g, x, t, w, p, kind, param, reduction):
    """(dx, dt) of _pointwise_loss_backward (kinds: tl_loss_kind)."""
    from .functional import logsigmoid
    d = x - t
    if kind == 0:        # mse
        gx = 2 * d
    elif kind == 1:      # l1
        gx = _sign(d)
    elif kind == 2:      # smooth_l1
        gx = _C.where(d.abs() < param, d / param, _sign(d))
    elif kind == 3:      # huber
        gx = _C.where(d.abs() < param, d, param * _sign(d))
    w = 1.0 if w is None else w
    if kind <= 3:
        gt = -gx
    elif kind == 4:      # binary_cross_entropy
        gx = w * d / ((1 - x) * x).clamp(min=1e-12)
        gt = w * (_C.log1p(-x).clamp(min=-100) - _C.log(x).clamp(min=-100))
    elif kind == 5:      # binary_cross_entropy_with_logits
        p = 1.0 if p is None else p
        gx = w * (_C.sigmoid(x) * (p * t + 1 - t) - p * t)
        gt = -w * (p * logsigmoid(x) - logsigmoid(-x))
    elif param:          # kl_div, log_target
        e = _C.exp(t)
        gx, gt = -e, e * (t - x + 1)
    else:                # kl_div
        gx = -t
        gt = _C.where(t > 0, _C.log(_C.where(t > 0, t, _C.ones_like(t))) + 1 - x, -x)
    if reduction == 1:
        g = g / max(math.prod(x.shape), 1)
    return g * gx, g * gt


def _cross_entropy(g, x, t, w, reduction, ignore_index, eps, lse, total_weight):
    """(dx, dt) of _cross_entropy_backward: with q the row's target
    distribution, dx = k (softmax(x) sum(w q) - w q), dt = -k (1 - eps) w
    log_softmax(x) (probabilities only); k = g, over total_weight for 'mean'
    (a constant: the weights are not differentiated)."""
    cdim = 0 if x.ndim == 1 else 1
    C = x.shape[cdim]
    wshape = (C,) + (1,) * (x.ndim - cdim - 1)
    wb = 1.0 if w is None else w.to(x.dtype).reshape(wshape)
    probs = t.is_floating_point()
    if probs:
        q = t * (1 - eps) + eps / C
    else:
        valid = (t != ignore_index).unsqueeze(cdim)
        hot = (t.unsqueeze(cdim) == _C.arange(C, device=x.device).reshape(wshape))
        q = _C.where(valid, hot.to(x.dtype) * (1 - eps) + eps / C, _C.zeros_like(x))
    k = g.unsqueeze(cdim) if reduction == 0 else g
    if reduction == 1:
        k = k / total_weight.to(x.dtype).detach()
    wq = q * wb
    dx = k * (_C.softmax(x, cdim) * wq.sum(cdim, keepdim=True) - wq)
    dt = -k * (1 - eps) * wb * _C.log_softmax(x, cdim) if probs else None
    return dx, dt


def _multi_margin(g, x, t, p, margin, w, reduction):
    """(dx,) of _multi_margin_loss_backward: each positive hinge term's slope
    (1, or 2 z for p = 2) times weight[y] / C, added at i and taken from y."""
    C = x.shape[-1] if x.ndim else 1
    x2, t1 = x.reshape(-1, C), t.reshape(-1)
    z = margin - x2.gather(1, t1.unsqueeze(1)) + x2
    y_hot = _C.arange(C, device=x.device).unsqueeze(0) == t1.unsqueeze(1)
    slope = _C.ones_like(z) if p == 1 else 2 * z
    d = _C.where((z > 0) & ~y_hot, slope, _C.zeros_like(z))
    if w is not None:
        d = d * w.to(x.dtype).index_select(0, t1).unsqueeze(1)
    k = g.reshape(-1, 1) if reduction == 0 else g.reshape(1, 1)
    if reduction == 1:
        k = k / x2.shape[0]
    d = d * k / C
    dx = d - y_hot.to(x.dtype) * d.sum(1, keepdim=True)
    return (dx.reshape(x.shape),)


# ---- grid_sampler_backward: grid_sample written with gathers --------------------------------

def _grid_reflect(c, low2, high2):
    """``c`` reflected into [low2/2, high2/2] (src/nn/grid/grid_loops.h's reflect)."""
    if low2 == high2:
        return c * 0
    lo, span = low2 / 2, (high2 - low2) / 2
    d = (c - lo).abs()
    extra = _C.fmod(d, span)
    even = _C.remainder(_C.floor(d.detach() / span), 2) == 0
    return _C.where(even, extra + lo, span - extra + lo)


def _grid_pad(c, size, align, padding):
    """A pixel coordinate moved inside by the padding mode (1 border, 2 reflection)."""
    if padding == 1:
        return c.clamp(0, size - 1)
    if padding == 2:
        c = _grid_reflect(c, 0, 2 * (size - 1)) if align else _grid_reflect(c, -1, 2 * size - 1)
        return c.clamp(0, size - 1)
    return c


def _cubic(t, a=-0.75):
    """Keys' cubic weights of the taps at -1, 0, 1, 2 for the offset t."""
    def near(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    u = 1 - t
    return [far(t + 1), near(t), near(u), far(u + 1)]


def _grid_sample(x, grid, mode, padding, align):
    """grid_sampler (tl_grid.h's semantics) composed from gathers, so that
    it differentiates twice: the taps' positions are constants, their
    weights functions of the grid."""
    N, C = x.shape[0], x.shape[1]
    sizes = tuple(x.shape[2:])[::-1]                  # along x, y(, z)
    n = len(sizes)
    P = math.prod(grid.shape[1:-1])
    flat = x.reshape(N, C, math.prod(sizes))
    strides = [math.prod(sizes[:k]) for k in range(n)]
    coords = []
    for k, S in enumerate(sizes):
        g = grid[..., k].reshape(N, 1, P)
        c = (g + 1) / 2 * (S - 1) if align else ((g + 1) * S - 1) / 2
        coords.append(c if mode == 2 else _grid_pad(c, S, align, padding))

    def tap(pos):
        """x at the integer positions pos[k] (N, 1, P), 0 outside."""
        inside, at = None, 0
        for p, S, st in zip(pos, sizes, strides):
            ok = (p >= 0) & (p <= S - 1)
            inside = ok if inside is None else inside & ok
            at = at + p.clamp(0, S - 1) * st
        vals = flat.gather(2, at.to(dtype=_C.int64).expand(N, C, P))
        return vals * inside.to(dtype=x.dtype)

    if mode == 1:
        return tap([_C.round(c.detach()) for c in coords]).reshape((N, C) + tuple(grid.shape[1:-1]))
    lows = [_C.floor(c.detach()) for c in coords]
    out = 0
    if mode == 0:
        for q in range(1 << n):
            pos, w = [], 1
            for k in range(n):
                bit = (q >> k) & 1
                pos.append(lows[k] + bit)
                w = w * (coords[k] - lows[k] if bit else (lows[k] + 1) - coords[k])
            out = out + tap(pos) * w
    else:
        wx, wy = _cubic(coords[0] - lows[0]), _cubic(coords[1] - lows[1])
        for j in range(4):
            ty = _grid_pad(lows[1] + (j - 1), sizes[1], align, padding)
            row = 0
            for i in range(4):
                tx = _grid_pad(lows[0] + (i - 1), sizes[0], align, padding)
                row = row + tap([tx, ty]) * wx[i]
            out = out + row * wy[j]
    return out.reshape((N, C) + tuple(grid.shape[1:-1]))


def _grid_backward(g, x, grid, mode, padding, align):
    """(dx, dgrid) of grid_sampler_backward, by differentiating the composed
    grid_sample with create_graph (dgrid of nearest is 0: a step function)."""
    y = _grid_sample(x, grid, mode, padding, align)
    dx, dgrid = _grad([y], [x, grid], [g], create_graph=True, allow_unused=True)
    return (x * 0 if dx is None else dx), (grid * 0 if dgrid is None else dgrid)


# ---- _local_response_norm_backward ---------------------------------------------------------

def _lrn(x, size, alpha, beta, k):
    """local_response_norm composed as PyTorch composes it: the squares'
    average over a zero-padded window of channels."""
    sq = (x * x).unsqueeze(1)                                  # N, 1, C, *
    pads = [0, 0] * (x.ndim - 2) + [size // 2, (size - 1) // 2]
    from .functional import pad
    win = pad(sq, pads).unfold(2, size, 1).sum(-1).squeeze(1)  # N, C, *
    return x / (win / size * alpha + k) ** beta


def _lrn_backward(g, x, size, alpha, beta, k):
    y = _lrn(x, size, alpha, beta, k)
    return _grad([y], [x], [g], create_graph=True)


# op name -> (composed backward, positions of the differentiable arguments)
_COMPOSED = {
    "native_batch_norm_backward": (_batch, (0, 1, 2)),
    "native_layer_norm_backward": (_layer, (0, 1, 5)),
    "native_group_norm_backward": (_group, (0, 1, 4)),
    "_fused_rms_norm_backward": (_rms, (0, 1, 4)),
    "_pointwise_loss_backward": (_pointwise, (0, 1, 2, 3, 4)),
    "_cross_entropy_backward": (_cross_entropy, (0, 1, 2)),
    "_multi_margin_loss_backward": (_multi_margin, (0, 1)),
    "grid_sampler_backward": (_grid_backward, (0, 1, 2)),
    "_local_response_norm_backward": (_lrn_backward, (0, 1)),
}


def backward_vjp(name, args, grads):
    """The gradients of the backward op ``name`` called with ``args``, given
    the gradients ``grads`` of its results: a tuple aligned with ``args``
    (None where an argument gets none)."""
    fn, diff = _COMPOSED[name]
    args = list(args)
    # integer arguments (class indices) are never differentiated
    at = [i for i in diff if isinstance(args[i], Tensor) and args[i].is_floating_point()]
    with enable_grad():
        for i in at:
            args[i] = args[i].detach().requires_grad_()
        outs = fn(*args)
        pairs = [(o, gr) for o, gr in zip(outs, grads) if gr is not None]
        found = _grad([o for o, _ in pairs], [args[i] for i in at],
                      [gr.to(o.dtype).reshape(o.shape) for o, gr in pairs], allow_unused=True)
    result = [None] * len(args)
    for i, r in zip(at, found):
        result[i] = r
    return tuple(result)


_C._nn_backward_vjp = backward_vjp
