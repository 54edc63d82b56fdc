"""Sparse gradients of embedding tables (F.embedding / embedding_bag with
sparse=True) and how they reach .grad (docs/sparse.md, "Design")."""
import functools
import weakref

from .. import _C
from .tensor import _coo, _int64, _sp
from .create import to_dense
from .elementwise import add, add_


# ---- sparse gradients of embedding tables ---------------------------------------------------

def deliver_grad(weight, grad):
    """The gradient of weight from a Function's backward: a sparse grad is
    added to weight.grad here when backward() accumulates into every leaf
    and weight is a leaf (None goes back to the engine, which cannot add a
    sparse tensor); otherwise (autograd.grad, a non-leaf table) the engine
    gets its dense form."""
    if weight.grad_fn is None and weight.requires_grad and _C._is_checkpoint_valid():
        old = weight.grad
        weight.grad = grad if old is None else (add(old, grad) if _sp(old) else add_(old, grad))
        _hook_once(weight)
        return None
    return to_dense(grad)


# id(table) -> weakref to it, for the tables that carry _dense_meets_sparse_grad
# (kept here rather than as an attribute, which would be saved with the table)
_hooked = {}


def _hook_once(weight):
    ref = _hooked.get(id(weight))
    if ref is not None and ref() is weight:
        return
    key = id(weight)
    # the hook holds the table weakly: a strong reference would keep it alive
    _hooked[key] = weakref.ref(weight, lambda _, k=key: _hooked.pop(k, None))
    weight.register_hook(functools.partial(_dense_meets_sparse_grad, _hooked[key]))


def _dense_meets_sparse_grad(weight_ref, grad):
    """A hook on a table that has taken sparse gradients: a dense gradient
    about to be added to a sparse .grad (a weight shared with a dense layer)
    takes it over, as PyTorch's AccumulateGrad makes dense + sparse dense
    (the engine cannot add into a sparse tensor)."""
    weight = weight_ref()
    old = weight.grad
    if _sp(old) and not _sp(grad) and _C._is_checkpoint_valid():
        weight.grad = None
        return add(grad, old)
    return grad


def _embedding_grad(weight_shape, flat, rows, padding_idx, scale_grad_by_freq):
    """PyTorch's embedding_sparse_backward: one value row per index, in input
    order, padding rows dropped, uncoalesced."""
    if scale_grad_by_freq:  # refused in backward, where PyTorch refuses it
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    if padding_idx is not None and padding_idx >= 0:
        keep = _C.nonzero(flat != padding_idx).reshape(-1)
        flat, rows = flat[keep], rows[keep]
    return _coo(flat.reshape(1, -1), rows, weight_shape, flat.shape[0] <= 1)


def _function():
    from ..autograd import Function
    return Function


class _Lazy:
    """A Function subclass made on first use (autograd imports after this module)."""

    def __init__(self, make):
        self._make, self._cls = make, None

    def apply(self, *args):
        if self._cls is None:
            self._cls = self._make()
        return self._cls.apply(*args)


def _make_sparse_embedding():
    class SparseEmbeddingBackward(_function()):
        @staticmethod
        def forward(ctx, weight, input, padding_idx, scale_grad_by_freq):
            ctx.weight, ctx.input = weight, input
            ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
            return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, False)

        @staticmethod
        def backward(ctx, grad):
            w = ctx.weight
            flat = ctx.input.reshape(-1).to(_int64)
            g = _embedding_grad(tuple(w.shape), flat, grad.reshape(-1, w.shape[1]),
                                ctx.padding_idx, ctx.scale)
            return deliver_grad(w, g), None, None, None
    return SparseEmbeddingBackward


def _make_sparse_embedding_bag():
    class SparseEmbeddingBagBackward(_function()):
        @staticmethod
        def forward(ctx, weight, input, offsets, mode, psw, include_last_offset, padding_idx,
                    scale):
            from ..nn import functional as F
            ctx.weight, ctx.input, ctx.offsets, ctx.mode = weight, input, offsets, mode
            ctx.psw, ctx.last, ctx.pad, ctx.scale = psw, include_last_offset, padding_idx, scale
            return F.embedding_bag(input, weight, offsets, mode=mode,
                                   per_sample_weights=psw, include_last_offset=include_last_offset,
                                   padding_idx=padding_idx)

        @staticmethod
        def backward(ctx, grad):
            w, input = ctx.weight, ctx.input
            flat = input.reshape(-1).to(_int64)
            n = flat.shape[0]
            if input.ndim == 2:
                bag = _C.arange(input.shape[0]).repeat_interleave(input.shape[1])
            else:
                bag = _C.searchsorted(ctx.offsets.to(_int64).contiguous(), _C.arange(n),
                                      right=True) - 1
            rows = grad.index_select(0, bag)
            if ctx.psw is not None:
                rows = rows * ctx.psw.reshape(-1, 1).to(rows.dtype)
            if ctx.mode == "mean":
                kept = flat != ctx.pad if ctx.pad is not None else _C.ones_like(flat, dtype=_C.bool)
                size = _C.zeros(grad.shape[0], dtype=_int64).index_add(0, bag, kept.to(_int64))
                rows = rows / size.clamp(min=1)[bag].to(rows.dtype).unsqueeze(1)
            g = _embedding_grad(tuple(w.shape), flat, rows, ctx.pad, ctx.scale)
            return deliver_grad(w, g), None, None, None, None, None, None, None
    return SparseEmbeddingBagBackward


sparse_embedding = _Lazy(_make_sparse_embedding)
sparse_embedding_bag = _Lazy(_make_sparse_embedding_bag)
