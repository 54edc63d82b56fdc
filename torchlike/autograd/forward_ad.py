"""torchlike.autograd.forward_ad: forward-mode AD's API on the reverse tape.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y = f(x)
        y_primal, y_tangent = forward_ad.unpack_dual(y)   # J tangent

There is no forward mode in the tape: a tangent is computed when it is asked
for (``unpack_dual``), from the graph recorded inside the level, by the
double-vjp trick torchlike.func.jvp uses.  With the level's seeds s_i (the
tensors made by ``make_dual``) and their tangents t_i, and u a dummy
cotangent shaped as y, g_i(u) = J_i^T u is linear in u, and the vjp of
sum_i <g_i(u), t_i> with respect to u is sum_i J_i t_i: y's tangent.  So:

- ``make_dual`` returns a view of ``primal`` (as PyTorch's) that the tape
  records: it requires grad (PyTorch's dual does not, unless primal does);
  in-place ops on it and on tensors made from it are recorded as usual;
- ops recorded under ``no_grad`` inside the level carry no tangent (PyTorch's
  forward mode ignores grad mode);
- each ``unpack_dual`` costs two backward passes over y's graph, and every
  derivative formula on the path must itself be differentiable;
- a tensor whose graph does not reach a dual tensor has no tangent (None),
  as in PyTorch; integer results have none either.

A custom ``autograd.Function`` applied to tensors that carry tangents calls
its ``jvp(ctx, *tangents)`` staticmethod (inputs without a tangent get
zeros; ``ctx.saved_tensors`` gives what forward passed to
``ctx.save_for_forward``) and its outputs become seeds with the tangents jvp
returned; without a ``jvp`` it raises PyTorch's NotImplementedError.
Only one level can be active at a time, as in PyTorch."""
import threading
from collections import namedtuple

from .. import _C
from .function import Function
from .grad_mode import enable_grad, set_grad_enabled

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]


class _Level:
    """The active level: its seeds (the tensors gradients are taken with
    respect to) and their tangents, and the graph nodes that mark them."""

    def __init__(self, idx):
        self.idx = idx
        self.targets, self.tangents = [], []
        self.nodes = set()   # ids of the seeds' nodes: reaching one means a tangent
        self.keep = []       # those nodes, alive while their ids are used
        self.duals = {}      # id(dual) -> (dual, its node, version, tangent) for make_dual's
        self.real = False    # a seed was made from a tensor that requires grad


class _State(threading.local):
    level = None
    blocking = False  # the tangent passes run: jvp seams stop the gradient


_state = _State()


def _current():
    return _state.level


def enter_dual_level():
    """Enter a new forward-AD level and return its index."""
    if _state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = _Level(0)
    return 0


def exit_dual_level(*, level=None):
    """Leave the level (the current one by default); its tangents are dropped."""
    if level is None:
        level = _state.level.idx if _state.level is not None else -1
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if _state.level is None or level != _state.level.idx:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _state.level = None


class dual_level:
    """Context manager (and decorator) for one forward-AD level."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with dual_level():
                return func(*args, **kwargs)
        return wrapper


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What unpack_dual returns: the primal and its tangent (or None)."


class _DualView(Function):
    """The dual tensor: a view of the level's seed, recorded (so in-place ops
    on it are recorded too); its derivative is the identity."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g


class _JvpSeam(Function):
    """A custom Function's output, made a seed: while tangents are computed
    the gradient stops here (the tangent is the one jvp gave), otherwise it
    passes through to the Function's own backward."""
    _forward_ad_seam = True

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return None if _state.blocking else g


def _reaches_seed(t, level):
    """Whether t's graph reaches one of the level's seeds."""
    if not isinstance(t, _C.Tensor) or not t.requires_grad or level is None:
        return False
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        if id(node) in level.nodes:
            return True
        seen.add(id(node))
        stack.extend(n for n, _ in node.next_functions)
    return False


def _add_seed(level, target, tangent, dual):
    level.targets.append(target)
    level.tangents.append(tangent)
    level.nodes.add(id(dual.grad_fn))
    level.keep.append(dual.grad_fn)


