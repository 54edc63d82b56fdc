"""Collectives on picklable Python objects: ``broadcast_object_list``,
``all_gather_object``, ``gather_object``, ``scatter_object_list``, and
point to point ``send_object_list`` / ``recv_object_list``.

As in PyTorch these use ``pickle``: unpickling runs code chosen by the
sender, so use them only between ranks that trust each other (the processes
of one job).  Objects travel as byte strings of any length over the same
connections as tensors."""
import io
import pickle

from .. import _C
from .distributed_c10d import group_root, resolve, submit

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object",
           "scatter_object_list", "send_object_list", "recv_object_list"]


def _run(pg, fn):
    """``fn(seq)`` on the worker thread, after earlier operations; its value."""
    seq = pg.next_seq()
    box = []
    submit(lambda: box.append(fn(seq)), [], False)
    return box[0]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's ``object_list`` (same length everywhere) takes rank
    ``src``'s objects, in place."""
    pg = resolve(group)
    if pg is None:
        return
    root = group_root(pg, "broadcast", src, group_src)
    data = pickle.dumps(list(object_list)) if pg.rank() == root else None
    objs = pickle.loads(_run(pg, lambda seq: pg.broadcast_bytes(seq, data, root)))
    if pg.rank() != root:
        if len(objs) != len(object_list):
            raise ValueError(f"broadcast_object_list: rank {pg.ranks[root]} sent "
                             f"{len(objs)} objects, this rank's list holds {len(object_list)}")
        object_list[:] = objs


def all_gather_object(object_list, obj, group=None):
    """``object_list[j]`` becomes rank j's ``obj`` (the list has ``size`` slots)."""
    pg = resolve(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} slots for a "
                         f"group of {pg.size()}")
    data = pickle.dumps(obj)
    for j, b in enumerate(_run(pg, lambda seq: pg.all_gather_bytes(seq, data))):
        object_list[j] = pickle.loads(b)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """On rank ``dst``, ``object_gather_list[j]`` becomes rank j's ``obj``."""
    pg = resolve(group)
    if pg is None:
        return
    root = group_root(pg, "gather", dst, group_dst)
    is_root = pg.rank() == root
    if is_root and not object_gather_list:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination "
                         "rank.")
    if not is_root and object_gather_list:
        raise ValueError("Argument ``object_gather_list`` must NOT be specified on "
                         "non-destination ranks.")
    if is_root and len(object_gather_list) != pg.size():
        raise ValueError(f"gather_object: object_gather_list has {len(object_gather_list)} "
                         f"slots for a group of {pg.size()}")
    data = pickle.dumps(obj)
    got = _run(pg, lambda seq: pg.gather_bytes(seq, data, root))
    if is_root:
        for j, b in enumerate(got):
            object_gather_list[j] = pickle.loads(b)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """``scatter_object_output_list[0]`` becomes rank ``src``'s
    ``scatter_object_input_list[this rank]``."""
    if not isinstance(scatter_object_output_list, list) or \
            len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    pg = resolve(group)
    if pg is None:
        return
    root = group_root(pg, "scatter", src, group_src)
    datas = None
    if pg.rank() == root:
        if scatter_object_input_list is None or \
                len(scatter_object_input_list) != pg.size():
            raise ValueError(f"scatter_object_list: the source needs "
                             f"scatter_object_input_list with {pg.size()} objects")
        datas = [pickle.dumps(o) for o in scatter_object_input_list]
    scatter_object_output_list[0] = pickle.loads(
        _run(pg, lambda seq: pg.scatter_bytes(seq, datas, root)))


def _dumps(obj, weights_only):
    if not weights_only:
        return pickle.dumps(obj)
    from ..serialization import save
    f = io.BytesIO()
    save(obj, f)
    return f.getvalue()


def _loads(data, weights_only):
    if not weights_only:
        return pickle.loads(data)
    from ..serialization import load
    return load(io.BytesIO(data), weights_only=True)


def _p2p_peer(pg, rank, group_rank, role):
    """The peer's global rank, refusing this process (PyTorch's message)."""
    from .p2p import _peer
    peer = _peer(pg, rank, group_rank, "send" if role == "destination" else "recv")
    if peer is None and role == "destination":
        raise ValueError("send_object_list: a destination (dst or group_dst) is required")
    if peer == pg.mesh.rank:
        raise ValueError(f"Invalid {role} rank: {role} rank should not be the same as the rank "
                         f"of the current process.")
    return peer


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch=False, weights_only=False):
    """Send the objects of ``object_list`` to rank ``dst`` (its
    ``recv_object_list`` takes a list of the same length): their sizes, then
    their bytes.  ``weights_only=True`` serializes with ``torchlike.save``
    so that the receiver can load them without running pickled code."""
    from .p2p import send
    pg = resolve(group)
    if pg is None:
        return
    peer = _p2p_peer(pg, dst, group_dst, "destination")
    datas = [_dumps(o, weights_only) for o in object_list]
    send(_C.tensor([len(d) for d in datas], dtype=_C.int64), dst=peer, group=pg)
    payload = b"".join(datas)
    send(_C.frombuffer(bytearray(payload), dtype=_C.uint8) if payload
         else _C.empty(0, dtype=_C.uint8), dst=peer, group=pg)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch=False, weights_only=False):
    """Fill ``object_list`` (in place) with the objects rank ``src`` (None:
    any rank) sent with ``send_object_list``; the sender's global rank.
    ``weights_only=True`` loads with ``torchlike.load(weights_only=True)``
    (the sender must have used it too)."""
    from .p2p import recv
    pg = resolve(group)
    if pg is None:
        return -1
    peer = _p2p_peer(pg, src, group_src, "source")
    sizes = _C.empty(len(object_list), dtype=_C.int64)
    sender = recv(sizes, src=peer, group=pg)
    sizes = [int(n) for n in sizes.tolist()]
    data = _C.empty(sum(sizes), dtype=_C.uint8)
    if recv(data, src=sender, group=pg) != sender:
        raise AssertionError("Mismatch in return ranks for object sizes and objects.")
    raw = data.numpy().tobytes()
    offset = 0
    for i, n in enumerate(sizes):
        object_list[i] = _loads(raw[offset:offset + n], weights_only)
        offset += n
    return sender
