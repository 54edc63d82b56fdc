"""DataLoader worker processes: the worker loop, the channel that carries
batches to the main process, and the main process's iterator over them.

Channels.  Each worker has two of its own, so that no lock is shared and a
killed worker can block nobody: an index pipe (main -> worker: ``(idx,
indices)``, ``"resume"`` or None to stop) and a Unix stream socket (worker ->
main).  On the socket a message is a 12-byte header (payload length, number of
descriptors) sent together with the first 64 descriptors (SCM_RIGHTS),
1-byte messages carrying the rest 64 at a time, then the pickled payload.
Tensors in the payload are persistent ids naming a descriptor of the message
(``file_descriptor``) or a segment name (``file_system``): their storages move
into shared memory in the worker and the main process maps the same memory,
so batches are never copied through the socket.

Faults.  The main process waits on the sockets and on every worker's
sentinel together: a worker that dies is seen at once and reported with its
id and signal; ``timeout`` bounds each wait.  A worker checks its parent
every half second and exits when it is gone."""
import io
import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import random
import signal
import socket
import struct
import sys
import time
import traceback

from ... import _C
from ...multiprocessing import get_sharing_strategy, reductions, set_sharing_strategy

_HEADER = struct.Struct("<QI")
_FDS_PER_MESSAGE = 64
_PARENT_CHECK_INTERVAL = 0.5
_SHUTDOWN_GRACE = 2.0

_worker_info = None


class WorkerInfo:
    """What :func:`get_worker_info` returns inside a worker: ``id``,
    ``num_workers``, ``seed`` and ``dataset`` (this worker's copy)."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key, val):
        if getattr(self, "_WorkerInfo__initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """In a DataLoader worker process, its :class:`WorkerInfo`; None in the
    main process.  An IterableDataset uses it to read its own share."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its
    formatted traceback and raised there as the same type."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        try:
            exception = self.exc_type(msg)
        except Exception:  # a constructor that wants other arguments
            raise RuntimeError(msg) from None
        raise exception


class _IterableEnd:
    """A worker's IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _Resumed:
    """A persistent worker has started a new epoch."""


# ---- the channel ------------------------------------------------------------------

class _Pickler(pickle.Pickler):
    def __init__(self, file, fds):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._fds = fds
        self._fd_index = {}

    def persistent_id(self, obj):
        if not isinstance(obj, _C.Tensor):
            return None
        reductions.check_sendable(obj)
        reductions.share_storage(obj)
        kind, handle, nbytes = _C._shared_handle(obj)
        if kind == "file_descriptor":
            index = self._fd_index.get(handle)
            if index is None:
                index = self._fd_index[handle] = len(self._fds)
                self._fds.append(handle)
            ref = (kind, index, nbytes)
        else:
            _C._retain_name(obj)
            ref = (kind, handle, nbytes)
        return (type(obj), ref, obj.dtype, obj.storage_offset(), tuple(obj.shape),
                tuple(obj.stride()), obj.requires_grad)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, fds):
        super().__init__(file)
        self._fds = fds

    def persistent_load(self, pid):
        cls, (kind, handle, nbytes), dtype, offset, size, stride, requires_grad = pid
        if kind == "file_descriptor":
            byte_view = _C._storage_from_fd(self._fds[handle], nbytes)
        else:
            byte_view = _C._storage_from_name(handle, nbytes, True)
        return reductions.tensor_from_bytes(byte_view, cls, dtype, offset, size, stride,
                                            requires_grad)


def _send(sock, obj):
    buf = io.BytesIO()
    fds = []
    _Pickler(buf, fds).dump(obj)
    payload = buf.getbuffer()
    fileno = sock.fileno()
    _C._send_fds(fileno, fds[:_FDS_PER_MESSAGE], _HEADER.pack(len(payload), len(fds)))
    for i in range(_FDS_PER_MESSAGE, len(fds), _FDS_PER_MESSAGE):
        _C._send_fds(fileno, fds[i:i + _FDS_PER_MESSAGE], b"\0")
    sock.sendall(payload)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise EOFError
        got += k
    return buf


def _recv(sock):
    fileno = sock.fileno()
    header, fds = _C._recv_fds(fileno, _FDS_PER_MESSAGE, _HEADER.size)
    try:
        if not header:
            raise EOFError
        if len(header) < _HEADER.size:
            header += _recv_exact(sock, _HEADER.size - len(header))
        length, nfds = _HEADER.unpack(header)
        while len(fds) < nfds:
            byte, more = _C._recv_fds(fileno, _FDS_PER_MESSAGE, 1)
            fds += more
            if not byte:
                raise EOFError
        payload = _recv_exact(sock, length)
        return _Unpickler(io.BytesIO(payload), fds).load()
    finally:
        for fd in fds:
            os.close(fd)


# ---- the worker ---------------------------------------------------------------------

def _numpy_seed(base_seed, worker_id):
    """NumPy's global seed in a worker, as PyTorch derives it: four 32-bit
    words of a SeedSequence over (worker id, the base seed's two halves)."""
    import numpy as np
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32]
                                  ).generate_state(4)


