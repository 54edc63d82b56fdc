"""Collectives that autograd differentiates through, as
``torch.distributed.nn.functional``: each returns new tensors (the inputs
are not written) and records a node whose backward is the adjoint
collective, run on every rank in the same order as backward reaches it:

=====================  ==========================================================
forward                backward (``g``: the gradient of the outputs on each rank)
=====================  ==========================================================
all_reduce(x, SUM)     all_reduce(g, SUM)
all_reduce(x, AVG)     all_reduce(g, SUM) / size
all_reduce(x, MAX/MIN) all_reduce(g, SUM) where x is the result, shared by ties
all_reduce(x, PRODUCT) all_reduce(g, SUM) * the product of the other ranks' x
broadcast(x, src)      reduce(g, SUM) to src; zero elsewhere
reduce(x, dst, op)     g of rank dst broadcast, then as all_reduce's op
all_gather(x)          sum over ranks j of rank j's g[this rank]
reduce_scatter(out, l) all_gather(g) (/ size for AVG)
all_to_all(outs, ins)  all_to_all of the gradients back
all_to_all_single      all_to_all_single with the split sizes swapped
gather(x, dst)         scatter of dst's gradients
scatter(xs, src)       gather of the gradients to src (zeros elsewhere)
=====================  ==========================================================

PyTorch differentiates MAX, MIN and PRODUCT as it does SUM (its backward
all-reduces the gradients with the forward's op); the table's gradients are
the derivatives of the forward.  ``group`` is a process group (None: the
default one); ``src``/``dst`` are global ranks."""
from ... import _C
from ...autograd.function import Function
from .. import collectives as C
from ..constants import ReduceOp, RedOpType
from ..distributed_c10d import get_rank, get_world_size, resolve

__all__ = ["broadcast", "gather", "scatter", "reduce", "reduce_scatter", "all_gather",
           "all_to_all", "all_to_all_single", "all_reduce"]

_SUMS = (RedOpType.SUM, RedOpType.AVG)


def _fresh(t):
    """A contiguous tensor of its own holding ``t``'s values (collectives
    write into it)."""
    return t.detach().contiguous().clone()


def _op_grad(op, x, y, total, group):
    """The gradient of x for y = op over the ranks' x (elementwise), given
    ``total``, the sum over ranks of the gradients of y."""
    op = RedOpType(op)
    if op == RedOpType.SUM:
        return total
    if op == RedOpType.AVG:
        return total / get_world_size(group)
    if op in (RedOpType.MAX, RedOpType.MIN):
        mask = (x == y).to(total.dtype)
        ties = mask.clone()
        C.all_reduce(ties, group=group)
        return total * mask / ties
    if op == RedOpType.PRODUCT:
        pieces = [_C.empty_like(x) for _ in range(get_world_size(group))]
        C.all_gather(pieces, x.contiguous(), group=group)
        me = get_rank(group)
        others = _C.ones_like(x)
        for j, piece in enumerate(pieces):
            if j != me:
                others = others * piece
        return total * others
    raise RuntimeError(f"distributed.nn.functional: no gradient for {op} (bitwise "
                       f"reductions act on integers, which have none)")


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = _fresh(tensor)
        C.all_reduce(out, op=op, group=group)
        if RedOpType(op) not in _SUMS:
            ctx.save_for_backward(tensor.detach(), out.detach())
        return out

    @staticmethod
    def backward(ctx, grad):
        total = _AllReduce.apply(ReduceOp.SUM, ctx.group, grad)
        if RedOpType(ctx.op) in _SUMS:
            return None, None, _op_grad(ctx.op, None, None, total, ctx.group)
        x, y = ctx.saved_tensors
        return None, None, _op_grad(ctx.op, x, y, total.detach(), ctx.group)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = _fresh(tensor)
        C.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad)
        if get_rank() != ctx.src:
            gx = gx * 0  # only the source's tensor fed the outputs
        return None, None, gx


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.op, ctx.group = dst, op, group
        out = _fresh(tensor)
        C.reduce(out, dst, op=op, group=group)
        if RedOpType(op) not in _SUMS:
            ctx.save_for_backward(tensor.detach())
        return out

    @staticmethod
    def backward(ctx, grad):
        # only rank dst's output depends on the other ranks' inputs
        total = _Broadcast.apply(ctx.dst, ctx.group, grad)
        if RedOpType(ctx.op) in _SUMS:
            return None, None, None, _op_grad(ctx.op, None, None, total, ctx.group)
        (x,) = ctx.saved_tensors
        y = _fresh(x)
        C.all_reduce(y, op=ctx.op, group=ctx.group)  # dst's result, on every rank
        return None, None, None, _op_grad(ctx.op, x, y, total.detach(), ctx.group)


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        pieces = [_C.zeros_like(tensor) for _ in range(get_world_size(group))]
        on_dst = get_rank() == dst
        C.gather(tensor.detach().contiguous(), pieces if on_dst else None, dst, group=group)
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        return (None, None, _Scatter.apply(ctx.dst, ctx.group, *grads))


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        if not all(tuple(t.shape) == tuple(tensors[0].shape) for t in tensors):
            raise ValueError(f"scatter: the tensors must share one shape, got "
                             f"{[tuple(t.shape) for t in tensors]}")
        out = _C.zeros_like(tensors[0])
        pieces = [t.detach().contiguous() for t in tensors] if get_rank() == src else None
        C.scatter(out, pieces, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad)


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, op, group, output, *inputs):
        ctx.op, ctx.group = op, group
        out = _fresh(output)
        C.reduce_scatter(out, [t.detach().contiguous() for t in inputs], op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        grads = _AllGather.apply(ctx.group, grad)
        if RedOpType(ctx.op) == RedOpType.AVG:
            size = get_world_size(ctx.group)
            grads = tuple(g / size for g in grads)
        return (None, None, None) + grads


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        t = tensor.detach().contiguous()
        pieces = [_C.empty_like(t) for _ in range(get_world_size(group))]
        C.all_gather(pieces, t, group=group)
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        # rank j's gradient of piece i goes to rank i; this rank sums what it gets
        back = _AllToAll.apply(ctx.group, [_C.empty_like(g) for g in grads], *grads)
        gx = back[0]
        for g in back[1:]:
            gx = gx + g
        return None, gx


class _AllToAll(Function):
    @staticmethod
    def forward(ctx, group, outputs, *tensors):
        ctx.group = group
        ctx.shapes = [tuple(t.shape) for t in tensors]
        C.all_to_all(outputs, [t.detach().contiguous() for t in tensors], group=group)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grads):
        # the receive buffers live where the gradients do (the default device
        # may be another)
        back = [_C.empty(shape, dtype=grads[0].dtype, device=grads[0].device)
                for shape in ctx.shapes]
        return (None, None) + _AllToAll.apply(ctx.group, back, *grads)


