"""Key-value stores for rendezvous: the ``Store`` interface, ``HashStore``
(one process), ``PrefixStore`` (a namespace in another store) and
``FileStore`` (processes sharing a file).  ``TCPStore`` is in tcp_store.py.

Semantics are PyTorch's: values are bytes (a str is stored UTF-8 encoded);
``add`` keeps a decimal counter (``get`` then returns it as bytes);
``compare_set(key, expected, desired)`` sets ``desired`` when the current
value is ``expected`` (or the key is missing and ``expected`` is empty) and
returns the value now held (``expected`` itself when the key is missing and
``expected`` is not empty); ``get`` and ``wait`` block until the keys exist
and raise ``DistStoreError("Wait timeout")`` after the store's timeout."""
import datetime
import fcntl
import os
import pickle
import threading
import time

from .constants import DistStoreError, default_pg_timeout

__all__ = ["Store", "HashStore", "PrefixStore", "FileStore"]


def _as_bytes(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):  # PyTorch also takes a list of byte values
        return bytes(value)
    raise TypeError(f"a store value must be str or bytes, got {type(value).__name__}")


def _seconds(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def apply_compare_set(data, key, expected, desired):
    """The compare_set rule on the dict ``data``; returns the value now held."""
    current = data.get(key)
    if current is None:
        if expected == b"":
            data[key] = desired
            return desired
        return expected
    if current == expected:
        data[key] = desired
        return desired
    return current


def apply_add(data, key, amount):
    value = int(data.get(key, b"0")) + int(amount)
    data[key] = str(value).encode()
    return value


class Store:
    """The interface of every store: ``set``, ``get``, ``add``,
    ``compare_set``, ``wait``, ``check``, ``delete_key``, ``num_keys``,
    ``append``, ``multi_get``/``multi_set`` and a ``timeout``."""

    def __init__(self, timeout=default_pg_timeout):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self):
        return datetime.timedelta(seconds=self._timeout)

    def set_timeout(self, timeout):
        self._timeout = _seconds(timeout)

    def _deadline(self, timeout):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        return time.monotonic() + seconds

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)

    def has_extended_api(self):
        return True


class _Table:
    """A dict of bytes under one condition variable: the state of a HashStore
    and of a TCPStore's server."""

    def __init__(self):
        self.data = {}
        self.cond = threading.Condition()

    def set(self, key, value):
        with self.cond:
            self.data[key] = value
            self.cond.notify_all()

    def wait(self, keys, deadline):
        with self.cond:
            while not all(k in self.data for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DistStoreError("Wait timeout")
                self.cond.wait(left)

    def get(self, key, deadline):
        self.wait([key], deadline)
        with self.cond:
            return self.data[key]

    def update(self, fn, *args):
        """``fn(data, *args)`` under the lock, waking waiters."""
        with self.cond:
            out = fn(self.data, *args)
            self.cond.notify_all()
            return out

    def delete(self, key):
        with self.cond:
            return self.data.pop(key, None) is not None

    def count(self):
        with self.cond:
            return len(self.data)

    def check(self, keys):
        with self.cond:
            return all(k in self.data for k in keys)


def _append(data, key, value):
    data[key] = data.get(key, b"") + value


class HashStore(Store):
    """A store in this process's memory (threads of one process share it)."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def set(self, key, value):
        self._table.set(key, _as_bytes(value))

    def get(self, key):
        return self._table.get(key, self._deadline(None))

    def add(self, key, amount):
        return self._table.update(apply_add, key, amount)

    def append(self, key, value):
        self._table.update(_append, key, _as_bytes(value))

    def compare_set(self, key, expected_value, desired_value):
        return self._table.update(apply_compare_set, key, _as_bytes(expected_value),
                                  _as_bytes(desired_value))

    def wait(self, keys, timeout=None):
        self._table.wait(list(keys), self._deadline(timeout))

    def check(self, keys):
        return self._table.check(list(keys))

    def delete_key(self, key):
        return self._table.delete(key)

    def num_keys(self):
        return self._table.count()


class PrefixStore(Store):
    """``store`` with every key written as ``prefix + "/" + key``."""

    def __init__(self, prefix, store):
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _key(self, key):
        return f"{self.prefix}/{key}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._key(key), value)

    def get(self, key):
        return self.underlying_store.get(self._key(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._key(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._key(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._key(key), expected_value,
                                                 desired_value)

    def wait(self, keys, timeout=None):
        keys = [self._key(k) for k in keys]
        if timeout is None:
            self.underlying_store.wait(keys)
        else:
            self.underlying_store.wait(keys, timeout)

    def check(self, keys):
        return self.underlying_store.check([self._key(k) for k in keys])

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._key(key))

    def num_keys(self):
        return self.underlying_store.num_keys()


class FileStore(Store):
    """A store in a file that processes on one host (or a shared file system)
    open by the same path.  Each operation takes an exclusive ``flock`` and
    rewrites the file's table; waits poll it.  The last user to let go
    (``close``) removes the file, so the path can serve a later run."""

    _POLL = 0.005

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        self._closed = False
        self._locked(lambda data: apply_add(data, "\0users", 1))

    def _locked(self, fn):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(os.dup(fd), "r+b") as f:
                raw = f.read()
                data = pickle.loads(raw) if raw else {}
                before = dict(data)
                out = fn(data)
                if data != before:
                    f.seek(0)
                    f.truncate()
                    f.write(pickle.dumps(data))
            return out
        finally:
            os.close(fd)  # releases the lock

    def _poll(self, keys, deadline):
        while True:
            values = self._locked(lambda data: [data.get(k) for k in keys])
            if all(v is not None for v in values):
                return values
            if time.monotonic() >= deadline:
                raise DistStoreError("Wait timeout")
            time.sleep(self._POLL)

    def set(self, key, value):
        value = _as_bytes(value)
        self._locked(lambda data: data.__setitem__(key, value))

    def get(self, key):
        return self._poll([key], self._deadline(None))[0]

    def add(self, key, amount):
        return self._locked(lambda data: apply_add(data, key, amount))

    def append(self, key, value):
        value = _as_bytes(value)
        self._locked(lambda data: _append(data, key, value))

    def compare_set(self, key, expected_value, desired_value):
        e, d = _as_bytes(expected_value), _as_bytes(desired_value)
        return self._locked(lambda data: apply_compare_set(data, key, e, d))

    def wait(self, keys, timeout=None):
        self._poll(list(keys), self._deadline(timeout))

    def check(self, keys):
        return self._locked(lambda data: all(k in data for k in keys))

    def delete_key(self, key):
        return self._locked(lambda data: data.pop(key, None) is not None)

    def num_keys(self):
        return self._locked(lambda data: sum(1 for k in data if not k.startswith("\0")))

    def close(self):
        """Let go of the file; the last user removes it."""
        if self._closed:
            return
        self._closed = True
        if self._locked(lambda data: apply_add(data, "\0users", -1)) <= 0:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
