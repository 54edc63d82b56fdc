"""Batched tensors: what vmap's batched path runs f on.

A ``BatchedTensor`` is a real tensor (a Tensor subclass sharing storage and
autograd history) whose physical shape is ``batch dims + logical shape``: one
leading dim per vmap level it is batched at (``_levels``, outermost first),
then the per-element shape f sees.  Every call on it reaches
``__torch_function__`` (or the level's mode), which answers with the logical
meaning: ``.shape`` / ``.dim()`` report the per-element shape, a ``dim=``
argument is shifted past the batch dims, operands of different levels or
ranks are aligned before an elementwise op, and so on (the rules are in
_batching_rules.py).  The physical op runs once on the whole batch and is
recorded on the tape like any other, so grad of and inside vmap work.

An op without a rule runs per element (``_op_loop``: the batched arguments
sliced, the op called on each slice, the results stacked), as PyTorch's
fallback does.  A value-dependent call (``.item()``, ``bool()``, a per-element
shape that differs across the batch) raises ``Abandon``: vmap then reruns f
element by element (_vmap.py)."""
import itertools
import math
import threading

from .. import _C
from ..overrides import TorchFunctionMode, resolve_name

Tensor = _C.Tensor
_state = threading.local()
_ids = itertools.count(1)

# how many calls took which path (the tests check that the batched path ran);
# jacobian_*: jacrev & co's batched rows (_eager_transforms._batched_rows)
stats = {"batched": 0, "fallback": 0, "op_loops": {}, "jacobian_batched": 0,
         "jacobian_gave_up": 0}
# the batched path on (tests and benchmarks turn it off to compare)
enabled = True


class Abandon(Exception):
    """The batched attempt cannot go on (a value-dependent call)."""


def final(exc):
    """exc marked as PyTorch's own vmap error: vmap raises it rather than
    retrying element by element."""
    exc.vmap_final = True
    return exc


def VmapError(msg):  # noqa: N802 -- reads as the exception it makes
    return final(RuntimeError(msg))


_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")
_INPLACE_ERROR = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there "
                  "exists a Tensor `other` in extra_args that has more elements than `self`. This "
                  "happened due to `other` being vmapped over but `self` not being vmapped over "
                  "in a vmap. Please try to use out-of-place operators instead of inplace "
                  "arithmetic. If said operator is being called inside the PyTorch framework, "
                  "please file a bug report instead.")


# ---- levels -----------------------------------------------------------------------------------

class Level:
    """One active vmap call: its id (larger = inner), batch size, randomness."""

    def __init__(self, size, randomness):
        self.id, self.size, self.randomness = next(_ids), size, randomness


def active():
    s = getattr(_state, "levels", None)
    if s is None:
        s = _state.levels = []
    return s


def size_of(level_id):
    for lv in active():
        if lv.id == level_id:
            return lv.size
    raise RuntimeError("vmap: a batched tensor escaped the vmap call that made it")


class BatchedTensor(Tensor):
    """A tensor batched at ``_levels`` (see the module's comment)."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(func, args, kwargs or {})

    def __iter__(self):
        return iter(self.unbind(0))

    # The storage holds the whole batch: the C buffer protocol refuses to
    # export it, so NumPy asks __array__, which gives up the batched attempt.
    _tl_refuse_buffer = True

    def __array__(self, *args, **kwargs):
        raise Abandon("__array__")


class VmapMode(TorchFunctionMode):
    """Active while a batched attempt runs: calls on batched tensors go to
    their rules; a random draw that has no batched argument (``randn(3)``)
    is drawn per the randomness of the active levels."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if BatchedTensor in types:
            return dispatch(func, args, kwargs)
        from ._batching_rules import random_creation
        rule = random_creation(func)
        if rule is not None:
            return rule(func, args, kwargs)
        return func(*args, **kwargs)


def levels_of(x):
    return x._levels if type(x) is BatchedTensor else ()


def union(items):
    """The levels of any of items, sorted (outermost first)."""
    first, out = None, None
    for x in items:
        if type(x) is BatchedTensor:
            if first is None:
                first = x._levels
            elif x._levels != first:
                out = set(first) if out is None else out
                out.update(x._levels)
    if out is None:
        return first or ()
    return tuple(sorted(out))


def lrank(x):
    """The logical rank (under DisableTorchFunction)."""
    return x.dim() - len(levels_of(x))


def wrap(t, levels):
    """The physical result t as a tensor batched at levels (t itself when none)."""
    if not levels:
        return t
    if type(t) is BatchedTensor:
        with _C.DisableTorchFunction():
            t = t.view_as(t)
    b = t.as_subclass(BatchedTensor)
    b._levels = levels
    return b


def wrap_out(ret, levels):
    if isinstance(ret, Tensor):
        return wrap(ret, levels)
    if isinstance(ret, (tuple, list)):
        return type(ret)(wrap_out(r, levels) for r in ret)
    return ret


def align(x, levels, rank, expand=False):
    """x physically: a dim per level of ``levels`` in front (size 1 where x is
    not batched at it, or expanded to the level's size with ``expand``), then
    its logical dims right-aligned to ``rank`` (leading 1s).  Run under
    DisableTorchFunction."""
    xl = levels_of(x)
    shape = tuple(x.shape)
    k = len(xl)
    r = len(shape) - k
    if xl == levels and r == rank:
        return x
    new, i = [], 0
    for lv in levels:
        if i < k and xl[i] == lv:
            new.append(shape[i])
            i += 1
        else:
            new.append(1)
    new += [1] * (rank - r) + list(shape[k:])
    y = x.reshape(new)
    if expand and len(xl) != len(levels):
        y = y.expand([size_of(lv) for lv in levels] + list(y.shape[len(levels):]))
    return y


