"""torchlike.futures: ``Future``, a result that some work sets later, with
callbacks (``then``, ``add_done_callback``) and ``collect_all``/``wait_all``,
as in ``torch.futures``.  ``jit.fork`` returns one; its work has already run
(torchlike executes eagerly), so the future is complete when returned."""
import threading
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")


class Future(Generic[T]):
    """A value (or an exception) that becomes available once, from any thread.

    ``wait()`` blocks until then and returns the value (raising the
    exception); ``then(cb)`` gives a new Future holding ``cb(self)``, run when
    this one completes; ``add_done_callback(cb)`` runs ``cb(self)`` likewise."""

    def __init__(self, *, devices=None):
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []

    def done(self):
        """Whether a value or an exception has been set."""
        return self._done

    def wait(self):
        """Block until complete; the value, or raise the exception set."""
        with self._cond:
            self._cond.wait_for(lambda: self._done)
        return self.value()

    def value(self):
        """The value of a completed Future (raising its exception)."""
        if not self._done:
            raise RuntimeError("Future.value() called before the Future completed; call "
                               "wait() to block until it does")
        if self._error is not None:
            raise self._error
        return self._value

    def _complete(self, value, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. "
                                   "Note that a Future can only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        """Complete with ``result``; runs the callbacks; twice is an error."""
        self._complete(result, None)

    def set_exception(self, result):
        """Complete with an exception that ``wait()`` will raise."""
        if not isinstance(result, Exception):
            raise TypeError(f"{type(result)} should be an Exception")
        self._complete(None, result)

    def add_done_callback(self, callback):
        """Run ``callback(self)`` when complete (now, if it already is)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new Future completed with ``callback(self)`` (or the exception
        the callback raises) once this one completes."""
        out = Future()

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - handed on to the new future
                wrapped = RuntimeError(f"Got the following error when running the callback: "
                                       f"{type(e).__name__}: {e}")
                wrapped.__cause__ = e
                out.set_exception(wrapped)
            else:
                out.set_result(result)

        self.add_done_callback(run)
        return out

    def __repr__(self):
        return f"<torchlike.futures.Future object at {hex(id(self))}>"


def collect_all(futures):
    """A Future completed with the list of ``futures`` once all are."""
    futures = list(futures)
    out = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)

    if not futures:
        out.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Wait for each of ``futures``; their values (the first exception raises)."""
    return [f.wait() for f in futures]
