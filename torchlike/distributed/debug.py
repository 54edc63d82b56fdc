"""The debug level of torch.distributed: ``DebugLevel`` (``OFF``, ``INFO``,
``DETAIL``), ``get_debug_level``, ``set_debug_level`` and
``set_debug_level_from_env`` (``TORCH_DISTRIBUTED_DEBUG``).

torchlike records the level and changes nothing by it: its collectives
check shapes and dtypes against every peer at every level (docs/distributed.md)."""
import enum
import os

__all__ = ["DebugLevel", "get_debug_level", "set_debug_level", "set_debug_level_from_env"]

_ENV = "TORCH_DISTRIBUTED_DEBUG"


class DebugLevel(enum.Enum):
    """``OFF`` (0), ``INFO`` (1), ``DETAIL`` (2); ``int(level)`` is the number."""
    OFF = 0
    INFO = 1
    DETAIL = 2

    def __int__(self):
        return self.value

    __index__ = __int__


_level = DebugLevel.OFF


def get_debug_level():
    return _level


def set_debug_level(level):
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): incompatible function arguments. The following "
                        f"argument types are supported:\n    1. (arg0: DebugLevel) -> None\n\n"
                        f"Invoked with: {level!r}")
    global _level
    _level = level


def _from_env():
    value = os.environ.get(_ENV)
    if value is None:
        return DebugLevel.OFF
    name = value.upper()
    if name not in DebugLevel.__members__:
        raise ValueError(f"The value of {_ENV} must be OFF, INFO, or DETAIL.")
    return DebugLevel[name]


def set_debug_level_from_env():
    """Set the level from ``TORCH_DISTRIBUTED_DEBUG`` (OFF when unset)."""
    set_debug_level(_from_env())


try:
    _level = _from_env()
except ValueError:
    pass  # PyTorch refuses to import; torchlike starts at OFF (set_debug_level_from_env raises)
