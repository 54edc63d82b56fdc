"""The TCP transport between ranks: one connection per pair of ranks (a
full mesh), set up through the store, and a reader thread per connection
that files every incoming message in a mailbox.

A message is a header ``kind:i32, group:i32, seq:i64, step:i64, dtype:i32,
nbytes:i64`` then ``nbytes`` of payload.  The mailbox is keyed by
``(src, kind, group, seq, step)``: a collective names its group, its
sequence number in that group and its step, a point-to-point message its tag
and its count for that (peer, tag), so messages of different operations
never mix whatever order they arrive in.  Because the readers always drain
their sockets, a send never waits for the receiver to post a receive, and
two ranks sending large buffers to each other at once cannot deadlock.

A receiver that knows where a message must land posts that buffer first
(``post``): the reader then receives the payload straight into it, with no
intermediate copy or allocation.  A message that arrives before its buffer
was posted (or whose size differs) lands in a fresh buffer instead, and the
waiter copies it or reports the mismatch.

Waiting for a message is bounded by the group's timeout; a peer whose
connection closes makes every wait on it raise."""
import collections
import socket
import struct
import threading
import time

import numpy as np

from .constants import DistBackendError, DistNetworkError

__all__ = ["Mesh", "COLLECTIVE", "P2P"]

_HEADER = struct.Struct("<iiqqiq")
_HELLO = struct.Struct("<q")
COLLECTIVE, P2P = 0, 1
_SMALL = 1 << 16  # payloads below this go out in one send with their header


def _recv_into(sock, view):
    got = 0
    n = len(view)
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("connection closed")
        got += k


def byte_view(arr):
    """A flat byte memoryview of a C-contiguous ndarray (no copy)."""
    return memoryview(arr.reshape(-1).view(np.uint8))


