"""Tensors over a memory-mapped file: ``memmap`` (NumPy's) and ``load(...,
mmap_mode=)`` (``torchlike.from_file``, PyTorch's, is in torchlike/_from_file.py).

The file is mapped by NumPy's ``numpy.memmap`` (its modes, offsets, shapes,
file creation and errors), and the tensor is a zero-copy view of the mapped
memory: reading the tensor reads the file, writing it writes the file (modes
``r+`` and ``w+``; ``c`` maps copy-on-write, so writes stay in memory; ``r``
maps read-only, so writes raise ``ValueError: ... read-only``).  The mapped
pages live in host memory: a memmap is a CPU tensor."""
import numpy as np

from .. import _C
from .._array_function import as_tensor, np_dtype, tl_dtype

Tensor = _C.Tensor


class memmap(Tensor):
    """A CPU tensor whose memory is a mapping of ``filename``.

    ``memmap(filename, dtype=uint8, mode='r+', offset=0, shape=None,
    order='C')`` as NumPy's: ``filename`` a path or an open file, ``mode``
    one of ``r``, ``r+``, ``w+``, ``c`` (or ``readonly``, ``readwrite``,
    ``write``, ``copyonwrite``), ``shape`` required for ``w+`` (else the file
    from ``offset`` on, 1-d).  ``filename``, ``offset`` and ``mode`` are
    attributes; ``flush()`` writes changes to disk.  Slices and views of a
    memmap are memmaps of the same file; results of computations are plain
    tensors (they do not share the mapping), as NumPy's are ndarrays."""

    def __new__(cls, filename, dtype=_C.uint8, mode="r+", offset=0, shape=None, order="C"):
        dtype = _C.bfloat16 if dtype == "bfloat16" else (tl_dtype(dtype) or _C.uint8)
        # bfloat16, which NumPy lacks, is mapped as int16 and viewed
        mapped = np.memmap(filename, dtype=np.int16 if dtype == _C.bfloat16 else
                           np_dtype(dtype), mode=mode, offset=offset, shape=shape, order=order)
        return _from_numpy_memmap(mapped, cls, dtype)

    def __init__(self, *args, **kwargs):
        pass

    def flush(self):
        """Write changes of the mapping back to the file (no-op for ``r``, ``c``)."""
        mapped = getattr(self, "_mapped", None)
        if mapped is not None and mapped.base is not None:
            mapped.flush()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        source = next((a for a in args if isinstance(a, memmap)), None)
        return _settle(result, source)

    def __reduce_ex__(self, protocol):  # pickles as a plain tensor of its values
        return Tensor.__reduce_ex__(self.as_subclass(Tensor), protocol)

    def __repr__(self):
        return "memmap(" + repr(self.as_subclass(Tensor))[len("tensor("):]


def _from_numpy_memmap(mapped, cls=memmap, dtype=None):
    """A ``memmap`` tensor over NumPy's memmap ``mapped`` (zero-copy)."""
    t = as_tensor(np.asarray(mapped).reshape(mapped.shape or (1,)))
    if dtype is not None and dtype != t.dtype:
        t = t.view(dtype)
    t = (t if mapped.ndim else t.reshape(())).as_subclass(cls)
    t._mapped = mapped
    t.filename = mapped.filename
    t.offset = mapped.offset
    t.mode = mapped.mode
    start = mapped.ctypes.data
    t._span = (start, start + mapped.nbytes)
    return t


def _settle(result, source):
    """Results sharing the mapping stay memmaps of it; others become tensors."""
    if isinstance(result, (tuple, list)):
        return type(result)(_settle(r, source) for r in result)
    if not isinstance(result, memmap):
        return result
    if source is not None and result.device.type == "cpu":
        lo, hi = source._span
        if result.numel() == 0 or lo <= result.data_ptr() < hi:
            for name in ("_mapped", "filename", "offset", "mode", "_span"):
                setattr(result, name, getattr(source, name))
            return result
    return result.as_subclass(Tensor)


def open_memmap_npy(filename, mmap_mode):
    """``numpy.load(filename, mmap_mode=...)`` of a .npy file as a memmap."""
    mapped = np.load(filename, mmap_mode=mmap_mode)
    return _from_numpy_memmap(mapped) if isinstance(mapped, np.memmap) else mapped


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=None):
    """NumPy's ``load``: arrays as tensors; with ``mmap_mode`` a .npy file is
    mapped, and the result is a ``memmap`` sharing the file."""
    kwargs = {} if max_header_size is None else {"max_header_size": max_header_size}
    result = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle,
                     fix_imports=fix_imports, encoding=encoding, **kwargs)
    if isinstance(result, np.memmap):
        return _from_numpy_memmap(result)
    from ._wrap import tensors
    if isinstance(result, np.lib.npyio.NpzFile):
        return result  # arrays are read per key, as NumPy's
    return tensors(result)
