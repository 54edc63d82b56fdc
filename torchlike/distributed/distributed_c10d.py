"""The process-group state of this process: ``init_process_group``,
``destroy_process_group``, ``new_group``, the rank and size queries, and the
helpers every collective uses to find its group and check its arguments.

One world per process: ``init_process_group`` connects this rank to every
other (transport.py) and starts the worker thread that runs collectives in
issue order (work.py).  ``new_group`` makes a group over the same
connections, so it needs no new rendezvous, but, as in PyTorch, every rank
of the world must call it, in the same order, with the same ranks."""
import datetime
import os

from .. import _C
from .constants import Backend, GroupMember, default_pg_timeout
from .constants import group as _group_ns
from .process_group import ProcessGroup
from .rendezvous import rendezvous
from .store import FileStore, PrefixStore
from .transport import Mesh
from .work import Work, Worker

__all__ = ["init_process_group", "destroy_process_group", "is_initialized", "is_available",
           "get_rank", "get_world_size", "get_backend", "new_group", "get_global_rank",
           "get_group_rank", "get_process_group_ranks", "is_gloo_available",
           "is_nccl_available", "is_mpi_available", "is_ucc_available", "is_xccl_available",
           "is_torchelastic_launched", "get_default_backend_for_device", "ProcessGroup",
           "is_backend_available", "get_node_local_rank", "new_subgroups",
           "new_subgroups_by_enumeration", "split_group"]

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class _World:
    """What ``init_process_group`` sets up; reset by ``destroy_process_group``."""
    default = None
    store = None
    mesh = None
    worker = None
    groups = []
    next_gid = 1


def is_available():
    """True: the package is built in (CPU collectives over TCP)."""
    return True


def is_initialized():
    return _World.default is not None


def is_gloo_available():
    return True


def is_nccl_available():
    from .. import cuda
    return cuda.is_available()


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_torchelastic_launched():
    """Whether this process was started by ``torchlike.distributed.run``."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_backend_available(backend):
    """Whether ``backend`` (a name, or ``"cpu:gloo,cuda:nccl"``: every part)
    can run here."""
    parts = [p.split(":")[-1] for p in backend.split(",")] if ":" in backend else [backend]
    for name in parts:
        check = globals().get(f"is_{name.lower()}_available")
        if not (check() if check is not None else name.lower() in Backend.backend_list):
            return False
    return True


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its machine: ``LOCAL_RANK`` (set by the
    launcher), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")


def get_default_backend_for_device(device):
    kind = device if isinstance(device, str) else _C.device(device).type
    kind = kind.split(":")[0]
    if kind not in Backend.default_device_backend_map:
        raise ValueError(f"Default backend not registered for device : {device}")
    return Backend.default_device_backend_map[kind]


def _seconds(timeout):
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                    f"{type(timeout)}")


def _check_backend(backend):
    """The backend name to record, after refusing what cannot run here."""
    name = "gloo" if backend is None else str(backend)
    parts = {p.split(":")[-1].lower() for p in name.split(",")}
    if "nccl" in parts and not is_nccl_available():
        raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found! "
                           "(torchlike found no CUDA device; use backend='gloo' for CPU "
                           "tensors)")
    for p in parts:
        if p in ("mpi", "ucc", "xccl"):
            raise RuntimeError(f"torchlike.distributed has no {p!r} backend; use 'gloo'")
        if p not in ("gloo", "nccl"):
            raise ValueError(f"Invalid backend: '{name}'")
    return Backend(name) if "," not in name else name


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the default process group: rendezvous (``init_method``, default
    ``env://``, or an existing ``store`` with ``rank`` and ``world_size``),
    then connect to every other rank.  See docs/distributed.md."""
    if _World.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    backend = _check_backend(backend)
    seconds = _seconds(timeout)
    # PyTorch raises these three (and destroy before init) as AssertionError
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
        own_store = False
    else:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size,
                                             datetime.timedelta(seconds=seconds))
        own_store = True
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world size {world_size}")
    store.set_timeout(datetime.timedelta(seconds=seconds))
    # a store that outlives one world (a user's, or a reused file) serves the
    # next one under a fresh prefix: every rank counts the same generation
    generation = (store.add("torchlike/inits", 1) - 1) // world_size
    scoped = PrefixStore(f"torchlike/pg{generation}", store)
    mesh = Mesh(scoped, rank, world_size, seconds)
    _store_barrier(scoped, world_size)
    _World.store = store if own_store else None
    _World.mesh = mesh
    _World.worker = Worker()
    _World.groups = []
    _World.next_gid = 1
    pg = ProcessGroup(mesh, 0, range(world_size), seconds, backend, group_name or "0")
    _World.default = pg
    GroupMember.WORLD = _group_ns.WORLD = pg


def _store_barrier(store, world_size):
    """Return once every rank got here: no rank leaves init (and may close
    the store it serves) while another still reads addresses from it."""
    if store.add("joined", 1) == world_size:
        store.set("all_joined", "1")
    store.wait(["all_joined"])


def destroy_process_group(group=None):
    """Leave the default group (``group`` None or WORLD): close the
    connections and the worker; another ``init_process_group`` may follow.
    A subgroup is only forgotten."""
    if _World.default is None:
        raise AssertionError("Process group cannot be None")
    if group is not None and group is not _World.default:
        if group in _World.groups:
            _World.groups.remove(group)
        return
    _World.worker.stop()
    _World.mesh.close()
    store = _World.store
    if isinstance(store, FileStore):
        store.close()
    elif store is not None and hasattr(store, "close"):
        store.close()
    _World.default = _World.store = _World.mesh = _World.worker = None
    _World.groups = []
    GroupMember.WORLD = _group_ns.WORLD = None


