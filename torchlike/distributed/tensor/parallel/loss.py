"""loss_parallel(): cross-entropy on logits sharded on the class dimension
without gathering them, as torch.distributed.tensor.parallel.loss_parallel.

Inside the context, ``F.cross_entropy`` (and ``nn.CrossEntropyLoss``),
``F.log_softmax`` along the sharded dimension and ``F.nll_loss`` on
log-probabilities sharded on the class dimension, given a DTensor whose
class dimension is sharded by exactly one mesh dimension (the "TP" one),
run a distributed log-softmax: each rank takes the maximum and the sum of
exponentials of its own classes, and those are all-reduced over the TP
mesh dimension; the logit of each row's target class is all-reduced from
the rank that holds it.  cross_entropy thus issues three all_reduces of
one value per row, log_softmax two, nll_loss one.

Gradients are computed from the saved local pieces: the logits' gradient
is sharded as the logits are.  The loss is replicated over the TP mesh
dimension, and its gradient arrives as partial sums there (the adjoint
layout, _redistribute.py), so the backward all-reduces it (one value per
row, or one number); PyTorch's backward sends nothing.

Targets are class indices; their placements are the logits' with the TP
mesh dimension replicated and the class dimension removed (a plain tensor
is taken as replicated, and is refused where that would be a Shard).  A
weight is replicated.  ``reduction="mean"`` needs a 1-D mesh (PyTorch's
restriction: on other mesh dimensions the loss is a Partial sum of local
batches); ``label_smoothing`` and class-probability targets are refused,
as PyTorch refuses them."""
from contextlib import contextmanager

from .... import _C
from ....autograd.function import Function
from .. import _ops
from .. import _redistribute as R
from .._api import DTensor, local_for_op, plain, wrap
from ..placement_types import Partial, Replicate, Shard

__all__ = ["loss_parallel"]


@contextmanager
def loss_parallel():
    """Within it, cross_entropy (and CrossEntropyLoss), log_softmax and
    nll_loss on a DTensor sharded on the class dimension compute the loss
    without gathering it (module docstring); the loss is a DTensor,
    replicated over the mesh dimension that shards the classes."""
    _ops.LOSS_PARALLEL[0] += 1
    try:
        yield
    finally:
        _ops.LOSS_PARALLEL[0] -= 1


# ---- the checks -------------------------------------------------------------------------

def _tp_dim(placements, dim):
    """The one mesh dimension that shards tensor dimension ``dim``."""
    dims = [i for i, p in enumerate(placements) if p.is_shard(dim)]
    if len(dims) != 1:
        raise ValueError(f"loss_parallel() needs exactly one mesh dimension sharding tensor "
                         f"dimension {dim} (the classes), but the placements {placements} "
                         f"have {len(dims)}")
    for i, p in enumerate(placements):
        if i != dims[0] and not (p.is_shard() or p.is_replicate()):
            raise ValueError(f"loss_parallel(): mesh dimensions other than the one sharding "
                             f"the classes must be Shard or Replicate, got {p} at mesh "
                             f"dimension {i}")
    return dims[0]


def _target_placements(placements, k, cdim):
    """The logits' placements with the TP mesh dim replicated and the class
    dimension removed."""
    out = []
    for i, p in enumerate(placements):
        if i == k or not isinstance(p, Shard):
            out.append(Replicate())
        else:
            out.append(Shard(p.dim - 1) if p.dim > cdim else p)
    return tuple(out)


def _local_target(target, want, mesh):
    if isinstance(target, DTensor):
        if tuple(target.placements) != want:
            raise RuntimeError(f"loss_parallel(): the target must have placements {want} "
                               f"(the logits' without the class dimension), got "
                               f"{target.placements}")
        return plain(target).detach()
    if not isinstance(target, _C.Tensor):
        raise TypeError(f"loss_parallel(): target must be a Tensor or DTensor, got "
                        f"{type(target).__name__}")
    if any(isinstance(p, Shard) for p in want):
        raise ValueError(f"loss_parallel(): the target must be a DTensor (a plain tensor "
                         f"does not say which piece it is) when its placements {want} "
                         f"shard it; make it with DTensor.from_local or distribute_tensor")
    return target.detach()


