"""Stateful: an object with ``state_dict()`` and ``load_state_dict(sd)``
(modules, optimizers, a user's training-state class).  A top-level value
of the state dict given to save / load that is Stateful is saved as its
``state_dict()`` and, on load, given the loaded state through
``load_state_dict``."""
from typing import Any, Dict, Protocol, runtime_checkable

__all__ = ["Stateful"]


@runtime_checkable
class Stateful(Protocol):
    def state_dict(self) -> Dict[str, Any]:
        ...

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        ...


def to_state_dicts(state_dict):
    """``state_dict`` with each top-level Stateful value replaced by its
    ``state_dict()``."""
    return {k: v.state_dict() if isinstance(v, Stateful) else v
            for k, v in state_dict.items()}


def give_back(state_dict, loaded):
    """After a load into ``loaded`` (made by to_state_dicts): Stateful
    values take their state, other top-level values are replaced."""
    for k, v in state_dict.items():
        if isinstance(v, Stateful):
            v.load_state_dict(loaded[k])
        else:
            state_dict[k] = loaded[k]
