"""CheckpointException: a step of a save or load failed on some ranks.

As PyTorch's, it derives from BaseException (``except Exception`` does not
catch it), and ``failures`` maps each failing rank to ``(exception,
traceback.StackSummary)``; the message carries every rank's traceback."""
import pickle
import traceback

__all__ = ["CheckpointException"]


class _Failure:
    """An exception from one rank with its stack (tracebacks themselves do
    not travel between processes; the summary and the exception do)."""

    def __init__(self, exc):
        self.stack = traceback.extract_tb(exc.__traceback__)
        for frame in self.stack:  # code objects (Python 3.13+) do not pickle
            if hasattr(frame, "_code"):
                object.__setattr__(frame, "_code", None)
        try:
            pickle.loads(pickle.dumps((exc, self.stack)))
            self.exc = exc
        except Exception:
            self.exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            self.stack = traceback.StackSummary.from_list(
                [tuple(f)[:4] for f in self.stack])
        self.exc.__traceback__ = None

    @property
    def text(self):
        return "".join(traceback.format_list(self.stack)) + \
            "".join(traceback.format_exception_only(type(self.exc), self.exc))

    def pair(self):
        return (self.exc, self.stack)


def _pair(f):
    if isinstance(f, _Failure):
        return f.pair()
    if isinstance(f, tuple):
        return f
    return (f, traceback.StackSummary())


class CheckpointException(BaseException):
    def __init__(self, msg, failures):
        failures = {r: _pair(f) for r, f in failures.items()}
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        """{rank: (exception, traceback.StackSummary)}."""
        return self._failures

    def __str__(self):
        parts = [f"CheckpointException ranks:{list(self._failures)} (step {self.args[0]!r})"]
        for r, (exc, stack) in self._failures.items():
            parts.append(f"Traceback (most recent call last): (RANK {r})\n" +
                         "".join(traceback.format_list(stack)) +
                         "".join(traceback.format_exception_only(type(exc), exc)))
        return "\n".join(parts)
