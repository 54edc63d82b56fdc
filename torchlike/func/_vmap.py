"""vmap: a function mapped over a batch dimension of its inputs.

Two paths.  The batched one (PyTorch's): func runs ONCE, on BatchedTensors
(_batched.py) -- each batched input with its batch dim moved to the front and
a level number for nested vmaps -- and every op it calls meets a batching
rule (_batching_rules.py) that runs the op on the whole batch with its dims
shifted; the outputs get their batch dim moved to ``out_dims``.  The ops are
recorded on the tape like any other, so grad of a vmapped function and grad
inside vmap (per-sample gradients: an unbatched input of grad is expanded per
element, _batched.batched_input) work.  An op without a rule runs per element
inside the batched run (slices of its batched arguments, results stacked).

The per-element one, the reference: for every index b of the batch, func is
called with each batched input's slice ``x.select(in_dim, b)`` (the unbatched
inputs, in_dim None, and the keyword arguments as they are), and the results
are stacked at ``out_dims``.  It runs when the batched attempt gives up: a
value-dependent call (``.item()``, ``bool(t)``, printing, a per-element shape
that differs across the batch), a differentiated autograd.Function, or any
error inside the attempt (then the
per-element run raises the error, or gives the answer).  func has then been
called twice -- once batched, partly, and once per element -- so its side
effects (prints, appends) can happen twice; the generators are rewound
before the rerun, and a write into an input or a captured tensor before
giving up raises rather than being repeated.  docs/autograd.md lists the rules.

Differences from PyTorch (also in docs/autograd.md):
  * PyTorch raises for ``.item()`` / data-dependent control flow inside vmap;
    torchlike runs such a function per element, with the caveat above;
  * per element, a batch of size 0 runs func once on zeros shaped as one
    element (the batched path runs it on the empty batch);
  * per element, ``out_dims=None`` returns an output when every element gave
    the same tensor (or equal values) where PyTorch raises for a batched one;
  * per element, an in-place write into an unbatched tensor that vmap can see
    (an input with in_dim None, or a tensor func's code captures by closure or
    global) raises after the element that wrote: repeated per element it
    would not give PyTorch's result.  The batched path raises PyTorch's error
    for a batched value written into an unbatched tensor and writes an
    unbatched one once, as PyTorch;
  * ``randomness='error'``: a draw on a batched tensor raises at once; any
    other draw is found by comparing the default generators' states after
    func (the CPU's, and the current CUDA device's where one exists), so a
    draw from an explicit ``generator=`` is not caught;
  * ``chunk_size``: the batched path runs func once per chunk and joins the
    pieces ('same' draws once per chunk).
"""
import contextlib
import functools

from .. import _C
from . import _batched
from .._closeness import equal as _equal
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def _check_randomness(randomness):
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _generator_states():
    """The states of the default generators a random op can draw from."""
    from .. import cuda
    states = [_C.get_rng_state()]
    if cuda.is_available():
        states.append(cuda.get_rng_state())
    return states


def _set_generator_states(states):
    from .. import cuda
    _C.set_rng_state(states[0])
    if len(states) > 1:
        cuda.set_rng_state(states[1])


def _same_states(a, b):
    return len(a) == len(b) and all(x.numpy().tobytes() == y.numpy().tobytes()
                                    for x, y in zip(a, b))


class _RandomnessGuard:
    """One element's run under a randomness mode: 'same' starts every element
    from the generators' states at entry, 'error' raises when an element moved
    them, 'different' lets the draws go on."""

    def __init__(self, randomness):
        self.randomness = randomness

    def __enter__(self):
        self.start = _generator_states() if self.randomness != "different" else None
        return self

    def before_element(self):
        if self.randomness == "same":
            _set_generator_states(self.start)

    def after_element(self):
        if self.randomness == "error" and not _same_states(self.start, _generator_states()):
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags "
                               "on vmap or perform the randomness operation out of vmap")

    def __exit__(self, *exc):
        return False


def _name(func):
    return getattr(func, "__name__", repr(func))


