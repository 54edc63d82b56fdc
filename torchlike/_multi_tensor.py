"""torch._foreach_*: one op over a list of tensors, as optimizers, EMA
updates (timm's ModelEmaV3, torch.optim.swa_utils) and gradient clipping call
them.

Each is the per-tensor op applied in list order, so results, dtypes,
broadcasting, errors and autograd are the per-tensor op's. Out-of-place forms
return a tuple of new tensors, in-place forms (trailing underscore) update the
tensors of `self` and return them as a list, as PyTorch 2.15 does. The second
operand may be a Python number, a list of numbers (one per tensor), a list of
tensors or a 0-d tensor, where PyTorch's overload for the op takes that form.
"""
import numbers

from . import _C

__all__ = []  # names are put on torchlike by _install()
_namespace = {}  # torchlike's, where the per-tensor ops are looked up when called

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round",
          "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _fn(name):
    return _namespace[name]


def _tensors(self, name):
    """self as a list of tensors, checked non-empty."""
    if isinstance(self, _C.Tensor) or not isinstance(self, (list, tuple)):
        raise TypeError(f"{name}(): argument 'self' must be a list or tuple of Tensors, "
                        f"not {type(self).__name__}")
    tensors = list(self)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for t in tensors:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{name}(): expected a list of Tensors, but found an element of "
                            f"type {type(t).__name__}")
    return tensors


def _spread(name, other, n, kinds):
    """The per-tensor operands of `other` for n tensors, and its form: 'scalar',
    'scalars' (one number per tensor), 'tensors' or 'tensor' (0-d, shared).
    kinds: the forms the op accepts."""
    if isinstance(other, _C.Tensor):
        form = "tensor"
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                               f"dimensions and {other.numel()} elements.")
        items = [other] * n
    elif isinstance(other, (list, tuple)):
        items = list(other)
        if items and all(isinstance(o, _C.Tensor) for o in items):
            form = "tensors"
            if len(items) != n:
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} "
                                   f"and {len(items)}")
        else:
            form = "scalars"
            if not all(isinstance(o, (numbers.Number, bool)) for o in items):
                raise TypeError(f"{name}(): expected a list of numbers or a list of Tensors")
            if len(items) != n:
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    elif isinstance(other, (numbers.Number, bool)):
        form = "scalar"
        items = [other] * n
    else:
        raise TypeError(f"{name}(): argument 'other' must be a Number, a list of Numbers, a list "
                        f"of Tensors or a Tensor, not {type(other).__name__}")
    if form not in kinds:
        raise TypeError(f"{name}(): no overload takes a second operand of the form {form!r} "
                        f"(accepted: {', '.join(kinds)})")
    return items, form


def _pair(op, operands, apply):
    """_foreach_<op> and _foreach_<op>_ from one reading of the arguments:
    operands(name, self, ...) gives the tensors and each one's row of other
    operands; apply(t, row, inplace) is the per-tensor op (or its in-place
    form, whose tensors the in-place function returns as a list)."""
    def out_of_place(self, *args, **kwargs):
        tensors, rows = operands(f"_foreach_{op}", self, *args, **kwargs)
        return tuple(apply(t, row, False) for t, row in zip(tensors, rows))

    def in_place(self, *args, **kwargs):
        tensors, rows = operands(f"_foreach_{op}_", self, *args, **kwargs)
        for t, row in zip(tensors, rows):
            apply(t, row, True)
        return tensors

    return out_of_place, in_place


def _call(op, t, inplace, *args, **kwargs):
    """op(t, *args) or its in-place method t.op_(*args)."""
    return getattr(t, op + "_")(*args, **kwargs) if inplace else _fn(op)(t, *args, **kwargs)


def _binary(op, kinds, alpha_kinds=()):
    """op(self[i], other[i]) for each i, alpha= where the op's overload takes it."""
    def operands(name, self, other, *, alpha=None):
        tensors = _tensors(self, name)
        items, form = _spread(name, other, len(tensors), kinds)
        if alpha is not None and form not in alpha_kinds:
            raise TypeError(f"{name}(): alpha= is taken only with a list of Tensors or a Tensor")
        extra = {} if alpha is None else {"alpha": alpha}
        return tensors, [(o, extra) for o in items]

    return _pair(op, operands, lambda t, row, inplace: _call(op, t, inplace, row[0], **row[1]))


def _clamp_like(op, tensor_op, scalar_op):
    """maximum/minimum and clamp_min/clamp_max: numbers clamp, tensors compare."""
    def operands(name, self, other):
        tensors = _tensors(self, name)
        return tensors, _spread(name, other, len(tensors), ("scalar", "scalars", "tensors"))[0]

    def apply(t, o, inplace):
        if isinstance(o, _C.Tensor):
            r = _fn(tensor_op)(t, o)
            return t.copy_(r) if inplace else r
        return _call(scalar_op, t, inplace, o)

    return _pair(op, operands, apply)


def _unary(op):
    return _pair(op, lambda name, self: (lambda ts: (ts, [()] * len(ts)))(_tensors(self, name)),
                 lambda t, row, inplace: _call(op, t, inplace))


