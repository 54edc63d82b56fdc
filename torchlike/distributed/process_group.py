"""ProcessGroup: a set of ranks and the algorithms of the collectives on
their host arrays, over the transport's mesh.

Every method here runs on the worker thread (or, for point-to-point, in the
caller) and takes a sequence number fixed when the caller issued the
operation, so the messages of concurrent operations never mix.

Algorithms: small all-reduces (at most ``RING_MIN_BYTES``) send the whole
buffer to every peer and each rank combines the contributions in group-rank
order; larger ones run a ring (reduce-scatter then all-gather of ``size``
chunks), which sends ``2 (size-1)/size`` of the buffer per rank whatever the
group size.  The ring moves each chunk in segments: a segment is combined
while the next ones are on the wire, and every receive is posted before the
matching send, so payloads land in place (the tensor itself, or a scratch
buffer kept by the group for the values to combine).  Either way every rank
ends with bit-identical results.  The other collectives send each piece
straight to the rank that needs it.
Every received message is checked against what this rank expects (dtype and
byte count), so tensors that differ between ranks raise instead of being
silently misread."""
import functools
import threading

import numpy as np

from .arrays import _BYTES, combine, dtype_name, finish_avg
from .constants import DistBackendError
from .transport import COLLECTIVE, P2P, byte_view

__all__ = ["ProcessGroup"]

RING_MIN_BYTES = 256 * 1024
SEGMENT_BYTES = 4 << 20  # the ring moves chunks in pieces of this size, pipelined


def _chunks(n, parts):
    """Start and stop of ``parts`` near-equal slices of range(n)."""
    base, extra = divmod(n, parts)
    bounds = [0]
    for i in range(parts):
        bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    return bounds


def _forget_on_error(method):
    """A collective ``method(self, seq, ...)`` that, when it fails, drops the
    receive buffers it posted."""
    @functools.wraps(method)
    def run(self, seq, *args, **kwargs):
        try:
            return method(self, seq, *args, **kwargs)
        except BaseException:
            self.mesh.forget(COLLECTIVE, self.gid, seq)
            raise
    return run