class Mesh:
    """Connections from this rank to every other rank of the world."""

    def __init__(self, store, rank, world_size, timeout):
        self.rank = rank
        self.world_size = world_size
        self.timeout = timeout
        self.socks = {}
        self._send_locks = {}
        self._box = collections.defaultdict(collections.deque)
        self._cond = threading.Condition()
        self._dead = {}  # src -> why its connection ended
        self._posted = {}  # key -> a writable byte memoryview the payload goes into
        self._closing = False
        if world_size > 1:
            self._connect_all(store)

    # ---- setup -----------------------------------------------------------------
    def _connect_all(self, store):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("", 0))
        listener.listen(self.world_size)
        host = store.local_address() if hasattr(store, "local_address") else "127.0.0.1"
        store.set(f"addr/{self.rank}", f"{host}:{listener.getsockname()[1]}")
        deadline = time.monotonic() + self.timeout
        try:
            for peer in range(self.rank):  # connect down, accept from above
                host, port = store.get(f"addr/{peer}").decode().rsplit(":", 1)
                sock = self._dial(host, int(port), deadline)
                sock.sendall(_HELLO.pack(self.rank))
                self._add(peer, sock)
            while len(self.socks) < self.world_size - 1:
                listener.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    sock, _ = listener.accept()
                except socket.timeout:
                    raise DistNetworkError(
                        f"[rank {self.rank}] timed out after {self.timeout:g}s waiting for "
                        f"{self.world_size - 1 - len(self.socks)} peer(s) to connect") from None
                sock.settimeout(None)
                hello = bytearray(_HELLO.size)
                _recv_into(sock, memoryview(hello))
                self._add(_HELLO.unpack(hello)[0], sock)
        finally:
            listener.close()
        for peer, sock in self.socks.items():
            threading.Thread(target=self._read, args=(peer, sock), daemon=True,
                             name=f"dist-recv-{peer}").start()

    def _dial(self, host, port, deadline):
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=5)
                sock.settimeout(None)
                return sock
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(f"[rank {self.rank}] could not connect to "
                                           f"{host}:{port}: {e}") from None
                time.sleep(0.02)

    def _add(self, peer, sock):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socks[peer] = sock
        self._send_locks[peer] = threading.Lock()

    # ---- receiving -------------------------------------------------------------
    def _read(self, peer, sock):
        head = bytearray(_HEADER.size)
        try:
            while True:
                _recv_into(sock, memoryview(head))
                kind, group, seq, step, dtype, nbytes = _HEADER.unpack(head)
                key = (peer, kind, group, seq, step)
                with self._cond:
                    payload = self._posted.pop(key, None)
                if payload is None or len(payload) != nbytes:
                    payload = memoryview(np.empty(nbytes, np.uint8))  # not zeroed: filled next
                if nbytes:
                    _recv_into(sock, payload)
                with self._cond:
                    self._box[key].append((dtype, payload))
                    self._cond.notify_all()
        except (ConnectionError, OSError) as e:
            with self._cond:
                self._dead[peer] = "closed" if self._closing else str(e)
                self._cond.notify_all()
        sock.close()

    def _peer_error(self, src):
        return DistBackendError(
            f"[rank {self.rank}] Connection closed by peer rank {src}. This is typically "
            f"caused by a remote worker crashing or leaving the group early.")

    def _timeout_error(self, src, timeout):
        return DistBackendError(f"[rank {self.rank}] Timed out waiting {timeout * 1000:.0f}ms "
                                f"for recv operation to complete (from rank {src})")

    def post(self, src, kind, group, seq, step, target):
        """Have the message with this key received straight into ``target``
        (a writable byte memoryview) if it has not arrived yet."""
        key = (src, kind, group, seq, step)
        with self._cond:
            if not self._box.get(key):
                self._posted[key] = target

    def forget(self, kind, group, seq):
        """Drop the buffers posted for an operation that failed, so that a
        late message never writes into memory a later operation uses."""
        with self._cond:
            for key in [k for k in self._posted if k[1:4] == (kind, group, seq)]:
                del self._posted[key]

    def recv(self, src, kind, group, seq, step, timeout=None):
        """(dtype code, payload) of the message with this key: the posted
        buffer when it went there, else a byte memoryview of its own."""
        timeout = self.timeout if timeout is None else timeout
        key = (src, kind, group, seq, step)
        deadline = time.monotonic() + timeout
        with self._cond:
            try:
                return self._wait(key, src, deadline, timeout)
            finally:
                self._posted.pop(key, None)  # never written after its waiter left

    def _wait(self, key, src, deadline, timeout):
        with self._cond:
            while True:
                box = self._box.get(key)
                if box:
                    item = box.popleft()
                    if not box:
                        del self._box[key]
                    return item
                if src in self._dead:
                    raise self._peer_error(src)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._timeout_error(src, timeout)
                self._cond.wait(left)

    def recv_any(self, srcs, key_of, timeout=None):
        """The first message present among ``key_of(src)`` for src in ``srcs``:
        (src, dtype code, payload)."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for src in srcs:
                    key = key_of(src)
                    box = self._box.get(key)
                    if box:
                        item = box.popleft()
                        if not box:
                            del self._box[key]
                        return (src,) + item
                if all(s in self._dead for s in srcs):
                    raise self._peer_error(srcs[0])
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._timeout_error("any", timeout)
                self._cond.wait(left)

    # ---- sending ---------------------------------------------------------------
    def send(self, dst, kind, group, seq, step, dtype, payload):
        """Send ``payload`` (bytes or a C-contiguous ndarray) to ``dst``."""
        if isinstance(payload, np.ndarray):
            payload = byte_view(payload)
        head = _HEADER.pack(kind, group, seq, step, dtype, len(payload))
        sock = self.socks.get(dst)
        if sock is None:
            raise DistBackendError(f"[rank {self.rank}] no connection to rank {dst}")
        try:
            with self._send_locks[dst]:
                if len(payload) < _SMALL:
                    sock.sendall(head + bytes(payload))
                else:
                    sock.sendall(head)
                    sock.sendall(payload)
        except OSError:
            raise self._peer_error(dst) from None

    def close(self):
        """Half-close every connection: what was sent still arrives (the FIN
        follows it), and each reader keeps draining until its peer closes
        too, then closes the socket; nothing is reset under a peer."""
        with self._cond:
            self._closing = True
        for sock in self.socks.values():
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        self.socks = {}
