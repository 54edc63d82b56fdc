"""torchlike.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` without keeping the
tensors its ops save for backward, and runs it again when backward needs
them.  Two variants, as in PyTorch:

- ``use_reentrant=True``: a custom Function whose forward runs ``fn`` under
  ``no_grad`` and whose backward reruns it under ``enable_grad`` on detached
  inputs and backpropagates through the rerun (inside the outer backward).
  Only ``backward()`` without ``inputs`` is supported, not ``autograd.grad``.
- ``use_reentrant=False``: ``fn`` runs under saved-tensor hooks
  (``torchlike.autograd.graph``) whose pack hook keeps a small holder in place
  of each saved tensor; the first unpack reruns ``fn`` once, with hooks that
  collect the tensors the rerun saves, in order, and hands them out.  The
  rerun stops once every holder is filled (``set_checkpoint_early_stop``).
  Works with ``autograd.grad``, nested checkpoints and double backward.

``preserve_rng_state`` saves the CPU generator's state (and the CUDA
generators' of the devices the tensor arguments are on) before the forward
and restores it for the rerun, so random ops (dropout) draw the same.

Selective checkpointing (``context_fn=functools.partial(
create_selective_checkpoint_contexts, policy)``, non-reentrant only): the ops
the policy saves keep their results from the forward, and the rerun takes
those instead of running the ops again (src/grad/op_policy.c routes every
recorded op call through the policy's contexts).  The op a policy sees is
named by the tape's op name (see ``_Op``), not by an ATen overload."""
import contextlib
import enum
import threading
import warnings

from .. import _C
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointPolicy",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled", "noop_context_fn",
           "create_selective_checkpoint_contexts", "SelectiveCheckpointContext",
           "detach_variable", "check_backward_validity", "get_device_states",
           "set_device_states"]


class CheckpointError(RuntimeError):
    """The rerun of a checkpointed function saved different tensors."""


class CheckpointPolicy(enum.Enum):
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


class SelectiveCheckpointContext:
    """What a policy function gets first: ``is_recompute`` tells the
    checkpoint's forward (False) from its recomputation (True)."""

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


class _Op:
    """An op as a policy function sees it, standing for PyTorch's
    ``torch.ops.aten.<name>.default``: it compares equal to another _Op of the
    same name, to the name as a string ("mm", "aten.mm", "aten::mm",
    "aten.mm.default") and to the torchlike function of that name
    (``torchlike.mm``, ``Tensor.mm``)."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        return f"aten::{self._name}"

    def __str__(self):
        return f"aten.{self._name}.default"

    __repr__ = __str__

    def __eq__(self, other):
        return _op_name(other) == self._name

    def __hash__(self):
        return hash(self._name)


def _op_name(op):
    """The recorder's name of op (see _Op), None when op names no op."""
    if isinstance(op, _Op):
        return op._name
    if isinstance(op, str):
        parts = op.replace("::", ".").split(".")
        if len(parts) > 1 and parts[0] == "aten":
            parts = parts[1:]
        if len(parts) > 1 and parts[-1] == "default":
            parts = parts[:-1]
        return ".".join(parts)
    return getattr(op, "__name__", None) if callable(op) else None


_SAVE = {CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE,
         CheckpointPolicy.MUST_CPU_OFFLOAD, CheckpointPolicy.PREFER_CPU_OFFLOAD}


class _PolicyContext:
    """The forward (``recompute=False``) or recomputation context of one
    selective checkpoint.  While active, every op call the tape records goes
    through it (_C._set_op_policy): in forward it asks the policy and keeps
    the results of the ops to save; in the recomputation those ops hand back
    what was kept instead of running again (the n-th call of an op gets its
    n-th forward result).  Calls recorded nowhere (no input requires grad)
    and in-place calls are not seen."""

    def __init__(self, policy_fn, cache, recompute):
        self.policy_fn, self.cache, self.recompute = policy_fn, cache, recompute
        self.ctx = SelectiveCheckpointContext(is_recompute=recompute)

    def __enter__(self):
        self.counts = {}
        self.prev = _C._set_op_policy(self._call)
        return self

    def __exit__(self, *exc):
        _C._set_op_policy(self.prev)

    def _call(self, name, impl, args, kwargs):
        if self.recompute:
            n = self.counts.get(name, 0)
            self.counts[name] = n + 1
            kept = self.cache.get(name, ())
            if n < len(kept) and kept[n] is not None:
                return kept[n]
            return impl(*args, **kwargs)
        policy = self.policy_fn(self.ctx, _Op(name), *args, **kwargs)
        if isinstance(policy, bool):  # PyTorch's older policies return a bool
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        out = impl(*args, **kwargs)
        self.cache.setdefault(name, []).append(
            _detach_tree(out) if policy in _SAVE else None)
        return out


