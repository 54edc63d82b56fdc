"""The ndarray methods that read and write memory and files, on Tensor:
``byteswap``, ``dump`` / ``dumps``, ``tofile``, ``resize`` (NumPy's in-place
form beside PyTorch's deprecated one), ``setflags``, ``getfield`` /
``setfield``.

- byteswap(inplace=False): every element's bytes reversed (each half of a
  complex number separately), as NumPy's; the dtype stays, so the values
  are NumPy's ``a.byteswap()`` values.  Tensors are always native-endian:
  this is for reading foreign data, not a change of byte order.
- dump(file) / dumps(): pickle the tensor (it loads back as a tensor).
- tofile(fid, sep="", format="%s"): NumPy's raw binary (C order) or text
  format; ``numpy.fromfile`` / ``torchlike.numpy.fromfile`` read it back.
- resize: ``x.resize(2, 3)`` with the same number of elements is PyTorch's
  deprecated non-in-place resize (a view; PyTorch wins the collision);
  ``x.resize(shape, refcheck=...)``, or a new size with another number of
  elements (which PyTorch refuses), is NumPy's: in place, C order, new
  elements zero, returns None.  refcheck: NumPy counts references to the
  array; a tensor does not know its views, so here refcheck=True refuses
  only a tensor that is itself a view (it does not own its memory).
- setflags(write=...): read-only is a property of the memory here (the
  storage), not of one view as in NumPy, so ``write=False`` makes every
  view of that memory read-only; ``write=True`` undoes only what
  ``setflags`` did (memory that came read-only, from a read-only ndarray
  or buffer, stays so, as NumPy refuses there too).  align=False and
  uic=True are refused: tensors are always aligned and have no writeback.
- getfield(dtype, offset) / setfield(val, dtype, offset): a view of the
  bytes of each element at ``offset`` as ``dtype`` (e.g. the imaginary parts
  of complex128 at offset 8), where ``dtype`` is no wider than the element
  and the offset is a multiple of its size (a view of our dtypes needs
  aligned elements; NumPy's structured and unaligned fields have no
  tensor equivalent)."""
import pickle
import weakref

import numpy as np

from . import _C
from ._C import Tensor
from ._array_function import tl_dtype
from ._ndarray import _numpy_function, _override
from ._tensor_storage import _resized

_made_readonly = weakref.WeakValueDictionary()   # storage id -> a tensor of it


def _dtype(dtype):
    """A torchlike dtype from a NumPy dtype, type or name (or "bfloat16",
    which NumPy does not know), or a torchlike dtype; None is NumPy's float64."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return _C.bfloat16
    return tl_dtype(np.float64 if dtype is None else dtype)


_UINT = {1: _C.uint8, 2: _C.int16, 4: _C.int32, 8: _C.int64}


def _swap_in_place(t):
    """Reverse the bytes of each element (component) of t in place."""
    from ._composites import view_as_real
    # dims in memory order: a dense tensor's view is then row-major, as
    # view_as_real needs (its last dim contiguous)
    t = t.permute(*t.dim_order())
    parts = view_as_real(t) if t.is_complex() else t
    width = parts.dtype.itemsize
    if width == 1 or t.numel() == 0:
        return
    raw = parts.view(_UINT[width])
    host = raw.cpu()
    arr = host.numpy()
    arr.byteswap(inplace=True)
    if host is not raw:     # a device tensor: the swapped bytes go back
        raw.copy_(host)


def byteswap(self, inplace=False):
    """The elements with their bytes reversed (NumPy's ``ndarray.byteswap``)."""
    if inplace:
        _swap_in_place(self.detach())
        return self
    out = self.detach().clone()  # laid out as self, as NumPy's copy is
    _swap_in_place(out)
    return out


def dump(self, file):
    """Pickle self into ``file`` (a path or a binary file object)."""
    if hasattr(file, "write"):
        pickle.dump(self, file, protocol=2)
        return
    with open(file, "wb") as f:
        pickle.dump(self, f, protocol=2)


def dumps(self):
    """self pickled to bytes (``pickle.loads`` gives the tensor back)."""
    return pickle.dumps(self, protocol=2)


def tofile(self, fid, sep="", format="%s"):
    """Write the elements in C order to ``fid`` (a path or a file object):
    raw bytes with sep="", else text, each element ``format % value``,
    separated by sep (NumPy's ``ndarray.tofile``)."""
    if sep:  # text goes out as ASCII; NumPy 2.4's C writer crashes on other characters
        sep.encode("ascii")
        format.encode("ascii")
    t = self.detach().cpu().contiguous()
    if t.dtype == _C.bfloat16:   # NumPy has no bfloat16: raw bits, or the values as text
        arr = t.view(_C.int16).numpy() if sep == "" else t.float().numpy()
    else:
        arr = t.numpy()
    arr.tofile(fid, sep=sep, format=format)


def _numpy_resize(self, shape, refcheck):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions not allowed")
    if refcheck and (self.storage_offset() != 0 or
                     _C._storage_bytes(self).shape[0] != self.numel() * self.itemsize):
        raise ValueError("cannot resize this array: it does not own its data")
    # one segment: C-contiguous, or Fortran-contiguous, which NumPy resizes in
    # its own order (the memory kept, the new shape read first index fastest)
    fortran = not self.is_contiguous() and \
        self.permute(*reversed(range(self.ndim))).is_contiguous()
    if not (self.is_contiguous() or fortran):
        raise ValueError("resize only works on single-segment arrays")
    old = self.numel()
    self.resize_(shape)
    if fortran:
        strides, step = [], 1
        for n in shape:
            strides.append(step)
            step *= max(n, 1)
        self.as_strided_(shape, tuple(strides), self.storage_offset())
    if self.numel() > old:     # NumPy fills the new elements with zeros
        memory = self.permute(*reversed(range(self.ndim))) if fortran else self
        memory.reshape(-1).narrow(0, old, self.numel() - old).zero_()


def resize(self, *args, refcheck=None):
    """NumPy's in-place resize or PyTorch's deprecated view (module doc)."""
    shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list, _C.Size)) \
        else args
    numel = 1
    for n in shape:
        numel *= n
    if refcheck is None and shape and numel == self.numel():
        return _resized(self, shape, "resize")
    _numpy_resize(self, shape, True if refcheck is None else refcheck)
    return None


