"""torchlike.autograd.functional: derivatives of a whole function at a point.

    jacobian(f, x)       d f(x) / dx, shape f(x).shape + x.shape
    hessian(f, x)        the Jacobian of the gradient of a scalar f
    vjp(f, x, v)         (f(x), v^T J)
    jvp(f, x, v)         (f(x), J v)
    hvp(f, x, v)         (f(x), H v)
    vhp(f, x, v)         (f(x), v^T H)

``inputs`` is a tensor or a tuple of tensors, and results follow the same
structure (a tuple of outputs gives a tuple, a tuple of inputs a tuple;
jacobian and hessian of tuples give tuples of tuples).  Everything is built
on reverse mode: the Jacobian one output element at a time, ``jvp`` by the
double-vjp trick (J v is the gradient, with respect to a dummy u, of
u^T J v).  ``create_graph=True`` keeps the results differentiable;
``strict=True`` raises when an output does not depend on an input instead
of returning zeros.  ``vectorize=True`` computes the Jacobian rows with one
batched reverse pass, as torchlike.func.jacrev does (and so does
``strategy="forward-mode"``, which needs it, as in PyTorch)."""
from .. import _C

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tl():
    """The package: its ``*_like`` functions follow the batching rules when
    these functions run inside vmap (``_C``'s raw ones would make a tensor of
    the physical, batched shape)."""
    import torchlike
    return torchlike


def _as_tuple(x, arg, fn):
    """(tuple of tensors, whether x was a tuple)."""
    if isinstance(x, _C.Tensor):
        return (x,), False
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of "
                        f"Tensors but the given {arg} is of type {type(x).__name__}.")
    for i, t in enumerate(x):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but element {i} of it is of type {type(t).__name__}.")
    return tuple(x), True


def _untuple(xs, was_tuple):
    return tuple(xs) if was_tuple else xs[0]


def _prepare(inputs, create_graph):
    """Inputs the function is evaluated at: leaves that require grad, or
    (create_graph) views keeping the caller's history so the results stay
    differentiable with respect to the caller's tensors."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x) if hasattr(x, "view_as") else x.view(x.shape))
        else:
            # an integer input is refused as PyTorch's requires_grad_ refuses it
            out.append(x.detach().requires_grad_())
    return tuple(out)


def _finish(xs, create_graph):
    """Results handed back: detached unless the caller asked for a graph."""
    if create_graph:
        return tuple(xs)
    return tuple(None if x is None else x.detach() for x in xs)


def _grad(outputs, inputs, grad_outputs, create_graph, retain_graph=True):
    """autograd.grad over the outputs that have history; None where an input
    was not reached."""
    from . import grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


def _fill(grads, refs, strict, create_graph, what):
    """Zeros where a gradient is missing; in strict mode, an error."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode"
                                   f"{what}.")
            g = _tl().zeros_like(ref)
        out.append(g)
    return tuple(out)


def _check_v(v, refs, fn, arg="v"):
    if len(v) != len(refs):
        raise RuntimeError(f"{arg} given to {fn} has {len(v)} Tensors but the user-provided "
                           f"function has {len(refs)} {'outputs' if arg == 'v' and fn == 'vjp' else 'inputs'}.")
    for i, (a, b) in enumerate(zip(v, refs)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in {arg} given to {fn} has shape {tuple(a.shape)} but "
                               f"it should have shape {tuple(b.shape)}.")


def _vectors(v, refs, fn, which):
    """The v of vjp/jvp/hvp/vhp: given and checked against refs, or ones when
    refs is a single one-element tensor."""
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {which} is a single Tensor "
                               f"with a single element.")
        return (_tl().ones_like(refs[0]),)
    vs, _ = _as_tuple(v, "v", fn)
    _check_v(vs, refs, fn)
    return vs


