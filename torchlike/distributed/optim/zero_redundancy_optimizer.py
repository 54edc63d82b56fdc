"""ZeroRedundancyOptimizer: an optimizer whose state is sharded across the
ranks of a group (ZeRO stage 1, as PyTorch's).

The parameters are partitioned once: group by group, largest first, each
goes to the rank whose share is smallest so far (the first such rank on a
tie), so every rank computes the same partition.  Each rank builds the
wrapped ``optimizer_class`` over its own share only (one local group per
exposed group, possibly empty), so the optimizer state of a parameter lives
on one rank.  ``step()`` steps the local shard, then every rank broadcasts
its updated parameters (one broadcast per parameter, or one per rank with
``parameters_as_bucket_view=True``, where the parameters are views of one
flat buffer per rank).  Gradients must already be the same on every rank
(DDP gives that).

``consolidate_state_dict(to)`` gathers the local state dicts on rank
``to``; ``state_dict()`` there is the whole optimizer's state in the plain
optimizer's layout (parameters numbered across the exposed groups), and
``load_state_dict`` takes such a dict on every rank, keeping the state of
the rank's own parameters.  The optimizer is a ``Joinable``: a rank that
ran out of inputs inside ``Join`` keeps stepping (with the gradients it
has) and broadcasting its shard."""
import copy
import itertools

from ... import _C
from ...optim.optimizer import Optimizer, _copy_state_value
from ..._tensor_utils import typename
from ...autograd.grad_mode import no_grad
from .. import collectives, distributed_c10d
from ..algorithms.join import Join, Joinable, JoinHook
from ..constants import GroupMember
from ..object_collectives import gather_object

__all__ = ["ZeroRedundancyOptimizer"]

Tensor = _C.Tensor


