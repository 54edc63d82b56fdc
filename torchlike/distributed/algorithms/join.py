"""The generic join context manager for training on uneven inputs:
``Join``, ``Joinable``, ``JoinHook``.

Ranks that run out of inputs leave the training loop early and wait in
``Join.__exit__``; there they keep issuing the collectives that the ranks
still training issue each iteration (the joinables' ``main_hook``s), so
nobody waits on a rank that has left.  Each iteration starts with one
all-reduce over the group: a rank still training contributes 1 (through
``Join.notify_join_context``, called by the first joinable before its own
collectives), a joined rank 0; when the sum is 0 every rank has joined and
the ``post_hook``s run (DDP broadcasts the model of the last rank to join).

Which collectives a hook shadows is the joinable's business: DDP's
(nn/parallel/distributed.py) matches its forward's flags and buffer
broadcast and each gradient bucket's all-reduce with zeros; the
ZeroRedundancyOptimizer's (distributed/optim) runs ``step()``, so the
joined rank still updates and broadcasts its shard."""
import warnings
from abc import ABC, abstractmethod
from typing import NamedTuple

from ... import _C
from .. import collectives
from ..distributed_c10d import get_rank

__all__ = ["JoinHook", "Joinable", "Join"]

_SKEW_WARNING = 1000  # iterations a joined rank shadows before it warns


class JoinHook:
    """What a joined rank runs for one joinable: ``main_hook()`` once per
    iteration of the ranks still training, ``post_hook(is_last_joiner)``
    once when all have joined.  Both do nothing by default."""

    def main_hook(self):
        """Shadow the collectives of one training iteration."""

    def post_hook(self, is_last_joiner):
        """Run once every rank has joined; ``is_last_joiner`` is True on the
        ranks that joined last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(False, False, False)


class Joinable(ABC):
    """A class whose instances take part in ``Join``: it gives
    ``join_hook(**kwargs)``, ``join_device`` and ``join_process_group``, and
    calls ``Join.notify_join_context(self)`` before its per-iteration
    collectives."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        """The JoinHook of this instance (``kwargs`` come from ``Join``)."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the join all-reduces."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The group the join all-reduces run over."""


class Join:
    """``with Join([ddp_model, zero_optimizer]): <training loop>``: ranks
    that run out of inputs shadow the others' collectives until every rank
    has finished (see the module doc).  ``enable=False`` turns it off;
    ``throw_on_early_termination=True`` makes every rank raise RuntimeError
    as soon as one runs out.  Extra keyword arguments go to each
    ``join_hook`` (DDP takes ``divide_by_initial_world_size``)."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = list(joinables)
        self._join_hooks = [j.join_hook(**kwargs) for j in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, j in enumerate(self._joinables):
            j._join_config = _JoinConfig(enable, throw_on_early_termination, i == 0)
        group = self._joinables[0].join_process_group
        for j in self._joinables[1:]:
            if j.join_process_group != group:
                raise ValueError("Using join context manager with multiple process groups")
        self._process_group = group
        self._device = self._joinables[0].join_device
        self._rank = get_rank(group)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self._enable or exc_type is not None:
            return  # an exception goes on as it is
        is_last_joiner = True
        shadowed = 0
        while self._count_training() > 0:
            if shadowed == _SKEW_WARNING:
                warnings.warn(f"Detected uneven input skew of greater than {_SKEW_WARNING}. "
                              f"This means that rank {self._rank} has at least "
                              f"{_SKEW_WARNING} fewer inputs than other currently-active "
                              f"ranks. This level of skew could lead to performance "
                              f"degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _count_training(self):
        """How many ranks are still training: this rank contributes 0 to the
        all-reduce the others make in ``notify_join_context``."""
        count = _C.zeros(1, device=self._device)
        collectives.all_reduce(count, group=self._process_group)
        return count.item()

    def _notify_procs_to_terminate(self):
        ones = _C.ones(1, device=self._device)
        collectives.all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Tell the join context that this rank is still training (called by a
        joinable before its per-iteration collectives; only the first
        joinable of the context communicates).  With
        ``throw_on_early_termination`` raise if some rank has run out.
        Returns the Work of the all-reduce, or None."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the "
                                 f"``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        device, group = joinable.join_device, joinable.join_process_group
        work = collectives.all_reduce(_C.ones(1, device=device), group=group, async_op=True)
        if config.throw_on_early_termination:
            flag = _C.zeros(1, device=device)
            collectives.all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        return work