def _detach_tree(out):
    if isinstance(out, _C.Tensor):
        return out.detach()
    if isinstance(out, (tuple, list)):
        return type(out)(_detach_tree(o) for o in out)
    return out


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_hits=False):
    """(forward context, recomputation context) for ``checkpoint(...,
    use_reentrant=False, context_fn=functools.partial(
    create_selective_checkpoint_contexts, policy))``: the ops the policy saves
    (``CheckpointPolicy.MUST_SAVE``/``PREFER_SAVE``, or True) keep their
    results from the forward and are not run again when backward recomputes
    the function.  ``policy_fn_or_list`` is ``policy_fn(ctx, op, *args,
    **kwargs)`` or a list of ops to save (see _Op for what names an op)."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if _op_name(op) is None:
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} "
                                 f"of type {type(op)}. ")
        names = {_op_name(op) for op in policy_fn_or_list}

        def policy_fn(ctx, op, *args, **kwargs):
            return (CheckpointPolicy.MUST_SAVE if op._name in names
                    else CheckpointPolicy.PREFER_RECOMPUTE)
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    cache = {}
    return (_PolicyContext(policy_fn, cache, False), _PolicyContext(policy_fn, cache, True))


class _Flags(threading.local):
    early_stop = True
    debug = False


_flags = _Flags()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, a non-reentrant rerun stops (or not) once it has
    produced every tensor backward needs."""
    prev, _flags.early_stop = _flags.early_stop, enable
    try:
        yield
    finally:
        _flags.early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Accepted for compatibility; torchlike prints no debug trace."""
    prev, _flags.debug = _flags.debug, enabled
    try:
        yield
    finally:
        _flags.debug = prev


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                           type(inputs).__name__)
    out = []
    for x in inputs:
        if not isinstance(x, _C.Tensor):
            out.append(x)
            continue
        d = x.detach()
        d.requires_grad = x.requires_grad
        out.append(d)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(isinstance(x, _C.Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def _cuda_devices(args):
    return sorted({a.device.index or 0 for a in args
                   if isinstance(a, _C.Tensor) and a.device.type == "cuda"})


def get_device_states(*args):
    from .. import cuda
    devices = _cuda_devices(args)
    return devices, [cuda.get_rng_state(d) for d in devices]


def set_device_states(devices, states, *, device_type=None):
    from .. import cuda
    for d, s in zip(devices, states):
        cuda.set_rng_state(s, d)


class _RngState:
    """The generators' states at the forward, restored around the rerun."""

    def __init__(self, args, preserve):
        self.preserve = preserve
        if preserve:
            self.cpu = _C.get_rng_state()
            self.devices, self.states = get_device_states(*args)

    @contextlib.contextmanager
    def restored(self):
        if not self.preserve:
            yield
            return
        from ..random import fork_rng
        with fork_rng(devices=self.devices):
            _C.set_rng_state(self.cpu)
            set_device_states(self.devices, self.states)
            yield


def _autocast_state():
    """Autocast's settings per device type when the checkpointed function ran
    forward: the rerun in backward (usually outside the autocast region) must
    cast as the forward did, or it saves other tensors than those recorded."""
    from ..amp import autocast_mode as am
    return [(d, am.is_autocast_enabled(d), am.get_autocast_dtype(d), am.is_autocast_cache_enabled())
            for d in am._DEVICE_TYPES]


@contextlib.contextmanager
def _autocast_restored(state):
    from ..amp import autocast
    with contextlib.ExitStack() as stack:
        for device, enabled, dtype, cache in state:
            stack.enter_context(autocast(device, dtype=dtype, enabled=enabled,
                                         cache_enabled=cache))
        yield


