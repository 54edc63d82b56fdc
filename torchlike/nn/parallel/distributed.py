"""DistributedDataParallel: one model replica per process, gradients
averaged across the processes of a group during backward.

At construction rank 0's parameters and buffers are broadcast to every
rank.  Parameters are then cut into buckets (in reverse registration order,
which is roughly the order backward produces their gradients; the first
bucket holds up to 1 MiB (or ``bucket_cap_mb`` if smaller), the others
``bucket_cap_mb``, default 25).  A post-accumulate-grad hook
on each parameter marks it ready; when every parameter of a bucket is
ready, the bucket's gradients are flattened into one buffer and all-reduced
asynchronously, while backward goes on.  Buckets are launched in index
order on every rank, so the collectives match across ranks.  The hook of
the last parameter waits for the reductions and writes the averaged
gradients back into each ``param.grad`` (in place).

``register_comm_hook(state, hook)`` replaces the averaging all-reduce of
each bucket by ``hook(state, GradBucket) -> Future[Tensor]``
(torchlike.distributed.algorithms.ddp_comm_hooks has PyTorch's defaults).

``find_unused_parameters=True`` walks the autograd graph of the forward's
outputs to find parameters that will get no gradient and marks them ready
at once (contributing zeros); a parameter no rank used keeps its ``.grad``
untouched.  ``no_sync()`` skips the reduction for forward/backward passes
inside it, so gradients accumulate locally until a synchronised backward.

DDP is a ``Joinable``: inside ``ddp.join()`` (or
``distributed.algorithms.join.Join([ddp, ...])``) a rank that has run out
of inputs shadows the others' forward and backward collectives (their
flags, buffer broadcasts and one all-reduce of zeros per gradient bucket),
so ranks with fewer batches do not hang; gradients are divided by the
world size (``divide_by_initial_world_size=True``) or by the number of
ranks still training.  When all have joined, the model of the last rank to
join is broadcast to every rank.

The wrapped module is ``.module``; state-dict keys carry the ``module.``
prefix, as in PyTorch."""
import contextlib

import numpy as np

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...distributed.algorithms.join import Join, Joinable, JoinHook
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

Tensor = _C.Tensor
_FIRST_BUCKET_MB = 1.0


def _tensors(obj):
    """Every tensor in ``obj`` (through tuples, lists, dicts)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


def _graph_leaves(outputs):
    """ids of the leaf tensors the autograd graph of ``outputs`` reaches."""
    found, seen = set(), set()
    stack = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        var = getattr(fn, "variable", None)
        if var is not None:
            found.add(id(var))
        for nxt, _ in getattr(fn, "next_functions", ()):
            if nxt is not None:
                stack.append(nxt)
    return found


def _broadcast_coalesced(tensors, pg, src=0):
    """Broadcast ``tensors`` from group rank ``src``: one message per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    root = pg.ranks[src]
    with no_grad():
        for group in by_dtype.values():
            flat = _C.cat([t.detach().reshape(-1) for t in group])
            dist.broadcast(flat, src=root, group=pg)
            offset = 0
            for t in group:
                n = t.numel()
                t.detach().copy_(flat[offset:offset + n].reshape(t.shape))
                offset += n


class _Bucket:
    """Parameters whose gradients are reduced together, and the reduction
    in flight."""

    def __init__(self, params):
        self.params = params
        self.pending = len(params)
        self.future = None  # of the reduced flat gradients


