"""Moving a DTensor's local tensor from one list of placements to another,
and the autograd functions that carry gradients across those moves.

A move is done one mesh dimension at a time, each with the process group
of that dimension.  The dimensions that change (and the later dimensions
that shard the same tensor dimension, whose pieces are nested inside) are
first undone right to left (Shard: all_gather, Partial: all_reduce), then
made left to right (Shard: this rank's chunk, Partial: a share of the
value).  When a single mesh dimension changes, the direct collectives are
used: Shard(i) -> Shard(j) is one all_to_all, Partial -> Shard one
reduce_scatter.  Uneven pieces (``torch.chunk``'s cut) travel padded to the
size of the first piece and are trimmed on arrival.

Gradients.  Autograd records the local computation of every rank, so a
tensor's local gradients hold its global gradient in the *adjoint* layout
of its placements (``adjoint``): a sharded tensor's gradient is sharded the
same way; a Partial tensor's gradient is whole on every rank (Replicate);
a replicated tensor's gradient is a partial sum over the ranks (each rank
computed with its own copy).  The backward of a move is therefore the move
between the adjoint layouts, in the other direction.  Where gradients
leave or enter the DTensor world (``from_local``, ``to_local``, a DTensor
leaf such as a parameter, ``backward()`` of a DTensor) they are converted
between that layout and PyTorch's (Partial read as Replicate): a
replicated leaf's gradient is all-reduced there, and a replicated gradient
given by the user becomes partial by keeping it on the first rank of each
mesh dimension (zeros elsewhere, which sum exactly)."""
from ... import _C
from ...autograd.function import Function
from .. import collectives as C
from ..constants import ReduceOp
from .placement_types import Partial, Replicate, Shard, chunk_offsets, chunk_sizes

# the CommDebugModes active now (debug/_comm_mode.py): each counts every
# collective a DTensor move, op or loss issues, by PyTorch's functional name
COMM_MODES = []


def note(name):
    """Count one collective ``name`` ("all_reduce", "c10d.broadcast_", ...) in
    the active CommDebugModes."""
    for mode in COMM_MODES:
        mode._note(name)


_OPS = {"sum": ReduceOp.SUM, "avg": ReduceOp.AVG, "max": ReduceOp.MAX, "min": ReduceOp.MIN,
        "product": ReduceOp.PRODUCT}


def adjoint(placements):
    """The layout of the gradient of a tensor with ``placements`` in its
    ranks' local gradients (module docstring)."""
    return tuple(Partial() if p.is_replicate() else Replicate() if p.is_partial() else p
                 for p in placements)


def grad_layout(placements):
    """PyTorch's layout for the gradient of a tensor with ``placements``:
    Partial read as Replicate."""
    return tuple(Replicate() if p.is_partial() else p for p in placements)


def level_size(shape, mesh, placements, dim, upto):
    """The size of tensor dimension ``dim`` once the mesh dimensions before
    ``upto`` that shard it have cut it (this rank's piece)."""
    size = shape[dim]
    for k in range(upto):
        p = placements[k]
        if isinstance(p, Shard) and p.dim == dim:
            size = chunk_sizes(size, mesh.size(k))[mesh.get_local_rank(k)]
    return size


def local_shape_and_offset(shape, mesh, placements):
    """This rank's local shape of a tensor of global ``shape``, and where its
    piece starts in the global tensor."""
    shape, offset = list(shape), [0] * len(shape)
    for k, p in enumerate(placements):
        if isinstance(p, Shard):
            n, c = mesh.size(k), mesh.get_local_rank(k)
            offset[p.dim] += chunk_offsets(shape[p.dim], n)[c]
            shape[p.dim] = chunk_sizes(shape[p.dim], n)[c]
    return tuple(shape), tuple(offset)


# ---- one mesh dimension ----------------------------------------------------------------

def _pad(x, dim, size):
    """``x`` padded with zeros to ``size`` along ``dim``, contiguous."""
    if x.shape[dim] == size:
        return x.contiguous()
    shape = list(x.shape)
    shape[dim] = size - x.shape[dim]
    return _C.cat([x, _C.zeros(shape, dtype=x.dtype, device=x.device)], dim)


def _all_gather(x, dim, level, mesh, k):
    sizes = chunk_sizes(level, mesh.size(k))
    full = sizes[0]
    if full == 0:
        return x.contiguous()
    mine = _pad(x, dim, full)
    bufs = [_C.empty_like(mine) for _ in sizes]
    note("all_gather_into_tensor")
    C.all_gather(bufs, mine, group=mesh.get_group(k))
    return _C.cat([b.narrow(dim, 0, s) for b, s in zip(bufs, sizes)], dim)


