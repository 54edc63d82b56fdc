"""``skip_init``: a module whose parameters and buffers are left uninitialised."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers replaced
    by uninitialised memory on ``device`` (default CPU), for callers that
    overwrite them anyway.  PyTorch builds the module on its "meta" device so
    the initialisers never run; torchlike has no meta device, so the module is
    built (and initialised) on ``device`` and its tensors then replaced with
    ``to_empty``: the result is the same, the initialisers' cost is not saved."""
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs).to_empty(device=final_device)
