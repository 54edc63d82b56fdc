"""``torchlike.utils._pytree``: the public surface of ``torch.utils._pytree``
over torchlike.func._pytree (the trees the function transforms use)."""
from ..func._pytree import (TreeSpec, register_pytree_node, tree_flatten,  # noqa: F401
                            tree_map, tree_unflatten, _LEAF_SPEC)

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten",
           "tree_leaves", "tree_structure", "tree_iter", "tree_map", "tree_map_", "tree_map_only",
           "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only",
           "tree_is_leaf", "PyTree"]

PyTree = object


def LeafSpec():
    """The spec of a leaf."""
    return _LEAF_SPEC


def tree_is_leaf(tree, is_leaf=None):
    return tree_structure(tree, is_leaf=is_leaf).is_leaf()


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in flattening order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    """The TreeSpec of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func`` on each leaf (for its effect); returns ``tree``."""
    leaves = [tree_leaves(t, is_leaf) for t in (tree,) + rests]
    for xs in zip(*leaves):
        func(*xs)
    return tree


def _only(type_or_types, func):
    def apply(x):
        return func(x) if isinstance(x, type_or_types) else x
    return apply


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """``tree_map`` applying ``func`` to the leaves of the given types only."""
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types, func, tree, is_leaf=None):
    return tree_map_(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))
