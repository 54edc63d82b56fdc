"""Auto-wrap policies: which submodules of a module given to
FullyShardedDataParallel become FSDP units of their own.

A policy is called as ``policy(module=m, recurse=r, nonwrapped_numel=n)``.
With ``recurse=True`` it says whether to look inside ``m``; with
``recurse=False`` whether ``m`` itself becomes a unit, ``n`` being the number
of parameter elements of ``m`` not already taken by units below it.  Units
are made bottom-up, so the innermost ones are wrapped first."""
import contextlib

from ...nn.modules.module import Module

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "CustomPolicy", "enable_wrap",
           "wrap"]


def always_wrap_policy(module, recurse, nonwrapped_numel, **kwargs):
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wrap every module for which ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wrap every instance of the classes in ``transformer_layer_cls``."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def _module_lists():
    from ...nn.modules.container import ModuleDict, ModuleList
    return {ModuleList, ModuleDict}


def _attention():
    from ...nn import MultiheadAttention
    return {MultiheadAttention}


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """Wrap a module once the parameters not yet wrapped below it reach
    ``min_num_params``; never look inside ``force_leaf_modules``
    (MultiheadAttention by default), never wrap ``exclude_wrap_modules``
    (ModuleList, ModuleDict by default)."""
    leaves = _attention() if force_leaf_modules is None else force_leaf_modules
    excluded = _module_lists() if exclude_wrap_modules is None else exclude_wrap_modules
    if recurse:
        return not isinstance(module, tuple(leaves))
    return nonwrapped_numel >= min_num_params and not isinstance(module, tuple(excluded))


class _Policy:
    """Base of the policy objects: callable like the policy functions."""

    def __call__(self, module, recurse, nonwrapped_numel):
        return True if recurse else self._wraps(module)


class ModuleWrapPolicy(_Policy):
    """Wrap every module whose type is one of ``module_classes``."""

    def __init__(self, module_classes):
        self._module_classes = tuple(set(module_classes))

    def _wraps(self, module):
        return isinstance(module, self._module_classes)

    def __repr__(self):
        return f"ModuleWrapPolicy({set(self._module_classes)})"


class CustomPolicy(_Policy):
    """Wrap the modules for which ``lambda_fn(module)`` is true (a dict of
    keyword arguments instead overrides the unit's FSDP arguments)."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def _wraps(self, module):
        return self._lambda_fn(module)


def _numel(module, ignored):
    return sum(p.numel() for p in module.parameters() if id(p) not in ignored)


def recursive_wrap(module, policy, make_unit, ignored_params, only_wrap_children=False):
    """Wrap the submodules of ``module`` that ``policy`` chooses, innermost
    first, with ``make_unit(child, overrides)``.  Returns (the module or its
    wrapper, the number of parameter elements wrapped)."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel
    if isinstance(module, FullyShardedDataParallel):
        return module, 0
    nonwrapped = _numel(module, ignored_params)
    if not policy(module=module, recurse=True, nonwrapped_numel=nonwrapped):
        return module, 0
    wrapped = 0
    for name, child in list(module.named_children()):
        new_child, n = recursive_wrap(child, policy, make_unit, ignored_params)
        if new_child is not child:
            setattr(module, name, new_child)
        wrapped += n
    remainder = nonwrapped - wrapped
    if not only_wrap_children:
        decision = policy(module=module, recurse=False, nonwrapped_numel=remainder)
        if decision:
            overrides = decision if isinstance(decision, dict) else {}
            return make_unit(module, overrides), nonwrapped
    return module, wrapped


class _WrapContext:
    wrapper_cls = None
    kwargs = {}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls=None, **wrapper_kwargs):
    """Inside, ``wrap(module)`` wraps with ``wrapper_cls`` (FSDP by default)
    and these keyword arguments."""
    if _WrapContext.wrapper_cls is not None:
        raise NotImplementedError("You are already within an autowrap context and we "
                                  "currently do not supported nested autowrap.")
    if wrapper_cls is None:
        from .fully_sharded_data_parallel import FullyShardedDataParallel
        wrapper_cls = FullyShardedDataParallel
    _WrapContext.wrapper_cls, _WrapContext.kwargs = wrapper_cls, dict(wrapper_kwargs)
    try:
        yield
    finally:
        _WrapContext.wrapper_cls, _WrapContext.kwargs = None, {}


def wrap(module, **wrap_overrides):
    """``module`` wrapped by the class of the enclosing ``enable_wrap``
    (its arguments updated by ``wrap_overrides``); outside one, ``module``."""
    if _WrapContext.wrapper_cls is None:
        return module
    if not isinstance(module, Module):
        raise TypeError(f"wrap expects an nn.Module, got {type(module).__name__}")
    kwargs = dict(_WrapContext.kwargs, **wrap_overrides)
    return _WrapContext.wrapper_cls(module, **kwargs)
