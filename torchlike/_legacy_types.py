"""The legacy tensor types: ``torchlike.FloatTensor`` and its kin, their CUDA
twins under ``torchlike.cuda``, and ``Tensor.type()`` / ``type_as()``.

As in PyTorch, a legacy type is a class that constructs a tensor of its dtype
and device (``FloatTensor(2, 3)`` uninitialised, ``FloatTensor([1, 2])`` from
data, ``FloatTensor()`` empty) and that ``isinstance`` answers by dtype and
device; ``x.type()`` names it ("torchlike.FloatTensor", with torchlike. in
place of torch.), and ``x.type(t)`` casts to a dtype, a legacy type or its
name (torch.-spelled names are read too)."""
from . import _C
from ._dtype_names import SCALAR_NAMES as _NAMES, scalar_type_name

Tensor = _C.Tensor
# PyTorch has no classes for its complex and wide unsigned types; their
# names still read and print (x.type() is 'torch.UInt16Tensor').
_CLASSES = [(name, dtype) for name, dtype in _NAMES
            if not name.startswith(("Complex", "UInt"))]


class tensortype(type):
    """The metaclass of the legacy types: isinstance by dtype and device type."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and \
            obj.device.type == cls._device_type

    @property
    def is_cuda(cls):
        return cls._device_type == "cuda"

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _construct(cls, *args, device=None):
    device = device if device is not None else cls._device_type
    if not args:
        return _C.empty(0, dtype=cls.dtype, device=device)
    if len(args) == 1 and not isinstance(args[0], int):
        data = args[0]
        if isinstance(data, _C.Size):
            return _C.empty(tuple(data), dtype=cls.dtype, device=device)
        if isinstance(data, Tensor):
            if data.dtype != cls.dtype:
                raise TypeError(f"expected {cls.dtype} (got {data.dtype})")
            return data.to(device)
        return _C.tensor(data, dtype=cls.dtype, device=device)
    for i, a in enumerate(args):
        if not isinstance(a, int):
            raise TypeError(f"new(): argument 'size' must be a tuple of ints, but found element "
                            f"of type {type(a).__name__} at pos {i}")
    return _C.empty(args, dtype=cls.dtype, device=device)


def _make(name, dtype, device_type, module):
    return tensortype(name + "Tensor", (), {"dtype": dtype, "_device_type": device_type,
                                            "__module__": module, "__new__": _construct})


CPU_TYPES = {name + "Tensor": _make(name, dtype, "cpu", "torchlike") for name, dtype in _CLASSES}
CUDA_TYPES = {name + "Tensor": _make(name, dtype, "cuda", "torchlike.cuda")
              for name, dtype in _CLASSES}


def _type_name(t):
    # the test device's tensors go by the CPU's names (the device suites compare them)
    where = f"torchlike.{t.device.type}." if t.device.type in ("cuda", "meta") else "torchlike."
    return where + scalar_type_name(t.dtype) + "Tensor"


def _parse(name):
    """'torch.FloatTensor', 'torchlike.cuda.LongTensor' -> (dtype, device type)."""
    for prefix in ("torchlike.", "torch."):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            device, rest = ("cuda", rest[5:]) if rest.startswith("cuda.") else ("cpu", rest)
            for n, dtype in _NAMES:
                if rest == n + "Tensor":
                    return dtype, device
    raise ValueError(f"invalid type: '{name}'")


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """x.type(): the legacy type's name; x.type(t): x cast to t (a dtype, a
    legacy type or its name), x itself when it already is one."""
    if dtype is None:
        return _type_name(self)
    if isinstance(dtype, str):
        dtype, device = _parse(dtype)
    elif isinstance(dtype, tensortype):
        dtype, device = dtype.dtype, dtype._device_type
    else:
        device = self.device.type
    if dtype == self.dtype and device == self.device.type:
        return self
    target = self.device if device == self.device.type else device
    return self.to(target, dtype, non_blocking=non_blocking)


def _type_as(self, other):
    """x.to(other's dtype and device), as PyTorch's type_as: other's legacy
    type name would lose a device that has no legacy types (the CPU's name
    read back)."""
    return self.to(other.device, other.dtype)


Tensor.type = _type
Tensor.type_as = _type_as
