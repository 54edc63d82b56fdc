"""DistributedSampler: each of ``num_replicas`` processes takes every
``num_replicas``-th index of one (optionally shuffled, epoch-seeded) order,
as in ``torch.utils.data.distributed``."""
import math

from ... import _C
from .sampler import Sampler, T_co

__all__ = ["DistributedSampler"]


def _process_group():
    """(world size, rank) of the default process group (PyTorch's ValueError
    when none is initialised)."""
    from ... import distributed as dist
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size(), dist.get_rank()


class DistributedSampler(Sampler[T_co]):
    """Indices of this replica's share of the dataset.

    With ``shuffle``, the order is ``randperm(len, generator seeded with seed +
    epoch)``: call ``set_epoch`` each epoch so the shards change.  Without
    ``drop_last`` the order is padded with its own first indices to a multiple
    of ``num_replicas``; with it, the tail is dropped."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            world, own_rank = _process_group()
            num_replicas = world if num_replicas is None else num_replicas
            rank = own_rank if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas)
                                         / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = _C.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _C.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"{len(indices)} indices for a total size of {self.total_size}")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"{len(indices)} indices for {self.num_samples} samples")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch that seeds the next shuffle (all replicas must agree)."""
        self.epoch = epoch
