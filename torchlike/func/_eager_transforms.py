"""torch.func's differentiating transforms on the autograd tape.

    grad(f)(x)            d f(x) / dx for a scalar f, shaped as x
    grad_and_value(f)(x)  (that gradient, f(x))
    vjp(f, *xs)           (f(xs), v -> v^T J)
    jvp(f, xs, ts)        (f(xs), J t)
    linearize(f, *xs)     (f(xs), t -> J t), the graph built once
    jacrev / jacfwd(f)(x) J, shaped f(x).shape + x.shape
    hessian(f)(x)         the Jacobian of the gradient

How a transform maps onto the tape.  A call enters a new level: each
differentiated input becomes a tensor of its own -- a fresh leaf, or, when the
caller's tensor already requires grad (an outer transform, or the user's own
graph, differentiates it), a ``view_as`` of it that keeps that history -- and
``autograd.grad`` is asked for the derivative with respect to exactly those
tensors.  Gradients therefore flow only along this level's uses of its inputs,
so a function that closes over a tensor an outer transform differentiates gets
PyTorch's numbers, and nested transforms (``grad(grad(f))``,
``jacrev(grad(f))``, ``hessian``) work.  The results keep their graph
(``create_graph=True``) when they may be differentiated again: an outer
transform is active, an input already required grad, or f's graph reaches a
leaf other than this level's inputs (a parameter the user will call
``backward`` on); otherwise they are handed back detached, as PyTorch's are.

There is no forward mode: ``jvp`` is computed by the double-vjp trick.  With
u a dummy cotangent, g(u) = J^T u is linear in u, and the vjp of g with
respect to u, taken at the tangent t, is J t.  The numbers are the forward
derivative's; the cost is two reverse passes, and every derivative formula on
the path must itself be differentiable.  ``jacfwd`` computes the same Jacobian
as ``jacrev``, by reverse-mode rows; it differs only in ``randomness``.

Jacobians: f is recorded once, then again under a vmap level with one
element per Jacobian row, and one reverse pass of that batched graph with
the one-hot basis as cotangent gives every row (_batched_rows, below, says
when the loop of one vjp per row on the first graph runs instead)."""
import threading

from .. import _C
from .. import autograd
from ..autograd.grad_mode import enable_grad
from ..autograd.graph import _engine_run_backward
from . import _batched
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]

_state = threading.local()


def _depth():
    """How many transforms are running around the current call."""
    return getattr(_state, "depth", 0)


class _Level:
    """The body of one transform: grad mode on, the depth one deeper."""

    def __enter__(self):
        self.outer = _depth()
        _state.depth = self.outer + 1
        self.grad_mode = enable_grad()
        self.grad_mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.grad_mode.__exit__(*exc)
        _state.depth = self.outer
        return False


