"""nn.functional.linear_cross_entropy and nn.LinearCrossEntropyOptions
(PyTorch 2.15; the module nn.LinearCrossEntropyLoss is in
modules/linear_cross_entropy.py): the cross entropy of the
logits of a linear layer, optionally without ever holding the whole
(N, C) logits tensor.

Reference path (options=None, and every form the chunked path does not
take): exactly ``cross_entropy(linear(input, W, b) reshaped to
(*input.shape[:-1], C, *out_features), target, ...)``.

Options PyTorch would ignore (label smoothing, a K-dimensional loss, a
target neither int64 indices nor probabilities of input's dtype that do
not require grad) give its warning and the reference path.

Chunked path (options given and honoured; input (N, in), weight (C, in),
class-index target (N,), bias (C,) or None; the other forms PyTorch's
chunked path takes go to the reference path here, silently, with the same
values): the batch is cut into chunks of B rows;
forward keeps, per chunk, only the three sums the loss needs (legend:
w class weights, eps label smoothing, p = softmax of the chunk's logits z,
y the target, rows with y == ignore_index dropped):
    nll    = sum_i w[y_i] (-log p_iy)
    smooth = sum_i sum_c w_c (-log p_ic)
    denom  = sum_i w[y_i]                  (the mean's divisor)
    loss   = ((1 - eps) nll + eps / C smooth) / denom      ('mean')
backward recomputes each chunk's logits (memory stays O(B C)) and uses
    dL/dz_i = (a_i + S) p_i - a_i e_y - s,  a_i = (1 - eps) w[y_i] g_i,
    s_c = eps / C w_c g_i,  S = sum_c s_c
(g_i the incoming gradient of row i, divided by denom for 'mean'; eps is
0 whenever this path runs, since label smoothing goes to the reference path
as in PyTorch, but the formulas are kept whole), then
dX = dZ W, dW += dZ^T X, db += sum_i dZ_i.  Backward is written with
torchlike ops, so retain_graph and create_graph work (PyTorch's chunked
path refuses both; this is a superset)."""
import dataclasses
import math
import warnings

from .. import _C
from ..autograd.function import Function

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]

