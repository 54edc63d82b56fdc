"""torchlike.serialization: ``save``/``load`` in PyTorch's checkpoint format,
and pickling of tensors.

Two pickled forms of a tensor exist, for two readers:

* **Plain pickle** (``pickle.dumps(t)``, ``copy.deepcopy``, multiprocessing
  queues): ``Tensor.__reduce_ex__`` gives ``_rebuild_tensor(storage, dtype,
  offset, size, stride, requires_grad)``, where ``storage`` is the one
  :class:`UntypedStorage` object of the tensor's memory.  Pickle's memo sees
  the same storage object for every view of it, so views still share memory
  after unpickling.  A subclass (``nn.Parameter`` and any user class) pickles
  as its class, with its ``__dict__``.

* **Checkpoints** (``save``/``load``): PyTorch's zip format.  ``data.pkl`` is a
  protocol-2 pickle naming PyTorch's globals (``torch._utils._rebuild_tensor_v2``,
  ``torch.FloatStorage`` ...) so that PyTorch reads it; each storage is a
  record ``data/<key>``, stored uncompressed and 64-byte aligned, found
  through the persistent id ``('storage', storage_type, key, location, numel)``.
  ``load`` maps those names back to torchlike and reads PyTorch's legacy
  (pre-1.6, non-zip) format as well.

``load`` is safe by default (``weights_only=True``): the unpickler resolves only
the globals of tensors, storages, dtypes, devices, sizes and plain containers,
plus what the user allowlists with :func:`add_safe_globals`; any other global
is refused with :class:`pickle.UnpicklingError` naming it, before anything is
called.  Record sizes, shapes and strides are checked against each other, so a
corrupt or hostile file raises an exception and never reads or writes outside
its storages."""
import collections
import contextlib
import copy
import copyreg
import enum
import io
import mmap as _mmap
import os
import pathlib
import pickle
import random as _random
import struct
import sys
import weakref
import zipfile
import zlib
from _codecs import encode as _codecs_encode
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

from . import _C
from ._C import Tensor
from ._device import device as _device
from . import _layout, _sparse
from ._quantized.tensor import QTensor, qscheme as _qscheme

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_default_load_endianness", "set_default_load_endianness",
           "get_crc32_options", "set_crc32_options",
           "LoadEndianness", "UntypedStorage", "TypedStorage", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the legacy format's first pickle
PROTOCOL_VERSION = 1001                # and its second
STORAGE_ALIGNMENT = 64                 # where each data/<key> record starts in the zip
_ZIP_FILE_VERSION = b"3\n"             # the `version` record PyTorch writes

# PyTorch's legacy storage class per dtype: the storage type in persistent ids.
_STORAGE_NAMES = {
    "bool": "BoolStorage", "uint8": "ByteStorage", "int8": "CharStorage",
    "int16": "ShortStorage", "int32": "IntStorage", "int64": "LongStorage",
    "float16": "HalfStorage", "bfloat16": "BFloat16Storage", "float32": "FloatStorage",
    "float64": "DoubleStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_DTYPES = {name: getattr(_C, name) for name in _STORAGE_NAMES}
# The dtypes PyTorch added after its typed storages: saved as an untyped
# storage plus the dtype, through _rebuild_tensor_v3.
_UNTYPED_DTYPES = {name: getattr(_C, name) for name in (
    "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float8_e8m0fnu")}


# Quantized tensors' storages (their integers) carry the quantized dtype's name.
_QUANTIZED_STORAGE_NAMES = {"quint8": "QUInt8Storage", "qint8": "QInt8Storage",
                            "qint32": "QInt32Storage"}
_QSCHEMES = ("per_tensor_affine", "per_channel_affine", "per_channel_affine_float_qparams")


# ---- storages ---------------------------------------------------------------------

class UntypedStorage:
    """The bytes behind one or more tensors (``Tensor.untyped_storage()``).

    Holds a 1-d uint8 tensor over the memory (zero-copy).  ``t.untyped_storage()``
    returns the same object for every view of a storage while it is alive,
    which is what keeps views sharing memory through pickle's memo."""

    def __init__(self, nbytes=0, *, device="cpu"):
        self._bytes = _C.empty(int(nbytes), dtype=_C.uint8, device=device)

    @classmethod
    def _wrap(cls, byte_tensor):
        self = cls.__new__(cls)
        self._bytes = byte_tensor
        return self

    @property
    def device(self):
        return self._bytes.device

    def nbytes(self):
        return self._bytes.shape[0]

    size = nbytes
    __len__ = nbytes

    def data_ptr(self):
        return self._bytes.data_ptr()

    def element_size(self):
        return 1

    def cpu(self):
        return self if self.device.type == "cpu" else UntypedStorage._wrap(self._bytes.cpu())

    def cuda(self, device=None):
        return self.to("cuda" if device is None else _device("cuda", device)
                       if isinstance(device, int) else device)

    def to(self, device):
        device = _device(device)
        return self if self.device == device else UntypedStorage._wrap(self._bytes.to(device))

    def clone(self):
        return UntypedStorage._wrap(self._bytes.clone())

    def tolist(self):
        return self._bytes.tolist()

    def byteswap(self, dtype):
        """Reverse the byte order of each element of ``dtype`` in place (each
        half of a complex number separately), as PyTorch's does."""
        width = dtype.itemsize // (2 if dtype.is_complex else 1)
        if width == 1:
            return
        if self.nbytes() % width:
            raise RuntimeError(f"byteswap: a storage of {self.nbytes()} bytes is not a whole "
                               f"number of {dtype} elements")
        host = self._bytes.cpu()
        host.numpy().view(f"u{width}").byteswap(inplace=True)
        if host is not self._bytes:
            self._bytes.copy_(host)

    def __repr__(self):
        return f"torchlike.UntypedStorage(nbytes={self.nbytes()}, device='{self.device}')"

    def __reduce_ex__(self, protocol):
        host = self._bytes.cpu()
        if protocol >= 5:
            data = pickle.PickleBuffer(host)
        else:
            data = bytes(memoryview(host)) if host.shape[0] else b""
        return (_rebuild_storage, (data, str(self.device)))

    def __deepcopy__(self, memo):
        new = memo.get(id(self))
        if new is None:
            new = memo[id(self)] = self.clone()
        return new


class TypedStorage:
    """A storage read as elements of one dtype, as checkpoints describe them."""

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def device(self):
        return self._untyped_storage.device

    def size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    __len__ = size

    def _elements(self):
        """The storage as a 1-d tensor of dtype (zero-copy)."""
        raw = self._untyped_storage._bytes
        return raw.narrow(0, 0, self.size() * self.dtype.itemsize).view(self.dtype)

    def untyped(self):
        return self._untyped_storage

    def nbytes(self):
        return self.size() * self.dtype.itemsize

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        item = self._elements()[index]
        return item.item() if item.ndim == 0 else item.tolist()

    def __repr__(self):
        return f"torchlike.TypedStorage(dtype={self.dtype}, size={self.size()})"


def _rebuild_storage(data, device):
    """The unpickling side of ``UntypedStorage.__reduce_ex__``."""
    view = memoryview(data)
    if view.nbytes == 0:
        byte_tensor = _C.empty(0, dtype=_C.uint8, device="cpu")
    elif view.readonly:  # bytes: copy, so the tensors stay writable
        byte_tensor = _C.empty(view.nbytes, dtype=_C.uint8, device="cpu")
        memoryview(byte_tensor).cast("B")[:] = view.cast("B")
    else:  # a bytearray or an out-of-band buffer: adopt it
        byte_tensor = _C.frombuffer(data, dtype=_C.uint8)
    if device != "cpu":
        byte_tensor = byte_tensor.to(device)
    return UntypedStorage._wrap(byte_tensor)


_storage_objects = weakref.WeakValueDictionary()


def _untyped_storage(self):
    """The :class:`UntypedStorage` holding this tensor's memory: the same object
    for every view of it while that object is alive."""
    key = _C._storage_id(self)
    storage = _storage_objects.get(key)
    if storage is None:
        storage = _storage_objects[key] = UntypedStorage._wrap(_C._storage_bytes(self))
    return storage


# ---- building tensors back ------------------------------------------------------------

def _as_tuple(name, value):
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise RuntimeError(f"checkpoint tensor {name} must be a sequence of ints, got {value!r}")
    return tuple(value)


def _tensor_from_storage(storage, dtype, offset, size, stride):
    """The view (offset, size, stride in elements of dtype) of an UntypedStorage,
    checked to stay inside it."""
    if not isinstance(storage, UntypedStorage):
        raise RuntimeError(f"expected a storage to rebuild a tensor from, got "
                           f"{type(storage).__name__}")
    size, stride = _as_tuple("size", size), _as_tuple("stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"checkpoint tensor has size {size} but stride {stride}: "
                           f"they must have the same length")
    if not isinstance(offset, int) or offset < 0:
        raise RuntimeError(f"checkpoint tensor storage offset must be a non-negative int, "
                           f"got {offset!r}")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"checkpoint tensor has negative size or stride: size {size}, "
                           f"stride {stride}")
    byte_view = storage._bytes
    itemsize = dtype.itemsize
    if byte_view.shape[0] % itemsize:
        raise RuntimeError(f"a storage of {byte_view.shape[0]} bytes can't hold {dtype.name} "
                           f"elements ({itemsize} bytes each)")
    numel_storage = byte_view.shape[0] // itemsize
    if all(s > 0 for s in size):
        last = offset + sum((n - 1) * st for n, st in zip(size, stride))
        if last >= numel_storage:
            raise RuntimeError(f"checkpoint tensor of size {list(size)}, stride {list(stride)} "
                               f"and offset {offset} reaches element {last} of a {dtype.name} "
                               f"storage of only {numel_storage} elements")
    if numel_storage == 0:
        return _C.empty(size, dtype=dtype, device=byte_view.device)
    typed = byte_view.view(dtype)
    # a tensor rebuilt on a storage is no view of the storage's tensor (PyTorch)
    return typed.as_strided(size, stride, typed.storage_offset() + offset).detach()


