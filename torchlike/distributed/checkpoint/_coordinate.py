"""The collective steps of a save or load (PyTorch's _DistWrapper, our
own): each step runs a function on every rank, gathers the results (or
the exception each rank raised) on the coordinator, which combines them
and sends each rank its part.  A failure anywhere raises the same
CheckpointException on every rank, so no rank is left waiting.

Without a process group (``dist`` not initialized, or ``use_dist``
false) every step runs locally.  Results travel as pickles between the
ranks of one job, as the object collectives do."""
from ... import distributed as dist
from .api import CheckpointException, _Failure


class Coordinator:
    def __init__(self, group, use_dist, coordinator_rank=0):
        self.group = group
        self.use_dist = use_dist
        if use_dist:
            self.rank = dist.get_rank(group)
            self.world = dist.get_world_size(group)
            self.coordinator_global = dist.get_global_rank(group, coordinator_rank) \
                if group is not None else coordinator_rank
        else:
            self.rank, self.world, self.coordinator_global = 0, 1, 0
        self.coordinator_rank = coordinator_rank
        self.is_coordinator = self.rank == coordinator_rank

    # ---- plain collectives of objects ------------------------------------------------
    def gather(self, obj):
        if not self.use_dist:
            return [obj]
        out = [None] * self.world if self.is_coordinator else None
        dist.gather_object(obj, out, dst=self.coordinator_global, group=self.group)
        return out

    def scatter(self, objs):
        if not self.use_dist:
            return objs[0]
        out = [None]
        dist.scatter_object_list(out, objs if self.is_coordinator else None,
                                 src=self.coordinator_global, group=self.group)
        return out[0]

    def broadcast(self, obj):
        if not self.use_dist:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=self.coordinator_global, group=self.group)
        return box[0]

    def all_gather(self, obj):
        if not self.use_dist:
            return [obj]
        out = [None] * self.world
        dist.all_gather_object(out, obj, group=self.group)
        return out

    # ---- steps -----------------------------------------------------------------------
    @staticmethod
    def _run(fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - travels to the coordinator
            return _Failure(e)

    @staticmethod
    def _failures(results):
        return {r: v for r, v in enumerate(results) if isinstance(v, _Failure)}

    def reduce_scatter(self, step, map_fn, reduce_fn):
        """Every rank: map_fn(); coordinator: reduce_fn(all results) -> one
        result per rank; each rank gets its own."""
        local = self._run(map_fn)
        every = self.gather(local)
        if self.is_coordinator:
            bad = self._failures(every)
            if bad:
                out = [CheckpointException(step, bad)] * self.world
            else:
                out = self._run(reduce_fn, every)
                if isinstance(out, _Failure):
                    out = [CheckpointException(step, {self.rank: out})] * self.world
        mine = self.scatter(out if self.is_coordinator else None)
        if isinstance(mine, CheckpointException):
            raise mine
        return mine

    def all_reduce(self, step, map_fn, reduce_fn):
        """Every rank: map_fn(); coordinator: reduce_fn(all results); every
        rank gets that result."""
        local = self._run(map_fn)
        every = self.gather(local)
        out = None
        if self.is_coordinator:
            bad = self._failures(every)
            if bad:
                out = CheckpointException(step, bad)
            else:
                out = self._run(reduce_fn, every)
                if isinstance(out, _Failure):
                    out = CheckpointException(step, {self.rank: out})
        out = self.broadcast(out)
        if isinstance(out, CheckpointException):
            raise out
        return out

    def all_gather_step(self, step, map_fn):
        """Every rank: map_fn(); every rank gets every result."""
        every = self.all_gather(self._run(map_fn))
        bad = self._failures(every)
        if bad:
            raise CheckpointException(step, bad)
        return every

    def broadcast_step(self, step, map_fn):
        """The coordinator: map_fn(); every rank gets its result."""
        out = self._run(map_fn) if self.is_coordinator else None
        out = self.broadcast(out)
        if isinstance(out, _Failure):
            raise CheckpointException(step, {self.coordinator_rank: out})
        return out
