"""torch.utils.hooks: RemovableHandle (what hook registration returns),
BackwardHook (how a module's full backward hooks are attached: nn.Module
uses it), and the serialization markers ``unserializable_hook`` /
``warn_if_has_hooks``.

``handle.remove()`` takes the hook out of every dict it was registered in
(and drops its id from any flag sets, e.g. "called with kwargs"); the
handle also works as a context manager.  A tensor's gradient hooks live in
a list the C side reads, so there the handle holds the list entry itself
(``entry=``) and removes that entry."""
import itertools
import warnings

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]

_next_id = itertools.count()


class RemovableHandle:
    def __init__(self, hooks_dict, *, extra_dict=None, entry=None):
        self.hooks_dicts = (hooks_dict,) + (tuple(extra_dict) if isinstance(
            extra_dict, (list, tuple)) else (() if extra_dict is None else (extra_dict,)))
        self.id = next(_next_id)
        self._entry = entry

    def remove(self):
        for d in self.hooks_dicts:
            if isinstance(d, set):
                d.discard(self.id)
            elif isinstance(d, list):
                for i, e in enumerate(d):
                    if e is self._entry:
                        del d[i]
                        break
            else:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not meant to be saved with its tensor
    (``warn_if_has_hooks`` stays silent about it); returns ``f``."""
    f.__torch_unserializable__ = True
    return f


def _hooks_of(tensor):
    """The ``register_hook`` hooks of ``tensor``: the entries of its node's
    hook list for its output (post-accumulate hooks, -1, are not included)."""
    if not tensor.requires_grad:
        return []
    hooks, output_nr = tensor._hook_list()
    return [hook for nr, hook in hooks if nr == output_nr]


def warn_if_has_hooks(tensor):
    """Warn once per gradient hook on ``tensor`` that saving the tensor will
    not save it, unless the hook was marked with ``unserializable_hook``."""
    for hook in _hooks_of(tensor):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                          "is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


# ---- BackwardHook ------------------------------------------------------------------------
# A module's tensor inputs and outputs each pass through one identity Function
# (_BackwardHookFunction).  In backward the outputs' node comes first: it
# records grad_output and runs the pre-hooks, which may replace it; the
# inputs' node then runs the hooks on (grad_input, grad_output), which may
# replace grad_input.  grad_input and grad_output have one entry per
# positional argument / output, None where that is not a tensor.

def _hook_function():
    global _BackwardHookFunction
    if _BackwardHookFunction is None:
        from ..autograd.function import Function

        class BackwardHookFunction(Function):
            @staticmethod
            def forward(ctx, hook, is_output, *tensors):
                ctx.hook, ctx.is_output = hook, is_output
                ctx.set_materialize_grads(False)  # unused outputs: None, as in PyTorch
                outs = tuple(t.view_as(t) for t in tensors)
                # a tensor that did not require grad still does not
                ctx.mark_non_differentiable(*[o for o, t in zip(outs, tensors)
                                              if not t.requires_grad])
                return outs

            @staticmethod
            def backward(ctx, *grads):
                hook = ctx.hook
                grads = hook._output_grads(grads) if ctx.is_output else hook._input_grads(grads)
                return (None, None) + tuple(grads)

        _BackwardHookFunction = BackwardHookFunction
    return _BackwardHookFunction


_BackwardHookFunction = None


class BackwardHook:
    """Attach ``user_hooks`` (``hook(module, grad_input, grad_output)``) and
    ``user_pre_hooks`` (``hook(module, grad_output)``) to one call of
    ``module``: pass its positional arguments through
    ``setup_input_hook(args)`` before ``forward`` and its output through
    ``setup_output_hook(output)`` after, and use what they return."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self._constant_inputs = {}  # position -> (shape, dtype, device): no grad required

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[i] for i in indices)

    def _apply_on_tensors(self, is_output, args):
        from .. import _C
        idx = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        if not (any(args[i].requires_grad for i in idx) and _C.is_grad_enabled()):
            return args, None
        new = _hook_function().apply(self, is_output, *[args[i] for i in idx])
        items = list(args)
        for i, t in zip(idx, new):
            items[i] = t
        return (tuple(items) if type(args) is tuple else type(args)(*items)), idx

    def setup_input_hook(self, args):
        from .. import _C
        self._constant_inputs = {i: (a.shape, a.dtype, a.device) for i, a in enumerate(args)
                                 if isinstance(a, _C.Tensor) and not a.requires_grad}
        res, idx = self._apply_on_tensors(False, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def setup_output_hook(self, args):
        single = not isinstance(args, tuple)
        if single:
            args = (args,)
        res, idx = self._apply_on_tensors(True, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res[0] if single else res

    @staticmethod
    def _check_replaced(before, after):
        """PyTorch's engine's check of the gradients a module's backward
        hooks returned against those they got (its hook wrapper is named
        'hook'): the same sizes and dtypes."""
        from .._dtype_names import scalar_type_name
        for old, new in zip(before, after):
            if old is None or new is None:
                continue
            if tuple(new.shape) != tuple(old.shape):
                raise RuntimeError("hook 'hook' has changed the size of value")
            if new.dtype != old.dtype:
                raise RuntimeError(f"hook 'hook' has changed the type of value (was "
                                   f"torchlike.{scalar_type_name(old.dtype)}Tensor got "
                                   f"torchlike.{scalar_type_name(new.dtype)}Tensor)")

    def _output_grads(self, grads):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grads,
                                                 self.n_outputs)
        for pre in self.user_pre_hooks:
            result = pre(self.module, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(result)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(result)
        self._check_replaced(self._pack_with_none(self.output_tensors_index, grads,
                                                  self.n_outputs), self.grad_outputs)
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the hooks fire now, with a grad_input of Nones
            if self.user_hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. See "
                              "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                              "#torch.nn.Module.register_full_backward_hook for more details.",
                              stacklevel=2)
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple)
                                                and all(g is None for g in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for all "
                                           "gradients.")
            self.grad_outputs = None
        return self._unpack_none(self.output_tensors_index, local)

    def _input_grads(self, grads):
        if self.grad_outputs is None:  # the outputs' node did not run (or ran alone)
            return grads
        res = self._pack_with_none(self.input_tensors_index, grads, self.n_inputs)
        if self._constant_inputs:
            # an input tensor that does not require grad gets zeros, as in PyTorch
            from .. import _C
            res = list(res)
            for i, (shape, dtype, device) in self._constant_inputs.items():
                if res[i] is None:
                    res[i] = _C.zeros(tuple(shape), dtype=dtype, device=device)
            res = tuple(res)
        given = res
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = tuple(out)
        self._check_replaced(given, res)
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)
