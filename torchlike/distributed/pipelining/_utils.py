"""What the stages tell each other about their tensors, and the errors.

A stage's inputs and outputs are described by ``TensorMeta`` (shape, dtype
name, whether it requires grad): the metadata one stage sends the next
before the first step, as JSON (never pickled), and against which every
microbatch is checked before it is sent."""
import torchlike

__all__ = ["PipeliningMetadataError", "PipeliningShapeError", "TensorMeta"]


class PipeliningMetadataError(RuntimeError):
    """The tensors between two stages differ from what was agreed."""


PipeliningShapeError = PipeliningMetadataError  # PyTorch's older name


class TensorMeta:
    """Shape, dtype and requires_grad of one tensor between stages."""

    __slots__ = ("shape", "dtype", "requires_grad")

    def __init__(self, shape, dtype, requires_grad):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.requires_grad = bool(requires_grad)

    @classmethod
    def of(cls, t):
        return cls(t.shape, t.dtype, t.requires_grad)

    def to_json(self):
        return [list(self.shape), str(self.dtype).split(".")[-1], self.requires_grad]

    @classmethod
    def from_json(cls, j):
        return cls(j[0], getattr(torchlike, j[1]), j[2])

    def empty(self):
        return torchlike.empty(self.shape, dtype=self.dtype)

    def describe(self):
        return f"shape {self.shape}, dtype {str(self.dtype).replace('torchlike.', 'torch.')}"

    def __repr__(self):
        return f"TensorMeta({self.describe()}, requires_grad={self.requires_grad})"


def _size(shape):
    return "torch.Size(" + str(list(shape)) + ")"


def check_metas(desc, expected, actual):
    """Raise PipeliningMetadataError naming the first difference between two
    tuples of TensorMeta (``expected`` as the user gave it)."""
    if len(expected) != len(actual):
        raise PipeliningMetadataError(f"{desc}: expected {len(expected)} tensors, got "
                                      f"{len(actual)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        diffs = []
        if e.shape != a.shape:
            diffs.append(f"shape mismatch: {_size(e.shape)} vs {_size(a.shape)}")
        if e.dtype != a.dtype:
            diffs.append(f"dtype mismatch: {e.dtype} vs {a.dtype}".replace("torchlike.",
                                                                          "torch."))
        if diffs:
            raise PipeliningMetadataError(f"{desc}[{i}]: " + "; ".join(diffs))


def as_tuple(value):
    """A stage's arguments or outputs as a tuple."""
    if value is None:
        return ()
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)
