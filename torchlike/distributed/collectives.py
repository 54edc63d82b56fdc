"""The collectives on tensors: ``all_reduce``, ``broadcast``, ``reduce``,
``all_gather`` (list and ``_into_tensor``), ``gather``, ``scatter``,
``reduce_scatter`` (list and ``_tensor``), ``all_to_all`` (list and
``_single``), ``barrier`` and ``monitored_barrier``; the deprecated
``all_reduce_coalesced`` / ``all_gather_coalesced`` (one message for a
list of tensors).

Each checks its arguments here, in the caller (PyTorch's messages), fixes
its sequence number in the group, and runs on the worker thread; results are
written into the given tensors in place.  ``async_op=True`` returns a Work
to ``wait()`` on, else the call blocks and returns None.  A caller outside
``group`` gets None and nothing runs."""
import math
import warnings

import numpy as np

from .. import _C
from .arrays import HostBuffer, check_op
from .constants import ReduceOp
from .distributed_c10d import _seconds, group_root, resolve, submit

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
           "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all",
           "all_to_all_single", "barrier", "monitored_barrier", "all_reduce_coalesced",
           "all_gather_coalesced"]

Tensor = _C.Tensor


def check_tensor(param, name):
    if not isinstance(param, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(param)} instead.")


def check_tensor_list(param, name):
    if not isinstance(param, list) or not all(isinstance(p, Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(param)} instead.")


def _same_dtypes(tensors):
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != first:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {first} "
                             f"and  {t.dtype}")


