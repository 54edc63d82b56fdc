"""The named result tuples of the ops written in Python, made as PyTorch's
torch.return_types are: named as PyTorch names them (``linalg_slogdet`` for
torch.linalg.slogdet, ``slogdet`` for torch.slogdet), found by that name in
torchlike.return_types (the namespace the C ops' results share, so pickle
and isinstance find them), and printed a field a line as PyTorch prints
them.  Being namedtuples they also unpack, index and compare as tuples."""
from collections import namedtuple

from . import _C


def _repr(self):
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"torchlike.return_types.{type(self).__name__}(\n{fields})"


def return_type(name, fields):
    """The result type ``torchlike.return_types.<name>`` with these fields
    (made once: a second call gives the same type)."""
    existing = getattr(_C.return_types, name, None)
    if existing is not None:
        return existing
    cls = namedtuple(name, fields, module="torchlike.return_types")
    cls.__repr__ = _repr
    setattr(_C.return_types, name, cls)
    return cls