class _DDPJoinHook(JoinHook):
    """What a joined rank runs in place of one training iteration of DDP."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not isinstance(ddp, DistributedDataParallel):
            raise AssertionError(f"DDP join hook requires passing in a "
                                 f"DistributedDataParallel instance as the state, got "
                                 f"{type(ddp).__name__}")
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size
        super().__init__()

    def main_hook(self):
        ddp = self.ddp
        if ddp._will_sync_buffers():
            ddp._broadcast_buffers_from(ddp._find_common_rank(ddp.process_group.rank(), False))
        # the training ranks tell whether their backward reduces this iteration
        flag = _C.zeros(1)
        dist.all_reduce(flag, group=ddp.process_group)
        should_sync = flag.item() != 0
        ddp.require_forward_param_sync = should_sync
        if should_sync:
            ddp._match_backward_reductions()

    def post_hook(self, is_last_joiner):
        self.ddp._sync_final_model(is_last_joiner)


class DistributedDataParallel(Module, Joinable):
    """``DistributedDataParallel(module, device_ids=None, output_device=None,
    dim=0, broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
    find_unused_parameters=False, ...)``: ``forward`` calls ``module``;
    backward averages the gradients over the group (see the module doc)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None):
        super().__init__()
        Joinable.__init__(self)
        pg = dist.distributed_c10d.resolve(process_group)
        params = []
        for p in module.parameters():
            if p.requires_grad and all(p is not q for q in params):
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        devices = {p.device.type for p in params}
        if (device_ids or output_device is not None) and devices == {"cpu"}:
            raise ValueError(
                f"DistributedDataParallel device_ids and output_device arguments only work "
                f"with single-device/multiple-device GPU modules or CPU modules, but got "
                f"device_ids {device_ids}, output_device {output_device}, and module "
                f"parameters {{device(type='cpu')}}.")
        self.module = module
        self.process_group = pg
        self.device = params[0].device
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2 ** 20)
        self._params = params
        self._world = pg.size()
        if init_sync and self._world > 1:
            _broadcast_coalesced(params + list(module.buffers()), pg)
        self._buckets, self._bucket_of = self._make_buckets(params)
        self._sync_backward = False   # whether the current backward reduces
        self._launched = 0            # buckets launched in this backward
        self._used = None             # local use of each parameter (find_unused)
        self._ready = set()
        self._comm_hook = None        # (state, hook) from register_comm_hook
        self._divide_by_initial_world_size = True
        self._join_work = None        # this iteration's "still training" all-reduce
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._make_hook(i))

    # ---- buckets ---------------------------------------------------------------
    def _make_buckets(self, params):
        """Buckets over ``params`` in reverse order, one dtype per bucket."""
        buckets, bucket_of = [], {}
        current, size = [], 0
        cap = min(int(_FIRST_BUCKET_MB * 2 ** 20), self.bucket_bytes_cap)
        for i in reversed(range(len(params))):
            p = params[i]
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > cap or params[current[0]].dtype != p.dtype):
                buckets.append(current)
                current, size, cap = [], 0, self.bucket_bytes_cap
            current.append(i)
            size += nbytes
        if current:
            buckets.append(current)
        out = []
        for b, idx in enumerate(buckets):
            out.append(_Bucket(idx))
            for i in idx:
                bucket_of[i] = b
        return out, bucket_of

    def _make_hook(self, i):
        def hook(param):
            if self._sync_backward:
                self._mark_ready(i)
        return hook

    def _mark_ready(self, i):
        if i in self._ready:
            return
        self._ready.add(i)
        bucket = self._buckets[self._bucket_of[i]]
        bucket.pending -= 1
        # launch, in index order, every bucket whose parameters are all ready
        while self._launched < len(self._buckets) and \
                self._buckets[self._launched].pending == 0:
            self._launch(self._buckets[self._launched])
            self._launched += 1
        if self._launched == len(self._buckets):
            self._finish()

    def _grad_array(self, p):
        g = p.grad
        if g is None:
            return np.zeros(tuple(p.shape), dtype=_np_dtype(p))
        return g.detach().numpy()

    def _launch(self, bucket):
        flat = _C.from_numpy(np.concatenate([self._grad_array(self._params[i]).reshape(-1)
                                             for i in bucket.params]))
        if self._comm_hook is None:
            bucket.future = dist.all_reduce(flat, group=self.process_group,
                                            async_op=True).get_future()
            return
        from ...distributed.algorithms.ddp_comm_hooks import GradBucket
        index = self._buckets.index(bucket)
        grad_bucket = GradBucket(index, flat, [self._params[i] for i in bucket.params],
                                 index == len(self._buckets) - 1)
        state, hook = self._comm_hook
        bucket.future = hook(state, grad_bucket)

    def register_comm_hook(self, state, hook):
        """Reduce each bucket with ``hook(state, bucket) -> Future[Tensor]``
        instead of averaging it (see distributed.algorithms.ddp_comm_hooks);
        once, before the first backward."""
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable, got {type(hook).__name__}")
        self._comm_hook = (state, hook)

    def _finish(self):
        """Wait for every bucket and write the averaged gradients back."""
        self._sync_backward = False
        used_anywhere = None
        if self._used is not None:
            used = _C.tensor([1 if u else 0 for u in self._used], dtype=_C.int32)
            dist.all_reduce(used, group=self.process_group)
            used_anywhere = used.tolist()
        divisor = self._world
        if self._join_work is not None and not self._divide_by_initial_world_size:
            divisor = int(self._join_work.result()[0].item())  # the ranks still training
        self._join_work = None
        with no_grad():
            for bucket in self._buckets:
                value = bucket.future.wait()
                if self._comm_hook is None:
                    value = value[0]
                    value.div_(divisor)
                elif not isinstance(value, Tensor) or value.numel() != \
                        sum(self._params[i].numel() for i in bucket.params):
                    raise RuntimeError("The value of a communication hook's Future must be a "
                                       "tensor with as many elements as the bucket")
                flat = value.detach().reshape(-1).numpy()
                offset = 0
                for i in bucket.params:
                    p = self._params[i]
                    n = p.numel()
                    if used_anywhere is None or used_anywhere[i]:
                        value = flat[offset:offset + n].reshape(tuple(p.shape))
                        if p.grad is None:
                            p.grad = _C.from_numpy(value.copy())
                        else:
                            p.grad.detach().numpy()[...] = value
                    offset += n
                bucket.future = None
                bucket.pending = len(bucket.params)

    # ---- forward ---------------------------------------------------------------
    def _check_previous_reduction(self):
        if self._sync_backward and self._ready:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
                "function outputs participate in calculating loss.")

    def _will_sync_buffers(self):
        return self.require_forward_param_sync and self.broadcast_buffers and \
            self._world > 1 and any(True for _ in self.module.buffers())

    def _broadcast_buffers_from(self, src):
        _broadcast_coalesced(list(self.module.buffers()), self.process_group, src)

    def forward(self, *inputs, **kwargs):
        self._check_previous_reduction()
        sync = is_grad_enabled() and self.require_backward_grad_sync
        # the collectives of a forward, in the order a joined rank's hook mirrors
        self._join_work = Join.notify_join_context(self)
        joining = self._join_config.enable
        if self._will_sync_buffers():
            # under Join rank 0 may have left with stale buffers: the highest
            # rank still training is the source
            src = self._find_common_rank(self.process_group.rank(), True) if joining else 0
            self._broadcast_buffers_from(src)
        if joining:
            dist.all_reduce(_C.ones(1) if sync else _C.zeros(1), group=self.process_group)
        output = self.module(*inputs, **kwargs)
        self.require_forward_param_sync = sync
        self._sync_backward = sync
        self._ready = set()
        self._launched = 0
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
        self._used = None
        if sync and self.find_unused_parameters:
            reached = _graph_leaves(output)
            self._used = [id(p) in reached for p in self._params]
            for i, used in enumerate(self._used):
                if not used:
                    self._mark_ready(i)
        return output

    # ---- uneven inputs (Join) ---------------------------------------------------
    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """``with ddp.join(): <loop>``: train on uneven inputs across ranks
        (see the module doc); ``Join([self], ...)``."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        """The hook of a joined rank; ``divide_by_initial_world_size`` (default
        True) divides gradients by the world size, else by the number of
        ranks still training."""
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        return self.device

    @property
    def join_process_group(self):
        return self.process_group

    def _find_common_rank(self, rank, candidate):
        """The highest group rank among those passing ``candidate``."""
        t = _C.tensor([rank if candidate else -1])
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.process_group)
        if t.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process.")
        return int(t.item())

    def _match_backward_reductions(self):
        """A joined rank's part of a backward: each bucket's reduction (or
        comm hook) on zeros, in bucket order, then the used-parameter map."""
        futures = []
        for index, bucket in enumerate(self._buckets):
            params = [self._params[i] for i in bucket.params]
            zeros = _C.zeros(sum(p.numel() for p in params), dtype=params[0].dtype)
            if self._comm_hook is None:
                futures.append(dist.all_reduce(zeros, group=self.process_group,
                                               async_op=True).get_future())
            else:
                from ...distributed.algorithms.ddp_comm_hooks import GradBucket
                state, hook = self._comm_hook
                futures.append(hook(state, GradBucket(index, zeros, params,
                                                      index == len(self._buckets) - 1)))
        for fut in futures:
            fut.wait()
        if self.find_unused_parameters:
            dist.all_reduce(_C.zeros(len(self._params), dtype=_C.int32),
                            group=self.process_group)

    def _sync_final_model(self, is_last_joiner):
        """Every rank takes the parameters (and buffers) of the highest rank
        among the last to join."""
        src = self._find_common_rank(self.process_group.rank(), is_last_joiner)
        states = []
        for p in self.module.parameters():
            if all(p is not q for q in states):
                states.append(p)
        if self.broadcast_buffers:
            states += list(self.module.buffers())
        _broadcast_coalesced(states, self.process_group, src)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward passes accumulate gradients locally without
        reducing them; the first synchronised backward after reduces the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _np_dtype(p):
    return p.detach()[:0].numpy().dtype if p.dtype != _C.bfloat16 else np.uint16
