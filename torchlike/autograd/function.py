"""Custom differentiable functions: forward and backward written by hand,
for example with NumPy or SciPy on zero-copy ndarrays.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

``apply`` runs ``forward`` with recording off and adds one node to the tape;
its backward calls ``backward`` with one gradient per output and expects one
gradient (or None) per argument of ``forward``."""
import functools

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class _Packed:
    """A tensor ctx.save_for_backward kept through saved-tensor hooks."""
    __slots__ = ("packed", "unpack_hook", "requires_grad")

    def __init__(self, packed, unpack_hook, requires_grad):
        self.packed, self.unpack_hook, self.requires_grad = packed, unpack_hook, requires_grad

    def unpack(self):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(t).__name__}")
        # an input that required grad comes back requiring it (PyTorch keeps its
        # history; here it is a new leaf, enough for a first derivative)
        return t.detach().requires_grad_(True) if self.requires_grad else t


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) leaves for ``backward``."""

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that forward modified in place (they must be
        returned as outputs)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (their ``requires_grad`` is
        False; backward still receives a zero gradient for them)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for the outputs
        whose gradient was not computed."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = getattr(self, "_saved", None)
        if saved is None:
            return ()
        node = getattr(self, "_node", None)
        out = []
        for t, version, output_nr in saved:
            if isinstance(t, _Packed):
                t = t.unpack()
            elif t is not None and t._version != version:
                what = "an input" if output_nr is None else f"output {output_nr}"
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [torchlike.Tensor {list(t.shape)}, dtype "
                    f"{t.dtype}], which is {what} of {self._name}, is at version "
                    f"{t._version}; expected version {version} instead. Hint: the "
                    f"operation that failed was {self._name}; make a copy (x.clone()) before "
                    f"modifying it in place.")
            if output_nr is not None and node is not None and _C.is_grad_enabled():
                # create_graph: the saved output carries this node's history, so the
                # gradient computed from it is differentiated through it again.
                t = _C._function_saved_output(node, t, output_nr)
            out.append(t)
        return tuple(out)

    # ---- called by the engine -------------------------------------------------
    def _run_backward(self, grads, node):
        if _forward_ad._state.blocking and all(g is None for g in grads):
            # forward_ad's tangent passes: nothing arrived, so nothing leaves (and
            # a Function that has only a jvp is not asked for its backward)
            return (None,) * len(self._input_meta)
        if getattr(self, "materialize_grads", True):
            grads = tuple(_C.zeros(shape, dtype=dtype, device=device) if g is None else g
                          for g, (shape, dtype, device) in zip(grads, self._output_meta))
        slots = getattr(self, "_output_is_tensor", ())
        if not all(slots):
            # backward takes one gradient per output of forward, None for
            # each output that is not a tensor (as PyTorch's)
            it = iter(grads)
            grads = tuple(next(it) if is_tensor else None for is_tensor in slots)
        self._node = node  # only while backward runs: see saved_tensors
        try:
            result = self._cls.backward(self, *grads)
        finally:
            self._node = None
        if not isinstance(result, tuple):
            result = (result,)
        nargs = self._nargs
        if len(result) > nargs and all(g is None for g in result[nargs:]):
            result = result[:nargs]  # extra Nones are allowed, as in PyTorch
        if len(result) != nargs:
            raise RuntimeError(f"function {self._name} returned an incorrect number of "
                               f"gradients (expected {nargs}, got {len(result)})")
        tensor_pos = {pos for pos, _, _ in self._input_meta}
        for pos, g in enumerate(result):
            if g is not None and pos not in tensor_pos:
                raise RuntimeError(f"function {self._name} returned a gradient different than "
                                   f"None at position {pos + 1}, but the corresponding forward "
                                   f"input was not a Variable")
        picked = []
        for pos, shape, dtype in self._input_meta:
            g = result[pos]
            if g is not None:
                g = self._validate_grad(pos, g, shape, dtype)
            picked.append(g)
        return tuple(picked)

    def _validate_grad(self, pos, g, shape, dtype):
        """A gradient for an input of this shape and dtype: same shape (or one
        the input broadcasts to, summed back down), cast to the input's dtype
        (its grad_dtype: None keeps the gradient's)."""
        if not isinstance(g, _C.Tensor):
            raise TypeError(f"function {self._name} returned a gradient of type "
                            f"{type(g).__name__} at index {pos}, not a Tensor")
        if getattr(type(g), "_tl_placeholder_storage", False):
            # a sparse gradient: the engine adds in C, which cannot read one, so it
            # gets the dense form (embeddings deliver theirs themselves, docs/sparse.md)
            from .. import _sparse
            g = _sparse.to_dense(g)
        gshape = tuple(g.shape)
        if gshape != shape:
            if not _expandable(shape, gshape):
                raise RuntimeError(f"Function {self._name} returned an invalid gradient at "
                                   f"index {pos} - got {list(gshape)} but expected shape "
                                   f"compatible with {list(shape)}")
            lead = len(gshape) - len(shape)
            dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                              if n == 1 and gshape[lead + i] != 1)
            if dims:
                g = g.sum(dims, keepdim=True)
            g = g.reshape(shape)
        if dtype is not None and g.dtype != dtype and (dtype.is_floating_point or dtype.is_complex):
            if g.is_complex() and not dtype.is_complex:
                g = g.real
            g = g.to(dtype)
        return g


_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


def _expandable(shape, target):
    """Does ``shape`` broadcast to ``target``?"""
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(reversed(shape), reversed(target)))