def _flat_in_dims(func, in_dims, args):
    """in_dims spread over the flat leaves of args, PyTorch's errors."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    leaves, spec = tree_flatten(args)
    dims = _spread_dims(where, "in", in_dims, args, spec)
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                             "tuple matching the structure of inputs, got: "
                             f"{type(d)}.")
        if not isinstance(x, _C.Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return leaves, spec, [None if d is None else d % x.dim() for x, d in zip(leaves, dims)], \
        sizes[0]


def _unbatched_tensors(func, leaves, dims):
    """(tensor, version) for the unbatched inputs and the tensors func's own
    code captures (closure cells, globals it names): an element writing into
    one of them is refused."""
    seen = [x for x, d in zip(leaves, dims) if d is None and isinstance(x, _C.Tensor)]
    captured = []
    for cell in getattr(func, "__closure__", None) or ():
        try:
            captured.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    code, names = getattr(func, "__code__", None), getattr(func, "__globals__", {})
    captured += [names[n] for n in (code.co_names if code else ()) if n in names]
    for c in captured:
        seen += [t for t in tree_flatten(c)[0] if isinstance(t, _C.Tensor)]
    return [(t, t._version) for t in seen]


def _check_unwritten(func, watched):
    for t, version in watched:
        if t._version != version:
            raise RuntimeError(f"vmap({_name(func)}, ...): `{_name(func)}` wrote in place into a "
                               "Tensor that is not batched (an input with in_dim None or a "
                               "captured Tensor). torchlike's vmap runs the function once per "
                               "batch element, so the write would be repeated for every element; "
                               "please write out of place instead.")


def _element_args(leaves, spec, dims, b):
    """The arguments of element b (None: one element of zeros, for an empty batch)."""
    out = []
    for x, d in zip(leaves, dims):
        if d is None:
            out.append(x)
        elif b is None:
            shape = tuple(x.shape[:d]) + tuple(x.shape[d + 1:])
            out.append(_C.zeros(shape, dtype=x.dtype, device=x.device))
        else:
            out.append(x.select(d, b))
    return tree_unflatten(out, spec)


def _flat_out_dims(func, out_dims, out):
    where = f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>)"
    if not isinstance(out_dims, (int, tuple, type(None))):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an "
                         "int, None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")
    return _spread_dims(where, "out", out_dims, out, tree_flatten(out)[1])


def _spread_dims(where, side, dims_arg, tree, spec):
    """in_dims / out_dims (``side`` "in" / "out") spread over the leaves of the
    inputs / outputs ``tree`` (whose spec is ``spec``), or PyTorch's error when
    the structures do not match."""
    dims = broadcast_prefix(dims_arg, tree)
    if dims is None:
        raise ValueError(f"{where}: {side}_dims is not compatible with the structure of "
                         f"`{side}puts`. {side}_dims has structure {tree_flatten(dims_arg)[1]!r} "
                         f"but {side}puts has structure {spec!r}.")
    return dims


def _equal_everywhere(items):
    first = items[0]
    if all(t is first for t in items):
        return True
    return all(isinstance(t, _C.Tensor) and t.shape == first.shape and t.dtype == first.dtype
               and _equal(t, first) for t in items[1:])


def _combine(func, results, out_dims, batch):
    """Stack the per-element results (a list of output trees) at out_dims."""
    leaves0, spec = tree_flatten(results[0])
    dims = _flat_out_dims(func, out_dims, results[0])
    per_leaf = list(zip(*[tree_flatten(r)[0] for r in results])) if batch else \
        [() for _ in leaves0]
    out = []
    for j, (x0, d) in enumerate(zip(leaves0, dims)):
        items = per_leaf[j]
        if d is None:
            if batch and not _equal_everywhere(items):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a "
                                 "BatchedTensor when out_dim is None")
            out.append(x0)
            continue
        if not isinstance(x0, _C.Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                             f"Tensors, got type {type(x0)}. Did you mean to set out_dims= to "
                             "None for output?")
        n = x0.dim() + 1
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                             f", but got {d})")
        if batch:
            out.append(_C.stack(list(items), d % n))
        else:
            out.append(_C.stack([x0], d % n).narrow(d % n, 0, 0))
    return tree_unflatten(out, spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over dimension ``in_dims`` of its inputs, its outputs
    stacked at ``out_dims`` (see the module's comment: one batched call, or
    one call per element).

    in_dims: an int, or a tuple with one entry per positional argument (an
    int, None for an unbatched argument, or a nested tuple/dict for a
    container argument).  out_dims: the same over the outputs.  randomness:
    'error', 'different' or 'same'."""
    _check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        leaves, spec, dims, batch = _flat_in_dims(func, in_dims, args)
        if _batched.enabled:
            states = _generator_states()
            seen = _seen_tensors(func, leaves)
            try:
                out = _run_chunked(func, leaves, spec, dims, batch, kwargs, randomness,
                                   out_dims, chunk_size, states)
                _batched.stats["batched"] += 1
                return out
            except Exception as exc:  # noqa: BLE001 -- the per-element path is the reference
                if getattr(exc, "vmap_final", False):
                    raise
                _refuse_rerun_after_writes(func, seen, exc)
                _batched.stats["fallback"] += 1
                _set_generator_states(states)
        results = []
        watched = _unbatched_tensors(func, leaves, dims)
        with _RandomnessGuard(randomness) as guard:
            for b in range(batch) if batch else [None]:
                guard.before_element()
                results.append(func(*_element_args(leaves, spec, dims, b), **kwargs))
                guard.after_element()
                _check_unwritten(func, watched)
        return _combine(func, results if batch else results[:1], out_dims, batch)

    return wrapped


