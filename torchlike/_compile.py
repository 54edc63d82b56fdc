"""``torchlike.compile``: PyTorch's graph compiler has no counterpart here.

Scripts call ``torch.compile(model)`` (or ``model.compile()``) as an
optimisation that must not change results; torchlike runs every op eagerly,
so ``compile`` returns a function unchanged (as a decorator too), and the
options are accepted and ignored.  A module comes back wrapped, as in
PyTorch, in an ``OptimizedModule`` (torchlike._dynamo.eval_frame) whose
``_orig_mod`` is the module: programs read ``_orig_mod`` and save or load
state dicts whose keys carry its prefix."""

__all__ = ["compile"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """Return a function as it is and a module wrapped in an OptimizedModule
    (eager execution either way; ``disable=True`` returns a module as it is
    too); with no ``model``, a decorator that does the same."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    from .compiler import _check_backend, _check_mode
    _check_backend(backend)  # PyTorch's InvalidBackend / mode errors (torchlike.compiler)
    _check_mode(mode)
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return _wrapped(model, disable)
        return fn
    return _wrapped(model, disable)


def _wrapped(model, disable):
    from .nn.modules.module import Module
    if disable or not isinstance(model, Module):
        return model
    from ._dynamo.eval_frame import OptimizedModule
    return OptimizedModule(model)
