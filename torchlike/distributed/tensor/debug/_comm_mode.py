"""CommDebugMode: count the collectives that DTensor moves, ops and
loss_parallel issue while the mode is active.

The counts are keyed as PyTorch's are, by the functional collective:
``torchlike.ops.c10d_functional.all_reduce`` (``str()``:
"c10d_functional.all_reduce"), ``all_gather_into_tensor``,
``reduce_scatter_tensor``, ``all_to_all_single``, and
``torchlike.ops.c10d.broadcast_`` for the broadcast of
``distribute_tensor``.  The keys are names only: torchlike has no
functional collective operators, so calling one raises.

What is counted is what DTensor itself sends: the collectives of
``_redistribute.py`` (which loss_parallel and input_reshard send through
too) and ``distribute_tensor``'s broadcast call ``note``; collectives
called directly (``dist.all_reduce``) are not."""
from collections import defaultdict

from ...._ops import OpOverloadPacket, ops
from .. import _redistribute as R

__all__ = ["CommDebugMode"]

_FUNCTIONAL = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor",
               "all_to_all_single", "broadcast")
_C10D = ("broadcast_", "scatter_", "allreduce_", "allgather_", "alltoall_")


def _refuse(namespace, name):
    def call(overload, args, kwargs):
        raise NotImplementedError(
            f"torchlike.ops.{namespace}.{name} names a collective for CommDebugMode's "
            f"counts; torchlike has no functional collective operators: call "
            f"torchlike.distributed's collectives instead")
    return call


def _install():
    """The key packets, as attributes of their ``torchlike.ops`` namespaces
    (once)."""
    for namespace, names in (("c10d_functional", _FUNCTIONAL), ("c10d", _C10D)):
        space = getattr(ops, namespace)
        for name in names:
            if name not in space.__dict__:
                setattr(space, name, OpOverloadPacket(namespace, name, ["default"],
                                                      _refuse(namespace, name)))


_install()


def key(name):
    """The packet counted for ``name`` ("all_reduce", "c10d.broadcast_")."""
    namespace, _, op = name.rpartition(".")
    return getattr(getattr(ops, namespace or "c10d_functional"), op)


class CommDebugMode:
    """A context manager counting the collectives DTensor issues inside it
    (forward and backward alike; nested modes each count what runs inside
    them)::

        mode = CommDebugMode()
        with mode:
            y = model(x)
        mode.get_total_counts()              # 1
        mode.get_comm_counts()               # {c10d_functional.all_reduce: 1}
        mode.get_sharding_info()             # {"Sequential.0.weight": (Shard(dim=0),), ...}

    ``get_parameter_info()`` / ``get_sharding_info()`` give the DTensor
    parameters of the modules whose forward ran inside the mode, named as
    PyTorch's ModTracker names modules.  Per-module counts and the tracing
    table are not kept."""

    def __init__(self):
        self.comm_counts = defaultdict(int)
        self._names = {}        # module -> its name, as PyTorch's ModTracker gives it
        self._params = {}       # module name -> {parameter name: DTensor}
        self._hook = None

    def _note(self, name):
        self.comm_counts[key(name)] += 1

    def _seen(self, mod, inputs):
        """A module's forward begins: name it and its children (the first
        module met is named by its class, a child "parent.child"), and keep
        its DTensor parameters."""
        from .._api import DTensor
        name = self._names.setdefault(mod, type(mod).__name__)
        for child_name, child in mod.named_children():
            self._names.setdefault(child, f"{name}.{child_name}")
        params = {n: p for n, p in mod.named_parameters(recurse=False)
                  if isinstance(p, DTensor)}
        if params:
            self._params.setdefault(name, {}).update(params)

    def get_parameter_info(self):
        """{module name: {parameter name: DTensor}} for the modules whose
        forward ran inside the mode and hold DTensor parameters."""
        return self._params

    def get_sharding_info(self):
        """{"module.parameter": placements} of those parameters."""
        return {f"{m}.{n}": p.placements for m, ps in self._params.items()
                for n, p in ps.items()}

    def get_total_counts(self):
        """The number of collectives counted."""
        return sum(self.comm_counts.values())

    def get_comm_counts(self):
        """{collective key: count}."""
        return self.comm_counts

    def __enter__(self):
        from ....nn.modules.module import register_module_forward_pre_hook
        self.comm_counts.clear()
        self._names, self._params = {}, {}
        self._hook = register_module_forward_pre_hook(self._seen)
        R.COMM_MODES.append(self)
        return self

    def __exit__(self, *exc):
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        # the innermost mode is this one unless modes were left out of order
        for i in range(len(R.COMM_MODES) - 1, -1, -1):
            if R.COMM_MODES[i] is self:
                del R.COMM_MODES[i]
                break
        return False

    def __repr__(self):
        return f"CommDebugMode(get_total_counts={self.get_total_counts()})"