# ---- the batched path ----------------------------------------------------------------------

def _seen_tensors(func, leaves):
    """(tensor, version) for the inputs and the tensors func's code captures."""
    seen = [(t, t._version) for t in leaves if isinstance(t, _C.Tensor)]
    return seen + _unbatched_tensors(func, [], [])


def _refuse_rerun_after_writes(func, seen, exc):
    """The batched attempt gave up after writing into a tensor vmap can see:
    running func again per element would write twice."""
    for t, version in seen:
        if t._version != version:
            raise _batched.final(RuntimeError(
                f"vmap({_name(func)}, ...): `{_name(func)}` wrote in place into an input or a "
                "captured Tensor and then made the batched run give up "
                f"({type(exc).__name__}: {exc}); torchlike's vmap would rerun it once per "
                "element and write twice. Please write out of place, or avoid value-dependent "
                "calls (.item(), bool(tensor)) inside the function.")) from exc

def _run_chunked(func, leaves, spec, dims, batch, kwargs, randomness, out_dims, chunk_size,
                 states):
    """The batched run, in pieces of chunk_size elements when one is given
    (states: the generators' at entry)."""
    if chunk_size is None or chunk_size >= batch:
        return _run_batched(func, leaves, spec, dims, batch, kwargs, randomness, out_dims,
                            states)
    pieces = []
    for start in range(0, batch, chunk_size):
        n = min(chunk_size, batch - start)
        part = [x if d is None else x.narrow(d, start, n) for x, d in zip(leaves, dims)]
        pieces.append(_run_batched(func, part, spec, dims, n, kwargs, randomness, out_dims,
                                   states))
    flat = [tree_flatten(p)[0] for p in pieces]
    out_spec = tree_flatten(pieces[0])[1]
    odims = _flat_out_dims(func, out_dims, pieces[0])
    joined = []
    for j, d in enumerate(odims):
        items = [f[j] for f in flat]
        joined.append(items[0] if d is None else _torchlike_cat(items, d))
    return tree_unflatten(joined, out_spec)


def _torchlike_cat(items, d):
    """cat at logical dim d (the public function: an outer vmap's batched
    pieces dispatch to its rule)."""
    import torchlike
    return torchlike.cat(items, d % (items[0].dim()))


@contextlib.contextmanager
def _no_mode():
    yield


def _run_batched(func, leaves, spec, dims, batch, kwargs, randomness, out_dims, states):
    """func called once on BatchedTensors (_batched.py), its outputs
    unwrapped at out_dims.  Raises when the attempt must be given up."""
    level = _batched.Level(batch, randomness)
    start = states if randomness == "error" else None
    stack = _batched.active()
    stack.append(level)
    try:
        inputs = []
        for x, d in zip(leaves, dims):
            if d is None:
                inputs.append(x)
                continue
            with _C.DisableTorchFunction():
                k = len(_batched.levels_of(x))
                p = x.movedim(k + d, k) if d else x
            inputs.append(_batched.wrap(p, _batched.levels_of(x) + (level.id,)))
        # randomness 'error' needs no mode: a draw on a batched tensor meets
        # its rule, any other moves the generators (checked below)
        with _batched.VmapMode() if randomness != "error" else _no_mode():
            out = func(*tree_unflatten(inputs, spec), **kwargs)
        if start is not None and not _same_states(start, _generator_states()):
            raise _batched.VmapError(_batched._RANDOM_ERROR)
        flat, out_spec = tree_flatten(out)
        odims = _flat_out_dims(func, out_dims, out)
        return tree_unflatten([_unwrap(func, x, d, level) for x, d in zip(flat, odims)],
                              out_spec)
    finally:
        stack.pop()


def _unwrap(func, x, d, level):
    """One output of the batched run with level's batch dim at logical dim d
    (an output not batched at it is expanded, as PyTorch's)."""
    lv = _batched.levels_of(x)
    if level.id in lv:
        if d is None:
            raise _batched.final(ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor when "
                "out_dim is None"))
        j = lv.index(level.id)
        rest = lv[:j] + lv[j + 1:]
        with _C.DisableTorchFunction():
            n = x.dim() - len(lv) + 1
            if not -n <= d < n:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                                 f"{n - 1}], but got {d})")
            p = x.movedim(j, len(rest) + d % n)
        return _batched.wrap(p, rest)
    if d is None:
        return x
    if not isinstance(x, _C.Tensor):
        raise _batched.final(ValueError(
            f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
            f"{type(x)}. Did you mean to set out_dims= to None for output?"))
    n = x.dim() + 1
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {d})")
    shape = list(x.shape)
    shape.insert(d % n, level.size)
    return x.unsqueeze(d % n).expand(shape)