def _pointwise(op):
    """addcmul/addcdiv: self + value * (t1 op t2), value a number, a list of
    numbers or a 1-d tensor of one value per tensor."""
    def values(name, value, n):
        if isinstance(value, _C.Tensor):
            if value.dim() != 1 or value.numel() != n:
                raise RuntimeError(f"{name}(): a Tensor of scalars must be 1-d with one value per "
                                   f"tensor ({n}), got shape {tuple(value.shape)}")
            return value.tolist()
        return _spread(name, value, n, ("scalar", "scalars"))[0]

    def operands(name, self, tensor1, tensor2, value=1):
        tensors = _tensors(self, name)
        t1, _ = _spread(name, tensor1, len(tensors), ("tensors",))
        t2, _ = _spread(name, tensor2, len(tensors), ("tensors",))
        return tensors, list(zip(t1, t2, values(name, value, len(tensors))))

    return _pair(op, operands,
                 lambda t, row, inplace: _call(op, t, inplace, row[0], row[1], value=row[2]))


def _lerp():
    def operands(name, self, tensors1, weight):
        tensors = _tensors(self, name)
        ends, _ = _spread(name, tensors1, len(tensors), ("tensors",))
        weights, _ = _spread(name, weight, len(tensors), ("scalar", "scalars", "tensors"))
        return tensors, list(zip(ends, weights))

    return _pair("lerp", operands, lambda t, row, inplace: _call("lerp", t, inplace, *row))


def _pow():
    """pow's pair, whose out-of-place form also takes a number as the base."""
    out_of_place, in_place = _binary("pow", ("scalar", "scalars", "tensors"))

    def with_number_base(self, exponent):
        if isinstance(self, (numbers.Number, bool)):  # a number raised to each tensor
            return tuple(_fn("pow")(self, t) for t in _tensors(exponent, "_foreach_pow"))
        return out_of_place(self, exponent)

    return with_number_base, in_place


def _foreach_zero_(self):
    tensors = _tensors(self, "_foreach_zero_")
    for t in tensors:
        t.zero_()
    return tensors


def _foreach_copy_(self, src, non_blocking=False):
    tensors = _tensors(self, "_foreach_copy_")
    sources, _ = _spread("_foreach_copy_", src, len(tensors), ("tensors",))
    for t, s in zip(tensors, sources):
        t.copy_(s, non_blocking=non_blocking)
    return tensors


def _foreach_clone(self):
    return tuple(t.clone() for t in _tensors(self, "_foreach_clone"))


def _foreach_norm(self, ord=2, dtype=None):
    """Each tensor's vector norm (a 0-d tensor), as clip_grad_norm_ takes them."""
    norm = _namespace["linalg"].vector_norm
    return tuple(norm(t, ord, dtype=dtype) for t in _tensors(self, "_foreach_norm"))


def _foreach_powsum(self, ord=2):
    """sum(|x| ** ord) of each tensor."""
    return tuple(_fn("sum")(_fn("pow")(_fn("abs")(t), ord)) for t in _tensors(self, "_foreach_powsum"))


def _foreach_max(self):
    return tuple(_fn("max")(t) for t in _tensors(self, "_foreach_max"))


def _foreach_mm(self, mat2):
    tensors = _tensors(self, "_foreach_mm")
    others, _ = _spread("_foreach_mm", mat2, len(tensors), ("tensors",))
    return tuple(_fn("mm")(a, b) for a, b in zip(tensors, others))


def _install(namespace):
    """Put every _foreach_* function on the torchlike namespace."""
    global _namespace
    _namespace = namespace
    table = {}
    for op, kinds, alpha in (("add", ("scalar", "scalars", "tensors", "tensor"), ("tensors", "tensor")),
                             ("sub", ("scalar", "scalars", "tensors"), ("tensors",)),
                             ("mul", ("scalar", "scalars", "tensors", "tensor"), ()),
                             ("div", ("scalar", "scalars", "tensors", "tensor"), ())):
        table[op], table[op + "_"] = _binary(op, kinds, alpha)
    for op, tensor_op, scalar_op in (("maximum", "maximum", "clamp_min"),
                                     ("minimum", "minimum", "clamp_max"),
                                     ("clamp_min", "maximum", "clamp_min"),
                                     ("clamp_max", "minimum", "clamp_max")):
        table[op], table[op + "_"] = _clamp_like(op, tensor_op, scalar_op)
    for op in _UNARY:
        table[op], table[op + "_"] = _unary(op)
    for op in ("addcmul", "addcdiv"):
        table[op], table[op + "_"] = _pointwise(op)
    table["lerp"], table["lerp_"] = _lerp()
    table["pow"], table["pow_"] = _pow()
    for name, fn in table.items():
        fn.__name__ = fn.__qualname__ = "_foreach_" + name
        namespace["_foreach_" + name] = fn
    for fn in (_foreach_zero_, _foreach_copy_, _foreach_clone, _foreach_norm, _foreach_powsum,
               _foreach_max, _foreach_mm):
        namespace[fn.__name__] = fn