def tensors_in(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    yield b
        elif isinstance(a, Tensor):
            yield a


def map_tensors(fn, args, kwargs, kind=Tensor):
    """args and kwargs with fn applied to every ``kind`` (lists opened one level)."""
    def one(a):
        if isinstance(a, (list, tuple)) and any(isinstance(b, kind) for b in a):
            return type(a)(fn(b) if isinstance(b, kind) else b for b in a)
        return fn(a) if isinstance(a, kind) else a
    return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


_names = {}


def short_name(func):
    """("method" | "function" | "F" | "property" | "other", name) for a
    dispatched callable (cached: every rule asks)."""
    try:
        return _names[func]
    except (KeyError, TypeError):
        pass
    out = _short_name(func)
    try:
        _names[func] = out
    except TypeError:
        pass
    return out


def _short_name(func):
    name = resolve_name(func) or getattr(func, "__name__", "")
    if name.endswith(".__get__"):
        return "property", name[:-len(".__get__")].rsplit(".", 1)[-1]
    if name.startswith("torchlike.Tensor."):
        return "method", name[len("torchlike.Tensor."):]
    if name.startswith("torchlike.nn.functional."):
        return "F", name[len("torchlike.nn.functional."):]
    if name.startswith(("torchlike.linalg.", "torchlike.fft.")):
        return "other", name
    return "function", name.rsplit(".", 1)[-1]


_handlers = {}


def dispatch(func, args, kwargs):
    out = kwargs.get("out")
    if out is not None and not (type(out) is BatchedTensor
                                and out._levels == union(tensors_in(args, kwargs))):
        raise Abandon("out= a tensor not batched as the result")  # the per-element path
    try:
        h = _handlers[func]
    except (KeyError, TypeError):
        from ._batching_rules import handler_for
        h = handler_for(func)
        try:
            _handlers[func] = h
        except TypeError:
            pass
    return h(func, args, kwargs)


# ---- the per-op fallback ---------------------------------------------------------------------

def is_inplace(name):
    if name.startswith("__i") and name.endswith("__") and name not in ("__index__", "__int__",
                                                                       "__invert__", "__iter__"):
        return True
    return name == "__setitem__" or (name.endswith("_") and not name.endswith("__"))


def check_inplace_target(name, self, levels):
    if levels_of(self) != levels:
        raise VmapError(_INPLACE_ERROR)


def op_loop(func, args, kwargs):
    """func run per element of the batch: the batched arguments sliced (every
    level expanded), the results stacked.  In place: the slices of self are
    views, so the writes land in it."""
    name = short_name(func)[1]
    stats["op_loops"][name] = stats["op_loops"].get(name, 0) + 1
    levels = union(tensors_in(args, kwargs))
    sizes = [size_of(lv) for lv in levels]
    inplace = is_inplace(name) and args and isinstance(args[0], Tensor)
    if inplace:
        check_inplace_target(name, args[0], levels)
    if math.prod(sizes) == 0:
        raise Abandon(f"{name} on an empty batch")
    with _C.DisableTorchFunction():
        slots_args, slots_kwargs = map_tensors(
            lambda t: _Slot(align(t, levels, lrank(t), expand=True)) if levels_of(t) else t,
            args, kwargs)
        results = []
        for idx in itertools.product(*map(range, sizes)):
            el_args, el_kwargs = map_tensors(lambda s, _i=idx: s.phys[_i], slots_args,
                                             slots_kwargs, _Slot)
            results.append(func(*el_args, **el_kwargs))
        if inplace:
            return args[0]
        return _stack_results(results, sizes, levels)


class _Slot:
    """A batched argument of op_loop, physically expanded to every level."""

    def __init__(self, phys):
        self.phys = phys


def _stack_results(results, sizes, levels):
    first = results[0]
    if isinstance(first, Tensor):
        if any(not isinstance(r, Tensor) or r.shape != first.shape for r in results):
            raise Abandon("per-element results of different shapes")
        out = _C.stack(results).reshape(list(sizes) + list(first.shape))
        return wrap(out, levels)
    if isinstance(first, (tuple, list)):
        parts = [_stack_results([r[i] for r in results], sizes, levels)
                 for i in range(len(first))]
        return type(first)(parts) if type(first) in (tuple, list) else type(first)(parts)
    if first is None or all(r == first for r in results[1:]):
        return first
    raise Abandon("per-element results differ")


# ---- the transforms inside vmap ---------------------------------------------------------------

def batched_input(x):
    """A differentiated input of grad & co inside vmap: batched at every
    active level, so each element gets its own gradient slot (an unbatched
    tensor is expanded; elements are independent, so the gradient of the sum
    over the batch is the per-element gradients)."""
    levels = tuple(lv.id for lv in active())
    if not levels or not isinstance(x, Tensor) or levels_of(x) == levels:
        return x
    with _C.DisableTorchFunction():
        p = align(x, levels, lrank(x), expand=True)
    return wrap(p, levels)


def rewrap(g, x):
    """autograd.grad's physical result for the input x, batched as x is."""
    if g is None or not levels_of(x) or type(g) is BatchedTensor:
        return g
    return wrap(g, levels_of(x))


def match_cotangent(c, out):
    """A cotangent for ``out`` batched as out is (an unbatched one expanded).
    A cotangent batched where out is not would need the vjp per element
    (PyTorch's is_grads_batched): the batched attempt gives up."""
    lo, lc = levels_of(out), levels_of(c)
    if lc == lo or not isinstance(c, Tensor):
        return c
    if set(lc) - set(lo):
        raise Abandon("a batched cotangent for an unbatched output")
    with _C.DisableTorchFunction():
        p = align(c, lo, lrank(c), expand=True)
    return wrap(p, lo)