def _full_weight(weight, mesh):
    if weight is None:
        return None
    if isinstance(weight, DTensor):
        rep = tuple(Replicate() for _ in range(mesh.ndim))
        if tuple(weight.placements) != rep:
            raise RuntimeError(f"loss_parallel(): the weight must be replicated {rep}, got "
                               f"{weight.placements}")
        weight = plain(weight)
    if weight.requires_grad and _C.is_grad_enabled():
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect "
                           "to argument 'weight'. This input cannot have requires_grad True.")
    return weight.detach()


def _reduction(reduction, size_average=None, reduce=None):
    from ....nn.functional import _legacy_reduction
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


# ---- the distributed pieces -------------------------------------------------------------

def _logsumexp(x, cdim, mesh, k):
    """log(sum(exp)) over the whole class dimension (keepdim), from the
    local pieces: two all_reduces over mesh dimension k."""
    shape = list(x.shape)
    shape[cdim] = 1
    if x.shape[cdim]:
        m = _C.amax(x, cdim, True)
    else:
        m = _C.full(shape, float("-inf"), dtype=x.dtype, device=x.device)
    m = R._all_reduce(m, "max", mesh, k)
    # rows of -inf only: shift by 0, as logsumexp does, not by -inf
    m = _C.where(m.isinf(), _C.zeros_like(m), m)
    s = R._all_reduce((x - m).exp().sum(cdim, keepdim=True), "sum", mesh, k)
    return m + s.log()


def _picked(x, t, cdim, off, mesh, k):
    """x at each row's target class (zeros where no rank holds it: ignored
    rows), all-reduced from the rank holding it; and where it is local."""
    n = x.shape[cdim]
    mine = (t >= off) & (t < off + n)
    if n:
        idx = (t - off).clamp(0, n - 1).unsqueeze(cdim)
        got = x.gather(cdim, idx).squeeze(cdim) * mine.to(x.dtype)
    else:
        idx = None
        got = _C.zeros(tuple(t.shape), dtype=x.dtype, device=x.device)
    return R._all_reduce(got, "sum", mesh, k), mine, idx


def _grad_out_layout(grad, ctx):
    """The loss's gradient made whole over the TP mesh dimension (it
    arrives as partial sums there when the loss is replicated)."""
    src = R.adjoint(ctx.out_pl)
    dst = tuple(Replicate() if i == ctx.k else p for i, p in enumerate(src))
    return R.transform(grad, ctx.mesh, src, dst, ctx.out_shape)


class _NLL(Function):
    """cross_entropy (``log_softmax``: the logsumexp is taken here) or
    nll_loss on local pieces of the class dimension."""

    @staticmethod
    def forward(ctx, x, t, w, cdim, off, ignore_index, reduction, mesh, k, out_pl,
                out_shape, log_softmax):
        x = x.detach()
        lse = _logsumexp(x, cdim, mesh, k) if log_softmax else None
        got, mine, idx = _picked(x, t, cdim, off, mesh, k)
        keep = (t != ignore_index).to(x.dtype)
        wt = keep if w is None else w[t.clamp(0, max(w.shape[0] - 1, 0))] * keep
        nll = -got if lse is None else lse.squeeze(cdim) - got
        loss = nll * wt
        total = None
        if reduction == "sum":
            loss = loss.sum()
        elif reduction == "mean":
            total = wt.sum()
            loss = loss.sum() / total
        ctx.saved = (x, lse, mine, idx, wt, total)
        ctx.cdim, ctx.reduction, ctx.mesh, ctx.k = cdim, reduction, mesh, k
        ctx.out_pl, ctx.out_shape = out_pl, out_shape
        return loss

    @staticmethod
    def backward(ctx, grad):
        x, lse, mine, idx, wt, total = ctx.saved
        cdim = ctx.cdim
        g = _grad_out_layout(grad, ctx)
        coef = wt * g
        if ctx.reduction == "mean":
            # rows that weigh nothing get no gradient, even when all do (0 / 0)
            coef = _C.where(wt != 0, coef / total, _C.zeros_like(coef))
        onehot = _C.zeros_like(x)
        if idx is not None:
            onehot.scatter_(cdim, idx, mine.to(x.dtype).unsqueeze(cdim))
        gx = -onehot if lse is None else (x - lse).exp() - onehot
        return (gx * coef.unsqueeze(cdim),) + (None,) * 11


