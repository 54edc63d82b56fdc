"""fully_shard (PyTorch's FSDP2 API): each parameter sharded along dim 0.

``fully_shard(module)`` replaces every parameter the module owns (not
those of submodules sharded before it) by a Parameter holding this rank's
``chunk(world, dim=0)`` piece, and changes the module's class to
``FSDP<Class>`` (a subclass of FSDPModule and the original class).  Its
forward all-gathers the pieces, points the module's attributes at the
whole parameters, runs, and drops them (``reshard_after_forward=True``
frees the gathered buffer as FULL_SHARD does, see _flat_param.py).
Backward reduce-scatters each whole gradient into the pieces' ``.grad``,
divided by the world size.  The world is the default group, or the group
of a 1-D DeviceMesh; with a 2-D mesh (HSDP) the pieces are cut along the
mesh's dim 1 and replicated along dim 0, and backward all-reduces the
reduce-scattered piece over dim 0's group before dividing by both sizes.

PyTorch's parameters here are DTensors (global shape, ``to_local()`` the
piece); torchlike has no DTensor, so the registered parameters are the
plain local pieces: ``p.shape`` is the local shape and ``state_dict()``
holds the local pieces under the original keys.

Layout of one gather, ``rows_i = ceil(dim0_i / world)``, each piece padded
with zero rows to ``rows_i``:

    send (S,) = [piece_0 padded | piece_1 padded | ...]        S = sum rows_i * rowsize_i
    gathered (world, S) --> param_i = gathered[:, off_i:off_i + rows_i * rowsize_i]
                                      .reshape(world * rows_i, rowsize_i)[:dim0_i]
"""
import math
from dataclasses import dataclass
from typing import Optional

from ... import _C
from ... import distributed as dist
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from .. import _shard_spec
from ..device_mesh import DeviceMesh
from . import _flat_param as fp

__all__ = ["fully_shard", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy",
           "CPUOffloadPolicy", "UnshardHandle", "register_fsdp_forward_method"]


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    param_dtype: Optional[object] = None
    reduce_dtype: Optional[object] = None
    output_dtype: Optional[object] = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """No offloading."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Accepted; the pieces already live in host memory."""
    pin_memory: bool = True


class UnshardHandle:
    """What ``unshard(async_op=True)`` returns: the gather is already done."""

    def wait(self):
        return None


class _Param:
    """One sharded parameter: where it lives, its whole shape, its piece."""

    def __init__(self, module, name, param, world, rank, send_off, full_off):
        self.module, self.name, self.aliases = module, name, []
        self.shape = tuple(param.shape)
        self.numel = param.numel()
        self.dim0 = self.shape[0]
        self.rowsize = self.numel // self.dim0 if self.dim0 else 0
        self.rows = math.ceil(self.dim0 / world)
        lo = min(self.dim0, rank * self.rows)
        self.local_rows = min(self.dim0, lo + self.rows) - lo
        self.send_off, self.full_off = send_off, full_off
        with no_grad():
            piece = param.detach()[lo:lo + self.local_rows].clone()
        self.local = Parameter(piece, requires_grad=param.requires_grad)

    def places(self):
        return [(self.module, self.name)] + self.aliases


