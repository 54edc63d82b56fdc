"""DTensor: a tensor spread over a DeviceMesh, as torch.distributed.tensor.

torchlike has no ``__torch_dispatch__``, so a DTensor *is* its local tensor
(a Tensor subclass sharing the local tensor's storage and autograd history,
as MaskedTensor does) with a spec beside it: the mesh, one placement per
mesh dimension and the global shape and stride.  Every call on it reaches
``DTensor.__torch_function__``, which reports the global metadata and runs
ops through the propagation rules of ``_ops.py`` on the local tensors.

Autograd records the ranks' local computations; ``_redistribute.py`` says
in which layout gradients travel and where they are converted."""
from ... import _C
from ..._C import DisableTorchFunctionSubclass
from ...autograd.grad_mode import no_grad
from ..device_mesh import _MESH_STACK
from . import _redistribute as R
from .placement_types import Partial, Placement, Replicate, Shard

Tensor = _C.Tensor

__all__ = ["DTensor", "distribute_tensor", "distribute_module"]


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


class Spec:
    """What a DTensor is beside its local tensor."""

    __slots__ = ("mesh", "placements", "shape", "stride")

    def __init__(self, mesh, placements, shape, stride=None):
        self.mesh = mesh
        self.placements = tuple(placements)
        self.shape = tuple(int(s) for s in shape)
        self.stride = tuple(stride) if stride is not None else _contiguous_strides(self.shape)


def current_mesh(mesh):
    """``mesh``, or the mesh of the innermost ``with mesh:``."""
    if mesh is not None:
        return mesh
    if _MESH_STACK:
        return _MESH_STACK[-1]
    raise RuntimeError("No device mesh is currently active!")


def check_placements(placements, mesh, ndim, what="placements"):
    """``placements`` as a tuple of Placements for a tensor of ``ndim``
    dimensions on ``mesh`` (Replicate where None), negative Shard dims made
    positive; errors name what is wrong."""
    if placements is None:
        return tuple(Replicate() for _ in range(mesh.ndim))
    placements = tuple(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`{what}` must have the same length as `device_mesh.ndim`! Found "
                         f"{what} length: {len(placements)}, and device_mesh.ndim: "
                         f"{mesh.ndim}.")
    out, partial_ops = [], set()
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"placements must be Placement objects (Shard, Replicate, "
                            f"Partial), got {type(p).__name__}")
        if isinstance(p, Shard):
            d = p.dim + ndim if p.dim < 0 else p.dim
            if not 0 <= d < ndim:
                raise IndexError(f"Shard(dim={p.dim}) is out of range for a tensor of "
                                 f"{ndim} dimensions (expected a dim in [{-ndim}, "
                                 f"{ndim - 1}])")
            p = Shard(d)
        if isinstance(p, Partial):
            partial_ops.add(p.reduce_op)
        out.append(p)
    if len(partial_ops) > 1:
        raise ValueError(f"Cannot mix Partial reduce types in placements: "
                         f"{sorted(partial_ops)}")
    return tuple(out)


def plain(t):
    """A DTensor's local tensor as a plain Tensor on the tape."""
    if type(t) is Tensor or not isinstance(t, Tensor):
        return t
    with DisableTorchFunctionSubclass():
        return Tensor.as_subclass(t, Tensor)


def local_for_op(dt):
    """A DTensor's local tensor for an op: a leaf's (a parameter's)
    gradient leaves in PyTorch's layout (a replicated leaf's partial
    gradients are all-reduced)."""
    with DisableTorchFunctionSubclass():
        leaf = dt.requires_grad and dt.is_leaf
        local = Tensor.as_subclass(dt, Tensor)
    if leaf:
        spec = dt._spec
        local = R.convert_grad(local, spec.mesh, R.adjoint(spec.placements),
                               R.grad_layout(spec.placements), spec.shape)
    return local


def wrap(local, mesh, placements, shape, stride=None):
    """A DTensor over ``local`` (its history kept)."""
    with DisableTorchFunctionSubclass():
        out = Tensor.as_subclass(local, DTensor)
    out._spec = Spec(mesh, placements, shape, stride)
    return out


def _leaf(local, spec, requires_grad):
    out = Tensor._make_subclass(DTensor, local.detach(), requires_grad)
    out._spec = spec
    return out


