"""torch.distributed.elastic.multiprocessing.errors: ``@record`` on a
torchrun-launched ``main``.  An exception escaping the function is written,
as PyTorch writes it, to the JSON file the launcher names in
TORCHELASTIC_ERROR_FILE (when it names one), then raised again; the
launcher reads that file to report which rank failed and why."""
import functools
import json
import os
import time
import traceback

__all__ = ["record", "ErrorHandler", "get_error_handler", "ChildFailedError"]


class ErrorHandler:
    """Writes a worker's uncaught exception to TORCHELASTIC_ERROR_FILE."""

    def _error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE")

    def initialize(self):
        """Nothing to set up here (PyTorch enables faulthandler)."""

    def record_exception(self, e):
        path = self._error_file_path()
        if not path:
            return
        data = {"message": {"message": f"{type(e).__name__}: {e}", "extraInfo": {
            "py_callstack": traceback.format_exc(), "timestamp": str(int(time.time()))}}}
        with open(path, "w") as f:
            json.dump(data, f)


def get_error_handler():
    return ErrorHandler()


class ChildFailedError(Exception):
    """Raised by a launcher when worker processes failed: ``failures`` maps
    each failed global rank to what it recorded."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        super().__init__(f"{name} FAILED")


def record(fn, error_handler=None):
    """Decorate ``fn`` (a worker's entry point): an exception it raises is
    recorded by ``error_handler`` (the default writes the error file) and
    raised again; its result otherwise."""
    handler = error_handler or get_error_handler()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except ChildFailedError:
            raise
        except Exception as e:
            handler.record_exception(e)
            raise
    return wrapper