class _State:
    """The sharded parameters of one fully_shard module."""

    def __init__(self, module, pg, reshard_after_forward, mp_policy, replicate=None):
        self.module, self.pg, self.replicate = module, pg, replicate
        self.world, self.rank = pg.size(), pg.rank()
        # gradients are averaged over every data-parallel rank: the shard
        # group times, for HSDP, the replicate group
        self.divide = self.world * (replicate.size() if replicate is not None else 1)
        self.reshard_after_forward = reshard_after_forward
        self.mp = mp_policy
        self.sync = True
        self.full = None
        self.views_set = False
        self.unsharded_grad = None
        self.params, seen = [], {}
        send, full = 0, 0
        for m, name, p in self._owned():
            if id(p) in seen:
                seen[id(p)].aliases.append((m, name))
                continue
            if p.dim() == 0:
                raise NotImplementedError(f"fully_shard: the 0-d parameter '{name}' cannot be "
                                          "sharded along dim 0")
            sp = _Param(m, name, p, self.world, self.rank, send, full)
            seen[id(p)] = sp
            self.params.append(sp)
            send += sp.rows * sp.rowsize
            full += sp.numel
        self.send_numel, self.full_numel = send, full
        dtypes = {sp.local.dtype for sp in self.params}
        self.dtype = dtypes.pop() if len(dtypes) == 1 else None
        for sp in self.params:
            for m, name in sp.places():
                m._parameters[name] = sp.local

    def _owned(self):
        stack = [self.module]
        while stack:
            m = stack.pop()
            for name, p in m._parameters.items():
                if p is not None:
                    yield m, name, p
            for child in reversed(list(m._modules.values())):
                if child is not None and not isinstance(child, FSDPModule):
                    stack.append(child)

    def param_dtype(self):
        if self.mp.param_dtype is not None:
            return self.mp.param_dtype
        if self.dtype is None:
            raise NotImplementedError("fully_shard: the parameters of one module must share a "
                                      "dtype here (or give MixedPrecisionPolicy.param_dtype)")
        return self.dtype

    # ---- gather ----------------------------------------------------------------------
    def gather(self, dtype=None):
        """The whole parameters, concatenated flat, in ``dtype``."""
        dtype = dtype or self.param_dtype()
        with no_grad():
            send = _C.zeros(self.send_numel, dtype=dtype)
            for sp in self.params:
                n = sp.local_rows * sp.rowsize
                if n:
                    send[sp.send_off:sp.send_off + n] = sp.local.detach().reshape(-1).to(dtype)
            gathered = _C.empty(self.world * self.send_numel, dtype=dtype)
            dist.all_gather_into_tensor(gathered, send, group=self.pg)
            gathered = gathered.view(self.world, self.send_numel)
            parts = []
            for sp in self.params:
                block = gathered[:, sp.send_off:sp.send_off + sp.rows * sp.rowsize]
                parts.append(block.reshape(self.world * sp.rows, sp.rowsize)[:sp.dim0]
                             .reshape(-1))
            return _C.cat(parts) if parts else _C.zeros(0, dtype=dtype)

    token_for = fp.FlatParamHandle.token_for

    def full_for_backward(self):
        if self.full is None:
            self.full = self.gather()
        return self.full

    def before_backward(self):
        """Backward reached the module's outputs: the attributes become the
        whole parameters again (see FlatParamHandle.before_backward)."""
        if not self.views_set:
            # NOTE: a leaf that requires grad, so that recomputed ops save
            # what the first forward saved; its own gradients are never used
            self.set_views(self.full_for_backward().detach().requires_grad_(True))

    def set_views(self, full):
        self.views_set = True
        for sp in self.params:
            v = full.narrow(0, sp.full_off, sp.numel).view(sp.shape)
            for m, name in sp.places():
                m.__dict__[name] = v

    def clear_views(self):
        self.views_set = False
        for sp in self.params:
            for m, name in sp.places():
                m.__dict__.pop(name, None)

    # ---- backward ----------------------------------------------------------------------
    def reduce(self, grad):
        """The pieces' gradients: each whole gradient reduce-scattered along
        dim 0 and divided by the world size."""
        if self.views_set:
            self.clear_views()
        self.full = None
        with no_grad():
            if not self.sync:
                g = grad.detach().clone()
                self.unsharded_grad = g if self.unsharded_grad is None else \
                    self.unsharded_grad.add_(g.to(self.unsharded_grad.dtype))
                return [None] * len(self.params)
            g = grad.detach()
            if self.unsharded_grad is not None:
                g = g + self.unsharded_grad.to(g.dtype)
                self.unsharded_grad = None
            rdtype = self.mp.reduce_dtype or g.dtype
            g = g.to(rdtype)
            blocks = []
            for sp in self.params:
                whole = _C.zeros(self.world * sp.rows * sp.rowsize, dtype=rdtype)
                whole[:sp.numel] = g[sp.full_off:sp.full_off + sp.numel]
                blocks.append(whole.view(self.world, sp.rows * sp.rowsize))
            send = _C.cat(blocks, 1).contiguous().reshape(-1)
            out = _C.empty(self.send_numel, dtype=rdtype)
            dist.reduce_scatter_tensor(out, send, group=self.pg)
            if self.replicate is not None:  # HSDP: sum the shard over the replicas
                dist.all_reduce(out, group=self.replicate)
            out.div_(self.divide)
            grads = []
            for sp in self.params:
                n = sp.local_rows * sp.rowsize
                piece = out[sp.send_off:sp.send_off + n].reshape(tuple(sp.local.shape))
                grads.append(piece.to(sp.local.dtype).clone() if sp.local.requires_grad
                             else None)
            return grads


