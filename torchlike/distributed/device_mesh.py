"""DeviceMesh: the ranks of the world laid out as an n-d array, with a
process group along each dimension, as torch.distributed.device_mesh.

A root mesh (``DeviceMesh(device_type, ranks)`` or ``init_device_mesh``)
keeps its ranks flat (``_rank_map``) with its shape; every mesh names its
dimensions as tuples of the root's dimensions (``_axes``: one each for the
root and its slices, several for a ``_flatten``-ed one) and prints them as
(size, stride) pairs into the flat ranks (``_layout``, the strides PyTorch
prints in the repr; equality compares them).

Building a root creates, for every dimension, one subgroup per line of
ranks along that dimension: every rank calls ``new_group`` for every line,
in the same order, as PyTorch's does, and keeps the one it is in.  A
dimension that spans the whole world uses the default group itself (as
PyTorch on a machine without CUDA).

Slicing by dimension names (``mesh["dp"]``, ``mesh["dp", "tp"]``) makes a
sub-mesh that shares the root's rank map and groups: its ``mesh`` is the
line (or plane) of ranks that holds this rank.  A rank outside a mesh has
no groups (``get_group`` raises IndexError, as in PyTorch) and a
``get_coordinate()`` of None.  ``mesh["a", "b"]._flatten("ab")`` makes a
1-D mesh over those dimensions with its own groups, which the root then
finds by name (``root["ab"]``, ``root["ab", "c"]``, ``get_group("ab")``)."""
import math
import os
import warnings

import numpy as np

from .. import _C
from . import distributed_c10d as c10d
from .process_group import ProcessGroup

__all__ = ["DeviceMesh", "init_device_mesh"]

_MESH_STACK = []


def _ranks_array(mesh):
    """``mesh`` (a tensor, an array or nested lists) as a C-contiguous int64 array."""
    if isinstance(mesh, _C.Tensor):
        mesh = mesh.detach().cpu().numpy()
    arr = np.array(mesh, dtype=np.int64, order="C")  # (ascontiguousarray makes 0-d 1-d)
    if arr.ndim == 0:
        raise ValueError("DeviceMesh expects a mesh of at least one dimension, got a 0-d "
                         "one")
    return arr


def _row_major_strides(shape):
    # torch's contiguous strides: a size-1 dimension still gets the product
    # of the sizes after it
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