class DTensor(Tensor):
    """A tensor spread over the ranks of a DeviceMesh: ``placements`` says,
    for each mesh dimension, whether the ranks along it hold pieces of a
    tensor dimension (Shard), the whole value (Replicate) or addends of it
    (Partial).  ``shape`` is the global shape; ``to_local()`` gives this
    rank's piece.  Make one with ``distribute_tensor`` or
    ``DTensor.from_local``."""

    def __new__(cls, local_tensor, spec, *, requires_grad=False):
        if not isinstance(spec, Spec):
            raise TypeError("DTensor(local_tensor, spec): use distribute_tensor or "
                            "DTensor.from_local to make a DTensor")
        return _leaf(plain(local_tensor), spec, requires_grad)

    def __init__(self, *args, **kwargs):
        pass

    # ---- the parts -------------------------------------------------------------------

    @property
    def device_mesh(self):
        return self._spec.mesh

    @property
    def placements(self):
        return self._spec.placements

    @property
    def _local_tensor(self):
        return plain(self)

    def to_local(self, *, grad_placements=None):
        """This rank's piece, a plain tensor on the tape.  Its gradient is
        read as laid out by ``grad_placements`` (default: the placements,
        Partial read as Replicate)."""
        spec = self._spec
        if not _C.is_grad_enabled():
            return plain(self)
        local = local_for_op(self)
        g = R.grad_layout(spec.placements) if grad_placements is None else \
            check_placements(grad_placements, spec.mesh, len(spec.shape), "grad_placements")
        out = R.convert_grad(local, spec.mesh, g, R.adjoint(spec.placements), spec.shape)
        return out.view_as(out) if out is local else out

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False,
                   shape=None, stride=None, grad_placements=None):
        """A DTensor whose piece on this rank is ``local_tensor``.  Without
        ``shape`` the global shape assumes even pieces (local size times the
        mesh size along each sharding mesh dimension).  ``run_check``
        checks that dtypes (and shapes, without ``shape``) agree across the
        ranks, and makes replicated pieces equal to those of the first rank
        of each mesh dimension (a broadcast)."""
        if isinstance(local_tensor, DTensor):
            raise RuntimeError(f"the local_tensor argument only accepts torch.Tensor but "
                               f"got {type(local_tensor)} value.")
        if not isinstance(local_tensor, Tensor):
            raise TypeError(f"from_local: local_tensor must be a Tensor, got "
                            f"{type(local_tensor).__name__}")
        mesh = current_mesh(device_mesh)
        placements = check_placements(placements, mesh, local_tensor.ndim)
        if (shape is None) != (stride is None):
            raise RuntimeError(f"Found shape:{shape}, stride:{stride}. Please pass both shape "
                               f"and stride at the same time.")
        if shape is None:
            gshape = list(local_tensor.shape)
            for k, p in enumerate(placements):
                if isinstance(p, Shard):
                    gshape[p.dim] *= mesh.size(k)
            shape = tuple(gshape)
        local = plain(local_tensor)
        if run_check:
            _check_meta(local, mesh, check_shape=stride is None)
        out = R.convert_grad(local, mesh, R.adjoint(placements),
                             R.grad_layout(placements) if grad_placements is None else
                             check_placements(grad_placements, mesh, len(shape),
                                              "grad_placements"), shape)
        if run_check:
            for k, p in enumerate(placements):
                if p.is_replicate():
                    out = _broadcast_on(out, mesh, k)
        if out is local:
            out = local.view_as(local)
        return wrap(out, mesh, placements, shape, stride)

    def full_tensor(self, *, grad_placements=None):
        """The whole value on every rank, a plain tensor (gathered)."""
        rep = tuple(Replicate() for _ in self.placements)
        return self.redistribute(self.device_mesh, rep).to_local(grad_placements=grad_placements)

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False,
                     forward_dtype=None, backward_dtype=None):
        """The same global value laid out by ``placements`` (collectives on
        the mesh dimensions that change).  Differentiable: the gradient
        moves back the other way."""
        spec = self._spec
        mesh = spec.mesh if device_mesh is None else device_mesh
        if mesh != spec.mesh:
            raise NotImplementedError(f"Cross device mesh comm not supported yet! "
                                      f"{spec.mesh} vs {mesh}")
        if placements is None:
            raise RuntimeError("placements is needed for redistribute!")
        placements = check_placements(placements, mesh, len(spec.shape))
        for p, q in zip(spec.placements, placements):
            if q.is_partial() and p != q and not (isinstance(p, Shard) and
                                                  q.reduce_op == "sum"):
                raise RuntimeError(f"Can not redistribute from {p} to {q}, only Shard to "
                                   f"Partial(sum) redistribution is supported!")
        local = local_for_op(self)
        if forward_dtype is not None:
            local = local.to(forward_dtype)
        out = R.redistribute_local(local, mesh, spec.placements, placements, spec.shape)
        if out is local:
            out = local.view_as(local)
        return wrap(out, mesh, placements, spec.shape, spec.stride)

    # ---- Python protocol -------------------------------------------------------------

    def __repr__(self, *, tensor_contents=None):
        return (f"DTensor(local_tensor={Tensor.__repr__(plain(self))}, device_mesh="
                f"{self._spec.mesh}, placements={self._spec.placements})")

    __str__ = __repr__

    def __format__(self, format_spec):
        # as Tensor.__format__: a 0-d tensor formats its value (gathered when
        # it is not replicated), others their repr (this rank's piece: no
        # communication, so one rank may print alone)
        if len(self._spec.shape) == 0:
            return format(self.full_tensor().item(), format_spec)
        return object.__format__(self, format_spec)

    _tl_refuse_buffer = True
    _tl_param_keeps_type = True  # nn.Parameter(dtensor) is the DTensor, marked _is_param

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(".numpy() is not supported for DTensor: call full_tensor() or "
                           "to_local() first")

    def numpy(self, *, force=False):
        raise RuntimeError(".numpy() is not supported for DTensor: call full_tensor() or "
                           "to_local() first")

    def __reduce_ex__(self, protocol):
        # its mesh holds process groups, which do not pickle
        raise TypeError("a DTensor cannot be pickled (its device mesh holds process groups): "
                        "save it with torchlike.distributed.checkpoint, or pickle "
                        "full_tensor() / to_local()")

    def _tl_dcp_piece(self, for_load):
        """For distributed checkpoints: this rank's piece, a plain tensor
        sharing the local storage, recorded as the chunk of the global
        tensor it is (replicated pieces are written once).  A Partial
        DTensor is summed first when saving; it cannot be loaded into."""
        from .._shard_spec import tag
        spec = self._spec
        dt = self
        if any(p.is_partial() for p in spec.placements):
            if for_load:
                raise ValueError(f"cannot load a checkpoint into a DTensor with placements "
                                 f"{spec.placements}: Partial values have no piece to "
                                 f"hold; redistribute it first")
            with no_grad():
                dt = self.redistribute(placements=R.grad_layout(spec.placements))
        local = plain(dt).detach()
        _, offsets = R.local_shape_and_offset(spec.shape, spec.mesh, dt._spec.placements)
        return tag(local, spec.shape, offsets)

    def __deepcopy__(self, memo):
        spec = self._spec
        out = _leaf(plain(self).detach().clone(), Spec(spec.mesh, spec.placements, spec.shape,
                                                      spec.stride),
                    self.requires_grad and self.is_leaf)
        if getattr(self, "_is_param", False):
            out._is_param = True
        memo[id(self)] = out
        return out

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return _ops.dispatch(func, args, kwargs or {})


