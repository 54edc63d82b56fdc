"""torchlike.distributed.tensor: DTensor, a tensor spread over a DeviceMesh,
as torch.distributed.tensor (docs/distributed.md, "DTensor").

``distribute_tensor``, ``DTensor.from_local``, ``to_local``,
``full_tensor``, ``redistribute``; the placements ``Shard``, ``Replicate``,
``Partial``; ``distribute_module``; and the factories ``zeros``, ``ones``,
``empty``, ``full``, ``rand``, ``randn``, ``linspace``, ``logspace`` (``device_mesh=``,
``placements=``)."""
from ... import _C
from ..device_mesh import DeviceMesh, init_device_mesh
from . import _redistribute as _R
from ._api import DTensor, check_placements as _check, current_mesh as _current
from ._api import distribute_module, distribute_tensor, Spec as _Spec, _leaf
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "DeviceMesh", "distribute_tensor", "distribute_module",
           "init_device_mesh", "Shard", "Replicate", "Partial", "Placement", "zeros", "ones",
           "empty", "full", "rand", "randn", "linspace", "logspace"]


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, _C.Size)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _factory(make, size, device_mesh, placements, requires_grad, whole=False, **kw):
    mesh = _current(device_mesh)
    shape = _size(size)
    placements = _check(placements, mesh, len(shape))
    if any(p.is_partial() for p in placements):
        raise RuntimeError("DTensor factories take Shard and Replicate placements only")
    if whole:
        # the same generator on every rank makes the same whole tensor: cut
        # this rank's piece of it, so the pieces form one random tensor
        full = make(shape, **kw)
        local = _R.transform(full, mesh, tuple(Replicate() for _ in placements), placements,
                             shape).contiguous()
    else:
        local = make(_R.local_shape_and_offset(shape, mesh, placements)[0], **kw)
    return _leaf(local, _Spec(mesh, placements, shape), requires_grad)


def zeros(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of zeros of global shape ``size``."""
    return _factory(lambda s, **kw: _C.zeros(s, **kw), size, device_mesh, placements,
                    requires_grad, dtype=dtype)


def ones(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None,
         placements=None):
    """A DTensor of ones of global shape ``size``."""
    return _factory(lambda s, **kw: _C.ones(s, **kw), size, device_mesh, placements,
                    requires_grad, dtype=dtype)


def empty(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None,
          placements=None):
    """An uninitialized DTensor of global shape ``size``."""
    return _factory(lambda s, **kw: _C.empty(s, **kw), size, device_mesh, placements,
                    requires_grad, dtype=dtype)


def full(size, fill_value, *, dtype=None, layout=None, requires_grad=False, device_mesh=None,
         placements=None):
    """A DTensor of global shape ``size`` filled with ``fill_value``."""
    return _factory(lambda s, **kw: _C.full(s, fill_value, **kw), (size,), device_mesh,
                    placements, requires_grad, dtype=dtype)


def rand(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
         placements=None):
    """Uniform [0, 1) values of global shape ``size``: the whole tensor is
    drawn on every rank (the same generator state gives the same tensor)
    and each rank keeps its piece."""
    return _factory(lambda s, **kw: _C.rand(s, **kw), size, device_mesh, placements,
                    requires_grad, whole=True, dtype=dtype)


def randn(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """Standard normal values of global shape ``size`` (drawn as ``rand``'s)."""
    return _factory(lambda s, **kw: _C.randn(s, **kw), size, device_mesh, placements,
                    requires_grad, whole=True, dtype=dtype)


def _scalar(v):
    return v.full_tensor().item() if isinstance(v, DTensor) else v


def linspace(start, end, steps, *, dtype=None, layout=None, requires_grad=False,
             device_mesh=None, placements=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` (numbers or
    0-d DTensors), laid out by ``placements``."""
    start, end = _scalar(start), _scalar(end)
    return _factory(lambda s, **kw: _C.linspace(start, end, s[0], **kw), (steps,),
                    device_mesh, placements, requires_grad, whole=True, dtype=dtype)


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, requires_grad=False,
             device_mesh=None, placements=None):
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly
    spaced on a logarithmic scale, laid out by ``placements``."""
    start, end = _scalar(start), _scalar(end)
    return _factory(lambda s, **kw: _C.logspace(start, end, s[0], base, **kw), (steps,),
                    device_mesh, placements, requires_grad, whole=True, dtype=dtype)
