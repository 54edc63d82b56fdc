"""Tensor methods over storages that PyTorch code still calls: the
deprecated non-in-place ``resize`` / ``resize_as``, ``set_`` (a tensor, an
UntypedStorage or TypedStorage, with offset / size / stride), the legacy
``storage()`` (a TypedStorage over ``untyped_storage()``) and the legacy
storage classes ``torchlike.FloatStorage`` ... (TypedStorages of one dtype,
as PyTorch's: ``isinstance(t.storage(), FloatStorage)`` checks the dtype).

``set_`` rebinds the tensor to the new view in place (the ``.data``
setter), so every Python reference to it sees the new storage; a leaf that
requires grad refuses it, as PyTorch's does."""
import math
import warnings

from . import _C
from ._C import Tensor
from ._tensor_utils import _contiguous_strides, _last_element
from .serialization import TypedStorage, UntypedStorage, _untyped_storage

__all__ = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
           "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
           "ComplexFloatStorage", "ComplexDoubleStorage"]

_TYPED_WARNING = ("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()")


def _resized(self, sizes, what):
    warnings.warn(f"non-inplace {what} is deprecated", UserWarning, stacklevel=3)
    sizes = tuple(sizes)
    numel = math.prod(sizes)
    if numel != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but "
            f"the given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
            f"elements). autograd's resize can only change the shape of a given tensor, while "
            f"preserving the number of elements. ")
    return self.contiguous().view(sizes)


def resize(self, *sizes):
    """Deprecated: ``self`` viewed with ``sizes`` (same number of elements;
    differentiable), unlike the in-place ``resize_``."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, _C.Size)):
        sizes = tuple(sizes[0])
    return _resized(self, sizes, "resize")


def resize_as(self, tensor):
    """Deprecated: ``self.resize(tensor.size())``."""
    return _resized(self, tensor.shape, "resize_as")


def _storage_view(self, storage, offset, size, stride):
    """The view of ``storage`` in self's dtype, checked to fit."""
    if isinstance(storage, TypedStorage):
        if storage.dtype != self.dtype:
            raise RuntimeError(f"Expected a Storage of type {self.dtype} or an "
                               f"UntypedStorage, but got type {storage.dtype} for argument 1 "
                               f"'storage'")
        storage = storage._untyped_storage
    nbytes = storage.nbytes()
    itemsize = self.dtype.itemsize
    if size is None:
        size = (nbytes // itemsize - offset,)
    size = tuple(size)
    stride = _contiguous_strides(size) if stride is None or len(stride) == 0 else tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if offset < 0 or any(n < 0 for n in size):
        raise RuntimeError(f"set_: negative storage offset or size: offset {offset}, "
                           f"size {list(size)}")
    need = 0 if 0 in size else _last_element(size, stride, offset) + 1
    if need * itemsize > nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {need * itemsize} are out of bounds for storage of size "
                           f"{nbytes}")
    byte_view = storage._bytes
    usable = byte_view.narrow(0, 0, nbytes - nbytes % itemsize)
    return usable.view(self.dtype).as_strided(size, stride, offset)


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make self a view of ``source``: a tensor (its storage, offset, size
    and stride), or a storage with ``storage_offset``, ``size`` (default:
    all of it, 1-d) and ``stride`` (default: contiguous); ``set_()`` makes
    self empty.  Returns self."""
    if self.requires_grad and self.is_leaf and _C.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    _C._check_write(self)
    if source is None:
        view = _C.empty(0, dtype=self.dtype, device=self.device)
    elif isinstance(source, Tensor):
        if source.dtype != self.dtype:
            from ._composites import _dtype_name
            raise RuntimeError(f"Could not set tensor of type "
                               f"{_dtype_name(source.dtype).lower()} to a tensor of type "
                               f"{_dtype_name(self.dtype).lower()}")
        view = source.detach()
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        view = _storage_view(self, source, storage_offset, size, stride)
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    self.data = view
    return self


def storage(self):
    """Legacy: a TypedStorage of self's dtype over ``untyped_storage()``."""
    warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=2)
    return TypedStorage(_untyped_storage(self), self.dtype)


for _name in ("resize", "resize_as", "set_", "storage"):
    setattr(Tensor, _name, globals()[_name])


# ---- legacy storage classes --------------------------------------------------------

class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype == cls.dtype


def _legacy(name, dtype):
    def __new__(cls, *args, device=None):
        """FloatStorage(n): n uninitialised elements; FloatStorage(sequence):
        those values."""
        warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=2)
        if len(args) == 1 and not isinstance(args[0], int):
            t = _C.tensor(list(args[0]), dtype=dtype, device=device)
        else:
            t = _C.empty(int(args[0]) if args else 0, dtype=dtype, device=device)
        return TypedStorage(_untyped_storage(t), dtype)
    return _LegacyStorageMeta(name, (), {"dtype": dtype, "__new__": __new__,
                                          "__doc__": f"A legacy TypedStorage of {dtype}."})


FloatStorage = _legacy("FloatStorage", _C.float32)
DoubleStorage = _legacy("DoubleStorage", _C.float64)
HalfStorage = _legacy("HalfStorage", _C.float16)
BFloat16Storage = _legacy("BFloat16Storage", _C.bfloat16)
LongStorage = _legacy("LongStorage", _C.int64)
IntStorage = _legacy("IntStorage", _C.int32)
ShortStorage = _legacy("ShortStorage", _C.int16)
CharStorage = _legacy("CharStorage", _C.int8)
ByteStorage = _legacy("ByteStorage", _C.uint8)
BoolStorage = _legacy("BoolStorage", _C.bool)
ComplexFloatStorage = _legacy("ComplexFloatStorage", _C.complex64)
ComplexDoubleStorage = _legacy("ComplexDoubleStorage", _C.complex128)

_LEGACY_BY_DTYPE = {cls.dtype: cls for cls in (
    FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage,
    ShortStorage, CharStorage, ByteStorage, BoolStorage, ComplexFloatStorage,
    ComplexDoubleStorage)}


def storage_type(self):
    """Legacy: the storage class of self's dtype (``torchlike.FloatStorage`` ...)."""
    warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=2)
    return _LEGACY_BY_DTYPE[self.dtype]


def is_set_to(self, tensor):
    """Do self and tensor view the same memory the same way: one storage, the
    same offset, sizes and strides?"""
    return (self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
            and self.device == tensor.device and self.storage_offset() == tensor.storage_offset()
            and self.shape == tensor.shape and self.stride() == tensor.stride())


Tensor.storage_type = storage_type
Tensor.is_set_to = is_set_to

