"""TCPStore: a key-value store served by one process (the master) over TCP,
used by every rank for rendezvous.

Protocol (little-endian): a request is ``op:u8, nfields:u32`` then each field
as ``len:u32, bytes``; the reply is ``status:u8, nfields:u32`` and fields.
Numbers travel as decimal ASCII.  Blocking waits run on the server (one
thread per client connection), bounded by the timeout the client sends; a
timeout comes back as status 1 and is raised as ``DistStoreError("Wait
timeout")``.  Nothing is unpickled: a peer can only set and read bytes."""
import datetime
import socket
import struct
import threading
import time

from .constants import DistNetworkError, DistStoreError
from .store import Store, _Table, _as_bytes, _seconds, apply_add, apply_compare_set, _append

__all__ = ["TCPStore"]

_HEAD = struct.Struct("<BI")
_LEN = struct.Struct("<I")
(_SET, _GET, _ADD, _CAS, _WAIT, _CHECK, _DELETE, _NUMKEYS, _APPEND, _MULTIGET,
 _PING) = range(11)
_OK, _TIMEOUT, _ERROR = range(3)
_WORKERS = "\0workers"  # clients that joined; not counted by num_keys


def _recv_exact(sock, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("connection closed")
        got += k
    return bytes(buf)


def _send_frame(sock, code, fields):
    parts = [_HEAD.pack(code, len(fields))]
    for f in fields:
        parts += [_LEN.pack(len(f)), f]
    sock.sendall(b"".join(parts))


def _recv_frame(sock):
    code, n = _HEAD.unpack(_recv_exact(sock, _HEAD.size))
    fields = []
    for _ in range(n):
        (size,) = _LEN.unpack(_recv_exact(sock, _LEN.size))
        fields.append(_recv_exact(sock, size) if size else b"")
    return code, fields


def _num(b):
    return int(b.decode())


class _Server:
    """The master's table and the threads that serve it."""

    def __init__(self, host, port):
        self.table = _Table()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError as e:
            self.sock.close()
            raise DistNetworkError(f"The server socket has failed to listen on any local "
                                   f"network address. port: {port}, useIpv6: 0, code: "
                                   f"{e.errno}, name: {e.strerror}") from None
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True,
                         name="tcpstore-accept").start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True,
                             name="tcpstore-client").start()

    def _serve(self, conn):
        with conn:
            while True:
                try:
                    op, fields = _recv_frame(conn)
                except (ConnectionError, OSError):
                    return
                try:
                    status, out = _OK, self._handle(op, fields)
                except DistStoreError:
                    status, out = _TIMEOUT, []
                except Exception as e:  # a malformed request: tell the client
                    status, out = _ERROR, [str(e).encode()]
                try:
                    _send_frame(conn, status, out)
                except OSError:
                    return

    def _handle(self, op, f):
        t = self.table
        if op == _SET:
            t.set(f[0].decode(), f[1])
            return []
        if op == _GET:
            return [t.get(f[0].decode(), time.monotonic() + float(f[1]))]
        if op == _ADD:
            return [str(t.update(apply_add, f[0].decode(), _num(f[1]))).encode()]
        if op == _CAS:
            return [t.update(apply_compare_set, f[0].decode(), f[1], f[2])]
        if op == _WAIT:
            t.wait([k.decode() for k in f[1:]], time.monotonic() + float(f[0]))
            return []
        if op == _CHECK:
            return [b"1" if t.check([k.decode() for k in f]) else b"0"]
        if op == _DELETE:
            return [b"1" if t.delete(f[0].decode()) else b"0"]
        if op == _NUMKEYS:
            with t.cond:
                return [str(sum(1 for k in t.data if not k.startswith("\0"))).encode()]
        if op == _APPEND:
            t.update(_append, f[0].decode(), f[1])
            return []
        if op == _MULTIGET:
            deadline = time.monotonic() + float(f[0])
            return [t.get(k.decode(), deadline) for k in f[1:]]
        if op == _PING:
            return []
        raise ValueError(f"unknown TCPStore request {op}")

    def close(self):
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class TCPStore(Store):
    """``TCPStore(host_name, port, world_size=None, is_master=False,
    timeout=timedelta(seconds=300), wait_for_workers=True)``.

    The master serves the table on ``port`` (0: a free port, then read
    ``store.port``) on every interface; every instance, the master's
    included, is a client connecting to ``host_name:port``, retrying until
    ``timeout``.  With ``wait_for_workers`` the master's constructor returns
    once ``world_size`` clients have joined."""

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=None, wait_for_workers=True, multi_tenant=False,
                 master_listen_fd=None, use_libuv=True):
        super().__init__(timeout if timeout is not None else datetime.timedelta(seconds=300))
        self.host = host_name
        self.world_size = world_size
        self._server = _Server("", port) if is_master else None
        self.port = self._server.port if is_master else port
        self._lock = threading.Lock()
        self._sock = self._connect()
        self.libuvBackend = False
        self.add(_WORKERS, 1)
        if is_master and wait_for_workers and world_size:
            self._wait_for_workers(world_size)

    def _connect(self):
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                sock = socket.create_connection((self.host, self.port),
                                                timeout=max(0.1, deadline - time.monotonic()))
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(None)
                return sock
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(
                        f"The client socket has timed out after {self._timeout:g}s while "
                        f"trying to connect to ({self.host}, {self.port}): {e}") from None
                time.sleep(0.05)

    def _wait_for_workers(self, world_size):
        deadline = time.monotonic() + self._timeout
        while True:
            joined = int(self._request(_GET, [_WORKERS.encode(), b"0"])[0])
            if joined >= world_size:
                return
            if time.monotonic() >= deadline:
                raise DistStoreError(f"Timed out after {self._timeout:g} seconds waiting for "
                                     f"clients. {joined}/{world_size} clients joined.")
            time.sleep(0.01)

    def _request(self, op, fields, wait=None):
        with self._lock:
            # a server-side wait answers within `wait` seconds; allow for the network
            self._sock.settimeout(None if wait is None else wait + 30.0)
            try:
                _send_frame(self._sock, op, fields)
                status, out = _recv_frame(self._sock)
            except (ConnectionError, OSError) as e:
                raise DistNetworkError(f"TCPStore connection to {self.host}:{self.port} "
                                       f"failed: {e}") from None
        if status == _TIMEOUT:
            raise DistStoreError("Wait timeout")
        if status == _ERROR:
            raise DistStoreError(out[0].decode())
        return out

    def _wait_seconds(self, timeout):
        return self._timeout if timeout is None else _seconds(timeout)

    def set(self, key, value):
        self._request(_SET, [key.encode(), _as_bytes(value)])

    def get(self, key):
        w = self._timeout
        return self._request(_GET, [key.encode(), repr(w).encode()], wait=w)[0]

    def add(self, key, amount):
        return int(self._request(_ADD, [key.encode(), str(int(amount)).encode()])[0])

    def append(self, key, value):
        self._request(_APPEND, [key.encode(), _as_bytes(value)])

    def compare_set(self, key, expected_value, desired_value):
        return self._request(_CAS, [key.encode(), _as_bytes(expected_value),
                                    _as_bytes(desired_value)])[0]

    def wait(self, keys, timeout=None):
        w = self._wait_seconds(timeout)
        self._request(_WAIT, [repr(w).encode()] + [k.encode() for k in keys], wait=w)

    def multi_get(self, keys):
        w = self._timeout
        return self._request(_MULTIGET, [repr(w).encode()] + [k.encode() for k in keys],
                             wait=w)

    def check(self, keys):
        return self._request(_CHECK, [k.encode() for k in keys])[0] == b"1"

    def delete_key(self, key):
        return self._request(_DELETE, [key.encode()])[0] == b"1"

    def num_keys(self):
        return int(self._request(_NUMKEYS, [])[0])

    def local_address(self):
        """The address of this client's end of the connection: the interface
        through which this host reaches the master."""
        return self._sock.getsockname()[0]

    def close(self):
        try:
            self._sock.close()
        finally:
            if self._server is not None:
                self._server.close()
                self._server = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
