"""swap_in_optimizer_params_and_state: run an optimizer's API on other
parameters and another ``state_dict()``-shaped state for the length of a
block, then put the live ones back (torch.optim's, same checks and
messages).

The swapped-in state is keyed by packed ids as ``state_dict()`` writes it;
inside the block ``optimizer.state`` maps each swapped-in parameter to a
shallow copy of its entry, so in-place updates of the state tensors reach
the caller's dict while entries added or replaced stay in the block.  Each
live group dict is restored to its pre-block contents (the same ``params``
list object)."""
import contextlib
from collections import defaultdict

from .. import _C

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _check_state(state):
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping "
                           "packed parameter ids to per-param state dicts, got "
                           f"{type(state).__name__}.")
    if any(isinstance(k, _C.Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           "packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")
    return state


def _check_groups(optimizer, groups):
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list "
                           f"of param-group dicts, got {type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups "
                           "than the live optimizer.")
    return groups


def _group_ids(i, live, group):
    """The packed parameter ids of swapped-in group i, checked against live group i."""
    if not isinstance(group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = group.get("params")
    if not isinstance(ids, list) or not all(isinstance(k, int) for k in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                           "param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(ids) != len(live["params"]):
        raise RuntimeError(f"swapin_optim_state param group {i} has a different number of "
                           "params than the live optimizer param group.")
    only_new = [k for k in group if k not in live]
    only_live = [k for k in live if k not in group]
    if only_new or only_live:
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys to "
                           f"exactly match the live optimizer group keys for group {i}. Keys "
                           f"only in swap-in: {only_new}. Keys only in live: {only_live}.")
    return ids


def _plan(optimizer, parameters, osd):
    """(state by packed id, [(live group, swapped-in group, its parameters)])."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(osd, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(osd.get("state"))
    groups = _check_groups(optimizer, osd.get("param_groups"))
    flat = list(parameters.values())
    start, seen, plan = 0, set(), []
    for i, (live, group) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _group_ids(i, live, group)
        seen.update(ids)
        end = start + len(ids)
        if end > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((live, group, flat[start:end]))
        start = end
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by "
                           f"packed parameter ids from param_groups[*]['params']; got extra "
                           f"keys {extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Inside the block, ``optimizer`` works on ``swapin_parameters`` (a dict,
    in the order of the optimizer's parameters, as ``named_parameters()``
    gives them) with the hyperparameters and state of ``swapin_optim_state``
    (an ``optimizer.state_dict()``-shaped dict); on exit its own parameters,
    groups and state are back.  The optimizer must have taken a step (its
    state initialized)."""
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, group, params in plan:
            live["params"] = params
            for key, value in group.items():
                if key != "params":
                    live[key] = value
            for p, pid in zip(params, group["params"]):
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, snapshot in zip(optimizer.param_groups, snapshots):
            live.clear()
            live.update(snapshot)
        optimizer.state = live_state
