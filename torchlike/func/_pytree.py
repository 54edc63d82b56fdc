"""Nested Python containers of tensors ("pytrees") for the function transforms.

A tree is a tuple, list, namedtuple or dict whose items are trees, or anything
else, which is a leaf.  ``tree_flatten`` gives the leaves in order (dicts in
insertion order) and a spec; ``tree_unflatten`` builds the same structure
around new leaves.  ``broadcast_prefix`` spreads a prefix tree (vmap's
``in_dims``/``out_dims``: an int stands for a whole subtree) over the leaves
of a full tree.  The spec prints as PyTorch's ``TreeSpec`` so error messages
read the same."""

LEAF = None


def _children(tree):
    """(kind, context, children) of a container, or None for a leaf.  Other
    tuple subclasses than namedtuples (a Size) are leaves, as in PyTorch."""
    kind = type(tree)
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if isinstance(tree, dict):
        return dict, list(tree.keys()), list(tree.values())
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return kind, None, list(tree)
    return None


class TreeSpec:
    """The shape of a tree: its container kind, keys and child specs."""
    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children
        self.num_leaves = 1 if kind is LEAF else sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind is other.kind
                and self.context == other.context and self.children == other.children)

    def __str__(self):
        """PyTorch's short form: (*, *), [*], {'a': *}."""
        if self.kind is LEAF:
            return "*"
        kids = [str(c) for c in self.children]
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, kids)) + "}"
        if self.kind is list:
            return "[" + ", ".join(kids) + "]"
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"

    def __repr__(self, indent=0):
        if self.kind is LEAF:
            return "*"
        kids = [c.__repr__(indent + 2) for c in self.children]
        sep = ",\n" + " " * (indent + 2)
        return f"TreeSpec({self.kind.__name__}, {self.context}, [" + sep.join(kids) + "])"


_LEAF_SPEC = TreeSpec(LEAF, None, [])


def tree_flatten(tree):
    """(leaves, spec)."""
    leaves = []

    def walk(t):
        node = _children(t)
        if node is None:
            leaves.append(t)
            return _LEAF_SPEC
        kind, ctx, kids = node
        return TreeSpec(kind, ctx, [walk(k) for k in kids])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s.kind is LEAF:
            return next(it)
        kids = [build(c) for c in s.children]
        if s.kind is dict:
            return dict(zip(s.context, kids))
        if s.kind is tuple or s.kind is list:
            return s.kind(kids)
        return s.kind(*kids)  # a namedtuple

    return build(spec)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree):
    """The leaves of ``prefix`` repeated over the leaves of ``tree`` below
    them, or None where ``prefix`` is not a prefix of ``tree``'s structure."""
    out = []

    def walk(p, t):
        pnode = _children(p)
        if pnode is None:
            out.extend([p] * tree_flatten(t)[1].num_leaves)
            return True
        tnode = _children(t)
        if tnode is None or pnode[0] is not tnode[0] or pnode[1] != tnode[1] \
                or len(pnode[2]) != len(tnode[2]):
            return False
        return all(walk(a, b) for a, b in zip(pnode[2], tnode[2]))

    return out if walk(prefix, tree) else None