def _rebuild_tensor(storage, dtype, storage_offset, size, stride, requires_grad):
    """The unpickling side of ``Tensor.__reduce_ex__``."""
    t = _tensor_from_storage(storage, dtype, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _set_state(obj, state):
    """Apply pickled state to a rebuilt tensor: ``__setstate__`` where the class
    defines one, else its ``__dict__`` (and ``(dict, slots)`` pairs)."""
    if not state:
        return obj
    setstate = getattr(type(obj), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        setstate(obj, state)
        return obj
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    for key, value in (slots or {}).items():
        setattr(obj, key, value)
    return obj


def _as_type(t, cls):
    if type(t) is cls:
        return t
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise RuntimeError(f"can't rebuild a tensor as {cls!r}: not a Tensor subclass")
    return _C._make_subclass(cls, t, t.requires_grad)


def _rebuild_from_type(cls, args, state):
    """A Tensor subclass (or a tensor with attributes) from plain pickle."""
    return _set_state(_as_type(_rebuild_tensor(*args), cls), state)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    """A meta tensor from its metadata (PyTorch's torch._utils function of
    that name: pickles and checkpoints keep no storage for meta tensors)."""
    return _C.empty_strided(size, stride, dtype=dtype, device="meta",
                            requires_grad=requires_grad)


def _rebuild_meta_from_type(cls, args, state):
    return _set_state(_as_type(_rebuild_meta_tensor_no_storage(*args), cls), state)


def _tensor_reduce_ex(self, protocol):
    if self.requires_grad:
        from .utils.hooks import warn_if_has_hooks
        warn_if_has_hooks(self)  # a gradient hook is not saved with the tensor
    state = self.__dict__
    if self.is_meta:  # no data: pickled as its metadata, as PyTorch does
        args = (self.dtype, tuple(self.shape), self.stride(), self.requires_grad)
        if type(self) is Tensor and not state:
            return (_rebuild_meta_tensor_no_storage, args)
        return (_rebuild_meta_from_type, (type(self), args, dict(state)))
    args = (self.untyped_storage(), self.dtype, self.storage_offset(), tuple(self.shape),
            self.stride(), self.requires_grad)
    if type(self) is Tensor and not state:
        return (_rebuild_tensor, args)
    return (_rebuild_from_type, (type(self), args, dict(state)))


def _tensor_deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol; detach() the tensor first")
    new = memo.get(id(self))
    if new is not None:
        return new
    storage = copy.deepcopy(self.untyped_storage(), memo)
    new = _rebuild_tensor(storage, self.dtype, self.storage_offset(), tuple(self.shape),
                          self.stride(), self.requires_grad)
    new = _as_type(new, type(self))
    memo[id(self)] = new
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    state = self.__dict__
    if state:
        _set_state(new, copy.deepcopy(dict(state), memo))
    return new


Tensor.untyped_storage = _untyped_storage
Tensor.__reduce_ex__ = _tensor_reduce_ex
Tensor.__deepcopy__ = _tensor_deepcopy
Tensor._make_subclass = staticmethod(_C._make_subclass)


# ---- PyTorch's rebuild functions (what data.pkl calls) --------------------------------

def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    if not isinstance(storage, TypedStorage):
        raise RuntimeError(f"_rebuild_tensor_v2 expects a storage, got {type(storage).__name__}")
    t = _tensor_from_storage(storage._untyped_storage, storage.dtype, storage_offset, size,
                             stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if not isinstance(storage, TypedStorage) or not isinstance(dtype, _C.dtype):
        raise RuntimeError(f"_rebuild_tensor_v3 expects a storage and a dtype, got "
                           f"{type(storage).__name__} and {type(dtype).__name__}")
    t = _tensor_from_storage(storage._untyped_storage, dtype, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v1(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride)


def _parameter_class():
    from . import nn
    return getattr(nn, "Parameter", None)


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    cls = _parameter_class()
    if cls is None:  # torchlike.nn without Parameter: a leaf that requires grad
        param = data.detach().requires_grad_(requires_grad)
    else:
        param = cls(data, requires_grad)
    return _set_state(param, state)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _rebuild_parameter(data, requires_grad, backward_hooks, state)


def _rebuild_from_type_v2(func, new_type, args, state):
    return _set_state(_as_type(func(*args), new_type), state)


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad,
                     backward_hooks=None):
    """torch._utils._rebuild_qtensor: a quantized tensor over a QUInt8Storage,
    QInt8Storage or QInt32Storage, with (qscheme, scale, zero_point) or
    (qscheme, scales, zero_points, axis).  Everything is checked before use:
    a file cannot make it call anything."""
    from . import _quantized
    from ._quantized.tensor import QDTYPES
    if not isinstance(storage, TypedStorage) or storage.dtype not in QDTYPES:
        raise pickle.UnpicklingError(f"_rebuild_qtensor expects a quantized storage, got "
                                     f"{type(storage).__name__}")
    params = quantizer_params
    if not isinstance(params, tuple) or not params or \
            not isinstance(params[0], _quantized.qscheme):
        raise pickle.UnpicklingError(f"_rebuild_qtensor: bad quantizer {params!r:.100}")
    ints = _tensor_from_storage(storage._untyped_storage, QDTYPES[storage.dtype][0],
                                storage_offset, size, stride)
    if params[0] is _quantized.per_tensor_affine and len(params) == 3 and \
            isinstance(params[1], (int, float)) and isinstance(params[2], int):
        return _quantized._make_per_tensor_quantized_tensor(ints, params[1], params[2])
    if params[0] is not _quantized.per_tensor_affine and len(params) == 4 and \
            isinstance(params[1], Tensor) and isinstance(params[2], Tensor) and \
            isinstance(params[3], int):
        return _quantized._make_per_channel_quantized_tensor(ints, params[1], params[2],
                                                             params[3])
    raise pickle.UnpicklingError(f"_rebuild_qtensor: bad quantizer {params!r:.100}")


class _StorageType:
    """What ``torch.FloatStorage`` and friends unpickle to: a dtype tag."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"torch.{self.name}"


def _rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor: a COO tensor from (indices, values,
    size[, is_coalesced]), a compressed one from (compressed_indices,
    plain_indices, values, size); the invariants are checked on the way in."""
    if not isinstance(layout, _layout.layout) or not isinstance(data, tuple):
        raise pickle.UnpicklingError(f"_rebuild_sparse_tensor: bad arguments {layout!r:.100}")
    if layout is _layout.sparse_coo and len(data) == 3:
        data = data + (False,)
    return _sparse._rebuild_sparse_tensor(layout._name, tuple(data))


class _Call:
    """A call written into a checkpoint: func(*args) when loaded."""

    def __init__(self, func, args):
        self.func, self.args = func, args


def _get_layout(name):
    """torch.serialization._get_layout: a layout from its name ("torch.sparse_coo")."""
    obj = getattr(_layout, str(name).rpartition(".")[2], None)
    if not isinstance(obj, _layout.layout):
        raise pickle.UnpicklingError(f"unknown layout {name!r:.100}")
    return obj


def _torch_globals():
    """PyTorch's global names that checkpoints use, mapped to torchlike."""
    table = {
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_tensor": _rebuild_tensor_v1,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.Tensor": Tensor,
        "torch.Size": _C.Size,
        "torch.device": _device,
        "torch.UntypedStorage": _StorageType("UntypedStorage", _C.uint8),
        "torch.storage.UntypedStorage": _StorageType("UntypedStorage", _C.uint8),
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch.serialization._get_layout": _get_layout,
        "torch._utils._rebuild_qtensor": _rebuild_qtensor,
    }
    from . import _quantized  # the quantized dtypes, their storages and the qschemes
    for dtype_name, storage_name in _QUANTIZED_STORAGE_NAMES.items():
        table[f"torch.{storage_name}"] = _StorageType(storage_name, getattr(_C, dtype_name))
        table[f"torch.{dtype_name}"] = getattr(_C, dtype_name)
    for name in _QSCHEMES:
        table[f"torch.{name}"] = getattr(_quantized, name)
    for dtype_name, storage_name in _STORAGE_NAMES.items():
        table[f"torch.{storage_name}"] = _StorageType(storage_name, _DTYPES[dtype_name])
        table[f"torch.{dtype_name}"] = _DTYPES[dtype_name]
    for dtype_name, dtype in _UNTYPED_DTYPES.items():
        table[f"torch.{dtype_name}"] = dtype
    param = _parameter_class()
    if param is not None:
        table["torch.nn.parameter.Parameter"] = param
    return table


# Beyond torch's names: what plain containers and scalars need under protocol 2.
_PLAIN_GLOBALS = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "_codecs.encode": _codecs_encode,  # bytes under protocol 2
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
}


# ---- the allowlist: add_safe_globals ---------------------------------------------------

_user_safe_globals = []


def _global_name(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(f"a safe global is an object or an (object, 'module.name') pair, "
                            f"got {entry!r}")
        return entry[1], entry[0]
    module = getattr(entry, "__module__", None)
    name = getattr(entry, "__qualname__", None) or getattr(entry, "__name__", None)
    if module is None or name is None:
        raise TypeError(f"{entry!r} has no __module__/__qualname__; pass it as "
                        f"(object, 'module.name')")
    return f"{module}.{name}", entry


def add_safe_globals(safe_globals):
    """Allow ``load(weights_only=True)`` to resolve these globals (classes or
    functions, or ``(obj, "module.name")`` pairs).  Only allow what you trust:
    the unpickler will construct and call them."""
    if not isinstance(safe_globals, (list, tuple, set)):
        raise TypeError(f"add_safe_globals expects a list, got {type(safe_globals).__name__}")
    for entry in safe_globals:
        _global_name(entry)  # validate before changing anything
    for entry in safe_globals:
        if entry not in _user_safe_globals:
            _user_safe_globals.append(entry)


def get_safe_globals():
    """The globals the user allowlisted with :func:`add_safe_globals`."""
    return list(_user_safe_globals)


def clear_safe_globals():
    """Forget every allowlisted global."""
    _user_safe_globals.clear()


class safe_globals(contextlib.ContextDecorator):
    """Allowlist globals for ``load(weights_only=True)`` inside a ``with`` block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._saved = list(_user_safe_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _user_safe_globals[:] = self._saved
        return False


# ---- byte order -----------------------------------------------------------------------

class LoadEndianness(enum.Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endian = None


def get_default_load_endianness():
    """The byte order assumed for checkpoints without a ``byteorder`` record
    (None: little-endian, as PyTorch)."""
    return _default_load_endian


def set_default_load_endianness(endianness):
    """Set the byte order assumed for checkpoints without a ``byteorder`` record."""
    global _default_load_endian
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness: "
                        "expected a LoadEndianness or None")
    _default_load_endian = endianness


def _file_byteorder(recorded):
    """The byte order of a checkpoint's storages: its record, else the default;
    None means native (no swap)."""
    if recorded is not None:
        if recorded not in (b"little", b"big"):
            raise ValueError(f"Unknown endianness type: {recorded.decode(errors='replace')}")
        return recorded.decode()
    endian = get_default_load_endianness()
    if endian is None or endian is LoadEndianness.LITTLE:
        return "little"
    if endian is LoadEndianness.BIG:
        return "big"
    return None


# ---- save -------------------------------------------------------------------------------

def _script_object_class():
    """torch.ScriptObject's stand-in (imported late: the quantized package is optional)."""
    global _SCRIPT_OBJECT
    if _SCRIPT_OBJECT is None:
        from ._quantized.script_object import ScriptObject
        _SCRIPT_OBJECT = ScriptObject
    return _SCRIPT_OBJECT


_SCRIPT_OBJECT = None


class _TorchName:
    """A global written as ``module name`` in data.pkl (PyTorch's own names)."""
    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle asks reduce functions to be callable
        raise TypeError(f"{self.module}.{self.name} only names a global in a checkpoint")


_TORCH_NAMES = {}


def _torch_name(module, name):
    key = (module, name)
    obj = _TORCH_NAMES.get(key)
    if obj is None:
        obj = _TORCH_NAMES[key] = _TorchName(module, name)
    return obj


class _SavedStorage:
    """One storage of the checkpoint: its key, dtype and bytes."""
    __slots__ = ("key", "dtype", "byte_tensor", "location")

    def __init__(self, key, dtype, byte_tensor, location):
        self.key, self.dtype, self.byte_tensor, self.location = key, dtype, byte_tensor, location


def _location_tag(dev):
    """A storage's location as checkpoints spell it: "cpu", "cuda:0" ..."""
    return "cpu" if dev.type == "cpu" else f"{dev.type}:{dev.index or 0}"


class _CheckpointPickler(pickle._Pickler):
    """Writes data.pkl: tensors as PyTorch's rebuild calls, storages as
    persistent ids, torchlike dtypes/devices/sizes under torch's names.

    The pure-Python pickler is used because its ``save_global`` can be told
    to write a global whose module (torch) is not importable here; data.pkl
    is small, the bytes of the storages go to their own records."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # storage id -> _SavedStorage, in key order

    def _storage(self, t, dtype=None):
        """t's storage; dtype names it when it is not t's (a quantized tensor's integers)."""
        dtype = t.dtype if dtype is None else dtype
        sid = _C._storage_id(t)
        saved = self.storages.get(sid)
        if saved is None:
            saved = _SavedStorage(str(len(self.storages)), dtype, _C._storage_bytes(t),
                                  _location_tag(t.device))
            self.storages[sid] = saved
        elif saved.dtype != dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               f"data as different types ({saved.dtype} and {dtype})")
        return saved

    def persistent_id(self, obj):
        if type(obj) is _SavedStorage:
            nbytes = obj.byte_tensor.shape[0]
            if nbytes % obj.dtype.itemsize:
                raise RuntimeError(f"a storage of {nbytes} bytes is not a whole number of "
                                   f"{obj.dtype} elements and can't be saved")
            if obj.dtype.name in _UNTYPED_DTYPES:
                return ("storage", _torch_name("torch.storage", "UntypedStorage"), obj.key,
                        obj.location, nbytes)
            names = _QUANTIZED_STORAGE_NAMES if obj.dtype.name in _QUANTIZED_STORAGE_NAMES \
                else _STORAGE_NAMES
            return ("storage", _torch_name("torch", names[obj.dtype.name]), obj.key,
                    obj.location, nbytes // obj.dtype.itemsize)
        return None

    def _tensor_args(self, t):
        args = (self._storage(t), t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                t.requires_grad, collections.OrderedDict())
        return args + (t.dtype,) if t.dtype.name in _UNTYPED_DTYPES else args

    @staticmethod
    def _rebuild_name(t):
        return _torch_name("torch._utils", "_rebuild_tensor_v3" if t.dtype.name in _UNTYPED_DTYPES
                           else "_rebuild_tensor_v2")

    def reducer_override(self, obj):
        if isinstance(obj, _Call):
            return obj.func, obj.args
        if not isinstance(obj, Tensor):
            return NotImplemented
        if isinstance(obj, _sparse.SparseTensor):  # PyTorch's sparse pickle
            # a layout pickles as PyTorch's: _get_layout("torch.sparse_coo")
            layout = _torch_name("torch.serialization", "_get_layout")
            if obj._layout is _sparse.sparse_coo:
                data = (obj._idx, obj._vals.detach(), _C.Size(obj._size), obj._coalesced)
            else:
                data = (obj._cidx, obj._pidx, obj._vals.detach(), _C.Size(obj._size))
            return (_torch_name("torch._utils", "_rebuild_sparse_tensor"),
                    (_Call(layout, (f"torch.{obj._layout._name}",)), data))
        if isinstance(obj, QTensor):  # PyTorch's _rebuild_qtensor
            from ._quantized.tensor import quantizer_params
            ints = obj._int
            return (_torch_name("torch._utils", "_rebuild_qtensor"),
                    (self._storage(ints, obj.dtype), ints.storage_offset(), tuple(ints.shape),
                     tuple(ints.stride()), quantizer_params(obj), False,
                     collections.OrderedDict()))
        if obj.requires_grad:
            from .utils.hooks import warn_if_has_hooks
            warn_if_has_hooks(obj)  # a gradient hook is not saved with the tensor
        state = dict(obj.__dict__)
        if obj.is_meta and type(obj) is Tensor and not state:  # no storage is saved
            return (_torch_name("torch._utils", "_rebuild_meta_tensor_no_storage"),
                    (obj.dtype, tuple(obj.shape), tuple(obj.stride()), obj.requires_grad))
        rebuild = self._rebuild_name(obj)
        param = _parameter_class()
        if param is not None and type(obj) is param:
            data = _C._make_subclass(Tensor, obj, False)
            if state:
                return (_torch_name("torch._utils", "_rebuild_parameter_with_state"),
                        (data, obj.requires_grad, collections.OrderedDict(), state))
            return (_torch_name("torch._utils", "_rebuild_parameter"),
                    (data, obj.requires_grad, collections.OrderedDict()))
        if type(obj) is Tensor and not state:
            return (rebuild, self._tensor_args(obj))
        cls = _torch_name("torch", "Tensor") if type(obj) is Tensor else type(obj)
        return (_torch_name("torch._tensor", "_rebuild_from_type_v2"),
                (rebuild, cls, self._tensor_args(obj), state))

    def save(self, obj, save_persistent_id=True):
        kind = type(obj)
        if kind is _TorchName:
            return self._save_torch_global(obj)
        if kind is _C.dtype:
            return self._save_torch_global(_torch_name("torch", obj.name), memo_key=obj)
        if kind is _qscheme:
            return self._save_torch_global(_torch_name("torch", obj.name), memo_key=obj)
        if kind is _C.Size:
            return self.save_reduce(_torch_name("torch", "Size"), (tuple(obj),), obj=obj)
        if kind is _script_object_class():  # NEWOBJ torch.ScriptObject, BUILD its state
            return self.save_reduce(copyreg.__newobj__, (_torch_name("torch", "ScriptObject"),),
                                    obj.__getstate__())
        if kind is _device:
            return self.save_reduce(_torch_name("torch", "device"), (str(obj),), obj=obj)
        return super().save(obj, save_persistent_id)

    def _save_torch_global(self, name, memo_key=None):
        key = memo_key if memo_key is not None else name
        entry = self.memo.get(id(key))
        if entry is not None:
            self.write(self.get(entry[0]))
            return
        self.write(pickle.GLOBAL + f"{name.module}\n{name.name}\n".encode("utf-8"))
        self.memoize(key)


def _pickle_checkpoint(obj, protocol):
    buf = io.BytesIO()
    pickler = _CheckpointPickler(buf, protocol)
    pickler.dump(obj)
    return buf.getvalue(), list(pickler.storages.values())


def _host_bytes(saved):
    data = saved.byte_tensor
    if data.device.type != "cpu":
        data = data.cpu()
    return memoryview(data).cast("B") if data.shape[0] else memoryview(b"")


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


class _ZipWriter:
    """A zip archive of stored (uncompressed) records, written in order as
    PyTorch writes checkpoints: each record's data may start at a multiple of
    `align` bytes (an "FB" padding field in its local header); zip64 fields
    appear when sizes or offsets need them.

    The CRC-32 of each large record is computed on worker threads (zlib
    releases the GIL) while earlier records are being written, so a save
    costs about the time of writing the bytes."""

    _LOCAL = struct.Struct("<4s5H3L2H")
    _CENTRAL = struct.Struct("<4s6H3L5H2L")
    _EOCD = struct.Struct("<4s4H2LH")
    _ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
    _ZIP64_LOCATOR = struct.Struct("<4sLQL")
    _DOS_DATE = (1 << 5) | 1  # 1980-01-01, as PyTorch's writer stamps every record
    LIMIT = 0xFFFFFFFF  # sizes and offsets from here on need zip64 fields (tests lower it)

    def __init__(self, f):
        self.f = f
        self.pos = 0
        self.entries = []

    def _put(self, data):
        self.f.write(data)
        self.pos += len(data)

    def record(self, name, data, crc, align=1):
        name = name.encode("utf-8")
        nbytes = len(data)
        zip64 = nbytes >= self.LIMIT or self.pos >= self.LIMIT
        extra = struct.pack("<2HQQ", 1, 16, nbytes, nbytes) if zip64 else b""
        if align > 1:
            pad = -(self.pos + self._LOCAL.size + len(name) + len(extra) + 4) % align
            extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        size32 = 0xFFFFFFFF if zip64 else nbytes
        offset = self.pos
        self._put(self._LOCAL.pack(b"PK\x03\x04", 45 if zip64 else 20, 0, 0, 0,
                                   self._DOS_DATE, crc, size32, size32, len(name), len(extra)))
        self._put(name)
        self._put(extra)
        if nbytes:
            self._put(data)
        self.entries.append((name, crc, nbytes, offset))

    def close(self):
        start = self.pos
        for name, crc, nbytes, offset in self.entries:
            zip64 = nbytes >= self.LIMIT or offset >= self.LIMIT
            extra = struct.pack("<2H3Q", 1, 24, nbytes, nbytes, offset) if zip64 else b""
            big = 0xFFFFFFFF
            self._put(self._CENTRAL.pack(b"PK\x01\x02", 45 if zip64 else 20,
                                         45 if zip64 else 20, 0, 0, 0, self._DOS_DATE, crc,
                                         big if zip64 else nbytes, big if zip64 else nbytes,
                                         len(name), len(extra), 0, 0, 0, 0,
                                         big if zip64 else offset))
            self._put(name)
            self._put(extra)
        size, count = self.pos - start, len(self.entries)
        if count >= 0xFFFF or start >= self.LIMIT or size >= self.LIMIT:
            eocd64 = self.pos
            self._put(self._ZIP64_EOCD.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count,
                                            size, start))
            self._put(self._ZIP64_LOCATOR.pack(b"PK\x06\x07", 0, eocd64, 1))
            count, size, start = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
        self._put(self._EOCD.pack(b"PK\x05\x06", 0, 0, count, count, size, start, 0))


_compute_crc32 = True


def get_crc32_options():
    """Whether :func:`save` computes the CRC-32 of each record (True by default)."""
    return _compute_crc32


def set_crc32_options(compute_crc32):
    """Turn the CRC-32 of saved records off (written as 0, as PyTorch does) or
    back on.  Off saves the time of one pass over the data; zip tools then
    report the records as damaged, torch.load and torchlike.load read them."""
    global _compute_crc32
    _compute_crc32 = bool(compute_crc32)


def _crc32(data):
    return zlib.crc32(data) if _compute_crc32 else 0


def _save_zip(obj, f, protocol, archive, write_byteorder):
    from concurrent.futures import ThreadPoolExecutor

    data_pkl, storages = _pickle_checkpoint(obj, protocol)
    datas = [_host_bytes(saved) for saved in storages]
    writer = _ZipWriter(f)
    prefix = archive + "/"

    def small(name, data):
        writer.record(prefix + name, data, _crc32(data))

    with ThreadPoolExecutor(max_workers=max(1, min(4, (os.cpu_count() or 1) - 1))) as pool:
        crcs = [pool.submit(_crc32, data) for data in datas]
        small("data.pkl", data_pkl)
        small(".format_version", b"1")
        small(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
        if write_byteorder:
            small("byteorder", sys.byteorder.encode())
        for saved, data, crc in zip(storages, datas, crcs):
            writer.record(f"{prefix}data/{saved.key}", data, crc.result(), STORAGE_ALIGNMENT)
    small("version", _ZIP_FILE_VERSION)
    small(".data/serialization_id",
          "".join(_random.choice("0123456789") for _ in range(40)).encode())
    writer.close()


class _LegacyPickler(_CheckpointPickler):
    """The legacy persistent id has a sixth field, the view metadata (None)."""

    def persistent_id(self, obj):
        pid = super().persistent_id(obj)
        return None if pid is None else pid + (None,)


def _save_legacy(obj, f, protocol):
    """PyTorch's pre-1.6 format: five pickles, then each storage as an int64
    element count and its bytes."""
    buf = io.BytesIO()
    pickler = _LegacyPickler(buf, protocol)
    pickler.dump(obj)
    storages = list(pickler.storages.values())
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    pickle.dump(MAGIC_NUMBER, f, protocol=protocol)
    pickle.dump(PROTOCOL_VERSION, f, protocol=protocol)
    pickle.dump(sys_info, f, protocol=protocol)
    f.write(buf.getvalue())
    pickle.dump([s.key for s in storages], f, protocol=protocol)
    for saved in storages:
        data = _host_bytes(saved)
        untyped = saved.dtype.name in _UNTYPED_DTYPES  # counted in bytes, as its persistent id
        f.write(struct.pack("<q", data.nbytes // (1 if untyped else saved.dtype.itemsize)))
        f.write(data)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` to ``f`` (a path or a writable binary file) in PyTorch's
    checkpoint format, which ``torch.load(f, weights_only=True)`` reads.

    Tensors sharing storage share it again after loading; each storage is
    written once, whole, as PyTorch does.  ``_use_new_zipfile_serialization=False``
    writes the legacy (pre-1.6) format."""
    if pickle_module is not pickle:
        raise ValueError("torchlike.save writes data.pkl with its own pickler; pickle_module "
                         "must be the standard pickle module")
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"pickle_protocol must be an int in [2, {pickle.HIGHEST_PROTOCOL}], "
                         f"got {pickle_protocol!r}")
    if isinstance(f, (str, os.PathLike)):
        parent = pathlib.Path(os.fspath(f)).parent
        if not parent.is_dir():   # PyTorch's words for a checkpoint directory not made yet
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(f, "wb") as out:
            _save_to(obj, out, pickle_protocol, _archive_name(f), _use_new_zipfile_serialization,
                     _disable_byteorder_record)
        return
    if not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    _save_to(obj, f, pickle_protocol, "archive", _use_new_zipfile_serialization,
             _disable_byteorder_record)


def _save_to(obj, f, protocol, archive, zip_format, no_byteorder):
    if zip_format:
        _save_zip(obj, f, protocol, archive, not no_byteorder)
    else:
        _save_legacy(obj, f, protocol)


# ---- load: unpicklers -------------------------------------------------------------------

def _fix_name(module, name):
    """Python 2 names (protocol-2 pickles written by Python 2) as Python 3's."""
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


def _refused(full):
    return pickle.UnpicklingError(
        f"Weights only load failed: unsupported global: GLOBAL {full} was not an allowed global "
        f"by default. Use `torchlike.serialization.add_safe_globals([{full}])` or the "
        f"`torchlike.serialization.safe_globals([{full}])` context manager to allowlist it if "
        f"you trust it, or load with weights_only=False if you trust the whole file (that can "
        f"run arbitrary code)")


class _WeightsUnpickler(pickle._Unpickler):
    """Resolves only allowlisted globals: everything a pickle can call comes
    from find_class, so refusing here means nothing else is ever called.

    The pure-Python unpickler is used on purpose: its memo is a dict, where
    the C one grows an array to the largest index a PUT names, so a hostile
    LONG_BINPUT could make it allocate and clear gigabytes."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load
        self._allowed = {**_PLAIN_GLOBALS, **_torch_globals()}
        for entry in _user_safe_globals:
            full, obj = _global_name(entry)
            self._allowed[full] = obj

    def persistent_load(self, pid):
        return self._persistent(pid)

    def load(self):
        # The pure-Python unpickler reports a truncated or malformed pickle as
        # a bare EOFError, a struct.error or an IndexError from its own stack
        # (where the C one raises UnpicklingError): say what it means.  An
        # IndexError raised by a rebuild function it called keeps its message.
        try:
            return super().load()
        except (EOFError, struct.error) as e:
            raise pickle.UnpicklingError(f"the pickle is truncated: it ends inside an opcode's "
                                         f"argument or before its STOP ({str(e) or 'no more data'})") \
                from None
        except IndexError as e:
            tb = e.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            if tb.tb_frame.f_code.co_filename != pickle.__file__:
                raise
            raise pickle.UnpicklingError(f"the pickle is malformed: an opcode finds fewer items "
                                         f"on the stack, or fewer bytes, than it needs ({e})") \
                from None

    def find_class(self, module, name):
        module, name = _fix_name(module, name)
        full = f"{module}.{name}"
        if full == "torchlike.overrides._public":
            # a public function behind its __torch_function__ wrapper pickles as
            # _public("torchlike.nn.functional.relu"): resolve only allowed names
            return self._resolve_public
        obj = self._allowed.get(full)
        if obj is None:
            raise _refused(full)
        return obj

    def _resolve_public(self, full):
        obj = self._allowed.get(full) if isinstance(full, str) else None
        if obj is None:
            raise _refused(full)
        return obj

    def _load_bytearray8(self):
        # pickle's own BYTEARRAY8 allocates the length the file states before
        # reading anything: a hostile 8-byte length would ask for exabytes.
        # Read first (never more than the file holds), then check.
        (size,) = struct.unpack("<Q", self.read(8))
        data = self.read(size)
        if len(data) != size:
            raise pickle.UnpicklingError(f"BYTEARRAY8 states {size} bytes but the pickle holds "
                                         f"{len(data)}: the file is truncated or corrupt")
        self.append(bytearray(data))

    def _load_build(self):
        # BUILD sets attributes on whatever object is on the stack, and an
        # allowed global is on the stack as itself: BUILD on torch.Tensor (the
        # class) or on a rebuild function would rewrite them for the whole
        # process.  Only instances of the allowed classes take a state.
        if len(self.stack) < 2:
            raise pickle.UnpicklingError("the pickle is malformed: BUILD needs an object and its "
                                         "state on the stack")
        inst = self.stack[-2]  # below the state
        if isinstance(inst, type) or not any(type(inst) is cls for cls in self._allowed.values()):
            what = f"the class {inst.__qualname__}" if isinstance(inst, type) else \
                f"a {type(inst).__qualname__}"
            raise pickle.UnpicklingError(
                f"Weights only load failed: BUILD can set the state of instances of allowed "
                f"classes only (tensors, parameters, OrderedDict, classes given to "
                f"add_safe_globals), not of {what}")
        pickle._Unpickler.load_build(self)

    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.BYTEARRAY8[0]] = _load_bytearray8
    dispatch[pickle.BUILD[0]] = _load_build


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: PyTorch's names map to torchlike, others import as usual."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load
        self._torch = _torch_globals()

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module, name):
        module, name = _fix_name(module, name)
        obj = self._torch.get(f"{module}.{name}")
        if obj is not None:
            return obj
        if module == "torch" and name == "ScriptObject":  # quantized RNNs' packed weights
            return _script_object_class()
        if module == "torch.nn.parameter" and name == "Parameter":
            param = _parameter_class()
            if param is not None:
                return param
        if module.startswith("torch.nn.modules."):  # torch.nn.modules.linear.Linear -> nn.Linear
            from . import nn
            if hasattr(nn, name):
                return getattr(nn, name)
        return super().find_class(module, name)


def _check_pid(pid, length):
    if not isinstance(pid, tuple) or len(pid) != length or pid[0] not in ("storage", b"storage"):
        raise pickle.UnpicklingError(f"unknown persistent id in checkpoint: {pid!r:.200}")
    storage_type, key, location, numel = pid[1:5]
    if isinstance(location, bytes):
        location = location.decode("ascii", "replace")
    if not isinstance(storage_type, _StorageType):
        raise pickle.UnpicklingError(f"checkpoint storage type must be a torch storage class, "
                                     f"got {storage_type!r:.200}")
    if not isinstance(key, (str, int)) or not isinstance(location, str):
        raise pickle.UnpicklingError(f"malformed storage id in checkpoint: {pid!r:.200}")
    if not isinstance(numel, int) or isinstance(numel, bool) or numel < 0:
        raise pickle.UnpicklingError(f"checkpoint storage {key!r} has invalid size {numel!r}")
    return storage_type.dtype, str(key), location, numel


# ---- load: map_location -----------------------------------------------------------------

def _default_restore(storage, location):
    if location == "cpu":
        return storage.cpu()
    if location.startswith("cuda"):
        from . import cuda
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                               "torchlike.cuda.is_available() is False. If you are running on a "
                               "CPU-only machine, please use torchlike.load with "
                               "map_location=torchlike.device('cpu') to map your storages to "
                               "the CPU.")
        return storage.to(location)
    try:  # another device this process has (the emulated test device)
        device = _device(location)
    except RuntimeError:
        raise RuntimeError(f"don't know how to restore data location of "
                           f"{type(storage).__name__} (tagged with {location})") from None
    return storage.to(device)


def _restore_fn(map_location):
    if map_location is None:
        return _default_restore
    if isinstance(map_location, dict):
        return lambda storage, location: _default_restore(
            storage, str(map_location.get(location, location)))
    if isinstance(map_location, (str, bytes)):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: _default_restore(storage, target)
    if isinstance(map_location, _device):
        return lambda storage, location: _default_restore(storage, str(map_location))
    if callable(map_location):
        def restore(storage, location):
            result = map_location(storage, location)
            if result is None:
                return _default_restore(storage, location)
            if isinstance(result, TypedStorage):
                result = result._untyped_storage
            if not isinstance(result, UntypedStorage):
                raise TypeError(f"map_location returned {type(result).__name__}, expected a "
                                f"storage or None")
            return result
        return restore
    raise TypeError(f"map_location must be None, a string, a device, a dict or a callable, "
                    f"got {type(map_location).__name__}")


# ---- load: the zip format -----------------------------------------------------------------

class _ZipRecords:
    """The records of a checkpoint zip, read straight from the file (stored
    records) or mapped (mmap=True)."""

    def __init__(self, f, mapped):
        try:
            self.zip = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as e:
            raise RuntimeError(f"not a valid checkpoint: the zip archive can't be read ({e})") \
                from None
        self.f = f
        self.mapped = mapped
        names = [n for n in self.zip.namelist() if n.endswith("data.pkl")
                 and n.count("/") == 1]
        if not names:
            raise RuntimeError("not a valid checkpoint: the zip archive has no <archive>/data.pkl "
                               "record")
        self.prefix = names[0][:-len("data.pkl")]

    def has(self, name):
        try:
            self.zip.getinfo(self.prefix + name)
            return True
        except KeyError:
            return False

    def read(self, name):
        """A small record's bytes, checked against its CRC-32 unless that is 0
        (not computed: set_crc32_options(False), as PyTorch also writes)."""
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(f"not a valid checkpoint: record {name} is missing") from None
        if info.compress_type != zipfile.ZIP_STORED:
            try:
                return self.zip.read(info)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
                raise RuntimeError(f"not a valid checkpoint: record {name} can't be read "
                                   f"({e})") from None
        self.f.seek(self._data_offset(info))
        data = self.f.read(info.file_size)
        if len(data) != info.file_size:
            raise RuntimeError(f"not a valid checkpoint: record {name} is truncated")
        if info.CRC and zlib.crc32(data) != info.CRC:
            raise RuntimeError(f"not a valid checkpoint: record {name} fails its CRC-32 check")
        return data

    def _data_offset(self, info):
        self.f.seek(info.header_offset)
        header = self.f.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"not a valid checkpoint: bad local header for {info.filename}")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len

    def storage(self, key, nbytes):
        """The bytes of data/<key>, checked to be exactly nbytes long."""
        name = f"data/{key}"
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(f"not a valid checkpoint: record {name} is missing") from None
        if info.file_size != nbytes:
            raise RuntimeError(f"not a valid checkpoint: record {name} holds {info.file_size} "
                               f"bytes, but data.pkl describes a storage of {nbytes} bytes")
        if nbytes == 0:
            return _C.empty(0, dtype=_C.uint8, device="cpu")
        if info.compress_type != zipfile.ZIP_STORED:
            data = self.read(name)
            if len(data) != nbytes:  # the directory's size is the file's word, not checked
                raise RuntimeError(f"not a valid checkpoint: record {name} decompresses to "
                                   f"{len(data)} bytes, but its directory entry and data.pkl "
                                   f"say {nbytes}")
            out = _C.empty(nbytes, dtype=_C.uint8, device="cpu")
            memoryview(out).cast("B")[:] = data
            return out
        offset = self._data_offset(info)
        if offset + nbytes > self.f.seek(0, io.SEEK_END):  # before allocating what it states
            raise RuntimeError(f"not a valid checkpoint: record {name} of {nbytes} bytes runs "
                               f"past the end of the file")
        if self.mapped is not None and offset % STORAGE_ALIGNMENT == 0:
            return _C.frombuffer(self.mapped, dtype=_C.uint8, count=nbytes, offset=offset)
        out = _C.empty(nbytes, dtype=_C.uint8, device="cpu")
        self.f.seek(offset)
        got = self.f.readinto(memoryview(out).cast("B"))
        if got != nbytes:
            raise RuntimeError(f"not a valid checkpoint: record {name} is truncated ({got} of "
                               f"{nbytes} bytes)")
        return out


def _unpickler(weights_only):
    return _WeightsUnpickler if weights_only else _FullUnpickler


def _load_zip(f, restore, weights_only, mapped, pickle_args):
    records = _ZipRecords(f, mapped)
    byteorder = _file_byteorder(records.read("byteorder") if records.has("byteorder") else None)
    swap = byteorder is not None and byteorder != sys.byteorder
    loaded = {}

    def persistent_load(pid):
        dtype, key, location, numel = _check_pid(pid, 5)
        typed = loaded.get(key)
        if typed is None:
            storage = UntypedStorage._wrap(records.storage(key, numel * dtype.itemsize))
            if swap:
                storage.byteswap(dtype)
            typed = loaded[key] = TypedStorage(restore(storage, location), dtype)
        elif typed.dtype != dtype:
            typed = TypedStorage(typed._untyped_storage, dtype)
        return typed

    data = records.read("data.pkl")
    return _unpickler(weights_only)(io.BytesIO(data), persistent_load,
                                          **pickle_args).load()


# ---- load: the legacy format ---------------------------------------------------------------

def _load_legacy(f, restore, weights_only, pickle_args):
    """Five pickles (magic number, protocol, system info, the object, the
    storage keys), then each storage: an int64 element count and its bytes.
    As in PyTorch, storages are allocated when the object pickle names them and
    filled in place afterwards, so the tensors built over them see the data."""
    cls = _unpickler(weights_only)

    def no_pid(pid):
        raise pickle.UnpicklingError("unexpected persistent id in a legacy checkpoint header")

    def next_pickle(persistent_load=no_pid):
        return cls(f, persistent_load, **pickle_args).load()

    if next_pickle() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol = next_pickle()
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol!r:.100}")
    sys_info = next_pickle()
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    start = f.tell()
    size = f.seek(0, io.SEEK_END) - start
    f.seek(start)
    roots = {}  # key -> (storage as restored, dtype)

    def persistent_load(pid):
        dtype, key, location, numel = _check_pid(pid, 6)
        nbytes = numel * dtype.itemsize
        root = roots.get(key)
        if root is None:
            if nbytes > size:
                raise RuntimeError(f"not a valid checkpoint: storage {key} of {nbytes} bytes is "
                                   f"larger than the file")
            root = roots[key] = (restore(UntypedStorage(nbytes), location), dtype)
        storage = root[0]
        view = pid[5]
        if view is not None:
            if (not isinstance(view, tuple) or len(view) != 3 or not all(
                    isinstance(v, int) and v >= 0 for v in view[1:])):
                raise pickle.UnpicklingError(f"malformed view metadata {view!r:.200}")
            lo, hi = view[1] * dtype.itemsize, (view[1] + view[2]) * dtype.itemsize
            if hi > storage.nbytes():
                raise RuntimeError(f"not a valid checkpoint: a view of storage {key} runs past "
                                   f"its end")
            storage = UntypedStorage._wrap(storage._bytes[lo:hi])
        return TypedStorage(storage, dtype)

    result = next_pickle(persistent_load)
    keys = next_pickle()
    if not isinstance(keys, list):
        raise RuntimeError("not a valid checkpoint: the legacy storage key list is missing")
    swap = little != (sys.byteorder == "little")
    unfilled = set(roots) - {str(key) for key in keys}
    if unfilled:  # its tensors would show whatever the allocation held
        raise RuntimeError(f"not a valid checkpoint: storage {min(unfilled)} is used by the pickle "
                           f"but the file holds no data for it")
    for key in keys:
        key = str(key)
        if key not in roots:
            raise RuntimeError(f"not a valid checkpoint: storage {key} is not used by the pickle")
        storage, dtype = roots[key]
        head = f.read(8)
        if len(head) != 8:
            raise RuntimeError(f"not a valid checkpoint: storage {key} is truncated")
        (numel,) = struct.unpack("<q" if little else ">q", head)
        if numel * dtype.itemsize != storage.nbytes():
            raise RuntimeError(f"not a valid checkpoint: storage {key} holds {numel} elements, "
                               f"the pickle describes {storage.nbytes() // dtype.itemsize}")
        if numel:
            host = storage._bytes if storage.device.type == "cpu" else \
                _C.empty(storage.nbytes(), dtype=_C.uint8, device="cpu")
            if f.readinto(memoryview(host).cast("B")) != storage.nbytes():
                raise RuntimeError(f"not a valid checkpoint: storage {key} is truncated")
            if host is not storage._bytes:
                storage._bytes.copy_(host)
            if swap:
                storage.byteswap(dtype)
    return result


# ---- load ------------------------------------------------------------------------------------

def _open_source(f):
    if isinstance(f, (str, os.PathLike)):
        return open(f, "rb"), True
    if not hasattr(f, "seek") or isinstance(f, (bytes, bytearray, memoryview)):
        # PyTorch's words (bytes included: they are to be wrapped in io.BytesIO)
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only "
                             f"torch.load from a file that is seekable. Please pre-load the data "
                             f"into a buffer like io.BytesIO and try to load from it instead.")
    if not hasattr(f, "read"):
        raise TypeError(f"load expects a path or a readable, seekable binary file, got "
                        f"{type(f).__name__}")
    return f, False


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load what :func:`save` (or ``torch.save``) wrote.

    ``weights_only=True`` (the default) unpickles only tensors, storages, plain
    containers and scalars, dtypes, devices, sizes and globals allowed with
    :func:`add_safe_globals`; anything else raises ``pickle.UnpicklingError``
    naming it.  ``weights_only=False`` runs the full unpickler: only for files
    you trust.

    ``map_location`` (a device string, ``torchlike.device``, a dict from saved
    location to new one, or ``fn(storage, location)``) says where storages go.
    ``mmap=True`` maps the file: storages are copy-on-write views of it (no read,
    no copy).  Both zip checkpoints and PyTorch's legacy format are read."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified; pass weights_only=False to use a custom pickle_module")
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("torchlike.load reads data.pkl with its own unpickler; pickle_module "
                         "must be the standard pickle module")
    pickle_load_args.setdefault("encoding", "utf-8")
    restore = _restore_fn(map_location)
    file, owned = _open_source(f)
    try:
        start = file.tell()
        magic = file.read(4)
        file.seek(start)
        if not magic:
            raise EOFError("Ran out of input: the checkpoint file is empty")
        try:
            if magic == b"PK\x03\x04":
                mapped = _map_file(file) if mmap else None
                return _load_zip(file, restore, weights_only, mapped, pickle_load_args)
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with "
                                   "torchlike.save(_use_new_zipfile_serialization=True)")
            if magic[:1] == pickle.PROTO:
                return _load_legacy(file, restore, weights_only, pickle_load_args)
        except pickle.UnpicklingError as e:
            if weights_only and str(e).startswith("Weights only load failed"):
                raise
            raise pickle.UnpicklingError(f"not a valid checkpoint: {e}") from None
        raise RuntimeError(f"not a valid checkpoint: the file starts with {magic!r}, neither a "
                           f"zip archive nor a pickle (PyTorch's legacy tar format is not "
                           f"supported)")
    finally:
        if owned:
            file.close()


def _map_file(file):
    try:
        fileno = file.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        raise RuntimeError("mmap=True needs a path or a real file (one with fileno())") from None
    return _mmap.mmap(fileno, 0, access=_mmap.ACCESS_COPY)