def _sizes(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _check_list(name, tensors, size, shape, what="output"):
    """``tensors`` are ``size`` tensors of ``shape``, in gloo's words."""
    if len(tensors) != size:
        raise RuntimeError(f"ProcessGroupGloo::{name}: invalid {what} tensor list at index 0 "
                           f"(expected length {size}, got {len(tensors)})")
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(shape):
            raise RuntimeError(f"ProcessGroupGloo::{name}: invalid tensor size at index {i} "
                               f"(expected {_sizes(shape)}, got {_sizes(t.shape)})")


def _commit(*bufs):
    for b in bufs:
        if b is not None:
            b.commit()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """``tensor`` becomes ``op`` over every rank's ``tensor`` (the same on all)."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(tensor, "tensor")
    op = check_op(op, tensor.dtype)
    buf = HostBuffer(tensor)
    seq = pg.next_seq()

    def run():
        pg.all_reduce(seq, buf.arr, buf.code, op, buf.bf16)
        buf.commit()
    return submit(run, [tensor], async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Every rank's ``tensor`` becomes rank ``src``'s."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(tensor, "tensor")
    root = group_root(pg, "broadcast", src, group_src)
    buf = HostBuffer(tensor)
    seq = pg.next_seq()

    def run():
        pg.broadcast(seq, buf.arr, buf.code, root)
        buf.commit()
    return submit(run, [tensor], async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Rank ``dst``'s ``tensor`` becomes ``op`` over every rank's; the others'
    are left as they were."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(tensor, "tensor")
    op = check_op(op, tensor.dtype, "reduce")
    root = group_root(pg, "reduce", dst, group_dst)
    buf = HostBuffer(tensor)
    seq = pg.next_seq()

    def run():
        pg.reduce(seq, buf.arr, buf.code, op, root, buf.bf16)
        if pg.rank() == root:
            buf.commit()
    return submit(run, [tensor], async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[j]`` becomes rank j's ``tensor`` (all of one shape)."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    _same_dtypes(tensor_list + [tensor])
    _check_list("allgather", tensor_list, pg.size(), tensor.shape)
    src = HostBuffer(tensor)
    outs = [HostBuffer(t) for t in tensor_list]
    seq = pg.next_seq()

    def run():
        pg.all_gather(seq, [o.arr for o in outs], src.arr, src.code)
        _commit(*outs)
    return submit(run, tensor_list, async_op)


def _split_shape(name, output, input, size):
    """The shape of one rank's block of ``output`` (concatenated or stacked
    along dim 0), checked against ``input``'s."""
    if output.dtype != input.dtype:
        raise RuntimeError(f"ProcessGroupGloo::{name}: invalid tensor type at index 0 "
                           f"(expected {input.dtype}, got {output.dtype})")
    ok = output.ndim >= 1 and output.shape[0] % size == 0
    block = (output.shape[0] // size,) + tuple(output.shape[1:]) if ok else tuple(output.shape)
    if ok and output.ndim == input.ndim + 1 and output.shape[0] == size:
        block = tuple(output.shape[1:])  # stacked: (size, *input.shape)
    if block != tuple(input.shape):
        raise RuntimeError(f"ProcessGroupGloo::{name}: invalid tensor size at index 0 "
                           f"(expected {_sizes(input.shape)}, got {_sizes(block)})")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """``output_tensor`` (``size`` times ``input_tensor`` along dim 0, or
    stacked) becomes every rank's ``input_tensor`` in rank order."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    _split_shape("allgather", output_tensor, input_tensor, pg.size())
    out, src = HostBuffer(output_tensor), HostBuffer(input_tensor)
    seq = pg.next_seq()

    def run():
        pg.all_gather(seq, np.split(out.arr, pg.size()), src.arr, src.code)
        out.commit()
    return submit(run, [output_tensor], async_op)


def _check_root_list(lst, is_root, name, role):
    if is_root and not lst:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    if not is_root and lst:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")


def _rooted_list(pg, name, tensor, lst, root, group_root_, role, *what):
    """gather's and scatter's checks: (the root's group rank, host buffers
    over ``lst`` on the root, [] elsewhere)."""
    check_tensor(tensor, "tensor")
    root = group_root(pg, name, root, group_root_)
    is_root = pg.rank() == root
    _check_root_list(lst, is_root, f"{name}_list", role)
    if not is_root:
        return root, []
    check_tensor_list(lst, f"{name}_list")
    _same_dtypes(lst + [tensor])
    _check_list(name, lst, pg.size(), tensor.shape, *what)
    return root, [HostBuffer(t) for t in lst]


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """On rank ``dst``, ``gather_list[j]`` becomes rank j's ``tensor``."""
    pg = resolve(group)
    if pg is None:
        return None
    root, outs = _rooted_list(pg, "gather", tensor, gather_list, dst, group_dst, "destination")
    src = HostBuffer(tensor)
    seq = pg.next_seq()

    def run():
        pg.gather(seq, [o.arr for o in outs], src.arr, src.code, root)
        _commit(*outs)
    return submit(run, gather_list or [], async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank j's ``tensor`` becomes rank ``src``'s ``scatter_list[j]``."""
    pg = resolve(group)
    if pg is None:
        return None
    root, ins = _rooted_list(pg, "scatter", tensor, scatter_list, src, group_src, "source",
                             "input")
    out = HostBuffer(tensor)
    seq = pg.next_seq()

    def run():
        pg.scatter(seq, out.arr, [i.arr for i in ins], out.code, root)
        out.commit()
    return submit(run, [tensor], async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """``output`` on rank j becomes ``op`` over every rank's ``input_list[j]``."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    _same_dtypes(input_list + [output])
    op = check_op(op, output.dtype, "reduce_scatter")
    _check_list("reduce_scatter", input_list, pg.size(), output.shape, "input")
    out = HostBuffer(output)
    ins = [HostBuffer(t) for t in input_list]
    seq = pg.next_seq()

    def run():
        pg.reduce_scatter(seq, out.arr, [i.arr for i in ins], out.code, op, out.bf16)
        out.commit()
    return submit(run, [output], async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """``input`` is ``size`` blocks along dim 0 (or stacked); ``output`` on
    rank j becomes ``op`` over every rank's block j."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(output, "output")
    check_tensor(input, "input")
    op = check_op(op, output.dtype, "reduce_scatter")
    _split_shape("reduce_scatter", input, output, pg.size())
    out, src = HostBuffer(output), HostBuffer(input)
    seq = pg.next_seq()

    def run():
        pg.reduce_scatter(seq, out.arr, np.split(src.arr, pg.size()), out.code, op, out.bf16)
        out.commit()
    return submit(run, [output], async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """``output_tensor_list[j]`` becomes rank j's ``input_tensor_list[this rank]``."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtypes(output_tensor_list + input_tensor_list)
    for name, lst in (("output", output_tensor_list), ("input", input_tensor_list)):
        if len(lst) != pg.size():
            raise RuntimeError(f"ProcessGroupGloo::alltoall: invalid {name} tensor list "
                               f"(expected length {pg.size()}, got {len(lst)})")
    outs = [HostBuffer(t) for t in output_tensor_list]
    ins = [HostBuffer(t) for t in input_tensor_list]
    seq = pg.next_seq()

    def run():
        pg.all_to_all(seq, [o.arr for o in outs], [i.arr for i in ins], outs[0].code)
        _commit(*outs)
    return submit(run, output_tensor_list, async_op)


def _split_views(arr, tensor, splits, size, which):
    """Views of the flat ``arr`` for each rank's rows of ``tensor`` (dim 0)."""
    rows = tensor.shape[0] if tensor.ndim else 1
    if splits is None or len(splits) == 0:
        if rows % size:
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size "
                               f"({which}: {rows} rows, {size} ranks)")
        splits = [rows // size] * size
    splits = [int(s) for s in splits]
    if len(splits) != size:
        raise RuntimeError(f"Number of tensor splits not equal to group size ({which}: "
                           f"{len(splits)} splits, {size} ranks)")
    if sum(splits) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    row = math.prod(tensor.shape[1:]) if tensor.ndim else 1
    bounds = np.cumsum([0] + splits) * row
    return [arr[bounds[j]:bounds[j + 1]] for j in range(size)]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank j's block ``i`` of ``input`` (rows along dim 0, sized by
    ``input_split_sizes``, else equal) becomes block ``j`` of ``output`` on
    rank i."""
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(output, "output")
    check_tensor(input, "input")
    _same_dtypes([output, input])
    out, src = HostBuffer(output), HostBuffer(input)
    outs = _split_views(out.arr, output, output_split_sizes, pg.size(), "output")
    ins = _split_views(src.arr, input, input_split_sizes, pg.size(), "input")
    seq = pg.next_seq()

    def run():
        pg.all_to_all(seq, outs, ins, out.code)
        out.commit()
    return submit(run, [output], async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Return once every rank of the group has entered the barrier."""
    pg = resolve(group)
    if pg is None:
        return None
    seq = pg.next_seq()
    return submit(lambda: pg.barrier(seq), [], async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier in which rank 0 names the ranks that did not arrive within
    ``timeout`` (the group's by default): the first, or all with
    ``wait_all_ranks``."""
    pg = resolve(group)
    if pg is None:
        return None
    seconds = pg.timeout if timeout is None else _seconds(timeout)
    seq = pg.next_seq()
    return submit(lambda: pg.monitored_barrier(seq, seconds, wait_all_ranks), [], False)


def _warn_coalesced(name):
    warnings.warn(f"`torch.distributed.{name}` will be deprecated. If you must use it, please "
                  f"revisit our documentation later at "
                  f"https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=3)


def _flat(tensors):
    return _C.cat([t.detach().reshape(-1) for t in tensors])


def _unflatten_into(flat, tensors):
    offset = 0
    for t in tensors:
        n = t.numel()
        t.detach().copy_(flat[offset:offset + n].reshape(tuple(t.shape)))
        offset += n


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """``all_reduce`` of every tensor of ``tensors`` (one dtype) in one
    message; a Future of them with ``async_op``.  Deprecated in PyTorch."""
    _warn_coalesced("all_reduce_coalesced")
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    check_tensor_list(tensors, "tensor")
    if not tensors:
        raise ValueError("all_reduce_coalesced: the tensor list is empty")
    _same_dtypes(tensors)
    pg = resolve(group)
    if pg is None:
        return None
    op = check_op(op, tensors[0].dtype)
    flat = _flat(tensors)
    buf = HostBuffer(flat)
    seq = pg.next_seq()

    def run():
        pg.all_reduce(seq, buf.arr, buf.code, op, buf.bf16)
        buf.commit()
        _unflatten_into(flat, tensors)
    work = submit(run, tensors, async_op)
    return work.get_future() if async_op else None


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """``output_tensor_lists[j][i]`` becomes rank j's ``input_tensor_list[i]``,
    in one message per rank; a Future with ``async_op``.  Deprecated in PyTorch."""
    _warn_coalesced("all_gather_coalesced")
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor_list(input_tensor_list, "input_tensor_list")
    if not input_tensor_list:
        raise ValueError("all_gather_coalesced: input_tensor_list is empty")
    _same_dtypes(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    for lst in output_tensor_lists:
        check_tensor_list(lst, "output_tensor_lists")
        _same_dtypes(lst + input_tensor_list)
    if len(output_tensor_lists) != pg.size():
        raise RuntimeError(f"all_gather_coalesced: output_tensor_lists has "
                           f"{len(output_tensor_lists)} lists for a group of {pg.size()}")
    shapes = [tuple(t.shape) for t in input_tensor_list]
    for j, lst in enumerate(output_tensor_lists):
        if [tuple(t.shape) for t in lst] != shapes:
            raise RuntimeError(f"all_gather_coalesced: output_tensor_lists[{j}] has shapes "
                               f"{[tuple(t.shape) for t in lst]}, the inputs {shapes}")
    flat = _flat(input_tensor_list)
    src = HostBuffer(flat)
    outs = [_C.empty_like(flat) for _ in range(pg.size())]
    bufs = [HostBuffer(o) for o in outs]
    seq = pg.next_seq()

    def run():
        pg.all_gather(seq, [b.arr for b in bufs], src.arr, src.code)
        _commit(*bufs)
        for out, lst in zip(outs, output_tensor_lists):
            _unflatten_into(out, lst)
    work = submit(run, [t for lst in output_tensor_lists for t in lst], async_op)
    return work.get_future() if async_op else None
