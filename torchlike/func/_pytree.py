"""Nested Python containers of tensors ("pytrees") for the function transforms
and ``torchlike.utils._pytree``.

A tree is a tuple, list, namedtuple, dict (OrderedDict, defaultdict), deque
or a class registered with ``register_pytree_node``, whose items are trees;
anything else is a leaf.  ``tree_flatten`` gives the leaves in order (dicts
in insertion order) and a spec; ``tree_unflatten`` builds the same structure
around new leaves.  ``broadcast_prefix`` spreads a prefix tree (vmap's
``in_dims``/``out_dims``: an int stands for a whole subtree) over the leaves
of a full tree.  The spec prints (str as repr) as PyTorch 2.15's ``TreeSpec`` so
error messages read the same."""

import collections

LEAF = None

# type -> (flatten(obj) -> (children, context), unflatten(children, context) -> obj)
_NODES = {
    collections.OrderedDict: (lambda d: (list(d.values()), list(d.keys())),
                              lambda kids, keys: collections.OrderedDict(zip(keys, kids))),
    collections.defaultdict: (lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                              lambda kids, ctx: collections.defaultdict(ctx[0],
                                                                        zip(ctx[1], kids))),
    collections.deque: (lambda d: (list(d), None), lambda kids, ctx: collections.deque(kids)),
}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make instances of ``cls`` tree nodes: ``flatten_fn(obj) -> (children,
    context)``, ``unflatten_fn(children, context) -> obj``."""
    if cls in _NODES or cls in (tuple, list, dict):
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = (flatten_fn, unflatten_fn)


def _children(tree):
    """(kind, context, children) of a container, or None for a leaf.  Other
    tuple subclasses than namedtuples (a Size) are leaves, as in PyTorch."""
    kind = type(tree)
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if kind in _NODES:
        kids, ctx = _NODES[kind][0](tree)
        return kind, ctx, list(kids)
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

    # PyTorch's names: the node's type, its child specs, its node count
    @property
    def type(self):
        return self.kind

    @property
    def children_specs(self):
        return self.children

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children)

    @property
    def num_children(self):
        return len(self.children)

    def child(self, index):
        return self.children[index]

    def is_leaf(self):
        return self.kind is LEAF

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)

    def __hash__(self):
        return hash((self.kind, repr(self.context), tuple(self.children)))

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind is other.kind
                and self.context == other.context and self.children == other.children)

    def short_str(self):
        """The short form PyTorch's C++ pytrees print (in the transforms' errors):
        (*, *), [*], {'a': *}."""
        if self.kind is LEAF:
            return "*"
        kids = [c.short_str() for c in self.children]
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
        name, context = self.kind.__name__, self.context
        if issubclass(self.kind, tuple) and hasattr(self.kind, "_fields"):
            name, context = "namedtuple", self.kind    # PyTorch's form for namedtuples
        return f"TreeSpec({name}, {context}, [" + sep.join(kids) + "])"

    __str__ = __repr__


_LEAF_SPEC = TreeSpec(LEAF, None, [])


def tree_flatten(tree, is_leaf=None):
    """(leaves, spec); ``is_leaf(subtree)`` True stops the walk there."""
    leaves = []

    def walk(t):
        node = None if is_leaf is not None and is_leaf(t) else _children(t)
        if node is None:
            leaves.append(t)
            return _LEAF_SPEC
        kind, ctx, kids = node
        return TreeSpec(kind, ctx, [walk(k) for k in kids])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                         f"the spec refers to a pytree that holds {spec.num_leaves} items "
                         f"({spec!r}).")
    it = iter(leaves)

    def build(s):
        if s.kind is LEAF:
            return next(it)
        kids = [build(c) for c in s.children]
        if s.kind in _NODES:
            return _NODES[s.kind][1](kids, s.context)
        if s.kind is dict:
            return dict(zip(s.context, kids))
        if s.kind is tuple or s.kind is list:
            return s.kind(kids)
        return s.kind(*kids)  # a namedtuple

    return build(spec)


def tree_map(fn, tree, *rests, is_leaf=None):
    """``fn`` applied to each leaf (and the matching leaves of ``rests``,
    trees of the same structure)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = []
    for r in rests:
        r_leaves, r_spec = tree_flatten(r, is_leaf)
        if r_spec != spec:
            raise ValueError(f"tree_map: the trees' structures differ: {spec} and {r_spec}")
        others.append(r_leaves)
    return tree_unflatten([fn(*xs) for xs in zip(leaves, *others)], spec)


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