def setflags(self, write=None, align=None, uic=None):
    """NumPy's flag setter: ``write`` (see the module doc), align, uic."""
    if align is False:
        raise ValueError("torchlike tensors are always aligned: setflags(align=False) is not "
                         "supported")
    if uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
    if write is None:
        return
    key = _C._storage_id(self)
    if not write:
        if not self._is_readonly():
            _made_readonly[key] = self
        self._set_readonly(True)
    elif self.flags.writeable is False:
        if key not in _made_readonly:
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        self._set_readonly(False)
        del _made_readonly[key]


def _field(self, dtype, offset, fn):
    dt = _dtype(dtype)
    size, itemsize = dt.itemsize, self.dtype.itemsize
    if offset < 0 or offset + size > itemsize:
        raise ValueError(f"Need 0 <= offset <= {itemsize - size} for requested type but "
                         f"received offset = {offset}")
    if offset % size:
        raise ValueError(f"{fn}: offset {offset} is not a multiple of the {dt} size ({size}): "
                         f"a tensor view needs aligned elements")
    raw = _C._storage_bytes(self)
    usable = raw.narrow(0, 0, raw.shape[0] - raw.shape[0] % size)
    step = itemsize // size
    # as_strided takes no negative strides: start from the lowest element and
    # reverse those dims of the view afterwards
    first = self.storage_offset() + sum((n - 1) * st for n, st in zip(self.shape, self.stride())
                                        if st < 0 and n > 0)
    start = (first * itemsize + offset) // size
    view = usable.view(dt).as_strided(tuple(self.shape),
                                      tuple(abs(st) * step for st in self.stride()), start)
    flips = tuple(slice(None, None, -1) if st < 0 else slice(None) for st in self.stride())
    view = view[flips] if any(st < 0 for st in self.stride()) else view
    return _C._as_view(view, self)  # NumPy: the field's base is self's


def getfield(self, dtype, offset=0):
    """A view of each element's bytes at ``offset`` read as ``dtype``."""
    return _field(self, dtype, offset, "getfield")


def setfield(self, val, dtype, offset=0):
    """Write ``val`` into each element's bytes at ``offset`` as ``dtype``."""
    _field(self, dtype, offset, "setfield").copy_(
        val if isinstance(val, Tensor) else _C.tensor(val, dtype=_dtype(dtype)))


for _name in ("byteswap", "dump", "dumps", "tofile", "resize", "setflags", "getfield",
              "setfield"):
    setattr(Tensor, _name, globals()[_name])

# x.clip: NumPy's ufunc keywords (where=, dtype=, casting= ...) take np.clip's;
# PyTorch's clamp (the alias, installed after _ndarray) has none of them
_override("clip", _numpy_function("clip"),
          keywords=("where", "dtype", "casting", "order", "subok", "signature"))