def _worker_loop(fetcher_args, index_conn, result_sock, base_seed, init_fn, worker_id,
                 num_workers, parent_pid, strategy):
    global _worker_info
    from .dataloader import _Fetcher
    try:
        set_sharing_strategy(strategy)
        seed = (base_seed + worker_id) & 0xFFFFFFFFFFFFFFFF
        random.seed(seed)
        _C.manual_seed(seed)
        import numpy as np
        np.random.seed(_numpy_seed(base_seed, worker_id))
        dataset = fetcher_args[0]
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        init_error, fetcher = None, None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _Fetcher(*fetcher_args)
        except Exception:
            init_error = ExceptionWrapper(sys.exc_info(), where)
        while True:
            if not index_conn.poll(_PARENT_CHECK_INTERVAL):
                if os.getppid() != parent_pid:
                    break
                continue
            try:
                msg = index_conn.recv()
            except EOFError:
                break
            if msg is None:
                break
            if msg == "resume":
                if init_error is None:
                    fetcher = _Fetcher(*fetcher_args)
                _send(result_sock, _Resumed())
                continue
            idx, index = msg
            if init_error is not None:
                data = init_error
            elif fetcher.ended:
                data = _IterableEnd(worker_id)
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    data = _IterableEnd(worker_id)
                except Exception:
                    data = ExceptionWrapper(sys.exc_info(), where)
            try:
                _send(result_sock, (idx, data))
            except (BrokenPipeError, ConnectionResetError):
                break  # the main process stopped listening
            except Exception:  # the batch could not be pickled or shared
                _send(result_sock, (idx, ExceptionWrapper(sys.exc_info(), where)))
            del data
    except KeyboardInterrupt:
        pass  # the main process sees the interrupt and stops us
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        index_conn.close()
        result_sock.close()


# ---- the main process's side --------------------------------------------------------

def _context(loader):
    ctx = loader.multiprocessing_context
    if ctx is None:
        return multiprocessing.get_context()
    if isinstance(ctx, str):
        return multiprocessing.get_context(ctx)
    return ctx


