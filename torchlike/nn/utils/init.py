"""``skip_init``: a module whose parameters and buffers are left uninitialised."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers replaced
    by uninitialised memory on ``device`` (default CPU), for callers that
    overwrite them anyway.  As PyTorch does, the module is built on the meta
    device (its initialisers compute nothing and no memory is taken) and
    then given fresh storage on ``device`` by ``to_empty``."""
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