class DeviceMesh:
    """A layout of global ranks with a process group along each dimension.

    ``DeviceMesh(device_type, mesh, *, mesh_dim_names=None)``: ``mesh`` is
    an n-d tensor or nested lists of global ranks of the default group
    (which is initialized from the environment, ``env://``, if it is not
    yet).  Every rank must build the same meshes in the same order."""

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None,
                 _root=None, _axes=None, _groups=None):
        self._device_type = device_type
        self._mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names else None
        self._hash = None
        self._flat = {}  # a root's meshes made by _flatten, by name
        if _root is not None:  # a slice or a flattening of ``_root``
            # each axis is a tuple of the root's dimensions (several when flattened)
            self._root, self._axes, self._groups = _root, tuple(_axes), list(_groups)
            self._rank_map, self._rank = _root._rank_map, _root._rank
            self._layout = tuple(_root._axis_layout(a) for a in self._axes)
            self._coordinate = self._find_coordinate()
            return
        if backend_override is not None:
            raise NotImplementedError("DeviceMesh: backend_override is not supported (every "
                                      "group uses the default group's backend)")
        arr = _ranks_array(mesh)
        if self._mesh_dim_names is not None and len(self._mesh_dim_names) != arr.ndim:
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(self._mesh_dim_names)} and "
                               f"len(mesh_shape):{arr.ndim}.")
        self._root = None
        self._axes = tuple((d,) for d in range(arr.ndim))
        self._rank_map = tuple(int(r) for r in arr.reshape(-1))
        self._shape, self._strides = arr.shape, _row_major_strides(arr.shape)
        self._layout = tuple(self._axis_layout(a) for a in self._axes)
        if _groups is not None:  # from_group: over groups that exist
            self._rank, self._groups = c10d.get_rank(), list(_groups)
            self._coordinate = self._find_coordinate()
            return
        if not c10d.is_initialized():
            c10d.init_process_group()
        world = c10d.get_world_size()
        if arr.size > world:
            raise RuntimeError(f"Mesh should not be bigger than default world size {world}, "
                               f"but found {arr.size} ranks!")
        self._rank = c10d.get_rank()
        mine = [self._axis_group(a, self._mesh_dim_names[d] if self._mesh_dim_names
                                 else f"dim_{d}") for d, a in enumerate(self._axes)]
        self._groups = [] if any(g is None for g in mine) else mine
        self._coordinate = self._find_coordinate()

    @staticmethod
    def from_group(group, device_type, mesh=None, *, mesh_dim_names=None):
        """A mesh over groups that exist: one group (a 1-D mesh of its
        ranks), or a list of groups, one per dimension of ``mesh``."""
        if isinstance(group, ProcessGroup):
            ranks = c10d.get_process_group_ranks(group)
            if mesh is not None and _ranks_array(mesh).tolist() != ranks:
                raise ValueError(f"Invalid mesh {mesh} for ProcessGroup with ranks {ranks}")
            return DeviceMesh(device_type, ranks, mesh_dim_names=mesh_dim_names,
                              _groups=[group])
        groups = list(group)
        if not groups:
            raise ValueError("Expects at least one ProcessGroup to be passed")
        if mesh is None:
            raise ValueError("Must pass mesh if passing multiple ProcessGroups")
        if mesh_dim_names is None:
            raise ValueError("Must pass mesh_dim_names if passing multiple ProcessGroups")
        arr = _ranks_array(mesh)
        if arr.ndim != len(groups):
            raise ValueError(f"Expects mesh with ndim equal to number of ProcessGroups but got "
                             f"mesh {arr.tolist()} and {len(groups)} ProcessGroups")
        return DeviceMesh(device_type, arr, mesh_dim_names=mesh_dim_names, _groups=groups)

    # ---- construction (the root's) ----------------------------------------------------
    def _axis_layout(self, axis):
        """(size, stride) of the root dimensions ``axis`` taken as one, as
        PyTorch's layouts print them: size-1 dimensions dropped, dimensions
        that continue each other merged; stride None for none left, a tuple
        when several stay apart."""
        modes = []
        for d in axis:
            n, s = int(self._shape[d]), self._strides[d]
            if n == 1:
                continue
            if modes and modes[-1][1] == n * s:
                modes[-1] = (modes[-1][0] * n, s)
            else:
                modes.append((n, s))
        size = math.prod(int(self._shape[d]) for d in axis)
        if not modes:
            return size, None
        return size, modes[0][1] if len(modes) == 1 else tuple(s for _, s in modes)

    def _axis_group(self, axis, name):
        """This rank's group along the root dimensions ``axis`` (None when
        it is in none): one ``new_group`` per line of ranks, on every rank."""
        arr = self._root_array()
        rest = [d for d in range(arr.ndim) if d not in axis]
        size = math.prod(arr.shape[d] for d in axis)
        lines = np.transpose(arr, rest + list(axis)).reshape(-1, size)
        if size == c10d.get_world_size():  # one line of the world's size: the default group
            return c10d._default()
        found = None
        for line in lines:
            ranks = [int(r) for r in line]
            pg = c10d.new_group(ranks=ranks, group_desc=f"mesh_{name}")
            if self._rank in ranks:
                found = pg
        return found

    def _root_array(self):
        root = self._root or self
        return np.array(root._rank_map, dtype=np.int64).reshape(root._shape)

    def _mesh_array(self):
        """The ranks of this mesh that hold this rank (a slice: the line or
        plane through this rank)."""
        arr = self._root_array()
        dims = [d for a in self._axes for d in a]
        rest = [d for d in range(arr.ndim) if d not in dims]
        full = np.transpose(arr, rest + dims).reshape((-1,) + self.shape)
        if full.shape[0] == 1:
            return full[0]
        for block in full:
            if (block == self._rank).any():
                return block
        raise RuntimeError("In order to get the mesh Tensor of a DeviceMesh it needs to either "
                           "have all its original dimensions (e.g., no slicing) or it needs to "
                           "contain the local rank")

    def _find_coordinate(self):
        where = np.argwhere(self._mesh_array() == self._rank)
        if len(where) > 1:
            raise AssertionError(f"rank_coords.size(0) must be 0 or 1, got {len(where)}")
        return tuple(int(i) for i in where[0]) if len(where) else None

    # ---- properties -------------------------------------------------------------------------
    @property
    def device_type(self):
        return self._device_type

    @property
    def mesh(self):
        """The ranks as an int32 tensor (for a slice: the part holding this rank)."""
        return _C.tensor(self._mesh_array().tolist(), dtype=_C.int32)

    @property
    def mesh_dim_names(self):
        return self._mesh_dim_names

    @property
    def ndim(self):
        return len(self._layout)

    @property
    def shape(self):
        return tuple(n for n, _ in self._layout)

    def size(self, mesh_dim=None):
        if mesh_dim is not None:
            return self._layout[mesh_dim][0]
        return math.prod(self.shape)

    def get_rank(self):
        """This process's global rank."""
        return c10d.get_rank()

    def get_coordinate(self):
        """This rank's index along each dimension, or None outside the mesh."""
        return self._coordinate

    def _dim_index(self, name):
        if not self._mesh_dim_names:
            raise KeyError("No `mesh_dim_names` found.",)
        if name not in self._mesh_dim_names:
            raise KeyError(f"Mesh dimension '{name}' does not exist.",
                           f"Available mesh dimensions are: "
                           f"mesh_dim_names={self._mesh_dim_names}")
        return self._mesh_dim_names.index(name)

    def get_group(self, mesh_dim=None):
        """The process group of this rank along ``mesh_dim`` (an index or a
        name; may be left out for a 1-D mesh)."""
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when "
                               "device_mesh.ndim > 1.",
                               "If you want to get the list of all the ProcessGroups in the "
                               "DeviceMesh,please use `get_all_groups()` instead.")
        if mesh_dim is None:
            mesh_dim = 0
        flat = (self._root or self)._flat
        if isinstance(mesh_dim, str) and mesh_dim in flat:
            return flat[mesh_dim]._groups[0]
        if isinstance(mesh_dim, str):
            mesh_dim = self._dim_index(mesh_dim)
        return self._groups[mesh_dim]

    def get_all_groups(self):
        return [self.get_group(i) for i in range(self.ndim)]

    def get_local_rank(self, mesh_dim=None):
        """This rank's rank in its group along ``mesh_dim``."""
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when "
                               "device_mesh.ndim > 1.")
        return c10d.get_rank(self.get_group(0 if mesh_dim is None else mesh_dim))

    # ---- slicing and flattening ---------------------------------------------------------
    def __getitem__(self, mesh_dim_names):
        """The sub-mesh of the named dimensions (in this mesh's order); a
        root also finds the meshes ``_flatten`` made, by their names."""
        if not self._mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if names == self._mesh_dim_names:
            return self
        root = self._root or self
        flat = root._flat if self == root else {}
        valid = list(self._mesh_dim_names) + list(flat)
        if not all(n in valid for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names "
                           f"are {valid}.")
        axes, groups = [], []
        for n in names:
            if n in self._mesh_dim_names:
                i = self._mesh_dim_names.index(n)
                axes.append(self._axes[i])
                groups.append(self._groups[i] if self._groups else None)
            else:
                warnings.warn("Slicing a flattened dim from root mesh will be deprecated in PT "
                              "2.11. Users need to bookkeep the flattened mesh directly. ",
                              stacklevel=2)
                axes.append(flat[n]._axes[0])
                groups.append(flat[n]._groups[0] if flat[n]._groups else None)
        # the root dimensions in play, size-1 ones aside (they have no place)
        dims = [d for a in axes for d in a if root._shape[d] != 1]
        if dims != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Mesh dim indices should "
                           f"be in ascending order.")
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"Slicing overlapping dim_names {names} is not allowed.")
        return DeviceMesh(self._device_type, None, mesh_dim_names=names, _root=root,
                          _axes=axes, _groups=groups if None not in groups else [])

    def _flatten(self, mesh_dim_name=None, backend_override=None):
        """This mesh as one dimension named ``mesh_dim_name`` (default: the
        names joined by "_"), with its own groups (every rank must call it);
        the root then finds it by that name, as a slice or in get_group."""
        if not self._mesh_dim_names:
            raise RuntimeError("Cannot flatten a DeviceMesh without mesh_dim_names!")
        if backend_override is not None:
            raise NotImplementedError("DeviceMesh._flatten: backend_override is not supported")
        name = mesh_dim_name or "_".join(self._mesh_dim_names)
        if self.ndim == 1 and name in self._mesh_dim_names:
            return self
        root = self._root or self
        if name in root._mesh_dim_names:
            raise ValueError(f"{name} already exists for submesh of the {root}. ",
                             f"The mesh_dim_names of submesh and flattened mesh are "
                             f"{root._mesh_dim_names}. Please specify another valid "
                             f"mesh_dim_name.")
        axis = tuple(d for a in self._axes for d in a)
        if name in root._flat:
            if root._flat[name]._layout == (root._axis_layout(axis),):
                return root._flat[name]
            raise ValueError(f"Flatten mesh with mesh_dim_name {name} has been created before, "
                             f"Please specify another valid mesh_dim_name.")
        group = root._axis_group(axis, name)
        root._flat[name] = DeviceMesh(self._device_type, None, mesh_dim_names=(name,),
                                      _root=root, _axes=[axis],
                                      _groups=[] if group is None else [group])
        return root._flat[name]

    # ---- identity -----------------------------------------------------------------------------
    def _key(self):
        return (self._rank_map, self._layout, self._device_type, self._mesh_dim_names)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, DeviceMesh):
            return False
        return self._key() == other._key()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self):
        if self._mesh_dim_names:
            sizes = "(" + ", ".join(f"{k}={n}" for k, (n, _) in
                                    zip(self._mesh_dim_names, self._layout)) + ")"
        else:
            sizes = repr(self.shape)
        stride = tuple(() if s is None else s for _, s in self._layout)
        text = f"DeviceMesh({sizes}, '{self._device_type}', stride={stride}"
        if os.environ.get("TORCH_DISTRIBUTED_DEBUG", "") == "DETAIL":
            text += f", Mesh: {self._mesh_array().tolist()}"
        return text + ")"

    def __enter__(self):
        _MESH_STACK.append(self)
        return self

    def __exit__(self, *exc):
        _MESH_STACK.pop()


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A mesh of shape ``mesh_shape`` over ranks ``0 .. prod(mesh_shape)-1``
    in row-major order, e.g. ``init_device_mesh("cpu", (2, 4),
    mesh_dim_names=("dp", "tp"))``.  Initializes the default group from the
    environment when it is not yet."""
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated "
                               f"mesh_dim_name in mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(mesh_dim_names)} and "
                               f"len(mesh_shape):{len(mesh_shape)}.")
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                           "If you maintained a 'torch.device' object, it's recommended to pass "
                           "in 'device.type'.")
    shape = tuple(int(n) for n in mesh_shape)
    ranks = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    return DeviceMesh(device_type, ranks, mesh_dim_names=mesh_dim_names,
                      backend_override=backend_override)