class _AllGather(Function):
    """pieces -> the whole parameters (flat); backward reduce-scatters."""

    @staticmethod
    def forward(ctx, state, *pieces):
        ctx.state = state
        return state.gather()

    @staticmethod
    def backward(ctx, grad):
        return (None, *ctx.state.reduce(grad))


class FSDPModule:
    """The methods fully_shard adds to a module (its class becomes
    ``FSDP<Class>``, a subclass of this and the original class)."""

    def forward(self, *args, **kwargs):
        return self._fsdp_run(super().forward, args, kwargs)

    def _fsdp_run(self, run, args, kwargs):
        """``run(*args, **kwargs)`` with the whole parameters (see the module doc)."""
        state = self._fsdp_state
        mp = state.mp
        if mp.param_dtype is not None and mp.cast_forward_inputs:
            args, kwargs = fp.cast_floating((args, kwargs), mp.param_dtype)
        if not state.params:
            out = run(*args, **kwargs)
            return fp.cast_floating(out, mp.output_dtype) if mp.output_dtype is not None else out
        recorded = is_grad_enabled() and any(sp.local.requires_grad for sp in state.params)
        if recorded:
            full = _AllGather.apply(state, *[sp.local for sp in state.params])
        else:
            full = state.gather()
        state.full = full
        state.set_views(full)
        frees = recorded and state.reshard_after_forward
        try:
            out = fp.run_unit(state, frees, run, *args, **kwargs)
        finally:
            state.clear_views()
            if frees or not recorded:
                state.full = None
        if recorded:
            fp.hook_outputs(out, state)
        return fp.cast_floating(out, mp.output_dtype) if mp.output_dtype is not None else out

    def _fsdp_states(self, recurse):
        mods = self.modules() if recurse else [self]
        return [m._fsdp_state for m in mods if isinstance(m, FSDPModule)]

    def unshard(self, async_op=False):
        """Gather the whole parameters now: until ``reshard()`` the module's
        attributes are the whole parameters (the registered parameters stay
        the local pieces)."""
        state = self._fsdp_state
        if state.params:
            state.full = state.gather()
            state.set_views(state.full)
        return UnshardHandle() if async_op else None

    def reshard(self):
        state = self._fsdp_state
        state.clear_views()
        state.full = None

    def set_requires_gradient_sync(self, requires_gradient_sync, *, recurse=True):
        """False: backward passes accumulate whole gradients locally; the
        next one with True reduces their sum (no_sync of FSDP1)."""
        for s in self._fsdp_states(recurse):
            s.sync = bool(requires_gradient_sync)

    def set_reshard_after_forward(self, reshard_after_forward, recurse=True):
        for s in self._fsdp_states(recurse):
            s.reshard_after_forward = bool(reshard_after_forward)

    def set_reshard_after_backward(self, reshard_after_backward, *, recurse=True):
        """Accepted: the gathered parameters are always freed after backward."""

    def set_is_last_backward(self, is_last_backward):
        """Accepted: each backward reduces as it goes."""

    def set_modules_to_forward_prefetch(self, modules):
        """Accepted: gathers happen when a module runs."""

    def set_modules_to_backward_prefetch(self, modules):
        """Accepted: gathers happen when backward needs them."""