# ---- run_check ---------------------------------------------------------------------------

def _check_meta(local, mesh, check_shape):
    from ..object_collectives import all_gather_object
    from ..distributed_c10d import get_world_size
    meta = {"dtype": str(local.dtype), "requires_grad": bool(local.requires_grad)}
    if check_shape:
        meta["shape"] = list(local.shape)
        meta["stride"] = list(local.stride())
    got = [None] * get_world_size()
    all_gather_object(got, meta)
    if not all(m == meta for m in got):
        raise ValueError("Inconsistent tensor metadata (including shape and stride) across "
                         "ranks.")


def _broadcast_on(local, mesh, k, src=0):
    """``local`` as held by the rank of coordinate ``src`` along mesh
    dimension k."""
    from .. import collectives as C
    from ..nn import functional as dfn
    root = _line_ranks(mesh, k)[src]
    R.note("c10d.broadcast_")
    if local.requires_grad and _C.is_grad_enabled():
        return dfn.broadcast(local.contiguous(), root, group=mesh.get_group(k))
    out = local.detach().contiguous().clone()
    C.broadcast(out, root, group=mesh.get_group(k))
    return out


def _line_ranks(mesh, k):
    """The global ranks along mesh dimension k through this rank."""
    arr = mesh.mesh
    coord = mesh.get_coordinate()
    idx = [c for c in coord]
    line = []
    for j in range(mesh.size(k)):
        idx[k] = j
        line.append(int(arr[tuple(idx)]))
    return line