_REENTRANT_GRAD_ERROR = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RngState(args, preserve_rng_state)
        ctx.autocast = _autocast_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, _C.Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with _C_no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _C._is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_GRAD_ERROR)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        from ..autograd import backward as _backward
        from ..autograd.grad_mode import enable_grad
        with ctx.rng.restored(), enable_grad(), _autocast_restored(ctx.autocast):
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, _C.Tensor):
            outputs = (outputs,)
        roots, root_grads = [], []
        for o, g in zip(outputs, grads):
            if isinstance(o, _C.Tensor) and o.requires_grad:
                roots.append(o)
                root_grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward(roots, root_grads)
        return (None, None) + tuple(d.grad if isinstance(d, _C.Tensor) else None
                                    for d in detached)


def _C_no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


# ---- the non-reentrant variant ---------------------------------------------------

class _StopRecomputation(Exception):
    pass


class _Holder:
    """What a node keeps, under the checkpoint's hooks, for one saved tensor."""
    __slots__ = ("index", "meta", "__weakref__")

    def __init__(self, index, meta):
        self.index, self.meta = index, meta


def _meta(t):
    return (tuple(t.shape), t.dtype, t.device)


class _Frame:
    def __init__(self, fn, args, kwargs, rng, determinism_check, recompute_ctx):
        self.fn, self.args, self.kwargs, self.rng = fn, args, kwargs, rng
        self.check = determinism_check
        self.recompute_ctx = recompute_ctx
        self.autocast = _autocast_state()
        self.count = 0          # tensors the forward saved
        self.metas = []
        self.recomputed = None  # their values from the rerun, by index, until unpacked

    def pack(self, t):
        h = _Holder(self.count, _meta(t))
        self.metas.append(h.meta)
        self.count += 1
        return h

    def unpack(self, h):
        # each recomputed tensor is handed out once and then dropped: a second
        # backward through a retained graph reruns the function again
        if self.recomputed is None or self.recomputed[h.index] is None:
            self.recompute()
        t, self.recomputed[h.index] = self.recomputed[h.index], None
        return t

    def recompute(self):
        got = [None] * self.count
        seen = [0]

        def pack(t):
            i = seen[0]
            seen[0] += 1
            if i < self.count:
                if self.check == "default" and _meta(t) != self.metas[i]:
                    raise CheckpointError(
                        f"torch.utils.checkpoint: Recomputed values for the following tensors "
                        f"have different metadata than during the forward pass.\ntensor at "
                        f"position {i}:\nsaved metadata: {_describe(self.metas[i])}\n"
                        f"recomputed metadata: {_describe(_meta(t))}\n")
                got[i] = t.detach()
                if self.early_stop and i + 1 == self.count:
                    raise _StopRecomputation
            return None

        def unpack(_):
            raise RuntimeError("torch.utils.checkpoint: the rerun's own graph is not "
                               "differentiated")

        from ..autograd.grad_mode import enable_grad
        try:
            with self.rng.restored(), enable_grad(), _autocast_restored(self.autocast), \
                    self.recompute_ctx, saved_tensors_hooks(pack, unpack):
                self.fn(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        if seen[0] < self.count and self.check == "default":
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{self.count}\nNumber of tensors saved during recomputation: {seen[0]}.\n")
        self.recomputed = got


def _describe(meta):
    shape, dtype, device = meta
    return f"{{'shape': {list(shape)}, 'dtype': {dtype}, 'device': {device}}}"


def _checkpoint_without_reentrant(fn, preserve_rng_state, context_fn, determinism_check,
                                  early_stop, args, kwargs):
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    # one call: the two contexts may share state (selective checkpointing's cache)
    forward_ctx, recompute_ctx = context_fn()
    frame = _Frame(fn, args, kwargs, _RngState(args, preserve_rng_state), determinism_check,
                   recompute_ctx)
    frame.early_stop = early_stop  # the setting when the checkpoint ran, as in PyTorch
    with forward_ctx, saved_tensors_hooks(frame.pack, frame.unpack):
        return fn(*args, **kwargs)


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
    "future release, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
               context_fn=noop_context_fn, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping none of the tensors its ops
    save for backward; backward reruns it (see the module's doc)."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn,
                                         determinism_check, early_stop and _flags.early_stop,
                                         args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules (or an ``nn.Sequential``) in ``segments``
    checkpointed chunks; the last chunk runs normally."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
