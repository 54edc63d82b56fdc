"""``torchlike.compile``: PyTorch's graph compiler has no counterpart here.

Scripts call ``torch.compile(model)`` (or ``model.compile()``) as an
optimisation that must not change results; torchlike runs every op eagerly,
so ``compile`` returns the callable unchanged (as a decorator too), and the
options are accepted and ignored."""

__all__ = ["compile"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """Return ``model`` as it is (eager execution); with no ``model``, a
    decorator that does the same."""
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
            return model
        return fn
    return model
