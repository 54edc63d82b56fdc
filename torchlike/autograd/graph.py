"""torchlike.autograd.graph: hooks on what the tape saves, and graph nodes.

``saved_tensors_hooks(pack_hook, unpack_hook)`` is PyTorch's: while it is
active, every tensor a recorded op (or a custom Function's
``ctx.save_for_backward``) keeps for backward is handed to ``pack_hook``, the
node keeps what pack returns instead, and ``unpack_hook`` turns it back into a
tensor each time backward runs the node (src/grad/py_saved_hooks.c).  Only
the innermost pair applies; the stack is per thread.  Tensors a formula never
reads are not saved, so they are not packed (``add`` packs nothing, ``mul``
packs both factors, ``exp`` its result)."""
import threading

from .. import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "register_multi_grad_hook", "GradientEdge", "get_gradient_edge",
           "increment_version"]

Node = _C.Node
"""The class of every ``grad_fn`` (``isinstance(t.grad_fn, Node)``)."""


class _State(threading.local):
    def __init__(self):
        self.stack = []          # (pack, unpack) pairs, innermost last
        self.disabled = None     # the error message of disable_saved_tensors_hooks


_state = _State()


def _current():
    return _state.stack[-1] if _state.stack else None


class saved_tensors_hooks:
    """Context manager: pack/unpack hooks for the tensors saved for backward."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _state.disabled is not None:
            raise RuntimeError(_state.disabled)
        pair = (self.pack_hook, self.unpack_hook)
        _state.stack.append(pair)
        _C._set_saved_tensors_hooks(pair)
        return self

    def __exit__(self, *exc):
        _state.stack.pop()
        _C._set_saved_tensors_hooks(_current())


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied to the host in forward and moved back to
    their device when backward needs them (``pin_memory`` is accepted; host
    memory here is not pinned)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, t.to("cpu", copy=True))

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager under which entering ``saved_tensors_hooks`` raises
    ``RuntimeError(error_message)``; entering it while hooks are active
    raises too (PyTorch's rule)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _state.stack:
            raise RuntimeError(self.error_message)
        self.prev = _state.disabled
        _state.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _state.disabled = self.prev


class GradientEdge(tuple):
    """(node, output_nr): where the gradient of a tensor enters the graph."""

    def __new__(cls, node, output_nr):
        return super().__new__(cls, (node, output_nr))

    node = property(lambda self: self[0])
    output_nr = property(lambda self: self[1])


def get_gradient_edge(tensor):
    """The GradientEdge of ``tensor``: its grad_fn (AccumulateGrad for a leaf)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, tensor.output_nr)
    # a leaf: its AccumulateGrad node, as the graph of any op on it shows
    node = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    return GradientEdge(node, 0)


def increment_version(tensor):
    """Bump the tensor's version counter, as an in-place write would."""
    for t in (tensor,) if isinstance(tensor, _C.Tensor) else tensor:
        _C._increment_version(t)


class _MultiHandle:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward, when the gradients of ``tensors`` are
    computed: with ``mode="all"`` ``fn(grads)`` gets the tuple of them after
    the last one of the tensors that require grad arrived; with
    ``mode="any"`` ``fn(grad)`` gets the first one.  Unlike PyTorch's, "all"
    waits for every tensor that requires grad (a backward that reaches only
    some of them does not call ``fn``)."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    count = sum(1 for t in tensors if t.requires_grad)
    state = {"grads": [None] * len(tensors), "seen": 0, "fired": False}

    def make(i):
        def hook(grad):
            if mode == "any":
                # a gradient for a tensor already seen starts a new backward
                if state["grads"][i] is not None:
                    state["grads"], state["fired"] = [None] * len(tensors), False
                state["grads"][i] = True
                if not state["fired"]:
                    state["fired"] = True
                    fn(grad)
                return None
            state["grads"][i] = grad
            state["seen"] += 1
            if state["seen"] == count:
                grads, state["grads"], state["seen"] = state["grads"], [None] * len(tensors), 0
                fn(tuple(grads))
            return None
        return hook

    handles = [t.register_hook(make(i)) for i, t in enumerate(tensors) if t.requires_grad]
    return _MultiHandle(handles)


def _node_register_hook(self, fn):
    """Call ``fn(grad_inputs, grad_outputs)`` after this node computed its
    input gradients; a tuple it returns replaces them."""
    from ..utils.hooks import RemovableHandle
    hooks = self._hook_lists()[2]
    hooks.append(fn)
    return RemovableHandle(hooks, entry=fn)


def _node_register_prehook(self, fn):
    """Call ``fn(grad_outputs)`` before this node runs (after the hooks of
    its output tensors); a tuple it returns replaces the gradients."""
    from ..utils.hooks import RemovableHandle
    hooks = self._hook_lists()[0]
    entry = (-1, fn)  # -1: the whole tuple, not one output's gradient
    hooks.append(entry)
    return RemovableHandle(hooks, entry=entry)


Node.register_hook = _node_register_hook
Node.register_prehook = _node_register_prehook
