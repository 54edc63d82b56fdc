"""dynamic_shapes.py - ``Dim``: naming a dimension of an input that may vary.

``Dim("batch", min=2, max=64)`` marks a dimension dynamic with a range;
``Dim.STATIC`` keeps one fixed, ``Dim.DYNAMIC`` asks for a dynamic one
(an error if the code specialises it), ``Dim.AUTO`` lets export decide
(dynamic unless the code specialises it).  ``_resolve`` turns a
``dynamic_shapes`` argument into {leaf index: {dim: Symbol}}."""
import math

from torchlike.utils import _pytree as pytree

from .errors import UserError, ConstraintViolationError

__all__ = ["Dim", "DimHint", "dims"]


class DimHint:
    """Dim.AUTO, Dim.STATIC, Dim.DYNAMIC."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"DimHint({self.kind})"


class Dim:
    """A named dynamic dimension with range [min, max] (max may be inf)."""

    AUTO = DimHint("AUTO")
    STATIC = DimHint("STATIC")
    DYNAMIC = DimHint("DYNAMIC")

    def __init__(self, name, *, min=None, max=None):  # noqa: A002 - PyTorch's names
        lo = 0 if min is None else min
        hi = math.inf if max is None else max
        if lo > hi:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self.min = lo
        self.max = hi

    def __repr__(self):
        # as PyTorch's: a min of 2 (its default lower bound for dynamic sizes)
        # and an infinite max are left out
        parts = [repr(self.__name__)]
        if self.min != 2:
            parts.append(f"min={self.min}")
        if self.max != math.inf:
            parts.append(f"max={self.max}")
        return f"Dim({', '.join(parts)})"


def dims(*names, min=None, max=None):  # noqa: A002 - PyTorch's names
    """One Dim per name, all with the same range."""
    return tuple(Dim(name, min=min, max=max) for name in names)


def _bad_keys(arg_names, got):
    return UserError(
        f"When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg "
        f"names {arg_names} of `inputs`, but here they are {got}. Alternatively, you could "
        "also ignore arg names entirely and specify `dynamic_shapes` as a list/tuple matching "
        "`inputs`.")


def _resolve(dynamic_shapes, arg_names, bound_values, leaf_names, flat_inputs):
    """{leaf index: {dim: Symbol}} and the list of Symbols, from dynamic_shapes
    given per bound argument (a dict by name or a sequence in order)."""
    from ._trace import Symbol
    if dynamic_shapes is None:
        return {}, []
    if isinstance(dynamic_shapes, dict):
        if not set(dynamic_shapes) <= set(arg_names):
            raise _bad_keys(arg_names, list(dynamic_shapes))
        per_arg = [dynamic_shapes.get(n) for n in arg_names]
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(arg_names):
            raise UserError(f"dynamic_shapes has {len(dynamic_shapes)} entries but the "
                            f"inputs have {len(arg_names)} arguments {arg_names}")
        per_arg = list(dynamic_shapes)
    else:
        raise UserError(f"dynamic_shapes must be a dict, tuple or list, got "
                        f"{type(dynamic_shapes).__name__}")
    import torchlike
    leaf_dims, symbols, by_dim = {}, [], {}
    leaf = 0
    for name, value, spec in zip(arg_names, bound_values, per_arg):
        leaves, _ = pytree.tree_flatten(value)
        if spec is None:
            leaf += len(leaves)
            continue
        specs = [spec] if isinstance(value, torchlike.Tensor) else \
            pytree.tree_flatten(spec, is_leaf=lambda s: isinstance(s, dict) or s is None)[0]
        if len(specs) != len(leaves):
            raise UserError(f"dynamic_shapes for {name!r} does not match its structure")
        for t, s in zip(leaves, specs):
            idx, leaf = leaf, leaf + 1
            if s is None:
                continue
            if not isinstance(t, torchlike.Tensor):
                raise UserError(f"dynamic_shapes gives dimensions for {name!r}, which is not "
                                "a tensor")
            items = s.items() if isinstance(s, dict) else enumerate(s)
            for d, dim in items:
                if dim is None or dim is Dim.STATIC:
                    continue
                if not isinstance(d, int) or not -t.dim() <= d < t.dim():
                    raise UserError(f"dynamic_shapes: dimension {d} of {leaf_names[idx]!r} "
                                    f"does not exist (it has shape {tuple(t.shape)})")
                d = d % t.dim()
                size = int(t.shape[d])
                where = f"{leaf_names[idx]}.size()[{d}]"
                if isinstance(dim, DimHint):
                    sym = Symbol(f"s{len(symbols)}", 2, math.inf, size, where,
                                 auto=dim is Dim.AUTO)
                    sym.dim = None
                elif isinstance(dim, Dim):
                    if not dim.min <= size <= dim.max:
                        hi = "int_oo" if dim.max == math.inf else dim.max
                        raise ConstraintViolationError(
                            f"{size} not in range [{dim.min}, {hi}]")
                    sym = by_dim.get(dim.__name__)
                    if sym is not None:
                        if sym.example != size:
                            raise UserError(f"Constraints violated ({dim.__name__})! "
                                            f"{sym.where} = {sym.example} but {where} = "
                                            f"{size}")
                    else:
                        sym = Symbol(dim.__name__, max(dim.min, 2), dim.max, size, where,
                                     auto=False)
                        sym.dim = dim
                        sym.range_lo = dim.min
                        by_dim[dim.__name__] = sym
                else:
                    raise UserError(f"dynamic_shapes: expected a Dim or None for dimension "
                                    f"{d} of {leaf_names[idx]!r}, got {dim!r}")
                if sym not in symbols:
                    if size in (0, 1) and not sym.auto:
                        raise sym.specialised(size)
                    if size in (0, 1) or sym.alt is None:
                        continue  # AUTO: static
                    symbols.append(sym)
                leaf_dims.setdefault(idx, {})[d] = sym
    return leaf_dims, symbols
