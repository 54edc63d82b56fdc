"""torchlike.autograd.graph: hooks on what the tape saves, and graph nodes.

``saved_tensors_hooks(pack_hook, unpack_hook)`` is PyTorch's: while it is
active, every tensor a recorded op (or a custom Function's
``ctx.save_for_backward``) keeps for backward is handed to ``pack_hook``, the
node keeps what pack returns instead, and ``unpack_hook`` turns it back into a
tensor each time backward runs the node (src/grad/py_saved_hooks.c).  Only
the innermost pair applies; the stack is per thread.  Tensors a formula never
reads are not saved, so they are not packed (``add`` packs nothing, ``mul``
packs both factors, ``exp`` its result)."""
import contextlib
import inspect
import threading
import weakref
from collections import defaultdict

from .. import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "node_creation_hook", "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "GradientEdge",
           "get_gradient_edge", "increment_version", "queue_callback"]

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


class _CreationHooks(threading.local):
    def __init__(self):
        self.hooks = []  # the list the C side calls, outermost first


_creation = _CreationHooks()


class node_creation_hook:
    """Context manager: ``hook(node)`` is called with every graph node made
    in the block (this thread's, backward's own with ``create_graph`` too),
    once the node is complete: its ``next_functions``, outputs and saved
    values are in place.  Nested blocks call every active hook, outermost
    first.  A leaf's AccumulateGrad node counts when it is made, which is
    the first time the leaf enters a graph while no earlier one is alive.
    A hook may look at the node, register hooks on it or keep it; making
    another node inside a hook raises RuntimeError (src/grad/py_node.c)."""

    def __init__(self, hook):
        self.hook = hook

    def __enter__(self):
        hooks = _creation.hooks
        hooks.append(self.hook)
        _C._set_node_creation_hooks(hooks)

    def __exit__(self, *exc):
        hooks = _creation.hooks
        for i in range(len(hooks) - 1, -1, -1):
            if hooks[i] is self.hook:
                del hooks[i]
                break
        _C._set_node_creation_hooks(hooks if hooks else None)


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
    ``mode="any"`` ``fn(grad)`` gets the first one.  A backward that reaches
    only some of the tensors (``inputs=``, a branch not on the path) calls
    ``fn`` when it ends, with None for the others: PyTorch calls it once the
    last gradient that backward will compute arrived, the same tuple."""
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
                fire()
            elif state["seen"] == 1:
                queue_callback(fire)   # should this backward not reach them all
            return None
        return hook

    def fire():
        if state["seen"]:
            grads, state["grads"], state["seen"] = state["grads"], [None] * len(tensors), 0
            fn(tuple(grads))

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


# ---- the engine's end-of-backward callbacks --------------------------------------------------

class _Callbacks(threading.local):
    def __init__(self):
        self.stack = []  # one list of callbacks per backward running on this thread


_callbacks = _Callbacks()


def _engine_run_backward(tensors, grads, keep_graph, create_graph, inputs, capture):
    """Every backward goes through here: the C engine's run
    (``_C._run_backward``, same arguments), then the callbacks queued during
    it, in order (those queued by a callback too).  A backward that raises
    runs none of them.  A backward started inside another one (a reentrant
    checkpoint's) has its own list."""
    queue = []
    _callbacks.stack.append(queue)
    try:
        result = _C._run_backward(tensors, grads, keep_graph, create_graph, inputs, capture)
        i = 0
        while i < len(queue):
            queue[i]()
            i += 1
    finally:
        _callbacks.stack.pop()
    return result


def queue_callback(callback):
    """Run ``callback()`` once the backward running on this thread has
    finished (from a tensor or node hook, or a custom Function's backward)."""
    if not _callbacks.stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _callbacks.stack[-1].append(callback)


class _ImperativeEngine:
    """``Variable._execution_engine``: the engine as PyTorch exposes it."""

    def queue_callback(self, callback):
        queue_callback(callback)

    def run_backward(self, tensors, grad_tensors, keep_graph, create_graph, inputs=(),
                     allow_unreachable=True, accumulate_grad=True):
        return _engine_run_backward(tuple(tensors), tuple(grad_tensors), bool(keep_graph),
                                    bool(create_graph), tuple(inputs), not accumulate_grad)


# ---- allow_mutation_on_saved_tensors ---------------------------------------------------------

_mutation_enabled = False

# Tensor methods ending in "_" that change no values
_NOT_WRITES = frozenset({"requires_grad_", "share_memory_", "detach_", "retain_grad_",
                         "record_stream_", "rename_", "pin_memory_"})
_INPLACE_DUNDERS = frozenset(f"__i{op}__" for op in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift")) | {"__setitem__"}


class _Handle:
    """What the tape keeps for a saved tensor in the context: the tensor's
    version when saved, so unpacking can tell that it changed unseen."""

    __slots__ = ("version", "__weakref__")

    def __init__(self, version):
        self.version = version


def _storage_key(t):
    """(storage address, version): two tensors with the same key hold the
    same bytes in the same state (views included, unlike PyTorch's key,
    which is the first element's address, so a write through a view at an
    offset goes unseen there)."""
    return (t.untyped_storage().data_ptr(), t.device, t._version)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: for each
    saved tensor (by handle) the original or, once written to, its clone."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, t):
        sid = _storage_key(t)
        tid = (id(t),) + sid
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor saved twice shares one handle
            handle = _Handle(t._version)
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = t
        return handle

    def unpack(self, handle):
        msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context "
               "in which the graph was originally recorded.")
        if not _mutation_enabled:
            raise AssertionError(msg)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(msg)
        t = self.original[handle]
        if t._version != handle.version:
            # written by something no torchlike call saw (NumPy through .numpy())
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: [torchlike.Tensor {list(t.shape)}, dtype "
                f"{str(t.dtype).rsplit('.', 1)[-1]}], is at version {t._version}; expected "
                f"version {handle.version} instead (the write did not go through a "
                "torchlike call, so allow_mutation_on_saved_tensors could not save a copy)")
        return t

    def clone_before_write(self, t):
        """Clone every saved tensor whose bytes ``t``'s write is about to change."""
        for tid in self.sid_to_tid.get(_storage_key(t), ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by a backward, or done
                continue
            with _C.DisableTorchFunction():
                self.cloned[handle] = self.original[handle].detach().clone()
            del self.original[handle]


_signatures = {}


def _inplace_flag(func, args, kwargs):
    """Whether a Python function with an ``inplace`` parameter was asked to
    write (``F.relu(x, True)``)."""
    if "inplace" in kwargs:
        return bool(kwargs["inplace"])
    code = getattr(getattr(func, "__wrapped__", func), "__code__", None)
    if code is None or "inplace" not in code.co_varnames[:code.co_argcount]:
        return False
    sig = _signatures.get(code)
    if sig is None:
        sig = _signatures[code] = inspect.signature(getattr(func, "__wrapped__", func))
    try:
        return bool(sig.bind(*args, **kwargs).arguments.get("inplace", False))
    except TypeError:
        return False


def _written(func, args, kwargs):
    """The tensors a call writes: self of an in-place method or operator
    (each tensor of a list for the _foreach_ ones), ``out=``, and the input
    of a function called with ``inplace=True``."""
    name = getattr(func, "__name__", "")
    first = args[0] if args else None
    targets = []
    if ((name.endswith("_") and not name.endswith("__") and name not in _NOT_WRITES)
            or name in _INPLACE_DUNDERS or _inplace_flag(func, args, kwargs)):
        if isinstance(first, (list, tuple)):
            targets.extend(first)
        else:
            targets.append(first)
    out = kwargs.get("out")
    if out is not None:
        targets.extend(out if isinstance(out, (list, tuple)) else (out,))
    return [t for t in targets if isinstance(t, _C.Tensor)]


def _clone_before_mutate_mode(ctx):
    from ..overrides import TorchFunctionMode

    class _CloneArgBeforeMutateMode(TorchFunctionMode):
        """Sees every torchlike call in the block; before one that writes a
        tensor, the saved tensors sharing its bytes are cloned."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            for t in _written(func, args, kwargs):
                ctx.clone_before_write(t)
            return func(*args, **kwargs)

    return _CloneArgBeforeMutateMode()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside this block, writing in place to a tensor that the tape saved
    for backward first copies the saved value, so backward uses the value
    the forward saw instead of raising the version-counter error.  Run the
    backward inside the same block.  Writes are seen when they go through a
    torchlike call (in-place methods and operators, ``out=``, ``inplace=True``
    functions, item assignment); a write that does not (NumPy writing
    through ``.numpy()``) still raises at backward.  Yields the block's state;
    blocks do not nest."""
    global _mutation_enabled
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack), _clone_before_mutate_mode(ctx):
        try:
            if _mutation_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_enabled = False