def _check_floating(what, t):
    if not (t.is_floating_point() or t.is_complex()):
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` in the current level."""
    lv = _state.level
    if lv is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    _check_floating("primal", tensor)
    _check_floating("tangent", tangent)
    if level is not None and level != lv.idx:
        raise RuntimeError("Invalid level given to _make_dual")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if _reaches_seed(tensor, lv):
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {lv.idx} is not supported.")
    lv.real |= tensor.requires_grad
    with enable_grad():
        seed = tensor.view_as(tensor) if tensor.requires_grad else \
            tensor.detach().requires_grad_()
        # the dual's writes are its own node's (no CopySlices into the seed, a
        # leaf): for the tape it is no view of the seed
        dual = _C._as_view(_DualView.apply(seed), None)
    _add_seed(lv, seed, tangent, dual)
    lv.duals[id(dual)] = (dual, dual.grad_fn, dual._version, tangent)
    return dual


def _tangent(tensor, lv):
    """tensor's tangent by the double-vjp trick (None when it has none)."""
    if not (tensor.is_floating_point() or tensor.is_complex()) or not _reaches_seed(tensor, lv):
        return None
    known = lv.duals.get(id(tensor))
    if known is not None and known[0] is tensor and tensor.grad_fn is known[1] \
            and tensor._version == known[2]:
        return known[3]  # a dual as made: its own tangent, as PyTorch returns it
    make = any(t.requires_grad for t in lv.tangents)
    from . import grad
    with enable_grad():
        u = _C.zeros_like(tensor).requires_grad_()
        _state.blocking, was = True, _state.blocking
        try:
            gs = grad([tensor], lv.targets, [u], retain_graph=True, create_graph=True,
                      allow_unused=True)
        finally:
            _state.blocking = was
        live = [(g, t) for g, t in zip(gs, lv.tangents) if g is not None and g.requires_grad]
        res = None
        if live:
            res, = grad([g for g, _ in live], [u], [t.to(g.dtype) for g, t in live],
                        retain_graph=True, create_graph=make, allow_unused=True)
    if res is None:
        res = _C.zeros_like(tensor)
    return res if make else res.detach()


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of ``tensor``: a view of it without the tangent, and
    its tangent in the level (None when it has none)."""
    lv = _state.level
    if not isinstance(tensor, _C.Tensor):
        if lv is not None:
            raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        return UnpackedDualTensor(tensor, None)
    if lv is None or (level is not None and level != lv.idx):
        return UnpackedDualTensor(tensor.view_as(tensor) if tensor.requires_grad
                                  else tensor.detach(), None)
    tangent = _tangent(tensor, lv)
    # the primal keeps a history only where one would exist without this
    # level: a seed was made from a tensor that requires grad
    primal = tensor.view_as(tensor) if lv.real and tensor.requires_grad else tensor.detach()
    return UnpackedDualTensor(primal, tangent)


# ---- custom Functions with a jvp (called from Function.apply) -------------------------

def _function_tangents(cls, ctx, args):
    """The input tangents of a custom Function inside a level (zeros where an
    input has none), or None when no input carries one."""
    lv = _state.level
    tensors = [a for a in args if isinstance(a, _C.Tensor)]
    if lv is None or not any(_reaches_seed(a, lv) for a in tensors):
        return None
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    tangents = []
    for a in args:
        if isinstance(a, _C.Tensor):
            t = _tangent(a, lv) if a.is_floating_point() or a.is_complex() else None
            tangents.append(_C.zeros_like(a) if t is None else t)
        else:
            tangents.append(None)
    return tangents


def _function_seed_outputs(cls, ctx, tangents, output):
    """Call jvp and make the Function's differentiable outputs seeds carrying
    the tangents it returned; returns the outputs to hand back."""
    lv = _state.level
    # ctx.saved_tensors reads what forward passed to save_for_forward while jvp runs
    saved, backward_saved = getattr(ctx, "saved_for_forward", ()), getattr(ctx, "_saved", None)
    ctx._saved = [(t, None if t is None else t._version, None) for t in saved]
    # recorded only when a tangent is itself differentiated (it requires grad)
    record = any(isinstance(t, _C.Tensor) and t.requires_grad for t in tangents)
    try:
        with set_grad_enabled(record):
            out_tangents = cls.jvp(ctx, *tangents)
    finally:
        ctx._saved = backward_saved
        ctx.__dict__.pop("saved_for_forward", None)
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    out_tangents = (out_tangents,) if not isinstance(out_tangents, tuple) else out_tangents
    if len(out_tangents) != len(outputs):
        raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                           f"forward gradients (expected {len(outputs)}, got "
                           f"{len(out_tangents)})")
    fixed = []
    for o, t in zip(outputs, out_tangents):
        if isinstance(o, _C.Tensor) and t is not None and o.requires_grad:
            with enable_grad():
                seam = _JvpSeam.apply(o)
            _add_seed(lv, seam, t, seam)
            o = seam
        fixed.append(o)
    return fixed[0] if single else tuple(fixed)
