"""``torchlike.from_file``: PyTorch's ``torch.from_file``, a 1-d tensor over
a file's bytes.  ``shared=True`` maps the file (``mmap``), so writes to the
tensor change the file, and a file shorter than asked is grown (PyTorch's
shared mapping does the same); otherwise the mapping is private
(copy-on-write): the tensor can be written and the file is not changed."""
import builtins
import mmap
import os

from . import _C


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """A tensor of ``size`` elements of ``dtype`` (the default dtype) read
    from ``filename`` by mapping it into memory."""
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not isinstance(filename, (str, bytes)):  # PyTorch's: no path objects either
        raise TypeError(f"from_file(): argument 'filename' (position 1) must be str, not "
                        f"{type(filename).__name__}")
    if not isinstance(size, int) or isinstance(size, builtins.bool):
        raise TypeError(f"from_file(): argument 'size' must be int, not {type(size).__name__}")
    nbytes = size * _C.empty(0, dtype=dtype).element_size()
    if nbytes < 0:  # PyTorch's words
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot "
                           f"allocate memory (12)")
    if shared:
        with open(filename, "ab"):  # created if missing, as PyTorch's shared mapping
            pass
    elif not os.path.exists(filename):
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such "
                           f"file or directory (2)")
    have = os.path.getsize(filename)
    if have < nbytes:
        if not shared:
            raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the "
                               f"required mapping size <{nbytes}>")
        with open(filename, "r+b") as f:
            f.truncate(nbytes)
    if nbytes == 0:
        t = _C.empty(0, dtype=dtype)
    else:
        with open(filename, "r+b" if shared else "rb") as f:
            mapped = mmap.mmap(f.fileno(), nbytes,
                               access=mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY)
        t = _C.frombuffer(mapped, dtype=dtype, count=size)
    if device is not None:
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t
