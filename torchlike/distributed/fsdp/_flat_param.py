"""The flat parameter of one FSDP unit and its movement between ranks.

A unit's parameters (those of its module, not of units nested below it)
are concatenated, in registration order, into one 1-D buffer of ``total``
elements, padded with zeros to ``padded = world * chunk`` elements; rank r
keeps elements ``[r * chunk, (r + 1) * chunk)`` as its shard (NO_SHARD: the
whole buffer, no padding).  The original parameters leave their modules'
``_parameters``; while the unit runs, each module attribute is a view of
the gathered buffer:

    shard (chunk,) --all_gather--> full (padded,) --views--> weight (out, in), bias (out,)

``_Unshard`` is the autograd node between the shard and the full buffer:
backward receives the gradient of the full buffer (zeros in the padding),
reduce-scatters it, divides by the world size and adds the result to the
shard's ``.grad`` (use_orig_params: to the original parameters' 1-D
views of the shard).

FULL_SHARD frees the full buffer after the unit's forward: while a unit's
buffer is live, a saved-tensor pack hook replaces every tensor autograd
saves that lies in that buffer by a token (offset, shape, strides); in
backward the first unpack gathers the buffer again, and ``_Unshard``'s
backward frees it after the reduce-scatter."""
import math

from ... import _C
from ... import distributed as dist
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...autograd.graph import saved_tensors_hooks
from ...nn.parameter import Parameter
from ...utils._pytree import tree_map

Tensor = _C.Tensor


class Entry:
    """One original parameter of a flat parameter: where it lives (``module``,
    ``name``; ``aliases`` for the other places that share it), its ``shape``,
    and its elements ``[offset, offset + numel)`` of the unpadded buffer."""

    def __init__(self, module, name, param, offset):
        self.module, self.name = module, name
        self.aliases = []
        self.shape = tuple(param.shape)
        self.numel = param.numel()
        self.offset = offset
        self.requires_grad = param.requires_grad
        self.orig = None   # use_orig_params: the Parameter viewing the local shard
        self.local = (0, 0)  # this rank's elements of it, within the shard

    def places(self):
        return [(self.module, self.name)] + self.aliases