def _reduce_scatter(x, dim, level, op, mesh, k):
    n, c = mesh.size(k), mesh.get_local_rank(k)
    sizes, offs = chunk_sizes(level, n), chunk_offsets(level, n)
    full = sizes[0]
    if full == 0:
        return x.narrow(dim, 0, 0).contiguous()
    pieces = [_pad(x.narrow(dim, o, s), dim, full) for o, s in zip(offs, sizes)]
    out = _C.empty_like(pieces[0])
    note("reduce_scatter_tensor")
    C.reduce_scatter(out, pieces, op=_OPS[op], group=mesh.get_group(k))
    return out.narrow(dim, 0, sizes[c]).contiguous()


def _all_to_all(x, src_dim, src_level, dst_dim, dst_level, mesh, k):
    n, c = mesh.size(k), mesh.get_local_rank(k)
    src_sizes = chunk_sizes(src_level, n)
    dst_sizes, dst_offs = chunk_sizes(dst_level, n), chunk_offsets(dst_level, n)
    ins = [x.narrow(dst_dim, o, s).contiguous() for o, s in zip(dst_offs, dst_sizes)]
    outs = []
    for j in range(n):
        shape = list(x.shape)
        shape[src_dim], shape[dst_dim] = src_sizes[j], dst_sizes[c]
        outs.append(_C.empty(shape, dtype=x.dtype, device=x.device))
    note("all_to_all_single")
    C.all_to_all(outs, ins, group=mesh.get_group(k))
    return _C.cat(outs, src_dim)


def _all_reduce(x, op, mesh, k):
    out = x.contiguous().clone()
    note("all_reduce")
    C.all_reduce(out, op=_OPS[op], group=mesh.get_group(k))
    return out


def _chunk(x, dim, level, mesh, k):
    n, c = mesh.size(k), mesh.get_local_rank(k)
    return x.narrow(dim, chunk_offsets(level, n)[c], chunk_sizes(level, n)[c]).clone()


def _embed(x, dim, level, mesh, k):
    """A piece of Shard(dim) placed in zeros of the whole (a Partial value)."""
    n, c = mesh.size(k), mesh.get_local_rank(k)
    shape = list(x.shape)
    shape[dim] = level
    out = _C.zeros(shape, dtype=x.dtype, device=x.device)
    out.narrow(dim, chunk_offsets(level, n)[c], x.shape[dim]).copy_(x)
    return out


def _share(x, p, mesh, k, zero):
    """Replicate -> Partial on mesh dimension k: PyTorch's share of the value
    (the value / n for a sum), or, for gradients (``zero``), the value on
    the first rank and zeros elsewhere."""
    if zero:
        return x.clone() if mesh.get_local_rank(k) == 0 else _C.zeros_like(x)
    if p.reduce_op == "sum":
        return x / mesh.size(k)
    if p.reduce_op in ("avg", "max", "min"):
        return x.clone()
    raise ValueError(f"Replicate to Partial({p.reduce_op}) conversion is not supported.")


# ---- a whole move ----------------------------------------------------------------------

def _changed(src, dst):
    """The mesh dimensions a move must undo and redo: those whose placement
    changes and, with them, later ones sharding the same tensor dimension."""
    n = len(src)
    changed = {i for i in range(n) if src[i] != dst[i]}
    grow = bool(changed)
    while grow:
        grow = False
        for i in sorted(changed):
            dims = {p.dim for p in (src[i], dst[i]) if isinstance(p, Shard)}
            for j in range(i + 1, n):
                if j in changed:
                    continue
                if any(isinstance(p, Shard) and p.dim in dims for p in (src[j], dst[j])):
                    changed.add(j)
                    grow = True
    return changed