class _LogSoftmax(Function):
    """log_softmax along the sharded class dimension of local pieces."""

    @staticmethod
    def forward(ctx, x, cdim, mesh, k):
        y = x.detach() - _logsumexp(x.detach(), cdim, mesh, k)
        ctx.y, ctx.cdim, ctx.mesh, ctx.k = y, cdim, mesh, k
        return y

    @staticmethod
    def backward(ctx, grad):
        s = R._all_reduce(grad.sum(ctx.cdim, keepdim=True), "sum", ctx.mesh, ctx.k)
        return grad - ctx.y.exp() * s, None, None, None


# ---- the rules ----------------------------------------------------------------------------

def _ce_args(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean", label_smoothing=0.0):
    return input, target, weight, _reduction(reduction, size_average, reduce), ignore_index, \
        label_smoothing


def _nll_args(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
              reduction="mean"):
    return input, target, weight, _reduction(reduction, size_average, reduce), ignore_index, 0.0


def _loss(func, name, args, kwargs):
    parse = _ce_args if name == "cross_entropy" else _nll_args
    x, target, weight, reduction, ignore_index, smoothing = parse(*args, **kwargs)
    if not isinstance(x, DTensor):
        return _ops._fallback(func, name, args, kwargs)
    spec = x._spec
    mesh, nd = spec.mesh, len(spec.shape)
    cdim = 1 if nd >= 2 else 0
    k = _tp_dim(spec.placements, cdim)
    if smoothing:
        raise RuntimeError(f"loss_parallel(): label_smoothing={smoothing} is not supported "
                           f"(PyTorch's loss_parallel refuses it too)")
    if isinstance(target, _C.Tensor) and target.is_floating_point():
        raise RuntimeError(f"loss_parallel(): the target must hold class indices; class "
                           f"probabilities ({target.dtype} target) are not supported")
    t_pl = _target_placements(spec.placements, k, cdim)
    t = _local_target(target, t_pl, mesh)
    w = _full_weight(weight, mesh)
    if reduction == "mean" and mesh.ndim > 1:
        raise NotImplementedError(f"loss_parallel() with reduction='mean' needs a 1-D device "
                                  f"mesh (the mesh has {mesh.ndim} dimensions: a mean over "
                                  f"local batches is not the global mean); use 'sum' or "
                                  f"'none'")
    t_shape = spec.shape[:cdim] + spec.shape[cdim + 1:]
    n_cls = spec.shape[cdim]
    if w is not None and tuple(w.shape) != (n_cls,):
        raise RuntimeError(f"weight tensor should be defined either for all {n_cls} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"{list(w.shape)}")
    bad = ((t < 0) | (t >= n_cls)) & (t != ignore_index)
    if bool(bad.any()):
        raise IndexError(f"Target {int(t[bad].flatten()[0])} is out of bounds.")
    if reduction == "none":
        out_pl, out_shape = t_pl, t_shape
    else:
        out_pl = tuple(Replicate() if i == k else Partial() if isinstance(p, Shard) else p
                       for i, p in enumerate(spec.placements))
        out_shape = ()
    _, offsets = R.local_shape_and_offset(spec.shape, mesh, spec.placements)
    xl = local_for_op(x)
    loss = _NLL.apply(xl, t, w, cdim, offsets[cdim], ignore_index, reduction, mesh, k,
                      out_pl, out_shape, name == "cross_entropy")
    return wrap(loss, mesh, out_pl, out_shape)


def _log_softmax_args(input, dim=None, _stacklevel=3, dtype=None):
    # Tensor.log_softmax(dim, dtype) gives the dtype second
    return input, dim, dtype if isinstance(_stacklevel, int) else _stacklevel


def _log_softmax(func, name, args, kwargs):
    x, dim, dtype = _log_softmax_args(*args, **kwargs)
    if not isinstance(x, DTensor) or dim is None:
        return _ops._softmax(func, name, args, kwargs)
    spec = x._spec
    nd = len(spec.shape)
    dim = _ops._norm_dim(dim, nd)
    k = _tp_dim(spec.placements, dim)
    xl = local_for_op(x)
    if dtype is not None:
        xl = xl.to(dtype)
    return wrap(_LogSoftmax.apply(xl, dim, spec.mesh, k), spec.mesh, spec.placements,
                spec.shape)


_ops.LOSS_RULES.update({"cross_entropy": _loss, "nll_loss": _loss,
                        "log_softmax": _log_softmax})
