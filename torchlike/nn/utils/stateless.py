"""functional_call: run a module with some of its tensors replaced.

As in PyTorch: a dotted name that is a parameter or buffer is swapped in its
owner's dict; any other name is set as a plain attribute for the call (and
removed afterwards), so a parametrized tensor goes through its setter;
with ``tie_weights`` a value given for one of several names that share a
tensor is used for all of them."""
import contextlib
import warnings

from ... import _C
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _owner(module, name):
    """The submodule holding dotted ``name``, and the last component."""
    path, _, leaf = name.rpartition(".")
    owner = module
    if path:
        for item in path.split("."):
            child = getattr(owner, item, _MISSING)
            if child is _MISSING:
                raise AttributeError(f"{owner._get_name()} has no attribute `{item}`")
            if not isinstance(child, Module):
                raise TypeError(f"{child} is not an instance of torch.nn.Module")
            owner = child
    return owner, leaf


def _swap(module, name, value):
    """Put ``value`` (or _MISSING: remove) at dotted ``name``; the previous one."""
    owner, leaf = _owner(module, name)
    for store in (owner._parameters, owner._buffers):
        if leaf in store:
            old = store[leaf]
            if value is _MISSING:
                del store[leaf]
            else:
                store[leaf] = value
            return old
    old = getattr(owner, leaf, _MISSING)
    if old is not _MISSING and not isinstance(old, _C.Tensor):
        raise TypeError(f"attribute `{leaf}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(owner, leaf, value)
    elif hasattr(owner, leaf):
        delattr(owner, leaf)
    return old


def _named_tensors(module):
    return list(module.named_parameters(remove_duplicate=False)) + \
        list(module.named_buffers(remove_duplicate=False))


def _untie(module, tensors):
    """``tensors`` extended to every name tied to a given one; a tie given
    two different values is an error."""
    groups = {}
    for name, t in _named_tensors(module):
        groups.setdefault(id(t), []).append(name)
    tied = {n: names for names in groups.values() if len(names) > 1 for n in names}
    out = dict(tensors)
    for name, value in tensors.items():
        for other in tied.get(name, ()):
            if other in tensors and tensors[other] is not value:
                given = sorted(n for n in tied[name] if n in tensors)
                raise ValueError(f"functional_call got multiple values for keys {given}, "
                                 "which are tied. Consider using tie_weights=False")
            out[other] = value
    return out


def _check_strict(module, tensors):
    names = {n for n, _ in _named_tensors(module)}
    missing, unexpected = sorted(names - set(tensors)), sorted(set(tensors) - names)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                           + "\n\t".join(msgs))


@contextlib.contextmanager
def _reparametrized(module, tensors, tie_weights, strict):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        _check_strict(module, tensors)
    saved = []
    try:
        for name, value in tensors.items():
            saved.append((name, _swap(module, name, value)))
        yield
    finally:
        for name, old in reversed(saved):
            _swap(module, name, old)


def _merge(dicts):
    if not isinstance(dicts, (list, tuple)):
        return dicts
    merged = {}
    for d in dicts:
        overlap = set(merged) & set(d)
        if overlap:
            raise ValueError(f"{sorted(overlap)} appeared in multiple dictionaries; "
                             "behavior of functional call is ambiguous")
        merged.update(d)
    return merged


def _functional_call(module, tensors, args, kwargs, tie_weights, strict):
    if not isinstance(module, Module):
        raise TypeError(f"expected an nn.Module, got {type(module).__name__}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, _merge(tensors), tie_weights, strict):
        return module(*args, **(kwargs or {}))


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers taken from
    the dict of dotted names to tensors (the rest stay).  Deprecated in
    PyTorch in favour of ``torch.func.functional_call`` (which also takes a
    sequence of dicts)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights, strict)
