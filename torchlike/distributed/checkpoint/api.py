"""CheckpointException: a step of a save or load failed on some ranks.

As PyTorch's, it derives from BaseException (``except Exception`` does not
catch it); ``failures`` maps each failing rank to its exception, and the
message carries every rank's traceback."""
import pickle
import traceback

__all__ = ["CheckpointException"]


class _Failure:
    """An exception from one rank, with its traceback as text (tracebacks
    themselves do not travel between processes)."""

    def __init__(self, exc):
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            pickle.loads(pickle.dumps(exc))
            self.exc = exc
        except Exception:
            self.exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        self.exc.__traceback__ = None

    def __getstate__(self):
        return {"text": self.text, "exc": self.exc}


class CheckpointException(BaseException):
    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        """{rank: exception}."""
        return {r: f.exc if isinstance(f, _Failure) else f for r, f in self._failures.items()}

    def __str__(self):
        parts = [f"CheckpointException ranks:{list(self._failures)} (step {self.args[0]!r})"]
        for r, f in self._failures.items():
            text = f.text if isinstance(f, _Failure) else repr(f)
            parts.append(f"Traceback (most recent call last): (RANK {r})\n{text}")
        return "\n".join(parts)