def transform(x, mesh, src, dst, shape, zero=False):
    """The local tensor of placements ``dst`` for the local tensor ``x`` of
    placements ``src`` (global ``shape``); plain tensors, no autograd.
    ``zero``: Replicate -> Partial keeps the value on the first rank (for
    gradients) instead of PyTorch's share."""
    src, dst = list(src), list(dst)
    for k in range(len(src)):
        # one rank along k: its piece is the whole, its share the value
        if mesh.size(k) == 1:
            src[k] = dst[k] = Replicate()
    changed = _changed(src, dst)
    if not changed:
        return x
    if len(changed) == 1:
        (k,) = changed
        a, b = src[k], dst[k]
        if isinstance(a, Shard) and isinstance(b, Shard):
            return _all_to_all(x, a.dim, level_size(shape, mesh, src, a.dim, k),
                               b.dim, level_size(shape, mesh, src, b.dim, k), mesh, k)
        if isinstance(a, Partial) and isinstance(b, Shard):
            return _reduce_scatter(x, b.dim, level_size(shape, mesh, src, b.dim, k),
                                   a.reduce_op, mesh, k)
        if isinstance(a, Shard) and isinstance(b, Partial):
            return _embed(x, a.dim, level_size(shape, mesh, src, a.dim, k), mesh, k)
    cur = list(src)
    first = min(changed)
    for k in sorted(changed, reverse=True):
        p = cur[k]
        if k == first and isinstance(p, Partial) and isinstance(dst[k], Shard):
            # the last one undone: reduce and cut in one reduce_scatter (the
            # mesh dims before it are as dst has them, those after are
            # replicated now and redone after it)
            q = dst[k]
            x = _reduce_scatter(x, q.dim, level_size(shape, mesh, cur, q.dim, k),
                                p.reduce_op, mesh, k)
            cur[k] = q
            continue
        if isinstance(p, Shard) and isinstance(dst[k], Partial):
            # the piece in zeros of the whole: a Partial value, no communication
            x = _embed(x, p.dim, level_size(shape, mesh, cur, p.dim, k), mesh, k)
            cur[k] = dst[k]
            continue
        if isinstance(p, Shard):
            x = _all_gather(x, p.dim, level_size(shape, mesh, cur, p.dim, k), mesh, k)
        elif isinstance(p, Partial):
            x = _all_reduce(x, p.reduce_op, mesh, k)
        cur[k] = Replicate()
    for k in sorted(changed):
        q = dst[k]
        if cur[k] == q:
            continue
        if isinstance(q, Shard):
            x = _chunk(x, q.dim, level_size(shape, mesh, cur, q.dim, k), mesh, k)
        elif isinstance(q, Partial):
            x = _share(x, q, mesh, k, zero)
        cur[k] = q
    return x


# ---- autograd --------------------------------------------------------------------------

class Redistribute(Function):
    """The move src -> dst of a local tensor; backward moves the gradient
    between the adjoint layouts, dst's to src's."""

    @staticmethod
    def forward(ctx, x, mesh, src, dst, shape):
        ctx.mesh, ctx.src, ctx.dst, ctx.shape = mesh, src, dst, shape
        out = transform(x.detach(), mesh, src, dst, shape)
        return out.clone() if out is x else out

    @staticmethod
    def backward(ctx, grad):
        g = transform(grad, ctx.mesh, adjoint(ctx.dst), adjoint(ctx.src), ctx.shape, zero=True)
        # each addend of a Partial(avg) counts 1/n of the value
        for k, (p, q) in enumerate(zip(ctx.src, ctx.dst)):
            if p != q and p.is_partial("avg"):
                g = g / ctx.mesh.size(k)
        return g, None, None, None, None


class Convert(Function):
    """The identity on a local tensor whose gradient arrives in layout
    ``gsrc`` and must leave in layout ``gdst`` (from_local, to_local, a
    DTensor leaf)."""

    @staticmethod
    def forward(ctx, x, mesh, gsrc, gdst, shape):
        ctx.mesh, ctx.gsrc, ctx.gdst, ctx.shape = mesh, gsrc, gdst, shape
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        g = transform(grad, ctx.mesh, ctx.gsrc, ctx.gdst, ctx.shape, zero=True)
        return g, None, None, None, None


def redistribute_local(x, mesh, src, dst, shape):
    """``x`` (a plain local tensor, maybe on the tape) moved src -> dst."""
    if tuple(src) == tuple(dst):
        return x
    return Redistribute.apply(x, mesh, tuple(src), tuple(dst), tuple(shape))


def convert_grad(x, mesh, gsrc, gdst, shape):
    """``x`` unchanged, its gradient moved gsrc -> gdst in backward."""
    if tuple(gsrc) == tuple(gdst) or not (x.requires_grad and _C.is_grad_enabled()):
        return x
    return Convert.apply(x, mesh, tuple(gsrc), tuple(gdst), tuple(shape))
