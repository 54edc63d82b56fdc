"""``Work``: the handle of an operation that may still be running (what
``async_op=True`` returns), and the worker thread that runs the collectives
of this process one after another, in the order they were issued."""
import queue
import threading

from ..futures import Future

__all__ = ["Work", "Worker"]


class Work:
    """``wait()`` blocks until the operation is done and raises its error;
    ``is_completed()``, ``is_success()``, ``exception()``, ``result()`` (the
    output tensors) and ``get_future()`` (a Future of ``result()``)."""

    def __init__(self, result=None):
        self._done = threading.Event()
        self._error = None
        self._result = result if result is not None else []
        self._future = None
        self._lock = threading.Lock()
        self._source_rank = -1

    def _finish(self, error=None):
        with self._lock:
            self._error = error
            self._done.set()
            future = self._future
        if future is not None:
            self._complete(future)

    def _complete(self, future):
        if self._error is not None:
            future.set_exception(self._error)
        else:
            future.set_result(self._result)

    def wait(self, timeout=None):
        """Block until done; True, or raise the operation's error.  With
        ``timeout`` (a timedelta or seconds) raise if still running then."""
        seconds = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
        if not self._done.wait(seconds):
            raise RuntimeError(f"Work timed out after {seconds}s")
        if self._error is not None:
            raise self._error
        return True

    def is_completed(self):
        return self._done.is_set()

    def is_success(self):
        return self._done.is_set() and self._error is None

    def exception(self):
        return self._error

    def result(self):
        self.wait()
        return self._result

    def source_rank(self):
        """The rank a receive got its message from (a receive from any source)."""
        self.wait()
        return self._source_rank

    def synchronize(self):
        self.wait()

    def get_future(self):
        with self._lock:
            if self._future is None:
                self._future = Future()
                done = self._done.is_set()
            else:
                return self._future
        if done:
            self._complete(self._future)
        return self._future


class Worker:
    """One daemon thread running submitted functions in order; each finishes
    its ``Work`` (with the exception it raised, if any)."""

    def __init__(self):
        self._queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True, name="dist-worker")
        self._thread.start()

    def _run(self):
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, work = item
            try:
                fn()
            except BaseException as e:  # reported to whoever waits on the work
                work._finish(e)
            else:
                work._finish()

    def submit(self, fn, work):
        self._queue.put((fn, work))
        return work

    def stop(self):
        self._queue.put(None)
