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


class FunctionCtx:
    """What ``forward`` leaves for ``backward``."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward can only save tensors, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = getattr(self, "_saved", None)
        if saved is None:
            return ()
        out = []
        for t, version in saved:
            if t is not None and t._version != version:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [torchlike.Tensor {list(t.shape)}, dtype "
                    f"{t.dtype}], which is saved by {self._name}, is at version {t._version}; "
                    f"expected version {version} instead.")
            out.append(t)
        return tuple(out)

    # ---- called by the engine -------------------------------------------------
    def _run_backward(self, grads):
        if getattr(self, "materialize_grads", True):
            grads = tuple(_C.zeros(shape, dtype=dtype) if g is None else g
                          for g, (shape, dtype) in zip(grads, self._output_meta))
        result = self._cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != self._nargs:
            raise RuntimeError(f"function {self._name} returned an incorrect number of "
                               f"gradients (expected {self._nargs}, got {len(result)})")
        picked = []
        for pos, t in self._tensor_args:
            g = result[pos]
            if g is not None:
                if not isinstance(g, _C.Tensor):
                    raise TypeError(f"function {self._name} returned a gradient of type "
                                    f"{type(g).__name__} at index {pos}, not a Tensor")
                if tuple(g.shape) != tuple(t.shape):
                    try:
                        g = g.expand(t.shape) if g.ndim <= t.ndim else None
                    except Exception:
                        g = None
                    if g is None:
                        raise RuntimeError(
                            f"Function {self._name} returned an invalid gradient at index "
                            f"{pos} - got {list(result[pos].shape)} but expected shape "
                            f"compatible with {list(t.shape)}")
            picked.append(g)
        return tuple(picked)


class _FunctionMeta(type):
    """Gives each Function subclass its node name, as PyTorch does."""

    def __init__(cls, name, bases, attrs):
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
        ctx._tensor_args = [(i, a) for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        record = _C.is_grad_enabled() and any(ctx.needs_input_grad)
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not record:
            return output
        return _record(ctx, args, output)


def _record(ctx, args, output):
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    dirty = getattr(ctx, "dirty_tensors", ())
    non_diff = getattr(ctx, "non_differentiable", ())
    inputs = tuple(t for _, t in ctx._tensor_args)
    fixed = []
    for o in outputs:
        if isinstance(o, _C.Tensor) and any(o is t for t in inputs):
            if any(o is d for d in dirty):
                if o.is_leaf and o.requires_grad:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                       "in-place operation.")
            else:
                o = o.detach()  # an input returned as is: a new tensor takes the history
        fixed.append(o)
    tensors = tuple(o for o in fixed if isinstance(o, _C.Tensor))
    diff = tuple((t.is_floating_point() or t.is_complex()) and not any(t is n for n in non_diff)
                 for t in tensors)
    ctx._output_meta = [(tuple(t.shape), t.dtype) for t in tensors]
    # Saved outputs are kept as aliases, so the ctx does not hold its own outputs
    # (output -> node -> ctx -> output would be a cycle).
    to_save = getattr(ctx, "to_save", ())
    saved = []
    for t in to_save:
        if t is not None and any(t is o for o in tensors):
            t = t.detach()
        saved.append((t, None if t is None else t._version))
    ctx._saved = saved
    _C._function_record(ctx, ctx._name, inputs, tensors, diff)
    result = []
    it = iter(tensors)
    for o in fixed:
        result.append(next(it) if isinstance(o, _C.Tensor) else o)
    return tuple(result) if is_tuple else result[0]


def once_differentiable(fn):
    """Mark a backward that is not itself differentiable: it runs without
    recording, and asking for a gradient of its result raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        requires = any(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        if not requires:
            return outputs
        raise RuntimeError(f"{ctx._name} is marked once_differentiable: it cannot be "
                           f"differentiated twice")
    return wrapper