class ProcessGroup:
    """Ranks ``ranks`` (global ranks, in group-rank order) of the world mesh.

    ``rank()`` and ``size()`` are this process's group rank and the group's
    size, as PyTorch's ProcessGroup."""

    def __init__(self, mesh, gid, ranks, timeout, backend, name):
        self.mesh = mesh
        self.gid = gid
        self.ranks = list(ranks)
        self.timeout = timeout
        self.backend = backend
        self.group_name = name
        self._rank = self.ranks.index(mesh.rank)
        self._size = len(self.ranks)
        self._seq = 0
        self._p2p_counts = {}
        self._p2p_lock = threading.Lock()
        self._scratch = np.empty(0, np.uint8)

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return self.backend

    def __repr__(self):
        return f"<ProcessGroup {self.group_name} ranks={self.ranks} backend={self.backend}>"

    def next_seq(self):
        self._seq += 1
        return self._seq

    # ---- messages between group ranks ---------------------------------------------
    def send(self, to, seq, step, code, payload):
        self.mesh.send(self.ranks[to], COLLECTIVE, self.gid, seq, step, code, payload)

    def recv(self, frm, seq, step, code, nbytes, what, timeout=None):
        """The payload of group rank ``frm``'s message, checked to hold
        ``nbytes`` (None: any) of dtype ``code``."""
        got_code, payload = self.mesh.recv(self.ranks[frm], COLLECTIVE, self.gid, seq, step,
                                           self.timeout if timeout is None else timeout)
        if got_code != code or (nbytes is not None and len(payload) != nbytes):
            raise DistBackendError(
                f"{what}: rank {self.ranks[frm]} sent {len(payload)} bytes of "
                f"{dtype_name(got_code)} where rank {self.mesh.rank} expected "
                f"{'some' if nbytes is None else nbytes} bytes of {dtype_name(code)}: the "
                f"tensors' shapes or dtypes differ between ranks")
        return payload

    def post(self, frm, seq, step, target):
        """Let group rank ``frm``'s message land straight in ``target`` (a
        C-contiguous array)."""
        self.mesh.post(self.ranks[frm], COLLECTIVE, self.gid, seq, step, byte_view(target))

    def recv_into(self, frm, seq, step, code, target, what):
        """Group rank ``frm``'s message, checked, in ``target`` (posted or copied)."""
        payload = self.recv(frm, seq, step, code, target.nbytes, what)
        if not np.may_share_memory(np.asarray(payload), target):  # it came before the post
            target[...] = np.frombuffer(payload, dtype=target.dtype).reshape(target.shape)

    def scratch(self, like):
        """A flat array of ``like``'s dtype and size, reused between calls."""
        if self._scratch.nbytes < like.nbytes:
            self._scratch = np.empty(like.nbytes, np.uint8)
        return self._scratch[:like.nbytes].view(like.dtype)

    def _peers(self):
        return [j for j in range(self._size) if j != self._rank]

    # ---- collectives on flat arrays -------------------------------------------------
    @_forget_on_error
    def all_reduce(self, seq, arr, code, op, bf16=False):
        if self._size > 1:
            if arr.nbytes <= RING_MIN_BYTES or arr.size < self._size:
                self._all_reduce_direct(seq, arr, code, op, bf16)
            else:
                self._all_reduce_ring(seq, arr, code, op, bf16)
        finish_avg(op, arr, self._size, bf16)

    def _combine_ranks(self, parts, mine, op, bf16):
        """op over every rank's part in rank order, so every rank rounds the
        same way: parts maps each peer to its bytes, mine is this rank's
        array.  A new array."""
        acc = np.array(mine if self._rank == 0 else np.frombuffer(parts[0], dtype=mine.dtype))
        for j in range(1, self._size):
            combine(op, acc, mine if j == self._rank else parts[j], bf16)
        return acc

    def _all_reduce_direct(self, seq, arr, code, op, bf16):
        for j in self._peers():
            self.send(j, seq, 0, code, arr)
        parts = {j: self.recv(j, seq, 0, code, arr.nbytes, "all_reduce") for j in self._peers()}
        arr[...] = self._combine_ranks(parts, arr, op, bf16)

    def _all_reduce_ring(self, seq, arr, code, op, bf16):
        n, r = self._size, self._rank
        bounds = _chunks(arr.size, n)
        seg = max(1, SEGMENT_BYTES // arr.itemsize)

        def chunk(c):
            return arr[bounds[c]:bounds[c + 1]]

        def pieces(a):
            return [a[i:i + seg] for i in range(0, a.size, seg)]

        nxt, prv = (r + 1) % n, (r - 1) % n
        # step ids: (phase step << 32) | segment
        for s in range(n - 1):  # reduce-scatter: rank r ends with chunk r+1 reduced
            out_c, in_c = (r - s) % n, (r - s - 1) % n
            target = chunk(in_c)
            incoming = pieces(self.scratch(target))
            for k, piece in enumerate(incoming):
                self.post(prv, seq, (s << 32) | k, piece)
            mine = pieces(target)
            for k, piece in enumerate(pieces(chunk(out_c))):
                self.send(nxt, seq, (s << 32) | k, code, piece)
                if k:  # combine the previous segment while this one travels
                    self._take_combine(prv, seq, s, k - 1, code, incoming, mine, op, bf16)
            for k in range(max(0, len(pieces(chunk(out_c))) - 1), len(incoming)):
                self._take_combine(prv, seq, s, k, code, incoming, mine, op, bf16)
        for s in range(n - 1):  # all-gather of the reduced chunks, received in place
            step = n - 1 + s
            out_c, in_c = (r + 1 - s) % n, (r - s) % n
            incoming = pieces(chunk(in_c))
            for k, piece in enumerate(incoming):
                self.post(prv, seq, (step << 32) | k, piece)
            for k, piece in enumerate(pieces(chunk(out_c))):
                self.send(nxt, seq, (step << 32) | k, code, piece)
            for k, piece in enumerate(incoming):
                self.recv_into(prv, seq, (step << 32) | k, code, piece, "all_reduce")

    def _take_combine(self, prv, seq, s, k, code, incoming, mine, op, bf16):
        if k < len(incoming):
            self.recv_into(prv, seq, (s << 32) | k, code, incoming[k], "all_reduce")
            combine(op, mine[k], incoming[k], bf16)

    @_forget_on_error
    def broadcast(self, seq, arr, code, root):
        if self._rank == root:
            for j in self._peers():
                self.send(j, seq, 0, code, arr)
        else:
            self.post(root, seq, 0, arr)
            self.recv_into(root, seq, 0, code, arr, "broadcast")

    def reduce(self, seq, arr, code, op, root, bf16=False):
        if self._rank != root:
            self.send(root, seq, 0, code, arr)
            return
        parts = {j: self.recv(j, seq, 0, code, arr.nbytes, "reduce") for j in self._peers()}
        acc = self._combine_ranks(parts, arr, op, bf16)
        finish_avg(op, acc, self._size, bf16)
        arr[...] = acc

    @_forget_on_error
    def all_gather(self, seq, outs, arr, code):
        """``outs[j] = rank j's arr`` for every group rank j."""
        for j in self._peers():
            self.post(j, seq, 0, outs[j])
        for j in self._peers():
            self.send(j, seq, 0, code, arr)
        outs[self._rank][...] = arr
        for j in self._peers():
            self.recv_into(j, seq, 0, code, outs[j], "all_gather")

    @_forget_on_error
    def gather(self, seq, outs, arr, code, root):
        if self._rank != root:
            self.send(root, seq, 0, code, arr)
            return
        for j in self._peers():
            self.post(j, seq, 0, outs[j])
        outs[root][...] = arr
        for j in self._peers():
            self.recv_into(j, seq, 0, code, outs[j], "gather")

    @_forget_on_error
    def scatter(self, seq, out, ins, code, root):
        if self._rank == root:
            for j in self._peers():
                self.send(j, seq, 0, code, ins[j])
            out[...] = ins[root]
        else:
            self.post(root, seq, 0, out)
            self.recv_into(root, seq, 0, code, out, "scatter")

    def reduce_scatter(self, seq, out, ins, code, op, bf16=False):
        """``out = op over ranks of their ins[this rank]``, in rank order."""
        for j in self._peers():
            self.send(j, seq, 0, code, ins[j])
        parts = {j: self.recv(j, seq, 0, code, out.nbytes, "reduce_scatter")
                 for j in self._peers()}
        acc = self._combine_ranks(parts, ins[self._rank], op, bf16)
        finish_avg(op, acc, self._size, bf16)
        out[...] = acc

    @_forget_on_error
    def all_to_all(self, seq, outs, ins, code):
        """``outs[j] = rank j's ins[this rank]``."""
        for j in self._peers():
            self.post(j, seq, 0, outs[j])
        for j in self._peers():
            self.send(j, seq, 0, code, ins[j])
        outs[self._rank][...] = ins[self._rank]
        for j in self._peers():
            self.recv_into(j, seq, 0, code, outs[j], "all_to_all")

    def barrier(self, seq):
        for j in self._peers():
            self.send(j, seq, 0, _BYTES, b"")
        for j in self._peers():
            self.recv(j, seq, 0, _BYTES, 0, "barrier")

    def monitored_barrier(self, seq, timeout, wait_all_ranks):
        """Rank 0 hears from every rank within ``timeout``, naming those it
        did not (the first, or all with ``wait_all_ranks``), then releases them."""
        if self._rank != 0:
            self.send(0, seq, 0, _BYTES, b"")
            self.recv(0, seq, 1, _BYTES, 0, "monitored_barrier", timeout)
            return
        failed = []
        for j in self._peers():
            try:
                self.recv(j, seq, 0, _BYTES, 0, "monitored_barrier", timeout)
            except DistBackendError:
                failed.append(self.ranks[j])
                if not wait_all_ranks:
                    break
        ms = int(timeout * 1000)
        if len(failed) == 1 and not wait_all_ranks:
            raise DistBackendError(f"[Rank 0]: Rank {failed[0]} failed to pass "
                                   f"monitoredBarrier in {ms} ms")
        if failed:
            raise DistBackendError(f"[Rank 0]: Ranks {', '.join(map(str, failed))} failed to "
                                   f"pass monitoredBarrier in {ms} ms")
        for j in self._peers():
            self.send(j, seq, 1, _BYTES, b"")

    # ---- byte strings (object collectives) ------------------------------------------
    def all_gather_bytes(self, seq, data):
        for j in self._peers():
            self.send(j, seq, 0, _BYTES, data)
        return [data if j == self._rank else bytes(self.recv(j, seq, 0, _BYTES, None,
                                                             "all_gather_object"))
                for j in range(self._size)]

    def gather_bytes(self, seq, data, root):
        if self._rank != root:
            self.send(root, seq, 0, _BYTES, data)
            return None
        return [data if j == root else bytes(self.recv(j, seq, 0, _BYTES, None,
                                                       "gather_object"))
                for j in range(self._size)]

    def scatter_bytes(self, seq, datas, root):
        if self._rank == root:
            for j in self._peers():
                self.send(j, seq, 0, _BYTES, datas[j])
            return datas[root]
        return bytes(self.recv(root, seq, 0, _BYTES, None, "scatter_object_list"))

    def broadcast_bytes(self, seq, data, root):
        if self._rank == root:
            for j in self._peers():
                self.send(j, seq, 0, _BYTES, data)
            return data
        return bytes(self.recv(root, seq, 0, _BYTES, None, "broadcast_object_list"))

    # ---- point to point (global ranks) --------------------------------------------
    def _p2p_count(self, side, peer, tag):
        with self._p2p_lock:
            key = (side, peer, tag)
            n = self._p2p_counts.get(key, 0)
            self._p2p_counts[key] = n + 1
            return n

    def p2p_send(self, dst, arr, code, tag):
        n = self._p2p_count("send", dst, tag)
        self.mesh.send(dst, P2P, self.gid, tag, n, code, arr)

    def p2p_recv(self, src, arr, code, tag):
        """Receive into ``arr`` from global rank ``src`` (None: any member);
        returns the source."""
        if src is None:
            srcs = [g for g in self.ranks if g != self.mesh.rank]
            with self._p2p_lock:  # the count a source's next message carries
                counts = {s: self._p2p_counts.get(("recv", s, tag), 0) for s in srcs}
            src, got_code, payload = self.mesh.recv_any(
                srcs, lambda s: (s, P2P, self.gid, tag, counts[s]), self.timeout)
            self._p2p_count("recv", src, tag)
        else:
            n = self._p2p_count("recv", src, tag)
            self.mesh.post(src, P2P, self.gid, tag, n, byte_view(arr))
            got_code, payload = self.mesh.recv(src, P2P, self.gid, tag, n, self.timeout)
        if got_code != code or len(payload) != arr.nbytes:
            raise DistBackendError(
                f"recv: rank {src} sent {len(payload)} bytes of {dtype_name(got_code)} where "
                f"rank {self.mesh.rank} expected {arr.nbytes} bytes of {dtype_name(code)}: "
                f"the sent and received tensors differ in shape or dtype")
        if not np.may_share_memory(np.asarray(payload), arr):
            arr[...] = np.frombuffer(payload, dtype=arr.dtype)
        return src

