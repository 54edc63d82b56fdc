"""torchlike.device: where a tensor's memory lives ("cpu", "cuda:N", or the
"fake" test device once ``torchlike._C._fake_enable()`` has been called).

A device object is also a context manager: inside ``with torchlike.device(d):``
creation functions (``zeros``, ``tensor``, ``arange`` ...) put their results
on ``d`` unless given ``device=``, as ``torchlike.set_default_device(d)`` does
for the whole process."""
from . import _C

_TYPES = ("cpu", "cuda", "meta")


def _known_types():
    return _TYPES + ("fake",) if _C._fake_enabled() else _TYPES


class device:
    """A device, as in PyTorch: ``device("cpu")``, ``device("cuda:0")``,
    ``device("cuda", 1)``.  Compares equal to devices naming the same place."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError(f"device() expects a string or an int, not {type!r}")
        elif ":" in type:
            if index is not None:
                raise ValueError(f"type (string) must not include an index because index was "
                                 f"passed explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        known = _known_types()
        if type not in known:
            raise RuntimeError(f"Expected one of {', '.join(known)} device type at start of "
                               f"device string: {type}")
        if type == "cpu" and index not in (None, -1, 0):
            raise RuntimeError(f"CPU device index must be -1 or zero, got {index}")
        if index is not None and not isinstance(index, int):
            raise TypeError(f"device index must be an int, not {index!r}")
        if index is not None and index < 0 and type != "cpu":
            raise RuntimeError(f"Device index must not be negative")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", None if type == "cpu" else index)

    def __setattr__(self, name, value):
        raise AttributeError("torchlike.device is immutable")

    def __eq__(self, other):
        if other is self:  # C hands out one object per place: the common case
            return True
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))

    # The default device while the block runs; nesting restores in order.
    # The saved devices are one stack, as the default device is one setting:
    # a device is a value (C hands out one object per place), not a state.
    def __enter__(self):
        _ENTERED.append(_C._get_default_device())
        _C._set_default_device(self)
        return self

    def __exit__(self, *exc):
        _C._set_default_device(_ENTERED.pop())
        return False


_ENTERED = []


def set_default_device(device):
    """Put tensors made by creation functions on ``device`` from now on
    (``None`` restores the CPU)."""
    _C._set_default_device(device)


def get_default_device():
    """The device creation functions use when given no ``device=``."""
    return _C._get_default_device()



_DEVICE = device  # the class, which get_device_module's argument name hides


def get_device_module(device=None):
    """The module of a device's type: torchlike.cuda for "cuda", torchlike.cpu
    for "cpu"; with no device (or an index), the accelerator's
    (torchlike.cuda in a build with CUDA), else torchlike.cpu."""
    import importlib
    from . import _C
    if device is None or isinstance(device, int):
        kind = "cuda" if _C._cuda_compiled() else "cpu"
    elif isinstance(device, (str, _DEVICE)):
        kind = device.split(":")[0] if isinstance(device, str) else device.type
    else:
        raise TypeError(f"get_device_module(): device must be a torchlike.device, a str or an "
                        f"int, not {type(device).__name__}")
    if kind not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'torchlike.{kind}'.")
    return importlib.import_module(f"torchlike.{kind}")
