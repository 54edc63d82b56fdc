"""FullyShardedDataParallel (PyTorch's FSDP1 API) over torchlike.distributed.

``FSDP(module, auto_wrap_policy=...)`` makes units: the submodules the
policy picks become FSDP units of their own (innermost first), then
``module`` itself.  Each unit flattens the parameters it owns into one flat
parameter and keeps this rank's shard of it (_flat_param.py); the
optimizer is built on ``fsdp.parameters()`` (the shards, or with
``use_orig_params=True`` views of the original parameters into them) and
steps locally.

Forward of a unit: all-gather the flat parameter, point the module's
attributes at views of it, run the module, drop the views; FULL_SHARD also
frees the gathered buffer (gathered again in backward when autograd needs
a tensor saved from it), SHARD_GRAD_OP keeps it until the unit's backward.
Backward: the gradient of the gathered buffer is reduce-scattered and
divided by the world size into the shard's ``.grad``; NO_SHARD all-reduces
(DDP).  The result of N steps equals single-process training on the union
of the ranks' batches when the loss is a mean over equal shares.

State dicts use the original module's keys (``state_dict_type``): FULL
(whole tensors), SHARDED (each rank's ``chunk(world, dim=0)`` piece of
every tensor, as plain tensors), LOCAL (``<unit>._flat_param``: this
rank's unpadded part of each flat parameter)."""
import contextlib
import math
from collections import OrderedDict

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from .. import _shard_spec
from . import _flat_param as fp
from .api import (FullOptimStateDictConfig, FullStateDictConfig, LocalOptimStateDictConfig,
                  LocalStateDictConfig, ShardedOptimStateDictConfig, ShardedStateDictConfig,
                  ShardingStrategy, StateDictSettings, StateDictType)

__all__ = ["FullyShardedDataParallel"]

Tensor = _C.Tensor
WRAPPED = "_fsdp_wrapped_module"
_CONFIGS = {StateDictType.FULL_STATE_DICT: (FullStateDictConfig, FullOptimStateDictConfig),
            StateDictType.LOCAL_STATE_DICT: (LocalStateDictConfig, LocalOptimStateDictConfig),
            StateDictType.SHARDED_STATE_DICT: (ShardedStateDictConfig,
                                               ShardedOptimStateDictConfig)}