def _own_input(x):
    """The tensor this level differentiates with respect to, standing for x."""
    if not isinstance(x, _C.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    x = _batched.batched_input(x)
    levels = _batched.levels_of(x)
    with _C.DisableTorchFunction():  # physical ops: the same on a batched tensor
        if x.requires_grad:
            return _batched.wrap(x.view_as(x), levels)
        y = _batched.wrap(x.detach(), levels)
        return y.requires_grad_()  # the wrapped tensor itself is the leaf


def _reaches_other_leaf(outputs, own):
    """Whether the graph of ``outputs`` reaches a leaf that requires grad other
    than the tensors in ``own`` (f used a parameter from outside)."""
    own_ids = {id(t) for t in own}
    seen, stack = set(), [t.grad_fn for t in outputs
                          if isinstance(t, _C.Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None and id(var) not in own_ids:
            return True
        stack.extend(n for n, _ in node.next_functions)
    return False


def _keep_graph(outer_depth, originals, own, outputs):
    """Whether results must stay differentiable (see the module's comment)."""
    return (outer_depth > 0 or any(isinstance(t, _C.Tensor) and t.requires_grad for t in originals)
            or _reaches_other_leaf(outputs, own))


def _detach(tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if isinstance(t, _C.Tensor) else t for t in leaves], spec)


def _tape_grads(outputs, inputs, cotangents, create_graph):
    """sum_k cotangents[k] . d outputs[k] / d inputs, zeros where unused; the
    outputs that require no grad contribute nothing."""
    tl = _torchlike()
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs or not inputs:
        return [tl.zeros_like(x) for x in inputs]
    grads = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                          retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [tl.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _torchlike():
    """The package (its functions dispatch to batching rules inside vmap)."""
    import torchlike
    return torchlike


def _check_argnums(argnums, nargs):
    """argnums as a tuple of non-negative positions, PyTorch's errors."""
    single = isinstance(argnums, int)
    if not single and not (isinstance(argnums, tuple)
                           and all(isinstance(a, int) for a in argnums)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    nums = (argnums,) if single else argnums
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    norm = tuple(a % nargs for a in nums)
    if len(set(norm)) != len(norm):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return norm, single


class _Differentiated:
    """The chosen arguments of one call replaced by this level's own tensors:
    ``args`` to call f with, ``own`` the flat own tensors, ``originals`` the
    caller's, and ``pack`` to shape flat per-input results as the argnums."""

    def __init__(self, args, argnums):
        self.nums, self.single = _check_argnums(argnums, len(args))
        self.args = list(args)
        self.own, self.originals, self.specs = [], [], []
        for a in self.nums:
            leaves, spec = tree_flatten(args[a])
            mine = [_own_input(t) for t in leaves]
            self.args[a] = tree_unflatten(mine, spec)
            self.own += mine
            self.originals += leaves
            self.specs.append(spec)

    def pack(self, flat):
        """Per-own-input values (one per flat input) as the argnums' structure."""
        out, i = [], 0
        for spec in self.specs:
            out.append(tree_unflatten(flat[i:i + spec.num_leaves], spec))
            i += spec.num_leaves
        return out[0] if self.single else tuple(out)


def _split_aux(out, has_aux, where):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (d func / d args[argnums], func(*args)); with
    ``has_aux``, func returns (scalar, aux) and the value is (scalar, aux)."""
    def wrapper(*args, **kwargs):
        where = "grad_and_value(f)(*args)"
        with _Level() as level:
            diff = _Differentiated(args, argnums)
            out, aux = _split_aux(func(*diff.args, **kwargs), has_aux, where)
            if not isinstance(out, _C.Tensor):
                raise RuntimeError(f"{where}: Expected f(*args) to return a Tensor, "
                                   f"got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{where}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the "
                                   "vjp or jacrev APIs instead?")
            keep = _keep_graph(level.outer, diff.originals, diff.own, [out])
            grads = _tape_grads([out], diff.own, [_torchlike().ones_like(out)], keep)
        value = (out, aux) if has_aux else out
        if not keep:
            grads, value = _detach(grads), _detach(value)
        return diff.pack(grads), value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning d func / d args[argnums] (and aux with
    ``has_aux``), shaped as those arguments; func must return a scalar."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def _tensor_outputs(out, where, what="f(*primals)"):
    leaves, spec = tree_flatten(out)
    for t in leaves:
        if not isinstance(t, _C.Tensor):
            raise RuntimeError(f"{where}: expected {what} to return only tensors, got "
                               f"unsupported type {type(t)}")
    return leaves, spec


def _check_differentiable(outs):
    """vjp's rule: every output can carry a cotangent."""
    for t in outs:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {t.dtype}")


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the
    cotangents pulled back to every primal, a tuple as long as primals."""
    where = "vjp(f, *primals)"
    with _Level() as level:
        diff = _Differentiated(primals, tuple(range(len(primals)))) if primals else None
        out, aux = _split_aux(func(*(diff.args if diff else ())), has_aux, where)
        outs, out_spec = _tensor_outputs(out, where)
        _check_differentiable(outs)
        own = diff.own if diff else []
        keep = _keep_graph(level.outer, diff.originals if diff else [], own, outs)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{ct_spec.short_str()}, primal output: {out_spec.short_str()}")
        make = keep or _depth() > 0 or any(c.requires_grad for c in cts) \
            if create_graph is None else create_graph
        with enable_grad():
            grads = _tape_grads(outs, own, cts, make)
        if not make:
            grads = [g.detach() for g in grads]
        return diff.pack(grads) if diff else ()

    result = (out if keep else _detach(out), vjp_fn)
    return result + ((aux if keep else _detach(aux)),) if has_aux else result


def _jvp_graph(func, primals, where, has_aux):
    """f at this level's copies of primals, and the double-vjp graph: dummy
    cotangents ``us`` (one per output) and g = J^T u for every primal."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{where}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    with _Level() as level:
        diff = _Differentiated(primals, tuple(range(len(primals)))) if primals else None
        if diff is None or not diff.own:
            raise RuntimeError(f"{where}: Expected primals to contain at least one Tensor.")
        out, aux = _split_aux(func(*diff.args), has_aux, where)
        outs, out_spec = _tensor_outputs(out, where)
        keep = _keep_graph(level.outer, diff.originals, diff.own, outs)
        # an integer output has no cotangent: its tangent is zeros
        real = [o for o in outs if o.is_floating_point() or o.is_complex()]
        us = [_torchlike().zeros_like(o).requires_grad_() for o in real]
        gs = _tape_grads(real, diff.own, us, True)
    return diff, out, aux, outs, us, gs, keep


def _push_forward(diff, outs, us, gs, tangents, where, keep):
    """J t for the flat tangents: the vjp of g = J^T u with respect to u at t."""
    for x, t in zip(diff.originals, tangents):
        if not isinstance(t, _C.Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        if tuple(t.shape) != tuple(x.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(x.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")
    tangents = [t.to(x.dtype) for x, t in zip(diff.originals, tangents)]
    make = keep or _depth() > 0 or any(t.requires_grad for t in tangents)
    live = [(g, t) for g, t in zip(gs, tangents) if g.requires_grad]
    res = [None] * len(us)
    if live and us:
        with enable_grad():
            res = autograd.grad([g for g, _ in live], us, [t for _, t in live],
                                retain_graph=True, create_graph=make, allow_unused=True)
    res = iter(res)  # one per floating or complex output, in order
    res = [(next(res) if o.is_floating_point() or o.is_complex() else None) for o in outs]
    res = [_torchlike().zeros_like(o) if r is None else r for r, o in zip(res, outs)]
    return res if make else [r.detach() for r in res]


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents[, aux]) by the double-vjp trick."""
    where = "jvp(f, primals, tangents)"
    if isinstance(primals, tuple) and isinstance(tangents, tuple):
        p_spec, t_spec = tree_flatten(primals)[1], tree_flatten(tangents)[1]
        if p_spec != t_spec:
            raise RuntimeError(f"{where}: Expected primals and tangents to have the same python "
                               "structure. For example, if primals is a tuple of 3 tensors, "
                               "tangents also must be. Got primals with structure "
                               f"{p_spec!r} and tangents with structure {t_spec!r}")
    diff, out, aux, outs, us, gs, keep = _jvp_graph(func, primals, where, has_aux)
    if not isinstance(tangents, tuple):
        raise RuntimeError(f"{where}: Expected tangents to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat = _push_forward(diff, outs, us, gs, tree_flatten(tangents)[0], where, keep)
    out_spec = tree_flatten(out)[1]
    result = (out if keep else _detach(out), tree_unflatten(flat, out_spec))
    return result + ((aux if keep else _detach(aux)),) if has_aux else result


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) gives J tangents, reusing
    the graph recorded once here."""
    where = "linearize(f, *primals)"
    diff, out, _, outs, us, gs, keep = _jvp_graph(func, tuple(primals), where, False)
    out_spec = tree_flatten(out)[1]

    def jvp_fn(*tangents):
        flat, t_spec = tree_flatten(tangents)
        if t_spec != tree_flatten(tuple(primals))[1]:
            raise RuntimeError(f"{where}: Expected tangents to have the same python structure "
                               f"as primals. Got primals with structure "
                               f"{tree_flatten(tuple(primals))[1]!r} and tangents with structure "
                               f"{t_spec!r}")
        return tree_unflatten(_push_forward(diff, outs, us, gs, flat, where, keep), out_spec)

    return (out if keep else _detach(out)), jvp_fn


def _jacobian(func, argnums, has_aux, args, kwargs, where, chunk_size=None):
    """The Jacobian tree of func at args: the outputs' structure, each leaf
    the argnums' structure of out.shape + in.shape blocks.  f is recorded
    once; the rows come from one batched reverse pass (_batched_rows) or,
    where that path cannot run, one vjp per output element on that graph."""
    name = where.split("(", 1)[0]
    _refuse_complex(name, tree_flatten(args)[0], "inputs")
    with _Level() as level:
        diff = _Differentiated(args, argnums)
        watch = _Watch(func, tree_flatten((args, kwargs))[0])
        out, aux = _split_aux(func(*diff.args, **kwargs), has_aux, where)
        outs, out_spec = _tensor_outputs(out, "vjp(f, *primals)")
        _check_differentiable(outs)
        _refuse_complex(name, outs, "outputs")
        keep = _keep_graph(level.outer, diff.originals, diff.own, outs)

        def rerun():
            d = _Differentiated(args, argnums)
            o, _ = _split_aux(func(*d.args, **kwargs), has_aux, where)
            return _tensor_outputs(o, "vjp(f, *primals)")[0], d.own

        rows = None
        if watch.unchanged():
            rows = _batched_rows(rerun, outs, diff.own, keep, chunk_size)
        if rows is None:
            rows = _loop_rows(outs, diff.own, keep)
        blocks = [diff.pack(per_input) for per_input in _blocks(rows, outs, diff.own)]
    jac = tree_unflatten(blocks, out_spec)
    if not keep:
        jac, aux = _detach(jac), _detach(aux)
    return (jac, aux) if has_aux else jac


def _refuse_complex(name, flat, what):
    """PyTorch's jacrev / jacfwd take real tensors only (its message says
    "input idx" for outputs too)."""
    for i, t in enumerate(flat):
        if isinstance(t, _C.Tensor) and t.is_complex():
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


# ---- the rows of a Jacobian ---------------------------------------------------------------------
#
# ``rows[j]`` is, for the flat differentiated input j, a (N, *x_j.shape)
# tensor: row r the gradient of the r-th element of the outputs that require
# grad, taken in order and flattened (N their total number of elements).
#
# The batched path is PyTorch's vmap over vjp, on a tape without batched
# backward formulas: the derivative formulas of the recorded graph are
# written for its own shapes and cannot take a cotangent with an extra batch
# dim.  So f is recorded a second time, under a vmap level of N elements
# (every differentiated input expanded to the batch, each element its own
# copy, the batching rules running every op once on the whole batch), and
# that batched graph gets one reverse pass with the one-hot basis as its
# batched cotangent: element r's gradient is row r.  chunk_size splits the
# basis (one batched run per chunk).  The path is not tried -- the plain
# loop of one vjp per row on the first graph runs instead -- when it cannot
# be trusted to repeat the first run -- the batched path turned off
# (_batched.enabled), a random draw during the first run, or an in-place
# write into an input, a captured tensor or a module's state (_Watch) -- or
# when it would be slower: fewer than min_batched_rows rows, chunk_size 1.
# Any failure
# of the batched run (a value-dependent call, an error, a random draw,
# outputs that differ from the first run's) falls back to the loop as well.

# Below this many rows the loop is faster than the batched run's fixed cost
# (a second recording of f through the batching rules): measured on the CPU
# for 4-64 rows, the loop costs 15-20 us a row, the batched run 130-450 us
# whatever the count.  Tests set it to 2 to send small cases down the batched
# path.
min_batched_rows = 8


def _loop_rows(outs, own, keep):
    """One vjp per output element on the recorded graph."""
    tl = _torchlike()
    live = [o for o in outs if o.requires_grad]
    if len(live) == 1 and live[0].numel() == 1:  # a scalar: its gradient is the one row
        return _tape_grads(live, own, [tl.ones_like(live[0])], keep)
    found = [[] for _ in own]
    for o in live:
        flat_o = o.reshape(-1)
        for k in range(o.numel()):
            for j, g in enumerate(_tape_grads([flat_o[k]], own, [tl.ones_like(flat_o[k])], keep)):
                found[j].append(g)
    return [tl.stack(f) if f else None for f in found]


def _blocks(rows, outs, own):
    """Per output, the per-input (out.shape + in.shape) blocks cut from rows."""
    blocks, off = [], 0
    total = sum(o.numel() for o in outs if o.requires_grad)
    for o in outs:
        n = o.numel() if o.requires_grad else 0
        per_input = []
        for r, x in zip(rows, own):
            shape = tuple(o.shape) + tuple(x.shape)
            if n == 0:
                per_input.append(_C.zeros(shape, dtype=x.dtype, device=x.device))
            elif n == total:  # every row is this output's (or r is a scalar's gradient)
                per_input.append(r.reshape(shape))
            else:
                per_input.append(r.narrow(0, off, n).reshape(shape))
        blocks.append(per_input)
        off += n
    return blocks


class _Watch:
    """What the first run of f must leave alone for a second run to repeat
    it: the random generators, the inputs, the tensors f's code captures, and
    the parameters and buffers of the modules it is, captures or is given (a
    BatchNorm's running statistics)."""

    def __init__(self, func, inputs):
        from ._vmap import _generator_states, _seen_tensors
        self.states = _generator_states()
        self.seen = _seen_tensors(func, inputs)
        self.seen += [(t, t._version) for t in _module_tensors((func, *inputs))]

    def unchanged(self):
        from ._vmap import _generator_states, _same_states
        return (all(t._version == v for t, v in self.seen)
                and _same_states(self.states, _generator_states()))


def _module_tensors(func, depth=2):
    """The parameters and buffers of the nn.Modules func is, is bound to, or
    reaches through its closure cells, the globals its code names, a
    functools.partial's arguments, and (``depth`` deep) the functions it
    captures in those ways."""
    from ..nn import Module
    found, seen = [], set()

    def visit(obj, depth):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Module):
            found.extend(obj.parameters())
            found.extend(obj.buffers())
            return
        if isinstance(obj, (list, tuple, dict)):
            for leaf in tree_flatten(obj)[0]:
                visit(leaf, depth)
            return
        if depth < 0 or not callable(obj):
            return
        for inner in (getattr(obj, "__self__", None), getattr(obj, "func", None)):
            if inner is not None:
                visit(inner, depth - 1)
        for arg in (*getattr(obj, "args", ()), *(getattr(obj, "keywords", None) or {}).values()):
            visit(arg, depth - 1)
        for cell in getattr(obj, "__closure__", None) or ():
            try:
                visit(cell.cell_contents, depth - 1)
            except ValueError:  # an empty cell
                continue
        code, names = getattr(obj, "__code__", None), getattr(obj, "__globals__", {})
        for n in code.co_names if code else ():
            if n in names:
                visit(names[n], depth - 1)

    visit(func, depth)
    return found


def _basis(o, start, n, offset):
    """Rows start..start+n of the one-hot basis, the columns of output o
    (whose elements are rows offset..offset+numel): (n, *o.shape), o's dtype."""
    b = _C.zeros((n, o.numel()), dtype=o.dtype, device=o.device)
    b.diagonal(start - offset).fill_(1)
    return b.reshape((n,) + tuple(o.shape))


def _batched_vjp(outs, outs2, own2, cts, keep):
    """The vjp of the batched run's outputs outs2 (the first run's outs,
    batched) with respect to its inputs own2 at the batched one-hot
    cotangents cts (one per output of outs requiring grad), batched as own2.
    Physical tensors throughout: the engine call of autograd.grad without
    its checks, which the first run has passed."""
    levels_of = _batched.levels_of
    roots, grads = [], []
    with _C.DisableTorchFunction():
        if len(outs2) != len(outs):
            raise _batched.Abandon("the batched run's outputs differ from the first run's")
        cts = iter(cts)
        for a, b in zip(outs2, outs):
            if (a.shape[len(levels_of(a)):] != b.shape[len(levels_of(b)):] or a.dtype != b.dtype
                    or a.requires_grad != b.requires_grad):
                raise _batched.Abandon("the batched run's outputs differ from the first run's")
            if a.requires_grad:
                roots.append(a)
                grads.append(next(cts))
    # a cotangent batched at more levels than its output gives up (Abandon)
    grads = [_batched.match_cotangent(g, o) for g, o in zip(grads, roots)]
    with _C.DisableTorchFunction():
        found = _engine_run_backward(tuple(roots), tuple(grads), True, keep, tuple(own2), True) \
            if roots else [None] * len(own2)
        return [_batched.wrap(x.new_zeros(x.shape) if g is None else g, levels_of(x))
                for g, x in zip(found, own2)]


def _batched_rows(rerun, outs, own, keep, chunk_size):
    """rows (see above) from one batched reverse pass per chunk, or None
    when the batched path is not tried or gives up.  rerun() records f again
    inside the batched run and returns (flat outputs, flat own inputs)."""
    from ._vmap import _generator_states, _run_batched
    live = [o for o in outs if o.requires_grad]
    total = sum(o.numel() for o in live)
    chunk = total if chunk_size is None else min(chunk_size, total)
    if not _batched.enabled or total < min_batched_rows or chunk < 2:
        return None

    def element(*cts):
        with enable_grad():
            outs2, own2 = rerun()
        return _batched_vjp(outs, outs2, own2, cts, keep)

    pieces = []
    try:
        for start in range(0, total, chunk):
            n = min(chunk, total - start)
            cts, offset = [], 0
            for o in live:
                cts.append(_basis(o, start, n, offset))
                offset += o.numel()
            got = _run_batched(element, cts, tree_flatten(cts)[1], [0] * len(cts), n, {},
                               "error", 0, _generator_states())
            pieces.append(got)
    except Exception:  # noqa: BLE001 -- the loop is the reference; it raises real errors
        _batched.stats["jacobian_gave_up"] += 1
        return None
    _batched.stats["jacobian_batched"] += 1
    if len(pieces) == 1:
        return list(pieces[0])
    return [_torchlike().cat([p[j] for p in pieces], 0) for j in range(len(own))]


def _check_chunk(chunk_size, name):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"{name}: `chunk_size` should be greater than 0.")


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of func with respect to
    args[argnums] by reverse mode: one batched reverse pass over the basis
    of output elements, ``chunk_size`` of them at a time (see _batched_rows;
    1 is one vjp per element)."""
    _check_chunk(chunk_size, "jacrev")

    def wrapper(*args, **kwargs):
        return _jacobian(func, argnums, has_aux, args, kwargs, "jacrev(f)(*args)", chunk_size)
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """A function returning the Jacobian of func with respect to
    args[argnums]: jacrev's numbers (see the module's comment).  With
    ``randomness='error'`` a random draw from a default generator inside func
    raises as PyTorch's batched tangents do."""
    from ._vmap import _check_randomness, _RandomnessGuard
    _check_randomness(randomness)

    def wrapper(*args, **kwargs):
        with _RandomnessGuard(randomness) as guard:
            guard.before_element()
            result = _jacobian(func, argnums, has_aux, args, kwargs, "jacfwd(f)(*args)")
            guard.after_element()
        return result
    return wrapper


def hessian(func, argnums=0):
    """A function returning the Hessian of a scalar func with respect to
    args[argnums]: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)