_CLASSES = {}


def _record_pieces(module, state_dict, prefix, local_metadata):
    """State-dict hook: note which piece of its whole parameter each local
    piece is (_shard_spec), so that distributed.checkpoint saves and loads
    it as a chunk of the global tensor."""
    state = module._fsdp_state
    names = {id(m): (n + "." if n else "") for n, m in module.named_modules()}
    for sp in state.params:
        lo = min(sp.dim0, state.rank * sp.rows)
        for m, name in sp.places():
            key = prefix + names.get(id(m), "") + name
            t = state_dict.get(key)
            if t is not None and tuple(t.shape) == (sp.local_rows,) + sp.shape[1:]:
                _shard_spec.tag(t, sp.shape, (lo,) + (0,) * (len(sp.shape) - 1))


def register_fsdp_forward_method(module, method_name):
    """Make ``module.<method_name>`` (``generate``, say) gather and free the
    parameters as ``forward`` does.  Nothing for a module not sharded, or
    for ``forward`` itself."""
    if not isinstance(module, FSDPModule) or method_name == "forward":
        return
    method = getattr(module, method_name)

    def run(*args, **kwargs):
        return module._fsdp_run(method, args, kwargs)
    run.__name__ = method_name
    object.__setattr__(module, method_name, run)


def fully_shard(module, *, mesh=None, reshard_after_forward=True, shard_placement_fn=None,
                mp_policy=MixedPrecisionPolicy(), offload_policy=OffloadPolicy(),
                ignored_params=None):
    """Shard ``module``'s parameters along dim 0 over the default group, a
    1-D DeviceMesh's group, or (HSDP) along dim 1 of a 2-D DeviceMesh and
    replicated along its dim 0; returns ``module``, now an FSDPModule.  Call
    it on the inner modules first, then on the root."""
    if isinstance(module, (list, tuple)):
        raise NotImplementedError("fully_shard of a list of modules is not supported here")
    if not isinstance(module, Module):
        raise ValueError(f"fully_shard does not support containers that do not implement "
                         f"forward: {module}")
    if shard_placement_fn is not None or ignored_params:
        raise NotImplementedError("fully_shard: shard_placement_fn and ignored_params are "
                                  "not supported")
    replicate = None
    if mesh is None:
        if not dist.is_initialized():  # as PyTorch: join the env:// world
            dist.init_process_group()
        pg = dist.distributed_c10d.resolve(None)
    elif isinstance(mesh, DeviceMesh):
        if mesh.ndim not in (1, 2):
            raise ValueError(f"fully_shard expects a 1D or 2D DeviceMesh but got {mesh}")
        if mesh.ndim == 2 and mesh.mesh_dim_names is None:
            raise AssertionError("Please init the 2D mesh for HSDP with mesh_dim_names "
                                 "specified")
        if mesh.ndim == 1:
            pg = mesh.get_group()
        else:  # HSDP: replicated along dim 0, sharded along dim 1
            replicate, pg = mesh.get_group(0), mesh.get_group(1)
    elif hasattr(mesh, "get_group"):
        pg = mesh.get_group()
    else:
        raise ValueError(f"fully_shard expects a DeviceMesh-like mesh, got {type(mesh)}")
    if isinstance(reshard_after_forward, int) and not isinstance(reshard_after_forward, bool):
        raise NotImplementedError("fully_shard: resharding to a smaller world is not "
                                  "supported")
    if isinstance(module, FSDPModule):
        return module
    module._fsdp_state = _State(module, pg, reshard_after_forward, mp_policy, replicate)
    module.register_state_dict_post_hook(_record_pieces)
    cls = type(module)
    new = _CLASSES.get(cls)
    if new is None:
        new = _CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
    module.__class__ = new
    return module
