"""_pytree.py - flattening inputs by a known structure (``fx_pytree`` in
generated code), used by graphs traced with containers in concrete_args.

``tree_flatten_spec(pytree, spec)`` returns the leaves of ``pytree`` in the
order ``spec`` (a torchlike.utils._pytree TreeSpec) lists them: dicts are
read by the spec's keys, so a dict given in another key order flattens the
same way."""
from torchlike.utils import _pytree as pytree

__all__ = ["tree_flatten_spec"]


def tree_flatten_spec(obj, spec):
    """The leaves of ``obj`` following ``spec``'s structure."""
    if spec.is_leaf():
        return [obj]
    if spec.type is dict or (isinstance(spec.type, type) and issubclass(spec.type, dict)):
        keys = spec.context
        children = [obj[k] for k in keys]
    elif spec.type in (list, tuple) or (isinstance(spec.type, type) and
                                        issubclass(spec.type, (list, tuple))):
        if len(obj) != len(spec.children_specs):
            raise RuntimeError(f"tree_flatten_spec: expected {len(spec.children_specs)} "
                               f"elements but got {len(obj)}")
        children = list(obj)
    else:
        leaves, got = pytree.tree_flatten(obj)
        if got != spec:
            raise RuntimeError(f"tree_flatten_spec: the input's structure {got} is not {spec}")
        return leaves
    out = []
    for child, child_spec in zip(children, spec.children_specs):
        out.extend(tree_flatten_spec(child, child_spec))
    return out
