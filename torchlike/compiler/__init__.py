"""torchlike.compiler: PyTorch's compiler controls, for an eager library.

``torchlike.compile`` returns what it is given (torchlike/_compile.py), so
nothing is ever being compiled: ``is_compiling()`` and its kin are False,
``disable``/``allow_in_graph``/``assume_constant_result``/
``substitute_in_graph`` return the functions, ``reset`` and
``cudagraph_mark_step_begin`` have nothing to do, and ``set_stance`` only
records the stance (``get_stance`` reads it back; every stance runs eagerly
here).  ``list_backends`` names PyTorch's backends, which ``compile``
accepts (and ignores); another name is PyTorch's InvalidBackend error."""
import contextlib
import functools

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin",
           "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends",
           "reset", "set_stance", "substitute_in_graph", "nonstrict_trace",
           "get_default_backend", "set_default_backend"]

# PyTorch's registered backends and their tags (list_backends hides these tags by default)
_BACKENDS = {
    "cudagraphs": (), "inductor": (), "openxla": (), "tvm": (), "openxla_eval": ("experimental",),
    "aot_eager": ("debug",), "aot_eager_decomp_partition": ("debug",),
    "aot_eager_decomp_partition_crossref": ("debug",),
    "aot_eager_decomp_partition_with_mode": ("debug",),
    "aot_eager_default_partitioner": ("debug",), "aot_ts": ("debug",), "eager": ("debug",),
    "eager_debug": ("debug",), "eager_noexcept": ("debug",), "pre_dispatch_eager": ("debug",),
    "ts": ("debug",), "invoke_subgraph": ("debug",),
}
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
            "eager_then_compile", "aot_eager_then_compile")


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names ``compile`` accepts, without those tagged
    ``exclude_tags``."""
    return sorted(n for n, tags in _BACKENDS.items() if not set(tags) & set(exclude_tags or ()))


_default_backend = ["inductor"]


def get_default_backend():
    return _default_backend[0]


def set_default_backend(backend):
    _check_backend(backend)
    _default_backend[0] = backend


def _check_backend(backend):
    """PyTorch's InvalidBackend for a name it does not know (a callable is a
    custom backend and is accepted)."""
    if isinstance(backend, str) and backend not in _BACKENDS:
        from .._dynamo.exc import InvalidBackend
        raise InvalidBackend(name=backend)


def _check_mode(mode):
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")


def compile(*args, **kwargs):
    """``torchlike.compile``."""
    from .._compile import compile as _compile
    return _compile(*args, **kwargs)


def is_compiling():
    """False: no code runs inside a compiled graph here."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def reset():
    """Clear compilation caches: there are none."""


def cudagraph_mark_step_begin():
    """Mark a new iteration for CUDA graphs: none are recorded here."""


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compilation: a wrapper calling it (also as
    ``@disable`` and ``@disable(recursive=False)``)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)

    @functools.wraps(fn)
    def run_eagerly(*args, **kwargs):
        return fn(*args, **kwargs)

    return run_eagerly


def allow_in_graph(fn):
    """Let the compiler put ``fn`` in a graph as one call: returned as it is."""
    return fn


def nonstrict_trace(traceable_fn):
    return traceable_fn


def assume_constant_result(fn):
    """Let the compiler treat ``fn``'s result as a constant: returned as it is."""
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """A decorator registering a traceable stand-in for ``original_fn`` for
    the compiler; what it returns calls ``original_fn`` (as PyTorch's does
    outside compiled code, which is everywhere here)."""
    if not callable(original_fn):
        raise TypeError(f"original_fn must be callable, got {original_fn!r}")

    def register(traceable_fn):
        @functools.wraps(original_fn)
        def call_original(*args, **kwargs):
            return original_fn(*args, **kwargs)
        call_original.__torch_dynamo_polyfill__ = traceable_fn
        return call_original

    return register


_stance = ["default"]


def get_stance():
    """The stance ``set_stance`` last set (``"default"`` at first)."""
    return _stance[0]


class set_stance(contextlib.ContextDecorator):
    """Set how compiled functions run: ``set_stance("force_eager")`` as a
    call (lasting), a ``with`` block or a decorator (restored after).
    Recorded only: everything runs eagerly here."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = _stance[0]
        _stance[0] = stance

    def __enter__(self):
        _stance[0] = self.stance
        return self

    def __exit__(self, *exc):
        _stance[0] = self.prev
        return False

    def __call__(self, fn):
        # the decorator form runs fn under the stance but does not set it now
        _stance[0] = self.prev
        return super().__call__(fn)