class _MultiProcessIter:
    """Passes over a DataLoader with worker processes (one pass, or every pass
    with ``persistent_workers``)."""

    def __init__(self, loader):
        from .dataloader import _draw_base_seed
        self._loader = loader
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind == "iterable"
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor if loader.prefetch_factor is not None \
            else 2
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._index_sampler = loader._index_sampler
        self._base_seed = _draw_base_seed(loader)
        self._shutdown = False
        self._workers, self._index_conns, self._socks = [], [], []
        ctx = _context(loader)
        fetcher_args = (loader.dataset, loader._dataset_kind, loader._auto_collation,
                        loader.collate_fn, loader.drop_last)
        try:
            for worker_id in range(self._num_workers):
                index_reader, index_writer = ctx.Pipe(duplex=False)
                main_sock, worker_sock = socket.socketpair()
                worker = ctx.Process(
                    target=_worker_loop,
                    args=(fetcher_args, index_reader, worker_sock, self._base_seed,
                          loader.worker_init_fn, worker_id, self._num_workers, os.getpid(),
                          get_sharing_strategy()),
                    daemon=True)
                worker.start()
                # Only the worker keeps its ends: its death is then EOF here.
                index_reader.close()
                worker_sock.close()
                self._workers.append(worker)
                self._index_conns.append(index_writer)
                self._socks.append(main_sock)
        except BaseException:
            self._shutdown_workers()
            raise
        self._sock_worker = {s.fileno(): i for i, s in enumerate(self._socks)}
        self._sentinel_worker = {w.sentinel: i for i, w in enumerate(self._workers)}
        self._reset(first_iter=True)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _reset(self, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}  # idx -> (worker_id,) waiting, (worker_id, data) arrived
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # A new epoch with the same workers: results of the old one still
            # in flight are read and dropped up to each worker's _Resumed.
            for conn in self._index_conns:
                conn.send("resume")
            for worker_id in range(self._num_workers):
                while not isinstance(self._get_data(only=worker_id), _Resumed):
                    pass
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._index_conns[worker_id].send((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._send_idx += 1

    def _worker_failure(self, worker_id):
        worker = self._workers[worker_id]
        worker.join(_SHUTDOWN_GRACE)
        code, pid = worker.exitcode, worker.pid
        self._fail()
        if code is not None and code < 0:
            raise RuntimeError(f"DataLoader worker (pid {pid}, worker id {worker_id}) is "
                               f"killed by signal: {signal.strsignal(-code)} "
                               f"({signal.Signals(-code).name}).")
        raise RuntimeError(f"DataLoader worker (pid {pid}, worker id {worker_id}) exited "
                           f"unexpectedly with exit code {code}.")

    def _fail(self):
        self._shutdown_workers()
        if self._persistent and getattr(self._loader, "_iterator", None) is self:
            self._loader._iterator = None

    def _get_data(self, only=None):
        """The next message from any worker (or from worker ``only``)."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            ids = [only] if only is not None else range(self._num_workers)
            waitables = [self._socks[i] for i in ids] + [self._workers[i].sentinel for i in ids]
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(waitables, remaining)
            if not ready:
                self._fail()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            socks = [r for r in ready if isinstance(r, socket.socket)]
            for sock in socks:
                worker_id = self._sock_worker[sock.fileno()]
                try:
                    return _recv(sock)
                except (EOFError, ConnectionResetError):
                    self._worker_failure(worker_id)
            for sentinel in ready:
                if not isinstance(sentinel, socket.socket):
                    self._worker_failure(self._sentinel_worker[sentinel])

    def __next__(self):
        while True:
            if self._shutdown:
                raise StopIteration
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    break
                self._rcvd_idx += 1  # received out of order, or an ended worker's
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(info) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process(data)
            idx, data = self._get_data()
            if isinstance(data, _IterableEnd):
                self._workers_status[data.worker_id] = False
                del self._task_info[idx]
                continue
            if idx != self._rcvd_idx and self._in_order:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            return self._process(data)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        self._num_yielded += 1
        from .dataloader import _warn_iterable_length
        _warn_iterable_length(self)
        return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        for conn in self._index_conns:
            try:
                conn.send(None)
            except OSError:
                pass
        # Closing our ends wakes a worker blocked sending to us.
        for sock in self._socks:
            sock.close()
        for worker in self._workers:
            worker.join(_SHUTDOWN_GRACE)
            if worker.is_alive():
                worker.kill()
                worker.join()
            worker.close()
        for conn in self._index_conns:
            conn.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
