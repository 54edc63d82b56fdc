"""Point-to-point: ``send``/``recv``, ``isend``/``irecv``, ``P2POp`` and
``batch_isend_irecv``.

A send writes its message straight away, in the caller (the peer's reader
thread always drains, so it never waits for a matching receive); a receive
waits, up to the group's timeout, for the message with its (peer, tag,
count) key.  ``irecv`` waits on a thread of its own so that its Work
completes, and its future fires, when the data has arrived."""
import threading

from .arrays import HostBuffer
from .collectives import check_tensor
from .distributed_c10d import group_root, resolve
from .work import Work

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv"]


def _peer(pg, rank, group_rank, what):
    """The global rank of a peer given either way, not this process."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError("Can only specify one of the global and the group rank")
        rank = pg.ranks[group_root(pg, what, None, group_rank)]
    if rank is not None and rank not in pg.ranks:
        raise ValueError(f"Global rank {rank} is not part of group {pg}")
    return rank


def _send(tensor, dst, group, tag, group_dst):
    pg = resolve(group)
    if pg is None:
        return None
    check_tensor(tensor, "tensor")
    dst = _peer(pg, dst, group_dst, "send")
    if dst is None:
        raise ValueError("send: a destination (dst or group_dst) is required")
    if dst == pg.mesh.rank:
        raise ValueError("Invalid destination rank: destination rank should not be the same "
                         "as the rank of the current process.")
    buf = HostBuffer(tensor)
    work = Work([tensor])
    try:
        pg.p2p_send(dst, buf.arr, buf.code, tag)
    except Exception as e:
        work._finish(e)
    else:
        work._finish()
    return work


def _recv_work(tensor, src, group, tag, group_src):
    """A Work that receives into ``tensor`` when run."""
    pg = resolve(group)
    if pg is None:
        return None, None
    check_tensor(tensor, "tensor")
    src = _peer(pg, src, group_src, "recv")
    if src == pg.mesh.rank:
        raise ValueError("Invalid source rank: source rank should not be the same as the "
                         "rank of the current process.")
    buf = HostBuffer(tensor)
    work = Work([tensor])

    def run():
        try:
            work._source_rank = pg.p2p_recv(src, buf.arr, buf.code, tag)
            buf.commit()
        except Exception as e:
            work._finish(e)
        else:
            work._finish()
    return work, run


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to global rank ``dst`` (or group rank ``group_dst``)."""
    work = _send(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from ``src`` (None: any rank); the sender's rank."""
    work, run = _recv_work(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    run()
    return work.source_rank()


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """``send`` returning a Work (the data is already on its way)."""
    return _send(tensor, dst, group, tag, group_dst)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """``recv`` in the background; ``wait()`` the Work before reading ``tensor``."""
    work, run = _recv_work(tensor, src, group, tag, group_src)
    if work is not None:
        threading.Thread(target=run, daemon=True, name="dist-irecv").start()
    return work


class P2POp:
    """One ``isend`` or ``irecv`` for ``batch_isend_irecv``."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv, send, recv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        check_tensor(tensor, "tensor")
        self.op = {send: isend, recv: irecv}.get(op, op)
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer

    def __repr__(self):
        return (f"P2POp(op={self.op.__name__}, tensor=<{tuple(self.tensor.shape)}>, "
                f"peer={self.peer}, tag={self.tag})")


def batch_isend_irecv(p2p_op_list):
    """Issue every op of the list; their Works, in the same order."""
    if not isinstance(p2p_op_list, list) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    groups = {id(p.group) for p in p2p_op_list}
    if len(groups) != 1:
        raise ValueError("All ops need to use the same group.")
    works = []
    # receives first: their threads wait while the sends go out
    for p in p2p_op_list:
        if p.op is irecv:
            works.append((p, irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer)))
    for p in p2p_op_list:
        if p.op is isend:
            works.append((p, isend(p.tensor, p.peer, p.group, p.tag, p.group_peer)))
    by_op = {id(p): w for p, w in works}
    return [by_op[id(p)] for p in p2p_op_list]