# ---- distribute_tensor / distribute_module -------------------------------------------------

def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """A leaf DTensor laid out by ``placements`` from ``tensor``, the whole
    value.  With ``src_data_rank`` (default 0) the values of the rank of
    that coordinate along each mesh dimension are used (broadcast from
    it); with None every rank's own tensor is cut locally (no
    communication)."""
    mesh = current_mesh(device_mesh)
    if isinstance(tensor, DTensor):
        if tensor.device_mesh != mesh:
            raise ValueError(f"Cannot distribute a DTensor with device mesh "
                             f"{tensor.device_mesh} to a different device mesh {mesh}.")
        if tuple(tensor.placements) != check_placements(placements, mesh, tensor.ndim):
            raise ValueError(f"Cannot distribute a DTensor with placements "
                             f"{tensor.placements} to a different placements {placements}. "
                             f"do you want to call `redistribute` instead?")
        return tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"distribute_tensor: tensor must be a Tensor, got "
                        f"{type(tensor).__name__}")
    placements = check_placements(placements, mesh, tensor.ndim)
    requires_grad = tensor.requires_grad
    with no_grad():
        full = plain(tensor).detach()
        if src_data_rank is not None:
            full = full.contiguous().clone()
            for k in range(mesh.ndim):
                if mesh.size(k) > 1:
                    if not 0 <= src_data_rank < mesh.size(k):
                        raise ValueError(f"src_data_rank={src_data_rank} is not a rank of "
                                         f"mesh dimension {k} (size {mesh.size(k)})")
                    full = _broadcast_on(full, mesh, k, src_data_rank)
        rep = tuple(Replicate() for _ in placements)
        local = R.transform(full, mesh, rep, placements, tuple(full.shape))
        if local is full:
            local = full if src_data_rank is not None else full.clone()
        local = local.contiguous()
    return _leaf(local, Spec(mesh, placements, tuple(tensor.shape)), requires_grad)


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None,
                      output_fn=None):
    """Turn ``module``'s parameters and buffers into DTensors:
    ``partition_fn(name, submodule, mesh)`` for each submodule (default:
    every parameter and buffer replicated), and ``input_fn(module, inputs,
    mesh)`` / ``output_fn(module, outputs, mesh)`` as forward pre- and
    post-hooks.  Returns the module."""
    from ...nn import Parameter
    mesh = current_mesh(device_mesh)
    if getattr(module, "_distribute_module_applied", False):
        raise RuntimeError("distribute_module should only be called once on a module, but it "
                           "has already been called on this module!")

    def replicate(mod):
        rep = [Replicate()] * mesh.ndim
        for key, p in list(mod._parameters.items()):
            if p is not None and not isinstance(p, DTensor):
                mod.register_parameter(key, Parameter(distribute_tensor(p.data, mesh, rep),
                                                      p.requires_grad))
        for key, b in list(mod._buffers.items()):
            if b is not None and not isinstance(b, DTensor):
                mod._buffers[key] = distribute_tensor(b, mesh, rep)

    for name, sub in module.named_modules():
        if partition_fn is not None:
            partition_fn(name, sub, mesh)
        replicate(sub)
    if input_fn is not None:
        module.register_forward_pre_hook(lambda mod, inputs: input_fn(mod, inputs, mesh))
    if output_fn is not None:
        module.register_forward_hook(
            lambda mod, inputs, outputs: output_fn(mod, outputs, mesh))
    module._distribute_module_applied = True
    return module


from . import _ops  # noqa: E402  (the rules need DTensor)