class FlatParamHandle:
    """The flat parameter of one unit (see the module doc)."""

    def __init__(self, owner, entries, flat, pg, strategy, mixed_precision, use_orig_params):
        from .api import ShardingStrategy
        self.owner = owner          # the FullyShardedDataParallel unit
        self.entries = entries
        self.pg = pg
        self.world = pg.size()
        self.rank = pg.rank()
        self.sharded = strategy != ShardingStrategy.NO_SHARD and self.world > 1
        self.reshard_after_forward = strategy == ShardingStrategy.FULL_SHARD and self.sharded
        self.use_orig_params = use_orig_params
        self.dtype = flat.dtype
        mp = mixed_precision
        self.param_dtype = mp.param_dtype if mp is not None and mp.param_dtype else flat.dtype
        self.reduce_dtype = (mp.reduce_dtype if mp is not None and mp.reduce_dtype
                             else self.param_dtype)
        self.total = flat.numel()
        if self.sharded:
            self.chunk = math.ceil(self.total / self.world) if self.total else 0
            self.padded = self.chunk * self.world
            start = self.rank * self.chunk
        else:
            self.chunk = self.padded = self.total
            start = 0
        self.start = start
        shard = _C.zeros(self.chunk, dtype=flat.dtype)
        stop = min(start + self.chunk, self.total)
        if stop > start:
            shard[:stop - start] = flat[start:stop]
        requires_grad = any(e.requires_grad for e in entries)
        self.flat_param = Parameter(shard, requires_grad=requires_grad)
        self.full = None            # the gathered buffer while it is live
        self.unsharded_grad = None  # no_sync: the accumulated gradient of the full buffer
        self.views_set = False
        for e in entries:
            a = max(e.offset, start) - start
            b = min(e.offset + e.numel, start + self.chunk) - start
            e.local = (a, max(a, b))

    # ---- the local shard ------------------------------------------------------------
    def local_numel(self):
        """The elements of the unpadded buffer this rank keeps."""
        return max(0, min(self.start + self.chunk, self.total) - self.start)

    def make_orig_params(self):
        """use_orig_params: each original parameter becomes a Parameter viewing
        its part of the local shard (1-D, possibly empty)."""
        base = self.flat_param.detach()
        for e in self.entries:
            a, b = e.local
            e.orig = Parameter(base[a:b], requires_grad=e.requires_grad)

    # ---- gathering ------------------------------------------------------------------
    def gather(self, dtype=None):
        """A new tensor holding the whole (padded) buffer in ``dtype``."""
        dtype = dtype or self.param_dtype
        with no_grad():
            shard = self.flat_param.detach()
            if shard.dtype != dtype:
                shard = shard.to(dtype)
            if not self.sharded:
                return shard.clone()
            full = _C.empty(self.padded, dtype=dtype)
            dist.all_gather_into_tensor(full, shard.contiguous(), group=self.pg)
            return full

    def gather_grad(self):
        """The whole gradient buffer (zeros where no gradient exists)."""
        with no_grad():
            g = self.flat_param.grad
            if self.use_orig_params:
                g = _C.zeros(self.chunk, dtype=self.dtype)
                for e in self.entries:
                    a, b = e.local
                    if b > a and e.orig.grad is not None:
                        g[a:b] = e.orig.grad.reshape(-1)
            elif g is None:
                g = _C.zeros(self.chunk, dtype=self.dtype)
            if not self.sharded:
                return g.detach().clone()
            full = _C.empty(self.padded, dtype=self.dtype)
            dist.all_gather_into_tensor(full, g.detach().contiguous(), group=self.pg)
            return full

    def views(self, full):
        """(entry, view of ``full`` shaped as the original parameter)."""
        # NOTE: narrow, not slicing: the slice's autograd node keeps its input
        # alive, which would keep a freed buffer in memory until backward
        for e in self.entries:
            yield e, full.narrow(0, e.offset, e.numel).view(e.shape)

    def set_views(self, full):
        """The module attributes become views of ``full`` (instance
        attributes win over ``_parameters``, so an original Parameter of
        use_orig_params stays registered underneath)."""
        for e, v in self.views(full):
            for module, name in e.places():
                module.__dict__[name] = v
        self.views_set = True

    def clear_views(self):
        """Back to the sharded state.  With flat parameters the attributes
        stay, as the 1-D views of this rank's part of the shard (possibly
        empty), so that ``module.bias is not None`` and reprs still work."""
        base = self.flat_param.detach()
        for e in self.entries:
            a, b = e.local
            for module, name in e.places():
                if self.use_orig_params:
                    module.__dict__.pop(name, None)
                else:
                    module.__dict__[name] = base[a:b]
        self.views_set = False

    # ---- forward / backward ---------------------------------------------------------
    def unshard(self):
        """Gather the buffer for the unit's forward: through ``_Unshard`` when
        autograd records, so backward reduces the gradient."""
        from ...autograd.grad_mode import is_grad_enabled
        if is_grad_enabled() and self.flat_param.requires_grad:
            full = _Unshard.apply(self.flat_param, self)
        else:
            full = self.gather()
        self.full = full
        self.set_views(full)
        return full

    def after_forward(self, grad_recorded):
        self.clear_views()
        if self.reshard_after_forward or not grad_recorded:
            self.full = None

    def full_for_backward(self):
        """The buffer for backward, gathered again if it was freed."""
        if self.full is None:
            self.full = self.gather()
        return self.full

    def before_backward(self):
        """Backward reached the unit's outputs: its attributes become the
        whole parameters again (gathered if freed), so that code run in
        backward (activation checkpointing's recomputation) sees them."""
        if not self.views_set:
            # NOTE: a leaf that requires grad, so that recomputed ops save
            # what the first forward saved; its own gradients are never used
            self.set_views(self.full_for_backward().detach().requires_grad_(True))

    def reduce_grad(self, grad):
        """Backward of ``_Unshard``: the shard's part of the average of
        ``grad`` (the full buffer's gradient) over the ranks."""
        if self.views_set:
            self.clear_views()
        self.full = None
        with no_grad():
            if not self.owner._sync_gradients:   # no_sync: accumulate unsharded
                g = grad.detach().to(self.dtype)
                if self.unsharded_grad is None:
                    self.unsharded_grad = g.clone()
                else:
                    self.unsharded_grad.add_(g)
                return
            g = grad.detach()
            if self.unsharded_grad is not None:
                g = g + self.unsharded_grad.to(g.dtype)
                self.unsharded_grad = None
            g = g.to(self.reduce_dtype).contiguous()
            if self.sharded:
                out = _C.empty(self.chunk, dtype=self.reduce_dtype)
                dist.reduce_scatter_tensor(out, g, group=self.pg)
            else:
                out = g.clone()
                if self.world > 1:
                    dist.all_reduce(out, group=self.pg)
            if self.world > 1:
                out.div_(self.world)
            out = out.to(self.dtype)
            self.accumulate(out)

    def accumulate(self, shard_grad):
        if not self.use_orig_params:
            p = self.flat_param
            if p.grad is None:
                p.grad = shard_grad
            else:
                p.grad.add_(shard_grad)
            return
        for e in self.entries:
            a, b = e.local
            if b <= a or not e.requires_grad:
                continue   # PyTorch leaves an empty slice's grad as None
            g = shard_grad[a:b].clone()
            if e.orig.grad is None:
                e.orig.grad = g
            else:
                e.orig.grad.add_(g)

    # ---- freeing the buffer after forward (FULL_SHARD) ---------------------------------
    def token_for(self, t):
        """A _Saved token when ``t`` lies in the live buffer, else None."""
        full = self.full
        if full is None or t.dtype != full.dtype or t.device != full.device:
            return None
        size = t.element_size()
        lo, hi = full.data_ptr(), full.data_ptr() + full.numel() * size
        ptr = t.data_ptr()
        if not lo <= ptr < hi or t.numel() == 0:
            return None
        return _Saved(self, tuple(t.shape), tuple(t.stride()), (ptr - lo) // size)


class _Saved:
    """A saved tensor that lies in a freed buffer: where it was."""
    __slots__ = ("handle", "shape", "stride", "offset")

    def __init__(self, handle, shape, stride, offset):
        self.handle, self.shape, self.stride, self.offset = handle, shape, stride, offset

    def materialize(self):
        return self.handle.full_for_backward().as_strided(self.shape, self.stride, self.offset)


class _Unshard(Function):
    """shard -> the whole buffer; backward reduce-scatters (see FlatParamHandle)."""

    @staticmethod
    def forward(ctx, flat_param, handle):
        ctx.handle = handle
        return handle.gather()

    @staticmethod
    def backward(ctx, grad):
        ctx.handle.reduce_grad(grad)
        return None, None


def hook_outputs(output, state):
    """Call ``state.before_backward()`` when a gradient reaches any tensor of
    ``output`` (the module's output, through tuples, lists and dicts)."""
    def hook(grad):
        state.before_backward()

    stack = [output]
    while stack:
        o = stack.pop()
        if isinstance(o, Tensor):
            if o.requires_grad:
                o.register_hook(hook)
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())


LIVE = []   # handles whose buffer is freed after forward, while their unit runs


def pack(t):
    for h in LIVE:
        tok = h.token_for(t)
        if tok is not None:
            return tok
    return t


def unpack(x):
    return x.materialize() if isinstance(x, _Saved) else x


def run_unit(unit, frees, run, /, *args, **kwargs):
    """``run(*args, **kwargs)``, a unit's forward.  When the unit frees its
    whole parameters after forward (``frees``), it is live meanwhile and the
    activations saved for backward that are views of them are packed as
    tokens, which backward gathers again."""
    if not frees:
        return run(*args, **kwargs)
    LIVE.append(unit)
    try:
        with saved_tensors_hooks(pack, unpack):
            return run(*args, **kwargs)
    finally:
        LIVE.remove(unit)


def cast_floating(tree, dtype):
    """The floating tensors of a tree of arguments or outputs (lists,
    tuples, dicts ...) cast to dtype, as mixed precision casts a unit's
    inputs and outputs; everything else as it is."""
    return tree_map(lambda x: x.to(dtype) if isinstance(x, _C.Tensor) and x.is_floating_point()
                    else x, tree)