_VALID_ACC_POLICIES = ("auto", "accurate", "compact")


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Chunking options of linear_cross_entropy (PyTorch's fields).

    batch_chunk_size: rows per chunk (None: from chunking_method).
    chunking_method: "auto" or "aspect_ratio[:N]": chunks whose (B, C)
    logits take about the memory of the (N, in) input, divided by N;
    None: use batch_chunk_size (None then means one chunk).
    acc_policy / acc_dtype: accumulate in acc_dtype (default: float32 for
    float16/bfloat16 input, else the input dtype); the policies differ in
    PyTorch only in scratch memory, here they compute the same.
    allow_retain_graph: accepted for compatibility; backward recomputes,
    so a second backward always works."""
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _VALID_ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}; expected one of "
                             f"{', '.join(map(repr, _VALID_ACC_POLICIES))}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if self.batch_chunk_size is not None and self.batch_chunk_size < 1:
            raise ValueError(f"batch_chunk_size must be positive, got {self.batch_chunk_size}")

    def chunk_rows(self, N, C, in_features):
        """Rows per chunk for an (N, in) input and C classes."""
        if self.batch_chunk_size is not None:
            return self.batch_chunk_size
        if self.chunking_method is None:
            return max(N, 1)
        _, sep, factor = self.chunking_method.partition(":")
        div = int(factor) if sep else 1
        rows = math.ceil(N / math.ceil(C / max(in_features, 1)))
        return max(1, (1 << max(rows - 1, 0).bit_length()) // div)


def _reference(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
               label_smoothing):
    from .functional import cross_entropy, linear
    C, *out_features, in_features = linear_weight.shape
    logits = linear(input, linear_weight.reshape(-1, in_features),
                    None if linear_bias is None else linear_bias.reshape(-1))
    logits = logits.reshape(*input.shape[:-1], C, *out_features)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)


def _chunk_terms(x, W, b, y, cw, ignore_index, acc):
    """(log p (B, C), kept rows (B,), w[y] (B,), y clamped (B,)) of one chunk."""
    from .functional import linear, log_softmax
    z = linear(x.to(acc), W.to(acc), None if b is None else b.to(acc))
    logp = log_softmax(z, 1)
    kept = y != ignore_index
    yc = _C.where(kept, y, _C.zeros_like(y))
    wy = cw.index_select(0, yc) * kept.to(acc)
    return logp, kept, wy, yc


class _ChunkedLinearCrossEntropy(Function):
    @staticmethod
    def forward(ctx, input, W, b, target, cw, reduction, ignore_index, eps, rows, acc):
        N, C = input.shape[0], W.shape[0]
        nll = smooth = denom = None
        per_row = []
        for s in range(0, N, rows):
            k = min(rows, N - s)
            logp, kept, wy, yc = _chunk_terms(input.narrow(0, s, k), W, b, target.narrow(0, s, k),
                                              cw, ignore_index, acc)
            row_nll = -logp.gather(1, yc.unsqueeze(1)).squeeze(1) * wy
            row_smooth = -(logp * cw).sum(1) * kept.to(acc)
            if reduction == "none":
                per_row.append((1 - eps) * row_nll + eps / C * row_smooth)
                continue
            parts = (row_nll.sum(), row_smooth.sum(), wy.sum())
            nll, smooth, denom = parts if nll is None else (nll + parts[0], smooth + parts[1],
                                                            denom + parts[2])
        ctx.save_for_backward(input, W, b, target, cw)
        ctx.args = (reduction, ignore_index, eps, rows, acc)
        if reduction == "none":
            return (_C.cat(per_row, 0) if per_row else
                    _C.zeros(0, dtype=acc, device=input.device)).to(input.dtype)
        if nll is None:
            nll = smooth = denom = _C.zeros((), dtype=acc, device=input.device)
        loss = (1 - eps) * nll + eps / C * smooth
        ctx.denom = denom
        return (loss / denom if reduction == "mean" else loss).to(input.dtype)

    @staticmethod
    def backward(ctx, grad):
        input, W, b, target, cw = ctx.saved_tensors
        reduction, ignore_index, eps, rows, acc = ctx.args
        N, C = input.shape[0], W.shape[0]
        grad = grad.to(acc)
        if reduction == "mean":
            grad = grad / ctx.denom
        dx, dW, db = [], None, None
        for s in range(0, N, rows):
            k = min(rows, N - s)
            x = input.narrow(0, s, k)
            logp, kept, wy, yc = _chunk_terms(x, W, b, target.narrow(0, s, k), cw,
                                              ignore_index, acc)
            g = grad.narrow(0, s, k) if reduction == "none" else grad
            g = g * kept.to(acc)                                        # (B,) or ()
            a = ((1 - eps) * wy * g).unsqueeze(1)                       # (B, 1)
            sm = eps / C * cw * (g.unsqueeze(1) if g.ndim else g)       # (B, C) or (C,)
            S = sm.sum(-1, keepdim=True) if sm.ndim == 2 else sm.sum()
            p = _C.exp(logp)
            onehot = _C.zeros_like(p).scatter(1, yc.unsqueeze(1), 1.0)
            dz = (a + S) * p - a * onehot - sm                          # (B, C)
            dx.append(_C.matmul(dz, W.to(acc)))
            dWk = _C.matmul(dz.mT, x.to(acc))
            dW = dWk if dW is None else dW + dWk
            if b is not None:
                dbk = dz.sum(0)
                db = dbk if db is None else db + dbk
        dx = _C.cat(dx, 0) if dx else _C.zeros_like(input, dtype=acc)
        if dW is None:
            dW = _C.zeros_like(W, dtype=acc)
        if b is not None and db is None:
            db = _C.zeros_like(b, dtype=acc)
        return (dx.to(input.dtype), dW.to(W.dtype), None if b is None else db.to(b.dtype),
                None, None, None, None, None, None, None)


def _check(input, linear_weight, target, reduction, label_smoothing):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and {linear_weight.shape[-1]}, "
                           f"respectively")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                           f"{label_smoothing}")


def _options_ignored(input, linear_weight, target, linear_bias, reduction, label_smoothing):
    """Whether PyTorch ignores ``options`` for this call (and says so, in
    its words): label smoothing, K-dimensional losses, and targets that are
    neither int64 indices nor probabilities of input's dtype and shape
    that do not require grad go to its reference path."""
    from ..jit import is_tracing
    out_features = tuple(linear_weight.shape[1:-1])
    logits_shape = (*input.shape[:-1], linear_weight.shape[0], *out_features)
    probabilities = (tuple(target.shape) == logits_shape and target.dtype == input.dtype
                     and not (target.requires_grad and _C.is_grad_enabled()))
    tracing = is_tracing()
    if (label_smoothing == 0.0 and (target.dtype == _C.int64 or probabilities)
            and not out_features and not tracing):
        return False
    bias_shape = None if linear_bias is None else tuple(linear_bias.shape)
    warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                  "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64 (or a "
                  "probability target with dtype matching input and requires_grad == False), "
                  f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                  f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}"
                  f", tracing={tracing}, target.requires_grad={target.requires_grad}, "
                  f"linear_bias.shape={bias_shape}.", stacklevel=3)
    return True


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...)
    with the logits reshaped to (*input.shape[:-1], C, *out_features); with
    ``options`` the batch is processed in chunks (see the module doc)."""
    _check(input, linear_weight, target, reduction, label_smoothing)
    args = (input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
            label_smoothing)
    if options is None:
        return _reference(*args)
    if _options_ignored(input, linear_weight, target, linear_bias, reduction, label_smoothing):
        return _reference(*args)
    chunkable = (input.ndim == 2 and linear_weight.ndim == 2 and target.ndim == 1
                 and target.dtype == _C.int64 and (linear_bias is None or linear_bias.ndim == 1)
                 and input.is_floating_point())
    if not chunkable:   # PyTorch's chunked path takes these; the reference gives its values
        return _reference(*args)
    N, C = input.shape[0], linear_weight.shape[0]
    if target.shape[0] != N:
        raise ValueError(f"Expected input batch_size ({N}) to match target batch_size "
                         f"({target.shape[0]}).")
    ignore = -100 if ignore_index is None else ignore_index
    bad = target[(target != ignore) & ((target < 0) | (target >= C))]
    if bad.numel():
        raise RuntimeError(f"index {int(bad[0])} is out of bounds for dimension 1 with size {C}")
    acc = options.acc_dtype or (_C.float32 if input.dtype in (_C.float16, _C.bfloat16)
                                else input.dtype)
    cw = (_C.ones(C, dtype=acc, device=input.device) if weight is None else weight.to(acc))
    rows = options.chunk_rows(N, C, input.shape[1])
    return _ChunkedLinearCrossEntropy.apply(input, linear_weight, linear_bias, target, cw,
                                            reduction, ignore, float(label_smoothing), rows, acc)