class _ZeROJoinHook(JoinHook):
    """A joined rank steps its shard and broadcasts it, as the others do."""

    def __init__(self, zero):
        if not isinstance(zero, ZeroRedundancyOptimizer):
            raise AssertionError("ZeRO join hook requires passing in a "
                                 "ZeroRedundancyOptimizer instance as the state")
        self.zero = zero
        super().__init__()

    def main_hook(self):
        self.zero.step()


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """``ZeroRedundancyOptimizer(params, optimizer_class, process_group=None,
    parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults)``:
    ``optimizer_class(shard, **defaults)`` on each rank's share of
    ``params`` (see the module doc).  ``self.optim`` is the local optimizer."""

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults):
        params = self._verify_and_init_params(params)
        self._verify_same_dense_param_type()
        if overlap_with_ddp:
            raise NotImplementedError(
                "ZeroRedundancyOptimizer(overlap_with_ddp=True) is not supported by torchlike: "
                "call step() after backward instead (the result is the same)")
        # add_param_group re-partitions only once the optimizer is built
        self.initialized = False
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        self._partition_cache = []      # per rank: its copies of the groups
        self._param_to_rank_cache = {}
        self._index_cache = []          # global index -> parameter
        self._is_trainable_mask = self._trainable_mask()
        self._default_device = self._all_params[0].device
        self.process_group = GroupMember.WORLD if process_group is None else process_group
        pg = distributed_c10d.resolve(self.process_group)
        if pg is None:
            raise ValueError("ZeroRedundancyOptimizer: this rank is not a member of "
                             "process_group")
        self._pg = pg
        self.world_size = pg.size()
        self.rank = pg.rank()
        self.global_rank = pg.ranks[self.rank]
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self._init_local_optimizer()
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._buckets = []
        self._build_param_buckets()
        self._all_state_dicts = []
        self.initialized = True

    # ---- checks --------------------------------------------------------------------
    def _verify_and_init_params(self, params):
        if isinstance(params, Tensor):
            raise TypeError(f"`params` argument should be an iterable of Tensors, but got "
                            f"{typename(params)}")
        try:
            all_params = list(params)
        except TypeError as e:
            raise TypeError(f"`params` argument should be an iterable of Tensors or dicts, "
                            f"but got {typename(params)}") from e
        if len(all_params) == 0:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        if all(isinstance(p, Tensor) for p in all_params):
            self._all_params = all_params
        elif all(isinstance(p, dict) for p in all_params):
            self._all_params = []
            for group in all_params:
                if "params" not in group:
                    raise ValueError("Each parameter group passed-in via `params` must have a "
                                     "'params' key mapping to the parameters in the group")
                self._all_params.extend(group["params"])
        else:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        return all_params

    def _verify_same_dense_param_type(self):
        first = typename(self._all_params[0])
        for p in self._all_params[1:]:
            other = typename(p)
            if other != first:
                raise ValueError(f"ZeroRedundancyOptimizer only supports using the same dense "
                                 f"type for all parameters but got both {first} and {other}")

    def _trainable_mask(self):
        return [bool(p.requires_grad) for p in self._all_params]

    # ---- the partition ---------------------------------------------------------------
    def _clear_cache(self):
        self._partition_cache = []
        self._param_to_rank_cache = {}
        self._index_cache = []

    def _partition_parameters(self):
        """Per rank, its copies of the exposed groups holding its share of
        each group's parameters (PyTorch's greedy partition)."""
        if not self._partition_cache:
            per_rank = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                shares = [[] for _ in range(self.world_size)]
                # sorted() is stable: equal sizes keep their order in the group
                for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    shares[rank].append(p)
                    sizes[rank] += p.numel()
                for rank, share in enumerate(shares):
                    local = copy.copy(group)
                    local["params"] = share
                    per_rank[rank].append(local)
            self._partition_cache = per_rank
        return self._partition_cache

    @property
    def _param_to_rank(self):
        if not self._param_to_rank_cache:
            for rank, groups in enumerate(self._partition_parameters()):
                for g in groups:
                    for p in g["params"]:
                        self._param_to_rank_cache[p] = rank
        return self._param_to_rank_cache

    @property
    def _index_to_param(self):
        if not self._index_cache:
            self._index_cache = list(itertools.chain.from_iterable(
                g["params"] for g in self.param_groups))
        return self._index_cache

    @property
    def _param_to_index(self):
        return {p: i for i, p in enumerate(self._index_to_param)}

    def _init_local_optimizer(self):
        self.optim = self._optim_constructor(self._partition_parameters()[self.rank],
                                             **self._optim_defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)

    @staticmethod
    def _sync_param_groups(src_groups, dst_groups):
        """Copy every option but ``params`` from ``src_groups`` to ``dst_groups``
        (the exposed groups and the local optimizer's, e.g. an lr a scheduler set)."""
        if len(src_groups) != len(dst_groups):
            raise AssertionError("Mismatch between number of source and destination parameter "
                                 "groups")
        for src, dst in zip(src_groups, dst_groups):
            for key, value in src.items():
                if key != "params":
                    dst[key] = value

    def add_param_group(self, param_group):
        """Add a group (on every rank, in the same order): it is partitioned
        after the existing ones, which keep their ranks."""
        super().add_param_group(param_group)
        if self.initialized:
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])
            if self.parameters_as_bucket_view:
                self._build_param_buckets()

    # ---- buckets (parameters_as_bucket_view) -------------------------------------
    def _build_param_buckets(self):
        """One flat buffer per (device, rank) holding that rank's trainable
        parameters; the parameters become views of it."""
        if not self.parameters_as_bucket_view:
            return
        by_device = {}
        for rank, groups in enumerate(self._partition_parameters()):
            for g in groups:
                for p in g["params"]:
                    by_device.setdefault(str(p.device), [[] for _ in range(self.world_size)])
                    by_device[str(p.device)][rank].append(p)
        self._buckets = []
        with no_grad():
            for device, per_rank in by_device.items():
                row = []
                for params in per_rank:
                    trainable = [p for p in params if p.requires_grad]
                    for p in params:
                        if not p.requires_grad:
                            p.data = p.detach().clone()  # out of any older bucket
                    total = sum(p.numel() for p in trainable)
                    if total == 0:
                        row.append(_C.zeros(1, device=device))
                        continue
                    bucket = _C.empty(total, dtype=trainable[0].dtype, device=device)
                    offset = 0
                    for p in trainable:
                        n = p.numel()
                        bucket[offset:offset + n].copy_(p.detach().reshape(-1))
                        p.data = bucket[offset:offset + n].view(tuple(p.shape))
                        offset += n
                    row.append(bucket)
                self._buckets.append(row)

    # ---- stepping ---------------------------------------------------------------------
    def _local_step(self, closure=None, **kwargs):
        Join.notify_join_context(self)
        mask = self._trainable_mask()
        if mask != self._is_trainable_mask:
            self._build_param_buckets()
            self._is_trainable_mask = mask
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        if closure is None:
            loss = self.optim.step(**kwargs)
        else:
            loss = self.optim.step(closure=closure, **kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        return loss

    def _sync_params(self):
        """Every rank broadcasts its updated share (issued in rank order, so
        the broadcasts match on every rank)."""
        works = []
        for rank in range(self.world_size):
            src = self._pg.ranks[rank]
            if self.parameters_as_bucket_view:
                tensors = [row[rank] for row in self._buckets]
            else:
                tensors = [p.detach() for g in self._partition_parameters()[rank]
                           for p in g["params"]]
            for t in tensors:
                works.append(collectives.broadcast(t, src=src, group=self._pg, async_op=True))
        for w in works:
            w.wait()

    def step(self, closure=None, **kwargs):
        """Step this rank's shard (extra arguments go to the local
        optimizer), then share every rank's updated parameters."""
        loss = self._local_step(closure=closure, **kwargs)
        self._sync_params()
        return loss

    # ---- Joinable --------------------------------------------------------------------
    def join_hook(self, **kwargs):
        """The hook a joined rank runs: ``step()`` (gradients as they are)."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        return self._default_device

    @property
    def join_process_group(self):
        return self.process_group

    # ---- state dicts ------------------------------------------------------------------
    def consolidate_state_dict(self, to=0):
        """Gather every rank's local state dict on group rank ``to`` (every
        rank must call it); ``state_dict()`` there then gives the whole state."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        local = self.optim.state_dict()
        box = [None] * self.world_size if self.rank == to else None
        gather_object(local, box, dst=self._pg.ranks[to], group=self._pg)
        self._all_state_dicts = box if self.rank == to else []

    def state_dict(self):
        """The whole optimizer's state as of the last ``consolidate_state_dict``
        to this rank, numbered as a plain optimizer over ``params`` numbers it."""
        if not self._all_state_dicts:
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. "
                               f"Please call `consolidate_state_dict(to={self.rank})` on all "
                               f"ranks beforehand if you meant to save the global state.")
        out = super().state_dict()
        index = self._param_to_index
        for rank, local in enumerate(self._all_state_dicts):
            shares = self._partition_parameters()[rank]
            if len(local["param_groups"]) != len(shares):
                raise AssertionError("Mismatch between number of local and global parameter "
                                     "groups")
            for local_group, share in zip(local["param_groups"], shares):
                if len(local_group["params"]) != len(share["params"]):
                    raise AssertionError("Mismatch between number of local and global "
                                         "parameters in parameter group")
                for local_index, p in zip(local_group["params"], share["params"]):
                    if local_index in local["state"]:
                        out["state"][index[p]] = local["state"][local_index]
        out["state"] = dict(sorted(out["state"].items()))
        return out

    def load_state_dict(self, state_dict):
        """Load a whole state (from ``state_dict()``) on every rank: each keeps
        the state of its own parameters."""
        owned = {}
        for index, value in state_dict["state"].items():
            p = self._index_to_param[index]
            if self._param_to_rank[p] == self.rank:
                owned[index] = value
                self.optim.state[p] = _copy_state_value(value)
        super().load_state_dict({"state": owned, "param_groups": state_dict["param_groups"]})
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