class _FunctionMeta(type):
    """Gives each Function subclass its node name, as PyTorch does (the
    library's own Functions that stand for a PyTorch op name theirs as that
    op's node, in ``_backward_name``)."""

    def __init__(cls, name, bases, attrs):
        if "_backward_name" not in attrs:
            cls._backward_name = name + "Backward"
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations; see the module doc."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward
    _forward_ad_seam = False  # forward_ad's own identities: tangents pass as recorded

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx._cls = cls
        ctx._name = cls._backward_name
        ctx._nargs = len(args)
        # Shapes and gradient dtypes only (a leaf's grad_dtype, None for any):
        # backward checks gradients against them, and the inputs themselves are
        # kept only if forward saves them.
        ctx._input_meta = [(i, tuple(a.shape), a.grad_dtype) for i, a in enumerate(args)
                           if isinstance(a, _C.Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        record = _C.is_grad_enabled() and any(ctx.needs_input_grad)
        if record:
            _refuse_batched(args)
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not record:
            return _alias_returned_inputs(ctx, args, output)
        # forward-mode AD: tangents flowing in go through the Function's jvp
        tangents = _forward_ad._function_tangents(cls, ctx, args) \
            if _forward_ad._state.level is not None and not cls._forward_ad_seam else None
        output = _record(ctx, args, output)
        if tangents is not None:
            output = _forward_ad._function_seed_outputs(cls, ctx, tangents, output)
        return output


def _alias_returned_inputs(ctx, args, output):
    """Unrecorded outputs: an input returned as is (and not marked dirty)
    comes back as a view of it, a new tensor, as PyTorch's apply does
    whether or not it records."""
    dirty = getattr(ctx, "dirty_tensors", ())

    def alias(o):
        if isinstance(o, _C.Tensor) and any(o is a for a in args) \
                and not any(o is d for d in dirty):
            return o.view_as(o)
        return o
    if isinstance(output, tuple):
        return tuple(alias(o) for o in output)
    return alias(output)


def _refuse_batched(args):
    """Under vmap's batched path the tape would hand backward the whole
    batch's gradient while what forward saved is per element (a gradient
    batch-size times too large): vmap is told to run f element by element."""
    from ..func import _batched
    if any(type(a) is _batched.BatchedTensor for a in args):
        raise _batched.Abandon("a differentiated autograd.Function")


def _record(ctx, args, output):
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    dirty = getattr(ctx, "dirty_tensors", ())
    non_diff = getattr(ctx, "non_differentiable", ())
    inputs = tuple(a for a in args if isinstance(a, _C.Tensor))
    for d in dirty:
        if not any(d is o for o in outputs):
            raise RuntimeError("Some elements marked as dirty during the forward method were "
                               "not returned as output. The inputs that are modified inplace "
                               "must all be outputs of the Function.")
        # PyTorch's words differ from an in-place op's on a leaf ("has been")
        if d.is_leaf and d.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an "
                               "in-place operation.")
        base = d._base
        if base is not None and base.is_leaf and base.requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        _C._increment_version(d)  # a dirty tensor's version is bumped, as PyTorch's
    fixed = []
    for o in outputs:
        if isinstance(o, _C.Tensor) and any(o is t for t in inputs) \
                and not any(o is d for d in dirty):
            o = o.detach()  # an input returned as is: a new tensor takes the history
        fixed.append(o)
    tensors = tuple(o for o in fixed if isinstance(o, _C.Tensor))
    diff = tuple((t.is_floating_point() or t.is_complex()) and not any(t is n for n in non_diff)
                 for t in tensors)
    ctx._output_meta = [(tuple(t.shape), t.dtype, t.device) for t in tensors]
    ctx._output_is_tensor = tuple(isinstance(o, _C.Tensor) for o in fixed)
    # Saved outputs are kept as aliases with the output's index, so the ctx does
    # not hold its own outputs (output -> node -> ctx -> output would be a
    # cycle); saved_tensors links them back to the node when it must.
    saved = []
    from .graph import _current
    hooks = _current()
    for t in getattr(ctx, "to_save", ()):
        nr = None
        if t is not None:
            nr = next((i for i, o in enumerate(tensors) if o is t), None)
            if hooks is not None:
                # saved-tensor hooks: keep what pack returns (no version check on
                # unpack's result, as in PyTorch)
                t = _Packed(hooks[0](t), hooks[1], t.requires_grad and nr is None)
            elif nr is not None:
                t = t.detach()
        saved.append((t, None if t is None or hooks is not None else t._version, nr))
    _C._function_record(ctx, ctx._name, inputs, tensors, diff)
    ctx._saved = saved
    # What forward handed over may hold the outputs: drop it (a cycle otherwise).
    for name in ("to_save", "dirty_tensors", "non_differentiable"):
        ctx.__dict__.pop(name, None)
    result = []
    it = iter(tensors)
    for o in fixed:
        result.append(next(it) if isinstance(o, _C.Tensor) else o)
    return tuple(result) if is_tuple else result[0]


class _DelayedError(Function):
    """Identity whose backward raises: what once_differentiable puts on the
    gradients it returns under create_graph, so that only differentiating
    them a second time fails."""

    @staticmethod
    def forward(ctx, message, *grads):
        ctx.message = message
        return grads if len(grads) != 1 else grads[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


def once_differentiable(fn):
    """Mark a backward that is not itself differentiable: it runs without
    recording, and differentiating its results again raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        if not any(isinstance(a, _C.Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        # PyTorch's words exactly (its DelayedError names no function)
        message = "trying to differentiate twice a function that was marked with " \
                  "@once_differentiable"
        wrapped = []
        for g in outputs:
            if isinstance(g, _C.Tensor) and (g.is_floating_point() or g.is_complex()):
                g = _DelayedError.apply(message, g.detach().requires_grad_())
            wrapped.append(g)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


from . import forward_ad as _forward_ad  # noqa: E402  (it imports Function)
