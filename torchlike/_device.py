"""torchlike.device: where a tensor's memory lives ("cpu" or "cuda:N")."""


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
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device "
                               f"string: {type}")
        if type == "cpu" and index not in (None, -1, 0):
            raise RuntimeError(f"CPU device index must be -1 or zero, got {index}")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", None if type == "cpu" else index)

    def __setattr__(self, name, value):
        raise AttributeError("torchlike.device is immutable")

    def __eq__(self, other):
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
