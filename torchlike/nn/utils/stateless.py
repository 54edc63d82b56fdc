"""functional_call: run a module with some of its tensors replaced."""
import contextlib

from ..modules.module import Module

__all__ = ["functional_call"]


@contextlib.contextmanager
def _swapped(module, tensors):
    """Temporarily set the dotted-name ``tensors`` on ``module``'s submodules,
    bypassing registration, and put the originals back afterwards."""
    saved = []
    try:
        for name, value in tensors.items():
            owner_name, _, leaf = name.rpartition(".")
            owner = module.get_submodule(owner_name)
            for store in (owner._parameters, owner._buffers):
                if leaf in store:
                    saved.append((store, leaf, store[leaf]))
                    store[leaf] = value
                    break
            else:
                raise AttributeError(f"{owner._get_name()} has no parameter or buffer "
                                     f"`{leaf}`")
        yield
    finally:
        for store, leaf, value in reversed(saved):
            store[leaf] = value


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers taken from
    the given dict(s) of dotted names to tensors (the rest stay)."""
    if not isinstance(module, Module):
        raise TypeError(f"expected an nn.Module, got {type(module).__name__}")
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (list, tuple)):
        merged = {}
        for d in dicts:
            overlap = set(merged) & set(d)
            if overlap:
                raise ValueError(f"{sorted(overlap)} appeared in multiple dictionaries; "
                                 "behavior of functional call is ambiguous")
            merged.update(d)
        dicts = merged
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(dicts))
        unexpected = sorted(set(dicts) - names)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}: "
                               f"missing keys {missing}, unexpected keys {unexpected}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, dicts):
        return module(*args, **(kwargs or {}))
