"""input_reshard: keep a tensor-parallel module's saved inputs sharded
between its forward and backward, as
torch.distributed.tensor.parallel.input_reshard.

Under tensor parallelism a block's input is the same on every rank of the
TP mesh, so each rank need keep only its piece of it for the backward:
while the module's forward runs, saved-tensor hooks cut every tensor the
autograd graph saves (a replicated DTensor, or a plain tensor of at least
``mesh.size()`` elements) along ``input_reshard_dim``, and the backward
all-gathers it back when it needs it.  As in PyTorch, this is right only
when every plain tensor saved inside the module is replicated across the
TP ranks: wrap an activation-checkpointed block (``checkpoint(...,
use_reentrant=True)`` saves just the block's inputs), not a module whose
sharded activations autograd keeps."""
from functools import partial

from ....autograd.graph import saved_tensors_hooks
from ....autograd.grad_mode import no_grad
from .. import _redistribute as R
from .._api import DTensor
from ..placement_types import Replicate, Shard

__all__ = ["input_reshard"]


def input_reshard(module, tp_device_mesh, input_reshard_dim=None):
    """Register hooks on ``module`` so that the tensors its forward saves
    for the backward are kept as this rank's piece along
    ``input_reshard_dim`` of the 1-D ``tp_device_mesh`` and gathered back
    in the backward (None: do nothing).  Returns ``module``."""
    if input_reshard_dim is None:
        return module
    if tp_device_mesh.ndim != 1:
        raise ValueError(f"input_reshard needs the 1-D tensor-parallel mesh, got a mesh of "
                         f"{tp_device_mesh.ndim} dimensions (pass mesh[\"tp\"])")
    open_hooks = []

    def enter(mod, inputs):
        hooks = saved_tensors_hooks(partial(_pack, tp_device_mesh, input_reshard_dim),
                                    partial(_unpack, tp_device_mesh))
        hooks.__enter__()
        open_hooks.append(hooks)

    def leave(mod, inputs, outputs):
        open_hooks.pop().__exit__(None, None, None)

    module.register_forward_pre_hook(enter)
    module.register_forward_hook(leave)
    return module


class _Piece:
    """This rank's piece of a replicated plain tensor of ``shape``, cut
    along ``dim``."""

    __slots__ = ("local", "dim", "shape")

    def __init__(self, local, dim, shape):
        self.local, self.dim, self.shape = local, dim, shape


def _pack(mesh, dim, x):
    if isinstance(x, DTensor):
        if all(p.is_replicate() for p in x.placements) and -x.ndim <= dim < x.ndim:
            with no_grad():
                return x.redistribute(mesh, [Shard(dim)])
        return x
    if x.numel() < mesh.size() or not -x.ndim <= dim < x.ndim:
        return x
    d = dim % x.ndim
    shape = tuple(x.shape)
    with no_grad():
        local = R.transform(x.detach(), mesh, (Replicate(),), (Shard(d),), shape)
    return _Piece(local, d, shape)


def _unpack(mesh, x):
    if isinstance(x, DTensor):
        if len(x.placements) == 1 and x.placements[0].is_shard():
            with no_grad():
                return x.redistribute(mesh, [Replicate()])
        return x
    if isinstance(x, _Piece):
        with no_grad():
            return R.transform(x.local, mesh, (Shard(x.dim),), (Replicate(),), x.shape)
    return x