def _check_strict_outputs(outs, strict):
    """strict=True: every output must carry a graph back to the inputs; the
    first that does not is named by its index, as PyTorch does."""
    if not strict:
        return
    for i, o in enumerate(outs):
        if not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require "
                               "gradients. The outputs must be computed in a differentiable "
                               "manner from the input when running in strict mode.")


def _outputs(func, inputs, fn):
    out = func(*inputs)
    outs, was_tuple = _as_tuple(out, "outputs of the user-provided function", fn)
    return outs, was_tuple


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the gradient of sum(v * func(inputs))."""
    inputs, in_tuple = _as_tuple(inputs, "inputs", "vjp")
    with _EnableGrad():
        xs = _prepare(inputs, create_graph)
        outs, out_tuple = _outputs(func, xs, "vjp")
        vs = _vectors(v, outs, "vjp", "the output of the user-provided function")
        _check_strict_outputs(outs, strict)
        grads = _grad(outs, xs, vs, create_graph)
        grads = _fill(grads, xs, strict, create_graph, "")
    return _untuple(_finish(outs, create_graph), out_tuple), \
        _untuple(_finish(grads, create_graph), in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by two reverse passes: with u a dummy gradient,
    g(u) = u^T J is linear in u, and J v is the gradient of g(u) . v."""
    inputs, in_tuple = _as_tuple(inputs, "inputs", "jvp")
    vs = _vectors(v, inputs, "jvp", "the input to the user-provided function")
    with _EnableGrad():
        xs = _prepare(inputs, create_graph)
        outs, out_tuple = _outputs(func, xs, "jvp")
        _check_strict_outputs(outs, strict)
        dummies = tuple(_tl().zeros_like(o).requires_grad_() for o in outs)
        g = _grad(outs, xs, dummies, create_graph=True)
        if strict and any(gi is None for gi in g):
            i = next(k for k, gi in enumerate(g) if gi is None)
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None and gi.requires_grad]
        if pairs:
            from . import grad
            res = grad([gi for gi, _ in pairs], dummies, [vi for _, vi in pairs],
                       create_graph=create_graph, allow_unused=True)
        else:
            res = (None,) * len(outs)
        if strict and create_graph and any(r is None for r in res):
            raise RuntimeError("The jacobian of the user-provided function is independent of "
                               "the input. This is not allowed in strict mode when "
                               "create_graph=True.")
        res = tuple(_tl().zeros_like(o) if r is None else r for r, o in zip(res, outs))
    return _untuple(_finish(outs, create_graph), out_tuple), \
        _untuple(_finish(res, create_graph), out_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d func(inputs) / d inputs: for output i and input j a tensor of shape
    output_i.shape + input_j.shape."""
    _check_jacobian_options(create_graph, strict, vectorize, strategy)
    inputs, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
    with _EnableGrad():
        xs = _prepare(inputs, create_graph)
        watch = _eager()._Watch(func, inputs) if vectorize else None
        outs, out_tuple = _outputs(func, xs, "jacobian")
        if vectorize:
            return _vectorized_jacobian(func, inputs, xs, outs, create_graph, watch,
                                        in_tuple, out_tuple, strategy)
        jac = []
        for i, o in enumerate(outs):
            rows = [[] for _ in xs]
            for k in range(o.numel()):
                # row k: the gradient of output element k, by a one-hot grad_output
                onehot = _C.zeros(o.numel(), dtype=o.dtype, device=o.device)
                onehot[k] = 1
                gs = _grad((o,), xs, (onehot.reshape(o.shape),), create_graph) \
                    if o.requires_grad else (None,) * len(xs)
                for j, (g, x) in enumerate(zip(gs, xs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               f"in strict mode.")
                        g = _tl().zeros_like(x)
                    rows[j].append(g)
            per_input = []
            for j, x in enumerate(xs):
                if rows[j]:
                    block = _C.stack(rows[j]).reshape(*o.shape, *x.shape)
                else:  # an empty output
                    block = _C.zeros(*o.shape, *x.shape, dtype=x.dtype, device=x.device)
                per_input.append(block if create_graph else block.detach())
            jac.append(_untuple(per_input, in_tuple))
    return _untuple(jac, out_tuple)


def _check_jacobian_options(create_graph, strict, vectorize, strategy):
    """PyTorch's refusals, in its order."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                'are not supported together (yet). Please either set `strict=False` or '
                '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian isonly implemented for `vectorize=True`.")
    elif strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")


def _eager():
    """torchlike.func's transforms (imported late: torchlike.func imports nn,
    which imports this package)."""
    from ..func import _eager_transforms
    return _eager_transforms


def _vectorized_jacobian(func, inputs, xs, outs, create_graph, watch, in_tuple, out_tuple,
                         strategy):
    """jacobian(vectorize=True): the rows of every output from one batched
    reverse pass (torchlike.func's _batched_rows: func recorded again under
    a vmap level of one element per row), or the loop of one pass per row
    where that path is not taken.  "forward-mode" gives the same numbers,
    in lists where the inputs are a tuple (PyTorch's containers there)."""
    from ..func import _batched
    eager = _eager()

    def rerun():
        xs2 = _prepare(tuple(_batched.batched_input(x) for x in inputs), create_graph)
        return list(_outputs(func, xs2, "jacobian")[0]), list(xs2)

    outs = list(outs)
    rows = None
    if watch.unchanged():
        rows = eager._batched_rows(rerun, outs, list(xs), create_graph, None)
    if rows is None:
        rows = eager._loop_rows(outs, list(xs), create_graph)
    jac = [_untuple(_finish(blocks, create_graph), in_tuple)
           for blocks in eager._blocks(rows, outs, xs)]
    if strategy == "forward-mode" and in_tuple:
        jac = [list(j) for j in jac]
        return jac if out_tuple else jac[0]
    return _untuple(jac, out_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a function returning a single-element tensor:
    for inputs i and j a tensor of shape input_i.shape + input_j.shape."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    inputs, in_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        outs, _ = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "with a single element.")
        gs = _grad(outs, xs, (_tl().ones_like(outs[0]),), create_graph=True)
        return _fill(gs, xs, strict, True, "")

    # one output of `gradient` per input: result[i][j] = d grad_i / d input_j
    result = jacobian(gradient, _untuple(inputs, in_tuple), create_graph=create_graph,
                      strict=strict, vectorize=vectorize, strategy=outer_jacobian_strategy)
    return result if in_tuple else result[0]


def _scalar_output(outs, fn):
    if len(outs) != 1:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           f"a single element")


def _second_order(func, inputs, v, create_graph, strict, fn):
    inputs, in_tuple = _as_tuple(inputs, "inputs", fn)
    vs = _vectors(v, inputs, fn, "the input to the user-provided function")
    with _EnableGrad():
        xs = _prepare(inputs, create_graph)
        outs, _ = _outputs(func, xs, fn)
        _scalar_output(outs, fn)
        _check_strict_outputs(outs, strict)
        g = _grad(outs, xs, (_tl().ones_like(outs[0]),), create_graph=True)
        g = _fill(g, xs, strict, True, "")
        pairs = [(k, gi) for k, gi in enumerate(g) if gi.requires_grad]
        res = [None] * len(xs)
        if pairs:
            from . import grad
            # v^T H = grad(g . v); H is symmetric, so H v is the same vector
            found = grad([gi for _, gi in pairs], xs, [vs[k] for k, _ in pairs],
                         create_graph=create_graph, allow_unused=True)
            res = list(found)
        res = _fill(res, xs, strict, create_graph, " (the double backward graph)")
    return _finish(outs, create_graph)[0], _untuple(_finish(res, create_graph), in_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function returning a single element."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a function returning a single element (equal
    to v^T H, the Hessian being symmetric)."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


class _EnableGrad:
    """Recording on inside, whatever the caller's mode (these functions
    differentiate even when called under no_grad)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