class _AllToAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group = group
        ctx.input_shape = tuple(input.shape)
        # backward sends back what came: the split sizes swap roles
        ctx.back_out, ctx.back_in = input_split_sizes, output_split_sizes
        out = _fresh(output)
        C.all_to_all_single(out, input.detach().contiguous(), output_split_sizes,
                            input_split_sizes, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        back = _C.empty(ctx.input_shape, dtype=grad.dtype, device=grad.device)
        return (None, None, None, None,
                _AllToAllSingle.apply(ctx.group, back, ctx.back_out, ctx.back_in,
                                      grad.contiguous()))


def _check_group(group):
    resolve(group)  # PyTorch's error before init_process_group
    return group


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor`` on every rank (a new tensor)."""
    return _Broadcast.apply(src, _check_group(group), tensor)


def gather(tensor, dst=0, group=None):
    """A tuple of every rank's ``tensor`` on rank ``dst`` (zeros elsewhere)."""
    return _Gather.apply(dst, _check_group(group), tensor)


def scatter(tensors, src=0, group=None):
    """Rank ``src``'s ``tensors[this rank]``; every rank passes a list of
    ``size`` tensors of the output's shape (only the source's values are used)."""
    return _Scatter.apply(src, _check_group(group), *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """``op`` over every rank's ``tensor`` on rank ``dst`` (the others get
    their own ``tensor`` back)."""
    return _Reduce.apply(dst, op, _check_group(group), tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """``op`` over every rank's ``input_list[this rank]`` (``output`` gives the
    shape; a new tensor is returned)."""
    if RedOpType(op) not in _SUMS and _C.is_grad_enabled() and \
            any(t.requires_grad for t in input_list):
        raise RuntimeError(f"distributed.nn.functional.reduce_scatter: no gradient for "
                           f"{RedOpType(op)} (SUM and AVG have one)")
    return _ReduceScatter.apply(op, _check_group(group), output, *input_list)


def all_gather(tensor, group=None):
    """A tuple of every rank's ``tensor``, in rank order."""
    return _AllGather.apply(_check_group(group), tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """Rank j's ``input_tensor_list[this rank]`` for each j, as a tuple (the
    tensors of ``output_tensor_list``, written)."""
    return _AllToAll.apply(_check_group(group), output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None):
    """``distributed.all_to_all_single`` into a new tensor shaped as ``output``."""
    return _AllToAllSingle.apply(_check_group(group), output, output_split_sizes,
                                 input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``op`` over every rank's ``tensor`` (a new tensor, the same on every rank)."""
    return _AllReduce.apply(op, _check_group(group), tensor)