class FullyShardedDataParallel(Module):
    """``FullyShardedDataParallel(module, process_group=None,
    sharding_strategy=FULL_SHARD, cpu_offload=None, auto_wrap_policy=None,
    backward_prefetch=BACKWARD_PRE, mixed_precision=None,
    ignored_modules=None, param_init_fn=None, device_id=None,
    sync_module_states=False, forward_prefetch=False,
    limit_all_gathers=True, use_orig_params=False, ignored_states=None,
    device_mesh=None)``: see the module doc."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None,
                 auto_wrap_policy=None, backward_prefetch=None, mixed_precision=None,
                 ignored_modules=None, param_init_fn=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=True,
                 use_orig_params=False, ignored_states=None, device_mesh=None):
        super().__init__()
        if device_mesh is not None:
            if process_group is not None:
                raise ValueError("Cannot pass both process_group and device_mesh at the same "
                                 "time. Please just pass only one of them.")
            # as PyTorch's FSDP1 without a hybrid strategy: the group of dim 0
            pg = device_mesh.get_group(mesh_dim=0)
        else:
            pg = dist.distributed_c10d.resolve(process_group)
        strategy = ShardingStrategy.FULL_SHARD if sharding_strategy is None else \
            sharding_strategy
        if not isinstance(strategy, ShardingStrategy):
            raise TypeError(f"sharding_strategy must be a ShardingStrategy, got {strategy!r}")
        if strategy in (ShardingStrategy.HYBRID_SHARD, ShardingStrategy._HYBRID_SHARD_ZERO2):
            raise NotImplementedError(f"FullyShardedDataParallel: {strategy} is not "
                                      "implemented; use FULL_SHARD, SHARD_GRAD_OP or NO_SHARD")
        ignored = set()
        for m in ignored_modules or ():
            ignored.update(id(p) for p in m.parameters())
        for s in ignored_states or ():
            if isinstance(s, Module):
                ignored.update(id(p) for p in s.parameters())
            else:
                ignored.add(id(s))
        if param_init_fn is not None and any(p.device.type == "meta"
                                             for p in module.parameters()):
            param_init_fn(module)
        if auto_wrap_policy is not None:
            from .wrap import recursive_wrap
            kwargs = dict(process_group=process_group, device_mesh=device_mesh,
                          sharding_strategy=strategy,
                          cpu_offload=cpu_offload, backward_prefetch=backward_prefetch,
                          mixed_precision=mixed_precision, ignored_modules=ignored_modules,
                          device_id=device_id, sync_module_states=sync_module_states,
                          use_orig_params=use_orig_params, ignored_states=ignored_states)

            def make_unit(m, overrides):
                return FullyShardedDataParallel(m, **dict(kwargs, **overrides))
            recursive_wrap(module, auto_wrap_policy, make_unit, ignored,
                           only_wrap_children=True)
        self._fsdp_wrapped_module = module
        self.process_group = pg
        self.rank, self.world_size = pg.rank(), pg.size()
        self.sharding_strategy = strategy
        self.cpu_offload = cpu_offload
        self.mixed_precision = mixed_precision
        self.backward_prefetch = backward_prefetch
        self.forward_prefetch = forward_prefetch
        self.limit_all_gathers = limit_all_gathers
        self.use_orig_params = use_orig_params
        self.compute_device = device_id
        self._is_root = True
        self._sync_gradients = True
        self._in_summon = False
        self._state_dict_type = StateDictType.FULL_STATE_DICT
        self._state_dict_config = FullStateDictConfig()
        self._optim_state_dict_config = FullOptimStateDictConfig()
        for sub in module.modules():
            if isinstance(sub, FullyShardedDataParallel):
                sub._is_root = False
        if sync_module_states and self.world_size > 1:
            from ...nn.parallel.distributed import _broadcast_coalesced
            own = [p for _, _, p in self._owned(module, ignored)]
            _broadcast_coalesced(own + list(self._own_buffers()), pg)
        if mixed_precision is not None and mixed_precision.buffer_dtype is not None:
            with no_grad():
                for m in self._own_modules():
                    for name, b in m._buffers.items():
                        if b is not None and b.is_floating_point():
                            m._buffers[name] = b.to(mixed_precision.buffer_dtype)
        self._handle = self._flatten(module, ignored)

    # ---- construction ----------------------------------------------------------------
    def _own_modules(self):
        """The modules this unit owns (its module's tree, not nested units;
        nothing when it wraps a unit directly)."""
        top = self._fsdp_wrapped_module
        stack = [] if isinstance(top, FullyShardedDataParallel) else [top]
        while stack:
            m = stack.pop()
            yield m
            for child in reversed(list(m._modules.values())):
                if child is not None and not isinstance(child, FullyShardedDataParallel):
                    stack.append(child)

    def _own_buffers(self):
        for m in self._own_modules():
            for b in m._buffers.values():
                if b is not None:
                    yield b

    def _owned(self, module, ignored):
        out = []
        for m in self._own_modules():
            for name, p in m._parameters.items():
                if p is not None and id(p) not in ignored:
                    out.append((m, name, p))
        return out

    def _flatten(self, module, ignored):
        owned = self._owned(module, ignored)
        if not owned:
            return None
        dtypes = list(dict.fromkeys(p.dtype for _, _, p in owned))
        if len(dtypes) > 1:
            raise ValueError(f"Must flatten tensors with uniform dtype but got {dtypes[0]} "
                             f"and {dtypes[1]}")
        grads = {p.requires_grad for _, _, p in owned}
        if len(grads) > 1 and not self.use_orig_params:
            raise ValueError("Must flatten tensors with uniform `requires_grad` when "
                             "`use_orig_params=False`")
        # use_orig_params: each parameter starts on a 16-byte boundary, as
        # PyTorch aligns them (the gaps are zeros, like the end padding)
        dtype = owned[0][2].dtype
        align = max(1, 16 // owned[0][2].element_size()) if self.use_orig_params else 1
        entries, first, offset, parts = [], {}, 0, []
        for m, name, p in owned:
            if id(p) in first:
                first[id(p)].aliases.append((m, name))
                continue
            gap = -offset % align
            if gap:
                parts.append(_C.zeros(gap, dtype=dtype))
                offset += gap
            e = fp.Entry(m, name, p, offset)
            first[id(p)] = e
            entries.append(e)
            parts.append(p.detach().reshape(-1))
            offset += e.numel
        flat = _C.cat(parts) if parts else _C.zeros(0)
        handle = fp.FlatParamHandle(self, entries, flat, self.process_group,
                                    self.sharding_strategy, self.mixed_precision,
                                    self.use_orig_params)
        for m, name, _ in owned:
            del m._parameters[name]
        if self.use_orig_params:
            handle.make_orig_params()
            for e in entries:
                for m, name in e.places():
                    m._parameters[name] = e.orig
        else:
            module.register_parameter("_flat_param", handle.flat_param)
        handle.clear_views()
        return handle

    # ---- the wrapped module ------------------------------------------------------------
    @property
    def module(self):
        """The wrapped module."""
        return self._fsdp_wrapped_module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == WRAPPED:
                raise
            return getattr(self._fsdp_wrapped_module, name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """Every FSDP unit in ``module`` (with ``root_only``, the roots)."""
        units = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        return [m for m in units if m._is_root] if root_only else units

    def _handles(self):
        return [u._handle for u in self.fsdp_modules(self) if u._handle is not None]

    # ---- forward ---------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        mp = self.mixed_precision
        if self._is_root and mp is not None and mp.param_dtype is not None and \
                mp.cast_root_forward_inputs:
            args, kwargs = fp.cast_floating((args, kwargs), mp.param_dtype)
        h = self._handle
        if h is None:
            return self._fsdp_wrapped_module(*args, **kwargs)
        if self._in_summon:
            raise AssertionError("Cannot run forward inside summon_full_params")
        recorded = is_grad_enabled() and h.flat_param.requires_grad
        h.unshard()
        frees = recorded and h.reshard_after_forward
        try:
            out = fp.run_unit(h, frees, self._fsdp_wrapped_module, *args, **kwargs)
        finally:
            h.after_forward(recorded)
        if recorded:
            fp.hook_outputs(out, h)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate unsharded gradients locally; the
        first one after reduces their sum.  On the root only."""
        if not self._is_root:
            raise RuntimeError("`no_sync()` on inner FSDP instances is not supported. Please "
                               "call `no_sync()` on root FSDP module.")
        units = self.fsdp_modules(self)
        old = [u._sync_gradients for u in units]
        for u in units:
            u._sync_gradients = False
        try:
            yield
        finally:
            for u, o in zip(units, old):
                u._sync_gradients = o

    # ---- full parameters -------------------------------------------------------------
    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False,
                           offload_to_cpu=False, with_grads=False):
        """Inside, every unit's original parameters are whole Parameters in
        their modules (gathered); on exit, changes are written back to the
        shards (``writeback``) and the gathered copies freed."""
        if rank0_only and writeback:
            raise NotImplementedError("writeback=True and rank0_only=True is not supported yet")
        units = FullyShardedDataParallel.fsdp_modules(module) if recurse else \
            ([module] if isinstance(module, FullyShardedDataParallel) else [])
        units = [u for u in units if not u._in_summon]
        live = []
        try:
            for u in units:
                u._in_summon = True
                h = u._handle
                if h is None:
                    continue
                full = h.gather(h.dtype)
                grads = h.gather_grad() if with_grads else None
                saved = []
                show = not rank0_only or u.rank == 0
                for e, v in h.views(full):
                    p = Parameter(v, requires_grad=e.requires_grad)
                    if grads is not None:
                        p.grad = grads[e.offset:e.offset + e.numel].view(e.shape)
                    for m, name in e.places():
                        saved.append((m, name, m._parameters.get(name),
                                      m.__dict__.pop(name, None)))
                        if show:
                            m._parameters[name] = p
                live.append((h, full, saved))
            yield
        finally:
            for h, full, saved in live:
                if writeback:
                    with no_grad():
                        n = h.local_numel()
                        h.flat_param.detach()[:n].copy_(full[h.start:h.start + n])
                for m, name, old, attr in saved:
                    if old is None:
                        m._parameters.pop(name, None)
                    else:
                        m._parameters[name] = old
                    if attr is not None:
                        m.__dict__[name] = attr
            for u in units:
                u._in_summon = False

    def apply(self, fn):
        """``fn`` on every submodule, inside summon_full_params (so it sees
        and may change the whole parameters)."""
        if self._in_summon:
            return super().apply(fn)
        with self.summon_full_params(self, writeback=True):
            return super().apply(fn)

    # ---- walking the original module -------------------------------------------------
    def _walk(self, prefix=""):
        """(key, module, name, is_param) for every parameter and persistent
        buffer of the original module tree, in the order of its state dict."""
        managed = {}
        for u in self.fsdp_modules(self):
            if u._handle is not None:
                for e in u._handle.entries:
                    for m, name in e.places():
                        managed.setdefault(id(m), []).append(name)

        def visit(m, pre):
            if isinstance(m, FullyShardedDataParallel):
                yield from visit(m._fsdp_wrapped_module, pre)
                return
            names = managed.get(id(m), [])
            for name in list(m._parameters) + [n for n in names if n not in m._parameters]:
                if name == "_flat_param" or m._parameters.get(name, 0) is None:
                    continue
                yield pre + name, m, name, True
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent_buffers_set:
                    yield pre + name, m, name, False
            for cname, child in m._modules.items():
                if child is not None:
                    yield from visit(child, pre + cname + ".")
        yield from visit(self, prefix)

    def _units_with_prefix(self, prefix=""):
        """(clean prefix, unit) for every unit, the prefix without wrapper names."""
        def visit(m, pre):
            if isinstance(m, FullyShardedDataParallel):
                yield pre, m
                m = m._fsdp_wrapped_module
            for cname, child in m._modules.items():
                if child is not None:
                    yield from visit(child, pre + cname + ".")
        yield from visit(self, prefix)

    def _fqns(self):
        """{id(original-or-flat parameter): [clean names]} for the optimizer state."""
        out = {}
        for pre, u in self._units_with_prefix():
            h = u._handle
            if h is None:
                continue
            names = {}
            for key, m, name, is_param in u._walk(pre):
                if is_param:
                    names.setdefault((id(m), name), key)
            fq = [names.get((id(e.module), e.name)) for e in h.entries]
            out[id(h.flat_param)] = fq
            for e, f in zip(h.entries, fq):
                if e.orig is not None:
                    out[id(e.orig)] = [f]
        return out

    # ---- state dicts -----------------------------------------------------------------
    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None,
                            optim_state_dict_config=None):
        """Set the kind of state dict every unit in ``module`` produces;
        returns the previous StateDictSettings."""
        units = FullyShardedDataParallel.fsdp_modules(module)
        if not units:
            raise ValueError("No FSDP modules found")
        prev = units[0].get_state_dict_type(units[0])
        cls, ocls = _CONFIGS[state_dict_type]
        cfg = cls() if state_dict_config is None else state_dict_config
        ocfg = ocls() if optim_state_dict_config is None else optim_state_dict_config
        if not isinstance(cfg, cls):
            raise RuntimeError(f"Expected state_dict_config of type {cls} but got {type(cfg)}")
        if not isinstance(ocfg, ocls):
            raise RuntimeError(f"Expected optim_state_dict_config of type {ocls} but got "
                               f"{type(ocfg)}")
        for u in units:
            u._state_dict_type, u._state_dict_config = state_dict_type, cfg
            u._optim_state_dict_config = ocfg
        return prev

    @staticmethod
    def get_state_dict_type(module):
        units = FullyShardedDataParallel.fsdp_modules(module)
        if not units:
            raise ValueError("No FSDP modules found")
        u = units[0]
        return StateDictSettings(u._state_dict_type, u._state_dict_config,
                                 u._optim_state_dict_config)

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None,
                        optim_state_dict_config=None):
        """Inside, ``state_dict``/``load_state_dict`` of the units in
        ``module`` use ``state_dict_type``."""
        prev = FullyShardedDataParallel.set_state_dict_type(
            module, state_dict_type, state_dict_config, optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, *prev)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 else prefix
        if destination is None:
            destination = OrderedDict()
        kind = self._effective_state_dict_type()
        if kind == StateDictType.LOCAL_STATE_DICT:
            for pre, u in self._units_with_prefix(prefix):
                h = u._handle
                if h is not None:
                    destination[pre + "_flat_param"] = \
                        h.flat_param.detach()[:h.local_numel()].clone()
            for key, m, name, is_param in self._walk(prefix):
                if not is_param:
                    destination[key] = m._buffers[name].detach().clone()
            return destination
        cfg = self._state_dict_config
        rank0_only = kind == StateDictType.FULL_STATE_DICT and getattr(cfg, "rank0_only", False)
        with self.summon_full_params(self, writeback=False):
            items, owners = [], self._owners()
            for key, m, name, is_param in self._walk(prefix):
                t = m._parameters[name] if is_param else m._buffers[name]
                items.append((key, t, is_param, owners.get(id(m))))
            if rank0_only and self.rank != 0:
                return destination
            for key, t, is_param, unit in items:
                t = t.detach().clone()
                if kind == StateDictType.SHARDED_STATE_DICT and is_param and \
                        unit is not None and unit._handle.sharded:
                    whole = tuple(t.shape)
                    t = self._chunk(t, unit).clone()
                    if whole:  # for distributed.checkpoint: which piece this is
                        lo, _ = _shard_spec.dim0_piece(whole, unit.rank, unit.world_size)
                        _shard_spec.tag(t, whole, (lo,) + (0,) * (len(whole) - 1))
                destination[key] = t
        return destination

    def _effective_state_dict_type(self):
        """NO_SHARD has nothing to shard: its state dicts are always whole, as
        in PyTorch."""
        if self.sharding_strategy == ShardingStrategy.NO_SHARD:
            return StateDictType.FULL_STATE_DICT
        return self._state_dict_type

    def _owners(self):
        """{id(module): the unit whose flat parameter holds its parameters}."""
        out = {}
        for u in self.fsdp_modules(self):
            if u._handle is not None:
                for e in u._handle.entries:
                    for m, _ in e.places():
                        out[id(m)] = u
        return out

    def _chunk(self, t, unit):
        """This rank's piece of ``t`` cut along dim 0 as ``torch.chunk`` cuts."""
        if t.dim() == 0:
            return t
        n = t.shape[0]
        step = math.ceil(n / unit.world_size) if n else 0
        lo = min(n, unit.rank * step)
        return t[lo:min(n, lo + step)]

    def load_state_dict(self, state_dict, strict=True, assign=False):
        from ...nn.modules.module import _IncompatibleKeys
        kind = self._effective_state_dict_type()
        missing, unexpected = [], []
        if kind == StateDictType.LOCAL_STATE_DICT:
            expected = set()
            with no_grad():
                for pre, u in self._units_with_prefix():
                    h = u._handle
                    if h is None:
                        continue
                    key = pre + "_flat_param"
                    expected.add(key)
                    if key not in state_dict:
                        missing.append(key)
                        continue
                    src = state_dict[key].reshape(-1)
                    n = h.local_numel()
                    if src.numel() != n:
                        raise RuntimeError(f"size mismatch for {key}: copying a local shard "
                                           f"of {src.numel()} elements into one of {n}")
                    h.flat_param.detach()[:n].copy_(src)
                for key, m, name, is_param in self._walk():
                    if is_param:
                        continue
                    expected.add(key)
                    if key in state_dict:
                        m._buffers[name].copy_(state_dict[key])
                    else:
                        missing.append(key)
        else:
            expected, owners = set(), self._owners()
            with self.summon_full_params(self, writeback=True), no_grad():
                for key, m, name, is_param in self._walk():
                    expected.add(key)
                    t = m._parameters[name] if is_param else m._buffers[name]
                    unit = owners.get(id(m)) if is_param else None
                    if key not in state_dict:
                        missing.append(key)
                        continue
                    src = state_dict[key]
                    if kind == StateDictType.SHARDED_STATE_DICT and unit is not None and \
                            unit._handle.sharded:
                        src = self._unchunk(src, t, unit)
                    if tuple(src.shape) != tuple(t.shape):
                        raise RuntimeError(
                            f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                            f"size mismatch for {key}: copying a param with shape "
                            f"{tuple(src.shape)} from checkpoint, the shape in current model "
                            f"is {tuple(t.shape)}.")
                    t.detach().copy_(src)
        unexpected = [k for k in state_dict if k not in expected]
        if strict and (missing or unexpected):
            msgs = []
            if missing:
                msgs.append("Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
            if unexpected:
                msgs.append("Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(msgs)))
        return _IncompatibleKeys(missing, unexpected)

    def _unchunk(self, piece, like, unit):
        """The whole tensor from every rank's dim-0 piece (one all_reduce)."""
        whole = _C.zeros(tuple(like.shape), dtype=like.dtype)
        if like.dim() == 0:
            return piece
        mine = self._chunk(whole, unit)
        if tuple(mine.shape) != tuple(piece.shape):
            raise RuntimeError(f"sharded state dict piece of shape {tuple(piece.shape)} does "
                               f"not match this rank's piece {tuple(mine.shape)}")
        mine.copy_(piece)
        dist.all_reduce(whole, group=unit.process_group)
        return whole

    # ---- gradients -------------------------------------------------------------------
    @no_grad()
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Scale every gradient so that the norm of all of them (across the
        shards of every rank) is at most ``max_norm``; returns that norm."""
        if not self._is_root:
            raise RuntimeError("`clip_grad_norm_()` should only be called on the root FSDP "
                               "instance")
        max_norm, p_ = float(max_norm), float(norm_type)
        sharded = set()
        for h in self._handles():
            if h.sharded:
                sharded.add(id(h.flat_param))
                sharded.update(id(e.orig) for e in h.entries if e.orig is not None)
        grads = [(p.grad, id(p) in sharded) for p in self.parameters() if p.grad is not None]
        dtype = grads[0][0].dtype if grads else _C.float32
        if math.isinf(p_):
            part = [float(g.abs().max()) if g.numel() else 0.0 for g, s in grads if s]
            rest = [float(g.abs().max()) if g.numel() else 0.0 for g, s in grads if not s]
            t = _C.tensor([max(part, default=0.0)], dtype=_C.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.process_group)
            total = max([float(t[0])] + rest)
        else:
            part = sum(float((g.abs() ** p_).sum()) for g, s in grads if s)
            rest = sum(float((g.abs() ** p_).sum()) for g, s in grads if not s)
            t = _C.tensor([part], dtype=_C.float64)
            dist.all_reduce(t, group=self.process_group)
            total = (float(t[0]) + rest) ** (1.0 / p_)
        coef = max_norm / (total + 1e-6)
        if coef < 1.0:
            for g, _ in grads:
                g.mul_(coef)
        return _C.tensor(total, dtype=dtype)

    # ---- optimizer state ---------------------------------------------------------------
    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state keyed by the original parameters' names, each
        state tensor whole (gathered from the shards): {"state": {name:
        {key: tensor}}, "param_groups": [{..., "params": [names]}]}."""
        from . import _optim_state
        return _optim_state.full_optim_state_dict(model, optim, optim_state_dict)

    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """The older spelling: optim_state_dict, by default on rank 0 only
        (``{}`` elsewhere)."""
        from . import _optim_state
        osd = _optim_state.full_optim_state_dict(model, optim, None)
        return osd if not rank0_only or model.rank == 0 else {}

    @staticmethod
    def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None,
                                    optim=None):
        """The older spelling of optim_state_dict_to_load (``optim`` gives the
        parameter order; without it, ``model.parameters()``'s)."""
        from . import _optim_state
        return _optim_state.to_load(model, optim, full_optim_state_dict)

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False,
                                 load_directly=False, group=None):
        """The inverse of optim_state_dict: a state dict ``optim.load_state_dict``
        takes, holding this rank's shards."""
        from . import _optim_state
        sd = _optim_state.to_load(model, optim, optim_state_dict)
        if load_directly:
            optim.load_state_dict(sd)
        return sd

    def extra_repr(self):
        return ""