def _default():
    if _World.default is None:
        raise ValueError(_NOT_INIT)
    return _World.default


def resolve(grp):
    """The ProcessGroup of ``grp`` (None: the default), or None when this
    rank is not a member (collectives then return None, as in PyTorch)."""
    pg = _default()
    if grp is None or grp is GroupMember.WORLD:
        return pg
    if grp is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(grp, ProcessGroup):
        raise TypeError(f"expected a process group (from new_group) or None, got "
                        f"{type(grp).__name__}")
    return grp


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of the given global ``ranks`` (all by default), in sorted order.

    Every rank must call it (PyTorch's rule); ranks outside it get
    ``GroupMember.NON_GROUP_MEMBER``."""
    world = _default()
    size = world.size()
    ranks = sorted(range(size) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < size:
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    gid = _World.next_gid
    _World.next_gid += 1
    if world.rank() not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    seconds = world.timeout if timeout is None else _seconds(timeout)
    pg = ProcessGroup(_World.mesh, gid, ranks, seconds,
                      world.backend if backend is None else _check_backend(backend),
                      group_desc or str(gid))
    _World.groups.append(pg)
    return pg


def get_rank(group=None):
    """This process's rank in ``group`` (the default: its global rank); -1
    outside the group."""
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg.backend


def get_process_group_ranks(group):
    return list(resolve(group).ranks)


def get_global_rank(group, group_rank):
    ranks = resolve(group).ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    ranks = resolve(group).ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def group_root(pg, name, rank, group_rank):
    """The group rank of a root given as a global ``rank`` or a ``group_rank``."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can only specify one of the global and the group rank")
    if group_rank is None:
        rank = 0 if rank is None else rank
        group_rank = rank if pg is _World.default else get_group_rank(pg, rank)
    if not 0 <= group_rank < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::{name}: invalid root rank: {group_rank}")
    return group_rank


def submit(fn, outputs, async_op):
    """Run ``fn`` on the worker thread after the operations issued before it;
    the Work when ``async_op``, else wait (raising its error) and None."""
    work = _World.worker.submit(fn, Work(outputs))
    if async_op:
        return work
    work.wait()
    return None


def _get_default_group():
    return _default()


def _get_default_store():
    return _default() and _World.store


# ---- groups of groups ---------------------------------------------------------------------
def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None,
                                 pg_options=None, group_desc=None):
    """One group per list of global ranks (every rank calls it; the lists
    may not overlap): (this rank's group or None, all the groups as
    ``new_group`` returns them here)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    me = _default().rank()
    mine, groups, owner = None, [], {}
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout=timeout, backend=backend, group_desc=group_desc)
        groups.append(g)
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and "
                                 f"{ranks}")
            owner[r] = ranks
            if r == me:
                mine = g
    return mine, groups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """Cut ``group``'s ranks (the world's by default), in order, into groups
    of ``group_size``: (this rank's group, all of them)."""
    if group_size is None:
        from .. import cuda
        if not cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA/XPU is available."
                             "If your subgroup using a backend that does not depend on "
                             "CUDA/XPU,please pass in 'group_size' correctly.")
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = get_world_size(group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by "
                         f"'group_size={group_size}'")
    ranks = get_process_group_ranks(group)
    mine, groups = new_subgroups_by_enumeration(
        [ranks[i:i + group_size] for i in range(0, len(ranks), group_size)],
        timeout=timeout, backend=backend, group_desc=group_desc)
    if not isinstance(mine, ProcessGroup):
        raise AssertionError("Current rank was not assigned to a subgroup")
    return mine, groups


_SPLITS_PER_GROUP = 1024  # split groups of one parent get gids of their own


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None,
                group_desc=None, backend=None):
    """Split ``parent_pg`` (the world by default; every member calls it) into
    disjoint groups of its group ranks; this rank's group, or
    ``NON_GROUP_MEMBER`` when no split holds it."""
    if not split_ranks:
        raise ValueError("split_ranks cannot be None or empty")
    world = _default()
    parent = world if parent_pg is None else resolve(parent_pg)
    if parent is None:
        raise ValueError(f"Global rank {world.rank()} is not part of the parent group "
                         f"{parent_pg}")
    seen = set()
    for split in split_ranks:
        for r in split:
            if not 0 <= r < parent.size() or r in seen:
                raise ValueError(f"split_group: group rank {r} is out of the parent's range "
                                 f"or in two splits ({split_ranks})")
            seen.add(r)
    if parent is world:
        mine = GroupMember.NON_GROUP_MEMBER
        for split in split_ranks:
            g = new_group([world.ranks[r] for r in split], timeout=timeout, backend=backend,
                          group_desc=group_desc)
            if world.rank() in split:
                mine = g
        return mine
    # the other ranks of the world do not call it: the gids come from the
    # parent's own range, which only its members count
    if parent.gid <= 0 or parent.gid >= 2 ** 31 // _SPLITS_PER_GROUP:
        raise NotImplementedError("split_group: splitting a group made by split_group is not "
                                  "supported")
    count = getattr(parent, "_splits", 0)
    parent._splits = count + len(split_ranks)
    if parent._splits >= _SPLITS_PER_GROUP:
        raise RuntimeError(f"split_group: more than {_SPLITS_PER_GROUP} splits of one group")
    mine = GroupMember.NON_GROUP_MEMBER
    for k, split in enumerate(split_ranks):
        if parent.rank() in split:
            gid = -(parent.gid * _SPLITS_PER_GROUP + count + k)
            seconds = parent.timeout if timeout is None else _seconds(timeout)
            mine = ProcessGroup(_World.mesh, gid, sorted(parent.ranks[r] for r in split),
                                seconds, parent.backend, group_desc or str(gid))
            _World.groups.append(mine)
    return mine
