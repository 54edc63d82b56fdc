"""torchlike._dynamo: the few names of ``torch._dynamo`` that user code
touches (``config.suppress_errors``, ``reset``, ``disable``,
``mark_dynamic`` ...).  Nothing is compiled here (see torchlike.compiler),
so the settings are kept and read back and the markers do nothing."""
from ..compiler import (allow_in_graph, assume_constant_result, disable,  # noqa: F401
                        is_compiling, list_backends, reset)
from . import config, exc  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "config", "disable", "exc",
           "is_compiling", "list_backends", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
           "reset", "optimize"]


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):
    """Mark a dimension as varying between calls: nothing is specialised here."""


def maybe_mark_dynamic(t, index):
    """As ``mark_dynamic``."""


def mark_static(t, index=None):
    """Mark a dimension as fixed: nothing is specialised here."""


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None,
             disable=False, dynamic=None):
    """The older spelling of ``compile``'s decorator: returns functions as they are."""
    from ..compiler import _check_backend
    _check_backend(backend)
    return lambda fn: fn
